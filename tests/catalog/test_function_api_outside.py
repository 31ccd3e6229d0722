"""An outside tester's cases for SQL UDFs in a catalog (docs/functions.md, "Functions in a catalog",
and docs/compatibility.md, "SQL UDF metadata"), written from the docs and the public docstrings only.

Every case runs on a fresh SQL catalog on SQLite in ``tmp_path``. A refusal must raise a typed
``iceview.errors`` exception and leave nothing behind: no new file under ``tmp_path`` and the same
rows in the catalog's tables. The 14 defects this found were fixed in the same change (no xfail is
left).
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from iceview import errors
from iceview.catalog.sql import SqlCatalog
from iceview.function import Function, FunctionChange, NewDefinition
from iceview.udf import (
    AddDefinition,
    AddDefinitionVersion,
    AssertCreate,
    AssertCurrentDefinitions,
    AssertFunctionUUID,
    AssignUUID,
    DefinitionVersion,
    FunctionDefinition,
    FunctionParameter,
    ListType,
    PrimitiveType,
    RemoveDefinition,
    SetCurrentDefinitionVersion,
    SetFunctionDoc,
    SetFunctionSecure,
    SetLocation,
    SetProperties,
    SQLRepresentation,
    StructType,
    UpgradeFormatVersion,
    function_metadata_from_json,
    requirement_from_dict,
    update_from_dict,
    validate,
)

FILE_NAME = re.compile(
    r"^(\d{5})-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.gz\.metadata\.json$"
)
TABLES = ("iceview_functions", "iceberg_tables", "iceberg_namespace_properties")


# -- helpers -------------------------------------------------------------------------------------


def new_catalog(tmp_path: Path, **props: str) -> SqlCatalog:
    return SqlCatalog("c", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/wh", **props)


@pytest.fixture
def cat(tmp_path: Path) -> SqlCatalog:
    catalog = new_catalog(tmp_path)
    catalog.create_namespace("db")
    return catalog


def files(tmp_path: Path) -> set[str]:
    """Every file under tmp_path but the catalog's database (and its journal)."""
    return {
        str(p.relative_to(tmp_path))
        for p in tmp_path.rglob("*")
        if p.is_file() and not p.name.startswith("c.db")
    }


def rows(tmp_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = sqlite3.connect(tmp_path / "c.db")
    try:
        out = {}
        for table in TABLES:
            try:
                out[table] = sorted(con.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            except sqlite3.OperationalError:
                out[table] = []
        return out
    finally:
        con.close()


def state(tmp_path: Path) -> tuple[set[str], dict[str, list[tuple[Any, ...]]]]:
    return files(tmp_path), rows(tmp_path)


def pointer(tmp_path: Path, namespace: str, name: str) -> tuple[str | None, str | None] | None:
    con = sqlite3.connect(tmp_path / "c.db")
    try:
        row = con.execute(
            "SELECT metadata_location, previous_metadata_location FROM iceview_functions "
            "WHERE function_namespace = ? AND function_name = ?",
            (namespace, name),
        ).fetchone()
        return None if row is None else (row[0], row[1])
    finally:
        con.close()


def local(uri: str) -> Path:
    return Path(uri.removeprefix("file://"))


def read_json(uri: str) -> dict[str, Any]:
    path = local(uri)
    raw = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz.metadata.json") else path.read_bytes()
    return json.loads(raw)


def numbers(metadata_dir: Path) -> list[int]:
    out = []
    for p in metadata_dir.iterdir():
        m = FILE_NAME.match(p.name)
        assert m, f"unexpected metadata file name {p.name}"
        out.append(int(m.group(1)))
    return sorted(out)


def add_one(**kw: Any) -> NewDefinition:
    return NewDefinition([("x", "int")], "int", {"spark": "x + 1"}, **kw)


def log(fn: Function) -> list[dict[str, int]]:
    return [dict(entry.as_mapping()) for entry in fn.history]


def refused(
    tmp_path: Path, call: Callable[[], Any], exc: type[Exception], *fragments: str
) -> pytest.ExceptionInfo[Exception]:
    """``call`` raises ``exc`` (an iceview error) whose message has every fragment, and writes nothing."""
    before = state(tmp_path)
    with pytest.raises(exc) as info:
        call()
    assert isinstance(info.value, errors.IceviewError)
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))
    assert state(tmp_path) == before
    return info


# -- create --------------------------------------------------------------------------------------


def test_create_one_definition_writes_file_00000_at_the_default_location(
    cat: SqlCatalog, tmp_path: Path
) -> None:
    fn = cat.create_function("db.add_one", add_one())
    assert fn.name == "c.db.add_one"
    assert (fn.identifier.namespace, fn.identifier.name) == (("db",), "add_one")
    assert fn.location == f"file://{tmp_path}/wh/db/functions/add_one"
    meta_dir = tmp_path / "wh/db/functions/add_one/metadata"
    assert fn.metadata_location.startswith(f"file://{meta_dir}/00000-")
    assert numbers(meta_dir) == [0]
    assert local(fn.metadata_location).read_bytes()[:2] == b"\x1f\x8b"  # gzip
    assert files(tmp_path) == {str(local(fn.metadata_location).relative_to(tmp_path))}
    assert pointer(tmp_path, "db", "add_one") == (fn.metadata_location, None)
    assert cat.function_exists("db.add_one") and cat.function_exists(("db", "add_one"))
    assert cat.list_functions("db") == [("db", "add_one")]
    loaded = cat.load_function("db.add_one")
    assert loaded.metadata == fn.metadata and loaded.uuid == fn.uuid
    assert fn.metadata.current_definition_versions == {"int": 1}
    assert log(fn) == [{"int": 1}]
    assert fn.secure is False and fn.doc is None and dict(fn.properties) == {}


