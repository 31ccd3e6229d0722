"""Fixtures for the PySpark tests: one lakehouse on PostgreSQL shared by Iceberg-Spark and iceview.

* ``lake`` (session): Spark 3.5.9 with Iceberg 1.10.2 (the ``java_spark`` session of the test
  process) and an Iceberg ``JdbcCatalog`` named ``sv`` on a PostgreSQL database; iceview's
  ``SqlCatalog`` named ``sv`` on the same database and warehouse; a ``SparkViews`` over both. It
  holds tables ``sv.db.events``, ``sv.db.types`` (every Spark type) and the TPC-H tables in
  ``sv.tpch``, generated small and deterministic by DuckDB (``tests/sql/tpch_data.py``) and loaded
  through Parquet files (kept in ``lake.parquet_dir`` for the Spark 4 / Connect subprocesses).
* every test starts with the session's current catalog ``spark_catalog.default`` and ends there.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from corpus import CORPUS, CUSTOM, create_statement, normalise

from fixtures.java_session import JavaSpark

if "fixtures.postgres" not in sys.modules:  # the plugin is not registered in tests/conftest.py
    from fixtures.postgres import postgres_server  # noqa: F401 - fixture

CATALOG = "sv"
NS = "tpch"  # the corpus views live in sv.tpch
TPCH_SIZES = {"suppliers": 20, "customers": 150, "parts": 200, "orders": 1500}

EVENTS = [
    ("2024-01-01 10:00:00", 1),
    ("2024-01-01 11:30:00", 2),
    ("2024-01-02 09:15:00", 3),
    ("2024-01-03 00:00:00", 4),
    ("2024-01-03 23:59:59", 5),
]

TYPES_DDL = (
    "CREATE TABLE sv.db.types (id bigint NOT NULL, data string, ts timestamp, ntz timestamp_ntz, "
    "b tinyint, s smallint, i int, f float, d double, c char(3), v varchar(5), dec decimal(10,2), "
    "bin binary, dt date, flag boolean, "
    "st struct<a:int, b:array<struct<x:string,y:map<string,int>>>>, "
    "m map<string, struct<p:int COMMENT 'inner doc'>>, arr array<int> COMMENT 'an array') USING iceberg"
)
TYPES_ROW = (
    "INSERT INTO sv.db.types VALUES (1, 'a', TIMESTAMP '2024-01-01 00:00:00', "
    "TIMESTAMP_NTZ '2024-01-01 00:00:00', 1, 2, 3, 1.5, 2.5, 'abc', 'xy', 1.50, X'01', "
    "DATE '2024-01-01', true, named_struct('a', 1, 'b', array(named_struct('x', 'q', 'y', map('k', 1)))), "
    "map('a', named_struct('p', 1)), array(1, 2))"
)


@dataclass
class Lake:
    java: JavaSpark
    catalog: Any  # iceview SqlCatalog
    views: Any  # iceview.spark.SparkViews
    warehouse: Path
    db_url: str
    jdbc_url: str
    jdbc_user: str
    parquet_dir: Path
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def spark(self) -> Any:
        return self.java.spark

    def native(self, sql: str) -> list[dict[str, Any]]:
        """Rows from Spark itself (Iceberg-Spark resolves the views)."""
        return [r.asDict(recursive=True) for r in self.spark.sql(sql).collect()]

    def ours(self, sql: str) -> list[dict[str, Any]]:
        """Rows through SparkViews.sql (iceview expands the views)."""
        return [r.asDict(recursive=True) for r in self.views.sql(sql).collect()]


def _write_tpch_parquet(out: Path) -> None:
    import duckdb
    from sql.tpch_data import TABLES, create_tpch

    con = duckdb.connect()
    try:
        con.execute("SET threads = 1")
        con.execute("CREATE SCHEMA tpch")
        create_tpch(con, "tpch", **TPCH_SIZES)
        out.mkdir(parents=True, exist_ok=True)
        for table in TABLES:
            con.execute(f"COPY tpch.{table} TO '{out / table}.parquet' (FORMAT PARQUET)")
    finally:
        con.close()


@pytest.fixture(scope="session")
def lake(
    java_spark: JavaSpark, postgres_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Lake]:
    from iceview.catalog.sql import SqlCatalog
    from iceview.spark import SparkViews
    from sql.tpch_data import TABLES

    base = tmp_path_factory.mktemp("spark-lake")
    warehouse = base / "warehouse"
    warehouse.mkdir()
    db = postgres_server.create_database()
    java_spark.add_catalog(CATALOG, db.jdbc_url, warehouse, user=db.user)
    spark = java_spark.spark
    spark.sql("USE spark_catalog.default")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.db")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.tpch")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.other")
    spark.sql(f"CREATE TABLE {CATALOG}.db.events (event_ts timestamp, id bigint) USING iceberg")
    values = ", ".join(f"(TIMESTAMP '{ts}', {i})" for ts, i in EVENTS)
    spark.sql(f"INSERT INTO {CATALOG}.db.events VALUES {values}")
    spark.sql(TYPES_DDL)
    spark.sql(TYPES_ROW)
    parquet_dir = base / "tpch-parquet"
    _write_tpch_parquet(parquet_dir)
    for table in TABLES:
        spark.read.parquet(str(parquet_dir / f"{table}.parquet")).writeTo(f"{CATALOG}.tpch.{table}").using(
            "iceberg"
        ).create()
    catalog = SqlCatalog(CATALOG, uri=db.url, warehouse="file:" + str(warehouse))
    views = SparkViews(spark, catalog)
    lake = Lake(
        java=java_spark,
        catalog=catalog,
        views=views,
        warehouse=warehouse,
        db_url=db.url,
        jdbc_url=db.jdbc_url,
        jdbc_user=db.user,
        parquet_dir=parquet_dir,
    )
    try:
        yield lake
    finally:
        catalog.close()


@pytest.fixture(autouse=True)
def _spark_catalog_default(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests that use the lake start and end in ``spark_catalog.default`` with no virtual USE."""
    if "lake" not in request.fixturenames:
        yield
        return
    lake: Lake = request.getfixturevalue("lake")
    lake.spark.sql("USE spark_catalog.default")
    lake.views._virtual = None
    yield
    lake.spark.sql("USE spark_catalog.default")
    lake.views._virtual = None


