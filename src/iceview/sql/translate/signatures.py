"""Type signatures: where two engines must agree on a value's type, a construct translates only
for the argument types it was proven on.

Every sub-expression gets a :class:`Ty` by Spark's typing rules (:func:`infer`): Spark is one end
of every direction this gate covers, and its bounded decimal types are what can differ from the
other engine's exact ones. A :class:`Ty` is a *class* (``int``, ``decimal``, ``text``, ...) and, for
numbers, digits. Three kinds of site then look the signature up in a table of proven ones:

* **unification**: values two engines bring to one type (comparisons, ``BETWEEN``, ``IN``,
  ``COALESCE``, ``NULLIF``, ``GREATEST``/``LEAST``, ``IF``/``CASE`` results, set-operation
  columns, ``lag``/``lead`` defaults): the pair of classes must be in :data:`UNIFY`;
* **arithmetic** (``+ - * / % DIV``): the pair of operand classes must be in :data:`ARITHMETIC`, and
  a decimal result must fit Spark's 38 digits without losing scale;
* **boolean contexts** (``WHERE``, ``ON``, ``HAVING``, ``WHEN``, ``NOT``, ``AND``/``OR``,
  ``bool_and``/``bool_or``): the operand must be a ``BOOLEAN``.

Anything else is refused with a named code: ``type-signature`` (a pair not proven, with the classes
in the reason), ``decimal-precision`` (Spark would lower the scale), ``boolean-context``,
``precedence`` (a predicate directly inside another, which the engines group differently) and
``libm``. The generated queries (``tests/translate/generated``) run every proven pair in both
directions; ``docs/translation.md`` lists them (:func:`proven_signatures`).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from sqlglot import exp

from iceview.sql.translate.checks import decimal_params, type_of
from iceview.sql.translate.model import short
from iceview.sql.translate.policy import Context
from iceview.sql.translate.spark_typing import (
    MAX_PRECISION,
    Ty,
    Typer,
    double_and_short_literal,
    int_as_decimal,
    widest,
)

_T = exp.DataType.Type

GATED = frozenset({("spark", "duckdb"), ("duckdb", "spark")})
"""The directions whose signatures are proven by execution (Trino's join in issue 28)."""

# --------------------------------------------------------------------------------------------------
# the proven signatures


def _pairs(*pairs: tuple[str, str]) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(p) for p in pairs)


_SCALARS = (
    "bool",
    "int",
    "float",
    "double",
    "decimal",
    "text",
    "date",
    "timestamp",
    "timestamp_ntz",
    "binary",
)

UNIFY = _pairs(
    *((c, c) for c in _SCALARS),
    ("int", "decimal"),
    ("int", "double"),
    ("float", "double"),
    ("date", "timestamp_ntz"),
    *(("null", c) for c in (*_SCALARS, "array", "struct", "map", "null")),
)
"""Pairs of classes that Spark and DuckDB bring to one type with the same values (decimals also
need :func:`_decimal_unify`; arrays, structs and maps unify only with an identical type or NULL)."""

ARITHMETIC = _pairs(
    ("int", "int"),
    ("int", "decimal"),
    ("decimal", "decimal"),
    ("int", "double"),
    ("double", "double"),
    ("float", "double"),
    ("float", "float"),
    ("date", "int"),
    ("date", "date"),
    ("date", "interval"),
    ("timestamp", "interval"),
    ("timestamp_ntz", "interval"),
    ("interval", "interval"),
    *(("null", c) for c in ("int", "decimal", "double", "float", "null")),
)
"""Pairs of operand classes whose arithmetic the two engines compute alike (with the rules for
overflow, division and intervals that :mod:`.edges` keeps)."""

BOOLEAN_OPERANDS = frozenset({"bool"})
"""What a boolean context (``WHERE``, ``WHEN``, ``NOT``, ...) accepts: DuckDB casts numbers and
strings to ``BOOLEAN`` there, Spark refuses them, and an untyped ``NULL`` is refused by Spark."""

POW_OPERANDS = _pairs(("int", "int"))
"""``power``: Java's ``StrictMath`` and the C library agree on integers, not in the last bit of
other doubles. ``power(x, 2)`` of an integer or double is proven too: Java's ``FdLibm.Pow`` returns
``x * x`` for an exponent of 2, and the C library's correctly rounded result is that product."""