def test_the_docs_example_in_a_catalog(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function(
        "db.add_one",
        [
            NewDefinition([("x", "int")], "int", {"spark": "x + 1"}),
            NewDefinition([("x", "long")], "long", {"spark": "x + 1"}, on_null_input="return-null"),
        ],
        doc="Adds one",
    )
    assert numbers(tmp_path / "wh/db/functions/add_one/metadata") == [0]  # two overloads, one file
    fn.replace_definition("int", {"spark": "x + 1", "trino": "x + 1"})
    fn.set_current_version("int", 1)
    fn.update_properties({"owner": "analytics"})
    assert cat.list_functions("db") == [("db", "add_one")]
    assert fn.metadata.current_definition_versions == {"int": 1, "long": 1}
    assert log(fn) == [{"int": 1, "long": 1}, {"int": 2, "long": 1}, {"int": 1, "long": 1}]
    assert numbers(tmp_path / "wh/db/functions/add_one/metadata") == [0, 1, 2, 3]
    assert fn.doc == "Adds one" and dict(fn.properties) == {"owner": "analytics"}
    assert fn.definition("long").versions[0].on_null_input == "return-null"
    # what the handle shows is what the catalog has
    assert cat.load_function("db.add_one").metadata == fn.metadata


def test_parameter_types_as_json_values_and_as_udf_types(cat: SqlCatalog) -> None:
    struct = {"type": "struct", "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}]}
    nested = {
        "type": "list",
        "element": {
            "type": "map",
            "key": "string",
            "value": {"type": "struct", "fields": [{"name": "a", "type": "int"}]},
        },
    }
    fn = cat.create_function(
        "db.types",
        [
            NewDefinition([("a", "int"), ("b", "decimal(9,2)")], "decimal(9,2)", {"spark": "a + b"}),
            NewDefinition([("l", {"type": "list", "element": "string"})], "int", {"spark": "size(l)"}),
            NewDefinition(
                [("m", {"type": "map", "key": "string", "value": "int"})],
                {"type": "list", "element": "int"},
                {"spark": "map_values(m)"},
            ),
            NewDefinition([("s", struct)], "string", {"spark": "s.name"}),
            NewDefinition([], "timestamp", {"spark": "current_timestamp()"}),
            NewDefinition([("x", "Decimal(10, 3)")], "int", {"spark": "1"}),
            NewDefinition(
                [("x", PrimitiveType("long")), ("y", ListType(PrimitiveType("int")))], "int", {"spark": "1"}
            ),
            NewDefinition([("n", nested)], "int", {"spark": "1"}),
            NewDefinition([("f", "fixed[16]"), ("u", "uuid"), ("t", "timestamptz")], "int", {"spark": "1"}),
        ],
    )
    assert fn.metadata.definition_ids == (
        "int,decimal(9,2)",
        "list<string>",
        "map<string,int>",
        "struct<id:int,name:string>",
        "",
        "decimal(10,3)",
        "long,list<int>",
        "list<map<string,struct<a:int>>>",
        "fixed[16],uuid,timestamptz",
    )
    # look-ups take a lenient spelling
    assert fn.definition("DECIMAL( 10, 3 )") is fn.definition("decimal(10,3)") is not None
    assert fn.definition("decimal(10,3)").parameters[0].type == PrimitiveType("decimal(10,3)")
    # the file writes the types as the spec's JSON
    written = read_json(fn.metadata_location)
    by_id = {d["definition-id"]: d for d in written["definitions"]}
    assert by_id["struct<id:int,name:string>"]["parameters"][0]["type"] == struct
    assert by_id["map<string,int>"]["return-type"] == {"type": "list", "element": "int"}
    assert by_id["decimal(10,3)"]["parameters"][0]["type"] == "decimal(10,3)"


def test_a_udtf_returning_a_struct_with_doc_properties_and_secure(cat: SqlCatalog) -> None:
    columns = {
        "type": "struct",
        "fields": [{"name": "name", "type": "string"}, {"name": "color", "type": "string"}],
    }
    sql = "SELECT name, color FROM fruits WHERE color = c"
    fn = cat.create_function(
        "db.fruits_by_color",
        NewDefinition(
            [("c", "string", "Color of fruits")],
            columns,
            {"trino": sql, "spark": sql},
            function_type="udtf",
            doc="Return fruits of a specific color",
            deterministic=True,
        ),
        doc="UDTF returning (name, color) rows",
        secure=True,
        properties={"owner": "me"},
    )
    definition = fn.definition("string")
    assert definition.function_type == "udtf"
    assert isinstance(definition.return_type, StructType)
    assert definition.parameters[0].doc == "Color of fruits"
    assert fn.secure is True and fn.doc == "UDTF returning (name, color) rows"
    assert dict(fn.properties) == {"owner": "me"}
    written = read_json(fn.metadata_location)
    assert written["secure"] is True
    assert written["definitions"][0]["return-type"] == columns
    assert written["definitions"][0]["function-type"] == "udtf"
    assert written["definitions"][0]["versions"][0]["deterministic"] is True


def test_definition_fields_are_kept_and_written_as_the_spec_says(cat: SqlCatalog) -> None:
    fn = cat.create_function(
        "db.f",
        [
            NewDefinition(
                [("x", "string", "the input")],
                "string",
                {"spark": "upper(x)"},
                specific_name="f_string",
                doc="upper-cases",
                return_nullable=False,
                deterministic=True,
                on_null_input="return-null",
            ),
            NewDefinition([("x", "int")], "int", {"spark": "x"}),
        ],
    )
    d = fn.definition("string")
    assert (d.specific_name, d.doc, d.return_nullable) == ("f_string", "upper-cases", False)
    assert fn.metadata.definition_by_specific_name("f_string") is d
    v = fn.metadata.current_version("string")
    assert (v.deterministic, v.on_null_input) == (True, "return-null")
    written = {x["definition-id"]: x for x in read_json(fn.metadata_location)["definitions"]}
    assert written["string"]["return-nullable"] is False
    assert written["string"]["specific-name"] == "f_string"
    assert written["string"]["versions"][0]["on-null-input"] == "return-null"
    # defaults are left out, as the spec's examples write them
    assert "return-nullable" not in written["int"]
    assert "deterministic" not in written["int"]["versions"][0]
    assert "on-null-input" not in written["int"]["versions"][0]


def test_create_log_entry_time_is_the_newest_version_time(cat: SqlCatalog) -> None:
    fn = cat.create_function("db.f", [add_one(), NewDefinition([("x", "long")], "long", {"spark": "x"})])
    newest = max(d.versions[0].timestamp_ms for d in fn.definitions)
    assert [e.timestamp_ms for e in fn.history] == [newest]
    fn.replace_definition("int", {"spark": "x + 2"})
    assert fn.history[-1].timestamp_ms == fn.metadata.current_version("int").timestamp_ms
    fn.set_current_version("int", 1)  # a rollback: "now"
    assert fn.history[-1].timestamp_ms >= fn.history[-2].timestamp_ms


def test_every_written_file_reads_back_and_validates(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one(), doc="d", properties={"a": "b"})
    fn.add_definition(
        NewDefinition([("s", {"type": "list", "element": "string"})], "int", {"spark": "size(s)"})
    )
    fn.replace_definition("int", {"spark": "x + 2", "trino": "x + 2"}, deterministic=True)
    fn.set_secure(True)
    for path in sorted((tmp_path / "wh/db/functions/f/metadata").iterdir()):
        text = gzip.decompress(path.read_bytes()).decode()
        meta = function_metadata_from_json(text)
        assert validate(meta) == []
    current = gzip.decompress(local(fn.metadata_location).read_bytes()).decode()
    assert function_metadata_from_json(current, metadata_location=fn.metadata_location) == fn.metadata


# -- handle changes: one commit, one file each ----------------------------------------------------


def test_each_handle_change_writes_exactly_one_file_numbered_without_gap(
    cat: SqlCatalog, tmp_path: Path
) -> None:
    fn = cat.create_function("db.f", add_one(), properties={"a": "1"})
    meta_dir = tmp_path / "wh/db/functions/f/metadata"
    changes: list[tuple[str, Callable[[], Any]]] = [
        (
            "add_definition",
            lambda: fn.add_definition(NewDefinition([("x", "long")], "long", {"spark": "x + 1"})),
        ),
        ("replace_definition", lambda: fn.replace_definition("int", {"spark": "x + 2"})),
        ("replace flags", lambda: fn.replace_definition("int", {"spark": "x + 2"}, deterministic=True)),
        ("set_current_version", lambda: fn.set_current_version("int", 1)),
        ("remove_definition", lambda: fn.remove_definition("long")),
        ("update_properties", lambda: fn.update_properties({"b": "2"}, removals=["a"])),
        ("set_doc", lambda: fn.set_doc("documented")),
        ("set_doc None", lambda: fn.set_doc(None)),
        ("set_secure", lambda: fn.set_secure(True)),
    ]
    for step, (label, change) in enumerate(changes, start=1):
        before_files = files(tmp_path)
        old = fn.metadata_location
        assert change() is fn, label
        new = files(tmp_path) - before_files
        assert len(new) == 1, (label, new)
        assert files(tmp_path) >= before_files  # nothing deleted
        assert numbers(meta_dir) == list(range(step + 1)), label
        assert local(fn.metadata_location).name.startswith(f"{step:05d}-"), label
        assert pointer(tmp_path, "db", "f") == (fn.metadata_location, old), label
        assert cat.load_function("db.f").metadata == fn.metadata, label
    assert dict(fn.properties) == {"b": "2"}
    assert fn.secure is True and fn.doc is None
    assert fn.metadata.definition_ids == ("int",)


def test_update_location_moves_the_next_files_and_numbers_on(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    fn.set_doc("x")
    moved = f"file://{tmp_path}/wh/elsewhere/f"
    before = files(tmp_path)
    fn.update_location(moved)
    assert fn.location == moved
    new = files(tmp_path) - before
    assert len(new) == 1
    assert fn.metadata_location.startswith(f"{moved}/metadata/00002-")
    fn.set_doc("y")
    assert fn.metadata_location.startswith(f"{moved}/metadata/00003-")
    assert numbers(tmp_path / "wh/db/functions/f/metadata") == [0, 1]


def test_metadata_compression_codec_none_and_write_metadata_path(cat: SqlCatalog, tmp_path: Path) -> None:
    plain = cat.create_function("db.p", add_one(), properties={"write.metadata.compression-codec": "none"})
    assert re.search(r"/metadata/00000-[0-9a-f-]{36}\.metadata\.json$", plain.metadata_location)
    assert json.loads(local(plain.metadata_location).read_text())["format-version"] == 1
    elsewhere = f"file://{tmp_path}/wh/meta/q"
    moved = cat.create_function("db.q", add_one(), properties={"write.metadata.path": elsewhere})
    assert moved.metadata_location.startswith(f"{elsewhere}/00000-")
    assert moved.location == f"file://{tmp_path}/wh/db/functions/q"


NOOPS: dict[str, Callable[[Function], Any]] = {
    "set_doc same": lambda f: f.set_doc("doc"),
    "set_secure same": lambda f: f.set_secure(False),
    "update_location same": lambda f: f.update_location(f.location),
    "set_current_version current": lambda f: f.set_current_version("int", 2),
    "replace with the current body": lambda f: f.replace_definition("int", {"spark": "x + 2"}),
    "update_properties nothing": lambda f: f.update_properties(),
    "update_properties empty": lambda f: f.update_properties({}, removals=[]),
    "commit_function no updates": lambda f: f.catalog.commit_function(f, [], []),
}


@pytest.mark.parametrize("change", list(NOOPS), ids=list(NOOPS))
def test_a_change_that_changes_nothing_writes_nothing(cat: SqlCatalog, tmp_path: Path, change: str) -> None:
    fn = cat.create_function("db.f", add_one(), doc="doc", properties={"k": "v"})
    fn.replace_definition("int", {"spark": "x + 2"})
    before, location = state(tmp_path), fn.metadata_location
    NOOPS[change](fn)
    assert state(tmp_path) == before
    assert fn.metadata_location == location


def test_update_properties_to_the_same_value_writes_nothing(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one(), properties={"k": "v"})
    before = state(tmp_path)
    fn.update_properties({"k": "v"})
    assert state(tmp_path) == before


def test_removing_a_property_that_is_not_set_writes_nothing(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one(), properties={"k": "v"})
    before = state(tmp_path)
    fn.update_properties(removals=["not-there"])
    assert state(tmp_path) == before


# -- the definition log and versions ---------------------------------------------------------------


def test_replace_definition_records_deterministic_and_on_null_input(cat: SqlCatalog) -> None:
    fn = cat.create_function("db.f", add_one())
    fn.replace_definition("int", {"spark": "x + 1"}, deterministic=True)
    fn.replace_definition("int", {"spark": "x + 1"}, deterministic=True, on_null_input="return-null")
    versions = fn.definition("int").versions
    assert [(v.version_id, v.deterministic, v.on_null_input) for v in versions] == [
        (1, False, "call"),
        (2, True, "call"),
        (3, True, "return-null"),
    ]
    assert log(fn) == [{"int": 1}, {"int": 2}, {"int": 3}]
    # explicit flags equal to version 1: version 1 is current again, not a version 4
    fn.replace_definition("int", {"spark": "x + 1"}, deterministic=False, on_null_input="call")
    assert [v.version_id for v in fn.definition("int").versions] == [1, 2, 3]
    assert fn.definition("int").current_version_id == 1
    assert log(fn) == [{"int": 1}, {"int": 2}, {"int": 3}, {"int": 1}]


def test_replace_with_the_body_of_an_earlier_version_makes_it_current(
    cat: SqlCatalog, tmp_path: Path
) -> None:
    fn = cat.create_function(
        "db.f", NewDefinition([("x", "int")], "int", {"spark": "x + 1", "trino": "x + 1"})
    )
    fn.replace_definition("int", {"spark": "x + 2", "trino": "x + 2"})
    before = files(tmp_path)
    fn.replace_definition("int", {"spark": "x + 1", "trino": "x + 1"})
    assert len(files(tmp_path) - before) == 1  # it is a change: the current version moved
    assert [v.version_id for v in fn.definition("int").versions] == [1, 2]
    assert fn.definition("int").current_version_id == 1
    assert log(fn) == [{"int": 1}, {"int": 2}, {"int": 1}]


def test_replace_reuses_an_earlier_version_whatever_the_order_of_the_body(cat: SqlCatalog) -> None:
    fn = cat.create_function(
        "db.f", NewDefinition([("x", "int")], "int", {"spark": "x + 1", "trino": "x + 1"})
    )
    fn.replace_definition("int", {"spark": "x + 2", "trino": "x + 2"})
    fn.replace_definition("int", {"trino": "x + 1", "spark": "x + 1"})
    assert [v.version_id for v in fn.definition("int").versions] == [1, 2]
    assert fn.definition("int").current_version_id == 1


def test_set_current_version_rolls_back_and_forward(cat: SqlCatalog) -> None:
    fn = cat.create_function("db.f", [add_one(), NewDefinition([("x", "long")], "long", {"spark": "x"})])
    fn.replace_definition("int", {"spark": "x + 2"})
    fn.replace_definition("int", {"spark": "x + 3"})
    fn.set_current_version("int", 1)
    assert fn.metadata.current_version("int").sql_for("spark").sql == "x + 1"
    fn.set_current_version("int", 3)
    assert fn.metadata.current_version("int").sql_for("SPARK").sql == "x + 3"
    assert log(fn) == [
        {"int": 1, "long": 1},
        {"int": 2, "long": 1},
        {"int": 3, "long": 1},
        {"int": 1, "long": 1},
        {"int": 3, "long": 1},
    ]
    # the definition-id may be spelled as a lenient reader takes it
    fn.set_current_version("INT", 2)
    assert fn.metadata.current_definition_versions == {"int": 2, "long": 1}


def test_remove_definition_and_the_log(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", [add_one(), NewDefinition([("x", "long")], "long", {"spark": "x"})])
    fn.replace_definition("int", {"spark": "x + 2"})
    fn.remove_definition("long")
    assert fn.metadata.definition_ids == ("int",)
    # the log keeps its suffix whose entries name only existing definitions
    assert log(fn) == [{"int": 2}]
    refused(
        tmp_path,
        lambda: fn.remove_definition("int"),
        errors.InvalidArgumentError,
        "last definition",
        "'int'",
    )
    refused(tmp_path, lambda: fn.remove_definition("long"), errors.InvalidArgumentError, "'long'")
    # a definition added again is a new one, with version 1
    fn.add_definition(NewDefinition([("y", "long")], "long", {"spark": "y * 2"}))
    assert fn.definition("long").current_version_id == 1
    assert fn.definition("long").parameters[0].name == "y"
    assert log(fn) == [{"int": 2}, {"int": 2, "long": 1}]


def test_version_history_num_entries_retains_versions_and_log(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function(
        "db.f",
        [
            NewDefinition([("x", "int")], "int", {"spark": "x + 0"}),
            NewDefinition([("x", "long")], "long", {"spark": "x"}),
        ],
        properties={"version.history.num-entries": "3"},
    )
    for i in range(1, 6):
        fn.replace_definition("int", {"spark": f"x + {i}"})
    assert [v.version_id for v in fn.definition("int").versions] == [4, 5, 6]
    assert [v.version_id for v in fn.definition("long").versions] == [1]
    assert log(fn) == [{"int": 4, "long": 1}, {"int": 5, "long": 1}, {"int": 6, "long": 1}]
    refused(
        tmp_path,
        lambda: fn.set_current_version("int", 1),
        errors.InvalidArgumentError,
        "'int'",
        "unknown version: 1",
    )
    # a body equal to an expired version is a new version with the next id
    fn.replace_definition("int", {"spark": "x + 0"})
    assert [v.version_id for v in fn.definition("int").versions] == [5, 6, 7]
    assert fn.definition("int").current_version_id == 7
    # a body equal to a retained version makes it current again
    fn.replace_definition("int", {"spark": "x + 4"})
    assert fn.definition("int").current_version_id == 5
    assert [v.version_id for v in fn.definition("int").versions] == [5, 6, 7]
    assert len(fn.history) <= 3
    assert log(fn)[-1] == {"int": 5, "long": 1}


def test_the_default_retention_is_ten_versions(cat: SqlCatalog) -> None:
    fn = cat.create_function("db.f", add_one())
    for i in range(2, 14):
        fn.replace_definition("int", {"spark": f"x + {i}"})
    assert [v.version_id for v in fn.definition("int").versions] == list(range(4, 14))
    assert len(fn.history) == 10
    assert log(fn)[-1] == {"int": 13}


def test_changes_that_move_no_version_add_no_log_entry(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    fn.replace_definition("int", {"spark": "x + 2"})
    history = fn.history
    fn.set_doc("d")
    fn.set_secure(True)
    fn.update_properties({"k": "v"})
    fn.update_location(f"file://{tmp_path}/wh/moved/f")
    assert fn.history == history
    assert log(fn) == [{"int": 1}, {"int": 2}]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "must be positive but was 0"),
        ("-1", "must be positive but was -1"),
        ("x", 'For input string: "x"'),
    ],
)
def test_invalid_version_history_num_entries_is_refused(
    cat: SqlCatalog, tmp_path: Path, value: str, message: str
) -> None:
    refused(
        tmp_path,
        lambda: cat.create_function("db.f", add_one(), properties={"version.history.num-entries": value}),
        errors.InvalidArgumentError,
        message,
    )
    fn = cat.create_function("db.g", add_one())
    refused(
        tmp_path,
        lambda: fn.update_properties({"version.history.num-entries": value}),
        errors.InvalidArgumentError,
        "version.history.num-entries" if value != "x" else message,
    )


def test_update_properties_sets_and_removes_in_one_commit(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one(), properties={"a": "1", "b": "2"})
    before = files(tmp_path)
    fn.update_properties({"c": "3", "a": "10"}, removals=["b"])
    assert len(files(tmp_path) - before) == 1
    assert dict(fn.properties) == {"a": "10", "c": "3"}
    assert dict(read_json(fn.metadata_location)["properties"]) == {"a": "10", "c": "3"}
    fn.update_properties(removals=("a", "c"))
    assert dict(fn.properties) == {}


def test_setting_and_removing_one_key_is_refused(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one(), properties={"k": "v"})
    refused(
        tmp_path,
        lambda: fn.update_properties({"k": "w"}, removals=["k"]),
        errors.InvalidArgumentError,
        "same key",
        "k",
    )


# -- the catalog: load, exists, list, rename, drop ------------------------------------------------


def test_list_functions_is_sorted_and_scoped_to_one_namespace(cat: SqlCatalog) -> None:
    cat.create_namespace("db.sub")
    for name in ("zeta", "alpha", "mid"):
        cat.create_function(f"db.{name}", add_one())
    cat.create_function("db.sub.inner", add_one())
    assert cat.list_functions("db") == [("db", "alpha"), ("db", "mid"), ("db", "zeta")]
    assert cat.list_functions(("db", "sub")) == [("db", "sub", "inner")]
    assert cat.list_functions("db.sub") == [("db", "sub", "inner")]
    assert cat.load_function("db.sub.inner").name == "c.db.sub.inner"
    assert cat.load_function("db.sub.inner").location.endswith("/wh/db/sub/functions/inner")
    assert cat.list_functions() == []
    assert cat.list_views("db") == []  # functions are not views


def test_rename_across_namespaces(cat: SqlCatalog, tmp_path: Path) -> None:
    cat.create_namespace("other")
    fn = cat.create_function("db.f", add_one())
    location, metadata_location = fn.location, fn.metadata_location
    before = files(tmp_path)
    cat.rename_function("db.f", "other.g")
    assert files(tmp_path) == before  # a rename writes no metadata
    assert cat.list_functions("db") == []
    assert cat.list_functions("other") == [("other", "g")]
    assert not cat.function_exists("db.f") and cat.function_exists("other.g")
    moved = cat.load_function("other.g")
    assert moved.uuid == fn.uuid
    assert (moved.location, moved.metadata_location) == (location, metadata_location)
    assert moved.name == "c.other.g"
    moved.set_doc("after the rename")
    assert numbers(tmp_path / "wh/db/functions/f/metadata") == [0, 1]
    with pytest.raises(errors.NoSuchFunctionError, match=r"db\.f"):
        fn.refresh()


def test_rename_onto_an_existing_function_is_refused(cat: SqlCatalog, tmp_path: Path) -> None:
    cat.create_function("db.f", add_one())
    cat.create_function("db.g", add_one())
    refused(
        tmp_path,
        lambda: cat.rename_function("db.f", "db.g"),
        errors.FunctionAlreadyExistsError,
        "db.f",
        "db.g",
    )


def test_rename_to_itself_changes_nothing(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    before = state(tmp_path)
    cat.rename_function("db.f", "db.f")
    assert state(tmp_path) == before
    assert cat.load_function("db.f").uuid == fn.uuid


def test_rename_refusals(cat: SqlCatalog, tmp_path: Path) -> None:
    cat.create_function("db.f", add_one())
    refused(tmp_path, lambda: cat.rename_function("db.f", "nope.f"), errors.NoSuchNamespaceError, "nope")
    refused(
        tmp_path, lambda: cat.rename_function("db.missing", "db.x"), errors.NoSuchFunctionError, "db.missing"
    )
    refused(tmp_path, lambda: cat.rename_function("db.f", "db."), errors.InvalidIdentifierError, "db.")


def test_drop_function_deletes_its_current_file_only(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    first = fn.metadata_location
    fn.set_doc("x")
    current = fn.metadata_location
    assert cat.drop_function("db.f") is True
    assert not local(current).exists()
    assert local(first).exists()
    assert not cat.function_exists("db.f")
    assert pointer(tmp_path, "db", "f") is None
    assert cat.list_functions("db") == []
    assert cat.drop_function("db.f") is False
    with pytest.raises(errors.NoSuchFunctionError, match=r"db\.f"):
        cat.load_function("db.f")


@pytest.mark.parametrize("value", ["false", "FALSE"])
def test_drop_function_keeps_the_file_when_gc_is_disabled(
    cat: SqlCatalog, tmp_path: Path, value: str
) -> None:
    fn = cat.create_function("db.f", add_one(), properties={"gc.enabled": value})
    current = fn.metadata_location
    before = files(tmp_path)
    assert cat.drop_function("db.f") is True
    assert files(tmp_path) == before
    assert local(current).exists()
    assert not cat.function_exists("db.f")


def test_a_function_a_view_and_a_table_share_a_name(cat: SqlCatalog, tmp_path: Path) -> None:
    from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField

    schema = Schema(NestedField(1, "id", IntegerType(), required=False))
    tables = PyIcebergSqlCatalog("c", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/wh")
    tables.create_table("db.t", schema)
    cat.create_view("db.v", schema=schema, queries={"spark": "SELECT 1 AS id"}, default_namespace="db")
    ft = cat.create_function("db.t", add_one())
    fv = cat.create_function("db.v", add_one())
    assert ft.location.endswith("/wh/db/functions/t") and fv.location.endswith("/wh/db/functions/v")
    assert cat.list_functions("db") == [("db", "t"), ("db", "v")]
    assert cat.list_views("db") == [("db", "v")]
    assert tables.list_tables("db") == [("db", "t")]
    assert cat.drop_function("db.v") and cat.view_exists("db.v")
    assert cat.drop_function("db.t") and tables.table_exists("db.t")
    fv = cat.create_function("db.v", add_one())
    assert cat.drop_view("db.v") and cat.function_exists("db.v")
    # a rename onto a name that only a view holds is allowed
    cat.create_view("db.w", schema=schema, queries={"spark": "SELECT 1 AS id"}, default_namespace="db")
    cat.rename_function("db.v", "db.w")
    assert cat.list_functions("db") == [("db", "w")] and cat.view_exists("db.w")


def test_drop_namespace_refuses_while_it_holds_functions(cat: SqlCatalog, tmp_path: Path) -> None:
    cat.create_namespace("e")
    cat.create_function("e.f", add_one())
    refused(
        tmp_path, lambda: cat.drop_namespace("e"), errors.NamespaceNotEmptyError, "Namespace e is not empty"
    )
    cat.create_function("e.g", add_one())
    refused(
        tmp_path, lambda: cat.drop_namespace("e"), errors.NamespaceNotEmptyError, "Contains 2 function(s)."
    )
    cat.drop_function("e.f")
    cat.drop_function("e.g")
    assert cat.drop_namespace("e") is True
    with pytest.raises(errors.NoSuchNamespaceError, match="e"):
        cat.list_functions("e")


def test_the_documented_drop_namespace_message(cat: SqlCatalog, tmp_path: Path) -> None:
    cat.create_function("db.f", add_one())
    info = refused(tmp_path, lambda: cat.drop_namespace("db"), errors.NamespaceNotEmptyError)
    assert str(info.value) == "Namespace db is not empty. Contains 1 function(s)."


def test_a_missing_namespace(cat: SqlCatalog, tmp_path: Path) -> None:
    refused(
        tmp_path,
        lambda: cat.create_function("nope.f", add_one()),
        errors.NoSuchNamespaceError,
        "nope.f",
        "Namespace nope does not exist",
    )
    refused(tmp_path, lambda: cat.list_functions("nope"), errors.NoSuchNamespaceError, "nope")
    refused(tmp_path, lambda: cat.load_function("nope.f"), errors.NoSuchFunctionError, "nope.f")
    assert cat.function_exists("nope.f") is False
    assert cat.drop_function("nope.f") is False


def test_a_function_without_a_namespace_gets_a_clear_refusal(cat: SqlCatalog, tmp_path: Path) -> None:
    info = refused(tmp_path, lambda: cat.create_function("f", add_one()), errors.NoSuchNamespaceError)
    assert "Namespace  " not in str(info.value)


def test_a_database_without_the_functions_table(tmp_path: Path) -> None:
    first = new_catalog(tmp_path)
    first.create_namespace("db")
    con = sqlite3.connect(tmp_path / "c.db")
    con.execute("DROP TABLE iceview_functions")
    con.commit()
    con.close()
    java_made = new_catalog(tmp_path, **{"jdbc.init-catalog-tables": "false"})
    assert java_made.list_functions("db") == []
    assert java_made.function_exists("db.f") is False
    assert java_made.drop_function("db.f") is False
    with pytest.raises(errors.NoSuchFunctionError):
        java_made.load_function("db.f")
    refused(
        tmp_path,
        lambda: java_made.create_function("db.f", add_one()),
        errors.CatalogError,
        "db.f",
        "iceview_functions",
    )


def test_non_ascii_names_bodies_docs_and_properties(cat: SqlCatalog, tmp_path: Path) -> None:
    cat.create_namespace("données")
    body = {"spark": "'héllo ☕ ' || größe", "trino": "'日本語' || CAST(größe AS varchar)"}
    fn = cat.create_function(
        "données.café_ñ",
        NewDefinition([("größe", "int", "Größe")], "string", body, doc="ドキュメント"),
        doc="функция",
        properties={"clé": "välue"},
    )
    assert fn.location == f"file://{tmp_path}/wh/données/functions/café_ñ"
    again = cat.load_function(("données", "café_ñ"))
    assert again.metadata.current_version("int").sql_for("trino").sql == body["trino"]
    assert again.definition("int").parameters[0].name == "größe"
    assert (again.doc, dict(again.properties)) == ("функция", {"clé": "välue"})
    assert cat.list_functions("données") == [("données", "café_ñ")]
    assert read_json(fn.metadata_location)["doc"] == "функция"
    cat.rename_function("données.café_ñ", "données.thé")
    assert cat.list_functions("données") == [("données", "thé")]
    emoji = cat.create_function(("données", "😀"), add_one())
    assert cat.load_function(("données", "😀")).uuid == emoji.uuid


@pytest.mark.parametrize(
    ("name", "fragment"),
    [(("db", "a/b"), "'a/b' contains '/'"), (("db", ".."), "'..'"), (("db", "a\x00b"), "NUL")],
)
def test_names_that_could_escape_the_warehouse_are_refused(
    cat: SqlCatalog, tmp_path: Path, name: tuple[str, str], fragment: str
) -> None:
    refused(tmp_path, lambda: cat.create_function(name, add_one()), errors.InvalidIdentifierError, fragment)


# -- stale handles ---------------------------------------------------------------------------------


def test_two_handles_change_one_function_in_turn_without_losing_an_update(
    cat: SqlCatalog, tmp_path: Path
) -> None:
    one = cat.create_function("db.f", [add_one(), NewDefinition([("x", "long")], "long", {"spark": "x"})])
    two = cat.load_function("db.f")
    one.replace_definition("int", {"spark": "x + 2"})  # version 2
    two.set_doc("from two")  # two's base still has version 1 current
    assert two.metadata.current_definition_versions == {"int": 2, "long": 1}
    one.update_properties({"k": "v"})
    two.replace_definition("int", {"spark": "x + 3"})  # lands as version 3 of the fresh metadata
    one.set_secure(True)
    final = cat.load_function("db.f")
    assert final.doc == "from two"
    assert dict(final.properties) == {"k": "v"}
    assert final.secure is True
    assert [v.version_id for v in final.definition("int").versions] == [1, 2, 3]
    assert final.metadata.current_definition_versions == {"int": 3, "long": 1}
    assert log(final) == [{"int": 1, "long": 1}, {"int": 2, "long": 1}, {"int": 3, "long": 1}]
    assert numbers(tmp_path / "wh/db/functions/f/metadata") == [0, 1, 2, 3, 4, 5]


STALE: dict[str, tuple[Callable[[Function], Any], Callable[[Function], Any], Callable[[Function], Any]]] = {
    # other handle's change, the stale handle's change, what the catalog must then show
    "secure back": (lambda f: f.set_secure(True), lambda f: f.set_secure(False), lambda f: f.secure is False),
    "doc removed": (lambda f: f.set_doc("new"), lambda f: f.set_doc(None), lambda f: f.doc is None),
    "rollback": (
        lambda f: f.replace_definition("int", {"spark": "x + 9"}),
        lambda f: f.set_current_version("int", 1),
        lambda f: f.metadata.current_definition_versions["int"] == 1,
    ),
    "location back": (
        lambda f: f.update_location(f.location + "_moved"),
        lambda f: f.update_location(f.location),
        lambda f: f.location.endswith("/wh/db/functions/f"),
    ),
    "property removed": (
        lambda f: f.update_properties({"a": "1"}),
        lambda f: f.update_properties(removals=["a"]),
        lambda f: "a" not in f.properties,
    ),
}


@pytest.mark.parametrize("case", list(STALE), ids=list(STALE))
def test_a_stale_handle_s_change_is_judged_on_the_fresh_metadata(cat: SqlCatalog, case: str) -> None:
    first = cat.create_function("db.f", add_one())
    stale = cat.load_function("db.f")
    other, mine, check = STALE[case]
    other(first)
    mine(stale)
    assert check(cat.load_function("db.f"))
    assert check(stale)


def test_a_stale_handle_s_refused_change_writes_nothing(cat: SqlCatalog, tmp_path: Path) -> None:
    first = cat.create_function("db.f", [add_one(), NewDefinition([("x", "long")], "long", {"spark": "x"})])
    stale = cat.load_function("db.f")
    first.remove_definition("long")
    refused(
        tmp_path,
        lambda: stale.replace_definition("long", {"spark": "x + 1"}),
        errors.InvalidArgumentError,
        "long",
    )
    refused(tmp_path, lambda: stale.remove_definition("int"), errors.InvalidArgumentError, "last definition")
    first.add_definition(NewDefinition([("s", "string")], "string", {"spark": "s"}))
    refused(
        tmp_path,
        lambda: stale.add_definition(NewDefinition([("t", "string")], "string", {"spark": "t"})),
        errors.InvalidArgumentError,
        "'string'",
    )


def test_a_handle_of_a_dropped_and_recreated_function_raises_uuid_mismatch(
    cat: SqlCatalog, tmp_path: Path
) -> None:
    old = cat.create_function("db.f", add_one())
    cat.drop_function("db.f")
    new = cat.create_function("db.f", NewDefinition([("y", "long")], "long", {"spark": "y"}))
    for change in (
        lambda: old.set_doc("x"),
        lambda: old.replace_definition("int", {"spark": "x + 5"}),
        lambda: old.refresh(),
    ):
        info = refused(tmp_path, change, errors.FunctionUUIDMismatchError, "db.f")
        assert str(new.uuid) in str(info.value)
    assert cat.load_function("db.f").doc is None


def test_a_handle_of_a_dropped_function_raises_no_such_function(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    cat.drop_function("db.f")
    refused(tmp_path, lambda: fn.set_doc("x"), errors.NoSuchFunctionError, "db.f")


def test_a_handle_of_a_dropped_function_keeps_saying_so(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    cat.drop_function("db.f")
    refused(tmp_path, fn.refresh, errors.NoSuchFunctionError, "db.f")
    refused(tmp_path, fn.refresh, errors.NoSuchFunctionError, "db.f")
    refused(tmp_path, lambda: fn.set_doc("x"), errors.NoSuchFunctionError, "db.f")


def test_a_handle_that_saw_the_drop_does_not_adopt_a_new_function(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    cat.drop_function("db.f")
    with pytest.raises(errors.NoSuchFunctionError):
        fn.refresh()
    cat.create_function("db.f", NewDefinition([("y", "long")], "long", {"spark": "y"}))
    refused(tmp_path, fn.refresh, errors.FunctionUUIDMismatchError, "db.f")


# -- refusals ----------------------------------------------------------------------------------------

ND = NewDefinition
CREATE_REFUSALS: dict[str, tuple[Callable[[SqlCatalog], Any], type[Exception], tuple[str, ...]]] = {
    "already exists": (
        lambda c: c.create_function("db.f", add_one()),
        errors.FunctionAlreadyExistsError,
        ("db.f",),
    ),
    "no definitions": (
        lambda c: c.create_function("db.g", []),
        errors.InvalidArgumentError,
        ("definitions",),
    ),
    "definitions not a list": (
        lambda c: c.create_function("db.g", "x"),
        errors.InvalidArgumentError,
        ("definitions",),
    ),
    "same signature twice": (
        lambda c: c.create_function("db.g", [add_one(), ND([("y", "INT")], "int", {"spark": "y"})]),
        errors.InvalidArgumentError,
        ("'int'", "signature"),
    ),
    "same specific name twice": (
        lambda c: c.create_function(
            "db.g",
            [add_one(specific_name="s"), ND([("x", "long")], "long", {"spark": "x"}, specific_name="s")],
        ),
        errors.InvalidArgumentError,
        ("'s'",),
    ),
    "unknown parameter type": (
        lambda c: c.create_function("db.g", ND([("x", "integer")], "int", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("parameter 0", "integer"),
    ),
    "unknown return type": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "blob", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("return type", "blob"),
    ),
    "decimal precision 39": (
        lambda c: c.create_function("db.g", ND([("x", "decimal(39,2)")], "int", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("parameter 0", "38"),
    ),
    "list without element": (
        lambda c: c.create_function("db.g", ND([("x", {"type": "list"})], "int", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("parameter 0", "element"),
    ),
    "udtf returning int": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {"spark": "x"}, function_type="udtf")),
        errors.InvalidArgumentError,
        ("udtf", "struct"),
    ),
    "unknown function type": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {"spark": "x"}, function_type="udaf")),
        errors.InvalidArgumentError,
        ("udaf",),
    ),
    "unknown on_null_input": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {"spark": "x"}, on_null_input="skip")),
        errors.InvalidArgumentError,
        ("on_null_input", "skip"),
    ),
    "empty body": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {})),
        errors.InvalidArgumentError,
        ("no representations",),
    ),
    "blank sql": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {"spark": "  "})),
        errors.InvalidArgumentError,
        ("blank SQL",),
    ),
    "blank dialect": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {"": "x"})),
        errors.InvalidArgumentError,
        ("blank dialect",),
    ),
    "one dialect twice": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {"spark": "x", "SPARK": "x"})),
        errors.InvalidArgumentError,
        ("dialect spark",),
    ),
    "parameter name twice": (
        lambda c: c.create_function("db.g", ND([("x", "int"), ("X", "int")], "int", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("'X'", "more than once"),
    ),
    "empty parameter name": (
        lambda c: c.create_function("db.g", ND([("", "int")], "int", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("parameter 0",),
    ),
    "ambiguous struct field name": (
        lambda c: c.create_function(
            "db.g",
            ND(
                [("x", {"type": "struct", "fields": [{"name": "a b", "type": "int"}]})], "int", {"spark": "x"}
            ),
        ),
        errors.InvalidArgumentError,
        ("'a b'", "parameter 0"),
    ),
    "duplicate udtf column": (
        lambda c: c.create_function(
            "db.g",
            ND(
                [("x", "int")],
                {"type": "struct", "fields": [{"name": "a", "type": "int"}, {"name": "a", "type": "int"}]},
                {"spark": "select 1, 2"},
                function_type="udtf",
            ),
        ),
        errors.InvalidArgumentError,
        ("'a'", "return-type"),
    ),
    "location outside the warehouse": (
        lambda c: c.create_function("db.g", add_one(), location="file:///tmp/elsewhere"),
        errors.LocationOutsideWarehouseError,
        ("file:///tmp/elsewhere",),
    ),
    "location escaping with ..": (
        lambda c: c.create_function("db.g", add_one(), location=c.properties["warehouse"] + "/../x"),
        errors.LocationOutsideWarehouseError,
        ("/../x",),
    ),
    "write.metadata.path outside": (
        lambda c: c.create_function("db.g", add_one(), properties={"write.metadata.path": "file:///tmp/m"}),
        errors.LocationOutsideWarehouseError,
        ("write.metadata.path",),
    ),
    "empty name": (lambda c: c.create_function("db.", add_one()), errors.InvalidIdentifierError, ("db.",)),
    # NULL-ish and wrong Python types
    "None parameters": (
        lambda c: c.create_function("db.g", ND(None, "int", {"spark": "x"})),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("parameters",),
    ),
    "a bare string parameter": (
        lambda c: c.create_function("db.g", ND(["x"], "int", {"spark": "x"})),  # type: ignore[list-item]
        errors.InvalidArgumentError,
        ("parameter 0",),
    ),
    "None parameter name": (
        lambda c: c.create_function("db.g", ND([(None, "int")], "int", {"spark": "x"})),  # type: ignore[list-item]
        errors.InvalidArgumentError,
        ("parameter 0",),
    ),
    "None parameter type": (
        lambda c: c.create_function("db.g", ND([("x", None)], "int", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("parameter 0",),
    ),
    "int parameter type": (
        lambda c: c.create_function("db.g", ND([("x", 5)], "int", {"spark": "x"})),
        errors.InvalidArgumentError,
        ("parameter 0",),
    ),
    "None return type": (
        lambda c: c.create_function("db.g", ND([("x", "int")], None, {"spark": "x"})),
        errors.InvalidArgumentError,
        ("return type",),
    ),
    "None body": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", None)),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("body",),
    ),
    "a string body": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", "x + 1")),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("body",),
    ),
    "None SQL": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {"spark": None})),  # type: ignore[dict-item]
        errors.InvalidArgumentError,
        ("body", "'spark'"),
    ),
    "None dialect": (
        lambda c: c.create_function("db.g", ND([("x", "int")], "int", {None: "x"})),  # type: ignore[dict-item]
        errors.InvalidArgumentError,
        ("body",),
    ),
    "deterministic a string": (
        lambda c: c.create_function("db.g", add_one(deterministic="no")),
        errors.InvalidArgumentError,
        ("deterministic",),
    ),
    "return_nullable a string": (
        lambda c: c.create_function("db.g", add_one(return_nullable="no")),
        errors.InvalidArgumentError,
        ("return-nullable",),
    ),
    "doc an int": (
        lambda c: c.create_function("db.g", add_one(), doc=5),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("doc",),
    ),
    "secure a string": (
        lambda c: c.create_function("db.g", add_one(), secure="yes"),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("secure",),
    ),
    "location an int": (
        lambda c: c.create_function("db.g", add_one(), location=5),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("location",),
    ),
}


