"""The ``iceview`` command on a Hive Metastore catalog (``type=hive``) on the session's metastore.

Two catalogs on the same metastore, configured as users configure PyIceberg's: ``hms`` in
``.pyiceberg.yaml`` (the default catalog) and ``hmsenv`` by ``PYICEBERG_CATALOG__HMSENV__*``
variables. A database of the test's own holds a table PyIceberg's ``HiveCatalog`` wrote and views
iceview's ``HiveCatalog`` wrote; every command runs in this process (click's runner) and what the
writing ones change is checked in the metastore (raw Thrift) and through the catalog.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from cli_support import base_env, invoke, parse_json
from click.testing import Result
from pyiceberg.schema import Schema
from pyiceberg.types import DecimalType, IntegerType, LongType, NestedField, StringType

import iceview
from fixtures.hms_server import HmsServer

pytestmark = pytest.mark.hive

ITEMS = Schema(
    NestedField(1, "id", IntegerType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "amount", DecimalType(10, 2), required=False),
)
ROWS = [
    (1, "Zoë", Decimal("12.50")),
    (2, None, Decimal("-0.01")),
    (3, "東京", None),
    (4, "Zoë", Decimal("1.00")),
]
BY_NAME = Schema(
    NestedField(1, "name", StringType(), required=False),
    NestedField(2, "n", LongType(), required=True),
)
SQL_1 = "SELECT name, count(*) AS n FROM items GROUP BY name"
SQL_2 = "SELECT name, count(*) AS n FROM items WHERE amount IS NOT NULL GROUP BY name"
# the session's metastore expires a lock after 15 s without a heartbeat (tests/catalog/catalog_support.py)
HEARTBEAT = "iceberg.hive.lock-heartbeat-interval-ms"


@pytest.fixture
def lake(hive_metastore: HmsServer, tmp_path: Path) -> Iterator[tuple[dict[str, str], str, Any]]:
    """(the CLI's environment, a fresh database, iceview's catalog ``hms`` on it); the database holds
    table ``items`` (:data:`ROWS`) and view ``by_name`` with versions 1 (:data:`SQL_1`) and 2
    (:data:`SQL_2`, current)."""
    import pyarrow as pa

    warehouse = f"file://{tmp_path}/warehouse"
    env = base_env(tmp_path)
    for key in [k for k in env if k.startswith("PYICEBERG_CATALOG__") or k == "PYICEBERG_DEFAULT_CATALOG"]:
        del env[key]
    (Path(env["PYICEBERG_HOME"]) / ".pyiceberg.yaml").write_text(
        "default-catalog: hms\n"
        "catalog:\n"
        "  hms:\n"
        "    type: hive\n"
        f"    uri: {hive_metastore.uri}\n"
        f"    warehouse: {warehouse}\n"
        f"    {HEARTBEAT}: '4000'\n",
        encoding="utf-8",
    )
    env.update(
        {
            "PYICEBERG_CATALOG__HMSENV__TYPE": "hive",
            "PYICEBERG_CATALOG__HMSENV__URI": hive_metastore.uri,
            "PYICEBERG_CATALOG__HMSENV__WAREHOUSE": warehouse,
        }
    )
    db = "cli_" + uuid.uuid4().hex[:8]
    catalog = iceview.load_catalog(
        "hms", type="hive", uri=hive_metastore.uri, warehouse=warehouse, **{HEARTBEAT: "4000"}
    )
    catalog.create_namespace(db)
    table = catalog.table_catalog().create_table((db, "items"), ITEMS)
    table.append(
        pa.Table.from_pylist(
            [dict(zip(("id", "name", "amount"), r, strict=True)) for r in ROWS], table.schema().as_arrow()
        )
    )
    view = catalog.create_view(
        (db, "by_name"),
        schema=BY_NAME,
        queries={"spark": SQL_1},
        default_namespace=(db,),
        properties={"comment": "rows per name"},
        summary={"engine-name": "Spark", "engine-version": "3.5.9"},
    )
    view.replace_version(schema=BY_NAME, queries={"spark": SQL_2}, default_namespace=(db,))
    try:
        yield env, db, catalog
    finally:
        catalog.close()
        with hive_metastore.client() as client:
            client.drop_database(db, False, True)


def ok(result: Result) -> Result:
    assert result.exit_code == 0, f"exit {result.exit_code}: {result.stdout}{result.stderr}"
    return result


def entry(metastore: HmsServer, db: str, name: str) -> Any:
    """The metastore's entry of ``db.name``, or None."""
    from hive_metastore.ttypes import NoSuchObjectException

    with metastore.client() as client:
        try:
            return client.get_table(db, name)
        except NoSuchObjectException:
            return None


