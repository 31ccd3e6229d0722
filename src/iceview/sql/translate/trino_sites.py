"""The sites :func:`.trino_gate.trino_gate` checks on one side of Trino only: what Trino refuses or
computes otherwise when a query goes into it, and what Trino's own SQL means that Spark and DuckDB
do not when it comes from it (see :mod:`.trino_gate` for the list and the evidence)."""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.optimizer.scope import traverse_scope

from iceview.sql.translate.checks import FLOATS, INTEGERS, TEXT, kind_of
from iceview.sql.translate.edges_both import zoned_kinds
from iceview.sql.translate.policy import Context
from iceview.sql.translate.spark_typing import Typer
from iceview.sql.translate.trino_edges import family

__all__ = ["FIELDS", "ISO_DATE", "NESTED", "TIMES", "correlated_fields", "family", "from_trino", "into_trino"]

_T = exp.DataType.Type
TIMES = frozenset({_T.DATE, _T.TIMESTAMP, _T.TIMESTAMPNTZ, _T.DATETIME, _T.TIMESTAMPTZ, _T.TIMESTAMPLTZ})
"""Dates and timestamps, with or without a time zone."""
NESTED = frozenset({_T.ARRAY, _T.STRUCT, _T.MAP})
_TRINO_UNITS = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"})
FIELDS = (
    exp.Extract,
    exp.Year,
    exp.Quarter,
    exp.Month,
    exp.Day,
    exp.Hour,
    exp.Minute,
    exp.Second,
    exp.WeekOfYear,
    exp.LastDay,
    exp.DayOfWeek,
    exp.DayOfWeekIso,
    exp.DayOfMonth,
    exp.DayOfYear,
    exp.DateTrunc,
    exp.TimestampTrunc,
)
_TEXT_FUNCTIONS = (
    exp.StrPosition,
    exp.Length,
    exp.Upper,
    exp.Lower,
    exp.Substring,
    exp.Left,
    exp.Right,
    exp.Trim,
    exp.Reverse,
    exp.Replace,
    exp.Pad,
    exp.Initcap,
)
_NUMERIC_FUNCTIONS = (
    exp.Ceil,
    exp.Floor,
    exp.Abs,
    exp.Round,
    exp.Sign,
    exp.Sqrt,
    exp.Exp,
    exp.Ln,
    exp.Log,
    exp.Pow,
    exp.Mod,
)
ISO_DATE = re.compile(
    r"\s*[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?)?\s*\Z"
)


# --------------------------------------------------------------------------------------------------
# into Trino