CASTS: dict[str, frozenset[str]] = {
    "null": frozenset({*_SCALARS, "array", "struct", "map"}),
    "int": frozenset({"int", "decimal", "double", "float", "text", "bool"}),
    "decimal": frozenset({"decimal", "double", "float", "text"}),
    "float": frozenset({"float", "double", "text"}),
    "double": frozenset({"double", "text"}),
    "text": frozenset(_SCALARS),
    "bool": frozenset({"bool", "int", "text"}),
    "date": frozenset({"date", "text", "timestamp", "timestamp_ntz"}),
    "timestamp": frozenset({"timestamp", "date", "text", "timestamp_ntz"}),
    "timestamp_ntz": frozenset({"timestamp_ntz", "date", "text", "timestamp"}),
    "binary": frozenset({"binary", "text"}),
    "array": frozenset({"array", "text"}),
    "struct": frozenset({"struct", "text"}),
    "map": frozenset({"map", "text"}),
}
"""``CAST`` and ``TRY_CAST``, from a class to the classes both engines convert it to (the cast rules
of :mod:`.checks` then decide which of those give the same values in both): a floating-point or
decimal value to an integer rounds in DuckDB and truncates in Spark, and Spark's analyzer rejects
numbers to dates and dates to numbers, even in ``TRY_CAST``."""


def proven_signatures() -> dict[str, list[str]]:
    """The proven signatures by site, as ``docs/translation.md`` lists them."""

    def spell(pairs: frozenset[frozenset[str]]) -> list[str]:
        return sorted(
            " × ".join(sorted(p)) if len(p) == 2 else f"{next(iter(p))} × {next(iter(p))}" for p in pairs
        )

    return {
        "unification (comparison, BETWEEN, IN, COALESCE, NULLIF, GREATEST/LEAST, IF/CASE, set operations)": [
            *spell(UNIFY),
            "double × decimal literal of at most 15 digits",
        ],
        "arithmetic (+ - * / % DIV)": [*spell(ARITHMETIC), "double × decimal literal of at most 15 digits"],
        "lag/lead default": ["the value's class (a decimal: the same precision and scale)", "null"],
        "boolean context (WHERE, ON, HAVING, WHEN, NOT, AND/OR, bool_and/bool_or)": sorted(BOOLEAN_OPERANDS),
        "IN (subquery)": ["as unification, but no float or double value"],
        "CAST / TRY_CAST (from → to)": [f"{a} → {', '.join(sorted(b))}" for a, b in CASTS.items()],
        "power": [*spell(POW_OPERANDS), "double × literal 2", "int × literal 2"],
    }


# --------------------------------------------------------------------------------------------------
# the sites


def _unify_issue(a: Ty, b: Ty) -> str | None:
    """Why ``a`` and ``b`` are not a proven pair to unify, or None."""
    if double_and_short_literal(a, b):
        return None
    if frozenset((a.cls, b.cls)) not in UNIFY:
        return f"{a} with {b} is not a proven pair: the engines convert them differently or not at all"
    if a.cls == b.cls and a.cls in ("array", "struct", "map") and a.text != b.text:
        return f"{a} with {b}: nested values of different types"
    if {a.cls, b.cls} <= {"int", "decimal"} and "decimal" in (a.cls, b.cls):
        x, y = int_as_decimal(a), int_as_decimal(b)
        if not (x.exact and y.exact):
            return f"{a} with {b}: the decimal's precision and scale are not known exactly (write a CAST)"
        if widest(x, y) is None:
            return f"{a} with {b}: Spark's common type needs more than 38 digits, so it lowers the scale"
    return None


