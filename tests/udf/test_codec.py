"""The UDF metadata codec: the UDF spec's two examples round-trip; reading is lenient with exact
error paths; writing is canonical and in the spec's field order."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from iceview.errors import InvalidArgumentError, InvalidMetadataError
from iceview.udf import (
    DefinitionLogEntry,
    DefinitionVersion,
    FunctionDefinition,
    FunctionMetadata,
    FunctionParameter,
    ListType,
    PrimitiveType,
    SQLRepresentation,
    StructType,
    UnknownRepresentation,
    function_metadata_from_dict,
    function_metadata_from_json,
    function_metadata_to_dict,
    function_metadata_to_json,
)

DATA = Path(__file__).parent.parent / "data" / "udf"
APPENDIX_A = DATA / "appendix-a-overloaded-scalar.json"
APPENDIX_B = DATA / "appendix-b-udtf.json"
UUID = "42fd3f91-bc10-41c1-8a52-92b57dd0a9b2"


def appendix_a() -> dict[str, Any]:
    value: dict[str, Any] = json.loads(APPENDIX_A.read_text())
    return value


def minimal(**changes: Any) -> dict[str, Any]:
    """The smallest valid metadata: one 0-parameter definition."""
    md: dict[str, Any] = {
        "function-uuid": UUID,
        "format-version": 1,
        "definitions": [
            {
                "definition-id": "",
                "parameters": [],
                "return-type": "int",
                "versions": [
                    {
                        "version-id": 1,
                        "representations": [{"type": "sql", "dialect": "spark", "sql": "1"}],
                        "timestamp-ms": 10,
                    }
                ],
                "current-version-id": 1,
                "function-type": "udf",
            }
        ],
        "definition-log": [
            {"timestamp-ms": 10, "definition-versions": [{"definition-id": "", "version-id": 1}]}
        ],
    }
    md.update(changes)
    return md


def read_error(obj: Any) -> InvalidMetadataError:
    with pytest.raises(InvalidMetadataError) as info:
        function_metadata_from_dict(obj)
    return info.value


# ------------------------------------------------------------------------------- the two examples


@pytest.mark.parametrize("path", [APPENDIX_A, APPENDIX_B], ids=["appendix-a", "appendix-b"])
def test_the_spec_examples_round_trip_to_equal_json(path: Path) -> None:
    text = path.read_text()
    md = function_metadata_from_json(text)
    assert function_metadata_to_dict(md) == json.loads(text)
    assert json.loads(function_metadata_to_json(md)) == json.loads(text)
    assert json.loads(function_metadata_to_json(md, pretty=True)) == json.loads(text)
    assert function_metadata_from_json(function_metadata_to_json(md)) == md


def test_appendix_a_reads_as_its_model() -> None:
    md = function_metadata_from_json(APPENDIX_A.read_bytes())
    assert md.function_uuid == UUID
    assert md.definition_ids == ("int", "float")
    assert md.doc == "Overloaded scalar UDF for integer and float inputs"
    assert md.secure is False and md.location is None and md.properties == {}
    add_int = md.definition("int")
    assert add_int is not None
    assert add_int.parameters == (FunctionParameter("x", PrimitiveType("int"), "Input integer"),)
    assert add_int.return_type == PrimitiveType("int")
    assert add_int.return_nullable is True
    assert add_int.function_type == "udf"
    assert add_int.current_version_id == 2
    assert md.current_version("int") == DefinitionVersion(
        2,
        (SQLRepresentation("trino", "x + 1"), SQLRepresentation("spark", "x + 1")),
        1735507000124,
        deterministic=True,
    )
    assert md.current_version(add_int).sql_for("SPARK") == SQLRepresentation("spark", "x + 1")
    assert md.current_version("float").sql_for("spark") is None
    assert md.current_version("float").sql_for("spark", fallback=True) == SQLRepresentation(
        "trino", "x + 1.0"
    )
    assert md.current_version("float").on_null_input == "call"
    assert md.definition_log[-1] == DefinitionLogEntry(1735507000124, (("int", 2), ("float", 1)))
    assert md.definition_log[-1].as_mapping() == {"int": 2, "float": 1}
    assert md.current_definition_versions == {"int": 2, "float": 1}
    assert md.definition("long") is None
    with pytest.raises(InvalidArgumentError, match="Unknown definition: 'long'"):
        md.current_version("long")


def test_appendix_b_is_a_udtf_returning_a_struct() -> None:
    md = function_metadata_from_json(APPENDIX_B.read_text())
    (d,) = md.definitions
    assert d.function_type == "udtf"
    assert d.return_type == StructType(
        (("name", PrimitiveType("string")), ("color", PrimitiveType("string")))
    )
    assert d.current_version.dialects == ("trino", "spark")


def test_the_writer_uses_the_spec_field_order_and_writes_secure_always() -> None:
    md = function_metadata_from_dict(
        minimal(doc="d", location="s3://b/f", properties={"k": "v"}, secure=True, zzz="ignored")
    )
    out = function_metadata_to_dict(md)
    assert list(out) == [
        "function-uuid",
        "format-version",
        "definitions",
        "definition-log",
        "location",
        "properties",
        "secure",
        "doc",
    ]
    assert list(function_metadata_to_dict(function_metadata_from_dict(minimal()))) == [
        "function-uuid",
        "format-version",
        "definitions",
        "definition-log",
        "secure",
    ]


def test_defaults_are_written_only_when_not_defaults() -> None:
    obj = minimal()
    d = obj["definitions"][0]
    d.update({"return-nullable": False, "specific-name": "one", "doc": "x"})
    d["versions"][0].update({"deterministic": False, "on-null-input": "RETURN-NULL"})
    out = function_metadata_to_dict(function_metadata_from_dict(obj))
    written = out["definitions"][0]
    assert list(written) == [
        "definition-id",
        "specific-name",
        "parameters",
        "return-type",
        "return-nullable",
        "versions",
        "current-version-id",
        "function-type",
        "doc",
    ]
    assert written["return-nullable"] is False
    assert written["versions"][0] == {
        "version-id": 1,
        "representations": [{"type": "sql", "dialect": "spark", "sql": "1"}],
        "on-null-input": "return-null",
        "timestamp-ms": 10,
    }


def test_the_pretty_layout_is_jacksons() -> None:
    text = function_metadata_to_json(function_metadata_from_dict(minimal()), pretty=True)
    assert (
        text
        == """{
  "function-uuid" : "42fd3f91-bc10-41c1-8a52-92b57dd0a9b2",
  "format-version" : 1,
  "definitions" : [ {
    "definition-id" : "",
    "parameters" : [ ],
    "return-type" : "int",
    "versions" : [ {
      "version-id" : 1,
      "representations" : [ {
        "type" : "sql",
        "dialect" : "spark",
        "sql" : "1"
      } ],
      "timestamp-ms" : 10
    } ],
    "current-version-id" : 1,
    "function-type" : "udf"
  } ],
  "definition-log" : [ {
    "timestamp-ms" : 10,
    "definition-versions" : [ {
      "definition-id" : "",
      "version-id" : 1
    } ]
  } ],
  "secure" : false
}"""
    )
    compact = function_metadata_to_json(function_metadata_from_dict(minimal()))
    assert compact.startswith('{"function-uuid":"42fd3f91-bc10-41c1-8a52-92b57dd0a9b2","format-version":1,')


# ---------------------------------------------------------------------------------- lenient reads


def test_unknown_fields_are_ignored_everywhere() -> None:
    obj = appendix_a()
    obj["future"] = 1
    obj["definitions"][0]["future"] = {"x": 1}
    obj["definitions"][0]["parameters"][0]["future"] = []
    obj["definitions"][0]["versions"][0]["future"] = None
    obj["definitions"][0]["versions"][0]["representations"][0]["future"] = True
    obj["definition-log"][0]["future"] = "x"
    obj["definition-log"][0]["definition-versions"][0]["future"] = 2
    assert function_metadata_to_dict(function_metadata_from_dict(obj)) == appendix_a()


def test_null_optional_fields_are_absent() -> None:
    obj = minimal(location=None, doc=None, secure=None)
    d = obj["definitions"][0]
    d.update({"specific-name": None, "return-nullable": None, "doc": None})
    d["versions"][0].update({"deterministic": None, "on-null-input": None})
    assert function_metadata_to_dict(function_metadata_from_dict(obj)) == minimal(secure=False)


def test_spellings_are_read_leniently_and_written_canonically() -> None:
    obj = minimal()
    d = obj["definitions"][0]
    d["definition-id"] = " Decimal( 9, 2 ) , LIST<INT> "
    d["parameters"] = [
        {"name": "a", "type": "DECIMAL(9, 2)"},
        {"name": "b", "type": {"type": "list", "element-id": 7, "element-required": True, "element": "Int"}},
    ]
    d["function-type"] = "UDF"
    d["versions"][0]["representations"][0]["type"] = "SQL"
    obj["definition-log"][0]["definition-versions"][0]["definition-id"] = "decimal(9,2), list<int>"
    md = function_metadata_from_dict(obj)
    assert md.definition_ids == ("decimal(9,2),list<int>",)
    assert md.definition_log[0].definition_versions == (("decimal(9,2),list<int>", 1),)
    assert md.definition("decimal( 9,2 ),list<int>") is md.definitions[0]
    out = function_metadata_to_dict(md)
    written = out["definitions"][0]
    assert written["definition-id"] == "decimal(9,2),list<int>"
    assert written["parameters"] == [
        {"name": "a", "type": "decimal(9,2)"},
        {"name": "b", "type": {"type": "list", "element": "int"}},
    ]
    assert written["function-type"] == "udf"
    assert written["versions"][0]["representations"] == [{"type": "sql", "dialect": "spark", "sql": "1"}]
    assert out["definition-log"][0]["definition-versions"] == [
        {"definition-id": "decimal(9,2),list<int>", "version-id": 1}
    ]


def test_an_unknown_representation_is_kept_and_written_back() -> None:
    obj = minimal()
    future = {"type": "Substrait", "plan": {"rel": [1, 2]}, "x": None}
    obj["definitions"][0]["versions"][0]["representations"].append(future)
    md = function_metadata_from_dict(obj)
    rep = md.definitions[0].versions[0].representations[1]
    assert isinstance(rep, UnknownRepresentation)
    assert rep.type == "substrait"
    assert function_metadata_to_dict(md)["definitions"][0]["versions"][0]["representations"][1] == future


def test_non_ascii_names_and_docs_round_trip() -> None:
    obj = minimal()
    d = obj["definitions"][0]
    d["definition-id"] = "struct<größe:int,名前:string>"
    d["parameters"] = [
        {
            "name": "Ärger",
            "type": {
                "type": "struct",
                "fields": [{"name": "größe", "type": "int"}, {"name": "名前", "type": "string"}],
            },
            "doc": "🧊",
        }
    ]
    obj["definition-log"][0]["definition-versions"][0]["definition-id"] = d["definition-id"]
    md = function_metadata_from_json(json.dumps(obj, ensure_ascii=False).encode())
    text = function_metadata_to_json(md)
    assert "名前" in text and "🧊" in text  # UTF-8, not escaped
    assert json.loads(text) == {**obj, "secure": False}


def test_a_log_reference_to_no_definition_is_read_as_written() -> None:
    obj = minimal()
    obj["definition-log"].insert(
        0, {"timestamp-ms": 5, "definition-versions": [{"definition-id": "Long", "version-id": 3}]}
    )
    md = function_metadata_from_dict(obj)
    assert md.definition_log[0].definition_versions == (("Long", 3),)


def test_the_metadata_location_is_kept_and_named_in_errors() -> None:
    md = function_metadata_from_json(APPENDIX_B.read_text(), metadata_location="s3://b/f/00001.metadata.json")
    assert md.metadata_file_location == "s3://b/f/00001.metadata.json"
    assert md.with_metadata_file_location(None) == md  # not part of the value
    with pytest.raises(InvalidMetadataError) as info:
        function_metadata_from_json('{"function-uuid": 1}', metadata_location="s3://b/f/2.json")
    assert info.value.location == "s3://b/f/2.json"
    assert (
        str(info.value)
        == "Cannot parse to a string value: function-uuid: 1 (at $.function-uuid in s3://b/f/2.json)"
    )


# ----------------------------------------------------------------------------------- read errors


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("", "Cannot parse function metadata: empty input"),
        (b"  ", "Cannot parse function metadata: empty input"),
        ("null", "Cannot parse function metadata from null object"),
        ("[]", "Cannot parse function metadata from non-object: []"),
        ('"x"', 'Cannot parse function metadata from non-object: "x"'),
    ],
)
def test_documents_that_are_not_metadata(data: str | bytes, message: str) -> None:
    with pytest.raises(InvalidMetadataError) as info:
        function_metadata_from_json(data)
    assert (info.value.message, info.value.path) == (message, "$")


def test_malformed_json() -> None:
    with pytest.raises(InvalidMetadataError) as info:
        function_metadata_from_json("{")
    assert info.value.message.startswith("Cannot parse function metadata: malformed JSON: ")
    with pytest.raises(InvalidMetadataError, match="Cannot parse function metadata from null string"):
        function_metadata_from_json(None)  # type: ignore[arg-type]


def _set(obj: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    node: Any = obj
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return obj


_DELETE = object()
D0 = ["definitions", 0]
V0 = [*D0, "versions", 0]


@pytest.mark.parametrize(
    ("path", "value", "message", "where"),
    [
        (["function-uuid"], _DELETE, "Cannot parse missing string: function-uuid", "$.function-uuid"),
        (["function-uuid"], 7, "Cannot parse to a string value: function-uuid: 7", "$.function-uuid"),
        (["format-version"], _DELETE, "Cannot parse missing int: format-version", "$.format-version"),
        (
            ["format-version"],
            "1",
            'Cannot parse to an integer value: format-version: "1"',
            "$.format-version",
        ),
        (["format-version"], 2, "Unsupported format version: 2", "$.format-version"),
        (["format-version"], 0, "Unsupported format version: 0", "$.format-version"),
        (["definitions"], _DELETE, "Cannot parse missing field: definitions", "$.definitions"),
        (["definitions"], None, "Cannot parse missing field: definitions", "$.definitions"),
        (["definitions"], {}, "Cannot parse definitions from non-array: {}", "$.definitions"),
        (["definitions", 0], 1, "Cannot parse function definition from non-object: 1", "$.definitions[0]"),
        (
            [*D0, "definition-id"],
            _DELETE,
            "Cannot parse missing string: definition-id",
            "$.definitions[0].definition-id",
        ),
        (
            [*D0, "specific-name"],
            1,
            "Cannot parse to a string value: specific-name: 1",
            "$.definitions[0].specific-name",
        ),
        (
            [*D0, "parameters"],
            _DELETE,
            "Cannot parse missing field: parameters",
            "$.definitions[0].parameters",
        ),
        (
            [*D0, "parameters"],
            "x",
            'Cannot parse parameters from non-array: "x"',
            "$.definitions[0].parameters",
        ),
        (
            [*D0, "parameters"],
            [1],
            "Cannot parse function parameter from non-object: 1",
            "$.definitions[0].parameters[0]",
        ),
        (
            [*D0, "parameters"],
            [{"type": "int"}],
            "Cannot parse missing string: name",
            "$.definitions[0].parameters[0].name",
        ),
        (
            [*D0, "parameters"],
            [{"name": "x"}],
            "Cannot parse missing field: type",
            "$.definitions[0].parameters[0].type",
        ),
        (
            [*D0, "parameters"],
            [{"name": "x", "type": "int", "doc": 1}],
            "Cannot parse to a string value: doc: 1",
            "$.definitions[0].parameters[0].doc",
        ),
        (
            [*D0, "parameters"],
            [{"name": "x", "type": "integer"}],
            "Cannot parse type string to primitive: integer",
            "$.definitions[0].parameters[0].type",
        ),
        (
            [*D0, "return-type"],
            _DELETE,
            "Cannot parse missing field: return-type",
            "$.definitions[0].return-type",
        ),
        (
            [*D0, "return-type"],
            {"type": "list", "element": "str"},
            "Cannot parse type string to primitive: str",
            "$.definitions[0].return-type.element",
        ),
        (
            [*D0, "return-nullable"],
            "no",
            'Cannot parse to a boolean value: return-nullable: "no"',
            "$.definitions[0].return-nullable",
        ),
        ([*D0, "versions"], _DELETE, "Cannot parse missing field: versions", "$.definitions[0].versions"),
        (
            [*D0, "versions", 0],
            [],
            "Cannot parse definition version from non-object: []",
            "$.definitions[0].versions[0]",
        ),
        (
            [*V0, "version-id"],
            _DELETE,
            "Cannot parse missing int: version-id",
            "$.definitions[0].versions[0].version-id",
        ),
        (
            [*V0, "version-id"],
            1.5,
            "Cannot parse to an integer value: version-id: 1.5",
            "$.definitions[0].versions[0].version-id",
        ),
        (
            [*V0, "representations"],
            _DELETE,
            "Cannot parse missing field: representations",
            "$.definitions[0].versions[0].representations",
        ),
        (
            [*V0, "representations"],
            {},
            "Cannot parse representations from non-array: {}",
            "$.definitions[0].versions[0].representations",
        ),
        (
            [*V0, "representations", 0],
            "sql",
            'Cannot parse function representation from non-object: "sql"',
            "$.definitions[0].versions[0].representations[0]",
        ),
        (
            [*V0, "representations", 0, "type"],
            _DELETE,
            "Cannot parse missing string: type",
            "$.definitions[0].versions[0].representations[0].type",
        ),
        (
            [*V0, "representations", 0, "dialect"],
            _DELETE,
            "Cannot parse missing string: dialect",
            "$.definitions[0].versions[0].representations[0].dialect",
        ),
        (
            [*V0, "representations", 0, "sql"],
            None,
            "Cannot parse to a string value: sql: null",
            "$.definitions[0].versions[0].representations[0].sql",
        ),
        (
            [*V0, "deterministic"],
            "true",
            'Cannot parse to a boolean value: deterministic: "true"',
            "$.definitions[0].versions[0].deterministic",
        ),
        (
            [*V0, "deterministic"],
            1,
            "Cannot parse to a boolean value: deterministic: 1",
            "$.definitions[0].versions[0].deterministic",
        ),
        (
            [*V0, "on-null-input"],
            "skip",
            "Invalid on-null-input: 'skip' (expected call or return-null)",
            "$.definitions[0].versions[0].on-null-input",
        ),
        (
            [*V0, "on-null-input"],
            1,
            "Cannot parse to a string value: on-null-input: 1",
            "$.definitions[0].versions[0].on-null-input",
        ),
        (
            [*V0, "timestamp-ms"],
            _DELETE,
            "Cannot parse missing long: timestamp-ms",
            "$.definitions[0].versions[0].timestamp-ms",
        ),
        (
            [*V0, "timestamp-ms"],
            2**63,
            f"Cannot parse to a long value: timestamp-ms: {2**63}",
            "$.definitions[0].versions[0].timestamp-ms",
        ),
        (
            [*V0, "timestamp-ms"],
            "1",
            'Cannot parse to a long value: timestamp-ms: "1"',
            "$.definitions[0].versions[0].timestamp-ms",
        ),
        (
            [*D0, "current-version-id"],
            _DELETE,
            "Cannot parse missing int: current-version-id",
            "$.definitions[0].current-version-id",
        ),
        (
            [*D0, "function-type"],
            _DELETE,
            "Cannot parse missing string: function-type",
            "$.definitions[0].function-type",
        ),
        (
            [*D0, "function-type"],
            "udaf",
            "Invalid function-type: 'udaf' (expected udf or udtf)",
            "$.definitions[0].function-type",
        ),
        (
            [*D0, "function-type"],
            None,
            "Cannot parse to a string value: function-type: null",
            "$.definitions[0].function-type",
        ),
        ([*D0, "doc"], [], "Cannot parse to a string value: doc: []", "$.definitions[0].doc"),
        (["definition-log"], _DELETE, "Cannot parse missing field: definition-log", "$.definition-log"),
        (["definition-log"], 3, "Cannot parse definition-log from non-array: 3", "$.definition-log"),
        (
            ["definition-log", 0],
            3,
            "Cannot parse definition log entry from non-object: 3",
            "$.definition-log[0]",
        ),
        (
            ["definition-log", 0, "timestamp-ms"],
            _DELETE,
            "Cannot parse missing long: timestamp-ms",
            "$.definition-log[0].timestamp-ms",
        ),
        (
            ["definition-log", 0, "definition-versions"],
            _DELETE,
            "Cannot parse missing field: definition-versions",
            "$.definition-log[0].definition-versions",
        ),
        (
            ["definition-log", 0, "definition-versions"],
            {},
            "Cannot parse definition-versions from non-array: {}",
            "$.definition-log[0].definition-versions",
        ),
        (
            ["definition-log", 0, "definition-versions", 0],
            1,
            "Cannot parse definition version reference from non-object: 1",
            "$.definition-log[0].definition-versions[0]",
        ),
        (
            ["definition-log", 0, "definition-versions", 0, "definition-id"],
            _DELETE,
            "Cannot parse missing string: definition-id",
            "$.definition-log[0].definition-versions[0].definition-id",
        ),
        (
            ["definition-log", 0, "definition-versions", 0, "version-id"],
            "1",
            'Cannot parse to an integer value: version-id: "1"',
            "$.definition-log[0].definition-versions[0].version-id",
        ),
        (["location"], 1, "Cannot parse to a string value: location: 1", "$.location"),
        (["properties"], {"a": 1}, "Cannot parse to a string value: a: 1", "$.properties.a"),
        (["secure"], "false", 'Cannot parse to a boolean value: secure: "false"', "$.secure"),
        (["doc"], 1, "Cannot parse to a string value: doc: 1", "$.doc"),
    ],
)
def test_read_errors_name_the_field_and_its_path(
    path: list[Any], value: Any, message: str, where: str
) -> None:
    e = read_error(_set(minimal(), path, value))
    assert (e.message, e.path) == (message, where)


def test_a_higher_format_version_is_refused_before_the_rest_is_read() -> None:
    e = read_error({"function-uuid": UUID, "format-version": 2, "something": "else"})
    assert (e.message, e.path) == ("Unsupported format version: 2", "$.format-version")


def test_a_definition_id_naming_another_signature_is_refused() -> None:
    obj = appendix_a()
    obj["definitions"][1]["definition-id"] = "int,string"
    e = read_error(obj)
    assert e.message == "Definition 1 has definition-id 'int,string', but its parameter types give 'float'"
    assert e.path == "$.definitions[1].definition-id"
    obj["definitions"][1]["definition-id"] = "double"
    assert (
        read_error(obj).message
        == "Definition 1 has definition-id 'double', but its parameter types give 'float'"
    )


def test_two_definitions_with_one_signature_are_refused() -> None:
    obj = appendix_a()
    second = copy.deepcopy(obj["definitions"][0])
    second["definition-id"] = "INT"
    obj["definitions"].append(second)
    e = read_error(obj)
    assert (e.message, e.path) == (
        "Definition id 'int' is used more than once",
        "$.definitions[2].definition-id",
    )


def test_two_versions_with_one_id_are_refused() -> None:
    obj = appendix_a()
    obj["definitions"][0]["versions"][1]["version-id"] = 1
    e = read_error(obj)
    assert (e.message, e.path) == (
        "Version id 1 is used more than once",
        "$.definitions[0].versions[1].version-id",
    )


def test_writing_something_that_is_not_metadata() -> None:
    with pytest.raises(InvalidArgumentError, match="Invalid function metadata: 3"):
        function_metadata_to_dict(3)  # type: ignore[arg-type]


def test_metadata_made_in_memory_writes_like_metadata_read() -> None:
    version = DefinitionVersion(1, [SQLRepresentation("spark", "SELECT * FROM t")], 7)
    md = FunctionMetadata(
        function_uuid=UUID,
        format_version=1,
        definitions=[
            FunctionDefinition(
                "list<int>",
                [FunctionParameter("xs", ListType(PrimitiveType("int")))],
                StructType((("n", PrimitiveType("long")),)),
                [version],
                1,
                function_type="udtf",
            )
        ],
        definition_log=[DefinitionLogEntry(7, [("list<int>", 1)])],
        properties={"a": "b"},
    )
    assert function_metadata_from_json(function_metadata_to_json(md)) == md
    with pytest.raises(InvalidArgumentError, match="Unsupported format version: 2"):
        FunctionMetadata(UUID, 2, (), ())
