"""Reading refuses duplicate ids, as Iceberg Java 1.10 does (issue 11, §3).

Java's reader throws on two versions with one ``version-id`` and two schemas with one
``schema-id`` (Guava ``ImmutableMap``: ``Multiple entries with same key: ...``, when it builds
``ViewMetadata``), and on two fields with one id anywhere in a schema (``Schema``'s id index, when
it parses the schema). iceview raises ``InvalidMetadataError`` naming the id, at the JSON path of the
repeated entry. ``tests/interop/test_oracle_golden.py`` pins Java's side of each case.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iceview.errors import InvalidMetadataError
from iceview.files import read_metadata
from iceview.spec import ViewMetadata, validate
from iceview.spec._fast import schema_ids_distinct
from iceview.spec.schema import normalize_schema_json

DATA = Path(__file__).parent.parent / "data"
GOLDEN = DATA / "golden" / "java-1.10.2"
MANY = GOLDEN / "23-view-default.many_versions-after-many-versions-12.metadata.json"


def base() -> dict[str, Any]:
    """Java's own file: 10 versions, 12 flat schemas (so the fast check answers for it)."""
    doc: dict[str, Any] = json.loads(MANY.read_text())
    return doc


def read_error(doc: Any) -> InvalidMetadataError:
    with pytest.raises(InvalidMetadataError) as info:
        ViewMetadata.from_json(json.dumps(doc))
    # the decoded-object entry point says the same
    with pytest.raises(InvalidMetadataError) as again:
        ViewMetadata.from_dict(copy.deepcopy(doc))
    assert (again.value.message, again.value.path) == (info.value.message, info.value.path)
    return info.value


def field(field_id: Any, name: str, ftype: Any = "int") -> dict[str, Any]:
    return {"id": field_id, "name": name, "required": False, "type": ftype}


def test_the_base_file_reads_and_is_on_the_fast_path() -> None:
    doc = base()
    assert schema_ids_distinct(doc["schemas"])
    md = ViewMetadata.from_json(MANY.read_bytes())
    assert len(md.versions) == 10 and len(md.schema_ids) == 12


# ---------------------------------------------------------------------------- version ids


def test_two_versions_with_one_id() -> None:
    doc = base()
    first_id = doc["versions"][0]["version-id"]
    doc["versions"][3]["version-id"] = first_id
    e = read_error(doc)
    assert (e.message, e.path) == (
        f"Version id {first_id} is used more than once",
        "$.versions[3].version-id",
    )
    assert "$.versions[3].version-id" in str(e)


def test_a_copied_version_is_refused_even_off_the_fast_path() -> None:
    doc = base()
    doc["versions"].append(copy.deepcopy(doc["versions"][2]))
    # an upper-case representation type is valid (Java lower-cases it) but not on the fast path
    doc["versions"][0]["representations"][0]["type"] = "SQL"
    e = read_error(doc)
    vid = doc["versions"][2]["version-id"]
    assert (e.message, e.path) == (f"Version id {vid} is used more than once", "$.versions[10].version-id")


def test_the_first_repeated_version_is_reported() -> None:
    doc = base()
    ids = [v["version-id"] for v in doc["versions"]]
    doc["versions"][5]["version-id"] = ids[1]
    doc["versions"][7]["version-id"] = ids[0]
    e = read_error(doc)
    assert (e.message, e.path) == (f"Version id {ids[1]} is used more than once", "$.versions[5].version-id")


def test_the_version_log_may_repeat_a_version() -> None:
    doc = base()
    doc["version-log"].append(dict(doc["version-log"][0]))  # a rollback: allowed
    assert (
        ViewMetadata.from_json(json.dumps(doc)).version_log[-1].version_id
        == doc["version-log"][0]["version-id"]
    )


# ---------------------------------------------------------------------------- schema ids


def test_two_schemas_with_one_id() -> None:
    doc = base()
    doc["schemas"][4]["schema-id"] = doc["schemas"][1]["schema-id"]
    e = read_error(doc)
    sid = doc["schemas"][1]["schema-id"]
    assert (e.message, e.path) == (f"Schema id {sid} is used more than once", "$.schemas[4].schema-id")


@pytest.mark.parametrize("absent", ["missing", "null"])
def test_a_schema_without_an_id_is_schema_0(absent: str) -> None:
    doc = base()
    assert doc["schemas"][0]["schema-id"] == 0
    if absent == "missing":
        del doc["schemas"][2]["schema-id"]
    else:
        doc["schemas"][2]["schema-id"] = None
    e = read_error(doc)
    assert (e.message, e.path) == ("Schema id 0 is used more than once", "$.schemas[2].schema-id")