@pytest.mark.parametrize("case", list(CREATE_REFUSALS), ids=list(CREATE_REFUSALS))
def test_create_refusals_are_typed_and_write_nothing(cat: SqlCatalog, tmp_path: Path, case: str) -> None:
    cat.create_function("db.f", add_one())
    call, exc, fragments = CREATE_REFUSALS[case]
    refused(tmp_path, lambda: call(cat), exc, *fragments)
    assert cat.list_functions("db") == [("db", "f")]


HANDLE_REFUSALS: dict[str, tuple[Callable[[Function], Any], type[Exception], tuple[str, ...]]] = {
    "add an existing signature": (
        lambda f: f.add_definition(ND([("y", "int")], "int", {"spark": "y"})),
        errors.InvalidArgumentError,
        ("'int'",),
    ),
    "add None": (lambda f: f.add_definition(None), errors.InvalidArgumentError, ("definition",)),  # type: ignore[arg-type]
    "add a tuple": (
        lambda f: f.add_definition(([("s", "string")], "string", {"spark": "s"})),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("NewDefinition",),
    ),
    "replace an unknown definition": (
        lambda f: f.replace_definition("string", {"spark": "x"}),
        errors.InvalidArgumentError,
        ("'string'",),
    ),
    "replace with None body": (
        lambda f: f.replace_definition("int", None),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("body",),
    ),
    "replace with a blank body": (
        lambda f: f.replace_definition("int", {"spark": ""}),
        errors.InvalidArgumentError,
        ("blank SQL",),
    ),
    "replace None definition": (
        lambda f: f.replace_definition(None, {"spark": "x"}),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("definition",),
    ),
    "replace with a bad on_null_input": (
        lambda f: f.replace_definition("int", {"spark": "x"}, on_null_input="RETURN NULL"),
        errors.InvalidArgumentError,
        ("on_null_input",),
    ),
    "replace with a str deterministic": (
        lambda f: f.replace_definition("int", {"spark": "x"}, deterministic="true"),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("deterministic",),
    ),
    "set an unknown version": (
        lambda f: f.set_current_version("int", 99),
        errors.InvalidArgumentError,
        ("'int'", "99"),
    ),
    "set version 0": (lambda f: f.set_current_version("int", 0), errors.InvalidArgumentError, ("'int'", "0")),
    "set a version of an unknown definition": (
        lambda f: f.set_current_version("string", 1),
        errors.InvalidArgumentError,
        ("'string'",),
    ),
    "set version '1'": (
        lambda f: f.set_current_version("int", "1"),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("version id",),
    ),
    "set version True": (
        lambda f: f.set_current_version("int", True),
        errors.InvalidArgumentError,
        ("version id",),
    ),
    "set version None": (
        lambda f: f.set_current_version("int", None),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("version id",),
    ),
    "remove an unknown definition": (
        lambda f: f.remove_definition("string"),
        errors.InvalidArgumentError,
        ("'string'",),
    ),
    "remove None": (
        lambda f: f.remove_definition(None),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("definition id",),
    ),
    "property value None": (
        lambda f: f.update_properties({"a": None}),  # type: ignore[dict-item]
        errors.InvalidArgumentError,
        ("null",),
    ),
    "property key None": (
        lambda f: f.update_properties({None: "x"}),  # type: ignore[dict-item]
        errors.InvalidArgumentError,
        ("key",),
    ),
    "properties a list": (
        lambda f: f.update_properties([("a", "b")]),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("properties",),
    ),
    "removals a string": (
        lambda f: f.update_properties(removals="a"),
        errors.InvalidArgumentError,
        ("removals",),
    ),
    "doc an int": (lambda f: f.set_doc(5), errors.InvalidArgumentError, ("doc",)),  # type: ignore[arg-type]
    "secure None": (lambda f: f.set_secure(None), errors.InvalidArgumentError, ("secure",)),  # type: ignore[arg-type]
    "secure 'false'": (
        lambda f: f.set_secure("false"),  # type: ignore[arg-type]
        errors.InvalidArgumentError,
        ("secure",),
    ),
    "location None": (lambda f: f.update_location(None), errors.InvalidArgumentError, ("location",)),  # type: ignore[arg-type]
    "location outside": (
        lambda f: f.update_location("file:///tmp/elsewhere"),
        errors.LocationOutsideWarehouseError,
        ("file:///tmp/elsewhere",),
    ),
    "location relative": (
        lambda f: f.update_location("relative/path"),
        errors.LocationOutsideWarehouseError,
        ("relative/path",),
    ),
    "write.metadata.path outside": (
        lambda f: f.update_properties({"write.metadata.path": "file:///tmp/m"}),
        errors.LocationOutsideWarehouseError,
        ("write.metadata.path",),
    ),
}


