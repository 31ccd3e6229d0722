"""The rules table of iceview.sql.translate as data: every refusal has a code and a reason, every code
is in docs/translation.md's refusal list (and the list names no other), and the lookup picks the most
specific rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from iceview.sql.translate import RULES, allowed_functions
from iceview.sql.translate.compare import COMPARE_CODES
from iceview.sql.translate.pipeline import PIPELINE_CODES
from iceview.sql.translate.policy import (
    ANY,
    KEEP,
    Check,
    Context,
    Refuse,
    Rewrite,
    Rule,
    RuleConflictError,
    RuleTable,
    construct,
    exactly,
    predicate,
)
from iceview.sql.translate.rules import (
    CAST,
    FUNCTION_CALL,
    NO_PIVOT_IN_TRINO,
    PIVOT,
    PIVOT_ONLY_SPARK_TO_DUCKDB,
    SOURCE_TEXT_CODES,
    SPARK_TRUNC,
    TRUNC,
    UNPIVOT,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "iceview" / "sql" / "translate"
DOCS = ROOT / "docs" / "translation.md"


def documented_codes() -> set[str]:
    """The codes in the first column of the table under "What is refused, and why"."""
    text = DOCS.read_text()
    section = text.split("## What is refused, and why", 1)[1].split("\n## ", 1)[0]
    codes: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            codes.update(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return codes


def codes_in_source() -> set[str]:
    """Every code literal the package passes to ``ctx.add``, ``TranslationIssue`` or ``Refuse``."""
    found: set[str] = set()
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            first = node.args[0]
            if name in ("add", "TranslationIssue", "Refuse") and isinstance(first, ast.Constant):
                found.add(first.value)
    return found


def all_codes() -> set[str]:
    return set(RULES.codes()) | SOURCE_TEXT_CODES | COMPARE_CODES | PIPELINE_CODES


def test_every_refusal_has_a_code_and_a_reason() -> None:
    assert len(RULES) > 50
    for rule in RULES:
        policy = rule.policy
        assert isinstance(policy, (Refuse, Check, Rewrite, type(KEEP))), rule
        if isinstance(policy, Refuse):
            assert re.fullmatch(r"[a-z_]+(-[a-z]+)*", policy.code), rule
            assert len(policy.reason) > 15, rule
            # the reason's only placeholders are the function's name and the dialects
            policy.reason.format(name="f", source="spark", target="duckdb")
        elif isinstance(policy, Check):
            assert policy.codes and policy.steps, rule
        assert rule.source in (ANY, "spark", "trino", "duckdb")
        assert rule.target in (ANY, "spark", "trino", "duckdb")


def test_every_code_is_declared_and_documented() -> None:
    declared = all_codes()
    # the code literals in the package are all declared by a rule, a check or a stage
    assert codes_in_source() <= declared, codes_in_source() - declared
    documented = documented_codes()
    assert declared - documented == set(), "codes missing from docs/translation.md"
    assert documented - declared == set(), "docs/translation.md lists codes nothing gives"


def test_refused_functions_are_on_no_allow_list() -> None:
    allowed = set().union(*(allowed_functions(d) for d in ("spark", "trino", "duckdb")))
    for rule in RULES:
        if rule.construct.exact_names and not rule.construct.tests:
            # refused everywhere, except for one direction's own rule (dayofweek into DuckDB)
            assert isinstance(rule.policy, Refuse) or ANY not in (rule.source, rule.target), rule
            assert not (rule.construct.exact_names & allowed), rule


# --------------------------------------------------------------------------------------------------
# the lookup


def node(sql: str, kind: type[exp.Expr], dialect: str = "spark") -> exp.Expr:
    found = sqlglot.parse_one(sql, read=dialect).find(kind)
    assert found is not None
    return found


def ctx(source: str, target: str) -> Context:
    return Context(source, target)


def refusal(code: str) -> Refuse:
    return Refuse(code, f"refused as {code} (a test rule)")


def test_most_specific_rule_wins() -> None:
    binary = construct(exp.Binary)
    div = construct(exp.Div)
    literal_divisor = predicate(
        "division by a literal", exp.Div, lambda n, _: isinstance(n.expression, exp.Literal)
    )
    table = RuleTable(
        [
            Rule(binary, ANY, ANY, refusal("binary")),
            Rule(div, ANY, ANY, refusal("div")),
            Rule(div, "trino", ANY, refusal("div-from-trino")),
            Rule(div, ANY, "duckdb", refusal("div-into-duckdb")),
            Rule(div, "trino", "duckdb", refusal("div-trino-duckdb")),
            Rule(literal_divisor, ANY, ANY, KEEP),
        ]
    )

    def code(sql: str, source: str, target: str, kind: type[exp.Expr] = exp.Div) -> str:
        rule = table.lookup(node(sql, kind), ctx(source, target))
        assert rule is not None
        return rule.policy.code if isinstance(rule.policy, Refuse) else "keep"

    # the nearest class in the MRO wins over a base class
    assert code("SELECT a - b", "spark", "trino", exp.Sub) == "binary"
    assert code("SELECT a / b", "spark", "trino") == "div"
    # then a named predicate over the plain class
    assert code("SELECT a / 2", "trino", "duckdb") == "keep"
    # then a specific target over ANY, a specific source over ANY, both over one
    assert code("SELECT a / b", "spark", "duckdb") == "div-into-duckdb"
    assert code("SELECT a / b", "trino", "spark") == "div-from-trino"
    assert code("SELECT a / b", "trino", "duckdb") == "div-trino-duckdb"
    # no rule: None (keep)
    assert table.lookup(node("SELECT a", exp.Column), ctx("spark", "trino")) is None


def test_exact_constructs_do_not_cover_subclasses() -> None:
    table = RuleTable(
        [Rule(exactly(exp.Cast), ANY, ANY, refusal("cast")), Rule(construct(exp.Func), ANY, ANY, KEEP)]
    )
    try_cast = node("SELECT TRY_CAST(a AS INT)", exp.TryCast, "duckdb")
    rule = table.lookup(try_cast, ctx("duckdb", "spark"))
    assert rule is not None and rule.policy is KEEP
    cast = node("SELECT CAST(a AS INT)", exp.Cast, "duckdb")
    assert type(cast) is exp.Cast
    rule = table.lookup(cast, ctx("duckdb", "spark"))
    assert rule is not None and isinstance(rule.policy, Refuse)


def test_ambiguous_and_bad_tables_are_refused() -> None:
    a = predicate("a", exp.Div, lambda n, _: True)
    b = predicate("b", exp.Div, lambda n, _: True)
    table = RuleTable([Rule(a, ANY, ANY, refusal("a")), Rule(b, ANY, ANY, refusal("b"))])
    with pytest.raises(RuleConflictError):
        table.lookup(node("SELECT a / b", exp.Div), ctx("spark", "duckdb"))
    with pytest.raises(ValueError, match="duplicate"):
        RuleTable([Rule(a, ANY, ANY, KEEP), Rule(a, ANY, ANY, refusal("a"))])
    with pytest.raises(ValueError, match="unknown dialect"):
        Rule(a, "mysql", ANY, KEEP)


def test_the_table_picks_per_direction() -> None:
    from iceview.sql.translate.edges import PIVOT_EMPTY_CELLS

    def rule_for(sql: str, kind: type[exp.Expr], source: str, target: str) -> Rule:
        rule = RULES.lookup(node(sql, kind, source), ctx(source, target))
        assert rule is not None
        return rule

    pivot = "SELECT * FROM t PIVOT (sum(v) FOR k IN ('a'))"
    unpivot = "SELECT * FROM t UNPIVOT (v FOR k IN (a, b))"
    assert rule_for(pivot, exp.Pivot, "spark", "duckdb") == Rule(PIVOT, "spark", "duckdb", PIVOT_EMPTY_CELLS)
    assert rule_for(pivot, exp.Pivot, "spark", "trino") == Rule(PIVOT, ANY, "trino", NO_PIVOT_IN_TRINO)
    assert rule_for(unpivot, exp.Pivot, "spark", "duckdb") == Rule(
        UNPIVOT, ANY, ANY, PIVOT_ONLY_SPARK_TO_DUCKDB
    )
    assert rule_for(unpivot, exp.Pivot, "spark", "trino") == Rule(UNPIVOT, ANY, "trino", NO_PIVOT_IN_TRINO)
    # casts: the type-aware check, with the ANSI concerns only when Spark is on either side
    cast = "SELECT CAST(a AS INT)"
    assert (
        rule_for(cast, exp.Cast, "trino", "duckdb").construct,
        rule_for(cast, exp.Cast, "trino", "duckdb").source,
    ) == (CAST, ANY)
    assert rule_for(cast, exp.Cast, "trino", "spark").target == "spark"
    assert rule_for(cast, exp.Cast, "spark", "duckdb").source == "spark"  # Spark's CAST is a TryCast node
    # function calls: the allow-list decides before a function's own rule
    assert rule_for("SELECT trunc(d, 'MM')", exp.DateTrunc, "spark", "duckdb").construct == SPARK_TRUNC
    assert rule_for("SELECT trunc(d, 'MM')", exp.DateTrunc, "spark", "trino").construct == SPARK_TRUNC
    trunc = "SELECT date_trunc('month', d)"
    assert rule_for(trunc, exp.TimestampTrunc, "duckdb", "trino").construct == TRUNC
    # on the allow-lists of DuckDB -> Spark and Trino -> Spark (allowlists.BY_DIRECTION), whose own
    # rules truncate without the session time zone; not on Spark's own list
    assert rule_for(trunc, exp.TimestampTrunc, "duckdb", "spark").construct == TRUNC
    assert rule_for(trunc, exp.TimestampTrunc, "duckdb", "spark").source == "duckdb"
    assert rule_for(trunc, exp.TimestampTrunc, "trino", "spark").source == "trino"
    assert rule_for("SELECT ln(d)", exp.Ln, "trino", "spark").construct == FUNCTION_CALL
    # a subclass of Cast that is on no allow-list is refused as a function, not checked as a cast
    json_cast = exp.JSONCast(this=exp.column("a"), to=exp.DataType.build("INT"))
    rule = RULES.lookup(json_cast, ctx("duckdb", "trino"))
    assert rule is not None and rule.construct == FUNCTION_CALL


def test_docs_hold_the_generated_verdict_table() -> None:
    from iceview.sql.translate.verdicts import verdict_table

    assert verdict_table() in DOCS.read_text(), "regenerate the table with iceview.sql.translate.verdicts"
