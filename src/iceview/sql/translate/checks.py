"""The rules that stay functions: type-aware checks (casts, division, implicit conversions,
rounding, ...), the conditions of the named constructs, the rewrites, and the check of Spark's
``trunc`` units in the source text. The rules table (:mod:`.rules`) says where each one applies;
nothing here tests a dialect's name."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from sqlglot import exp

from iceview.sql.translate.policy import Check, Context, Rewrite

# trunc / date_trunc units as Spark spells them -> the unit every target understands
TRUNC_UNITS = {
    "YEAR": "YEAR",
    "YYYY": "YEAR",
    "YY": "YEAR",
    "QUARTER": "QUARTER",
    "MONTH": "MONTH",
    "MM": "MONTH",
    "MON": "MONTH",
    "WEEK": "WEEK",
    "DAY": "DAY",
    "DD": "DAY",
    "HOUR": "HOUR",
    "MINUTE": "MINUTE",
    "SECOND": "SECOND",
}

DATE_TRUNC_UNITS = {k: v for k, v in TRUNC_UNITS.items() if v in ("YEAR", "QUARTER", "MONTH", "WEEK")}
"""The units of Spark's ``trunc(date, fmt)`` (others give NULL); ``date_trunc`` knows them all."""

# date_format patterns whose mapping to strftime/Trino's DATE_FORMAT is exact
# (sqlglot has already turned Spark's pattern into strftime codes)
_SAFE_FORMAT = re.compile(r"(%Y|%m|%d|%H|%M|%S|strict|[-/:. T_])*\Z")

# --------------------------------------------------------------------------------------------------
# types and literals

_T = exp.DataType.Type
INTEGERS = frozenset({_T.TINYINT, _T.SMALLINT, _T.INT, _T.BIGINT})
FLOATS = frozenset({_T.FLOAT, _T.DOUBLE})
TEXT = frozenset({_T.TEXT, _T.VARCHAR, _T.CHAR})
_INT_BITS = {_T.TINYINT: 8, _T.SMALLINT: 16, _T.INT: 32, _T.BIGINT: 64}
_INT_DIGITS = {_T.TINYINT: 3, _T.SMALLINT: 5, _T.INT: 10, _T.BIGINT: 19}
_TIMESTAMPS = {_T.TIMESTAMP, _T.TIMESTAMPTZ, _T.TIMESTAMPLTZ, _T.TIMESTAMPNTZ, _T.DATETIME}
INT_LITERAL = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL_LITERAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)\Z")
_DATE_LITERAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")


def int_literal_digits(text: str) -> int:
    """The digits of an integer literal's value, as Spark's ``DecimalType.fromLiteral`` counts them."""
    return len(text.lstrip("+-").lstrip("0")) or 1


def type_of(node: exp.Expr) -> exp.DataType | None:
    t = node.type if hasattr(node, "type") else None
    if t is None or t.this in (_T.UNKNOWN, _T.NULL):
        return None
    return t


def kind_of(node: exp.Expr) -> exp.DType | None:
    """The type of ``node``'s value (``DataType.Type``), or None when it is not known."""
    t = type_of(node)
    return t.this if t is not None else None


def cast_in_place(node: exp.Expr, to: exp.DataType) -> None:
    """Put ``node`` inside ``CAST(node AS to)``: the node moves rather than being copied, so rewrites
    scheduled inside it still apply."""
    cast = exp.Cast(to=to)
    node.replace(cast)
    cast.set("this", node)


def decimal_params(t: exp.DataType) -> tuple[int, int] | None:
    """A decimal type's precision and scale (Spark's ``DECIMAL`` is ``(10, 0)``), or None."""
    params = [p.this for p in t.expressions if isinstance(p, exp.DataTypeParam)]
    try:
        if len(params) == 2:
            return int(params[0].name), int(params[1].name)
        if len(params) == 1:
            return int(params[0].name), 0
    except (ValueError, AttributeError):
        return None
    return (10, 0)


def literal_cast_is_safe(value: exp.Literal, to: exp.DataType) -> bool:
    """A string or number literal cast to a type that both engines read the same way."""
    text = value.name.strip() if value.is_string else value.name
    kind = to.this
    if kind in TEXT:
        return True
    if kind in INTEGERS:
        if not INT_LITERAL.match(text):
            return False
        bits = _INT_BITS[kind]
        return bool(-(2 ** (bits - 1)) <= int(text) < 2 ** (bits - 1))
    if kind in FLOATS:
        return bool(_DECIMAL_LITERAL.match(text))
    if kind == _T.DECIMAL:
        params = decimal_params(to)
        if params is None or not _DECIMAL_LITERAL.match(text):
            return False
        p, s = params
        whole, _, frac = text.lstrip("+-").partition(".")
        return len(whole.lstrip("0")) <= p - s and len(frac) <= s
    if kind == _T.DATE:
        return bool(_DATE_LITERAL.match(text))
    return False


