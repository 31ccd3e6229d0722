"""Derived dialects where iceview is not on the write path: Iceberg-Spark 1.10.2 (``type=jdbc``)
replaces a view natively on the JDBC tables it shares with iceview (PostgreSQL: a live JVM locks a
SQLite file). Java's client-side drop-dialect guard lets the replace through (iceview set
``replace.drop-dialect.allowed``), the new version carries only Spark's SQL (nothing stale), and
``iceview dialects sync`` derives the duckdb SQL from it, which DuckDB runs for the new rows."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from fixtures.java_session import JavaSpark
from fixtures.postgres import PostgresDatabase
from iceview.catalog import load_catalog

pytestmark = pytest.mark.postgres

CATALOG = "ddpg"


def shared_events(spark: JavaSpark, name: str, db: PostgresDatabase, warehouse: Path, values: str) -> None:
    """Iceberg-Spark's JDBC catalog ``name`` on ``db``, with a table ``ns.events(id, kind)``."""
    spark.add_catalog(name, db.jdbc_url, warehouse, user=db.user)
    spark.sql(f"CREATE NAMESPACE {name}.ns")
    spark.sql(f"CREATE TABLE {name}.ns.events (id BIGINT, kind STRING) USING iceberg")
    spark.sql(f"INSERT INTO {name}.ns.events VALUES {values}")


def by_repr(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows in a fixed order (NULLs included)."""
    return sorted(rows, key=repr)


def test_native_spark_replace_then_sync(
    java_spark: JavaSpark, postgres_database: PostgresDatabase, tmp_path: Path
) -> None:
    from iceview.duckdb import DuckDBViews

    db = postgres_database
    warehouse = tmp_path / "warehouse"
    spark = java_spark
    shared_events(spark, CATALOG, db, warehouse, "(1, 'a'), (2, NULL), (3, 'ç'), (4, 'b')")
    view = f"{CATALOG}.ns.recent"
    spark.sql(
        f"CREATE VIEW {view} TBLPROPERTIES ('iceview.derive-dialects' = 'duckdb') AS "
        f"SELECT id, kind FROM {CATALOG}.ns.events WHERE id > 1"
    )

    props = {"type": "sql", "uri": db.url, "warehouse": f"file://{warehouse}"}
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PYICEBERG")},
        **{f"PYICEBERG_CATALOG__{CATALOG.upper()}__{k.upper()}": v for k, v in props.items()},
        "PYICEBERG_DEFAULT_CATALOG": CATALOG,
    }

    def sync() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "iceview.cli", "dialects", "sync", "ns.recent"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    # Java wrote version 1 with Spark's SQL only; sync derives duckdb and lets Java's replaces through
    assert "ns.recent: version 2 derives duckdb (was version 1)" in sync()
    catalog = load_catalog(CATALOG, **props)
    try:
        synced = catalog.load_view("ns.recent")
        assert synced.current_version.dialects == ("spark", "duckdb")
        assert synced.properties["replace.drop-dialect.allowed"] == "true"

        # a native replace: Java's guard passes, and no stale duckdb SQL is carried over
        spark.sql(f"CREATE OR REPLACE VIEW {view} AS SELECT id, kind FROM {CATALOG}.ns.events WHERE id > 2")
        native = catalog.load_view("ns.recent")
        assert native.current_version.version_id == 3
        assert native.current_version.dialects == ("spark",)
        assert native.properties["iceview.derive-dialects"] == "duckdb"

        assert "ns.recent: version 4 derives duckdb (was version 3)" in sync()
        derived = catalog.load_view("ns.recent").current_version
        duckdb_sql = derived.sql_for("duckdb")
        assert duckdb_sql is not None and "> 2" in duckdb_sql.sql
        assert derived.summary["engine-name"].lower() == "spark"  # the SQL's own engine is kept

        expected = [{"id": 3, "kind": "ç"}, {"id": 4, "kind": "b"}]
        assert spark.sql(f"SELECT * FROM {view} ORDER BY id") == expected
        duck = DuckDBViews(catalog, namespace="ns")
        try:
            rows = duck.sql(f"SELECT id, kind FROM {CATALOG}.ns.recent ORDER BY id").fetchall()
        finally:
            duck.close()
        assert rows == [(3, "ç"), (4, "b")]
    finally:
        catalog.close()


def test_a_trino_view_iceberg_java_wrote_reads_in_spark_and_duckdb(
    java_spark: JavaSpark, postgres_database: PostgresDatabase, tmp_path: Path
) -> None:
    """Iceberg Java's own ``buildView(...).withQuery("trino", ...)`` writes a view with Trino SQL
    only (as Trino does); SparkViews and DuckDBViews read it by translating it, by default, with
    the schemas from the catalog, and give Spark's own rows for the same query."""
    from iceview.duckdb import DuckDBViews
    from iceview.spark import SparkViews

    name = "ddtrino"
    db = postgres_database
    warehouse = tmp_path / "warehouse"
    spark = java_spark
    shared_events(spark, name, db, warehouse, "(1, 'a'), (2, NULL), (3, 'Ärger'), (4, 'a'), (5, NULL)")
    jvm = spark.jvm
    schema = jvm.org.apache.iceberg.SchemaParser.fromJson(
        '{"type": "struct", "schema-id": 0, "fields": ['
        '{"id": 1, "name": "kind", "required": false, "type": "string"},'
        '{"id": 2, "name": "n", "required": true, "type": "long"},'
        '{"id": 3, "name": "top", "required": false, "type": "long"}]}'
    )
    trino_sql = 'SELECT kind, count(*) AS n, max(id) AS top FROM "events" WHERE id > 1 GROUP BY kind'
    (
        spark.catalog(name)
        .buildView(spark.identifier("ns.by_kind"))
        .withSchema(schema)
        .withDefaultNamespace(spark.namespace("ns"))
        .withQuery("trino", trino_sql)
        .create()
    )
    expected = by_repr(
        tuple(r.values())
        for r in spark.sql(
            f"SELECT kind, count(*) AS n, max(id) AS top FROM {name}.ns.events WHERE id > 1 GROUP BY kind"
        )
    )
    assert expected == [("a", 1, 4), ("Ärger", 1, 3), (None, 2, 5)]

    catalog = load_catalog(name, type="sql", uri=db.url, warehouse=f"file://{warehouse}")
    try:
        assert catalog.load_view("ns.by_kind").current_version.dialects == ("trino",)
        views = SparkViews(spark.spark, catalog)
        got = by_repr(tuple(r) for r in views.sql(f"SELECT * FROM {name}.ns.by_kind").collect())
        assert got == expected
        with DuckDBViews(catalog, namespace="ns") as duck:
            assert by_repr(duck.execute(f"SELECT * FROM {name}.ns.by_kind")) == expected
    finally:
        catalog.close()
