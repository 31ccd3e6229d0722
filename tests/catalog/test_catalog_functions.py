"""SQL UDFs in the SQL catalog (SQLite and PostgreSQL): every operation through the one change
path, the ``iceview_functions`` table beside Java's, names shared with views and tables, the
files each commit writes, and concurrent writers with no commit lost."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from catalog_support import CatalogEnv, file_path, metadata_files
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField
from sqlalchemy import create_engine, inspect, text

from iceview import files
from iceview.catalog.orphans import metadata_orphans
from iceview.catalog.sql import SqlCatalog
from iceview.errors import (
    CatalogError,
    CommitFailedError,
    ForbiddenError,
    FunctionAlreadyExistsError,
    FunctionUUIDMismatchError,
    InvalidArgumentError,
    InvalidUpdateError,
    LocationOutsideWarehouseError,
    NamespaceNotEmptyError,
    NoSuchFunctionError,
    NoSuchNamespaceError,
    UnsupportedOperationError,
)
from iceview.function import NewDefinition
from iceview.function.changes import create_change
from iceview.udf import (
    AddDefinitionVersion,
    AssertCreate,
    AssertCurrentDefinitions,
    AssertFunctionUUID,
    DefinitionVersion,
    RemoveDefinition,
    SetCurrentDefinitionVersion,
    SetProperties,
    SQLRepresentation,
    validate,
)

ADD_ONE = NewDefinition([("x", "int")], "int", {"spark": "x + 1"}, doc="int overload")
ADD_ONE_LONG = NewDefinition([("x", "long")], "long", {"spark": "x + 1", "trino": "x + 1"})
SERIES = NewDefinition(
    [("n", "int")],
    {"type": "struct", "fields": [{"id": 1, "name": "i", "type": "int", "required": False}]},
    {"spark": "SELECT explode(sequence(1, n)) AS i"},
    function_type="udtf",
)


@pytest.fixture
def functions(env: CatalogEnv) -> Any:
    catalog = env.catalog()
    catalog.create_namespace("ns")
    yield catalog
    catalog.close()


def _read_file(location: str) -> dict[str, Any]:
    raw = Path(file_path(location)).read_bytes()
    return json.loads(gzip.decompress(raw) if location.endswith((".gz.metadata.json", ".gz")) else raw)


def test_create_load_and_the_file_written(functions: SqlCatalog, env: CatalogEnv) -> None:
    created = functions.create_function(
        "ns.add_one", [ADD_ONE, ADD_ONE_LONG], doc="adds one", properties={"owner": "data"}
    )
    loaded = functions.load_function("ns.add_one")
    assert loaded.metadata == created.metadata
    assert loaded.name == "testCatalog.ns.add_one"
    assert loaded.identifier.namespace == ("ns",) and loaded.identifier.name == "add_one"
    assert [d.definition_id for d in loaded.definitions] == ["int", "long"]
    assert loaded.doc == "adds one" and loaded.properties == {"owner": "data"} and not loaded.secure
    assert loaded.definition("INT") is loaded.definitions[0]  # a lenient spelling finds it
    assert loaded.definitions[0].current_version.sql_for("spark") == SQLRepresentation("spark", "x + 1")
    # the default location: <warehouse>/<ns>/functions/<name>, a first file numbered 00000 and gzipped
    # (the view property's default codec), which validates and reads back equal
    assert loaded.location == f"{env.warehouse_uri}/ns/functions/add_one"
    location = loaded.metadata_location
    assert location is not None
    folder = env.warehouse / "ns" / "functions" / "add_one" / "metadata"
    assert metadata_files(folder) == [Path(file_path(location)).name]
    assert Path(file_path(location)).name.startswith("00000-")
    assert location.endswith(".gz.metadata.json")
    document = _read_file(location)
    assert document["function-uuid"] == str(loaded.uuid)
    assert document["format-version"] == 1
    assert [d["definition-id"] for d in document["definitions"]] == ["int", "long"]
    assert len(document["definition-log"]) == 1
    read = files.read_function_metadata(location)
    assert read == loaded.metadata and not validate(read)


def test_a_udtf_returns_its_columns_as_a_struct(functions: SqlCatalog) -> None:
    series = functions.create_function("ns.series", SERIES)
    definition = series.definitions[0]
    assert definition.function_type == "udtf"
    assert [name for name, _ in definition.return_type.fields] == ["i"]  # type: ignore[union-attr]
    with pytest.raises(InvalidArgumentError, match="udtf"):
        functions.create_function(
            "ns.bad", NewDefinition([("n", "int")], "int", {"spark": "SELECT 1"}, function_type="udtf")
        )
    assert not functions.function_exists("ns.bad")


def test_every_change_is_a_new_file_and_a_log_entry(functions: SqlCatalog, env: CatalogEnv) -> None:
    fn = functions.create_function("ns.f", ADD_ONE)
    first = fn.metadata_location
    fn.add_definition(ADD_ONE_LONG)
    assert [d.definition_id for d in fn.definitions] == ["int", "long"]
    fn.replace_definition("int", {"spark": "x + 2", "trino": "x + 2"})
    int_def = fn.definition("int")
    assert int_def is not None and int_def.version_ids == (1, 2) and int_def.current_version_id == 2
    assert int_def.current_version.dialects == ("spark", "trino")
    fn.replace_definition("int", {"spark": "x + 3"}, on_null_input="return-null", deterministic=True)
    version = fn.metadata.current_version("int")
    assert (version.version_id, version.on_null_input, version.deterministic) == (3, "return-null", True)
    fn.set_current_version("int", 1)  # roll back
    assert fn.metadata.current_definition_versions == {"int": 1, "long": 1}
    # a replace with the body of an existing version makes that version current again, adds none
    fn.replace_definition("int", {"spark": "x + 2", "trino": "x + 2"})
    assert fn.definition("int").version_ids == (1, 2, 3)  # type: ignore[union-attr]
    assert fn.metadata.current_definition_versions == {"int": 2, "long": 1}
    fn.update_properties({"a": "1", "b": "2"})
    fn.update_properties({"c": "3"}, removals=["a"])
    assert fn.properties == {"b": "2", "c": "3"}
    fn.set_doc("documented")
    fn.set_secure(True)
    # the log: one entry per change of current versions (create, add, 2 replaces, rollback, replace),
    # each naming every definition then present
    assert [entry.as_mapping() for entry in functions.load_function("ns.f").history] == [
        {"int": 1},
        {"int": 1, "long": 1},
        {"int": 2, "long": 1},
        {"int": 3, "long": 1},
        {"int": 1, "long": 1},
        {"int": 2, "long": 1},
    ]
    fn.remove_definition("long")
    assert [d.definition_id for d in fn.definitions] == ["int"]
    with pytest.raises(InvalidArgumentError, match="Cannot remove the last definition"):
        fn.remove_definition("int")
    with pytest.raises(InvalidUpdateError, match="Cannot remove the last definition"):  # the same, as data
        functions.commit_function("ns.f", [], [RemoveDefinition("int")])
    loaded = functions.load_function("ns.f")
    assert loaded.metadata == fn.metadata and loaded.doc == "documented" and loaded.secure
    # the removal keeps only the entries that name no removed definition (the builder's rule): none
    # of the earlier ones, then its own
    assert [entry.as_mapping() for entry in loaded.history] == [{"int": 2}]
    # eleven commits (the refusals committed nothing), eleven files numbered without a gap; the first is still there
    folder = env.warehouse / "ns" / "functions" / "f" / "metadata"
    listed = metadata_files(folder)
    assert [files.parse_version(name) for name in listed] == list(range(11))
    assert first is not None and Path(file_path(first)).exists()


def test_changes_that_change_nothing_commit_nothing(functions: SqlCatalog) -> None:
    fn = functions.create_function("ns.f", ADD_ONE, properties={"a": "1"})
    location = fn.metadata_location
    fn.set_current_version("int", 1)
    fn.set_doc(None)
    assert functions.load_function("ns.f").metadata_location == location


def test_refusals_name_the_function_and_write_nothing(functions: SqlCatalog, env: CatalogEnv) -> None:
    fn = functions.create_function("ns.f", ADD_ONE)
    with pytest.raises(FunctionAlreadyExistsError, match=r"Function already exists: ns\.f"):
        functions.create_function("ns.f", ADD_ONE_LONG)
    with pytest.raises(InvalidArgumentError, match="has a definition with this signature"):
        fn.add_definition(NewDefinition([("y", "int")], "long", {"spark": "y"}))
    with pytest.raises(InvalidArgumentError, match="unknown version: 7"):
        fn.set_current_version("int", 7)
    with pytest.raises(InvalidArgumentError, match="Unknown definition: 'string'"):
        fn.replace_definition("string", {"spark": "x"})
    with pytest.raises(InvalidArgumentError, match="Cannot parse type string to primitive: bigint"):
        fn.add_definition(NewDefinition([("x", "bigint")], "long", {"spark": "x"}))
    with pytest.raises(InvalidArgumentError, match="on_null_input"):
        fn.replace_definition("int", {"spark": "x"}, on_null_input="skip")
    with pytest.raises(NoSuchFunctionError, match=r"Function does not exist: ns\.missing"):
        functions.load_function("ns.missing")
    with pytest.raises(NoSuchNamespaceError, match="Namespace nowhere does not exist"):
        functions.create_function("nowhere.f", ADD_ONE)
    # refused by the catalog, or over REST by the server (403 Forbidden)
    with pytest.raises(
        (LocationOutsideWarehouseError, ForbiddenError), match="outside the catalog's warehouse"
    ):
        functions.create_function("ns.g", ADD_ONE, location="/tmp/elsewhere/g")
    with pytest.raises(
        (LocationOutsideWarehouseError, ForbiddenError), match="outside the catalog's warehouse"
    ):
        fn.update_properties({"write.metadata.path": "/tmp/elsewhere"})
    # one file: the create's; every refusal above wrote nothing, or deleted what it wrote
    assert len(metadata_files(env.warehouse / "ns" / "functions" / "f" / "metadata")) == 1
    assert not (env.warehouse / "nowhere").exists()
    assert functions.list_functions("ns") == [("ns", "f")]


def test_the_one_change_path_takes_requirements_and_updates(functions: SqlCatalog) -> None:
    fn = functions.create_function("ns.f", ADD_ONE)
    uuid = fn.metadata.function_uuid
    version = DefinitionVersion(0, (SQLRepresentation("spark", "x * 10"),), int(time.time() * 1000))
    committed = functions.commit_function(
        "ns.f",
        [AssertFunctionUUID(uuid.upper()), AssertCurrentDefinitions({"int": 1})],
        [
            AddDefinitionVersion("int", version),
            SetCurrentDefinitionVersion("int", -1),
            SetProperties({"k": "v"}),
        ],
    )
    assert committed.metadata.current_definition_versions == {"int": 2}
    assert committed.properties == {"k": "v"}
    with pytest.raises(CommitFailedError, match="Requirement failed"):
        functions.commit_function("ns.f", [AssertCurrentDefinitions({"int": 1})], [SetProperties({"k": "w"})])
    again = create_change([ADD_ONE_LONG], None)
    assert isinstance(again.requirements[0], AssertCreate)
    with pytest.raises(FunctionAlreadyExistsError, match=r"Function already exists: ns\.f"):
        functions.commit_function("ns.f", again.requirements, again.updates)
    with pytest.raises(CommitFailedError, match="UUID does not match"):
        functions.commit_function(
            "ns.f", [AssertFunctionUUID("00000000-0000-0000-0000-000000000000")], [SetProperties({"k": "w"})]
        )
    assert functions.load_function("ns.f").properties == {"k": "v"}
    # an empty change commits nothing
    before = functions.load_function("ns.f").metadata_location
    assert functions.commit_function("ns.f", [], []).metadata_location == before


def test_a_stale_handle_re_applies_its_change_on_the_fresh_function(functions: SqlCatalog) -> None:
    first = functions.create_function("ns.f", ADD_ONE)
    second = functions.load_function("ns.f")
    first.replace_definition("int", {"spark": "x + 2"})
    second.add_definition(ADD_ONE_LONG)  # made on a base without version 2: re-applied on the fresh one
    second.replace_definition("int", {"spark": "x + 5"})
    final = functions.load_function("ns.f")
    assert final.metadata.current_definition_versions == {"int": 3, "long": 1}
    assert [v.representations[0].sql for v in final.definition("int").versions] == [  # type: ignore[union-attr]
        "x + 1",
        "x + 2",
        "x + 5",
    ]


def test_names_list_rename_and_drop(functions: SqlCatalog, env: CatalogEnv) -> None:
    functions.create_namespace("other")
    functions.create_function("ns.b", ADD_ONE)
    functions.create_function("ns.a", ADD_ONE)
    functions.create_function("other.c", ADD_ONE)
    assert functions.list_functions("ns") == [("ns", "a"), ("ns", "b")]
    assert functions.list_functions("other") == [("other", "c")]
    assert functions.list_functions(()) == []
    with pytest.raises(NoSuchNamespaceError):
        functions.list_functions("nowhere")
    functions.rename_function("ns.a", "other.a")
    assert functions.list_functions("other") == [("other", "a"), ("other", "c")]
    moved = functions.load_function("other.a")
    assert moved.definitions[0].definition_id == "int"
    with pytest.raises(FunctionAlreadyExistsError, match="Function already exists"):
        functions.rename_function("ns.b", "other.c")
    with pytest.raises(NoSuchFunctionError):
        functions.rename_function("ns.missing", "ns.x")
    with pytest.raises(NoSuchNamespaceError):
        functions.rename_function("ns.b", "nowhere.b")
    functions.rename_function("ns.b", "ns.b")  # to itself: nothing to do
    # drop: the entry and, with gc.enabled (the default), the current metadata file
    current = functions.load_function("ns.b").metadata_location
    assert current is not None
    assert functions.drop_function("ns.b")
    assert not functions.function_exists("ns.b")
    assert not Path(file_path(current)).exists()
    assert not functions.drop_function("ns.b")
    kept = functions.create_function("other.kept", ADD_ONE, properties={"gc.enabled": "false"})
    kept_file = kept.metadata_location
    assert functions.drop_function("other.kept") and kept_file is not None
    assert Path(file_path(kept_file)).exists()


def test_a_function_may_share_its_name_with_a_view_or_a_table(functions: SqlCatalog, tables: Any) -> None:
    schema = Schema(NestedField(1, "x", IntegerType(), required=False))
    tables.create_table("ns.same", schema)
    functions.create_view(
        "ns.also", schema=schema, queries={"spark": "SELECT 1 AS x"}, default_namespace=("ns",)
    )
    functions.create_function("ns.same", ADD_ONE)
    functions.create_function("ns.also", ADD_ONE)
    assert functions.list_functions("ns") == [("ns", "also"), ("ns", "same")]
    assert functions.list_views("ns") == [("ns", "also")]
    assert functions.list_tables("ns") == [("ns", "same")]
    assert functions.load_view("ns.also").location != functions.load_function("ns.also").location
    functions.drop_function("ns.also")
    assert functions.view_exists("ns.also") and functions.table_exists("ns.same")


def test_a_namespace_with_functions_is_not_empty(functions: SqlCatalog) -> None:
    functions.create_function("ns.f", ADD_ONE)
    with pytest.raises(
        NamespaceNotEmptyError, match=r"Namespace ns is not empty\. Contains 1 function\(s\)\."
    ):
        functions.drop_namespace("ns")
    functions.drop_function("ns.f")
    assert functions.drop_namespace("ns")


def test_the_functions_table_and_java_s_tables(functions: SqlCatalog, env: CatalogEnv) -> None:
    functions.create_function("ns.f", ADD_ONE)
    engine = create_engine(env.url)
    try:
        with engine.connect() as conn:
            names = {n.lower() for n in inspect(conn).get_table_names()}
            columns = [c["name"] for c in inspect(conn).get_columns("iceview_functions")]
            rows = conn.execute(text("SELECT * FROM iceview_functions")).mappings().all()
            type_rows = conn.execute(text("SELECT COUNT(*) FROM iceberg_tables")).scalar()
    finally:
        engine.dispose()
    assert {"iceberg_tables", "iceberg_namespace_properties", "iceview_functions"} <= names
    assert columns == [
        "catalog_name",
        "function_namespace",
        "function_name",
        "metadata_location",
        "previous_metadata_location",
    ]
    assert [(r["catalog_name"], r["function_namespace"], r["function_name"]) for r in rows] == [
        ("testCatalog", "ns", "f")
    ]
    assert type_rows == 0  # nothing in Java's table
    # a second catalog name on the same database sees none of them
    with env.catalog("another") as another:
        another.create_namespace("ns")
        assert another.list_functions("ns") == []
        with pytest.raises(NoSuchFunctionError):
            another.load_function("ns.f")


def test_a_database_without_the_table(tmp_path: Path) -> None:
    """With ``jdbc.init-catalog-tables=false`` and no ``iceview_functions`` (a database Java made),
    reads find no functions and a create says what is missing."""
    url = f"sqlite:///{tmp_path}/java.db"
    SqlCatalog("c", uri=url, warehouse=str(tmp_path / "wh")).close()
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE iceview_functions"))
    engine.dispose()
    with SqlCatalog(
        "c", uri=url, warehouse=str(tmp_path / "wh"), **{"jdbc.init-catalog-tables": "false"}
    ) as c:
        c.create_namespace("ns")
        assert c.list_functions("ns") == [] and not c.function_exists("ns.f")
        with pytest.raises(NoSuchFunctionError):
            c.load_function("ns.f")
        assert not c.drop_function("ns.f")
        with pytest.raises(CatalogError, match="no iceview_functions table"):
            c.create_function("ns.f", ADD_ONE)
        assert not (tmp_path / "wh").exists() or not any((tmp_path / "wh").rglob("*.metadata.json"))


def test_a_name_that_now_holds_another_function(functions: SqlCatalog) -> None:
    fn = functions.create_function("ns.f", ADD_ONE)
    functions.drop_function("ns.f")
    functions.create_function("ns.f", ADD_ONE)
    with pytest.raises(FunctionUUIDMismatchError, match="Function UUID does not match"):
        fn.refresh()
    dropped = functions.load_function("ns.f")
    functions.drop_function("ns.f")
    with pytest.raises(NoSuchFunctionError):
        dropped.refresh()


def test_orphans_of_views_keep_function_files(functions: SqlCatalog) -> None:
    fn = functions.create_function("ns.f", ADD_ONE)
    assert fn.metadata_location in functions.metadata_pointers()
    # a view whose metadata folder is the function's: its orphans never include the function's files
    functions.create_view(
        "ns.v",
        schema=Schema(NestedField(1, "x", IntegerType(), required=False)),
        queries={"spark": "SELECT 1 AS x"},
        default_namespace=("ns",),
        location=fn.location,
    )
    fn.update_properties({"a": "b"})
    fn.update_properties({"a": "c"})  # the function's first file is no pointer now (current nor previous)
    report = metadata_orphans(functions, "ns.v", delete=True, older_than=timedelta(0))
    assert report.orphans == ()
    # the function's replaced files (the first, and over REST, where pointers are current ones only,
    # the second): not this view's, kept
    assert 1 <= len(report.foreign) <= 2
    assert all(Path(file_path(f)).exists() for f in report.foreign)


def test_catalogs_that_keep_no_functions_say_so() -> None:
    from iceview.catalog.hive import HiveCatalog

    hive = HiveCatalog("h", uri="thrift://127.0.0.1:1", warehouse="/tmp/nowhere")  # connects lazily
    assert not hive.supports_functions()
    with pytest.raises(UnsupportedOperationError, match="The hive catalog h does not keep SQL UDFs"):
        hive.create_function("ns.f", ADD_ONE)
    with pytest.raises(UnsupportedOperationError, match="does not keep SQL UDFs"):
        hive.list_functions("ns")
    with pytest.raises(UnsupportedOperationError, match="does not keep SQL UDFs"):
        hive.load_function("ns.f")


# -------------------------------------------------------------------------------- concurrency

WRITERS = 6
COMMITS = 16
WORKER = Path(__file__).with_name("catalog_worker.py")


def test_concurrent_writers_lose_no_commit(functions: SqlCatalog, env: CatalogEnv, tmp_path: Path) -> None:
    """6 processes × 16 commits to one function: each adds a definition of its own signature, then
    new bodies of the ``int`` definition and properties, all at once. Every acknowledged commit
    is in the final metadata exactly once, each file adds one change to the one before, numbered
    without a gap, and failed attempts left no file."""
    retry = {
        "commit.retry.num-retries": "1000",
        "commit.retry.min-wait-ms": "1",
        "commit.retry.max-wait-ms": "50",
        "version.history.num-entries": "1000",
    }
    functions.create_function("ns.f", ADD_ONE, properties=retry)
    go = tmp_path / "go"
    outs = [tmp_path / f"w{w}.jsonl" for w in range(WRITERS)]
    env_vars = dict(os.environ)
    env_vars["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(__file__).resolve().parents[1]), env_vars.get("PYTHONPATH")) if p
    )
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                "function-race",
                env.url,
                env.warehouse_uri,
                "ns.f",
                str(w),
                str(COMMITS),
                str(outs[w]),
                str(go),
            ],
            env=env_vars,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for w in range(WRITERS)
    ]
    time.sleep(0.5)
    go.touch()
    try:
        for p in procs:
            output, _ = p.communicate(timeout=300)
            assert p.returncode == 0, output
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    records = [json.loads(line) for out in outs for line in out.read_text().splitlines()]
    assert not [r for r in records if "error" in r], records[:5]
    assert len(records) == WRITERS * COMMITS

    final = functions.load_function("ns.f").metadata
    assert not validate(final)
    bodies = [v.representations[0].sql for v in final.definition("int").versions]  # type: ignore[union-attr]
    expected_bodies = {r["body"] for r in records if r["kind"] == "body"} | {"x + 1"}
    assert sorted(bodies) == sorted(expected_bodies)  # each exactly once
    assert set(final.properties) - set(retry) == {r["key"] for r in records if r["kind"] == "property"}
    assert sorted(d.definition_id for d in final.definitions) == sorted(
        ["int", *(",".join(["int"] * (w + 2)) for w in range(WRITERS))]
    )
    commits = WRITERS * COMMITS
    folder = env.warehouse / "ns" / "functions" / "f" / "metadata"
    listed = metadata_files(folder)
    assert [files.parse_version(name) for name in listed] == list(range(commits + 1))
    # each file holds its predecessor's changes plus one
    previous: set[tuple[str, int]] = set()
    previous_properties: set[str] = set()
    for name in listed:
        metadata = files.read_function_metadata(str(folder / name))
        versions = {(d.definition_id, v.version_id) for d in metadata.definitions for v in d.versions}
        properties = set(metadata.properties)
        if previous:
            assert previous <= versions and previous_properties <= properties, name
            assert len(versions - previous) + len(properties - previous_properties) == 1, name
        previous, previous_properties = versions, properties


def test_a_namespace_drop_racing_a_create_never_orphans_a_function(env: CatalogEnv) -> None:
    """The create checks the namespace and inserts under the namespace's lock (SQLite's write lock,
    PostgreSQL's advisory lock), and so does the drop: a drop that lands between the create's check
    and its insert waits, then finds the function (NamespaceNotEmptyError)."""
    import threading

    from sqlalchemy import event

    creator, dropper = env.catalog(), env.catalog()
    try:
        creator.create_namespace("q")
        outcome: dict[str, object] = {}

        def drop() -> None:
            try:
                outcome["dropped"] = dropper.drop_namespace("q")
            except Exception as e:  # the answer under test
                outcome["dropped"] = e

        threads: list[threading.Thread] = []

        def hook(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            if not threads and statement.lstrip().upper().startswith("INSERT INTO ICEVIEW_FUNCTIONS"):
                threads.append(threading.Thread(target=drop))
                threads[0].start()
                threads[0].join(2)  # the drop waits for the create's lock: it cannot finish now

        event.listen(creator.engine, "before_cursor_execute", hook)
        try:
            creator.create_function("q.g", ADD_ONE)
        finally:
            event.remove(creator.engine, "before_cursor_execute", hook)
        threads[0].join(30)
        assert isinstance(outcome["dropped"], NamespaceNotEmptyError), outcome
        assert creator.namespace_exists("q") and creator.function_exists("q.g")
    finally:
        creator.close()
        dropper.close()
