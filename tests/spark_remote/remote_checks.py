"""SparkViews on Spark 4 without Iceberg's jars: classic and Spark Connect (``remote("local")``).

Not collected by the main test run (the name does not start with ``test_``):
``tests/spark/test_spark_remote.py`` runs it with ``.venv-spark4/bin/python -m pytest`` once per
mode, in its own process (Spark allows one session per process, and pyspark 4 is another venv).
Each mode makes every corpus view and reads every other one (:data:`READ_HERE`).

Environment: ``ICEVIEW_REMOTE_MODE`` (``classic`` or ``connect``), ``ICEVIEW_REMOTE_PARQUET`` (the
TPC-H Parquet files of the main run), ``ICEVIEW_REMOTE_EXPECTED`` (rows Iceberg-Spark returned for
every corpus view in the main run), ``ICEVIEW_REMOTE_WORK`` (a scratch folder, also the working
directory, so Spark's warehouse lands there); ``ICEVIEW_REMOTE_HMS`` and ``ICEVIEW_REMOTE_HIVE_DB``
(a Hive Metastore's ``thrift://`` address and a database to make there: only then does
:func:`test_hive_catalog` exist, which writes what it read to ``hive.json`` in the work folder for
``test_spark_remote.py::test_spark4_connect_hive``).

The iceview catalog ``lake`` (SQLite) is *virtual*: no Spark catalog has that name. Tables live in
``spark_catalog`` (Parquet tables), views in ``lake``; ``USE lake.tpch`` through SparkViews makes
one- and two-part names reach the views.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "spark"))
from corpus import CORPUS, create_statement, normalise

MODE = os.environ.get("ICEVIEW_REMOTE_MODE", "classic")
PARQUET = Path(os.environ.get("ICEVIEW_REMOTE_PARQUET", "."))
EXPECTED = os.environ.get("ICEVIEW_REMOTE_EXPECTED")
WORK = Path(os.environ.get("ICEVIEW_REMOTE_WORK", "."))
TABLES = ("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem")
HMS = os.environ.get("ICEVIEW_REMOTE_HMS")
HIVE_DB = os.environ.get("ICEVIEW_REMOTE_HIVE_DB", "")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    builder = builder.remote("local") if MODE == "connect" else builder.master("local[2]")
    session = (
        builder.appName(f"iceview-{MODE}")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def views(spark: Any) -> Iterator[Any]:
    from iceview.catalog.sql import SqlCatalog
    from iceview.spark import SparkViews

    spark.sql("CREATE DATABASE IF NOT EXISTS tpch")
    spark.sql("CREATE DATABASE IF NOT EXISTS db")
    for table in TABLES:
        spark.read.parquet(str(PARQUET / f"{table}.parquet")).write.mode("overwrite").saveAsTable(
            f"spark_catalog.tpch.{table}"
        )
    spark.sql("CREATE TABLE db.events (event_ts timestamp, id bigint) USING parquet")
    spark.sql(
        "INSERT INTO db.events VALUES (TIMESTAMP '2024-01-01 10:00:00', 1), (TIMESTAMP '2024-01-01 11:30:00', 2), "
        "(TIMESTAMP '2024-01-02 09:15:00', 3), (TIMESTAMP '2024-01-03 00:00:00', 4), (TIMESTAMP '2024-01-03 23:59:59', 5)"
    )
    catalog = SqlCatalog("lake", uri=f"sqlite:///{WORK}/catalog.db", warehouse=f"file:{WORK}/warehouse")
    catalog.create_namespace("tpch")
    catalog.create_namespace("db")
    v = SparkViews(spark, catalog)
    try:
        yield v
    finally:
        catalog.close()


@pytest.fixture(autouse=True)
def _reset(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "views" in request.fixturenames:
        request.getfixturevalue("views").sql("USE spark_catalog.default")


def rows(df: Any) -> list[dict[str, Any]]:
    return [r.asDict(recursive=True) for r in df.collect()]


def test_mode(spark: Any, views: Any) -> None:
    assert spark.version.startswith("4."), spark.version
    is_connect = "connect" in type(spark).__module__
    assert is_connect == (MODE == "connect")
    assert not views.registered  # "lake" is not a Spark catalog: virtual


READ_HERE = [name for i, (name, _, _) in enumerate(CORPUS) if i % 2 == (MODE == "connect")]
"""The corpus views this mode reads: every other one (both modes make them all). The two modes run
the same analyser on the same expanded SQL; what differs is how SparkViews reaches it, which every
view exercises, so each view is read in one mode, and the two processes share the cost."""


@pytest.fixture(scope="session")
def corpus_rows(views: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    views.sql("USE lake.tpch")
    for name, columns, query in CORPUS:
        try:
            views.sql(create_statement(name, columns, query, "lake"))
            if name not in READ_HERE:
                continue
            df = views.sql(f"SELECT * FROM {name}")
            got = df.collect()
            out[name] = {"columns": list(df.columns), "rows": json.loads(json.dumps(normalise(got)))}
        except Exception as e:
            out[name] = {"error": f"{type(e).__name__}: {e}"}
    views.sql("USE spark_catalog.default")
    return out


def test_every_corpus_view_is_made(corpus_rows: dict[str, Any]) -> None:
    failed = {name: got["error"] for name, got in corpus_rows.items() if "error" in got}
    assert not failed, failed


@pytest.mark.parametrize("name", READ_HERE)
def test_corpus_rows_equal_classic(corpus_rows: dict[str, Any], name: str) -> None:
    assert EXPECTED, "ICEVIEW_REMOTE_EXPECTED is not set"
    expected = json.loads(Path(EXPECTED).read_text())
    got = corpus_rows[name]
    assert "error" not in got, got.get("error")
    assert got["columns"] == expected[name]["columns"]
    assert got["rows"] == expected[name]["rows"]


def test_virtual_names_and_use(views: Any, corpus_rows: dict[str, Any]) -> None:
    n = len(rows(views.sql("SELECT * FROM lake.tpch.lvl1")))  # 3-part: always
    assert n > 0
    with pytest.raises(Exception, match=r"TABLE_OR_VIEW_NOT_FOUND|cannot be found"):
        views.sql("SELECT * FROM lvl1").collect()  # spark_catalog.default.lvl1: no such thing
    views.sql("USE lake.tpch")
    assert views.current_catalog == "lake" and views.current_namespace == ("tpch",)
    assert len(rows(views.sql("SELECT * FROM lvl1"))) == n
    assert len(rows(views.sql("SELECT * FROM tpch.lvl1"))) == n
    assert len(rows(views.sql("SELECT * FROM region"))) == 5  # a table: mapped to spark_catalog.tpch.region
    views.sql("USE db")  # a namespace of the virtual catalog
    assert views.current_namespace == ("db",)
    views.sql("USE spark_catalog.default")
    assert views.current_catalog == "spark_catalog"
    assert len(rows(views.table("lake.tpch.lvl1"))) == n


def test_statements(spark: Any, views: Any) -> None:
    from iceview.spark import SparkViewsAnalysisError

    views.sql("USE lake.db")
    views.sql(
        "CREATE VIEW ev (event_count COMMENT 'Count of events', event_date) COMMENT 'Daily' "
        "AS SELECT COUNT(1), CAST(event_ts AS DATE) FROM events GROUP BY 2"
    )
    meta = views.catalog.load_view("db.ev").metadata
    version = meta.current_version
    assert version.default_catalog is None and tuple(version.default_namespace) == ("db",)
    assert version.summary["engine-name"] == "spark" and version.summary["engine-version"] == spark.version
    assert meta.properties["engine_version"] == f"Spark {spark.version}"
    assert meta.properties["spark.query-column-names"] == "count(1),event_ts"
    assert meta.schema_json(0)["fields"][0] == {
        "id": 0,
        "name": "event_count",
        "required": True,
        "type": "long",
        "doc": "Count of events",
    }
    assert rows(views.sql("SELECT * FROM ev ORDER BY event_date"))[0]["event_count"] == 2
    with pytest.raises(SparkViewsAnalysisError, match="VIEW_ALREADY_EXISTS"):
        views.sql("CREATE VIEW ev AS SELECT 1 AS x")
    views.sql("CREATE VIEW IF NOT EXISTS ev AS SELECT 1 AS x")
    with pytest.raises(SparkViewsAnalysisError, match="NOT_ENOUGH_DATA_COLUMNS"):
        views.sql("CREATE VIEW bad (a, b, c) AS SELECT id FROM events")
    with pytest.raises(SparkViewsAnalysisError, match="The column `id` already exists"):
        views.sql("CREATE VIEW bad AS SELECT id, id FROM events")
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW tmp AS SELECT 1 AS x")
    with pytest.raises(SparkViewsAnalysisError, match=r"references temporary view: \[tmp\]"):
        views.sql("CREATE VIEW bad AS SELECT * FROM tmp")
    spark.udf.register("plus_one", lambda x: x + 1, "bigint")
    with pytest.raises(SparkViewsAnalysisError, match=r"references temporary function: \[plus_one\]"):
        views.sql("CREATE VIEW bad AS SELECT plus_one(id) FROM events")
    views.sql("CREATE VIEW c1 AS SELECT id FROM events")
    views.sql("CREATE VIEW c2 AS SELECT id FROM c1")
    with pytest.raises(SparkViewsAnalysisError, match=r"Recursive cycle in view detected: lake.db.c1"):
        views.sql("CREATE OR REPLACE VIEW c1 AS SELECT id FROM c2")
    # a temporary view shadows the view; a CTE too
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW c1 AS SELECT 42 AS id")
    assert rows(views.sql("SELECT * FROM c1")) == [{"id": 42}]
    assert len(rows(views.sql("SELECT * FROM c2"))) == 5  # inside views temp views are invisible
    spark.sql("DROP VIEW c1")  # Spark drops the temporary view
    assert rows(views.sql("WITH c2 AS (SELECT 7 AS id) SELECT * FROM c2")) == [{"id": 7}]
    views.sql("ALTER VIEW ev SET TBLPROPERTIES ('owner-team' = 'analytics')")
    views.sql("ALTER VIEW ev UNSET TBLPROPERTIES ('owner-team')")
    assert [r["viewName"] for r in rows(views.sql("SHOW VIEWS LIKE 'c*'"))] == ["c1", "c2"]
    desc = rows(views.sql("DESCRIBE EXTENDED ev"))
    assert desc[0] == {"col_name": "event_count", "data_type": "bigint", "comment": "Count of events"}
    assert desc[6]["data_type"] == "[count(1), event_ts]"
    assert desc[8]["data_type"] == f"Spark {spark.version}"
    text = rows(views.sql("SHOW CREATE TABLE ev"))[0]["createtab_stmt"]
    assert text.startswith(
        "CREATE VIEW lake.db.ev (\n  event_count COMMENT 'Count of events',\n  event_date)\nCOMMENT 'Daily'\n"
    )
    assert {r["key"] for r in rows(views.sql("SHOW TBLPROPERTIES ev"))} == {
        "location",
        "provider",
        "format-version",
    }
    views.sql("ALTER VIEW ev AS SELECT id FROM events")
    assert rows(views.sql("SELECT count(*) AS n FROM ev")) == [{"n": 5}]
    views.sql("ALTER VIEW ev RENAME TO ev2")
    views.sql("DROP VIEW ev2")
    with pytest.raises(SparkViewsAnalysisError, match="VIEW_NOT_FOUND"):
        views.sql("DROP VIEW ev2")
    views.sql("DROP VIEW IF EXISTS ev2")


def test_dialects(views: Any) -> None:
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    from iceview.errors import TranslationError
    from iceview.spark import SparkViews

    schema = Schema(NestedField(0, "id", LongType(), required=False))
    views.catalog.create_view(
        "db.trino_only", schema=schema, queries={"trino": "SELECT id FROM events"}, default_namespace=("db",)
    )
    off = SparkViews(views.spark, views.catalog, translate=False)
    with pytest.raises(TranslationError, match=r"has no SQL for dialect spark \(its dialects: trino\)"):
        off.sql("SELECT * FROM lake.db.trino_only")
    # by default it is read by translating its Trino SQL
    assert len(rows(views.sql("SELECT * FROM lake.db.trino_only"))) == 5
    seen: list[tuple[str, str]] = []

    def translate(sql: str, source: str, target: str) -> str:
        seen.append((source, target))
        return sql

    translating = SparkViews(views.spark, views.catalog, translate=translate)
    assert len(rows(translating.sql("SELECT * FROM lake.db.trino_only"))) == 5
    assert seen == [("trino", "spark")]


if HMS:

    def test_hive_catalog(spark: Any) -> None:
        """SparkViews on iceview's ``HiveCatalog`` (virtual: ``hive_cn`` is no Spark catalog): views
        in the metastore's database ``HIVE_DB``, its tables read from ``spark_catalog.HIVE_DB``
        (Parquet; Spark 4 here has no Iceberg runtime), a view over a view."""
        import iceview
        from iceview.spark import SparkViews

        started = time.monotonic()
        catalog = iceview.load_catalog(
            "hive_cn",
            type="hive",
            uri=HMS,
            warehouse=f"file://{WORK}/hive-warehouse",
            **{"iceberg.hive.lock-heartbeat-interval-ms": "4000"},
        )
        try:
            catalog.create_namespace(HIVE_DB)
            spark.sql(f"CREATE DATABASE spark_catalog.{HIVE_DB}")
            spark.sql(f"CREATE TABLE spark_catalog.{HIVE_DB}.t (id INT, name STRING) USING parquet")
            spark.sql(f"INSERT INTO spark_catalog.{HIVE_DB}.t VALUES (1, 'Zoë'), (2, NULL), (3, '東京')")
            views = SparkViews(spark, catalog)
            assert not views.registered
            db = f"hive_cn.{HIVE_DB}"
            views.sql(
                f"CREATE VIEW {db}.v AS SELECT id, coalesce(name, '-') AS name FROM {db}.t WHERE id >= 2"
            )
            views.sql(f"CREATE VIEW {db}.nested AS SELECT count(*) AS n, max(name) AS top FROM {db}.v")
            got = {
                "v": rows(views.sql(f"SELECT * FROM {db}.v ORDER BY id")),
                "nested": rows(views.sql(f"SELECT * FROM {db}.nested")),
            }
            assert got == {
                "v": [{"id": 2, "name": "-"}, {"id": 3, "name": "東京"}],
                "nested": [{"n": 2, "top": "東京"}],
            }
            assert catalog.list_views(HIVE_DB) == [(HIVE_DB, "nested"), (HIVE_DB, "v")]
            report = {
                "rows": got,
                "spark-version": spark.version,
                "seconds": round(time.monotonic() - started, 2),
            }
            (WORK / "hive.json").write_text(json.dumps(report), encoding="utf-8")
        finally:
            catalog.close()
