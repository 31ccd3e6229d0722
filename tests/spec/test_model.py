"""The model's accessors, sql_for, history look-ups, immutability, and strict validation."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from pyiceberg.schema import Schema

from iceview.errors import InvalidArgumentError, InvalidMetadataError
from iceview.spec import (
    Problem,
    SQLRepresentation,
    UnknownRepresentation,
    VersionLogEntry,
    ViewHistory,
    ViewMetadata,
    ViewVersion,
    validate,
)
from iceview.spec.schema import normalize_schema_json

DATA = Path(__file__).parent.parent / "data"
SPEC = DATA / "spec"
CORPUS = DATA / "corpus"


def doc() -> dict[str, Any]:
    return json.loads((SPEC / "appendix-a-newer-2.metadata.json").read_text())


def md_of(d: dict[str, Any]) -> ViewMetadata:
    return ViewMetadata.from_json(json.dumps(d))


def in_memory(d: dict[str, Any]) -> ViewMetadata:
    """The metadata of ``d`` made with the public constructor, which checks no ids (the reader
    refuses duplicate ids, as Iceberg Java does)."""
    return ViewMetadata(
        uuid=d["view-uuid"],
        format_version=d["format-version"],
        location=d["location"],
        schemas=[Schema.model_validate(normalize_schema_json(s)) for s in d["schemas"]],
        current_version_id=d["current-version-id"],
        versions=[
            ViewVersion(
                v["version-id"],
                v["timestamp-ms"],
                v["schema-id"],
                v["summary"],
                tuple(SQLRepresentation(r["sql"], r["dialect"]) for r in v["representations"]),
                tuple(v["default-namespace"]),
                v.get("default-catalog"),
            )
            for v in d["versions"]
        ],
        version_log=[VersionLogEntry(e["timestamp-ms"], e["version-id"]) for e in d["version-log"]],
        properties=d.get("properties"),
    )


# ---------------------------------------------------------------------------- Appendix A


@pytest.mark.parametrize("text", ["newer", "older"])
def test_appendix_a_first_file(text: str) -> None:
    md = ViewMetadata.from_json((SPEC / f"appendix-a-{text}-1.metadata.json").read_bytes())
    assert md.uuid == "fa6506c3-7681-40c8-86dc-e36561f83385"
    assert md.current_version.sql_for("spark") == SQLRepresentation(
        "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM events\nGROUP BY 2", "spark"
    )
    assert md.current_version.default_catalog == "prod"
    assert md.current_version.default_namespace == ("default",)
    assert md.properties == {"comment": "Daily event counts"}
    key = "engine-version" if text == "newer" else "engineVersion"
    assert md.current_version.summary == {"engine-name": "Spark", key: "3.3.2"}
    assert [(f.name, str(f.field_type), f.doc) for f in md.schema.fields] == [
        ("event_count", "int", "Count of events"),
        ("event_date", "date", None),
    ]
    assert validate(md) == []
    assert ViewMetadata.from_json(md.to_json(pretty=True)) == md


def test_appendix_a_second_file_newer_text_is_valid() -> None:
    md = ViewMetadata.from_json((SPEC / "appendix-a-newer-2.metadata.json").read_bytes())
    assert md.current_version_id == 2
    assert md.history.version_ids == (1, 2)
    assert md.sql_for("spark") is not None and "prod.default.events" in md.sql_for("spark").sql  # type: ignore[union-attr]
    assert validate(md) == []


def test_appendix_a_second_file_older_text_loads_but_is_flagged() -> None:
    md = ViewMetadata.from_json((SPEC / "appendix-a-older-2.metadata.json").read_bytes())
    assert md.current_version_id == 1  # the older text's error, read as written
    assert validate(md) == [
        Problem(
            "log-current-mismatch",
            "The last version-log entry sets version 2, but current-version-id is 1",
            "$.version-log[1].version-id",
        )
    ]


# ---------------------------------------------------------------------------- accessors


def test_sql_for_matches_case_insensitively_and_falls_back_only_on_request() -> None:
    d = doc()
    d["versions"][1]["representations"] = [
        {"type": "sql", "sql": "spark sql", "dialect": "Spark"},
        {"type": "sql", "sql": "trino sql", "dialect": "trino"},
    ]
    md = md_of(d)
    assert md.sql_for("SPARK") == SQLRepresentation("spark sql", "Spark")
    assert md.sql_for("TRINO").sql == "trino sql"  # type: ignore[union-attr]
    assert md.sql_for("unknown-dialect") is None
    assert md.sql_for("unknown-dialect", fallback=True) == SQLRepresentation("spark sql", "Spark")
    with pytest.raises(InvalidArgumentError, match=r"^Invalid dialect: null$"):
        md.sql_for(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^Invalid dialect: \(empty string\)$"):
        md.sql_for("")


def test_sql_for_skips_unknown_representations() -> None:
    v = ViewVersion(
        1,
        1,
        0,
        {},
        (UnknownRepresentation("substrait", {"type": "substrait"}), SQLRepresentation("s", "trino")),
        (),
    )
    assert v.sql_for("spark", fallback=True) == SQLRepresentation("s", "trino")
    assert v.dialects == ("trino",)


def test_version_lookup_and_operation() -> None:
    md = md_of(doc())
    assert md.version(1) is not None and md.version(1).operation == "create"  # type: ignore[union-attr]
    assert md.version(2).operation == "replace"  # type: ignore[union-attr]
    assert md.version(3) is None
    assert md.version_ids == (1, 2)
    assert md.schema_ids == (1,)
    assert md.schema_by_id(1) == md.schema
    assert md.schema_by_id(2) is None


def test_history_version_at() -> None:
    history = ViewHistory([VersionLogEntry(100, 1), VersionLogEntry(200, 2), VersionLogEntry(300, 1)])
    assert history.version_at(99) is None
    assert history.version_at(100) == 1
    assert history.version_at(250) == 2
    assert history.version_at(10**13) == 1
    assert list(history) == [VersionLogEntry(100, 1), VersionLogEntry(200, 2), VersionLogEntry(300, 1)]
    assert history[-1] == VersionLogEntry(300, 1)
    assert len(history) == 3


def test_model_values_are_immutable() -> None:
    md = md_of(doc())
    with pytest.raises(TypeError):
        md.properties["comment"] = "x"  # type: ignore[index]
    with pytest.raises(TypeError):
        md.current_version.summary["engine-name"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        md.current_version.version_id = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        md.uuid = "x"  # type: ignore[misc]
    again = pickle.loads(pickle.dumps(md.current_version))
    assert again == md.current_version


def test_equality_ignores_metadata_location_but_not_content() -> None:
    a = ViewMetadata.from_json(json.dumps(doc()), metadata_location="a.metadata.json")
    b = ViewMetadata.from_json(json.dumps(doc()), metadata_location="b.metadata.json")
    assert a == b
    d = doc()
    d["properties"]["comment"] = "other"
    assert a != md_of(d)


# ---------------------------------------------------------------------------- validate


def codes(d: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p.code, p.path) for p in validate(md_of(d))]


def test_validate_clean_corpus_files() -> None:
    for name in ("iceberg-go/view-metadata.json", "iceberg-java/ValidViewMetadata.json"):
        assert validate(ViewMetadata.from_json((CORPUS / name).read_bytes())) == []


def test_validate_reports_the_lazily_invalid_corpus_files() -> None:
    invalid_schema = ViewMetadata.from_json(
        (CORPUS / "iceberg-java/ViewMetadataInvalidCurrentSchema.json").read_bytes()
    )
    assert [(p.code, p.path) for p in validate(invalid_schema)] == [
        ("unknown-schema", "$.versions[1].schema-id")
    ]
    invalid_version = ViewMetadata.from_json(
        (CORPUS / "iceberg-java/ViewMetadataInvalidCurrentVersion.json").read_bytes()
    )
    problems = validate(invalid_version)
    assert problems[0] == Problem(
        "current-version-missing",
        "Cannot find current version 1234 in view versions: [1, 2]",
        "$.current-version-id",
    )
    dup = ViewMetadata.from_json(
        (CORPUS / "iceberg-java/ViewMetadataMultipleSQLsForDialect.json").read_bytes()
    )
    assert [(p.code, p.message) for p in validate(dup)] == [
        ("duplicate-dialect", "Invalid view version: Cannot add multiple queries for dialect spark-sql")
    ]


def test_validate_finds_each_problem() -> None:
    d = doc()
    d["view-uuid"] = "not-a-uuid"
    d["versions"][1]["schema-id"] = 9
    d["versions"][1]["timestamp-ms"] = -5
    d["versions"][1]["representations"] = [
        {"type": "sql", "sql": "  ", "dialect": "spark"},
        {"type": "sql", "sql": "x", "dialect": "SPARK"},
        {"type": "sql", "sql": "y", "dialect": " "},
    ]
    d["schemas"].append(json.loads(json.dumps(d["schemas"][0])))
    d["schemas"][1]["schema-id"] = 2
    d["schemas"][1]["fields"][1]["name"] = "event_count"
    d["version-log"] = [{"timestamp-ms": -1, "version-id": 7}, {"timestamp-ms": 5, "version-id": 1}]
    assert codes(d) == [
        ("invalid-uuid", "$.view-uuid"),
        ("duplicate-field-name", "$.schemas[1].fields[1].name"),
        ("unknown-schema", "$.versions[1].schema-id"),
        ("negative-timestamp", "$.versions[1].timestamp-ms"),
        ("blank-sql", "$.versions[1].representations[0].sql"),
        ("duplicate-dialect", "$.versions[1].representations[1].dialect"),
        ("blank-dialect", "$.versions[1].representations[2].dialect"),
        ("log-unknown-version", "$.version-log[0].version-id"),
        ("negative-timestamp", "$.version-log[0].timestamp-ms"),
        ("log-current-mismatch", "$.version-log[1].version-id"),
    ]


def test_validate_reports_duplicate_ids_of_metadata_built_in_memory() -> None:
    d = doc()
    d["versions"][0]["version-id"] = 2
    d["schemas"].append(json.loads(json.dumps(d["schemas"][0])))
    d["schemas"][1]["fields"][1]["id"] = 1
    d["schemas"][1]["fields"][1]["name"] = "other"
    assert [(p.code, p.path) for p in validate(in_memory(d))] == [
        ("duplicate-schema-id", "$.schemas[1].schema-id"),
        ("duplicate-field-id", "$.schemas[1].fields[1].id"),
        ("duplicate-version-id", "$.versions[1].version-id"),
        ("log-unknown-version", "$.version-log[0].version-id"),
    ]
    # the reader refuses the same JSON at the first of them Java meets: field ids are indexed as
    # each schema is parsed, before the versions are read
    with pytest.raises(InvalidMetadataError) as info:
        md_of(d)
    assert (info.value.message, info.value.path) == (
        "Field id 1 is used more than once",
        "$.schemas[1].fields[1].id",
    )


def test_validate_nested_field_ids_and_bad_schemas() -> None:
    d = doc()
    d["schemas"][0]["fields"][1]["type"] = {
        "type": "list",
        "element-id": 1,
        "element-required": False,
        "element": {
            "type": "map",
            "key-id": 3,
            "key": "string",
            "value-id": 3,
            "value": "int",
            "value-required": True,
        },
    }
    assert [(p.code, p.path) for p in validate(in_memory(d))] == [
        ("duplicate-field-id", "$.schemas[0].fields[1].type.element-id"),
        ("duplicate-field-id", "$.schemas[0].fields[1].type.element.value-id"),
    ]
    with pytest.raises(InvalidMetadataError) as info:  # the reader stops at the first
        md_of(d)
    assert (info.value.message, info.value.path) == (
        "Field id 1 is used more than once",
        "$.schemas[0].fields[1].type.element-id",
    )
    d = doc()
    d["schemas"][0]["fields"][0]["type"] = "nope"
    problems = validate(md_of(d))
    assert next((p.code, p.path) for p in problems) == ("invalid-schema", "$.schemas[0].fields[0].type")
    assert "unknown-schema" in {p.code for p in problems}  # the schema is unusable, so is the version


def test_validate_empty_versions_and_log() -> None:
    d = doc()
    d["versions"] = []
    d["version-log"] = []
    assert codes(d) == [("no-versions", "$.versions")]
    d = doc()
    d["version-log"] = []
    assert codes(d) == [("log-current-mismatch", "$.version-log")]


def test_invalid_schema_on_access_names_the_file() -> None:
    d = doc()
    d["schemas"][0]["fields"][0]["id"] = "one"
    md = ViewMetadata.from_json(json.dumps(d), metadata_location="s3://b/v/metadata/00001-x.metadata.json")
    with pytest.raises(InvalidMetadataError) as info:
        md.schema  # noqa: B018
    assert info.value.location == "s3://b/v/metadata/00001-x.metadata.json"
    assert "00001-x.metadata.json" in str(info.value)


# ---------------------------------------------------------------------------- never write what Java cannot read

# Each of these makes Iceberg Java 1.10.2's parser throw (checked with the oracle). iceview's reader
# refuses the duplicate ids too; metadata built in memory can still have them, and validate reports
# them and to_json refuses them.
JAVA_READ_ERRORS_REFUSED = [
    (
        "dup-version",
        lambda d: d["versions"][1].__setitem__("version-id", 1),
        "$.versions[1].version-id",
        "Version id 1 is used more than once",
    ),
    (
        "dup-schema",
        lambda d: d["schemas"].append(json.loads(json.dumps(d["schemas"][0]))),
        "$.schemas[1].schema-id",
        "Schema id 1 is used more than once",
    ),
    (
        "dup-field-id",
        lambda d: d["schemas"][0]["fields"][1].__setitem__("id", 1),
        "$.schemas[0].fields[1].id",
        "Field id 1 is used more than once",
    ),
]

# The rest is read (Java refuses these too, when it builds the Schema), so that validate can
# report it, and never written.
JAVA_READ_ERRORS_READ = [
    (
        "dup-field-name",
        lambda d: d["schemas"][0]["fields"][1].__setitem__("name", "event_count"),
        "$.schemas[0].fields[1].name",
        "Field name 'event_count'",
    ),
    (
        "identifier-unknown",
        lambda d: d["schemas"][0].__setitem__("identifier-field-ids", [7]),
        "$.schemas[0].identifier-field-ids[0]",
        "Cannot add fieldId 7 as an identifier field: field does not exist",
    ),
    (
        "identifier-optional",
        lambda d: d["schemas"][0].__setitem__("identifier-field-ids", [1]),
        "$.schemas[0].identifier-field-ids[0]",
        "Cannot add field event_count as an identifier field: not a required field",
    ),
]


def _reported_and_never_written(md: ViewMetadata, path: str, text: str) -> None:
    assert any(p.path == path and text in p.message for p in validate(md)), validate(md)
    with pytest.raises(InvalidMetadataError) as info:
        md.to_json()
    assert info.value.path == path
    assert info.value.message.startswith("Cannot write view metadata: ") and text in info.value.message


@pytest.mark.parametrize(
    ("name", "damage", "path", "text"),
    JAVA_READ_ERRORS_REFUSED,
    ids=[e[0] for e in JAVA_READ_ERRORS_REFUSED],
)
def test_duplicate_ids_are_refused_on_read_reported_in_memory_and_never_written(
    name: str, damage: Any, path: str, text: str
) -> None:
    d = doc()
    damage(d)
    with pytest.raises(InvalidMetadataError) as info:
        md_of(d)
    assert (info.value.message, info.value.path) == (text, path)
    _reported_and_never_written(in_memory(d), path, text)


@pytest.mark.parametrize(
    ("name", "damage", "path", "text"), JAVA_READ_ERRORS_READ, ids=[e[0] for e in JAVA_READ_ERRORS_READ]
)
def test_what_java_cannot_read_is_loaded_reported_and_never_written(
    name: str, damage: Any, path: str, text: str
) -> None:
    d = doc()
    damage(d)
    _reported_and_never_written(md_of(d), path, text)  # read leniently, so that validate can report it


def test_identifier_field_rules() -> None:
    d = doc()
    d["schemas"][0]["fields"] = [
        {"id": 1, "name": "a", "required": True, "type": "double"},
        {
            "id": 2,
            "name": "s",
            "required": False,
            "type": {"type": "struct", "fields": [{"id": 3, "name": "x", "required": True, "type": "int"}]},
        },
        {
            "id": 4,
            "name": "l",
            "required": True,
            "type": {"type": "list", "element-id": 5, "element-required": True, "element": "int"},
        },
        {"id": 6, "name": "ok", "required": True, "type": "string"},
    ]
    d["schemas"][0]["identifier-field-ids"] = [1, 3, 5, 2, 6]
    assert [(p.code, p.message) for p in validate(md_of(d)) if p.code == "invalid-identifier-field"] == [
        (
            "invalid-identifier-field",
            "Cannot add field a as an identifier field: must not be float or double field",
        ),
        (
            "invalid-identifier-field",
            "Cannot add field x as an identifier field: must not be nested in an optional field",
        ),
        (
            "invalid-identifier-field",
            "Cannot add field element as an identifier field: must not be nested in list",
        ),
        ("invalid-identifier-field", "Cannot add field s as an identifier field: not a primitive type field"),
    ]


def test_with_metadata_file_location_keeps_content_and_changes() -> None:
    md = md_of(doc())
    built = ViewMetadata.build_from(md).set_properties({"k": "v"}).build()
    moved = built.with_metadata_file_location("s3://b/v/metadata/00002-x.gz.metadata.json")
    assert moved.metadata_file_location == "s3://b/v/metadata/00002-x.gz.metadata.json"
    assert built.metadata_file_location is None
    assert moved == built and moved.changes == built.changes and moved.to_json() == built.to_json()