@pytest.mark.parametrize("case", list(HANDLE_REFUSALS), ids=list(HANDLE_REFUSALS))
def test_handle_refusals_are_typed_and_write_nothing(cat: SqlCatalog, tmp_path: Path, case: str) -> None:
    fn = cat.create_function("db.f", add_one(), properties={"a": "1"})
    fn.replace_definition("int", {"spark": "x + 2"})
    metadata = fn.metadata
    call, exc, fragments = HANDLE_REFUSALS[case]
    refused(tmp_path, lambda: call(fn), exc, *fragments)
    assert fn.metadata == metadata


def test_a_bad_property_value_names_its_key(cat: SqlCatalog, tmp_path: Path) -> None:
    refused(
        tmp_path,
        lambda: cat.create_function("db.g", add_one(), properties={"owner": None}),  # type: ignore[dict-item]
        errors.InvalidArgumentError,
        "owner",
    )


@pytest.mark.parametrize("identifier", [None, 5], ids=["None", "int"])
def test_a_null_or_wrong_typed_identifier_is_a_typed_refusal(
    cat: SqlCatalog, tmp_path: Path, identifier: Any
) -> None:
    cat.create_function("db.f", add_one())
    calls: list[Callable[[], Any]] = [
        lambda: cat.create_function(identifier, add_one()),
        lambda: cat.load_function(identifier),
        lambda: cat.function_exists(identifier),
        lambda: cat.drop_function(identifier),
        lambda: cat.rename_function("db.f", identifier),
        lambda: cat.rename_function(identifier, "db.g"),
        lambda: cat.commit_function(identifier, [], [SetFunctionDoc("x")]),
    ]
    for call in calls:
        refused(tmp_path, call, errors.IceviewError)


