"""UDF types: reading (lenient), writing and definition-ids (canonical), the strict refusal of
struct field names a definition-id cannot carry, and the lenient definition-id match."""

from __future__ import annotations

import re

import pytest

from iceview.errors import InvalidArgumentError, InvalidMetadataError
from iceview.udf import (
    ListType,
    MapType,
    PrimitiveType,
    StructType,
    canonical,
    definition_id,
    parse_type,
    type_to_json,
)
from iceview.udf.types import MAX_TYPE_DEPTH, ambiguous_field_names, matches_definition_id

INT = PrimitiveType("int")
STRING = PrimitiveType("string")


def exact(message: str) -> str:
    return "^" + re.escape(message) + "$"


def read_error(node: object) -> InvalidMetadataError:
    with pytest.raises(InvalidMetadataError) as info:
        parse_type(node, "$.t")
    return info.value


# ------------------------------------------------------------------------------------ primitives


@pytest.mark.parametrize(
    ("written", "canonical_name"),
    [
        ("boolean", "boolean"),
        ("int", "int"),
        ("long", "long"),
        ("float", "float"),
        ("double", "double"),
        ("date", "date"),
        ("time", "time"),
        ("timestamp", "timestamp"),
        ("timestamptz", "timestamptz"),
        ("timestamp_ns", "timestamp_ns"),
        ("timestamptz_ns", "timestamptz_ns"),
        ("string", "string"),
        ("uuid", "uuid"),
        ("binary", "binary"),
        ("unknown", "unknown"),
        ("variant", "variant"),
        ("geometry", "geometry"),
        ("geography", "geography"),
        ("fixed[16]", "fixed[16]"),
        ("decimal(9,2)", "decimal(9,2)"),
        # lenient: any case, spaces inside the brackets (Java's Types.fromPrimitiveString)
        ("INT", "int"),
        ("TimestampTZ_NS", "timestamptz_ns"),
        ("Variant", "variant"),
        ("decimal( 9, 2 )", "decimal(9,2)"),
        ("DECIMAL(38,0)", "decimal(38,0)"),
        ("decimal(09,02)", "decimal(9,2)"),
        ("fixed[ 16 ]", "fixed[16]"),
        ("FIXED[1]", "fixed[1]"),
        # geometry and geography keep their CRS as written; the algorithm is lower-cased
        ("geometry(srid:4326)", "geometry(srid:4326)"),
        ("GEOMETRY( OGC:CRS84 )", "geometry(OGC:CRS84)"),
        ("geography(OGC:CRS84, Spherical)", "geography(OGC:CRS84,spherical)"),
        ("geography(srid:4326)", "geography(srid:4326)"),
    ],
)
def test_primitive_spellings(written: str, canonical_name: str) -> None:
    t = parse_type(written)
    assert t == PrimitiveType(canonical_name)
    assert canonical(t) == canonical_name
    assert type_to_json(t) == canonical_name
    assert PrimitiveType(written).name == canonical_name


@pytest.mark.parametrize(
    "written",
    [
        "integer",
        "varchar",
        "",
        " int",
        "int ",
        "decimal(9;2)",
        "decimal (9,2)",  # Java's pattern has no space before the parenthesis either
        "decimal(9)",
        "fixed[]",
        "fixed[-1]",
        "decimal(٩,2)",  # Java's \d is ASCII
        "geometry('srid:4326')",  # the UDF spec allows no quote in a type string
        "geography(a,b,c)",
        "list",
        "list<int>",  # nested types are objects, not strings
    ],
)
def test_unknown_primitive_names_are_refused_with_the_path(written: str) -> None:
    e = read_error(written)
    assert e.message == f"Cannot parse type string to primitive: {written}"
    assert e.path == "$.t"
    with pytest.raises(
        InvalidArgumentError, match=exact(f"Cannot parse type string to primitive: {written}")
    ):
        PrimitiveType(written)


def test_decimal_precision_above_38_is_refused_as_java_does() -> None:
    e = read_error("decimal(39,2)")
    assert e.message == "Decimals with precision larger than 38 are not supported: 39"
    assert e.path == "$.t"


def test_numbers_beyond_an_int_are_refused() -> None:
    assert (
        read_error("fixed[2147483648]").message == "Cannot parse type string to primitive: fixed[2147483648]"
    )
    assert parse_type("fixed[2147483647]") == PrimitiveType("fixed[2147483647]")


