"""Comparisons of floating-point values between Trino and Spark or DuckDB, settled by running
Trino 476 (issue 28).

Trino compares NaN as IEEE 754 does: ``NaN = NaN``, ``NaN < x`` and ``NaN > x`` are false, ``NaN <> x``
is true, and ``NaN IN (NaN)`` is false. Spark and DuckDB order NaN above every number and equal to
itself. Both sides agree on NULL (an operand that is NULL makes the comparison NULL) and on ``-0.0 =
0.0``. So a comparison with a floating-point operand is translated with a guard that gives the
source's result in the target:

* **into Trino**: ``CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN is_nan(a) OR is_nan(b) THEN
  CAST(is_nan(a) AS INTEGER) op CAST(is_nan(b) AS INTEGER) ELSE a op b END`` (NaN as the greatest
  value, equal to itself);
* **from Trino**: ``CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN isnan(a) OR isnan(b) THEN c ELSE
  a op b END`` with ``c`` true for ``<>`` and false otherwise.

Only floating-point operands get ``is_nan``. Against a numeric literal only "NaN is above ``c``"
differs (``NaN = c`` and ``NaN < c`` are false, ``NaN <> c`` true, in every engine), so ``x > c``
becomes ``(x > c OR is_nan(x))`` into Trino and ``(x > c AND NOT isnan(x))`` from Trino, and
``x = c``, ``x < c`` are kept: the comparison still reaches the table scan as a pushed-down filter.
From Trino, a comparison that is a conjunct of ``WHERE``, ``HAVING`` or ``ON`` becomes ``(a op b AND NOT
isnan(a) AND NOT isnan(b))`` (FALSE and NULL both drop the row there), which keeps ``a = b`` an
equi-join. ``x IN (e, ...)``
is the disjunction of ``x = e`` (but Trino's optimizer folds ``x IN (x, ...)`` to true even for NaN,
so that is refused from Trino), so a list whose value and some element (not a literal) are floating
point becomes that disjunction of guarded equalities; an ``IN`` subquery of floating-point values is
refused (``nan-semantics``). The guard repeats its operands, so operands that are not deterministic
are refused (``nondeterministic``).
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate.checks import FLOATS, kind_of
from iceview.sql.translate.policy import Check, Context, Rewrite

__all__ = ["NAN_GUARD_FROM_TRINO", "NAN_GUARD_INTO_TRINO", "NAN_IN_FROM_TRINO", "NAN_IN_INTO_TRINO"]

_NONDETERMINISTIC = (exp.Rand, exp.Randn, exp.Uuid)


def _floating(node: exp.Expr | None) -> bool:
    """Whether ``node`` is a floating-point value: typed so, or arithmetic, a CASE or a COALESCE with
    a floating-point operand (a double beside a decimal is a double in every engine, where sqlglot
    may type it as the decimal)."""
    if node is None or isinstance(node, exp.Null):
        return False
    if kind_of(node) in FLOATS:
        return True
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
        return _floating(node.this) or _floating(node.expression)
    if isinstance(node, (exp.Neg, exp.Paren, exp.Abs, exp.Ceil, exp.Floor, exp.Round)):
        return _floating(node.this)
    if isinstance(node, exp.Case):
        return any(_floating(i.args.get("true")) for i in node.args.get("ifs") or []) or _floating(
            node.args.get("default")
        )
    if isinstance(node, (exp.Coalesce, exp.If)):
        return any(_floating(a) for a in node.iter_expressions())
    return False


def _guarded(node: exp.Expr, into_trino: bool) -> exp.Expr:
    """``node`` (a comparison) with the guard of the module's doc."""
    a, b = node.this, node.expression
    nan = [exp.IsNan(this=x.copy()) for x in (a, b) if _may_be_nan(x)]
    if not nan:  # an element of an IN list that cannot be NaN beside a value that cannot either
        return node.copy()
    if into_trino:
        flags = [
            exp.Cast(this=exp.IsNan(this=x.copy()), to=exp.DataType.build("INT"))
            if _may_be_nan(x)
            else exp.Literal.number(0)
            for x in (a, b)
        ]
        when_nan: exp.Expr = type(node)(this=flags[0], expression=flags[1])
    else:
        when_nan = exp.Boolean(this=isinstance(node, exp.NEQ))
    any_null = exp.or_(
        exp.Is(this=a.copy(), expression=exp.Null()), exp.Is(this=b.copy(), expression=exp.Null())
    )
    return exp.Case(
        ifs=[
            exp.If(this=any_null, true=exp.Null()),
            exp.If(this=exp.or_(*nan) if len(nan) > 1 else nan[0], true=when_nan),
        ],
        default=node.copy(),
    )


def _guard_comparison(into_trino: bool) -> Rewrite:
    def rewrite(node: exp.Expr) -> None:
        node.replace(exp.Paren(this=_guarded(node, into_trino)))

    return Rewrite("NaN-guarded comparison", rewrite)


def _number(node: exp.Expr) -> bool:
    """A numeric literal (``3``, ``-1.5``): never NULL, never NaN."""
    inner = node.this if isinstance(node, exp.Neg) else node
    return isinstance(inner, exp.Literal) and not inner.is_string