def test_a_schema_id_that_does_not_parse_is_left_to_the_schema_check() -> None:
    doc = base()
    doc["schemas"][2]["schema-id"] = "1"  # not an int: SchemaParser's error, on first use
    md = ViewMetadata.from_json(json.dumps(doc))
    with pytest.raises(InvalidMetadataError) as info:
        md.schema_ids  # noqa: B018
    assert (info.value.message, info.value.path) == (
        'Cannot parse to an integer value: schema-id: "1"',
        "$.schemas[2].schema-id",
    )


# ---------------------------------------------------------------------------- field ids


def test_two_top_level_fields_with_one_id() -> None:
    doc = base()
    fields = doc["schemas"][3]["fields"]
    fields.append(field(fields[0]["id"], "again"))
    e = read_error(doc)
    assert (e.message, e.path) == (
        f"Field id {fields[0]['id']} is used more than once",
        "$.schemas[3].fields[2].id",
    )


def test_field_ids_may_repeat_across_schemas() -> None:
    doc = base()
    ids = [[f["id"] for f in s["fields"]] for s in doc["schemas"]]
    assert ids[0] == ids[1]  # every schema of Java's file uses ids 0 and 1
    ViewMetadata.from_json(json.dumps(doc))


NESTED = [
    (
        "struct field vs top-level",
        field(7, "s", {"type": "struct", "fields": [field(0, "a")]}),
        "Field id 0 is used more than once",
        "$.schemas[0].fields[2].type.fields[0].id",
    ),
    (
        "struct field vs its parent",
        field(7, "s", {"type": "struct", "fields": [field(8, "a"), field(7, "b")]}),
        "Field id 7 is used more than once",
        "$.schemas[0].fields[2].type.fields[1].id",
    ),
    (
        "list element vs top-level",
        field(7, "l", {"type": "list", "element-id": 1, "element": "int", "element-required": False}),
        "Field id 1 is used more than once",
        "$.schemas[0].fields[2].type.element-id",
    ),
    (
        "map key vs value",
        field(
            7,
            "m",
            {
                "type": "map",
                "key-id": 8,
                "key": "string",
                "value-id": 8,
                "value": "int",
                "value-required": True,
            },
        ),
        "Field id 8 is used more than once",
        "$.schemas[0].fields[2].type.value-id",
    ),
    (
        "map value struct vs list element",
        field(
            7,
            "m",
            {
                "type": "map",
                "key-id": 8,
                "key": {"type": "list", "element-id": 9, "element": "int", "element-required": True},
                "value-id": 10,
                "value": {"type": "struct", "fields": [field(9, "x")]},
                "value-required": False,
            },
        ),
        "Field id 9 is used more than once",
        "$.schemas[0].fields[2].type.value.fields[0].id",
    ),
]


@pytest.mark.parametrize(("name", "extra", "message", "path"), NESTED, ids=[n[0] for n in NESTED])
def test_nested_field_ids_count(name: str, extra: dict[str, Any], message: str, path: str) -> None:
    doc = base()
    doc["schemas"][0]["fields"].append(extra)
    assert not schema_ids_distinct(doc["schemas"])  # a nested type: the full walk decides
    e = read_error(doc)
    assert (e.message, e.path) == (message, path)


def test_nested_distinct_ids_read_and_keep_working() -> None:
    doc = base()
    doc["schemas"][0]["fields"].append(
        field(
            7,
            "m",
            {
                "type": "map",
                "key-id": 8,
                "key": "string",
                "value-id": 9,
                "value": {"type": "list", "element-id": 10, "element": "long", "element-required": True},
                "value-required": False,
            },
        )
    )
    md = ViewMetadata.from_json(json.dumps(doc))
    assert md.schema_by_id(0) is not None
    assert validate(md) == []


def test_a_deeply_nested_duplicate_is_found_without_recursion() -> None:
    doc = base()
    depth = 2000
    node: Any = {"type": "struct", "fields": [field(0, "leaf")]}  # id 0 is the first top-level id
    for level in range(depth):
        node = {"type": "struct", "fields": [field(100 + level, f"n{level}", node)]}
    doc["schemas"][0]["fields"].append(field(99, "deep", node))
    with pytest.raises(InvalidMetadataError) as info:
        ViewMetadata.from_dict(doc)  # orjson refuses JSON this deep; a decoded object can be
    assert info.value.message == "Field id 0 is used more than once"
    assert info.value.path == "$.schemas[0].fields[2].type" + ".fields[0].type" * depth + ".fields[0].id"


def test_field_ids_that_do_not_parse_are_left_to_the_schema_check() -> None:
    doc = base()
    doc["schemas"][0]["fields"].append(field(True, "t"))  # Java: not an int; 1 == True in Python
    md = ViewMetadata.from_json(json.dumps(doc))  # not a duplicate of field 1 ...
    with pytest.raises(InvalidMetadataError) as info:  # ... but a bad schema, on first use
        md.schema_ids  # noqa: B018
    assert info.value.message == "Cannot parse to an integer value: id: true"


# ---------------------------------------------------------------------------- Java's order


