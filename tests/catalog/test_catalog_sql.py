"""The SQL catalog's layout, statements, namespaces, identifiers and file naming."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from catalog_support import CATALOG_NAME, SCHEMA, CatalogEnv, file_path, metadata_files

from iceview.catalog.sql import SqlCatalog
from iceview.catalog.sql_functions import CREATE_FUNCTIONS_TABLE_SQL
from iceview.errors import (
    CatalogError,
    InvalidArgumentError,
    InvalidIdentifierError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    UnsupportedOperationError,
)

GOLDEN_DDL = [
    "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL,metadata_location VARCHAR(1000),previous_metadata_location VARCHAR(1000),"
    " iceberg_type VARCHAR(5),PRIMARY KEY (catalog_name, table_namespace, table_name))",
    "CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL,namespace VARCHAR(255) NOT NULL,"
    "property_key VARCHAR(255),property_value VARCHAR(1000),PRIMARY KEY (catalog_name, namespace, property_key))",
]
V0_DDL = (
    "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL,metadata_location VARCHAR(1000),previous_metadata_location VARCHAR(1000),"
    "PRIMARY KEY (catalog_name, table_namespace, table_name))"
)
VIEW_WARNING = (
    "JDBC catalog is initialized without view support. To auto-migrate the database's schema and enable view "
    "support, set jdbc.schema-version=V1"
)


def create(catalog: SqlCatalog, ident: Any = "ns.v", **kw: Any) -> Any:
    kw.setdefault("schema", SCHEMA)
    kw.setdefault("queries", {"spark": "SELECT 1"})
    kw.setdefault("default_namespace", ("ns",))
    return catalog.create_view(ident, **kw)


def rows(env: CatalogEnv, sql: str) -> list[tuple[Any, ...]]:
    engine = sa.create_engine(env.url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


# ----------------------------------------------------------------------------- layout


def test_fresh_sqlite_database_gets_javas_exact_ddl(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    SqlCatalog("c", uri=f"sqlite:///{db}", warehouse=f"file://{tmp_path}").close()
    ddl = [r[0] for r in sqlite3.connect(db).execute("SELECT sql FROM sqlite_master WHERE type = 'table'")]
    # what Iceberg Java 1.10.2 leaves in a SQLite catalog with jdbc.schema-version=V1 (golden file),
    # and iceview's own table of SQL UDFs beside it (Java never reads it)
    assert [d for d in ddl if "iceview_functions" not in d] == GOLDEN_DDL
    assert [d for d in ddl if "iceview_functions" in d] == [CREATE_FUNCTIONS_TABLE_SQL]


@pytest.mark.postgres
def test_fresh_postgres_database_layout(postgres_url: str, tmp_path: Path) -> None:
    SqlCatalog("c", uri=postgres_url, warehouse=f"file://{tmp_path}").close()
    env = CatalogEnv("postgres", postgres_url, tmp_path)
    columns = rows(
        env,
        "SELECT table_name, column_name, data_type, character_maximum_length, is_nullable "
        "FROM information_schema.columns WHERE table_name LIKE 'iceberg%' ORDER BY table_name, ordinal_position",
    )
    assert columns == [
        ("iceberg_namespace_properties", "catalog_name", "character varying", 255, "NO"),
        ("iceberg_namespace_properties", "namespace", "character varying", 255, "NO"),
        ("iceberg_namespace_properties", "property_key", "character varying", 255, "NO"),  # part of the PK
        ("iceberg_namespace_properties", "property_value", "character varying", 1000, "YES"),
        ("iceberg_tables", "catalog_name", "character varying", 255, "NO"),
        ("iceberg_tables", "table_namespace", "character varying", 255, "NO"),
        ("iceberg_tables", "table_name", "character varying", 255, "NO"),
        ("iceberg_tables", "metadata_location", "character varying", 1000, "YES"),
        ("iceberg_tables", "previous_metadata_location", "character varying", 1000, "YES"),
        ("iceberg_tables", "iceberg_type", "character varying", 5, "YES"),
    ]
    pk = rows(
        env,
        "SELECT kcu.table_name, kcu.column_name FROM information_schema.table_constraints tc "
        "JOIN information_schema.key_column_usage kcu ON tc.constraint_name = kcu.constraint_name "
        "WHERE tc.constraint_type = 'PRIMARY KEY' AND kcu.table_name LIKE 'iceberg%' "
        "ORDER BY kcu.table_name, kcu.ordinal_position",
    )
    assert pk == [
        ("iceberg_namespace_properties", "catalog_name"),
        ("iceberg_namespace_properties", "namespace"),
        ("iceberg_namespace_properties", "property_key"),
        ("iceberg_tables", "catalog_name"),
        ("iceberg_tables", "table_namespace"),
        ("iceberg_tables", "table_name"),
    ]


@pytest.fixture
def v0_env(env: CatalogEnv) -> CatalogEnv:
    """A V0 database, as Java's JdbcCatalog makes it without jdbc.schema-version=V1, with a table row."""
    engine = sa.create_engine(env.url)
    with engine.begin() as conn:
        conn.exec_driver_sql(V0_DDL)
        conn.exec_driver_sql(GOLDEN_DDL[1])
        conn.exec_driver_sql(
            "INSERT INTO iceberg_tables VALUES ('testCatalog', 'ns', 't', 'file:/wh/ns/t/metadata/00000-x.metadata.json', "
            "NULL)"
        )
        conn.exec_driver_sql(
            "INSERT INTO iceberg_namespace_properties VALUES ('testCatalog', 'ns', 'exists', 'true')"
        )
    engine.dispose()
    return env