def into_trino(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    zoned = zoned_kinds(ctx)
    of = node.expression if isinstance(node, exp.Extract) else node.this
    if isinstance(node, (*FIELDS, *_TEXT_FUNCTIONS, *_NUMERIC_FUNCTIONS)) and isinstance(of, exp.Null):
        ctx.add(
            "implicit-cast",
            node,
            "a function of a bare NULL: Trino cannot choose among its overloads (CAST the NULL to a type)",
        )
    if isinstance(node, exp.Group):
        selects = node.parent.selects if isinstance(node.parent, exp.Select) else []
        for key in node.expressions:
            if (
                isinstance(key, exp.Literal)
                and not key.is_string
                and not 1 <= int(float(key.name)) <= len(selects)
            ):
                ctx.add(
                    "group-by-position",
                    key,
                    f"GROUP BY {key.name}: Trino reads an integer there as a position in the select list, "
                    f"{ctx.source} as a constant",
                )
    if isinstance(node, FIELDS) and isinstance(of, exp.Expr) and kind_of(of) in zoned:
        ctx.add(
            "time-zone",
            node,
            "a field of a timestamp with time zone: Trino reads it in the value's zone (UTC for Iceberg), "
            f"{ctx.source} in the session's",
        )
    elif (
        isinstance(node, exp.Cast) and kind_of(node.this) in zoned and node.to.this in (TIMES - zoned) | TEXT
    ):
        ctx.add(
            "time-zone",
            node,
            f"a timestamp with time zone cast to {node.to.sql(ctx.target)}: Trino converts in the value's zone, "
            f"{ctx.source} in the session's",
        )
    if isinstance(node, (exp.Neg, exp.Add, exp.Sub, exp.Mul, exp.Div)) and all(
        isinstance(o, exp.Null) for o in (node.this, node.args.get("expression")) if o is not None
    ):
        ctx.add(
            "implicit-cast",
            node,
            "arithmetic of NULL alone: Trino cannot choose the operator (CAST the NULL)",
        )
    if isinstance(node, (exp.Add, exp.Sub)) and kind_of(node.this) == _T.DATE:
        other = kind_of(node.expression)
        if other in INTEGERS or (isinstance(node.expression, exp.Literal) and not node.expression.is_string):
            ctx.add(
                "date-add",
                node,
                "a date plus or minus a number of days: Trino has no such operator (write date_add)",
            )
        elif other == _T.DATE:
            ctx.add(
                "interval-result",
                node,
                "a date minus a date: a number of days elsewhere, an interval in Trino",
            )
    if isinstance(node, exp.Interval):
        unit = node.args.get("unit")
        name = unit.name.upper().rstrip("S") if isinstance(unit, (exp.Var, exp.Literal)) else ""
        if name not in _TRINO_UNITS and not (ctx.source == "spark" and "TO" in name):
            ctx.add(
                "interval-literal",
                node,
                f"an interval of {name.lower() or 'several units'}: Trino's are one of year, month, day, hour, minute, second",
            )
    if isinstance(node, FIELDS) and not isinstance(node, exp.Extract) and family(node.this) == "text":
        ctx.add(
            "implicit-cast",
            node,
            f"a date field of text: Trino takes a date or timestamp, {ctx.source} converts it",
        )
    if isinstance(node, _NUMERIC_FUNCTIONS):
        for arg in node.iter_expressions():
            if family(arg) not in (None, "number"):
                ctx.add(
                    "implicit-cast",
                    node,
                    f"a numeric function of a {family(arg)}: Trino takes numbers there, {ctx.source} converts it",
                )
                break
    if isinstance(node, _TEXT_FUNCTIONS):
        _text_arguments(node, ctx)
    elif isinstance(node, (exp.Sum, exp.Avg)):
        _numeric_argument(node, ctx)
    elif isinstance(node, exp.CountIf):
        if family(node.this) not in (None, "BOOLEAN"):
            ctx.add("implicit-cast", node, f"count_if of a {family(node.this)}: Trino takes a BOOLEAN")
    elif isinstance(node, exp.Round):
        x = typer(node.this)
        if x.cls == "decimal" and (not x.exact or x.duck_p >= 38):
            ctx.add(
                "decimal-overflow",
                node,
                "round of a 38-digit decimal (or of one whose precision is not known): Trino keeps its scale "
                "and raises when the value rounds up beyond 38 digits",
            )
    elif (
        isinstance(node, exp.Ordered)
        and node.args.get("nulls_first")
        and kind_of(node.this) in FLOATS
        and isinstance(node.parent, exp.Order)
        and isinstance(node.parent.parent, exp.Select)
        and node.parent.parent.args.get("distinct")
    ):
        ctx.add(
            "nan-ordering",
            node,
            "SELECT DISTINCT ordered by a floating-point key with NULLs first: Trino moves NaN next to the NULLs, "
            "and the key that keeps them apart is not in the select list",
        )
    elif isinstance(node, exp.Ordered) and kind_of(node.this) in NESTED:
        ctx.add(
            "nested-ordering",
            node,
            "a sort key that is an array, struct or map: Trino refuses to compare arrays holding NULLs",
        )
    elif isinstance(node, (exp.Cast, exp.TryCast)):
        to = node.args["to"].this
        to_number = to in INTEGERS or to in FLOATS or to == _T.DECIMAL
        if (family(node.this) in ("number", "BOOLEAN") and to in TIMES) or (
            kind_of(node.this) in TIMES and to_number
        ):
            ctx.add(
                "cast-semantics",
                node,
                f"a cast between a {family(node.this)} and a date or timestamp: Trino has none, {ctx.source} converts",
            )
    elif isinstance(node, exp.TsOrDsAdd) and ctx.source == "spark" and not _constant(node.expression):
        ctx.add(
            "date-add",
            node,
            "date_add or date_sub by a value that is not a constant: legacy Spark wraps past the date range, Trino raises",
        )


def _constant(node: exp.Expr | None) -> bool:
    return node is not None and all(
        isinstance(n, (exp.Literal, exp.Neg, exp.Mul, exp.Paren))
        and not (isinstance(n, exp.Literal) and n.is_string)
        for n in node.walk()
    )


_TEXT_ARGUMENTS: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.StrPosition: ("substr",),
    exp.Replace: ("expression", "replacement"),
    exp.Trim: ("expression",),
    exp.Pad: ("fill_pattern",),
}
"""Besides ``this``, the arguments of a text function that are text (a length or position is not)."""


