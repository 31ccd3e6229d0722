"""The iceview demo pipeline: Iceberg views made with Spark SQL, shared through one catalog.

What it does, on an embedded SQLite catalog that it creates fresh each run:

1. starts local Spark 3.5 with Iceberg's runtime, the catalog registered as ``prod``;
2. creates the Iceberg table ``prod.default.events`` and fills it;
3. runs the view spec's Appendix A statements through iceview: ``CREATE OR REPLACE VIEW event_agg``,
   then the replace from ``USE prod.other_db`` with the fully qualified table name;
4. queries the view in Spark;
5. shows the view's history with the ``iceview`` command, rolls back to version 1 with it, and
   queries again;
6. sets the view property ``iceview.derive-dialects`` to ``trino,duckdb`` with the ``iceview``
   command, so that every version carries SQL for them translated from its Spark SQL, and runs the
   view in DuckDB, which reads the same Iceberg table through PyIceberg;
7. replaces the view from Spark: the new version derives its trino and duckdb SQL in the same
   commit, and DuckDB reads the new definition;
8. shows a translation iceview refuses because it would change the meaning.

Run: ``bash scripts/demo.sh`` (sets everything up first), or ``.venv/bin/python examples/pipeline.py
[--warehouse DIR]`` after ``bash scripts/setup.sh``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import iceview
from iceview.duckdb import DuckDBViews
from iceview.spark import SparkViews, local_session
from iceview.sql.translate import UnsafeTranslationError

CREATE = """CREATE OR REPLACE VIEW event_agg (
    event_count COMMENT 'Count of events',
    event_date)
COMMENT 'Daily event counts'
AS
SELECT
    COUNT(1), CAST(event_ts AS DATE)
FROM events
GROUP BY 2"""

REPLACE = """CREATE OR REPLACE VIEW default.event_agg (
    event_count COMMENT 'Count of events',
    event_date)
COMMENT 'Daily event counts'
AS
SELECT
    COUNT(1), CAST(event_ts AS DATE)
FROM prod.default.events
GROUP BY 2"""

REPLACE_VIEWS_ONLY = """CREATE OR REPLACE VIEW default.event_agg (
    event_count COMMENT 'Count of page views',
    event_date)
COMMENT 'Daily page views'
AS
SELECT
    COUNT(1), CAST(event_ts AS DATE)
FROM prod.default.events
WHERE kind = 'view'
GROUP BY 2"""

QUERY = "SELECT event_date, event_count FROM prod.default.event_agg ORDER BY event_date"


def duckdb_rows(catalog: Any) -> list[Any]:
    """The view's rows in DuckDB (its duckdb SQL, over the table PyIceberg reads)."""
    duck = DuckDBViews(catalog, namespace="default")
    try:
        return list(duck.sql(QUERY).fetchall())
    finally:
        duck.close()


def agree(duck_rows: list[Any], spark_rows: list[Any]) -> bool:
    return [(str(a[0]), int(a[1])) for a in duck_rows] == [(str(b[0]), int(b[1])) for b in spark_rows]


def step(text: str) -> None:
    print(f"\n== {text}", flush=True)


def say(text: str) -> None:
    print(f"   {text}", flush=True)


def rows_text(rows: list[Any]) -> str:
    return ", ".join(f"{r[0]}: {r[1]}" for r in rows)