def _may_be_nan(node: exp.Expr | None) -> bool:
    return _floating(node) and not _number(node)  # type: ignore[arg-type]


def _in_filter(node: exp.Expr) -> bool:
    """Whether ``node`` is a conjunct of ``WHERE``, ``HAVING`` or ``ON``, where FALSE and NULL
    both drop the row."""
    child, parent = node, node.parent
    while isinstance(parent, (exp.And, exp.Paren)):
        child, parent = parent, parent.parent
    return (isinstance(parent, (exp.Where, exp.Having)) and parent.this is child) or (
        isinstance(parent, exp.Join) and parent.args.get("on") is child
    )


def _with(node: exp.Expr, guard: exp.Expr, conjunction: bool) -> None:
    joined = exp.and_(node.copy(), guard) if conjunction else exp.or_(node.copy(), guard)
    node.replace(exp.Paren(this=joined))


def _guard_check(into_trino: bool) -> Check:
    case = _guard_comparison(into_trino)
    nan_above = Rewrite("x > c OR is_nan(x)", lambda n: _with(n, exp.IsNan(this=_nan_side(n).copy()), False))
    nan_never = Rewrite(
        "x > c AND NOT isnan(x)", lambda n: _with(n, exp.Not(this=exp.IsNan(this=_nan_side(n).copy())), True)
    )
    nan_filtered = Rewrite(
        "a op b AND NOT isnan(a) AND NOT isnan(b)",
        lambda n: _with(
            n,
            exp.and_(
                *(exp.Not(this=exp.IsNan(this=x.copy())) for x in (n.this, n.expression) if _may_be_nan(x))
            ),
            True,
        ),
    )

    def schedule(node: exp.Expr, ctx: Context) -> None:
        a, b = node.this, node.expression
        if not (_may_be_nan(a) or _may_be_nan(b)) or isinstance(a, exp.Null) or isinstance(b, exp.Null):
            return
        if _number(a) or _number(b):
            # x op c: only "NaN above c" differs (NaN = c, NaN < c are false and NaN <> c true everywhere)
            left = _number(b)
            greater = isinstance(node, (exp.GT, exp.GTE)) if left else isinstance(node, (exp.LT, exp.LTE))
            if greater:
                ctx.rewrites.append((nan_above if into_trino else nan_never, node))
            return
        if not _deterministic(node, ctx):
            return
        if not into_trino and not isinstance(node, exp.NEQ) and _in_filter(node):
            ctx.rewrites.append((nan_filtered, node))  # keeps a.d = b.d an equi-join and x > y pushed down
        else:
            ctx.rewrites.append((case, node))

    return Check("comparison of floating-point values, NaN-guarded", (schedule,), ("nondeterministic",))


def _nan_side(node: exp.Expr) -> exp.Expr:
    side: exp.Expr = node.expression if _number(node.this) else node.this
    return side


def _deterministic(node: exp.Expr, ctx: Context) -> bool:
    if node.find(*_NONDETERMINISTIC) is not None:
        ctx.add(
            "nondeterministic",
            node,
            "a comparison of floating-point values with a random operand: the NaN guard repeats its operands",
        )
        return False
    return True


NAN_GUARD_INTO_TRINO = _guard_check(True)
NAN_GUARD_FROM_TRINO = _guard_check(False)


def _in_rewrite(into_trino: bool) -> Rewrite:
    def rewrite(node: exp.Expr) -> None:
        value = node.this
        equalities = [
            _guarded(exp.EQ(this=value.copy(), expression=e.copy()), into_trino) for e in node.expressions
        ]
        node.replace(exp.Paren(this=exp.or_(*equalities) if len(equalities) > 1 else equalities[0]))

    return Rewrite("x = a OR x = b, NaN-guarded", rewrite)


def _in_check(into_trino: bool) -> Check:
    rewrite = _in_rewrite(into_trino)

    def schedule(node: exp.Expr, ctx: Context) -> None:
        if not _may_be_nan(node.this):
            return
        query = node.args.get("query")
        if query is not None:
            selects = query.this.selects if isinstance(query, exp.Subquery) else getattr(query, "selects", [])
            if not selects or _floating(selects[0]) or kind_of(selects[0]) is None:
                ctx.add(
                    "nan-semantics",
                    node,
                    "a floating-point value IN (subquery): Trino matches NaN as IEEE does (never), Spark and DuckDB as equal to itself",
                )
            return
        if not into_trino and any(e == node.this for e in node.expressions):
            ctx.add(
                "self-comparison",
                node,
                "x IN (x, ...) of a floating-point value: Trino's optimizer makes it true, even for NaN",
            )
            return
        if any(_may_be_nan(e) for e in node.expressions) and _deterministic(node, ctx):
            ctx.rewrites.append((rewrite, node))

    return Check(
        "IN of floating-point values, NaN-guarded", (schedule,), ("nan-semantics", "nondeterministic")
    )


NAN_IN_INTO_TRINO = _in_check(True)
NAN_IN_FROM_TRINO = _in_check(False)