def test_v0_database_has_no_views_unless_upgraded(v0_env: CatalogEnv) -> None:
    catalog = v0_env.catalog()
    assert catalog.schema_version == "V0"
    assert catalog.list_tables("ns") == [("ns", "t")]
    for call in (
        lambda: create(catalog),
        lambda: catalog.load_view("ns.v"),
        lambda: catalog.list_views("ns"),
        lambda: catalog.drop_view("ns.v"),
        lambda: catalog.rename_view("ns.v", "ns.w"),
        lambda: catalog.view_exists("ns.v"),
    ):
        with pytest.raises(UnsupportedOperationError) as info:
            call()
        assert str(info.value) == VIEW_WARNING
    with pytest.raises(NamespaceNotEmptyError, match=r"Contains 1 table\(s\)"):
        catalog.drop_namespace("ns")
    catalog.close()


@pytest.mark.parametrize(
    "prop", [{"jdbc.schema-version": "V1"}, {"jdbc.schema-version": "v1"}, {"schema_version": "v1"}]
)
def test_v0_database_is_upgraded_on_request(v0_env: CatalogEnv, prop: dict[str, str]) -> None:
    catalog = v0_env.catalog(**prop)
    assert catalog.schema_version == "V1"
    create(catalog)
    assert catalog.list_views("ns") == [("ns", "v")]
    assert catalog.list_tables("ns") == [("ns", "t")]
    # the table row is untouched (its type stays NULL, which means TABLE)
    assert rows(v0_env, "SELECT table_name, iceberg_type FROM iceberg_tables ORDER BY table_name") == [
        ("t", None),
        ("v", "VIEW"),
    ]
    catalog.close()
    # and it stays V1 without the property
    again = v0_env.catalog()
    assert again.schema_version == "V1"
    again.close()


