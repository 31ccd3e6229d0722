#!/usr/bin/env python3
"""Trino 476 planning and running a query over a view iceview wrote, against the same query written
inline, in the same run (``iceview serve`` on an embedded SQLite catalog, Trino's ``iceberg.catalog.type=rest``
on it, both started as ``examples/trino_demo.py`` starts them).

Trino creates two Iceberg tables (``orders``, 10,000 rows; ``customers``, 200) and iceview writes
views with Spark SQL and ``dialects=["trino"]`` (the ``trino`` SQL is iceview's translation, with the
casts of Trino's view contract):

* ``v1``: a join and an aggregate (``orders JOIN customers ... GROUP BY region``);
* ``v2`` over ``v1``, ``v3`` over ``v2``: each a filter on the view below (a view 3 deep).

The query ``SELECT region, orders, total FROM v<d> ORDER BY region`` at depth 1 and 3 is timed four
ways, in interleaved rounds (a new random order each round, :func:`timing.interleaved`):

* ``iceview``: over iceview's views (Trino loads each view from the catalog and plans its ``trino`` SQL);
* ``trino-view``: over the same views written by Trino (``CREATE VIEW``, Trino SQL by hand): Trino's own
  views, to tell what any view costs Trino from what iceview's SQL costs;
* ``inline``: the anchor, the query with every view replaced by its ``trino`` SQL as a subquery (the text
  Trino plans once it has expanded iceview's views), no view to load.

Each run of the ``SELECT`` gives two figures: the client's wall time (planning and execution, every
row fetched) and Trino's own analysis + planning time of that query (``analysisTimeMillis`` +
``planningTimeMillis`` of its final stats; views are loaded and expanded during analysis). Trino's
figures leave out the client's polling and the query's queueing, so they isolate planning better than
the wall time of an ``EXPLAIN`` would. Prints, per depth and figure, each way's median and p10-p90,
the ratio of medians to ``inline`` and the spread of the per-round ratios (the ways of one round ran
back to back), and the number of catalog requests Trino makes for one query of each way (``iceview
serve --access-log``).

    .venv/bin/python bench/bench_trino.py [--rounds 40] [--warmup 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import sqlglot
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType
from sqlglot import exp
from timing import interleaved, nearest_rank

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from trino_demo import CATALOG, TRINO_CATALOG_NAME, IceviewServe, TrinoRun, query

NS = "bench"
DEPTHS = (1, 3)
WAYS = ("iceview", "trino-view", "inline")
SCHEMA = Schema(
    NestedField(1, "region", StringType(), required=False),
    NestedField(2, "orders", LongType(), required=False),
    NestedField(3, "total", LongType(), required=False),
)
TABLES = (
    f"CREATE SCHEMA {CATALOG}.{NS}",
    f"CREATE TABLE {CATALOG}.{NS}.customers (id INTEGER, region VARCHAR)",
    f"CREATE TABLE {CATALOG}.{NS}.orders (id BIGINT, customer_id INTEGER, amount INTEGER)",
    f"INSERT INTO {CATALOG}.{NS}.customers SELECT CAST(x AS INTEGER), "
    "element_at(ARRAY['north', 'south', 'east', 'west', 'Zoë'], CAST(x % 5 + 1 AS INTEGER)) "
    "FROM UNNEST(sequence(1, 200)) AS t(x)",
    f"INSERT INTO {CATALOG}.{NS}.orders SELECT x, CAST(x % 211 AS INTEGER), CAST(x % 997 AS INTEGER) "
    "FROM UNNEST(sequence(1, 10000)) AS t(x)",
)
# the view chain in Spark SQL (iceview translates it) and in Trino SQL (for Trino's own views)
SPARK_VIEWS = {
    1: "SELECT c.region, count(*) AS orders, sum(o.amount) AS total "
    "FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY c.region",
    2: "SELECT region, orders, total FROM v1 WHERE total > 0",
    3: "SELECT region, orders, total FROM v2 WHERE orders > 0",
}
TRINO_VIEWS = {
    1: f"SELECT c.region, count(*) AS orders, sum(o.amount) AS total FROM {CATALOG}.{NS}.orders o "
    f"JOIN {CATALOG}.{NS}.customers c ON o.customer_id = c.id GROUP BY c.region",
    2: f"SELECT region, orders, total FROM {CATALOG}.{NS}.t1 WHERE total > 0",
    3: f"SELECT region, orders, total FROM {CATALOG}.{NS}.t2 WHERE orders > 0",
}


def select(view: str) -> str:
    return f"SELECT region, orders, total FROM {CATALOG}.{NS}.{view} ORDER BY region"


def inline(sql: str, views: Mapping[str, str]) -> str:
    """``sql`` with every reference to one of ``views`` (name -> its ``trino`` SQL) replaced by that
    SQL as a subquery, until none is left: what Trino plans once it has expanded the views."""
    tree = sqlglot.parse_one(sql, read="trino")
    while True:
        found = [t for t in tree.find_all(exp.Table) if t.db == NS and t.name in views]
        if not found:
            return tree.sql(dialect="trino")
        for table in found:
            body = sqlglot.parse_one(views[table.name], read="trino")
            table.replace(
                exp.Subquery(this=body, alias=exp.TableAlias(this=exp.to_identifier(table.alias_or_name)))
            )


def setup(serve: IceviewServe, connection: Any) -> dict[str, str]:
    """The tables (by Trino) and both view chains; the ``trino`` SQL of each iceview view."""
    for statement in TABLES:
        query(connection, statement)
    catalog = serve.catalog()
    trino_sql: dict[str, str] = {}
    for k, spark_sql in SPARK_VIEWS.items():
        view = catalog.create_view(
            (NS, f"v{k}"),
            schema=SCHEMA,
            queries={"spark": spark_sql},
            default_namespace=(NS,),
            dialects=["trino"],
        )
        trino_sql[f"v{k}"] = view.sql_for("trino").sql
        query(connection, f"CREATE VIEW {CATALOG}.{NS}.t{k} AS {TRINO_VIEWS[k]}")
    return trino_sql


def timed(connection: Any, sql: str, planning: list[float]) -> Callable[[], float]:
    """Run ``sql`` and fetch every row; its wall time (s), as the client sees it. Trino's own
    analysis + planning time of the query (s, from its final stats) is appended to ``planning``."""

    def run() -> float:
        started = time.perf_counter()
        cursor = connection.cursor()
        cursor.execute(sql)
        cursor.fetchall()
        elapsed = time.perf_counter() - started
        stats = cursor.stats
        planning.append((stats["analysisTimeMillis"] + stats["planningTimeMillis"]) / 1000)
        return elapsed

    return run


def requests_per_query(serve_log: Path, connection: Any, sql: str) -> int:
    """How many requests ``iceview serve`` answers for one run of ``sql`` (its access log's new lines)."""
    before = len(serve_log.read_text(encoding="utf-8").splitlines())
    query(connection, sql)
    time.sleep(0.2)  # the log line is written once the answer is sent
    return len(serve_log.read_text(encoding="utf-8").splitlines()) - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="iceview-bench-trino-"))
    serve_log = base / "serve.log"
    with open(serve_log, "w", encoding="utf-8") as log:
        serve = IceviewServe(base, {TRINO_CATALOG_NAME: CATALOG}, args=["--access-log"], stderr=log)
    trino: TrinoRun | None = None
    try:
        trino = TrinoRun(serve.url.rstrip("/"), base / "trino").wait()
        connection = trino.connect()
        trino_sql = setup(serve, connection)
        queries: dict[int, dict[str, str]] = {
            d: {
                "iceview": select(f"v{d}"),
                "trino-view": select(f"t{d}"),
                "inline": inline(select(f"v{d}"), trino_sql),
            }
            for d in DEPTHS
        }
        for d in DEPTHS:
            rows = {way: query(connection, sql) for way, sql in queries[d].items()}
            assert rows["iceview"] == rows["trino-view"] == rows["inline"] and rows["inline"], rows
        cursor = connection.cursor()
        cursor.execute(queries[3]["iceview"])
        cursor.fetchall()
        one = cursor.stats
        print(
            f"Trino {trino.version} (1 GiB heap, C1 only: scripts/trino.sh), catalog {CATALOG} on iceview serve "
            f"(SQLite); {args.rounds} interleaved rounds after {args.warmup}; ms.\nOne SELECT over v3 (cold): "
            f"analysis {one['analysisTimeMillis']}, planning {one['planningTimeMillis']}, "
            f"elapsed {one['elapsedTimeMillis']} (Trino's stats)\n"
        )
        fns: dict[str, Callable[[], float]] = {}
        planning: dict[str, list[float]] = {}
        for d in DEPTHS:
            for way, sql in queries[d].items():
                planning[f"{d} {way}"] = []
                fns[f"{d} {way}"] = timed(connection, sql, planning[f"{d} {way}"])
        times = interleaved(dict(fns), args.rounds, args.warmup)
        print(
            f"{'depth':>5} {'measure':<21} {'way':<11} {'median':>8} {'p10-p90':>15} {'/ inline':>9} "
            f"{'per-round ratio p10/p50/p90':>28} {'catalog requests':>17}"
        )
        for d in DEPTHS:
            counts = {way: requests_per_query(serve_log, connection, sql) for way, sql in queries[d].items()}
            for measure, series in (
                ("SELECT, client", {w: times[f"{d} {w}"] for w in WAYS}),
                # the warm-up rounds' stats are dropped: `times` has only the timed rounds
                ("analysis + planning", {w: planning[f"{d} {w}"][-args.rounds :] for w in WAYS}),
            ):
                anchor = [t * 1000 for t in series["inline"]]
                for way in WAYS:
                    ms = [t * 1000 for t in series[way]]
                    ratios = [a / b for a, b in zip(ms, anchor, strict=True)]  # the same round
                    print(
                        f"{d:>5} {measure:<21} {way:<11} {statistics.median(ms):>8.1f} "
                        f"{nearest_rank(ms, 0.1):>7.1f}-{nearest_rank(ms, 0.9):<7.1f} "
                        f"{statistics.median(ms) / statistics.median(anchor):>8.2f}x "
                        f"{nearest_rank(ratios, 0.1):>14.2f}/{statistics.median(ratios):.2f}/"
                        f"{nearest_rank(ratios, 0.9):<7.2f} "
                        f"{counts[way] if measure.startswith('SELECT') else '':>17}"
                    )
        connection.close()
    finally:
        if trino is not None:
            trino.stop()
        serve.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