def _unification_operands(node: exp.Expr, typer: Typer) -> list[tuple[exp.Expr, exp.Expr]] | None:
    if isinstance(node, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)):
        return [(node.this, node.expression)]
    if isinstance(node, exp.Between):
        return [(node.this, node.args["low"]), (node.this, node.args["high"])]
    if isinstance(node, exp.In):
        query = node.args.get("query")
        if query is not None:
            inner = query.this if isinstance(query, exp.Subquery) else query
            selects = inner.selects if isinstance(inner, exp.Query) else []
            return [(node.this, s) for s in selects[:1]]
        return [(node.this, e) for e in node.expressions]
    if isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least)):
        return list(combinations([node.this, *node.expressions], 2))
    if isinstance(node, exp.Nullif):
        return [(node.this, node.expression)]
    if isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
        true, false = node.args.get("true"), node.args.get("false")
        return [(true, false)] if true is not None and false is not None else []
    if isinstance(node, exp.Case):
        ifs = node.args.get("ifs") or []
        values = [i.args.get("true") for i in ifs]
        if node.args.get("default") is not None:
            values.append(node.args["default"])
        pairs = list(combinations([v for v in values if v is not None], 2))
        if node.this is not None:  # CASE x WHEN v: each v is compared with x
            pairs += [(node.this, i.this) for i in ifs]
        return pairs
    if isinstance(node, exp.SetOperation):
        left, right = node.left, node.right
        if isinstance(left, exp.Query) and isinstance(right, exp.Query):
            return list(zip(_columns(left), _columns(right), strict=False))
    return None


def _columns(query: exp.Query) -> list[exp.Expr]:
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.SetOperation):
        return _columns(query.left)  # the left branch's columns name the result; the gate checks both
    return [s.this if isinstance(s, exp.Alias) else s for s in query.selects]


def _boolean_operands(node: exp.Expr) -> Iterator[exp.Expr]:
    if isinstance(node, (exp.Where, exp.Having, exp.Qualify)):
        yield node.this
    elif isinstance(node, exp.Join) and node.args.get("on") is not None:
        yield node.args["on"]
    elif (
        isinstance(node, exp.If) and not (isinstance(node.parent, exp.Case) and node.parent.this)
    ) or isinstance(node, exp.Not):
        yield node.this
    elif isinstance(node, (exp.And, exp.Or)):
        yield node.this
        yield node.expression
    elif isinstance(node, (exp.LogicalAnd, exp.LogicalOr)):
        yield node.this


_PREDICATES = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.Is,
    exp.Between,
    exp.In,
    exp.Like,
    exp.ILike,
)


def _precedence(node: exp.Expr) -> exp.Expr | None:
    """An operand of a predicate that is itself a predicate or ``NOT`` without parentheses."""
    if not isinstance(node, _PREDICATES):
        return None
    for key in ("this", "expression", "low", "high"):
        child = node.args.get(key)
        if isinstance(child, (*_PREDICATES, exp.Not)):
            return child
    return None


def gate(tree: exp.Expr, ctx: Context) -> None:
    """Refuse, in ``ctx``, every site of ``tree`` whose signature is not proven (see the module)."""
    if (ctx.source, ctx.target) not in GATED:
        return
    typer = Typer(ctx.source, tree, lenient=not ctx.typed)
    for node in tree.walk():
        _check(node, typer, ctx)