def test_rows_written_as_java_does(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns", {"owner": "me"})
    view = create(catalog)
    first = view.metadata_location
    view.update_properties().set("a", "b").commit()
    second = view.metadata_location
    assert rows(env, "SELECT * FROM iceberg_tables") == [(CATALOG_NAME, "ns", "v", second, first, "VIEW")]
    assert sorted(rows(env, "SELECT * FROM iceberg_namespace_properties")) == [
        (CATALOG_NAME, "ns", "exists", "true"),
        (CATALOG_NAME, "ns", "owner", "me"),
    ]


def _java_text(statement: str) -> re.Pattern[str]:
    """A JdbcUtil text as SQLite runs it: each ``?`` bound to a quoted string or NULL."""
    return re.compile(re.escape(statement).replace(r"\?", "(?:'(?:[^']|'')*'|NULL)"))


def test_statements_are_javas(tmp_path: Path) -> None:
    """On SQLite (qmark placeholders) the statements sent are Java's JdbcUtil texts exactly, as
    SQLite runs them (its trace gives each with its values bound), whether through SQLAlchemy or
    the pointer read on the pool's own connection (``sql_db.first_row``)."""
    catalog = SqlCatalog(CATALOG_NAME, uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}")
    catalog.create_namespace("ns")
    view = create(catalog)
    traced: list[str] = []
    catalog.engine.dispose()  # every connection from here on is traced

    @sa.event.listens_for(catalog.engine, "connect")
    def trace(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.set_trace_callback(traced.append)

    def sent() -> list[str]:
        return [s for s in traced if s.split(" ", 1)[0] in ("SELECT", "UPDATE", "INSERT", "DELETE")]

    def matches(texts: list[str], *statements: str) -> bool:
        return len(texts) == len(statements) and all(
            _java_text(st).fullmatch(t) for st, t in zip(statements, texts, strict=True)
        )

    view.update_properties().set("a", "b").commit()
    get = (
        "SELECT * FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? "
        "AND iceberg_type = 'VIEW'"
    )
    update = (
        "UPDATE iceberg_tables SET metadata_location = ? , previous_metadata_location = ? WHERE catalog_name = ? "
        "AND table_namespace = ? AND table_name = ? AND metadata_location = ? AND iceberg_type = 'VIEW'"
    )
    assert matches(sent(), get, get, update), sent()
    traced.clear()
    catalog.rename_view("ns.v", "ns.w")
    assert matches(
        sent()[-1:],
        "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE catalog_name = ? AND "
        "table_namespace = ? AND table_name = ? AND iceberg_type = 'VIEW'",
    ), sent()
    traced.clear()
    catalog.drop_view("ns.w")
    assert matches(
        sent()[-1:],
        # Java's statement, deleting the row only while it holds the pointer the drop read
        "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace  = ? AND table_name = ? AND "
        "iceberg_type = 'VIEW' AND metadata_location = ?",
    ), sent()
    traced.clear()
    create(catalog)
    assert matches(
        sent()[-1:],
        "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
        "previous_metadata_location, iceberg_type)  VALUES (?,?,?,?,null,?)",
    ), sent()
    table_get = (
        "SELECT * FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND "
        "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)"
    )
    assert any(_java_text(table_get).fullmatch(t) for t in sent()), sent()
    catalog.close()


def test_catalog_name_separates_catalogs(env: CatalogEnv) -> None:
    one = env.catalog("one")
    two = env.catalog("two")
    one.create_namespace("ns")
    create(one)
    assert not two.view_exists("ns.v")
    assert not two.namespace_exists("ns")
    two.create_namespace("ns")
    create(two, queries={"spark": "SELECT 2"})
    assert one.load_view("ns.v").sql_for("spark").sql == "SELECT 1"  # type: ignore[union-attr]
    assert two.load_view("ns.v").sql_for("spark").sql == "SELECT 2"  # type: ignore[union-attr]
    one.close()
    two.close()


# ----------------------------------------------------------------------------- names and parameters


@pytest.mark.parametrize(
    "namespace, name",
    [
        (("it's",), "quo'te\"d"),
        (("100%",), "a%b"),
        (("a_b",), "x_y"),
        (("ünï",), "vïéw 😀"),
        (("sp ace", "semi;colon"), "drop table iceberg_tables; --"),
        (("back\\slash",), "!bang!"),
    ],
)
def test_names_and_properties_are_parameters(
    catalog: SqlCatalog, namespace: tuple[str, ...], name: str
) -> None:
    catalog.create_namespace(namespace, {"k'%_": "v'%_ünï"})
    assert catalog.namespace_exists(namespace)
    view = create(
        catalog,
        (*namespace, name),
        properties={"quote'd %key_": "val'ue %_ 😀"},
        default_namespace=namespace,
    )
    loaded = catalog.load_view((*namespace, name))
    assert loaded.properties["quote'd %key_"] == "val'ue %_ 😀"
    assert catalog.list_views(namespace) == [(*namespace, name)]
    assert catalog.load_namespace_properties(namespace)["k'%_"] == "v'%_ünï"
    view.update_properties().set("x'", "y%").commit()
    catalog.rename_view((*namespace, name), (*namespace, name + "2"))
    assert catalog.list_views(namespace) == [(*namespace, name + "2")]
    assert catalog.drop_view((*namespace, name + "2"))
    assert catalog.list_views(namespace) == []


def test_like_wildcards_do_not_match_other_namespaces(catalog: SqlCatalog) -> None:
    catalog.create_namespace(("aXb", "child"))
    # '_' and '%' are escaped: "a_b" does not match "aXb", "a%" does not match "aXb"
    assert not catalog.namespace_exists("a_b")
    assert not catalog.namespace_exists("a%")
    with pytest.raises(NoSuchNamespaceError):
        catalog.list_namespaces("a_b")
    catalog.create_namespace("a_b")
    assert catalog.list_namespaces("a_b") == []
    assert catalog.list_namespaces("aXb") == [("aXb", "child")]
    # SQLite's LIKE is case-insensitive by default; namespaces are not
    assert not catalog.namespace_exists("AXB")


@pytest.mark.parametrize(
    "ident",
    [
        "",
        "ns.",
        ("ns", ""),
        ("",),
        (),
        "../escape",
        ("ns", ".."),
        ("..", "v"),
        ("ns", "a/b"),
        ("a/b", "v"),
        ("ns", "nul\x00"),
        ("a.b", "v"),
        ".v",
    ],
)
def test_bad_identifiers_are_refused(catalog: SqlCatalog, ident: Any) -> None:
    with pytest.raises(InvalidIdentifierError):
        create(catalog, ident)
    with pytest.raises(InvalidIdentifierError):
        catalog.load_view(ident)


def test_bad_namespaces_are_refused(catalog: SqlCatalog) -> None:
    for ns in ("..", ("a", ".."), "a/b", ("x\x00",), ("a.b",)):
        with pytest.raises(InvalidIdentifierError):
            catalog.create_namespace(ns)
    with pytest.raises(InvalidArgumentError):
        catalog.create_namespace(())


# ----------------------------------------------------------------------------- namespaces


def test_namespaces(catalog: SqlCatalog, env: CatalogEnv) -> None:
    assert catalog.list_namespaces() == []
    catalog.create_namespace("a", {"owner": "x"})
    catalog.create_namespace(("a", "b"))
    catalog.create_namespace(("a", "b", "c"))
    catalog.create_namespace("z")
    with pytest.raises(NamespaceAlreadyExistsError, match=r"^Namespace already exists: a\.b$"):
        catalog.create_namespace("a.b")
    assert catalog.list_namespaces() == [("a",), ("z",)]
    assert catalog.list_namespaces("a") == [("a", "b")]
    assert catalog.list_namespaces(("a", "b")) == [("a", "b", "c")]
    assert catalog.list_namespaces("a.b.c") == []
    with pytest.raises(NoSuchNamespaceError, match=r"^Namespace does not exist: nope$"):
        catalog.list_namespaces("nope")
    with pytest.raises(NoSuchNamespaceError, match=r"^Namespace does not exist: nope$"):
        catalog.list_views("nope")
    with pytest.raises(NoSuchNamespaceError, match=r"^Namespace does not exist: nope$"):
        catalog.load_namespace_properties("nope")
    assert catalog.load_namespace_properties("a") == {"owner": "x", "location": env.warehouse_uri + "/a"}
    summary = catalog.update_namespace_properties("a", removals=["owner", "missing"], updates={"k": "v"})
    assert (summary.removed, summary.updated, summary.missing) == (["owner"], ["k"], ["missing"])
    catalog.update_namespace_properties("a", updates={"k": "v2", "location": "file:///elsewhere"})
    assert catalog.load_namespace_properties("a") == {"k": "v2", "location": "file:///elsewhere"}
    with pytest.raises(InvalidArgumentError, match=r"^Cannot set reserved property: exists$"):
        catalog.update_namespace_properties("a", updates={"exists": "false"})
    with pytest.raises(
        NamespaceNotEmptyError, match=r"^Namespace a is not empty\. Contains 1 child namespace\(s\)\.$"
    ):
        catalog.drop_namespace("a")
    # a namespace that exists only through a view (as Java allows in non-strict mode) is listed
    create(catalog, ("implicit", "v"))
    assert ("implicit",) in catalog.list_namespaces()
    assert catalog.drop_namespace(("a", "b", "c"))
    assert catalog.drop_namespace(("a", "b"))
    assert catalog.drop_namespace("a")
    assert catalog.list_namespaces() == [("implicit",), ("z",)]


def test_strict_mode_needs_the_namespace(env: CatalogEnv) -> None:
    catalog = env.catalog(**{"jdbc.strict-mode": "true"})
    with pytest.raises(
        NoSuchNamespaceError,
        match=r"^Cannot create view ns\.v in catalog testCatalog\. Namespace ns does not exist$",
    ):
        create(catalog)
    assert metadata_files(env.warehouse / "ns" / "v" / "metadata") == []  # the orphan was deleted
    catalog.create_namespace("ns")
    create(catalog)
    catalog.close()


# ----------------------------------------------------------------------------- files


def test_file_names_locations_and_codec(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace(("a", "b"))
    view = create(catalog, ("a", "b", "v"), default_namespace=("a", "b"))
    assert view.location == env.warehouse_uri + "/a/b/v"
    loc = str(view.metadata_location)
    assert loc.startswith(env.warehouse_uri + "/a/b/v/metadata/00000-") and loc.endswith(".gz.metadata.json")
    with open(file_path(loc), "rb") as f:
        assert f.read(2) == b"\x1f\x8b"  # gzip
    view.update_properties().set("write.metadata.compression-codec", "none").commit()
    loc = str(view.metadata_location)
    assert "/00001-" in loc and loc.endswith(".metadata.json") and not loc.endswith(".gz.metadata.json")
    with open(file_path(loc), "rb") as f:
        assert f.read(1) == b"{"
    view.update_properties().set("write.metadata.compression-codec", "GZIP").commit()
    assert str(view.metadata_location).endswith("/00002-" + str(view.metadata_location).split("/00002-")[1])
    assert str(view.metadata_location).endswith(".gz.metadata.json")
    with pytest.raises(InvalidArgumentError, match=r"^Invalid codec name: zstd$"):
        view.update_properties().set("write.metadata.compression-codec", "zstd").commit()
    assert len(metadata_files(env.warehouse / "a" / "b" / "v" / "metadata")) == 3


def test_unique_table_location(env: CatalogEnv) -> None:
    catalog = env.catalog(**{"unique-table-location": "true"})
    catalog.create_namespace("ns")
    view = create(catalog)
    assert (
        view.location.startswith(env.warehouse_uri + "/ns/v-") and len(view.location.rsplit("-", 1)[1]) == 32
    )
    catalog.close()


def test_retention_through_the_catalog(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create(catalog)
    for i in range(2, 13):
        view.replace_version(schema=SCHEMA, queries={"spark": f"SELECT {i}"}, default_namespace="ns")
    versions = catalog.load_view("ns.v").versions
    assert [v.version_id for v in versions] == [12, 11, 10, 9, 8, 7, 6, 5, 4, 3]


def test_rollback_to_any_retained_version(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create(catalog)
    view.replace_version(schema=SCHEMA, queries={"spark": "SELECT 2"}, default_namespace="ns")
    view.replace_version(schema=SCHEMA, queries={"spark": "SELECT 3"}, default_namespace="ns")
    view.set_current_version(1)
    loaded = catalog.load_view("ns.v")
    assert loaded.current_version.version_id == 1
    assert [e.version_id for e in loaded.history] == [1, 2, 3, 1]
    assert loaded.sql_for("spark").sql == "SELECT 1"  # type: ignore[union-attr]
    with pytest.raises(InvalidArgumentError, match=r"^Cannot set current version to unknown version: 9$"):
        loaded.set_current_version(9)
    # rolling back to the current version changes nothing but still commits a file (as Java)
    loaded.set_current_version(1)
    assert [e.version_id for e in catalog.load_view("ns.v").history] == [1, 2, 3, 1]


def test_readers_see_one_version_until_refresh(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    create(catalog)
    reader = catalog.load_view("ns.v")
    writer = catalog.load_view("ns.v")
    writer.replace_version(schema=SCHEMA, queries={"spark": "SELECT 2"}, default_namespace="ns")
    assert reader.sql_for("spark").sql == "SELECT 1"  # type: ignore[union-attr]
    assert reader.refresh().sql_for("spark").sql == "SELECT 2"  # type: ignore[union-attr]


@pytest.fixture
def many_catalogs(env: CatalogEnv) -> Iterator[list[SqlCatalog]]:
    cats = [env.catalog() for _ in range(2)]
    yield cats
    for c in cats:
        c.close()


def test_two_catalog_instances_create_the_same_tables(many_catalogs: list[SqlCatalog]) -> None:
    a, b = many_catalogs
    a.create_namespace("ns")
    create(a)
    assert b.load_view("ns.v").metadata == a.load_view("ns.v").metadata


def test_exists_is_a_row_check(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create(catalog)
    os.remove(file_path(str(view.metadata_location)))
    assert catalog.view_exists("ns.v")  # Java's viewExists would load (and fail on) the file


@pytest.mark.postgres
def test_reads_on_postgres_open_no_transaction(postgres_url: str, tmp_path: Path) -> None:
    """A view's pointer read (and the other one-statement reads) run in autocommit on PostgreSQL:
    one round trip, not ``BEGIN``, the ``SELECT`` and ``ROLLBACK``; a commit stays a transaction."""
    catalog = SqlCatalog(
        "c", uri=postgres_url, warehouse=f"file://{tmp_path}", **{"jdbc.schema-version": "V1"}
    )
    try:
        catalog.create_namespace("ns")
        view = catalog.create_view(
            "ns.v", schema=SCHEMA, queries={"spark": "SELECT 1 AS id"}, default_namespace=("ns",)
        )
        seen: list[tuple[str, bool]] = []

        @sa.event.listens_for(catalog.engine, "before_cursor_execute")
        def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            seen.append((statement.split()[0], bool(conn.connection.dbapi_connection.autocommit)))

        view.refresh()
        assert catalog.view_exists("ns.v") and catalog.namespace_exists("ns")
        assert not catalog.table_exists("ns.v")
        assert catalog.list_views("ns") == [("ns", "v")]
        reads = list(seen)
        assert reads and all(verb == "SELECT" and auto for verb, auto in reads), reads
        seen.clear()
        view.update_properties().set("k", "v").commit()
        assert ("UPDATE", False) in seen  # the compare-and-swap runs in a transaction
    finally:
        catalog.close()


def test_a_failed_pointer_read_is_a_catalog_error_and_the_next_read_works(tmp_path: Path) -> None:
    """The pointer read on the pool's own SQLite connection (``sql_db.first_row``) reports a
    database error as every other read does (the connection it failed on leaves the pool), and the
    next read, once the table is back, succeeds."""
    database = tmp_path / "c.db"
    catalog = SqlCatalog(CATALOG_NAME, uri=f"sqlite:///{database}", warehouse=f"file://{tmp_path}")
    catalog.create_namespace("ns")
    create(catalog)
    with sqlite3.connect(database) as conn:
        conn.execute("ALTER TABLE iceberg_tables RENAME TO moved_away")
    with pytest.raises(CatalogError) as raised:
        catalog.load_view("ns.v")
    assert str(raised.value) == (
        f"Failed to get view ns.v from catalog {CATALOG_NAME}: OperationalError: no such table: iceberg_tables"
    )
    assert isinstance(raised.value.__cause__, sa.exc.OperationalError)
    with sqlite3.connect(database) as conn:
        conn.execute("ALTER TABLE moved_away RENAME TO iceberg_tables")
    assert catalog.load_view("ns.v").metadata.current_version_id == 1
    catalog.close()


def test_a_commit_landing_inside_a_drop_is_dropped_with_its_file(
    many_catalogs: list[SqlCatalog], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replace that lands after the drop read the view and before its ``DELETE``: the delete
    (only while the row holds what was read) misses, the drop reads again and deletes the row and
    the file the view then pointed at; before, the replace's file was left behind."""
    dropper, writer = many_catalogs
    dropper.create_namespace("ns")
    first = create(dropper).metadata_location
    assert first is not None
    landed: list[str] = []
    read_view = SqlCatalog._last_metadata_for_drop

    def then_a_commit(self: SqlCatalog, ops: Any) -> Any:
        last = read_view(self, ops)
        if not landed:
            replaced = writer.load_view("ns.v").replace_version(
                schema=SCHEMA, queries={"spark": "SELECT 2 AS id, 'b' AS data"}, default_namespace=("ns",)
            )
            landed.append(str(replaced.metadata_location))
        return last

    monkeypatch.setattr(SqlCatalog, "_last_metadata_for_drop", then_a_commit)
    assert dropper.drop_view("ns.v")
    assert not writer.view_exists("ns.v")
    assert not Path(file_path(landed[0])).exists()  # gc.enabled: the file the view pointed at
    assert Path(file_path(first)).exists()  # an older version's file, as Java leaves it
