"""``iceview sql --engine spark`` as one real process (starting Spark costs ~10 s): a local Spark 3.5
with Iceberg's runtime (1.10.2 by default) reads the table ``default.events`` of the demo's SQLite catalog, and
SparkViews expands two views: ``events_by_source`` (Spark SQL) and ``source_stats`` (Trino SQL only,
read with ``--translate``).

It needs Java 17 and Iceberg's Spark runtime from Maven (``iceview.spark.jars``, cached in
``~/.cache/iceview/ivy``, which ``scripts/setup.sh`` fills); without them it fails and says so, it
is never skipped.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from cli_support import BY_SOURCE_ROWS, SOURCE_STATS_ROWS, build_lake, parse_json, run_process

from fixtures.java_session import spark_jars
from iceview.spark.jars import IVY_DIR_ENV, ivy_dir

pytestmark = pytest.mark.java

QUERY = (
    "SELECT b.source, b.events, b.first_seen, s.last_id "
    "FROM events_by_source b JOIN default.source_stats s USING (source) ORDER BY b.source"
)


_FOREIGN_CLIENT = re.compile(
    r"-{40}\nException occurred during processing of request from \('127\.0\.0\.1', \d+\)\n"
    r"(?:(?!-{40}\n).)*?The value of the provided token to the AccumulatorServer is not correct\.\n-{40}\n",
    re.S,
)


def _without_foreign_clients(stderr: str) -> str:
    """``stderr`` without Python's report of a local client that connected to PySpark's accumulator
    server without its token: another process on the machine (CI runs two test sessions side by
    side, and tests there probe local ports), neither iceview nor Spark."""
    return _FOREIGN_CLIENT.sub("", stderr)


def test_sql_with_spark_reads_views_and_tables(tmp_path: Path) -> None:
    spark_jars()  # Java, pyspark and the jars are there (else: OracleUnavailableError, with the fix)
    lake = build_lake(tmp_path / "lake")
    env = {k: v for k, v in lake.env.items() if k != "SPARK_CONF_DIR"}
    env[IVY_DIR_ENV] = str(ivy_dir())  # the lake's HOME is its own: keep the downloaded jars
    started = time.monotonic()
    done = run_process(
        env, "sql", QUERY, "--engine", "spark", "--translate", "-o", "json", cwd=lake.root, timeout=600
    )
    seconds = time.monotonic() - started
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert (
        _without_foreign_clients(done.stderr) == ""
    )  # Spark's own log is kept to errors, and there were none
    last_ids = {source: last_id for source, _, last_id in SOURCE_STATS_ROWS}
    assert parse_json(done.stdout) == [
        {"source": source, "events": n, "first_seen": first.isoformat(), "last_id": last_ids[source]}
        for source, n, first in BY_SOURCE_ROWS
    ]
    with lake.catalog() as catalog:  # nothing was written: source_stats still has Trino SQL only
        assert list(catalog.load_view("default.source_stats").current_version.dialects) == ["trino"]
    print(f"iceview sql --engine spark: {seconds:.1f} s")