def test_list_functions_of_none_is_a_typed_refusal(cat: SqlCatalog, tmp_path: Path) -> None:
    refused(tmp_path, lambda: cat.list_functions(None), errors.IceviewError)  # type: ignore[arg-type]


def test_commit_function_with_none_updates_is_a_typed_refusal(cat: SqlCatalog, tmp_path: Path) -> None:
    cat.create_function("db.f", add_one())
    refused(tmp_path, lambda: cat.commit_function("db.f", None, None), errors.IceviewError)  # type: ignore[arg-type]


def test_text_that_cannot_be_encoded_is_a_typed_refusal(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    calls: list[Callable[[], Any]] = [
        lambda: cat.create_function("db.g", NewDefinition([("x", "int")], "int", {"spark": "x \udc80"})),
        lambda: cat.create_function("db.g", add_one(), doc="\ud800"),
        lambda: cat.create_function("db.g\udc80", add_one()),
        lambda: fn.replace_definition("int", {"spark": "x \udc80"}),
        lambda: fn.update_properties({"k": "\udc80"}),
    ]
    for call in calls:
        refused(tmp_path, call, errors.IceviewError)


# -- commit_function with raw requirements and updates ----------------------------------------------


def version(sql: str, version_id: int = 1, timestamp_ms: int = 1_700_000_000_000) -> DefinitionVersion:
    return DefinitionVersion(version_id, (SQLRepresentation("spark", sql),), timestamp_ms)


def test_commit_function_adds_a_version_as_the_docs_show(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    before = files(tmp_path)
    committed = cat.commit_function(
        "db.f",
        [AssertFunctionUUID(str(fn.uuid).upper())],  # compared case-insensitively
        [AddDefinitionVersion("int", version("x + 2")), SetCurrentDefinitionVersion("int", -1)],
    )
    assert isinstance(committed, Function)
    assert len(files(tmp_path) - before) == 1
    assert local(committed.metadata_location).name.startswith("00001-")
    assert committed.metadata.current_definition_versions == {"int": 2}
    assert committed.history[-1].timestamp_ms == 1_700_000_000_000  # the version's own time
    assert log(committed) == [{"int": 1}, {"int": 2}]
    # the JSON forms of the docs, through update_from_dict / requirement_from_dict
    rollback = update_from_dict(
        {"action": "set-current-definition-version", "definition-id": "int", "version-id": 1}
    )
    check = requirement_from_dict(
        {
            "type": "assert-current-definitions",
            "definition-versions": [{"definition-id": "int", "version-id": 2}],
        }
    )
    rolled = cat.commit_function(committed, [check], [rollback])
    assert rolled.metadata.current_definition_versions == {"int": 1}
    assert cat.load_function("db.f").metadata == rolled.metadata


def test_commit_function_ignores_the_version_id_a_new_version_carries(cat: SqlCatalog) -> None:
    fn = cat.create_function("db.f", add_one())
    fn.replace_definition("int", {"spark": "x + 2"})
    done = cat.commit_function(
        "db.f", [], [AddDefinitionVersion("int", version("x + 3", 2)), SetCurrentDefinitionVersion("int", -1)]
    )
    assert [v.version_id for v in done.definition("int").versions] == [1, 2, 3]
    assert done.metadata.current_definition_versions == {"int": 3}
    # a version equal to an existing one is that one, and -1 then means it
    again = cat.commit_function(
        "db.f", [], [AddDefinitionVersion("int", version("x + 1", 9)), SetCurrentDefinitionVersion("int", -1)]
    )
    assert [v.version_id for v in again.definition("int").versions] == [1, 2, 3]
    assert again.metadata.current_definition_versions == {"int": 1}


def test_commit_function_every_update_kind(cat: SqlCatalog, tmp_path: Path) -> None:
    fn = cat.create_function("db.f", add_one())
    new_definition = FunctionDefinition(
        "long",
        (FunctionParameter("x", PrimitiveType("long")),),
        PrimitiveType("long"),
        (version("x * 2"),),
        1,
    )
    done = cat.commit_function(
        fn,
        [AssertCurrentDefinitions({"INT": 1})],  # canonicalised as look-ups are
        [
            AddDefinition(new_definition),
            SetFunctionDoc("raw"),
            SetFunctionSecure(True),
            SetProperties({"k": "v"}),
            SetLocation(f"file://{tmp_path}/wh/raw/f"),
        ],
    )
    assert done.metadata.definition_ids == ("int", "long")
    assert (done.doc, done.secure, dict(done.properties)) == ("raw", True, {"k": "v"})
    assert done.metadata_location.startswith(f"file://{tmp_path}/wh/raw/f/metadata/00001-")
    done = cat.commit_function("db.f", [], [RemoveDefinition("long"), SetFunctionDoc(None)])
    assert done.metadata.definition_ids == ("int",) and done.doc is None
    fn.commit(FunctionChange((AssertFunctionUUID(str(fn.uuid)),), (SetFunctionDoc("via commit"),)))
    assert fn.doc == "via commit" and cat.load_function("db.f").doc == "via commit"


COMMIT_REFUSALS: dict[str, tuple[Callable[[SqlCatalog, Function], Any], type[Exception], tuple[str, ...]]] = {
    "wrong uuid": (
        lambda c, f: c.commit_function(
            "db.f", [AssertFunctionUUID("00000000-0000-0000-0000-000000000000")], [SetFunctionDoc("x")]
        ),
        errors.CommitFailedError,
        ("UUID",),
    ),
    "stale current definitions": (
        lambda c, f: c.commit_function("db.f", [AssertCurrentDefinitions({"int": 1})], [SetFunctionDoc("x")]),
        errors.CommitFailedError,
        ("current definition versions",),
    ),
    "current definitions not exact": (
        lambda c, f: c.commit_function("db.f", [AssertCurrentDefinitions({})], [SetFunctionDoc("x")]),
        errors.CommitFailedError,
        ("current definition versions",),
    ),
    "assert-create on an existing function": (
        lambda c, f: c.commit_function("db.f", [AssertCreate()], [SetFunctionDoc("x")]),
        errors.FunctionAlreadyExistsError,
        ("db.f",),
    ),
    "a missing function": (
        lambda c, f: c.commit_function("db.nope", [], [SetFunctionDoc("x")]),
        errors.NoSuchFunctionError,
        ("db.nope",),
    ),
    "remove the last definition": (
        lambda c, f: c.commit_function("db.f", [], [RemoveDefinition("int")]),
        errors.InvalidUpdateError,
        ("remove-definition",),
    ),
    "an unknown version": (
        lambda c, f: c.commit_function("db.f", [], [SetCurrentDefinitionVersion("int", 42)]),
        errors.InvalidUpdateError,
        ("set-current-definition-version", "42"),
    ),
    "reassign the uuid": (
        lambda c, f: c.commit_function("db.f", [], [AssignUUID("00000000-0000-0000-0000-000000000000")]),
        errors.InvalidUpdateError,
        ("assign-uuid",),
    ),
    "format version 2": (
        lambda c, f: c.commit_function("db.f", [], [UpgradeFormatVersion(2)]),
        errors.InvalidUpdateError,
        ("upgrade-format-version",),
    ),
    "an add-definition whose id is not its signature": (
        lambda c, f: c.commit_function(
            "db.f",
            [],
            [
                AddDefinition(
                    FunctionDefinition(
                        "long",
                        (FunctionParameter("x", PrimitiveType("int")),),
                        PrimitiveType("int"),
                        (version("x"),),
                        1,
                    )
                )
            ],
        ),
        errors.InvalidUpdateError,
        ("add-definition", "'long'"),
    ),
    "an update that is a dict": (
        lambda c, f: c.commit_function("db.f", [], [{"action": "set-function-doc", "doc": "x"}]),  # type: ignore[list-item]
        errors.InvalidUpdateError,
        ("update 0",),
    ),
    "a location outside": (
        lambda c, f: c.commit_function("db.f", [], [SetLocation("file:///tmp/outside")]),
        errors.LocationOutsideWarehouseError,
        ("file:///tmp/outside",),
    ),
    "a later update fails: nothing applies": (
        lambda c, f: c.commit_function("db.f", [], [SetFunctionDoc("applied?"), RemoveDefinition("string")]),
        errors.InvalidUpdateError,
        ("update 1",),
    ),
    "assert-create in a missing namespace": (
        lambda c, f: c.commit_function(
            "nope.g",
            [AssertCreate()],
            [
                AddDefinition(
                    FunctionDefinition(
                        "int",
                        (FunctionParameter("x", PrimitiveType("int")),),
                        PrimitiveType("int"),
                        (version("x"),),
                        1,
                    )
                )
            ],
        ),
        errors.NoSuchNamespaceError,
        ("nope",),
    ),
    "assert-create without definitions": (
        lambda c, f: c.commit_function(
            "db.g", [AssertCreate()], [SetLocation(c.properties["warehouse"] + "/db/functions/g")]
        ),
        errors.InvalidArgumentError,
        ("no definitions",),
    ),
}


@pytest.mark.parametrize("case", list(COMMIT_REFUSALS), ids=list(COMMIT_REFUSALS))
def test_commit_function_refusals_are_typed_and_write_nothing(
    cat: SqlCatalog, tmp_path: Path, case: str
) -> None:
    fn = cat.create_function("db.f", add_one())
    fn.replace_definition("int", {"spark": "x + 2"})
    call, exc, fragments = COMMIT_REFUSALS[case]
    refused(tmp_path, lambda: call(cat, fn), exc, *fragments)
    assert cat.load_function("db.f").metadata == fn.metadata


def test_commit_function_creates_with_assert_create_and_a_location(cat: SqlCatalog, tmp_path: Path) -> None:
    definition = FunctionDefinition(
        "int", (FunctionParameter("x", PrimitiveType("int")),), PrimitiveType("int"), (version("x + 1"),), 1
    )
    location = f"file://{tmp_path}/wh/db/functions/g"
    fn = cat.commit_function(
        "db.g", [AssertCreate()], [SetLocation(location), AddDefinition(definition), SetFunctionDoc("raw")]
    )
    assert cat.list_functions("db") == [("db", "g")]
    assert fn.metadata_location.startswith(f"{location}/metadata/00000-")
    assert fn.uuid is not None and fn.doc == "raw"
    assert log(fn) == [{"int": 1}]
    assert validate(fn.metadata) == []


def test_commit_function_create_without_a_location_uses_the_default(cat: SqlCatalog, tmp_path: Path) -> None:
    definition = FunctionDefinition(
        "int", (FunctionParameter("x", PrimitiveType("int")),), PrimitiveType("int"), (version("x + 1"),), 1
    )
    fn = cat.commit_function("db.g", [AssertCreate()], [AddDefinition(definition)])
    assert fn.location == f"file://{tmp_path}/wh/db/functions/g"


def test_supports_functions(cat: SqlCatalog) -> None:
    assert cat.supports_functions() is True
