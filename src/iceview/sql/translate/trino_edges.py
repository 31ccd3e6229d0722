"""Rows of the rules table found by running Trino 476 (the generator's Trino legs, issue 28): where
Trino disagrees with Spark and DuckDB, or refuses what they accept, on the generator's edge table.

* **Integer literals beyond BIGINT** are a syntax error in Trino; Spark and DuckDB read them as
  ``DECIMAL(n, 0)`` (Spark) or ``HUGEINT``: written ``CAST('...' AS DECIMAL(n, 0))``.
* **Conditions must be BOOLEAN in Trino** (``WHERE``, ``HAVING``, ``ON``, ``AND``/``OR``/``NOT``, the
  condition of ``IF``/``CASE WHEN``): DuckDB and Spark cast numbers or text to a boolean. Refused
  (``implicit-cast``).
* **Operands of one value must share a type family in Trino** (``COALESCE``, ``NULLIF``,
  ``GREATEST``/``LEAST``, ``IF``/``CASE`` results, set operations' columns, comparisons): Spark and
  DuckDB convert a number to text, or compare a boolean with a number. Refused (``implicit-cast``);
  a TIMESTAMP beside a TIMESTAMP WITH TIME ZONE is refused too (each engine resolves the repeated
  hour of a daylight-saving change its own way).
* **NaN.** Trino's ``=``, ``<`` and ``BETWEEN`` follow IEEE (NaN equals nothing, orders nowhere);
  Spark and DuckDB treat NaN as equal to itself and above every number. Comparisons and ``BETWEEN``
  of floating-point values are refused in and out of Trino (``nan-semantics``), as ``NULLIF``
  (``NULLIF(NaN, NaN)`` is NaN in Trino, NULL in Spark).
* **NaN in ORDER BY.** Trino sorts NaN last in ``ASC NULLS LAST`` and first in ``DESC NULLS LAST``,
  as Spark and DuckDB do, but ``NULLS FIRST`` moves NaN to the other end. Into Trino a floating
  sort key with NULLs first becomes ``x IS NULL DESC, x <direction> NULLS LAST``; from Trino it is
  refused (``nan-ordering``).
* **DuckDB sums integers in HUGEINT**, Trino in BIGINT (overflow raises): the argument is cast to
  ``DECIMAL(38, 0)``, the type of DuckDB's result.
* **Decimal sums, differences and products beyond 38 digits**: Spark lowers the scale, Trino keeps
  it and raises on overflow. Refused between Spark and Trino (``decimal-overflow``).
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate.checks import (
    FLOATS,
    INT_LITERAL,
    INTEGERS,
    TEXT,
    cast_in_place,
    decimal_params,
    int_literal_digits,
    type_of,
)
from iceview.sql.translate.checks import kind_of as _kind
from iceview.sql.translate.policy import (
    ANY,
    Check,
    Context,
    Refuse,
    Rewrite,
    Rule,
    call,
    call_name,
    construct,
    predicate,
)
from iceview.sql.translate.spark_typing import int_as_decimal, spark_typer

__all__ = [
    "COMPARABLE",
    "DECIMAL_WITHIN_38",
    "PREDICATE_OPERANDS",
    "REAL_AGGREGATE",
    "TRINO_EDGE_CODES",
    "TRINO_EDGE_RULES",
    "family",
]

_T = exp.DataType.Type
_BIGINT_MAX = 2**63 - 1


# --------------------------------------------------------------------------------------------------
# literals


def _beyond_bigint(node: exp.Expr, ctx: Context) -> bool:
    return (
        isinstance(node, exp.Literal)
        and not node.is_string
        and INT_LITERAL.match(node.name) is not None
        and abs(int(node.name)) > _BIGINT_MAX
    )


def _as_decimal(node: exp.Expr) -> None:
    digits = int_literal_digits(node.name)
    node.replace(exp.Cast(this=exp.Literal.string(node.name), to=exp.DataType.build(f"DECIMAL({digits}, 0)")))


BIG_INTEGER = predicate("integer literal beyond BIGINT", exp.Literal, _beyond_bigint)
BIG_INTEGER_AS_DECIMAL = Rewrite("CAST('...' AS DECIMAL(n, 0))", _as_decimal)


# --------------------------------------------------------------------------------------------------
# types Trino does not convert


def family(node: exp.Expr) -> str | None:
    """The type family Trino converts within (``number``, ``text``, or the type's name), or None for
    NULL or an unknown type."""
    node = node.unalias()
    if isinstance(node, exp.Null):
        return None
    k = _kind(node)
    if (k is None or k == _T.UNKNOWN) and isinstance(node, (exp.Ceil, exp.Floor, exp.Abs, exp.Round)):
        return family(node.this)  # sqlglot leaves DuckDB's untyped; a number of the argument's family
    if k is None or k == _T.NULL or k == _T.UNKNOWN:
        return None
    if k in INTEGERS or k in FLOATS or k == _T.DECIMAL:
        return "number"
    if k in TEXT:
        return "text"
    return str(k.value)


def _condition(node: exp.Expr | None, ctx: Context, where: exp.Expr) -> None:
    if node is None or isinstance(node, exp.Null):
        return
    of = family(node)
    if of is not None and of != "BOOLEAN":
        ctx.add(
            "implicit-cast",
            where,
            f"a condition of type {of}: Trino requires a BOOLEAN, {ctx.source} converts it",
        )


def _boolean_operands(node: exp.Expr, ctx: Context) -> None:
    if isinstance(node, (exp.And, exp.Or)):
        _condition(node.this, ctx, node)
        _condition(node.expression, ctx, node)
    elif isinstance(node, exp.Join):
        _condition(node.args.get("on"), ctx, node)
    else:  # WHERE, HAVING, NOT, IF / CASE WHEN
        _condition(node.this, ctx, node)


BOOLEAN_OPERANDS = Check("conditions of type BOOLEAN", (_boolean_operands,), ("implicit-cast",))


def _same_family(nodes: list[exp.Expr], ctx: Context, where: exp.Expr) -> None:
    families = {f for f in (family(n) for n in nodes) if f is not None}
    kinds = {_kind(n) for n in nodes}
    if (
        len(families) > 1
        or {_T.TIMESTAMP, _T.TIMESTAMPTZ} <= kinds
        or {_T.TIMESTAMPNTZ, _T.TIMESTAMPTZ} <= kinds
    ):
        ctx.add(
            "implicit-cast",
            where,
            f"values of types {', '.join(sorted(families))} in one place: Trino does not convert between them, "
            f"{ctx.source} does (a timestamp with a time zone beside one without resolves the repeated hour per engine)",
        )


def _one_type(node: exp.Expr, ctx: Context) -> None:
    if isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least)):
        _same_family([node.this, *node.expressions], ctx, node)
    elif isinstance(node, exp.Nullif):
        _same_family([node.this, node.expression], ctx, node)
    elif isinstance(node, exp.If):
        if node.args.get("false") is not None:
            _same_family([node.args["true"], node.args["false"]], ctx, node)
    elif isinstance(node, exp.Case):
        values = [i.args["true"] for i in node.args.get("ifs") or []]
        if node.args.get("default") is not None:
            values.append(node.args["default"])
        _same_family(values, ctx, node)
    elif isinstance(node, exp.SetOperation):
        left, right = node.left, node.right
        if isinstance(left, exp.Query) and isinstance(right, exp.Query):
            for a, b in zip(left.selects, right.selects, strict=False):
                _same_family([a, b], ctx, node)


ONE_TYPE = Check("values of one type family", (_one_type,), ("implicit-cast",))


def _comparable(node: exp.Expr, ctx: Context) -> None:
    _same_family([node.this, node.expression], ctx, node)


COMPARABLE = Check("comparison of one type family", (_comparable,), ("implicit-cast",))


def _text_operand(node: exp.Expr, ctx: Context) -> None:
    of = family(node.this)
    if of is not None and of != "text":
        ctx.add("implicit-cast", node, f"LIKE of a {of}: Trino requires a varchar, {ctx.source} converts it")


TEXT_OPERAND = Check("LIKE of text", (_text_operand,), ("implicit-cast",))

_PREDICATES = (exp.Predicate, exp.Like, exp.ILike, exp.Is, exp.Between, exp.In, exp.Not)


def _parenthesise(node: exp.Expr) -> None:
    # sqlglot writes NULL > b < NULL and s LIKE '' IS NULL as they were; Trino's grammar does not
    # chain comparisons, so an operand that is itself a predicate gets parentheses
    for key in ("this", "expression"):
        operand = node.args.get(key)
        if isinstance(operand, _PREDICATES) and not isinstance(operand, exp.Paren):
            node.set(key, exp.Paren(this=operand))


PARENTHESISE = Rewrite("(a < b) < c", _parenthesise)


def _schedule_parentheses(node: exp.Expr, ctx: Context) -> None:
    if any(isinstance(node.args.get(k), _PREDICATES) for k in ("this", "expression")):
        ctx.rewrites.append((PARENTHESISE, node))


PREDICATE_OPERANDS = Check("a predicate as an operand, in parentheses", (_schedule_parentheses,), ())


def _real_aggregate(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) == _T.FLOAT:
        ctx.add(
            "floating-aggregate",
            node,
            "sum or avg of a REAL: Trino returns a REAL, Spark and DuckDB sum in doubles",
        )


REAL_AGGREGATE = Check("sum or avg of a non-REAL", (_real_aggregate,), ("floating-aggregate",))


# --------------------------------------------------------------------------------------------------
# NaN


def _floating(*nodes: exp.Expr | None) -> bool:
    return any(n is not None and _kind(n) in FLOATS for n in nodes)


def _nan_between(node: exp.Expr, ctx: Context) -> None:
    if _floating(node.this, node.args.get("low"), node.args.get("high")):
        ctx.add(
            "nan-semantics",
            node,
            "BETWEEN of floating-point values: Trino compares NaN as IEEE does, Spark and DuckDB as equal to itself and above every number",
        )


NAN_BETWEEN = Check("BETWEEN of non-floating values", (_nan_between,), ("nan-semantics",))


def _nan_nullif(node: exp.Expr, ctx: Context) -> None:
    if _floating(node.this, node.expression):
        ctx.add(
            "nan-semantics",
            node,
            "NULLIF of floating-point values: NULLIF(NaN, NaN) is NaN in Trino, NULL in Spark and DuckDB",
        )


NAN_NULLIF = Check("NULLIF of non-floating values", (_nan_nullif,), ("nan-semantics",))


def _floating_nulls_first(node: exp.Expr, ctx: Context) -> bool:
    return bool(node.args.get("nulls_first")) and _floating(node.this)


FLOATING_NULLS_FIRST = predicate(
    "floating-point ORDER BY key with NULLs first", exp.Ordered, _floating_nulls_first
)


def _nulls_first_apart(node: exp.Expr) -> None:
    parent = node.parent
    if not isinstance(parent, exp.Order):
        return
    keys: list[exp.Expr] = []
    for key in parent.expressions:
        if key is node:
            keys.append(exp.Ordered(this=exp.Is(this=node.this.copy(), expression=exp.Null()), desc=True))
            keys.append(exp.Ordered(this=node.this.copy(), desc=node.args.get("desc"), nulls_first=False))
        else:
            keys.append(key)
    parent.set("expressions", keys)


NULLS_FIRST_APART = Rewrite("x IS NULL DESC, x NULLS LAST", _nulls_first_apart)


def _nan_nulls_first(node: exp.Expr, ctx: Context) -> None:
    ctx.add(
        "nan-ordering",
        node,
        "a floating-point sort key with NULLS FIRST: Trino moves NaN next to the NULLs, Spark and DuckDB sort it above every number",
    )


NAN_NULLS_FIRST = Check("ORDER BY with NULLs last", (_nan_nulls_first,), ("nan-ordering",))


# --------------------------------------------------------------------------------------------------
# numbers


def _duckdb_sum(node: exp.Expr) -> None:
    arg = node.this
    if _kind(arg) in INTEGERS:
        node.set("this", exp.Cast(this=arg, to=exp.DataType.build("DECIMAL(38, 0)")))


DUCKDB_SUM = Rewrite("sum of integers in DECIMAL(38, 0), DuckDB's HUGEINT", _duckdb_sum)


def _decimal_within_38(node: exp.Expr, ctx: Context) -> None:
    typer = spark_typer(ctx, node, "spark")  # Spark's rules give Spark's result type
    a, b = typer(node.this), typer(node.expression)
    if "decimal" not in (a.cls, b.cls) or not {a.cls, b.cls} <= {"int", "decimal"}:
        return
    x, y = int_as_decimal(a), int_as_decimal(b)
    mul = isinstance(node, exp.Mul)
    precision = x.p + y.p + 1 if mul else max(x.p - x.s, y.p - y.s) + max(x.s, y.s) + 1
    if not (x.exact and y.exact) or precision > 38:
        ctx.add(
            "decimal-overflow",
            node,
            "decimal arithmetic beyond 38 digits (or of unknown precision): Spark lowers the scale, Trino keeps it and raises on overflow",
        )


DECIMAL_WITHIN_38 = Check("decimal arithmetic within 38 digits", (_decimal_within_38,), ("decimal-overflow",))


def _ceil_floor_type(node: exp.Expr, ctx: Context) -> None:
    # Trino (and Spark): ceil/floor of an integer is that integer, of DECIMAL(p, s) a
    # DECIMAL(p - s + min(s, 1), 0); DuckDB: of an integer a DOUBLE, of DECIMAL(p, s) a DECIMAL(p, 0)
    arg = node.this
    k = _kind(arg)
    if k in FLOATS:
        return
    if k in INTEGERS:
        ctx.rewrites.append((INTEGER_AS_IS if ctx.source == "trino" else CEIL_OF_DOUBLE, node))
        return
    t = type_of(arg)
    # sqlglot types an expression by one operand (5 - dec0 as dec0's DECIMAL(5, 0), DuckDB's is
    # DECIMAL(11, 0)), so only a column's or a cast's declared type sizes the cast
    plain = isinstance(arg, (exp.Column, exp.Cast))
    params = decimal_params(t) if t is not None and k == _T.DECIMAL and plain else None
    if params is None:
        ctx.add(
            "float-to-integer",
            node,
            f"{call_name(node)} of an expression whose decimal type is not known exactly: Trino and DuckDB give it other types",
        )
        return
    p, s = params
    p = p - s + min(s, 1) if ctx.source == "trino" else p
    ctx.rewrites.append(
        (
            Rewrite(
                f"CAST(... AS DECIMAL({p}, 0))",
                lambda n: cast_in_place(n, exp.DataType.build(f"DECIMAL({p}, 0)")),
            ),
            node,
        )
    )


INTEGER_AS_IS = Rewrite("ceil or floor of an integer is the integer", lambda n: n.replace(n.this))
CEIL_OF_DOUBLE = Rewrite(
    "ceil or floor of CAST(x AS DOUBLE), DuckDB's type",
    lambda n: n.set("this", exp.Cast(this=n.this, to=exp.DataType.build("DOUBLE"))),
)
CEIL_FLOOR_TYPE = Check(
    "ceil and floor in the source's result type", (_ceil_floor_type,), ("float-to-integer",)
)


def _trunc_date_as_timestamp(node: exp.Expr) -> None:
    # DuckDB's date_trunc of a DATE is a TIMESTAMP at every unit; Trino's is a DATE, and Trino
    # refuses units below a day
    if _kind(node.this) == _T.DATE:
        node.set("this", exp.Cast(this=node.this, to=exp.DataType.build("TIMESTAMP")))


TRUNC_DATE_AS_TIMESTAMP = Rewrite(
    "date_trunc(unit, CAST(d AS TIMESTAMP)) of a DATE", _trunc_date_as_timestamp
)


def _else_null(node: exp.Expr) -> None:
    if node.args.get("false") is None:
        node.set("false", exp.Null())


IF_ELSE_NULL = Rewrite("if(c, x, NULL): Spark's if takes three arguments", _else_null)

DUCKDB_CASE = Refuse(
    "unicode-case",
    "DuckDB's upper and lower follow newer Unicode data (upper('ß') is 'ẞ'); Trino keeps 'ß'",
)
DUCKDB_REVERSE = Refuse(
    "grapheme-reverse",
    "DuckDB's reverse keeps grapheme clusters (e + U+0301, emoji with a modifier) together; Trino reverses code points",
)


# --------------------------------------------------------------------------------------------------

_CLAUSES = construct(exp.Where, exp.Having, exp.Join, name="WHERE, HAVING or ON")
_ONE_VALUE = call(exp.Coalesce, exp.Greatest, exp.Least, exp.Case)
_SET_OPERATION = construct(exp.Union, exp.Except, exp.Intersect, name="set operation")

TRINO_EDGE_RULES: tuple[Rule, ...] = (
    Rule(BIG_INTEGER, ANY, "trino", BIG_INTEGER_AS_DECIMAL),
    Rule(_CLAUSES, ANY, "trino", BOOLEAN_OPERANDS),
    Rule(call(exp.And, exp.Or, exp.Not), ANY, "trino", BOOLEAN_OPERANDS),
    Rule(call(exp.If), ANY, "trino", BOOLEAN_OPERANDS + ONE_TYPE),
    Rule(_ONE_VALUE, ANY, "trino", ONE_TYPE),
    Rule(_SET_OPERATION, ANY, "trino", ONE_TYPE),
    Rule(call(exp.Nullif), ANY, "trino", ONE_TYPE + NAN_NULLIF),
    Rule(call(exp.Nullif), "trino", ANY, NAN_NULLIF),
    Rule(construct(exp.Between), ANY, "trino", NAN_BETWEEN),
    Rule(construct(exp.Between), "trino", ANY, NAN_BETWEEN),
    Rule(FLOATING_NULLS_FIRST, ANY, "trino", NULLS_FIRST_APART),
    Rule(FLOATING_NULLS_FIRST, "trino", ANY, NAN_NULLS_FIRST),
    Rule(call(exp.Sum), "duckdb", "trino", DUCKDB_SUM),
    Rule(call(exp.Sum), "trino", "duckdb", REAL_AGGREGATE),
    Rule(construct(exp.Like, exp.ILike), ANY, "trino", TEXT_OPERAND),
    Rule(construct(exp.Is), ANY, "trino", PARENTHESISE),
    Rule(call(exp.Ceil, exp.Floor), "trino", "duckdb", CEIL_FLOOR_TYPE),
    Rule(call(exp.Ceil, exp.Floor), "duckdb", "trino", CEIL_FLOOR_TYPE),
    Rule(call(exp.DateTrunc, exp.TimestampTrunc), "duckdb", "trino", TRUNC_DATE_AS_TIMESTAMP),
    Rule(call(exp.Reverse), "duckdb", "trino", DUCKDB_REVERSE),
    Rule(call(exp.If), "trino", "spark", IF_ELSE_NULL),
    Rule(call(exp.Upper, exp.Lower), "duckdb", "trino", DUCKDB_CASE),
)
"""The rows this module adds to the rules table."""

TRINO_EDGE_CODES = frozenset(code for r in TRINO_EDGE_RULES for code in r.codes())
