#!/usr/bin/env python3
"""Planning time of a query over a view, nested 1 and 10 deep, three ways (Spark 3.5.9 classic,
Iceberg's runtime from Maven, 1.10.2 unless ``ICEVIEW_ICEBERG_VERSION`` says otherwise, catalog
on an embedded SQLite file shared by Iceberg-Spark and iceview):

* ``iceview``: ``SparkViews.sql(q)``: parse, load the views from the catalog, expand, then Spark's
  parse and analysis of the expanded text, with the up-cast checks of Iceberg-Spark's read rules
  (after the warm-up, the steady state of a view read again: depth 1 is checked by a guard inside
  the expansion, depth 10 by one analysis of all ten levels' probes beside Spark's analysis);
* ``inline``: ``spark.sql(<the expanded text>)``: the same query written inline, Spark only;
* ``iceberg``: ``spark.sql(q)`` with Iceberg's SQL extensions: Iceberg-Spark resolves the views itself
  (``cache-enabled=false``: it loads each view's metadata from the catalog every time, as iceview does).

Classic Spark analyses eagerly in ``spark.sql``, so each measurement is one ``spark.sql`` call (no
job runs). The three ways are timed in interleaved rounds. Prints the medians and the ratios to
Iceberg-Spark (target: iceview <= 1.2x).

    .venv/bin/python bench/bench_spark.py [--runs 100] [--warmup 30]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import interleaved


def measure(fns: dict[str, Callable[[], Any]], runs: int, warmup: int) -> dict[str, float]:
    """Median time (ms) of each function, the ways interleaved (:func:`timing.interleaved`)."""
    times = interleaved({k: _timed_here(fn) for k, fn in fns.items()}, runs, warmup)
    return {k: statistics.median(v) * 1000 for k, v in times.items()}


def _timed_here(fn: Callable[[], Any]) -> Callable[[], None]:
    """``fn``, its result dropped, so that it is timed around the call (a Spark query returns rows)."""

    def call() -> None:
        fn()

    return call


def chain_session(
    base: Path, depth: int, *, prefix: str = "v", conf: dict[str, str] | None = None
) -> tuple[Any, Any]:
    """A local Spark session with Iceberg's runtime on a SQLite catalog in ``base`` (shared with
    iceview), the table ``bench.db.t`` with two rows, ``USE bench.db``, and a chain of views
    ``<prefix>1 .. <prefix><depth>`` made through SparkViews (``<prefix>1`` reads ``t``, each
    other reads the one before it), after the session settings ``conf``. Returns ``(spark, views)``."""
    from iceview.catalog.sql import SqlCatalog
    from iceview.spark import SparkViews, local_session

    base.mkdir(parents=True, exist_ok=True)
    catalog = SqlCatalog("bench", uri=f"sqlite:///{base}/catalog.db", warehouse=f"file:{base}/warehouse")
    spark = local_session(catalog)
    spark.sparkContext.setLogLevel("ERROR")
    for key, value in (conf or {}).items():
        spark.conf.set(key, value)
    views = SparkViews(spark, catalog)
    spark.sql("CREATE TABLE bench.db.t (id bigint, data string, ts timestamp) USING iceberg")
    spark.sql("INSERT INTO bench.db.t VALUES (1, 'a', current_timestamp()), (2, 'b', current_timestamp())")
    spark.sql("USE bench.db")
    views.sql(f"CREATE VIEW {prefix}1 AS SELECT id, data, ts FROM t WHERE id > 0")
    for k in range(2, depth + 1):
        views.sql(
            f"CREATE VIEW {prefix}{k} (id, data, ts) AS "
            f"SELECT id, upper(data), ts FROM {prefix}{k - 1} WHERE id > -{k}"
        )
    return spark, views


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=30)
    args = parser.parse_args()

    spark, views = chain_session(Path(tempfile.mkdtemp(prefix="iceview-bench-spark-")), 10)

    iceberg = spark.sparkContext._jvm.org.apache.iceberg.IcebergBuild.version()
    print(f"Spark {spark.version}, Iceberg {iceberg}, SQLite catalog; median of {args.runs} runs (ms)\n")
    print(
        f"{'depth':>5} {'iceview':>9} {'inline':>9} {'iceberg':>9} {'iceview/iceberg':>16} {'inline/iceberg':>15}"
    )
    for depth in (1, 10):
        query = f"SELECT id, count(*) AS n FROM v{depth} WHERE data <> 'x' GROUP BY id"
        expanded = views.expand(query)
        got = measure(
            {
                "ours": lambda q=query: views.sql(q),
                "inline": lambda q=expanded: spark.sql(q),
                "native": lambda q=query: spark.sql(q),
            },
            args.runs,
            args.warmup,
        )
        ours, inline, native = got["ours"], got["inline"], got["native"]
        assert sorted(views.sql(query).collect()) == sorted(spark.sql(query).collect())
        print(
            f"{depth:>5} {ours:>9.1f} {inline:>9.1f} {native:>9.1f} {ours / native:>15.2f}x {inline / native:>14.2f}x"
        )
    # where iceview's time goes at depth 10 before Spark analyses: SparkViews.expand does the
    # temporary-view check and the ten up-cast checks in line, one Spark analysis per level
    # (SparkViews.sql overlaps them with Spark's analysis, in one analysis)
    query = "SELECT id, count(*) AS n FROM v10 WHERE data <> 'x' GROUP BY id"
    python_only = measure({"expand": lambda: views.expand(query)}, args.runs, args.warmup)["expand"]
    print(
        "\nSparkViews.expand alone at depth 10 (parse, 10 catalog loads, expansion, temporary-view check, "
        f"10 up-cast checks one by one): "
        f"{python_only:.1f} ms"
    )
    # the rare case: a temporary view shadows the view, so the speculative analysis is thrown away
    spark.sql("CREATE TEMPORARY VIEW v1 AS SELECT 7 AS id, 'x' AS data, current_timestamp() AS ts")
    query = "SELECT id, count(*) AS n FROM v1 WHERE data <> 'x' GROUP BY id"
    got = measure(
        {"ours": lambda: views.sql(query), "native": lambda: spark.sql(query)}, args.runs, args.warmup
    )
    assert views.sql(query).collect() == spark.sql(query).collect()
    print(
        f"a temporary view v1 shadowing the view: iceview {got['ours']:.1f} ms, Spark {got['native']:.1f} ms "
        f"({got['ours'] / got['native']:.2f}x)"
    )
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
