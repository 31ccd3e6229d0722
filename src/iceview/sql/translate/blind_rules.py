"""Rows of the rules table found by an outside check (a tester who had not read the rules wrote
1,383 queries against the edge table, issue 27): constructs the rules let through unchanged whose
meaning differs between Spark and DuckDB.

* **Bit shifts.** Spark's ``shiftleft``/``shiftright`` wrap and take the shift count modulo the
  width (``shiftright(i, 33)`` is ``i >> 1``); DuckDB's ``<<``/``>>`` raise on overflow, on a negative
  operand or count, and give 0 for a count beyond the width: refused in every direction.
* **DuckDB's substring with a negative length** counts back from the start (``substring(s, 3, -2)``
  is the two characters before position 3); Spark's is ''.
* **DuckDB's interval literals** take forms Spark's parser does not (``'1 month 1 day'``,
  ``'1.5 hours'``, ``'01:30:00'``, ``INTERVAL (i) DAY``): only whole numbers of one unit family (years
  and months, or days down to microseconds) go through, plus fractional seconds.
* **A CTE's ``MATERIALIZED`` hint** (DuckDB) changes how the query runs, not its rows; Spark has no
  such syntax, so the hint is dropped.
"""

from __future__ import annotations

import re

from sqlglot import exp

from iceview.sql.translate import edges as e
from iceview.sql.translate.policy import (
    ANY,
    Check,
    Context,
    Refuse,
    Rewrite,
    Rule,
    call,
    construct,
    predicate,
)

__all__ = ["BLIND_RULES"]

_SHIFT = Refuse(
    "bit-shift",
    "Spark's shiftleft/shiftright wrap and take the count modulo the width; DuckDB's << and >> raise or give 0",
)

_YEAR_MONTH = r"(years?|months?|mons?|y|yrs?)"
_DAY_TIME = (
    r"(weeks?|days?|d|hours?|h|hrs?|minutes?|m|mins?|seconds?|s|secs?|milliseconds?|ms|microseconds?|us)"
)
_PART = r"\s*[+-]?[0-9]+\s*{unit}\s*"
_ONE_FAMILY = re.compile(
    rf"(({_PART.format(unit=_YEAR_MONTH)})+|({_PART.format(unit=_DAY_TIME)})+|\s*[+-]?[0-9]+(\.[0-9]+)?\s*seconds?\s*)\Z",
    re.IGNORECASE,
)
_UNITS = frozenset({"YEAR", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"})


def _interval_literal(node: exp.Expr, ctx: Context) -> None:
    value, unit = node.this, node.args.get("unit")
    if unit is None:
        ok = isinstance(value, exp.Literal) and value.is_string and bool(_ONE_FAMILY.match(value.name))
    else:
        name = unit.name.upper().rstrip("S") if isinstance(unit, (exp.Var, exp.Literal)) else ""
        ok = (
            name in _UNITS
            and isinstance(value, exp.Literal)
            and re.fullmatch(
                r"\s*[+-]?[0-9]+(\.[0-9]+)?\s*" if name == "SECOND" else r"\s*[+-]?[0-9]+\s*", value.name
            )
            is not None
        )
    if ok and ctx.target == "trino" and "." in value.name:
        ok = False  # Trino's day-to-second intervals hold milliseconds
    if not ok:
        ctx.add(
            "interval-literal",
            node,
            "an interval other than whole numbers of one unit family (or fractional seconds): DuckDB reads forms Spark does not",
        )


INTERVAL_LITERAL = Check("interval of whole units of one family", (_interval_literal,), ("interval-literal",))


def _drop_materialized(node: exp.Expr) -> None:
    node.set("materialized", None)


DROP_MATERIALIZED = Rewrite("the CTE without its MATERIALIZED hint", _drop_materialized)
MATERIALIZED_CTE = predicate(
    "CTE with a MATERIALIZED hint", exp.CTE, lambda n, _: n.args.get("materialized") is not None
)

BLIND_RULES: tuple[Rule, ...] = (
    Rule(construct(exp.BitwiseLeftShift, exp.BitwiseRightShift, name="bit shift"), ANY, ANY, _SHIFT),
    Rule(call(exp.Substring), "duckdb", ANY, e.POSITIVE_LENGTH),
    Rule(construct(exp.Interval), "duckdb", ANY, INTERVAL_LITERAL),
    Rule(MATERIALIZED_CTE, "duckdb", ANY, DROP_MATERIALIZED),
)
"""The rows this module adds to the rules table."""