def test_a_non_string_primitive_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match=exact("Invalid primitive type: 3")):
        PrimitiveType(3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------- nested types


def test_nested_types_read_and_write_with_only_the_required_fields() -> None:
    node = {
        "type": "struct",
        "fields": [
            {"name": "id", "type": "int"},
            {"name": "tags", "type": {"type": "list", "element": "string"}},
            {"name": "attrs", "type": {"type": "map", "key": "string", "value": "decimal(9,2)"}},
        ],
    }
    t = parse_type(node)
    assert t == StructType(
        (
            ("id", INT),
            ("tags", ListType(STRING)),
            ("attrs", MapType(STRING, PrimitiveType("decimal(9,2)"))),
        )
    )
    assert type_to_json(t) == node
    assert canonical(t) == "struct<id:int,tags:list<string>,attrs:map<string,decimal(9,2)>>"
    assert str(t) == canonical(t)


def test_other_fields_of_type_objects_are_ignored_on_read_and_not_written() -> None:
    node = {
        "type": "struct",
        "schema-id": 3,
        "fields": [
            {"id": 1, "name": "a", "required": True, "doc": "x", "type": "INT", "initial-default": 1},
            {
                "id": 2,
                "name": "l",
                "required": False,
                "type": {"type": "list", "element-id": 3, "element-required": True, "element": "Long"},
            },
            {
                "id": 4,
                "name": "m",
                "required": False,
                "type": {
                    "type": "map",
                    "key-id": 5,
                    "key": "string",
                    "value-id": 6,
                    "value-required": False,
                    "value": "Decimal( 10, 3 )",
                },
            },
        ],
        "future-field": {"anything": []},
    }
    t = parse_type(node)
    assert type_to_json(t) == {
        "type": "struct",
        "fields": [
            {"name": "a", "type": "int"},
            {"name": "l", "type": {"type": "list", "element": "long"}},
            {"name": "m", "type": {"type": "map", "key": "string", "value": "decimal(10,3)"}},
        ],
    }


def test_the_nested_type_name_is_read_in_any_case() -> None:
    assert parse_type({"type": "LIST", "element": "int"}) == ListType(INT)


@pytest.mark.parametrize(
    ("node", "message", "path"),
    [
        ({"type": "list"}, "Cannot parse missing field: element", "$.t.element"),
        ({"type": "list", "element": None}, "Cannot parse missing field: element", "$.t.element"),
        ({"type": "map", "key": "int"}, "Cannot parse missing field: value", "$.t.value"),
        ({"type": "map", "value": "int"}, "Cannot parse missing field: key", "$.t.key"),
        ({"type": "struct"}, "Cannot parse missing field: fields", "$.t.fields"),
        ({"type": "struct", "fields": {}}, "Cannot parse struct fields from non-array: {}", "$.t.fields"),
        ({"type": "struct", "fields": [1]}, "Cannot parse struct field from non-object: 1", "$.t.fields[0]"),
        (
            {"type": "struct", "fields": [{"type": "int"}]},
            "Cannot parse missing string: name",
            "$.t.fields[0].name",
        ),
        (
            {"type": "struct", "fields": [{"name": 1, "type": "int"}]},
            "Cannot parse to a string value: name: 1",
            "$.t.fields[0].name",
        ),
        (
            {"type": "struct", "fields": [{"name": "a"}]},
            "Cannot parse missing field: type",
            "$.t.fields[0].type",
        ),
        (
            {"type": "struct", "fields": [{"name": "a", "type": "int4"}]},
            "Cannot parse type string to primitive: int4",
            "$.t.fields[0].type",
        ),
        (
            {"type": "list", "element": {"type": "map", "key": "int", "value": "nope"}},
            "Cannot parse type string to primitive: nope",
            "$.t.element.value",
        ),
        ({"type": "int"}, 'Cannot parse type from json: {"type":"int"}', "$.t"),
        ({"element": "int"}, 'Cannot parse type from json: {"element":"int"}', "$.t"),
        (3, "Cannot parse type from json: 3", "$.t"),
        (None, "Cannot parse type from json: null", "$.t"),
        (["int"], 'Cannot parse type from json: ["int"]', "$.t"),
    ],
)
def test_malformed_types_are_refused_with_the_path(node: object, message: str, path: str) -> None:
    e = read_error(node)
    assert (e.message, e.path) == (message, path)


def test_types_nested_beyond_the_limit_are_refused() -> None:
    node: object = "int"
    for _ in range(MAX_TYPE_DEPTH):
        node = {"type": "list", "element": node}
    assert canonical(parse_type(node)).count("list<") == MAX_TYPE_DEPTH
    e = read_error({"type": "list", "element": node})
    assert e.message == f"Cannot parse type: nested more than {MAX_TYPE_DEPTH} levels deep"
    assert e.path == "$.t" + ".element" * (MAX_TYPE_DEPTH + 1)


# --------------------------------------------------------------------------------- definition-id


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        ([], ""),
        ([INT], "int"),
        ([INT, STRING], "int,string"),
        ([PrimitiveType("decimal( 9,2)"), PrimitiveType("fixed[16]")], "decimal(9,2),fixed[16]"),
        ([PrimitiveType("timestamptz_ns"), PrimitiveType("variant")], "timestamptz_ns,variant"),
        ([ListType(INT)], "list<int>"),
        ([MapType(STRING, INT)], "map<string,int>"),
        ([StructType((("id", INT), ("name", STRING)))], "struct<id:int,name:string>"),
        ([StructType(())], "struct<>"),
        (
            [INT, ListType(INT), StructType((("id", INT), ("name", STRING)))],
            "int,list<int>,struct<id:int,name:string>",
        ),
        (
            [MapType(StructType((("k", PrimitiveType("uuid")),)), ListType(MapType(INT, ListType(STRING))))],
            "map<struct<k:uuid>,list<map<int,list<string>>>>",
        ),
        ([StructType((("größe", INT), ("名前", STRING)))], "struct<größe:int,名前:string>"),
    ],
)
def test_definition_ids(types: list, expected: str) -> None:
    assert definition_id(types) == expected
    assert matches_definition_id(expected, types)


