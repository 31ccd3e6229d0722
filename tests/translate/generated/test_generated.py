"""Generated queries: the same rows, or a named refusal.

The grammar (``grammar.py``) draws queries from what the rules table lets through in a direction;
``runner.py`` runs each in its source engine and its translation in the target, Spark 3.5.9 with
``spark.sql.ansi.enabled`` false and true, both engines in ``America/Los_Angeles``, on the
generator's table (``data.py``). In CI: the templates parse, every construct the rules let through is
generated, runs are reproducible, and a planted wrong translation is caught and shrunk.
``scripts/translation_fuzz.sh --seed N`` runs the generator and fails on any mismatch, each shrunk
and listed; ``--replay tests/translate/generated/found.jsonl`` re-runs the minimised mismatches
found so far. CI runs the 0-mismatch gate: seeds 1-4, ``CI_QUERIES`` queries each per leg, and
every entry of ``found.jsonl`` (each gives the same rows or is refused).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot

from iceview.sql.translate.function_signatures import CHECKED_ELSEWHERE, FUNCTION_ARGS
from translate.generated import runner
from translate.generated.grammar import (
    AGGREGATES,
    SCALARS,
    WINDOWS,
    Gen,
    check_templates,
    drawn_classes,
    let_through,
)
from translate.generated.runner import LEGS, Engines, Mismatch, check, leg_name, run_leg

NOT_GENERATED: dict[tuple[str, str], dict[str, str]] = {
    ("spark", "duckdb"): {
        "In": "drawn by the grammar (IN lists and IN subqueries)",
        "ORDER BY item": "drawn by the grammar (ORDER BY of projections and windows)",
        "equality comparison": "drawn by the grammar (=, <>, in filters, CASE and joins)",
        "ordering comparison": "drawn by the grammar (<, <=, >, >=, BETWEEN)",
        "ArrayAgg": "collect_list's order is not fixed; a sorted form is not on the allow-list",
        "Explode": "LATERAL VIEW explode is a relation, not drawn by the grammar yet",
        "StddevPop": "refused as a floating aggregate (Stddev and VariancePop are drawn for it)",
        "StddevSamp": "refused as a floating aggregate (as above)",
        "Variance": "refused as a floating aggregate (as above)",
        "TimeStrToTime": "not reachable from Spark's spellings",
        "Cast": "drawn as CAST(... AS <type>) by the grammar, not as a template",
        "TryCast": "drawn as TRY_CAST by the grammar",
        "Case": "drawn by the grammar (searched and simple CASE)",
        "And": "drawn by the grammar",
        "Or": "drawn by the grammar",
        "Not": "drawn by the grammar",
        "Exists": "drawn by the grammar (subqueries)",
        "Pivot": "drawn by the grammar (PIVOT queries)",
        "DECIMAL without precision": "a type spelling, not a value",
        "truncation unit": "drawn inside trunc and date_trunc",
        "integer or decimal arithmetic": "drawn as + and -",
        "table function": "no table function is generated",
        "Table": "every query reads t",
    },
    ("duckdb", "spark"): {
        "CTE with a MATERIALIZED hint": "the hint is dropped: it changes how DuckDB runs a CTE, not its rows",
        "In": "drawn by the grammar (IN lists and IN subqueries)",
        "ORDER BY item": "drawn by the grammar (ORDER BY of projections and windows)",
        "equality comparison": "drawn by the grammar (=, <>, in filters, CASE and joins)",
        "ordering comparison": "drawn by the grammar (<, <=, >, >=, BETWEEN)",
        "Cast": "drawn as CAST(... AS <type>) by the grammar, not as a template",
        "TryCast": "drawn as TRY_CAST by the grammar",
        "Case": "drawn by the grammar (searched and simple CASE)",
        "And": "drawn by the grammar",
        "Or": "drawn by the grammar",
        "Not": "drawn by the grammar",
        "Exists": "drawn by the grammar (subqueries)",
        "truncation unit": "drawn inside date_trunc",
        "integer or decimal arithmetic": "drawn as + and -",
        "table function": "no table function is generated",
        "Table": "every query reads t",
    },
}
"""Per direction, what the rules let through that no template draws, and why."""


def test_templates_parse_into_their_classes() -> None:
    assert check_templates() == []


@pytest.mark.parametrize("direction", sorted(NOT_GENERATED), ids="->".join)
def test_every_construct_the_rules_let_through_is_generated(direction: tuple[str, str]) -> None:
    drawn = {t.cls for pool in (SCALARS, AGGREGATES, WINDOWS) for t in pool if getattr(t, direction[0])}
    missing = let_through(*direction) - drawn - set(NOT_GENERATED[direction])
    assert not missing, f"let through {direction} but never generated: {sorted(missing)}"


def _drawn_by_key() -> dict[str, dict[str, set[str]]]:
    """Per function class and argument: the classes the templates draw for it (found by spelling
    each template with marker columns and seeing where sqlglot puts them)."""
    drawn: dict[str, dict[str, set[str]]] = {}
    for pool in (SCALARS, AGGREGATES, WINDOWS):
        for t in pool:
            cls = getattr(sqlglot.exp, t.cls, None)
            if cls is None or not issubclass(cls, sqlglot.exp.Func):
                continue
            for dialect in ("spark", "duckdb"):
                spelling = getattr(t, dialect)
                if spelling is None:
                    continue
                values = [
                    a[4:].split("|")[0] if a.startswith("lit:") else f"m{k}" for k, a in enumerate(t.args)
                ]
                node = sqlglot.parse_one(f"SELECT {spelling.format(*values)}", read=dialect).find(cls)
                assert node is not None, (t.cls, dialect)
                keys = drawn.setdefault(t.cls, {})
                for key, value in node.args.items():
                    for item in value if isinstance(value, list) else [value]:
                        if not isinstance(item, sqlglot.exp.Expr):
                            continue
                        names = {c.name for c in item.find_all(sqlglot.exp.Column)}
                        for k, arg in enumerate(t.args):
                            literal = (
                                arg.startswith("lit:") and not names and not isinstance(item, sqlglot.exp.Var)
                            )
                            if f"m{k}" in names or (literal and item.name == values[k].strip("'")):
                                keys.setdefault(key, set()).update(drawn_classes(arg))
    return drawn


def test_the_function_signature_table_is_what_the_generator_draws() -> None:
    """``FUNCTION_ARGS`` lists, per function and argument, exactly the classes the generated
    queries run it with: nothing it lets through goes unrun, and nothing drawn is left out."""
    drawn = _drawn_by_key()
    for name, table in FUNCTION_ARGS.items():
        if name not in drawn:
            assert any(name in reasons for reasons in NOT_GENERATED.values()), f"{name}: no template"
            continue
        checked = {k: set(c) for k, c in table.items() if c is not None}
        # a class drawn as a column too covers its literals (concat_ws's separator)
        ran = {
            k: {c for c in cs if c.removesuffix(" literal") not in cs or c == c.removesuffix(" literal")}
            for k, cs in drawn[name].items()
            if k in checked
        }
        assert checked == ran, name
        assert set(drawn[name]) <= set(table), f"{name}: drawn arguments the table lacks"
    for direction in NOT_GENERATED:
        for name in let_through(*direction):
            cls = getattr(sqlglot.exp, name, None)
            if cls is not None and issubclass(cls, sqlglot.exp.Func) and name not in CHECKED_ELSEWHERE:
                unproven = name not in FUNCTION_ARGS and name not in NOT_GENERATED[direction]
                assert not unproven, f"{name} is let through {direction} without a signature or a reason"


@pytest.mark.parametrize("leg", LEGS, ids=leg_name)
def test_generated_queries_parse_and_are_reproducible(leg: tuple[str, str, str]) -> None:
    def draw() -> list[str]:
        gen = Gen(random.Random(f"1:{leg_name(leg)}"), leg[0], leg[1])
        return [gen.query()[0] for _ in range(200)]

    queries = draw()
    assert queries == draw()
    for sql in queries:
        sqlglot.parse_one(sql, read=leg[0])


# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engines(java_spark: Any) -> Iterator[Engines]:
    e = Engines(java_spark.spark)
    try:
        yield e
    finally:
        e.close()


def _listing(found: list[Mismatch]) -> str:
    return "\n".join(
        f"[{m.leg}] [{m.kind}] {m.query}\n    translation (spark_ansi={m.spark_ansi}): {m.translation}\n"
        f"    {m.detail[:400]}\n    constructs: {', '.join(m.constructs)}"
        + ("" if m.shrunk else " (not shrunk to the end)")
        for m in found
    )


@pytest.mark.java
def test_the_generator_catches_and_shrinks_a_wrong_translation(
    engines: Engines, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a translator that turns every < into <= : the run must fail, on a query shrunk to a filter
    real = runner._translate

    def wrong(sql: str, source: str, target: str, ansi: bool | None) -> str:
        return real(sql, source, target, ansi).replace(" < ", " <= ")

    monkeypatch.setattr(runner, "_translate", wrong)
    leg = ("spark", "duckdb", "false")
    engines.mode("false")
    found: list[Mismatch] = []
    planted: list[Mismatch] = []
    for seed in (8, 7, 9):  # a seed whose filters all happen to be refused would prove nothing
        monkeypatch.setattr(runner, "_translate", wrong)
        _, found = run_leg(
            engines,
            leg,
            seed,
            seconds=30,
            max_queries=150,
            shrink_seconds=15,
            max_shrinks=2,
            shapes=("filter",),
        )
        monkeypatch.setattr(runner, "_translate", real)
        planted = [m for m in found if check(engines, leg, m.query).status != "mismatch"]
        if planted:
            break
    assert planted, "a translation that turns < into <= went unnoticed:\n" + _listing(found)
    first = planted[0]
    print(f"planted < -> <=: shrunk from {first.original!r} to {first.query!r}")
    assert " < " in first.query and first.shrunk, _listing(planted)
    assert len(first.query) < 60, _listing(planted)


CI_SEEDS = (1, 2, 3, 4)
CI_QUERIES = 24
"""Per seed and leg: a query count, not a time, so that every CI run checks the same queries."""
FOUND = Path(__file__).with_name("found.jsonl")


@pytest.mark.java
@pytest.mark.parametrize("leg", LEGS, ids=leg_name)
def test_generated_queries_give_the_same_rows_or_a_named_refusal(
    engines: Engines, leg: tuple[str, str, str]
) -> None:
    found: list[Mismatch] = []
    for seed in CI_SEEDS:
        stats, mismatches = run_leg(
            engines, leg, seed, seconds=600, max_queries=CI_QUERIES, shrink_seconds=10, max_shrinks=2
        )
        print(stats.line(f"{leg_name(leg)} seed {seed}"))
        assert stats.generated == CI_QUERIES
        found += mismatches
    assert not found, "generated queries give other rows:\n" + _listing(found)


@pytest.mark.java
def test_every_mismatch_found_so_far_gives_the_same_rows_or_is_refused(engines: Engines) -> None:
    cases = [json.loads(line) for line in FOUND.read_text().splitlines() if line.strip()]
    assert len(cases) >= 88
    wrong = []
    for leg in LEGS:
        mine = [c for c in cases if c["leg"] == leg_name(leg)]
        engines.mode(leg[2])
        wrong += [
            (c["leg"], c["query"]) for c in mine if check(engines, leg, c["query"]).status == "mismatch"
        ]
    assert not wrong, wrong