def test_a_field_id_is_found_while_the_schemas_are_parsed() -> None:
    # Java indexes field ids as it parses each schema, before current-version-id is read
    doc = base()
    doc["schemas"][0]["fields"].append(field(0, "again"))
    doc["current-version-id"] = "x"
    assert read_error(doc).message == "Field id 0 is used more than once"


def test_version_and_schema_ids_are_checked_after_the_fields() -> None:
    # Java builds its id maps once everything is parsed: a shape error comes first ...
    doc = base()
    doc["schemas"].append(copy.deepcopy(doc["schemas"][0]))
    doc["versions"].append(copy.deepcopy(doc["versions"][0]))
    doc["version-log"].append(None)
    assert read_error(doc).message == "Cannot parse view history entry from non-object: null"
    # ... then the versions, then the schemas ...
    del doc["version-log"][-1]
    e = read_error(doc)
    assert (e.message, e.path) == (
        f"Version id {doc['versions'][0]['version-id']} is used more than once",
        "$.versions[10].version-id",
    )
    del doc["versions"][-1]
    e = read_error(doc)
    assert (e.message, e.path) == ("Schema id 0 is used more than once", "$.schemas[12].schema-id")
    # ... and the format version last
    doc["format-version"] = 2
    assert read_error(doc).message == "Schema id 0 is used more than once"
    del doc["schemas"][-1]
    assert read_error(doc).message == "Unsupported format version: 2"


# ---------------------------------------------------------------------------- files


def test_read_metadata_names_the_file(tmp_path: Path) -> None:
    doc = base()
    doc["schemas"][1]["fields"][1]["id"] = doc["schemas"][1]["fields"][0]["id"]
    location = tmp_path / "00001-x.gz.metadata.json"
    location.write_bytes(gzip.compress(json.dumps(doc).encode()))
    with pytest.raises(InvalidMetadataError) as info:
        read_metadata(str(location))
    assert (info.value.message, info.value.path, info.value.location) == (
        "Field id 0 is used more than once",
        "$.schemas[1].fields[1].id",
        str(location),
    )
    assert str(location) in str(info.value)


# ---------------------------------------------------------------------------- property


def _ids(node: Any) -> list[int]:
    """A plain recursive reference: every field id of a (well-formed) schema."""
    if not isinstance(node, dict):
        return []
    if node["type"] == "struct":
        return [i for f in node["fields"] for i in [f["id"], *_ids(f["type"])]]
    if node["type"] == "list":
        return [node["element-id"], *_ids(node["element"])]
    return [node["key-id"], node["value-id"], *_ids(node["key"]), *_ids(node["value"])]


small_ids = st.integers(0, 6)


def types(depth: int) -> st.SearchStrategy[Any]:
    primitive = st.sampled_from(["int", "string", "long"])
    if depth == 0:
        return primitive
    inner = types(depth - 1)
    return st.one_of(
        primitive,
        st.builds(
            lambda fs: {"type": "struct", "fields": fs},
            st.lists(st.builds(lambda i, t: field(i, "f", t), small_ids, inner), max_size=2),
        ),
        st.builds(
            lambda i, t: {"type": "list", "element-id": i, "element": t, "element-required": True},
            small_ids,
            inner,
        ),
        st.builds(
            lambda k, v, t: {
                "type": "map",
                "key-id": k,
                "key": "string",
                "value-id": v,
                "value": t,
                "value-required": False,
            },
            small_ids,
            small_ids,
            inner,
        ),
    )


schemas_strategy = st.lists(
    st.builds(
        lambda sid, fs: {"type": "struct", "schema-id": sid, "fields": fs},
        st.integers(0, 4),
        st.lists(st.builds(lambda i, t: field(i, "f", t), small_ids, types(2)), max_size=4),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(schemas_strategy)
def test_reading_refuses_exactly_the_duplicate_ids(schemas: list[dict[str, Any]]) -> None:
    doc = base()
    doc["schemas"] = schemas
    for version in doc["versions"]:
        version["schema-id"] = schemas[0]["schema-id"]
    field_dups = [len(set(_ids(s))) != len(_ids(s)) for s in schemas]
    schema_ids = [s["schema-id"] for s in schemas]
    try:
        md = ViewMetadata.from_json(json.dumps(doc))
    except InvalidMetadataError as e:
        if any(field_dups):
            index = field_dups.index(True)
            assert e.message.startswith("Field id ") and e.path.startswith(f"$.schemas[{index}].")
        else:
            assert len(set(schema_ids)) != len(schema_ids)
            assert e.message.startswith("Schema id ") and e.path.endswith("].schema-id")
        return
    assert not any(field_dups) and len(set(schema_ids)) == len(schema_ids)
    # what the reader accepted, the normaliser and the strict validator accept too
    for i, s in enumerate(schemas):
        normalize_schema_json(s, f"$.schemas[{i}]")
    assert not {p.code for p in validate(md)} & {"duplicate-field-id", "duplicate-schema-id"}