@pytest.mark.parametrize(
    "name", ["", "a b", "a\tb", " a", "a,b", "a:b", "a<b", "a>b", "a`b", 'a"b', "a'b", "a\u00a0b"]
)
def test_a_struct_field_name_a_definition_id_cannot_carry_is_refused(name: str) -> None:
    t = ListType(StructType((("ok", INT), (name, INT))))
    assert ambiguous_field_names(t, "$.p") == [(name, "$.p.element.fields[1].name")]
    with pytest.raises(InvalidArgumentError) as info:
        definition_id([INT, t])
    assert str(info.value) == (
        f"Invalid struct field name {name!r} in parameter 1 (at $.parameters[1].type.element.fields[1].name): "
        "a definition-id cannot carry an empty name or one with whitespace, ',', ':', '<', '>', '`', '\"' or \"'\""
    )
    # the type itself still reads and writes: only the definition-id is ambiguous
    assert parse_type(type_to_json(t)) == t


@pytest.mark.parametrize(
    ("written", "types"),
    [
        ("int,string", [INT, STRING]),
        (" INT , String ", [INT, STRING]),
        ("decimal( 9, 2 )", [PrimitiveType("decimal(9,2)")]),
        ("List< Int >", [ListType(INT)]),
        ("map<string , int>", [MapType(STRING, INT)]),
        ("STRUCT< id : INT, name:string >", [StructType((("id", INT), ("name", STRING)))]),
        ("struct<>", [StructType(())]),
        ("struct< >", [StructType(())]),
        ("", []),
        ("  ", []),
        # names a reader accepts even though a writer refuses them
        ("struct<a,b:int>", [StructType((("a,b", INT),))]),
        ("struct< a:int>", [StructType(((" a", INT),))]),
        ("struct<:int>", [StructType((("", INT),))]),
    ],
)
def test_lenient_definition_id_matches(written: str, types: list) -> None:
    assert matches_definition_id(written, types)


@pytest.mark.parametrize(
    ("written", "types"),
    [
        ("int", [INT, STRING]),
        ("int,string", [INT]),
        ("string,int", [INT, STRING]),
        ("long", [INT]),
        ("decimal(9,3)", [PrimitiveType("decimal(9,2)")]),
        ("list<int>", [ListType(STRING)]),
        ("list<int", [ListType(INT)]),
        ("map<int,string>", [MapType(STRING, INT)]),
        ("struct<ID:int>", [StructType((("id", INT),))]),  # field names are compared exactly
        ("struct<id:int>", [StructType((("id", INT), ("x", INT)))]),
        ("int,", [INT]),
        (",int", [INT]),
        ("x", []),
        ("int int", [INT]),
    ],
)
def test_definition_ids_that_name_another_signature_do_not_match(written: str, types: list) -> None:
    assert not matches_definition_id(written, types)
