"""The ``depth`` cost curve: planning a query through views nested 1 to 50 deep, three ways.

A chain ``d1 .. d50`` (``d1`` reads an Iceberg table, ``d<k>`` reads ``d<k-1>``) is made through
SparkViews in Spark 3.5 classic with Iceberg's runtime, on a SQLite catalog shared by Iceberg-Spark
and iceview (``bench_spark.chain_session``). For each depth ``k``, the planning time of
``SELECT id, count(*) FROM d<k> WHERE data <> 'x' GROUP BY id`` (classic Spark analyses in
``spark.sql``; no job runs):

* ``iceview``: ``SparkViews.sql``: the view chain loaded from the catalog, expanded, checked with
  Iceberg-Spark's up-cast rules, and analysed by Spark;
* ``inline``: ``spark.sql`` of the expanded text: the same query written inline, Spark alone;
* ``iceberg`` (the anchor): ``spark.sql`` of the query with Iceberg's SQL extensions: Iceberg-Spark
  resolves the views itself (``cache-enabled=false``: it loads each view every time, as iceview).

Spark's analyzer stops after ``spark.sql.analyzer.maxIterations`` (100) rounds of its resolution
rules: with that default Iceberg-Spark reads this chain only up to depth 32 and SparkViews up to
48, so the curve sets it to 1,000 for both. The ways are timed in interleaved rounds
(``timing.interleaved``). Loading and expanding
the views is linear in the depth; Spark's analysis of the nested query is not (``SPARK_ANALYSIS``),
and it is all three ways' work, so each is expected to grow faster than the depth, and iceview's
ratio to Iceberg-Spark to stay level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench_spark import chain_session, measure
from scale_common import Operation, Settings, report

__all__ = ["depth"]

SIZES = [1, 2, 5, 10, 20, 50]
MAX_ITERATIONS = "spark.sql.analyzer.maxIterations"
SPARK_ANALYSIS = (
    "Spark's own analysis, and so every way, grows faster than the depth: its analyzer applies its "
    "resolution rules to the whole plan in rounds until nothing changes, and a chain of d nested "
    "subqueries takes about d rounds over a plan of size d (d squared; 2026-11-29: depth 20 to 50, "
    "2.5x the depth, cost the inline query 4.6x). It is the query written inline, with no view and "
    "no iceview: the work of planning it, not iceview's"
)
QUICK_SIZES = [1, 3]


def _query(k: int) -> str:
    return f"SELECT id, count(*) AS n FROM d{k} WHERE data <> 'x' GROUP BY id"


def depth(settings: Settings) -> list[str]:
    sizes = QUICK_SIZES if settings.quick else SIZES
    runs, warmup = (5, 3) if settings.quick else (30, 10)
    # Spark's analyzer gives up after 100 rounds of its resolution rules; with that default
    # Iceberg-Spark reads a chain up to depth 32 and SparkViews up to 48 (2026-11-29), so the
    # curve raises the limit for both
    spark, views = chain_session(settings.base, max(sizes), prefix="d", conf={MAX_ITERATIONS: "1000"})
    ours = Operation("iceview", "super-linear", anchor_name="Iceberg-Spark")
    inline = Operation("inline", "super-linear", anchor_name="Iceberg-Spark", note=SPARK_ANALYSIS)
    native = Operation("Iceberg-Spark", "super-linear")
    try:
        for k in sizes:
            query = _query(k)
            expanded = views.expand(query)
            fns: dict[str, Callable[[], Any]] = {
                "ours": lambda q=query: views.sql(q),
                "inline": lambda q=expanded: spark.sql(q),
                "native": lambda q=query: spark.sql(q),
            }
            got = {name: ms / 1000 for name, ms in measure(fns, runs, warmup).items()}  # in s
            assert sorted(views.sql(query).collect()) == sorted(spark.sql(query).collect())
            ours.values[k], inline.values[k], native.values[k] = got["ours"], got["inline"], got["native"]
            ours.anchor[k] = inline.anchor[k] = got["native"]
    finally:
        spark.stop()
    ours.note = (
        "iceview / Iceberg-Spark is the issue's target: <= 1.0x at depths 1 and 10 (a ratio that stays "
        "level as the depth grows: iceview adds no growth of its own). Beyond 5 checked views a read's "
        "up-cast checks are one combined probe analysed beside the query (probes.MAX_GUARDED)."
    )
    return report(
        "Nesting depth: planning a query through a chain of views (ms)", sizes, [ours, inline, native]
    )
