"""The type-keyed checks that the generated queries and a blind outside check found, beside the
proven pairs of :mod:`.signatures`: times and daylight saving, window frames, text forms, literals
Spark folds, sums that overflow, and decimals whose Spark type the older rules misread. Each takes a
node, Spark's typing of the query (:class:`~.spark_typing.Typer`) and the translation's context."""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate.checks import INTEGERS, decimal_params, type_of
from iceview.sql.translate.model import short
from iceview.sql.translate.policy import Context
from iceview.sql.translate.spark_typing import MAX_PRECISION, Ty, Typer

_T = exp.DataType.Type

_DAY_UNITS = frozenset(
    {"DAY", "DAYS", "WEEK", "WEEKS", "MONTH", "MONTHS", "QUARTER", "QUARTERS", "YEAR", "YEARS"}
)


def _interval_unit(node: exp.Expr) -> str:
    unit = node.args.get("unit") if isinstance(node, exp.Interval) else None
    return unit.name.upper() if unit is not None else ""


def time_and_text(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    """What the blind outside check found about times, frames, text forms and literals."""
    if isinstance(node, (exp.Add, exp.Sub)):
        for value, other in ((node.this, node.expression), (node.expression, node.this)):
            cls = typer(value).cls
            if isinstance(other, exp.Interval) and (
                cls == "timestamp" or (cls == "date" and _interval_unit(other) not in _DAY_UNITS)
            ):
                ctx.add(
                    "time-zone",
                    node,
                    "an interval added to a TIMESTAMP (or hours to a DATE) crosses daylight-saving changes in the session time zone in Spark, exactly in DuckDB",
                )
                break
    if isinstance(node, exp.AtTimeZone):
        ctx.add("time-zone", node, "AT TIME ZONE means another conversion in Spark (from_utc_timestamp)")
    formatted = node.this.this if isinstance(node.this, exp.TimeStrToTime) else node.this
    if isinstance(node, exp.TimeToStr) and typer(formatted).cls in ("timestamp", "timestamp_ntz"):
        ctx.add(
            "time-zone",
            node,
            "date_format of a timestamp reads it in Spark's session time zone (a time in a daylight-saving gap moves), DuckDB does not",
        )
    if isinstance(node, exp.WindowSpec):
        kind = str(node.args.get("kind") or "").upper()
        offsets = [node.args.get(k) for k in ("start", "end")]
        valued = any(isinstance(o, exp.Expr) for o in offsets)
        if kind == "GROUPS" or (kind == "RANGE" and valued):
            ctx.add(
                "range-frame",
                node,
                "a RANGE frame with an offset (or GROUPS): Spark wraps or refuses at the key's limits and types, DuckDB raises",
            )
    if isinstance(node, exp.ILike):
        ctx.add(
            "unicode-case",
            node,
            "ILIKE folds case by Java's rules in Spark (İ, final sigma) and by DuckDB's in DuckDB",
        )
    if not ctx.spark_ansi:
        texts: list[exp.Expr] = []
        if isinstance(node, (exp.Cast, exp.TryCast)) and typer(node).cls == "text":
            texts = [node.this]
        elif isinstance(node, (exp.Concat, exp.ConcatWs, exp.DPipe)):
            texts = (
                [node.this, *node.expressions]
                if not isinstance(node, exp.DPipe)
                else [node.this, node.expression]
            )
        elif isinstance(node, TEXT_FUNCTIONS):
            texts = [node.this]
        if any(isinstance(t, exp.Expr) and typer(t).cls == "decimal" for t in texts):
            ctx.add(
                "cast-semantics",
                node,
                "a decimal as text: legacy Spark writes small values in scientific notation (0E-10), DuckDB plain digits",
            )
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Abs)):
        value = folded_int(node)
        bound = 2**63 if typer(node).p >= 20 else 2**31  # Spark computes in the operands' type
        if value is not None and not -bound <= value < bound:
            ctx.add(
                "integer-overflow",
                node,
                "integer arithmetic on literals beyond their type: legacy Spark folds it with wrap-around and ANSI Spark raises, DuckDB widens",
            )


def folded_int(node: exp.Expr) -> int | None:
    """The value of integer arithmetic on integer literals, or None."""
    if isinstance(node, exp.Paren):
        return folded_int(node.this)
    if isinstance(node, exp.Literal) and not node.is_string and node.name.isdigit():
        return int(node.name)
    if isinstance(node, exp.Cast) and node.to.this in INTEGERS:
        return folded_int(node.this)
    if isinstance(node, (exp.Neg, exp.Abs)):
        inner = folded_int(node.this)
        return None if inner is None else -inner if isinstance(node, exp.Neg) else abs(inner)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        a, b = folded_int(node.this), folded_int(node.expression)
        if a is None or b is None:
            return None
        return a + b if isinstance(node, exp.Add) else a - b if isinstance(node, exp.Sub) else a * b
    return None