def _check(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    nested = _precedence(node)
    if nested is not None:
        ctx.add(
            "precedence",
            node,
            "a predicate directly inside another is grouped differently by Spark and DuckDB (add parentheses)",
        )
    pairs = _unification_operands(node, typer)
    for a, b in pairs or ():
        if typer.lenient_about(typer(a), typer(b)):
            continue
        why = _unify_issue(typer(a), typer(b))
        if why is not None:
            ctx.add("type-signature", node, why)
            break
    if isinstance(node, (exp.Lag, exp.Lead)):
        default = node.args.get("default")
        if default is not None:
            value, fallback = typer(node.this), typer(default)
            if typer.lenient_about(value, fallback):
                return
            same = value.cls == fallback.cls and (value.cls != "decimal" or value == fallback)
            if fallback.cls != "null" and not same:
                ctx.add(
                    "type-signature",
                    node,
                    f"a {fallback} default for a {value} value: the engines convert it differently (CAST it to the value's type)",
                )
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)):
        _arithmetic(node, typer, ctx)
    if isinstance(node, (exp.Sum, exp.Avg)):
        inner = typer(node.this)
        grown = inner.p + (10 if isinstance(node, exp.Sum) else 4)
        if (
            inner.cls == "decimal"
            and (not inner.exact or grown > MAX_PRECISION)
            and isinstance(node, exp.Avg)
        ):
            ctx.add(
                "decimal-precision",
                node,
                f"avg of {inner}: Spark's result type would need {grown} digits, so it lowers the scale",
            )
    for operand in _boolean_operands(node):
        t = typer(operand)
        if typer.lenient_about(t):
            continue
        if (
            t.cls == "null"
            and isinstance(node, (exp.And, exp.Or, exp.Not, exp.If))
            and not isinstance(node.parent, exp.Case)
        ):
            continue  # Spark types a NULL operand of AND, OR, NOT and if() as a BOOLEAN
        if t.cls not in BOOLEAN_OPERANDS:
            ctx.add(
                "boolean-context",
                operand,
                f"a {t} where a BOOLEAN is needed: DuckDB converts it, Spark refuses it (compare it explicitly)",
            )
    if (
        isinstance(node, exp.In)
        and node.args.get("query") is not None
        and typer(node.this).cls in ("float", "double")
    ):
        ctx.add(
            "type-signature",
            node,
            "a floating-point value IN (subquery): the engines match -0.0 and NaN differently there",
        )
    if isinstance(node, _TEXT_FUNCTIONS):
        for arg in (node.this, *(node.args.get(k) for k in ("expression", "substr"))):
            if isinstance(arg, exp.Expr) and typer(arg).cls in _NO_COMMON_TEXT:
                ctx.add(
                    "cast-semantics",
                    node,
                    f"a string function of a {typer(arg)}: the engines write its text differently ('-Infinity' and '-inf', timestamps, nested values)",
                )
                break
    if (
        isinstance(node, exp.In)
        and node.args.get("query") is not None
        and _may_overflow_inside(node.args["query"], typer)
    ):
        ctx.add(
            "integer-overflow",
            node,
            "integer arithmetic in an IN subquery: Spark may never compute a value that overflows, DuckDB raises",
        )
    _time_and_text(node, typer, ctx)
    if isinstance(node, exp.Literal) and typer(node).cls == "hugeint":
        ctx.add(
            "type-signature",
            node,
            "an integer literal beyond BIGINT is a DECIMAL(38, 0) in Spark and a HUGEINT in DuckDB (write CAST(... AS DECIMAL(38, 0)))",
        )
    if isinstance(node, exp.Sum) and not ctx.spark_ansi:
        _sum_overflow(node, typer(node.this), ctx)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        frm, to = typer(node.this), typer(node)
        if typer.lenient_about(frm, to):
            return
        if to.cls not in CASTS.get(frm.cls, frozenset()):
            ctx.add(
                "cast-semantics",
                node,
                f"a cast from {frm} to {to} is not a proven signature: the engines convert it differently, or Spark refuses it",
            )
    if isinstance(node, (exp.Ceil, exp.Floor)) and typer(node.this).cls == "int":
        ctx.add(
            "type-signature",
            node,
            "ceil/floor of an integer is a BIGINT in Spark and a DOUBLE in DuckDB (the integer needs neither)",
        )
    if isinstance(node, exp.Avg):
        _known_decimal(node, node.this, typer, ctx)
    if isinstance(node, exp.TsOrDsAdd) and ctx.source == "spark":
        _date_add(node, typer, ctx)
    if isinstance(node, _COMPARISONS) and ctx.source == "spark":
        _folded_comparison(node, typer, ctx)
    if isinstance(node, exp.Pow):
        base, exponent = typer(node.this), typer(node.expression)
        if typer.lenient_about(base, exponent):
            return
        squared = node.expression == exp.Literal.number(2) and base.cls in ("int", "double")
        if frozenset((base.cls, exponent.cls)) not in POW_OPERANDS and not squared:
            ctx.add(
                "libm",
                node,
                f"power of {base} and {exponent} differs in the last bit between Java's StrictMath and the C library",
            )


_DAY_UNITS = frozenset(
    {"DAY", "DAYS", "WEEK", "WEEKS", "MONTH", "MONTHS", "QUARTER", "QUARTERS", "YEAR", "YEARS"}
)


def _interval_unit(node: exp.Expr) -> str:
    unit = node.args.get("unit") if isinstance(node, exp.Interval) else None
    return unit.name.upper() if unit is not None else ""