def _cast_value_issue(frm: exp.DataType, to: exp.DataType) -> str | None:
    """Why a conversion that succeeds gives different values in different engines, or None."""
    f, t = frm.this, to.this
    if f in FLOATS and t in INTEGERS | {_T.DECIMAL}:
        return "floating-point to integer/decimal rounds in DuckDB and Trino but truncates in Spark"
    if f == _T.DECIMAL and t in INTEGERS:
        return "decimal to integer rounds in DuckDB and Trino but truncates in Spark"
    if t in TEXT and (f in FLOATS or f in _TIMESTAMPS):
        return "the text form of floating-point numbers and timestamps differs between engines"
    if t in TEXT and f in (_T.ARRAY, _T.STRUCT, _T.MAP):
        return "the text form of arrays, structs and maps differs ({1, x} and [null] in Spark, {'x': 1, 'y': x} and [NULL] in DuckDB)"
    if (f in _TIMESTAMPS or t in _TIMESTAMPS) and (f != t) and {f, t} != {_T.DATE, _T.TIMESTAMPNTZ}:
        return "conversions to and from time-zone-aware timestamps depend on the session time zone"
    return None


def _cast_cannot_fail(frm: exp.DataType, to: exp.DataType) -> bool:
    """Whether a conversion succeeds for every value (so ANSI and legacy mode agree)."""
    f, t = frm.this, to.this
    if frm == to or (f == t and f not in (_T.DECIMAL,)):
        return True
    if t in TEXT:
        return True
    if f == _T.BOOLEAN and t in INTEGERS:
        return True
    if f in INTEGERS and t in INTEGERS:
        return _INT_BITS[f] <= _INT_BITS[t]
    if f in INTEGERS and t in FLOATS:
        return True
    if f in INTEGERS and t == _T.DECIMAL:
        params = decimal_params(to)
        return params is not None and params[0] - params[1] >= _INT_DIGITS[f]
    if f == _T.DECIMAL and t == _T.DECIMAL:
        a, b = decimal_params(frm), decimal_params(to)
        return a is not None and b is not None and b[1] >= a[1] and b[0] - b[1] >= a[0] - a[1]
    if f == _T.DECIMAL and t in FLOATS:
        return True
    if f == _T.FLOAT and t == _T.DOUBLE:
        return True
    # a date widens to midnight, a zone-less timestamp narrows to its date: total in every engine
    return {f, t} == {_T.DATE, _T.TIMESTAMPNTZ}


def nonzero_literal(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Neg):
        return nonzero_literal(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.name) != 0
        except ValueError:
            return False
    return False


def guarded_divisor(node: exp.Expr) -> bool:
    """``NULLIF(x, 0)``: a divisor that is never zero."""
    while isinstance(node, exp.Paren):
        node = node.this
    if not isinstance(node, exp.Nullif):
        return False
    zero = node.expression
    return isinstance(zero, exp.Literal) and not zero.is_string and _is_zero(zero.name)


def _is_zero(text: str) -> bool:
    try:
        return float(text) == 0
    except ValueError:
        return False


# --------------------------------------------------------------------------------------------------
# conditions of named constructs (tests: node, context -> bool)


def divisor_may_be_zero(node: exp.Expr, ctx: Context) -> bool:
    """``/``, ``DIV``, ``%`` by anything but a non-zero literal or ``NULLIF(x, 0)``."""
    divisor = node.expression
    return not (nonzero_literal(divisor) or guarded_divisor(divisor))


def like_may_escape(node: exp.Expr, ctx: Context) -> bool:
    """``LIKE`` without ``ESCAPE`` whose pattern is not a literal or holds a backslash."""
    pattern = node.expression
    return node.args.get("escape") is None and (not isinstance(pattern, exp.Literal) or "\\" in pattern.name)


def start_may_be_non_positive(node: exp.Expr, ctx: Context) -> bool:
    """``substring(s, p, ...)`` with ``p`` not a positive integer literal."""
    start = node.args.get("start")
    return start is not None and not (
        isinstance(start, exp.Literal) and INT_LITERAL.match(start.name) and int(start.name) > 0
    )


