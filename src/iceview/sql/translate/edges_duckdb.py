"""Rules found by the differential edge suite from DuckDB into Spark
(``tests/translate/test_edge_duckdb.py``): what DuckDB 2.0.1 computes differently from Spark 3.5.9
(ANSI and legacy) on edge data, as type-aware checks and exact rewrites.

DuckDB's ``sum`` of integers is a ``HUGEINT`` (no overflow), Spark's a ``BIGINT`` (legacy wraps,
ANSI raises): it is rewritten to sum ``DECIMAL(38, 0)``, the type a view stores for ``HUGEINT``.
DuckDB divides and averages decimals in doubles where Spark computes decimals; Spark reduces the
scale of a decimal sum or product beyond 38 digits where DuckDB keeps it or raises; DuckDB's ``//``
of a decimal or double is a fraction where Spark's ``DIV`` truncates to a ``BIGINT``.
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate.checks import INTEGERS
from iceview.sql.translate.checks import kind_of as _kind
from iceview.sql.translate.edges import _decimal, _is_literal
from iceview.sql.translate.policy import Check, Context, Rewrite

_T = exp.DataType.Type


def _spark_result_precision(node: exp.Expr) -> int | None:
    """Spark's unbounded result precision of a decimal ``+ - *`` (before it caps it at 38), or None
    when no operand is a decimal or an operand's type is unknown."""
    if _kind(node.this) != _T.DECIMAL and _kind(node.expression) != _T.DECIMAL:
        return None
    a, b = _decimal(node.this), _decimal(node.expression)
    if a is None or b is None:
        return None
    (p1, s1), (p2, s2) = a, b
    if isinstance(node, exp.Mul):
        return p1 + p2 + 1
    return max(s1, s2) + max(p1 - s1, p2 - s2) + 1


def _decimal_precision_loss(node: exp.Expr, ctx: Context) -> None:
    precision = _spark_result_precision(node)
    if precision is not None and precision > 38:
        ctx.add(
            "decimal-overflow",
            node,
            f"a decimal result of {precision} digits: Spark caps it at 38 and reduces the scale "
            "(spark.sql.decimalOperations.allowPrecisionLoss), DuckDB keeps the scale or raises",
        )


DECIMAL_PRECISION_LOSS = Check(
    "decimal arithmetic within 38 digits", (_decimal_precision_loss,), ("decimal-overflow",)
)


def _decimal_in_doubles(node: exp.Expr, ctx: Context) -> None:
    operands = [node.this] if isinstance(node, exp.Avg) else [node.this, node.expression]
    kinds = [_kind(o) for o in operands]
    if _T.DECIMAL in kinds or (isinstance(node, exp.Avg) and kinds[0] is None):
        ctx.add(
            "decimal-division",
            node,
            "DuckDB divides and averages decimals in doubles; Spark computes a decimal at its own scale",
        )


DECIMAL_IN_DOUBLES = Check("division or avg of non-decimals", (_decimal_in_doubles,), ("decimal-division",))


def _int_div_operands(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) not in INTEGERS or _kind(node.expression) not in INTEGERS:
        ctx.add(
            "div-semantics",
            node,
            "DuckDB's // of a decimal or double is a fraction; Spark's DIV truncates to a BIGINT (and takes no doubles)",
        )


INT_DIV_OPERANDS = Check("// of integers", (_int_div_operands,), ("div-semantics",))


def _sum_operand_kind(operand: exp.Expr) -> exp.DType | None:
    inner = operand.this if isinstance(operand, exp.Paren) else operand
    if isinstance(inner, exp.Round) and _kind(inner.this) in INTEGERS:
        return _kind(inner.this)  # round of an integer is that integer type in both engines
    return _kind(operand)


def _sum_in_decimal(node: exp.Expr, ctx: Context) -> None:
    k = _sum_operand_kind(node.this)
    if k is None:
        ctx.add(
            "integer-overflow",
            node,
            "sum of an operand of unknown type: DuckDB sums integers in HUGEINT, Spark in BIGINT (pass the table schemas)",
        )
    elif k in INTEGERS:
        ctx.rewrites.append((SUM_AS_HUGEINT, node))


def _cast_sum_operand(node: exp.Expr) -> None:
    node.set("this", exp.Cast(this=node.this.copy(), to=exp.DataType.build("DECIMAL(38, 0)")))


SUM_AS_HUGEINT = Rewrite("sum(CAST(x AS DECIMAL(38, 0)))", _cast_sum_operand)
SUM_OF_INTEGERS = Check("sum of integers in HUGEINT", (_sum_in_decimal,), ("integer-overflow",))


# --------------------------------------------------------------------------------------------------
# integer arithmetic DuckDB does not evaluate (found by the generated queries)

_TRY: dict[type[exp.Expr], str] = {exp.Add: "try_add", exp.Sub: "try_subtract", exp.Mul: "try_multiply"}


def _operands(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        return [node.this, node.expression]
    return [node.this]


def _plain(node: exp.Expr) -> bool:
    """A column or a literal: safe to name twice."""
    inner = node.this if isinstance(node, exp.Paren) else node
    return isinstance(inner, (exp.Column, exp.Literal))


def _try_integer_arithmetic(node: exp.Expr, ctx: Context) -> None:
    operands = _operands(node)
    if all(_is_literal(o) for o in operands) or not all(_kind(o) in INTEGERS for o in operands):
        return
    if isinstance(node, exp.Abs) and not _plain(node.this):
        ctx.add(
            "integer-overflow",
            node,
            "abs of integer arithmetic: DuckDB may never compute it for rows it filters out, Spark may, and overflows",
        )
        return
    ctx.rewrites.append((TRY_INTEGER_ARITHMETIC, node))


def _as_try(node: exp.Expr) -> None:
    zero = exp.Literal.number(0)
    if isinstance(node, exp.Abs):
        value = node.this
        new: exp.Expr = exp.If(
            this=exp.LT(this=value.copy(), expression=zero.copy()),
            true=exp.Anonymous(this="try_subtract", expressions=[zero, value.copy()]),
            false=value,
        )
    elif isinstance(node, exp.Neg):
        new = exp.Anonymous(this="try_subtract", expressions=[zero, node.this])
    else:
        new = exp.Anonymous(this=_TRY[type(node)], expressions=[node.this, node.expression])
    node.replace(new)


TRY_INTEGER_ARITHMETIC = Rewrite(
    "integer + - * and abs as Spark's try_add, try_subtract, try_multiply", _as_try
)
TRY_INTEGER = Check(
    "integer arithmetic that DuckDB computed without overflow",
    (_try_integer_arithmetic,),
    ("integer-overflow",),
)
"""DuckDB raises on integer overflow for every value it computes, but it does not compute every
value Spark does: it evaluates the cheaper conjunct of an ``AND`` first, computes a projection only
for the rows a ``LIMIT`` keeps, and moves constants across comparisons. Spark computes them, and
ANSI Spark raises where DuckDB never looked. Spark's ``try_*`` functions give the same value where
DuckDB computed one (it did not overflow) and NULL, not an error, where it did not compute one."""