def run_cli(env: dict[str, str], *args: str) -> str:
    """Run the ``iceview`` command as a user would, and show what it printed."""
    command = [sys.executable, "-m", "iceview.cli", "--catalog", "prod", *args]
    print(f"   $ iceview --catalog prod {' '.join(args)}", flush=True)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    output = (done.stdout + done.stderr).rstrip()
    for line in output.splitlines():
        print(f"     {line}")
    if done.returncode != 0:
        raise SystemExit(f"iceview {args[0]} failed with exit code {done.returncode}")
    return output


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--warehouse", default="demo-warehouse", help="where the demo catalog lives (reset each run)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    warehouse = Path(args.warehouse).resolve()
    shutil.rmtree(warehouse, ignore_errors=True)
    warehouse.mkdir(parents=True)
    props = {"uri": f"sqlite:///{warehouse}/catalog.db", "warehouse": f"file:{warehouse}"}
    # the iceview command finds the same catalog the PyIceberg way: environment variables
    env = {**os.environ, **{f"PYICEBERG_CATALOG__PROD__{k.upper()}": v for k, v in props.items()}}

    step("1. Local Spark with Iceberg's runtime and an embedded SQLite catalog")
    catalog = iceview.load_catalog("prod", **props)
    spark = local_session(catalog)
    spark.sparkContext.setLogLevel("ERROR")
    views = SparkViews(spark, catalog)
    say(f"Spark {spark.version}; catalog 'prod' = {props['uri']} (shared by Iceberg-Spark and iceview)")

    step("2. An Iceberg table of events")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prod.default")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prod.other_db")
    # event times without a time zone (Iceberg `timestamp`): a date cast means the same in every engine
    spark.sql(
        "CREATE TABLE prod.default.events (event_id BIGINT, event_ts TIMESTAMP_NTZ, kind STRING) USING iceberg"
    )
    spark.sql(
        "INSERT INTO prod.default.events VALUES "
        "(1, TIMESTAMP_NTZ '2026-11-20 08:00:00', 'view'), (2, TIMESTAMP_NTZ '2026-11-20 09:30:00', 'click'), "
        "(3, TIMESTAMP_NTZ '2026-11-21 10:00:00', 'view'), (4, TIMESTAMP_NTZ '2026-11-21 11:00:00', 'view'), "
        "(5, TIMESTAMP_NTZ '2026-11-21 12:15:00', 'click'), (6, TIMESTAMP_NTZ '2026-11-22 07:45:00', 'view')"
    )
    say("prod.default.events: 6 events over 3 days")

    step("3. The spec's Appendix A, through iceview")
    views.sql("USE prod.default")
    say("USE prod.default")
    views.sql(CREATE)
    say(
        "CREATE OR REPLACE VIEW event_agg (...) AS SELECT COUNT(1), CAST(event_ts AS DATE) FROM events GROUP BY 2"
    )
    views.sql("USE prod.other_db")
    say("USE prod.other_db")
    views.sql(REPLACE)
    say("CREATE OR REPLACE VIEW default.event_agg (...) AS ... FROM prod.default.events GROUP BY 2")
    view = catalog.load_view("default.event_agg")
    current = view.current_version
    say(
        f"version {current.version_id} is current; default namespace {list(current.default_namespace)}, "
        f"schema {[f.name for f in view.schema.fields]}, metadata file {Path(view.metadata_location or '').name}"
    )

    step("4. Query the view in Spark")
    rows = views.sql(QUERY).collect()
    say(rows_text(rows))

    step("5. History, rollback, and the query again")
    run_cli(env, "history", "default.event_agg")
    run_cli(env, "rollback", "default.event_agg", "--to", "1")
    view.refresh()
    sql = view.sql_for("spark")
    say(
        f"current version is now {view.current_version.version_id}: FROM {sql.sql.split('FROM')[1].split()[0] if sql else '?'}"
    )
    again = views.sql(QUERY).collect()
    say(rows_text(again) + ("  (the same rows: both versions count the same table)" if again == rows else ""))

    step("6. Other engines: the view derives trino and duckdb SQL, and runs in DuckDB")
    # every new version will carry these dialects, translated from its Spark SQL in the same commit;
    # `dialects sync` derives them for the current version now
    run_cli(env, "set-property", "default.event_agg", "iceview.derive-dialects", "trino,duckdb")
    run_cli(env, "dialects", "sync", "default.event_agg")
    view.refresh()
    for rep in view.current_version.representations:
        one_line = " ".join(getattr(rep, "sql", "").split())
        say(f"{getattr(rep, 'dialect', rep.type):7s} {one_line}")
    say(f"version {view.current_version.version_id}, summary {dict(view.current_version.summary)}")
    duck_rows = duckdb_rows(catalog)
    say("DuckDB: " + rows_text(duck_rows))
    same = agree(duck_rows, again)
    say("DuckDB and Spark agree." if same else "DuckDB and Spark DISAGREE.")

    step("7. Spark replaces the view; DuckDB reads the new definition")
    views.sql(REPLACE_VIEWS_ONLY)
    say("CREATE OR REPLACE VIEW default.event_agg (...) AS ... WHERE kind = 'view' GROUP BY 2")
    view.refresh()
    say(f"version {view.current_version.version_id} has {', '.join(view.current_version.dialects)}")
    spark_rows = views.sql(QUERY).collect()
    duck_rows = duckdb_rows(catalog)
    say("Spark:  " + rows_text(spark_rows))
    say("DuckDB: " + rows_text(duck_rows))
    replaced = agree(duck_rows, spark_rows) and spark_rows != again
    say("DuckDB reads the new definition." if replaced else "DuckDB reads a STALE definition.")
    same = same and replaced

    step("8. A translation iceview refuses, rather than change the meaning")
    views.sql(
        "CREATE VIEW prod.default.event_buckets AS "
        "SELECT hash(kind) % 4 AS bucket, count(1) AS n FROM prod.default.events GROUP BY 1"
    )
    try:
        catalog.load_view("default.event_buckets").add_dialects(["trino"])
        say("translated?! (it should have been refused)")
        refused = False
    except UnsafeTranslationError as e:
        say(f"refused, nothing committed: {e}")
        refused = True
    spark.stop()
    same = same and refused

    step(f"Done in {time.monotonic() - started:.0f} s. The catalog is in {warehouse}")
    say(
        "Try: iceview --catalog prod show default.event_agg  (with the PYICEBERG_CATALOG__PROD__* variables above)"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