def exact_date_format(node: exp.Expr, ctx: Context) -> bool:
    """A ``date_format`` pattern made of yyyy, MM, dd, HH, mm, ss and separators."""
    fmt = node.args.get("format")
    return isinstance(fmt, exp.Literal) and bool(_SAFE_FORMAT.match(fmt.name))


def in_lateral_view(node: exp.Expr, ctx: Context) -> bool:
    return isinstance(node.parent, exp.Lateral)


def known_trunc_unit(node: exp.Expr, ctx: Context) -> bool:
    """The unit argument of ``trunc``/``date_trunc``, spelt in a way :data:`TRUNC_UNITS` knows."""
    return (
        node.arg_key == "unit"
        and isinstance(node.parent, (exp.DateTrunc, exp.TimestampTrunc))
        and isinstance(node, (exp.Literal, exp.Var))
        and node.name.upper() in TRUNC_UNITS
    )


def bare_decimal(node: exp.Expr, ctx: Context) -> bool:
    """``DECIMAL`` without precision and scale."""
    return isinstance(node, exp.DataType) and node.this == exp.DataType.Type.DECIMAL and not node.expressions


# --------------------------------------------------------------------------------------------------
# checks


def _three_part_names(node: exp.Expr, ctx: Context) -> None:
    if not isinstance(node, exp.Table):
        return
    parts = [p for p in node.parts if isinstance(p, exp.Identifier)]
    if len(node.parts) > 3:
        ctx.add(
            "nested-namespace", node, f"{ctx.target} names have at most three parts (catalog.schema.table)"
        )
    elif ctx.qualified and len(parts) < 3 and node.name and not _is_cte(node):
        ctx.add(
            "unqualified-name",
            node,
            "the name is not fully qualified, so the target engine would resolve it with its own defaults",
        )


def _is_cte(node: exp.Table) -> bool:
    if node.args.get("db") or node.args.get("catalog"):
        return False
    name = node.name.lower()
    parent = node.parent
    while parent is not None:
        with_ = parent.args.get("with_") or parent.args.get("with")
        if isinstance(with_, exp.With) and any(c.alias_or_name.lower() == name for c in with_.expressions):
            return True
        parent = parent.parent
    return False


def _time_travel(node: exp.Expr, ctx: Context) -> None:
    if node.args.get("version") is not None:
        ctx.add("time-travel", node, "time travel is not translated")


THREE_PART_NAMES = Check(
    "names the target resolves as catalog.schema.table",
    (_three_part_names,),
    ("nested-namespace", "unqualified-name"),
)
TIME_TRAVEL = Check("time travel", (_time_travel,), ("time-travel",))


def _integer_division(node: exp.Expr, ctx: Context) -> None:
    a, b = type_of(node.this), type_of(node.expression)
    if a is None or b is None or (a.this in INTEGERS and b.this in INTEGERS):
        ctx.add("integer-division", node, "Trino's / truncates integers; DuckDB's and Spark's do not")


INTEGER_DIVISION = Check("integer division", (_integer_division,), ("integer-division",))


def _implicit_conversion(node: exp.Expr, ctx: Context) -> None:
    a, b = type_of(node.this), type_of(node.expression)
    if a is None or b is None:
        return
    text_a, text_b = a.this in TEXT, b.this in TEXT
    if text_a != text_b:
        ctx.add(
            "implicit-cast",
            node,
            "comparing or combining text with another type relies on implicit conversions that differ between engines",
        )


IMPLICIT_CONVERSION = Check("implicit conversion", (_implicit_conversion,), ("implicit-cast",))


def cast_check(*, ansi: bool) -> Check:
    """``CAST``/``TRY_CAST`` by the operand's type: conversions that give other values in other
    engines; with ``ansi`` (Spark on either side) also casts that may fail, which raise in Spark's
    ANSI mode and return NULL in legacy mode."""

    def cast(node: exp.Expr, ctx: Context) -> None:
        to = node.args.get("to")
        if not isinstance(to, exp.DataType):
            return
        operand = node.this
        while isinstance(operand, exp.Paren):  # (1.50) is the literal 1.50
            operand = operand.this
        explicit_try = isinstance(node, exp.TryCast) and bool(node.args.get("safe"))
        if isinstance(operand, exp.Null):
            return
        if isinstance(operand, exp.Literal):
            if not literal_cast_is_safe(operand, to) and not explicit_try:
                ctx.add("ansi-cast", node, "the literal does not convert the same way in every engine")
            return
        frm = type_of(operand)
        if frm is None:
            if explicit_try:
                ctx.add(
                    "cast-semantics",
                    node,
                    "the operand's type is unknown (pass the table schemas), so the conversion may differ between engines (e.g. double to int rounds in DuckDB and truncates in Spark)",
                )
            elif ansi:
                ctx.add(
                    "ansi-cast",
                    node,
                    "the operand's type is unknown (pass the table schemas), so the cast may fail: Spark's ANSI mode raises, legacy mode returns NULL",
                )
            return
        value_issue = _cast_value_issue(frm, to)
        if value_issue is not None:
            ctx.add("cast-semantics", node, value_issue)
            return
        if ansi and not explicit_try and not _cast_cannot_fail(frm, to):
            ctx.add(
                "ansi-cast",
                node,
                f"a cast from {frm.sql(ctx.source)} to {to.sql(ctx.source)} may fail: Spark's ANSI mode raises, legacy mode returns NULL",
            )

    return Check("cast (ANSI)" if ansi else "cast", (cast,), ("ansi-cast", "cast-semantics"))


