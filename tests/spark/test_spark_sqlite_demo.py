"""The embedded SQLite setup of the demo: a live Spark JVM with Iceberg's JdbcCatalog on the same
SQLite file that iceview writes views to (``iceview.spark.local_session``, docs/spark.md).

Runs in a separate process: the test process's Spark session has its own catalogs, and a JVM that
opened a SQLite catalog keeps whatever it locked until it exits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.java_session import run_java_script

pytestmark = pytest.mark.java

SCRIPT = r"""
import sys, time
from fixtures.java_session import emit
from iceview.catalog.sql import SqlCatalog
from iceview.spark import SparkViews, SQLiteLockError, local_session

base = sys.argv[1]
timings = {}
def timed(name, fn):
    t = time.monotonic()
    out = fn()
    timings[name] = round(time.monotonic() - t, 3)
    return out

catalog = SqlCatalog("lake", uri=f"sqlite:///{base}/catalog.db", warehouse=f"file:{base}/warehouse")
spark = timed("session", lambda: local_session(catalog))
views = SparkViews(spark, catalog)
assert views.registered
rows = lambda df: [tuple(r) for r in df.collect()]
timed("java_create_table", lambda: spark.sql("CREATE TABLE lake.db.t (id bigint) USING iceberg").collect())
timed("java_insert", lambda: spark.sql("INSERT INTO lake.db.t VALUES (1), (2)").collect())
timed("py_create_view", lambda: views.sql("CREATE VIEW lake.db.v AS SELECT id FROM lake.db.t"))
native = timed("java_reads_view", lambda: rows(spark.sql("SELECT * FROM lake.db.v ORDER BY id")))
ours = timed("py_reads_view", lambda: rows(views.sql("SELECT * FROM lake.db.v ORDER BY id")))
timed("java_create_table2", lambda: spark.sql("CREATE TABLE lake.db.t2 (id bigint) USING iceberg").collect())
timed("py_replace_view", lambda: views.sql("CREATE OR REPLACE VIEW lake.db.v AS SELECT id * 10 AS id FROM lake.db.t"))
native2 = timed("java_reads_view2", lambda: rows(spark.sql("SELECT * FROM lake.db.v ORDER BY id")))
timed("java_create_view", lambda: spark.sql("CREATE VIEW lake.db.jv AS SELECT id FROM lake.db.t2").collect())
ours2 = timed("py_reads_java_view", lambda: rows(views.sql("SELECT count(*) FROM lake.db.jv")))
# a second catalog file that already holds views: refused with a clear error, before any lock
other = SqlCatalog("lake2", uri=f"sqlite:///{base}/other.db", warehouse=f"file:{base}/warehouse2")
other.create_view("db.x", schema=catalog.load_view("db.v").schema, queries={"spark": "SELECT 1"}, default_namespace="db")
try:
    local_session(other, name="lake2")
    refused = None
except SQLiteLockError as e:
    refused = str(e)
emit({"native": native, "ours": ours, "native2": native2, "ours2": ours2, "refused": refused, "timings": timings})
"""


def test_sqlite_shared_with_live_spark(tmp_path: Path) -> None:
    result = run_java_script(SCRIPT, str(tmp_path), timeout=300)
    assert result["native"] == result["ours"] == [[1], [2]]
    assert result["native2"] == [[10], [20]]
    assert result["ours2"] == [[0]]
    assert "apache/iceberg PR #15463" in result["refused"]
    print("SQLite demo timings (s):", result["timings"])
