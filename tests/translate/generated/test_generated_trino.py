"""The generator's Trino legs (``trino_engine.py``), proven by Trino 476 itself: every mismatch the
Trino legs found so far (``found_trino.jsonl``, minimised, from ``scripts/translation_fuzz.sh
--trino``) now gives the same rows in the target as in the source, or is refused with a named code.

CI also runs the 0-mismatch gate on the Trino legs (seeds 1 and 2, ``TRINO_CI_QUERIES`` each per
leg). Each class fixed lands here as evidence, and comparisons of floating-point values, which are
translated with a NaN guard rather than refused, are run in every Trino direction.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from translate.generated.runner import TRINO_LEGS, Engines, Mismatch, check, leg_name, run_leg
from translate.generated.trino_engine import Trino, load_table

pytestmark = [pytest.mark.java, pytest.mark.postgres]

FOUND = Path(__file__).with_name("found_trino.jsonl")


@pytest.fixture(scope="module")
def trino_engines(java_spark: Any, trino: Any) -> Iterator[Engines]:
    load_table(trino.edge_uri)
    connection = Trino("127.0.0.1", trino.server.port)
    assert connection.wait_for_table() == 23
    engines = Engines(java_spark.spark, connection)
    try:
        yield engines
    finally:
        engines.close()
        connection.close()


def test_the_table_reads_alike_in_trino_spark_and_duckdb(trino_engines: Engines) -> None:
    # every column, every row: the three engines read one table (reals rounded to 32 bits)
    for leg in (("spark", "trino", "false"), ("duckdb", "trino", "none"), ("trino", "duckdb", "none")):
        trino_engines.mode(leg[2])
        verdict = check(trino_engines, leg, "SELECT * FROM t")
        assert verdict.status == "equal", (leg, verdict.detail)


def test_every_trino_mismatch_found_so_far_gives_the_same_rows_or_is_refused(trino_engines: Engines) -> None:
    cases = [json.loads(line) for line in FOUND.read_text().splitlines() if line.strip()]
    assert len(cases) >= 130
    wrong = []
    for leg in TRINO_LEGS:
        mine = [c for c in cases if c["leg"] == leg_name(leg)]
        trino_engines.mode(leg[2])
        for c in mine:
            verdict = check(trino_engines, leg, c["query"])
            if verdict.status == "mismatch":
                wrong.append((c["leg"], c["query"], verdict.detail[:200]))
    assert not wrong, wrong


GUARDED = {
    "spark": [
        "SELECT id, d > 3 AS a, d = f AS b, d <> d AS c, d IN (f, 1.5e0) AS e, 3 < d AS g, d <= -1.5 AS h FROM t",
        "SELECT id FROM t WHERE d NOT IN (d, 2.5) AND d > 1",
        "SELECT a.id, b.id FROM t AS a JOIN t AS b ON a.d = b.d",
    ],
    "duckdb": [
        "SELECT id, d > 3 AS a, d = d AS b, d <> d AS c, d IN (d, 1.5) AS e, d >= NULL AS g, 0 > d AS h FROM t"
    ],
    "trino": [
        "SELECT t.id, t.d > 3 AS a, t.d = t.d AS b, t.d <> t.d AS c, t.d IN (t.f, 1.5e0) AS e, t.d < t.i AS g, "
        "3 < t.d AS h, t.d >= t.d AS k FROM edge.db.t AS t",
        "SELECT t.id FROM edge.db.t AS t WHERE t.d > 3 AND t.d >= t.d",
        "SELECT t.id FROM edge.db.t AS t WHERE NOT t.d > 3 OR t.d <> t.d",
        "SELECT a.id, b.id FROM edge.db.t AS a JOIN edge.db.t AS b ON a.d < b.d AND a.grp = b.grp",
        "SELECT a.id, b.id FROM edge.db.t AS a LEFT JOIN edge.db.t AS b ON a.d <= b.d",
    ],
}
"""Comparisons of doubles with NaN, NULL, infinities and -0.0 on the edge table: translated with
the NaN guard (``trino_nan.py``), never refused."""


def test_floating_comparisons_give_the_same_rows_in_every_trino_direction(trino_engines: Engines) -> None:
    outcomes = []
    for leg in TRINO_LEGS:
        trino_engines.mode(leg[2])
        for sql in GUARDED[leg[0]]:
            verdict = check(trino_engines, leg, sql)
            outcomes.append((leg_name(leg), sql, verdict.status, verdict.detail[:200]))
    assert [o for o in outcomes if o[2] != "equal"] == []


TRINO_CI_SEEDS = (1, 2)
TRINO_CI_QUERIES = 8
"""Per seed and leg, a count (not a time), so every CI run checks the same queries; a query from
Trino is a generated Spark or DuckDB query that translates into Trino (about 4 in 10 do), so the
Trino-source legs run fewer. ``scripts/translation_fuzz.sh --trino`` runs them longer."""


@pytest.mark.parametrize("leg", TRINO_LEGS, ids=leg_name)
def test_generated_trino_queries_give_the_same_rows_or_a_named_refusal(
    trino_engines: Engines, leg: tuple[str, str, str]
) -> None:
    found: list[Mismatch] = []
    for seed in TRINO_CI_SEEDS:
        stats, mismatches = run_leg(
            trino_engines,
            leg,
            seed,
            seconds=600,
            max_queries=TRINO_CI_QUERIES,
            shrink_seconds=10,
            max_shrinks=2,
        )
        print(stats.line(f"{leg_name(leg)} seed {seed}"))
        assert stats.generated == TRINO_CI_QUERIES
        found += mismatches
    assert not found, "\n".join(
        f"[{m.leg}] {m.query}\n    -> {m.translation}\n    {m.detail[:200]}" for m in found
    )
