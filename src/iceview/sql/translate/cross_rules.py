"""Rows of the rules table found by the corpora per source dialect (``tests/translate/test_directions.py``,
``docs/translation.md``): what DuckDB, Trino and Spark mean differently between DuckDB and Trino, and
what DuckDB's overloaded functions mean in the other engines.

* DuckDB's ``len``/``length`` takes a list as well as a string; Spark's and Trino's ``length`` take
  a string only (a list fails there, or would need ``size``/``cardinality``, whose NULL handling
  differs): refused unless the argument is known to be text.
* DuckDB's ``count_if`` is NULL over no rows or only NULLs; Trino's (and Spark's) is 0. From Trino
  into DuckDB it is rewritten as ``COALESCE(count_if(...), 0)`` (checked in DuckDB 2.0.1); from
  DuckDB it is refused (no expression of the others' gives DuckDB's NULL).
* Searching an array that holds a NULL for a value it does not hold: Trino's ``contains`` (and
  Spark's ``array_contains``) is NULL, DuckDB's ``list_contains`` false. Trino into DuckDB reuses
  the three-valued rewrite of Spark into DuckDB; DuckDB into Trino is refused.
* ``GROUP BY ALL``: Trino's ``ALL`` is a set quantifier before grouping elements, not DuckDB's
  "every non-aggregate column" (sqlglot writes ``GROUP BY ALL`` unchanged): refused.
* DuckDB divides and averages decimals in doubles; Trino keeps decimals at its own scale: refused
  into Trino as into Spark.
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate import edges as e
from iceview.sql.translate import edges_duckdb as ed
from iceview.sql.translate.checks import TEXT, kind_of
from iceview.sql.translate.policy import ANY, Check, Context, Refuse, Rule, call, exactly, predicate

__all__ = ["CROSS_RULES", "CROSS_RULE_CODES"]


def _length_of_text(node: exp.Expr, ctx: Context) -> None:
    arg = node.this
    if (isinstance(arg, exp.Literal) and arg.is_string) or (kind := kind_of(arg)) in TEXT:
        return
    what = "an operand of unknown type (pass the table schemas)" if kind is None else f"a {kind.value}"
    ctx.add(
        "length-of-list",
        node,
        f"length of {what}: DuckDB's len/length also counts list elements; {ctx.target}'s length takes a string",
    )


LENGTH_OF_TEXT = Check("length of a string", (_length_of_text,), ("length-of-list",))

_COUNT_IF_NULL = Refuse(
    "count-if-null",
    "DuckDB's count_if is NULL over no rows or only NULLs, {target}'s is 0",
)
_CONTAINS_NULL = Refuse(
    "array-contains-null",
    "list_contains is false in DuckDB when the value is not found and the list holds a NULL; Trino's contains is NULL",
)
_GROUP_BY_ALL = Refuse(
    "group-by-all",
    "DuckDB's GROUP BY ALL groups by every non-aggregate column; in Trino ALL is a set quantifier",
)

GROUP_BY_ALL = predicate("GROUP BY ALL", exp.Group, lambda n, _: bool(n.args.get("all")))

CROSS_RULES: tuple[Rule, ...] = (
    Rule(call(exp.Length), "duckdb", ANY, LENGTH_OF_TEXT),
    Rule(call(exp.CountIf), "trino", "duckdb", e.COUNT_IF_ZERO),
    Rule(call(exp.CountIf), "duckdb", ANY, _COUNT_IF_NULL),
    Rule(call(exp.ArrayContains), "trino", "duckdb", e.ARRAY_CONTAINS_NULLS),
    Rule(call(exp.ArrayContains), "duckdb", "trino", _CONTAINS_NULL),
    Rule(GROUP_BY_ALL, "duckdb", "trino", _GROUP_BY_ALL),
    Rule(exactly(exp.Div), "duckdb", "trino", ed.DECIMAL_IN_DOUBLES),
    Rule(call(exp.Avg), "duckdb", "trino", ed.DECIMAL_IN_DOUBLES),
)
"""The rows of the rules table between DuckDB and Trino, and from DuckDB's overloaded functions."""

CROSS_RULE_CODES = frozenset(code for r in CROSS_RULES for code in r.codes())
"""Every refusal code these rows may give."""
