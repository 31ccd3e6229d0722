"""Decimal products, quotients and averages from Spark into DuckDB, by Spark's types and rounding.

* **Products.** DuckDB types ``DECIMAL(p1, s1) * DECIMAL(p2, s2)`` as ``DECIMAL(18, s1 + s2)`` when
  both operands fit 18 digits, and raises when the product does not fit; Spark's product is
  ``DECIMAL(p1 + p2 + 1, s1 + s2)``. The left operand is widened to ``DECIMAL(38, s1)``, with
  ``p1``/``s1`` as *Spark* types the operand (``spark_typing.Typer``: ``dec2 * 1.5`` is
  ``DECIMAL(14, 3)``, which sqlglot's own typing does not know). A product with an operand whose
  precision Spark's rules do not settle here is refused.
* **Quotients and averages.** DuckDB divides decimals, and averages them, in doubles. A double is
  near the exact quotient, but Spark rounds the exact quotient half up: where that quotient ends in
  a 5 just past the result's scale (``5.55 / 160 = 0.0346875``; an ``avg`` over 32 rows), the double
  falls on either side and the cast rounds it the other way. So the quotient is computed in
  integers (HUGEINT): both operands scaled to integers, divided with the remainder deciding the
  half-up rounding, and scaled back; ``avg`` is the sum divided by the count so.
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate.checks import kind_of as _kind
from iceview.sql.translate.checks import nonzero_literal
from iceview.sql.translate.edges import DOUBLE_DIGITS, MAX_PRECISION, spark_avg_type, spark_divide_type
from iceview.sql.translate.policy import Check, Context, Rewrite
from iceview.sql.translate.spark_typing import Ty, int_as_decimal, int_literal_as_decimal, spark_typer

__all__ = ["DECIMAL_AVG", "DECIMAL_DIVISION", "DECIMAL_PRODUCT", "exact_quotient"]

_HUGEINT_DIGITS = 37
"""Digits of a HUGEINT (2**127 - 1, about 1.7e38) that :func:`_half_up` can double."""


# --------------------------------------------------------------------------------------------------
# products


def _decimal_operands(node: exp.Expr, ctx: Context) -> tuple[Ty, Ty] | None:
    """Spark's types of a product's or quotient's operands when it is decimal arithmetic (an
    operand whose type is not settled as a decimal is ``exact=False``); None when it is not (a
    double, or no decimal at all)."""
    typer = spark_typer(ctx, node)
    a, b = typer(node.this), typer(node.expression)
    if {"double", "float"} & {a.cls, b.cls}:
        return None  # in doubles in both engines
    sqlglot_decimal = exp.DataType.Type.DECIMAL in (_kind(node.this), _kind(node.expression))
    if "decimal" not in (a.cls, b.cls) and not sqlglot_decimal:
        return None
    x = int_as_decimal(int_literal_as_decimal(node.this, a) if b.cls == "decimal" else a)
    y = int_as_decimal(int_literal_as_decimal(node.expression, b) if a.cls == "decimal" else b)
    if not (x.cls == y.cls == "decimal"):
        return Ty("decimal", exact=False), Ty("decimal", exact=False)
    return x, y


def _decimal_product(node: exp.Expr, ctx: Context) -> None:
    operands = _decimal_operands(node, ctx)
    if operands is None:
        return
    x, y = operands
    if not (x.exact and y.exact):
        ctx.add(
            "decimal-overflow",
            node,
            "a decimal product whose operands' precision is not known here: DuckDB may raise where Spark returns a value",
        )
        return
    if x.p + y.p + 1 > MAX_PRECISION:
        ctx.add(
            "decimal-overflow",
            node,
            "a decimal product beyond 38 digits: Spark reduces the scale (legacy: NULL on overflow), DuckDB raises",
        )
        return
    if x.duck_p + y.duck_p > 18:
        ctx.rewrites.append((_widen(x.s), node))


def _widen(scale: int) -> Rewrite:
    def fn(node: exp.Expr) -> None:
        # DuckDB types DECIMAL(p1, s1) * DECIMAL(p2, s2) as DECIMAL(18, s1 + s2) unless an operand is wider
        node.set("this", exp.Cast(this=node.this.copy(), to=exp.DataType.build(f"DECIMAL(38, {scale})")))

    return Rewrite("widen a decimal product to Spark's precision", fn)


DECIMAL_PRODUCT = Check("decimal product within 38 digits", (_decimal_product,), ("decimal-overflow",))


# --------------------------------------------------------------------------------------------------
# quotients


def _scaled(value: exp.Expr, scale: int, by: int) -> exp.Expr:
    """``value`` (a decimal of ``scale``) times ``10 ** by`` as a HUGEINT (exact: ``by >= scale``;
    the decimal's digits plus its scale fit 38, and so does the result)."""
    if not scale:
        integer: exp.Expr = exp.Cast(this=value, to=exp.DataType.build("HUGEINT"))
        if by:
            power = exp.Cast(this=exp.Literal.number(10**by), to=exp.DataType.build("HUGEINT"))
            integer = exp.Mul(this=integer, expression=power)
        return integer
    widened = exp.Cast(this=value, to=exp.DataType.build(f"DECIMAL(38, {scale})"))
    unit = exp.Cast(this=exp.Literal.number(10**scale), to=exp.DataType.build(f"DECIMAL({scale + 1}, 0)"))
    integer = exp.Cast(this=exp.Mul(this=widened, expression=unit), to=exp.DataType.build("HUGEINT"))
    if by > scale:
        rest = exp.Cast(this=exp.Literal.number(10 ** (by - scale)), to=exp.DataType.build("HUGEINT"))
        integer = exp.Mul(this=integer, expression=rest)
    return integer


def _half_up(n: exp.Expr, d: exp.Expr) -> exp.Expr:
    """``n / d`` rounded half away from zero, in integers (``n`` and ``d`` HUGEINT, ``d`` not 0,
    ``|n|`` below 10**37): DuckDB's ``//`` truncates, so ``(2n + sign(n) |d|) // 2d``."""
    twice_n = exp.Mul(this=exp.Literal.number(2), expression=exp.Paren(this=n.copy()))
    nudge = exp.Mul(this=exp.Sign(this=n.copy()), expression=exp.Abs(this=d.copy()))
    twice_d = exp.Mul(this=exp.Literal.number(2), expression=exp.Paren(this=d.copy()))
    return exp.IntDiv(
        this=exp.Paren(this=exp.Add(this=twice_n, expression=nudge)), expression=exp.Paren(this=twice_d)
    )


def _unscaled_to_decimal(q: exp.Expr, precision: int, scale: int) -> exp.Expr:
    """The decimal whose unscaled value is the integer ``q``, as ``DECIMAL(precision, scale)``."""
    value: exp.Expr = exp.Cast(this=q, to=exp.DataType.build("DECIMAL(38, 0)"))
    if scale:
        unit = exp.Cast(
            this=exp.Literal.string("0." + "0" * (scale - 1) + "1"),
            to=exp.DataType.build(f"DECIMAL({scale}, {scale})"),
        )
        value = exp.Mul(this=value, expression=unit)
    return exp.Cast(this=value, to=exp.DataType.build(f"DECIMAL({precision}, {scale})"))


def exact_quotient(a: exp.Expr, b: exp.Expr, sa: int, sb: int, result: tuple[int, int]) -> exp.Expr:
    """DuckDB SQL for Spark's ``a / b`` (decimals of scales ``sa`` and ``sb``) as ``DECIMAL(*result)``,
    rounded half up, NULL when ``b`` is 0."""
    precision, scale = result
    # a / b at `scale` = (a * 10**(scale + sb)) / (b * 10**sb), both sides integers
    n = _scaled(a.copy(), sa, scale + sb)
    d = _scaled(b.copy(), sb, sb)
    q = _half_up(n, d)
    if nonzero_literal(b):
        return _unscaled_to_decimal(q, precision, scale)
    zero = exp.EQ(this=b.copy(), expression=exp.Literal.number(0))
    return exp.Case(
        ifs=[exp.If(this=zero, true=exp.Null())], default=_unscaled_to_decimal(q, precision, scale)
    )


def _fits(*digits: int) -> bool:
    return all(d <= _HUGEINT_DIGITS for d in digits)


def _decimal_division(node: exp.Expr, ctx: Context) -> None:
    operands = _decimal_operands(node, ctx)
    if operands is None:
        return
    x, y = operands
    if not (x.exact and y.exact):
        ctx.add("decimal-division", node, "a decimal division with an operand of unknown type")
        return
    precision, scale = spark_divide_type((x.p, x.s), (y.p, y.s))
    # the dividend times 10 ** (scale + sb), and the divisor times 10 ** sb, as HUGEINTs
    # Spark divides at scale 38 before it rounds to `scale`: the same as rounding once while the
    # divisor's unscaled value is below 10 ** (37 - scale)
    if not _fits(x.p + x.s, x.p - x.s + scale + y.s, y.p + y.s) or y.p + y.s > 37 - scale:
        ctx.add(
            "decimal-division",
            node,
            f"Spark divides decimals exactly (DECIMAL({precision}, {scale})); iceview computes that in DuckDB's 128-bit integers, which these operands do not fit",
        )
        return
    ctx.rewrites.append((_quotient(x.s, y.s, (precision, scale)), node))


def _quotient(sa: int, sb: int, result: tuple[int, int]) -> Rewrite:
    def fn(node: exp.Expr) -> None:
        node.replace(exact_quotient(node.this, node.expression, sa, sb, result))

    return Rewrite("Spark's decimal quotient, rounded half up, in integers", fn)


DECIMAL_DIVISION = Check("decimal division (exact)", (_decimal_division,), ("decimal-division",))


# --------------------------------------------------------------------------------------------------
# averages


def _decimal_avg(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    ty = spark_typer(ctx, node)(node.this)  # avg of an integer is a double
    if k is None and ty.cls == "unknown":
        ctx.add("decimal-division", node, "avg of an operand of unknown type (pass the table schemas)")
        return
    if k != exp.DataType.Type.DECIMAL and ty.cls != "decimal":
        return
    if not ty.exact or ty.cls != "decimal":
        ctx.add("decimal-division", node, "avg of a decimal whose precision is not known here")
        return
    precision, scale = spark_avg_type((ty.p, ty.s))
    sum_p = min(ty.p + 10, MAX_PRECISION)
    # Spark divides the sum (DECIMAL(p + 10, s)) by the count at a scale of at least s + 17 (for
    # p <= 11), then casts to s + 4; rounding once at s + 4 gives the same value unless the count
    # is 10**12 or more (a quotient within 10**-(s + 17) of a tie is the tie itself below that)
    if precision > DOUBLE_DIGITS or not _fits(sum_p + ty.s, sum_p - ty.s + scale):
        ctx.add(
            "decimal-division",
            node,
            f"Spark's avg of a decimal is exact (DECIMAL({precision}, {scale})); iceview computes it exactly in DuckDB only up to {DOUBLE_DIGITS} digits",
        )
        return
    ctx.rewrites.append((_average(ty.s, (precision, scale)), node))


def _with_avg_as(target: exp.Expr, cls: type[exp.Func]) -> exp.Expr:
    """A copy of ``target`` (the avg call, or its window or FILTER) with the avg as ``cls``."""
    copy = target.copy()
    avg = copy if isinstance(copy, exp.Avg) else next(copy.find_all(exp.Avg))
    replacement = cls(this=avg.this.copy())
    if avg is copy:
        return replacement
    avg.replace(replacement)
    return copy


def _average(s: int, result: tuple[int, int]) -> Rewrite:
    def fn(node: exp.Expr) -> None:
        # a window or FILTER around the call is part of the value: sum and count each get it
        target = node
        while isinstance(target.parent, (exp.Window, exp.Filter)):
            target = target.parent
        total, count = (_with_avg_as(target, cls) for cls in (exp.Sum, exp.Count))
        target.replace(exact_quotient(total, count, s, 0, result))

    return Rewrite("Spark's avg of a decimal: sum / count, rounded half up, in integers", fn)


DECIMAL_AVG = Check("avg of a decimal (exact)", (_decimal_avg,), ("decimal-division",))