def test_cli_reads_and_writes_hive_views(
    lake: tuple[dict[str, str], str, Any], hive_metastore: HmsServer
) -> None:
    env, db, catalog = lake
    view = f"{db}.by_name"

    def run(*args: str) -> Result:
        return invoke(env, *args)

    # catalogs: both configured ways, as hive
    listed = parse_json(ok(run("catalogs", "-o", "json")).stdout)["catalogs"]
    assert {(c["name"], c["type"], c["uri"]) for c in listed} == {
        ("hms", "hive", hive_metastore.uri),
        ("hmsenv", "hive", hive_metastore.uri),
    }
    # reading: namespaces, list, tables, show, history, diff, lint (through either catalog)
    assert db in ok(run("namespaces")).stdout.splitlines()
    assert ok(run("list", db)).stdout.splitlines() == [view]
    assert ok(run("-c", "hmsenv", "list", db)).stdout.splitlines() == [view]
    assert ok(run("tables", db)).stdout.splitlines() == [f"{db}.items"]
    shown = parse_json(ok(run("show", view, "-o", "json")).stdout)
    assert shown["current-version-id"] == 2
    assert shown["metadata-file"] == entry(hive_metastore, db, "by_name").parameters["metadata_location"]
    assert [r["sql"] for r in shown["current-version"]["representations"]] == [SQL_2]
    text = ok(run("show", view))
    # no warning: the view's location is file:/... (as Hive stores its databases'), its warehouse file:///...
    assert SQL_2 in text.stdout and text.stderr == ""
    history = parse_json(ok(run("history", view, "-o", "json")).stdout)
    assert [p["version-id"] for p in history["history"]] == [1, 2]
    assert "amount IS NOT NULL" in ok(run("diff", view, "1", "2")).stdout
    linted = parse_json(ok(run("lint", view, "-o", "json")).stdout)
    assert (linted["checked"], linted["problems"]) == (1, 0)
    assert f"FROM hms.{db}.items" in ok(run("translate", view, "--to", "trino")).stdout

    # rollback (through the catalog configured by variables): the metastore's pointer moves to a new
    # file whose current version is 1
    rolled = parse_json(ok(run("-c", "hmsenv", "rollback", view, "--to", "1", "-o", "json")).stdout)
    assert (rolled["previous-version-id"], rolled["current-version-id"]) == (2, 1)
    params = entry(hive_metastore, db, "by_name").parameters
    assert params["metadata_location"] == rolled["metadata-file"]
    assert params["previous_metadata_location"] == shown["metadata-file"]
    assert [
        p["version-id"] for p in parse_json(ok(run("history", view, "-o", "json")).stdout)["history"]
    ] == [1, 2, 1]

    # add-dialect: Trino and DuckDB SQL translated from Spark's (the table's schema read through
    # PyIceberg's HiveCatalog), one new version; the translations name the table with the catalog's
    # name, so DuckDB below reads it through the same catalog
    added = parse_json(ok(run("add-dialect", view, "trino", "duckdb", "-o", "json")).stdout)
    assert added["added"] == ["trino", "duckdb"] and added["version-id"] == 3
    loaded = catalog.load_view((db, "by_name"))
    assert loaded.metadata.current_version.dialects == ("spark", "trino", "duckdb")
    assert entry(hive_metastore, db, "by_name").parameters["metadata_location"] == loaded.metadata_location

    # a query over the view and the table, with DuckDB reading the table through PyIceberg
    rows = parse_json(ok(run("sql", f"SELECT * FROM {db}.by_name ORDER BY name", "-o", "json")).stdout)
    # version 1: every row, by name (DuckDB puts NULL last)
    assert rows == [{"name": "Zoë", "n": 2}, {"name": "東京", "n": 1}, {"name": None, "n": 1}]

    # properties, rename, orphans, drop: each in the metastore
    ok(run("set-property", view, "owner", "data-eng"))
    assert entry(hive_metastore, db, "by_name").parameters["owner"] == "data-eng"
    ok(run("unset-property", view, "owner"))
    assert "owner" not in entry(hive_metastore, db, "by_name").parameters
    ok(run("rename", view, "per_name"))
    assert entry(hive_metastore, db, "by_name") is None
    assert entry(hive_metastore, db, "per_name").parameters["table_type"] == "ICEBERG-VIEW"
    orphans = parse_json(ok(run("orphans", f"{db}.per_name", "-o", "json")).stdout)
    assert orphans["view"] == f"{db}.per_name" and len(orphans["orphans"]) >= 1
    assert parse_json(ok(run("drop", f"{db}.per_name", "--yes", "-o", "json")).stdout)["dropped"] is True
    assert entry(hive_metastore, db, "per_name") is None
    with hive_metastore.client() as client:
        assert client.get_all_tables(db) == ["items"]
    assert ok(run("list", db)).stdout == ""
