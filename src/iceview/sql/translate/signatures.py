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

from iceview.sql.translate.allowlists import allowed_functions
from iceview.sql.translate.function_signatures import check_function
from iceview.sql.translate.policy import Context
from iceview.sql.translate.signature_edges import (
    COMPARISONS,
    NO_COMMON_TEXT,
    TEXT_FUNCTIONS,
    date_add,
    folded_comparison,
    folded_int,
    known_decimal,
    may_overflow_inside,
    sum_overflow,
    time_and_text,
)
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
            return (
                f"{a} with {b}: the common type needs more than 38 digits in Spark or DuckDB (whose sum is a "
                "DECIMAL(38, s) and whose floor and ceil keep the precision), which then lowers the scale"
            )
    return None


def unification_operands(node: exp.Expr, typer: Typer) -> list[tuple[exp.Expr, exp.Expr]] | None:
    """The pairs of values ``node`` brings to one type (comparison, ``BETWEEN``, ``IN``, ``COALESCE``,
    ``NULLIF``, ``GREATEST``/``LEAST``, ``IF``/``CASE`` results, set-operation columns), or None."""
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
    elif isinstance(node, exp.Is) and isinstance(node.expression, exp.Boolean):
        yield node.this  # x IS [NOT] TRUE: DuckDB converts a number, legacy Spark compares it with 1


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
    typer = Typer(ctx.source, tree)
    allowed = allowed_functions(ctx.target, ctx.source)
    for node in tree.walk():
        _check(node, typer, ctx)
        check_function(node, typer, ctx, allowed)


def _check(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    nested = _precedence(node)
    if nested is not None:
        ctx.add(
            "precedence",
            node,
            "a predicate directly inside another is grouped differently by Spark and DuckDB (add parentheses)",
        )
    pairs = unification_operands(node, typer)
    for a, b in pairs or ():
        why = _unify_issue(typer(a), typer(b))
        if why is not None:
            ctx.add("type-signature", node, why)
            break
    if isinstance(node, (exp.Lag, exp.Lead)):
        default = node.args.get("default")
        if default is not None:
            value, fallback = typer(node.this), typer(default)
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
    if isinstance(node, (exp.Like, exp.ILike)):
        for operand in (node.this, node.expression):
            t = typer(operand)
            if t.cls not in ("text", "null"):
                ctx.add(
                    "cast-semantics",
                    operand,
                    f"LIKE of a {t}: Spark matches the value's text (1.0E-7, Infinity), DuckDB has no LIKE for it",
                )
                break
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
    if isinstance(node, TEXT_FUNCTIONS):
        for arg in (node.this, *(node.args.get(k) for k in ("expression", "substr"))):
            if isinstance(arg, exp.Expr) and typer(arg).cls in NO_COMMON_TEXT:
                ctx.add(
                    "cast-semantics",
                    node,
                    f"a string function of a {typer(arg)}: the engines write its text differently ('-Infinity' and '-inf', timestamps, nested values)",
                )
                break
    if (
        isinstance(node, exp.In)
        and node.args.get("query") is not None
        and may_overflow_inside(node.args["query"], typer)
    ):
        ctx.add(
            "integer-overflow",
            node,
            "integer arithmetic in an IN subquery: Spark may never compute a value that overflows, DuckDB raises",
        )
    time_and_text(node, typer, ctx)
    if isinstance(node, exp.Literal) and typer(node).cls == "hugeint":
        ctx.add(
            "type-signature",
            node,
            "an integer literal beyond BIGINT is a DECIMAL(38, 0) in Spark and a HUGEINT in DuckDB (write CAST(... AS DECIMAL(38, 0)))",
        )
    if isinstance(node, exp.Sum) and not ctx.spark_ansi:
        sum_overflow(node, typer(node.this), ctx)
    if isinstance(node, (exp.Sum, exp.Avg)) and typer(node.this).cls in ("float", "double"):
        ctx.add(
            "floating-aggregate",
            node,
            "a sum of floating-point values depends on the order of addition, which each engine chooses (CAST to a DECIMAL)",
        )
    if (
        ctx.source == "duckdb"
        and isinstance(node, (exp.Neg, exp.Add, exp.Sub, exp.Mul))
        and typer(node).cls == "int"
        and folded_int(node) is None
    ):
        select = node.find_ancestor(exp.Select)
        if select is not None and select.args.get("limit") is not None:
            ctx.add(
                "integer-overflow",
                node,
                "integer arithmetic under a LIMIT: DuckDB computes it only for the rows it keeps, Spark for every row (and overflows)",
            )
    if ctx.source == "duckdb" and isinstance(node, COMPARISONS):
        for side, other in ((node.this, node.expression), (node.expression, node.this)):
            inner = side.this if isinstance(side, exp.Paren) else side
            arithmetic = isinstance(inner, (exp.Neg, exp.Add, exp.Sub)) and typer(inner).cls == "int"
            if arithmetic and folded_int(other) is not None and folded_int(inner) is None:
                ctx.add(
                    "integer-overflow",
                    node,
                    "DuckDB moves a constant across the comparison and never computes arithmetic that overflows; Spark computes it",
                )
                break
    if isinstance(node, (exp.Cast, exp.TryCast)):
        frm, to = typer(node.this), typer(node)
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
        known_decimal(node, node.this, typer, ctx)
    if isinstance(node, exp.TsOrDsAdd) and ctx.source == "spark":
        date_add(node, typer, ctx)
    if isinstance(node, COMPARISONS) and ctx.source == "spark":
        folded_comparison(node, typer, ctx)
    if isinstance(node, exp.Pow):
        base, exponent = typer(node.this), typer(node.expression)
        squared = node.expression == exp.Literal.number(2) and base.cls in ("int", "double")
        if frozenset((base.cls, exponent.cls)) not in POW_OPERANDS and not squared:
            ctx.add(
                "libm",
                node,
                f"power of {base} and {exponent} differs in the last bit between Java's StrictMath and the C library",
            )


def _arithmetic(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    a, b = typer(node.this), typer(node.expression)
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
            if known_decimal(node, node.this, typer, ctx):
                known_decimal(node, node.expression, typer, ctx)
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