class CorpusRun:
    def __init__(self) -> None:
        self.ours: dict[str, list[Any]] = {}
        self.native: dict[str, list[Any]] = {}
        self.twin: dict[str, list[Any]] = {}
        self.columns: dict[str, list[str]] = {}
        self.errors: dict[str, str] = {}
        self.seconds: dict[str, float] = {}


@pytest.fixture(scope="session")
def corpus_run(lake: Lake) -> Iterator[CorpusRun]:
    run = CorpusRun()
    spark, views = lake.spark, lake.views
    spark.sql(f"USE {CATALOG}.{NS}")
    started = time.monotonic()
    custom = {name for name, _, _ in CUSTOM}
    for name, columns, query in CORPUS:
        try:
            views.sql(create_statement(name, columns, query, CATALOG))
            if name in custom:
                spark.sql(create_statement(f"{name}_j", columns, query, CATALOG))
        except Exception as e:
            run.errors[name] = f"create: {type(e).__name__}: {e}"
    run.seconds["create"] = time.monotonic() - started
    for name, _, _ in CORPUS:
        if name in run.errors:
            continue
        try:
            t0 = time.monotonic()
            df = views.sql(f"SELECT * FROM {name}")
            rows = df.collect()
            t1 = time.monotonic()
            run.ours[name] = normalise(rows)
            run.columns[name] = list(df.columns)
            run.native[name] = normalise(spark.sql(f"SELECT * FROM {name}").collect())
            t2 = time.monotonic()
            if name in custom:
                run.twin[name] = normalise(views.sql(f"SELECT * FROM {name}_j").collect())
            run.seconds[name] = t1 - t0
            run.seconds[name + " (native)"] = t2 - t1
        except Exception as e:
            run.errors[name] = f"read: {type(e).__name__}: {e}"
    spark.sql("USE spark_catalog.default")
    yield run


@pytest.fixture(scope="session")
def corpus_expected(corpus_run: CorpusRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The classic rows as JSON, for the Spark 4 / Connect runners."""
    path = tmp_path_factory.mktemp("corpus") / "expected.json"
    data = {
        name: {"columns": corpus_run.columns[name], "rows": rows} for name, rows in corpus_run.native.items()
    }
    path.write_text(json.dumps(data))
    return path