def _time_and_text(node: exp.Expr, typer: Typer, ctx: Context) -> None:
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
        elif isinstance(node, _TEXT_FUNCTIONS):
            texts = [node.this]
        if any(isinstance(t, exp.Expr) and typer(t).cls == "decimal" for t in texts):
            ctx.add(
                "cast-semantics",
                node,
                "a decimal as text: legacy Spark writes small values in scientific notation (0E-10), DuckDB plain digits",
            )
    if (
        isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Abs))
        and not ctx.spark_ansi
        and ctx.source == "spark"
    ):
        value = _folded_int(node)
        if value is not None and not -(2**31) <= value < 2**31:
            ctx.add(
                "integer-overflow",
                node,
                "integer arithmetic on literals beyond INT: legacy Spark folds it with wrap-around, DuckDB widens or raises",
            )


def _folded_int(node: exp.Expr) -> int | None:
    """The value of integer arithmetic on integer literals, or None."""
    if isinstance(node, exp.Paren):
        return _folded_int(node.this)
    if isinstance(node, exp.Literal) and not node.is_string and node.name.isdigit():
        return int(node.name)
    if isinstance(node, (exp.Neg, exp.Abs)):
        inner = _folded_int(node.this)
        return None if inner is None else -inner if isinstance(node, exp.Neg) else abs(inner)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        a, b = _folded_int(node.this), _folded_int(node.expression)
        if a is None or b is None:
            return None
        return a + b if isinstance(node, exp.Add) else a - b if isinstance(node, exp.Sub) else a * b
    return None


_TEXT_FUNCTIONS = (
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
_NO_COMMON_TEXT = frozenset(
    {"float", "double", "timestamp", "timestamp_ntz", "array", "struct", "map", "binary"}
)


def _may_overflow_inside(query: exp.Expr, typer: Typer) -> bool:
    return any(typer(n).cls == "int" for n in query.find_all(exp.Add, exp.Sub, exp.Mul, exp.Neg))


def _sum_overflow(node: exp.Expr, operand: Ty, ctx: Context) -> None:
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


def _date_add(node: exp.Expr, typer: Typer, ctx: Context) -> None:
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


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_INT_RANGE = {3: 2**7, 5: 2**15, 10: 2**31}


def _folded_comparison(node: exp.Expr, typer: Typer, ctx: Context) -> None:
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


def _known_decimal(node: exp.Expr, operand: exp.Expr, typer: Typer, ctx: Context) -> bool:
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


def _arithmetic(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    a, b = typer(node.this), typer(node.expression)
    if typer.lenient_about(a, b):
        return
    if frozenset((a.cls, b.cls)) not in ARITHMETIC and not double_and_short_literal(a, b):
        ctx.add(
            "type-signature",
            node,
            f"arithmetic on {a} and {b} is not a proven pair: the engines compute it in other types",
        )
        return
    if {a.cls, b.cls} <= {"int", "decimal"} and "decimal" in (a.cls, b.cls):
        result = typer(node)
        if isinstance(node, exp.Div):
            # the division rules (edges.py) size their CAST from the operands' annotated types
            if _known_decimal(node, node.this, typer, ctx):
                _known_decimal(node, node.expression, typer, ctx)
            return
        if isinstance(node, exp.Mod) and widest(int_as_decimal(a), int_as_decimal(b)) is None:
            ctx.add(
                "decimal-precision",
                node,
                f"% of {a} and {b}: Spark first brings both to a common type of more than 38 digits, losing scale",
            )
        elif not result.exact:
            what = (
                "are not known exactly (write a CAST)" if result.p == 0 else f"would need {result.p} digits"
            )
            ctx.add(
                "decimal-precision",
                node,
                f"decimal arithmetic on {a} and {b}: Spark's result precision and scale {what}, and Spark lowers the scale beyond 38",
            )
        elif result.bounded and not ctx.spark_ansi:
            ctx.add(
                "decimal-overflow",
                node,
                f"decimal arithmetic on {a} and {b} may exceed 38 digits: legacy Spark returns NULL, DuckDB raises",
            )


GATE_CODES = frozenset(
    {
        "type-signature",
        "decimal-precision",
        "boolean-context",
        "precedence",
        "libm",
        "integer-overflow",
        "time-zone",
        "date-add",
        "decimal-overflow",
        "cast-semantics",
        "range-frame",
        "unicode-case",
        "floating-aggregate",
    }
)
"""The refusal codes of :func:`gate`."""
