"""After generation: the output, re-parsed in the target dialect, compared with the input, so that
nothing sqlglot dropped or left unknown to the target goes unnoticed."""

from __future__ import annotations

import re

from sqlglot import exp

from iceview.sql.translate.allowlists import KNOWN_FUNCTIONS
from iceview.sql.translate.model import TranslationIssue, short

COMPARE_CODES = frozenset({"dropped", "unknown-function"})
"""The refusal codes the comparison gives."""

_ENGINES = {"spark": "Spark", "trino": "Trino", "duckdb": "DuckDB"}


def _relations(tree: exp.Expr) -> list[str]:
    names = []
    for t in tree.find_all(exp.Table):
        if isinstance(t.this, exp.Func) or not t.name:
            continue
        names.append(".".join(p.name.lower() for p in t.parts))
    return sorted(names)


def _clauses(tree: exp.Expr) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for node in tree.find_all(
        exp.Where,
        exp.Group,
        exp.Having,
        exp.Order,
        exp.Limit,
        exp.Join,
        exp.Window,
        exp.Union,
        exp.Intersect,
        exp.Except,
        exp.Distinct,
    ):
        k = type(node).__name__
        counts[k] = counts.get(k, 0) + 1
    return sorted(counts.items())


_NOT_CALLS = (
    exp.Cast,
    exp.Case,
    exp.Paren,
    exp.Unnest,
    exp.Array,
    exp.Struct,
    exp.Extract,
    exp.Filter,
    exp.If,
    exp.Exists,
    exp.And,
    exp.Or,
    exp.Not,
)


def compare(before: exp.Expr, after: exp.Expr, src: str, dst: str) -> list[TranslationIssue]:
    """What the output (``after``, re-parsed in ``dst``) lost compared to the rewritten input
    (``before``): relations, clauses, columns; and, for a target with a known function list
    (:data:`~iceview.sql.translate.allowlists.KNOWN_FUNCTIONS`), calls of functions it lacks."""
    issues: list[TranslationIssue] = []
    construct = short(before, src)
    if _relations(before) != _relations(after):
        issues.append(
            TranslationIssue(
                "dropped",
                construct,
                f"the {dst} output reads other relations ({', '.join(_relations(after))}) than the input ({', '.join(_relations(before))})",
            )
        )
    b, a = dict(_clauses(before)), dict(_clauses(after))
    # LATERAL VIEW becomes a join (a LATERAL subquery already is one)
    b_joins = b.get("Join", 0) + sum(
        1 for x in before.find_all(exp.Lateral) if not isinstance(x.parent, exp.Join)
    )
    for k in set(b) | set(a):
        want = b_joins if k == "Join" else b.get(k, 0)
        if a.get(k, 0) < want:
            issues.append(
                TranslationIssue(
                    "dropped", construct, f"the {dst} output has fewer {k} clauses than the input"
                )
            )
    if (
        isinstance(before, exp.Select)
        and isinstance(after, exp.Select)
        and len(before.expressions) != len(after.expressions)
    ):
        issues.append(
            TranslationIssue(
                "dropped",
                construct,
                f"the {dst} output has {len(after.expressions)} columns, the input {len(before.expressions)}",
            )
        )
    known = KNOWN_FUNCTIONS.get(dst)
    if known is not None:
        for f in after.find_all(exp.Func):
            if isinstance(f, _NOT_CALLS):
                continue
            name = (
                f.name.lower()
                if isinstance(f, exp.Anonymous)
                else f.sql(dialect=dst).split("(", 1)[0].strip().lower()
            )
            if name and re.fullmatch(r"[a-z_][a-z0-9_]*", name) and name not in known:
                issues.append(
                    TranslationIssue(
                        "unknown-function", short(f, dst), f"{name}() is not a {_ENGINES[dst]} function"
                    )
                )
    return issues