TEXT_FUNCTIONS = (
    exp.Trim,
    exp.Upper,
    exp.Lower,
    exp.Length,
    exp.Substring,
    exp.Left,
    exp.Right,
    exp.Pad,
    exp.Replace,
    exp.StrPosition,
    exp.Repeat,
    exp.Reverse,
    exp.Ascii,
    exp.StartsWith,
    exp.Like,
    exp.ILike,
)
NO_COMMON_TEXT = frozenset(
    {"float", "double", "timestamp", "timestamp_ntz", "array", "struct", "map", "binary"}
)


def may_overflow_inside(query: exp.Expr, typer: Typer) -> bool:
    return any(typer(n).cls == "int" for n in query.find_all(exp.Add, exp.Sub, exp.Mul, exp.Neg))


def sum_overflow(node: exp.Expr, operand: Ty, ctx: Context) -> None:
    """A sum that may overflow: legacy Spark wraps a BIGINT sum and returns NULL for a decimal one
    beyond 38 digits, DuckDB sums in 128 bits (a BIGINT sum fails as the view's BIGINT) or raises."""
    if (
        operand.cls == "int" and operand.p in (0, 20) and ctx.source == "spark"
    ):  # from DuckDB: summed as DECIMAL(38, 0)
        ctx.add(
            "integer-overflow",
            node,
            "a sum of BIGINT values may overflow: legacy Spark wraps, DuckDB does not",
        )
    elif operand.cls == "decimal" and (not operand.exact or operand.p + 10 > MAX_PRECISION):
        ctx.add(
            "decimal-overflow",
            node,
            f"a sum of {operand} may exceed 38 digits: legacy Spark returns NULL, DuckDB raises",
        )


_DAYS = 1_000_000


def date_add(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    """Spark's ``date_add``/``date_sub``: of a ``DATE`` or ``TIMESTAMP_NTZ``, by an integer literal."""
    start = typer(node.this).cls
    if start == "timestamp":
        ctx.add(
            "time-zone",
            node,
            "date_add of a TIMESTAMP takes its date in the session time zone, which the target does not share",
        )
    elif start not in ("date", "timestamp_ntz"):
        ctx.add("type-signature", node, f"date_add of a {start} is not a proven signature (CAST it to DATE)")
    amount = node.expression
    if isinstance(amount, exp.Mul) and amount.expression == exp.Neg(this=exp.Literal.number(1)):
        amount = amount.this  # date_sub(d, n) is date_add(d, n * -1)
    while isinstance(amount, (exp.Paren, exp.Neg)):
        amount = amount.this
    if not (
        isinstance(amount, exp.Literal)
        and not amount.is_string
        and amount.name.isdigit()
        and int(amount.name) <= _DAYS
    ):
        ctx.add(
            "date-add",
            node,
            "date_add by anything but an integer literal: legacy Spark wraps at the day count's limits, "
            "DuckDB adds an interval to a TIMESTAMP and raises beyond its range",
        )


COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_INT_RANGE = {3: 2**7, 5: 2**15, 10: 2**31}


def folded_comparison(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    """Integer arithmetic compared with a literal beyond its type's range: Spark's optimizer folds
    the comparison to a constant and never computes the arithmetic, which may overflow in DuckDB."""
    for side, other in ((node.this, node.expression), (node.expression, node.this)):
        while isinstance(other, exp.Paren):
            other = other.this
        literal = other.this if isinstance(other, exp.Neg) else other
        t = typer(side)
        if not (isinstance(literal, exp.Literal) and not literal.is_string and t.cls == "int"):
            continue
        bound = _INT_RANGE.get(t.p)
        arithmetic = side.find(exp.Add, exp.Sub, exp.Mul, exp.Neg, exp.Abs) is not None
        if bound is not None and arithmetic and typer(other).cls == "int" and typer(other).p > t.p:
            ctx.add(
                "integer-overflow",
                node,
                "Spark folds a comparison with a literal beyond the operand's type to a constant and skips arithmetic that overflows in DuckDB",
            )
            return


def known_decimal(node: exp.Expr, operand: exp.Expr, typer: Typer, ctx: Context) -> bool:
    """Whether a decimal operand's Spark type is the one the rules of :mod:`.edges` size their
    CAST from (sqlglot's annotation); if not, refuse ``node``."""
    ty = typer(operand)
    if ty.cls != "decimal":
        return True
    known = type_of(operand)
    params = decimal_params(known) if known is not None and known.this == _T.DECIMAL else None
    if ty.exact and params == (ty.p, ty.s):
        return True
    ctx.add(
        "decimal-precision",
        node,
        f"the Spark type of {short(operand, ctx.source, 60)} ({ty}) is not known exactly to the decimal rules (write a CAST)",
    )
    return False