def trunc_unit_check(units: Mapping[str, str]) -> Check:
    """``trunc``/``date_trunc`` with a unit that is not one of ``units``."""

    def trunc_unit(node: exp.Expr, ctx: Context) -> None:
        unit = node.args.get("unit")
        if not isinstance(unit, (exp.Literal, exp.Var)) or unit.name.upper() not in units:
            ctx.add(
                "trunc-unit",
                node,
                f"the truncation unit must be one of {', '.join(sorted(units))}; sqlglot passes other spellings through unchanged",
            )

    return Check(f"truncation unit in {', '.join(sorted(units))}", (trunc_unit,), ("trunc-unit",))


def _round_floating(node: exp.Expr, ctx: Context) -> None:
    operand = type_of(node.this)
    if operand is None or operand.this in FLOATS:
        ctx.add(
            "round-floating",
            node,
            "rounding a floating-point (or untyped) value: Spark rounds the decimal text HALF_UP, DuckDB and Trino round the binary value",
        )


ROUND_FLOATING = Check("round of a floating-point value", (_round_floating,), ("round-floating",))


def to_date_check(exact: Collection[exp.DType]) -> Check:
    """``to_date(x)``: safe only without a format and for an operand of one of the ``exact`` types
    (parsing text fails in ANSI mode and returns NULL in legacy mode)."""

    def to_date(node: exp.Expr, ctx: Context) -> None:
        operand = type_of(node.this)
        if node.args.get("format") is not None or operand is None or operand.this not in exact:
            ctx.add(
                "ansi-cast",
                node,
                "parsing text as a date fails in ANSI mode and returns NULL in legacy mode (and formats differ)",
            )

    return Check(f"to_date of {', '.join(sorted(t.name for t in exact))}", (to_date,), ("ansi-cast",))


def _explode_array(node: exp.Expr, ctx: Context) -> None:
    t = type_of(node.this)
    if t is None or t.this != _T.ARRAY:
        ctx.add("explode", node, "explode() of a map or an untyped value is not translated")


EXPLODE_ARRAY = Check("explode of an array", (_explode_array,), ("explode",))


def _concat_ws_text(node: exp.Expr, ctx: Context) -> None:
    for arg in node.expressions[1:]:
        t = type_of(arg)
        if t is None or t.this not in TEXT:
            ctx.add("concat-ws", node, "Trino's concat_ws takes only strings (arrays are flattened in Spark)")
            break


CONCAT_WS_TEXT = Check("concat_ws of strings", (_concat_ws_text,), ("concat-ws",))


# --------------------------------------------------------------------------------------------------
# rewrites


def _normalise_trunc_unit(node: exp.Expr) -> None:
    parent = node.parent
    if parent is not None:
        parent.set("unit", exp.Literal.string(TRUNC_UNITS[node.name.upper()]))


def _spark_decimal(node: exp.Expr) -> None:
    # Spark's DECIMAL is DECIMAL(10, 0); DuckDB's is DECIMAL(18, 3)
    node.set(
        "expressions",
        [exp.DataTypeParam(this=exp.Literal.number(10)), exp.DataTypeParam(this=exp.Literal.number(0))],
    )


def _count_star(node: exp.Expr) -> None:
    node.set("this", exp.Star())


NORMALISE_TRUNC_UNIT = Rewrite("the unit every target understands", _normalise_trunc_unit)
COUNT_STAR = Rewrite("COUNT(*)", _count_star)
"""DuckDB's ``count()`` counts rows; Spark has no ``count()`` (``WRONG_NUM_ARGS``)."""
SPARK_DECIMAL = Rewrite("DECIMAL(10, 0)", _spark_decimal)