def _text_arguments(node: exp.Expr, ctx: Context) -> None:
    for arg in (node.this, *(node.args.get(k) for k in _TEXT_ARGUMENTS.get(type(node), ()))):
        of = family(arg) if isinstance(arg, exp.Expr) else None
        if of is not None and of not in ("text", "BINARY", "VARBINARY"):
            ctx.add(
                "implicit-cast",
                node,
                f"a string function of a {of}: Trino takes only varchar there, {ctx.source} converts it",
            )
            return


def _numeric_argument(node: exp.Expr, ctx: Context) -> None:
    arg = node.this
    if isinstance(arg, exp.Null):
        ctx.add("implicit-cast", node, "sum or avg of NULL: Trino cannot choose its type (CAST the NULL)")
        return
    of = family(arg)
    if of is not None and of not in ("number", "INTERVAL"):
        ctx.add("implicit-cast", node, f"sum or avg of a {of}: Trino takes numbers, {ctx.source} converts it")


def correlated_fields(tree: exp.Expr, ctx: Context) -> None:
    for scope in traverse_scope(tree):
        for column in scope.external_columns:
            if column.args.get("db") is not None or isinstance(column.parent, exp.Dot):
                ctx.add(
                    "correlated-field",
                    column,
                    "a correlated subquery whose correlation is a struct field: Trino does not support it",
                )


# --------------------------------------------------------------------------------------------------
# from Trino


def from_trino(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    if (
        isinstance(node, exp.Case)
        and node.this is not None
        and any(when.this == node.this for when in node.args.get("ifs") or [])
    ):
        ctx.add(
            "self-comparison", node, "CASE x WHEN x: Trino's optimizer folds it to true, even when x is NULL"
        )
    if isinstance(node, (exp.Cast, exp.TryCast)):
        to, of = node.args["to"].this, kind_of(node.this)
        cls = typer(node.this).cls
        if to == _T.DECIMAL and (
            of in FLOATS or cls in ("float", "double") or (cls == "unknown" and of not in INTEGERS | TEXT)
        ):
            ctx.add(
                "cast-semantics",
                node,
                f"a floating-point value (or one of unsettled type) cast to a decimal: Trino moves the cast out of a comparison, {ctx.target} "
                "fails (or gives NULL) on infinity and NaN",
            )
        elif to in (_T.TIMESTAMP, _T.TIMESTAMPTZ) and not node.args["to"].expressions and of != _T.DATE:
            ctx.add(
                "cast-semantics",
                node,
                "a cast to a TIMESTAMP without precision: Trino's holds milliseconds (rounding the microseconds), "
                f"{ctx.target}'s microseconds; write TIMESTAMP(6)",
            )
        elif of == _T.DOUBLE and to == _T.FLOAT and ctx.target == "duckdb":
            ctx.add(
                "cast-semantics",
                node,
                "a DOUBLE cast to a REAL: beyond REAL's range Trino gives infinity, DuckDB NULL (TRY_CAST) or an error",
            )
