"""Rules found by the differential edge suite (``tests/translate/test_edge.py``): what Spark 3.5.9
and DuckDB compute differently on edge data (overflow, empty groups, NaN, non-ASCII case mapping,
decimal precision, day numbering, ...), as type-aware checks and exact rewrites.

Each check refuses with a code documented in ``docs/translation.md``; each rewrite turns the
construct into DuckDB's exact counterpart of Spark's result. Where ANSI and legacy Spark disagree
(integer overflow wraps in legacy mode and raises in ANSI mode, DuckDB always raises), the
translation is refused unless ``spark_ansi=True`` says the view's SQL is ANSI Spark SQL
(:func:`~iceview.sql.translate.model.spark_ansi_mode` derives it from a view version).
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from iceview.sql.translate.checks import (
    FLOATS,
    INT_LITERAL,
    INTEGERS,
    TEXT,
    decimal_params,
    literal_cast_is_safe,
    type_of,
)
from iceview.sql.translate.checks import kind_of as _kind
from iceview.sql.translate.policy import Check, Context, Rewrite

_T = exp.DataType.Type
_INT_PRECISION = {_T.TINYINT: 3, _T.SMALLINT: 5, _T.INT: 10, _T.BIGINT: 20}

DOUBLE_DIGITS = 15
"""Decimal digits a double carries exactly: DuckDB computes decimal division and ``avg`` in
doubles, so a Spark result with more digits than this is refused."""


def _decimal(node: exp.Expr) -> tuple[int, int] | None:
    """Spark's decimal precision and scale of an operand (integers as Spark widens them), or None."""
    while isinstance(node, exp.Paren) or (isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal)):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string and INT_LITERAL.match(node.name):
        return max(1, len(node.name.lstrip("+-"))), 0
    if decimal_literal(node):
        # Spark reads 2.5 as DECIMAL(2, 1) (sqlglot types it DOUBLE)
        whole, _, frac = node.name.lstrip("+-").partition(".")
        digits = len((whole + frac).lstrip("0")) or 1
        return max(digits, len(frac)), len(frac)
    t = type_of(node)
    if t is None:
        return None
    if t.this in _INT_PRECISION:
        return _INT_PRECISION[t.this], 0
    if t.this != _T.DECIMAL:
        return None
    return decimal_params(t)


_DECIMAL_LITERAL = re.compile(r"[+-]?[0-9]*\.[0-9]*\Z")


def decimal_literal(node: exp.Expr) -> bool:
    """A number literal with a point and no exponent: a decimal in Spark."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    return isinstance(node, exp.Literal) and not node.is_string and bool(_DECIMAL_LITERAL.match(node.name))


def _decimal_operand(node: exp.Expr) -> bool:
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    return _kind(node) == _T.DECIMAL or decimal_literal(node)


def _is_literal(node: exp.Expr) -> bool:
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    return isinstance(node, exp.Literal)


# --------------------------------------------------------------------------------------------------
# integer overflow


def _may_overflow(node: exp.Expr, ctx: Context) -> None:
    if ctx.spark_ansi:
        return  # ANSI Spark raises on overflow, as DuckDB and Trino do
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        operands = [node.this, node.expression]
    elif isinstance(node, (exp.Neg, exp.Abs)):
        operands = [node.this]
    else:
        return
    if all(_is_literal(o) for o in operands):
        return
    kinds = [_kind(o) for o in operands]
    if all(k in INTEGERS or (k is None and not _is_literal(o)) for k, o in zip(kinds, operands, strict=True)):
        ctx.add(
            "integer-overflow",
            node,
            "integer arithmetic that may overflow: legacy Spark wraps around, ANSI Spark, DuckDB and Trino raise"
            + (
                ""
                if all(k is not None for k in kinds)
                else " (the operand's type is unknown: pass the table schemas)"
            ),
        )


INTEGER_OVERFLOW = Check("integer arithmetic that may overflow", (_may_overflow,), ("integer-overflow",))


def _sum_overflow(node: exp.Expr, ctx: Context) -> None:
    if ctx.spark_ansi:
        return
    k = _kind(node.this)
    if k is None or k == _T.BIGINT:
        ctx.add(
            "integer-overflow",
            node,
            "sum of a BIGINT (or untyped) column may overflow: legacy Spark wraps, ANSI Spark and Trino raise, DuckDB sums in HUGEINT",
        )


SUM_OVERFLOW = Check("sum that may overflow", (_sum_overflow,), ("integer-overflow",))


def _round_integer(node: exp.Expr, ctx: Context) -> None:
    if ctx.spark_ansi and ctx.source == "spark":  # ANSI Spark raises where the target does
        return
    digits = node.args.get("decimals")
    if (
        _kind(node.this) in INTEGERS
        and digits is not None
        and not (isinstance(digits, exp.Literal) and INT_LITERAL.match(digits.name) and int(digits.name) >= 0)
    ):
        ctx.add(
            "integer-overflow",
            node,
            "round of an integer to a negative scale overflows at the type's limits: legacy Spark wraps, ANSI Spark and DuckDB raise or widen differently",
        )


ROUND_INTEGER = Check("round of an integer to tens", (_round_integer,), ("integer-overflow",))


# --------------------------------------------------------------------------------------------------
# decimals


MAX_PRECISION = 38
MINIMUM_ADJUSTED_SCALE = 6


def spark_bounded(precision: int, scale: int) -> tuple[int, int]:
    """Spark's result type when a decimal operation's precision exceeds 38, with
    ``spark.sql.decimalOperations.allowPrecisionLoss=true`` (the default): the integer digits are
    kept and the scale is cut, but not below ``min(scale, 6)``."""
    if precision <= MAX_PRECISION:
        return precision, scale
    int_digits = precision - scale
    return MAX_PRECISION, max(MAX_PRECISION - int_digits, min(scale, MINIMUM_ADJUSTED_SCALE))


def spark_divide_type(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """Spark's result type of ``DECIMAL(p1, s1) / DECIMAL(p2, s2)``: scale ``max(6, s1 + p2 + 1)``,
    precision ``p1 - s1 + s2 + scale``, then :func:`spark_bounded`."""
    (p1, s1), (p2, s2) = a, b
    scale = max(MINIMUM_ADJUSTED_SCALE, s1 + p2 + 1)
    return spark_bounded(p1 - s1 + s2 + scale, scale)


def spark_avg_type(a: tuple[int, int]) -> tuple[int, int]:
    """Spark's result type of ``avg`` of a ``DECIMAL(p, s)``: ``DECIMAL(p + 4, s + 4)``, bounded at
    38 digits each."""
    p, s = a
    return min(p + 4, MAX_PRECISION), min(s + 4, MAX_PRECISION)


def _cast_to(node: exp.Expr, precision: int, scale: int) -> None:
    node.replace(exp.Cast(this=node.copy(), to=exp.DataType.build(f"DECIMAL({precision}, {scale})")))


def _decimal_division(node: exp.Expr, ctx: Context) -> None:
    if not (_decimal_operand(node.this) or _decimal_operand(node.expression)):
        return
    if any(_kind(o) in FLOATS and not decimal_literal(o) for o in (node.this, node.expression)):
        return  # a double divides in doubles in Spark too (sqlglot types 2.5 as a double)
    a, b = _decimal(node.this), _decimal(node.expression)
    if a is None or b is None:
        ctx.add("decimal-division", node, "a decimal division with an operand of unknown type")
        return
    precision, _ = spark_divide_type(a, b)
    if precision > DOUBLE_DIGITS:
        ctx.add(
            "decimal-division",
            node,
            f"Spark divides decimals exactly (DECIMAL({precision}, ...)); DuckDB divides in doubles, exact to {DOUBLE_DIGITS} digits",
        )
    else:
        ctx.rewrites.append((DECIMAL_DIVISION_TYPE, node))


def _cast_division(node: exp.Expr) -> None:
    a, b = _decimal(node.this), _decimal(node.expression)
    if a is not None and b is not None:
        _cast_to(node, *spark_divide_type(a, b))


DECIMAL_DIVISION = Check(
    "decimal division within a double's digits", (_decimal_division,), ("decimal-division",)
)
DECIMAL_DIVISION_TYPE = Rewrite("CAST(a / b AS DECIMAL(Spark's precision, scale))", _cast_division)


def _div_operands(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) not in INTEGERS or _kind(node.expression) not in INTEGERS:
        ctx.add(
            "div-semantics",
            node,
            "Spark's DIV truncates decimals and doubles to a BIGINT; DuckDB's // of a decimal is a fraction",
        )


DIV_OPERANDS = Check("DIV of integers", (_div_operands,), ("div-semantics",))


# --------------------------------------------------------------------------------------------------
# floating point


def _float_to_bigint(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    if k is None or k in FLOATS:
        ctx.add(
            "float-to-integer",
            node,
            "Spark's ceil/floor of a double is a BIGINT that saturates at its limits; DuckDB's is a double",
        )


FLOAT_TO_BIGINT = Check("ceil/floor of a decimal or integer", (_float_to_bigint,), ("float-to-integer",))


def _nan_sign(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    if k is None or k in FLOATS:
        ctx.add("nan-semantics", node, "sign(NaN) is NaN in Spark and 0 in DuckDB")


NAN_SIGN = Check("sign of a non-floating value", (_nan_sign,), ("nan-semantics",))


# --------------------------------------------------------------------------------------------------
# empty groups


def _coalesce_zero(node: exp.Expr) -> None:
    # an aggregate over no rows (or only NULLs) is 0 in Spark and NULL in DuckDB; in a window or
    # with FILTER the whole call is wrapped
    target = node
    while isinstance(target.parent, (exp.Window, exp.Filter)):
        target = target.parent
    target.replace(exp.Coalesce(this=target.copy(), expressions=[exp.Literal.number(0)]))


COUNT_IF_ZERO = Rewrite("COALESCE(count_if(...), 0)", _coalesce_zero)


# --------------------------------------------------------------------------------------------------
# strings, dates, arrays


def _case_mapping(node: exp.Expr, ctx: Context) -> None:
    arg = node.this
    if isinstance(arg, exp.Literal) and arg.name.isascii():
        return
    ctx.add(
        "unicode-case",
        node,
        "Spark maps case with Java's full Unicode rules (ß -> SS, İ -> i̇, final sigma); DuckDB maps code points one to one",
    )


UNICODE_CASE = Check("upper/lower of ASCII literals", (_case_mapping,), ("unicode-case",))


def _positive_length(node: exp.Expr, ctx: Context) -> None:
    length = node.args.get("length") if isinstance(node, exp.Substring) else node.expression
    if length is None:
        return
    if not (isinstance(length, exp.Literal) and INT_LITERAL.match(length.name) and int(length.name) >= 0):
        ctx.add(
            "substring-position",
            node,
            "a length that may be negative: Spark returns '', DuckDB counts from the end",
        )


POSITIVE_LENGTH = Check(
    "substring/left/right with a non-negative length", (_positive_length,), ("substring-position",)
)


def _pad_text(node: exp.Expr, ctx: Context) -> None:
    fill = node.args.get("fill_pattern")
    if not (isinstance(fill, exp.Literal) and fill.is_string and fill.name):
        ctx.add(
            "pad",
            node,
            "lpad/rpad with an empty or non-literal pad: DuckDB raises where Spark returns a value",
        )


PAD_TEXT = Check("lpad/rpad with a non-empty literal pad", (_pad_text,), ("pad",))


def _reverse_text(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    if k not in TEXT:
        ctx.add(
            "array-function", node, "reverse of an array (or untyped value) becomes reverse of its text form"
        )


REVERSE_TEXT = Check("reverse of a string", (_reverse_text,), ("array-function",))


def _array_contains(node: exp.Expr, ctx: Context) -> None:
    ctx.add(
        "array-contains-null",
        node,
        "array_contains is NULL in Spark when the value is not found and the array holds a NULL; DuckDB gives false",
    )


ARRAY_CONTAINS = Check("array_contains", (_array_contains,), ("array-contains-null",))

_SAFE_EXTRACT = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "QUARTER", "WEEK"}
_DOW = {"DAYOFWEEK", "DOW"}


def _unit(node: exp.Expr) -> str:
    unit = node.this
    return unit.name.upper() if isinstance(unit, (exp.Var, exp.Literal)) else ""


def _extract_field(node: exp.Expr, ctx: Context) -> None:
    if _unit(node) not in _SAFE_EXTRACT:
        ctx.add(
            "extract-field",
            node,
            "only extract of YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE (and DOW into DuckDB) is translated "
            "(Spark's SECOND has a fraction, its DOW numbers Sunday 1)",
        )


def _extract_field_or_dow(node: exp.Expr, ctx: Context) -> None:
    if _unit(node) in _DOW:
        ctx.rewrites.append((SUNDAY_FIRST, node))
    else:
        _extract_field(node, ctx)


EXTRACT_FIELD = Check("extract of a known field", (_extract_field,), ("extract-field",))
EXTRACT_FIELD_DUCKDB = Check(
    "extract of a known field, DOW renumbered", (_extract_field_or_dow,), ("extract-field",)
)


def _sunday_first(node: exp.Expr) -> None:
    unit = node.this
    if isinstance(unit, (exp.Var, exp.Literal)) and unit.name.upper() in ("DAYOFWEEK", "DOW"):
        # Spark numbers Sunday 1 .. Saturday 7, DuckDB Sunday 0 .. Saturday 6
        node.replace(exp.Paren(this=exp.Add(this=node.copy(), expression=exp.Literal.number(1))))


SUNDAY_FIRST = Rewrite("EXTRACT(DOW) + 1", _sunday_first)


def _try_cast_text(node: exp.Expr, ctx: Context) -> None:
    to = node.args.get("to")
    explicit_try = isinstance(node, exp.TryCast) and bool(node.args.get("safe"))
    if not explicit_try or not isinstance(to, exp.DataType) or to.this in TEXT:
        return  # Spark's CAST of text is refused as ansi-cast
    k = _kind(node.this)
    if (k is None and not isinstance(node.this, exp.Literal)) or k in TEXT:
        ctx.add(
            "try-cast-text",
            node,
            "what text counts as a number, date or boolean differs ('1e3', ' 42 ', 'nan' ...)",
        )


TRY_CAST_TEXT = Check("try_cast of text", (_try_cast_text,), ("try-cast-text",))


def _day_of_week(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) in (_T.DATE, _T.TIMESTAMPNTZ, _T.TIMESTAMP):
        ctx.rewrites.append((DAY_OF_WEEK_SUNDAY_ONE, node))
    else:
        ctx.add(
            "dayofweek",
            node,
            "dayofweek of anything but a date or timestamp (Spark casts text to a date first)",
        )


def _day_of_week_plus_one(node: exp.Expr) -> None:
    # Spark numbers Sunday 1 .. Saturday 7, DuckDB's dayofweek Sunday 0 .. Saturday 6
    node.replace(exp.Paren(this=exp.Add(this=node.copy(), expression=exp.Literal.number(1))))


DAY_OF_WEEK = Check("dayofweek of a date or timestamp", (_day_of_week,), ("dayofweek",))
DAY_OF_WEEK_SUNDAY_ONE = Rewrite("dayofweek(x) + 1", _day_of_week_plus_one)


_THREE_VALUED_CONTAINS = (
    "CASE WHEN __a IS NULL OR __v IS NULL THEN NULL WHEN LIST_CONTAINS(__a, __v) THEN TRUE "
    "WHEN LEN(__a) > LIST_COUNT(__a) THEN NULL ELSE FALSE END"
)


def _array_contains_three_valued(node: exp.Expr) -> None:
    # Spark: NULL when the value is not found and the array holds a NULL; DuckDB: false
    parts = {"__a": node.this, "__v": node.expression}
    tree = sqlglot.parse_one(_THREE_VALUED_CONTAINS, read="duckdb")
    for column in list(tree.find_all(exp.Column)):
        if column.name in parts:
            column.replace(parts[column.name].copy())
    node.replace(exp.Paren(this=tree))


ARRAY_CONTAINS_NULLS = Rewrite(
    "array_contains as Spark's three-valued CASE (NULL when not found and the array holds a NULL)",
    _array_contains_three_valued,
)


# --------------------------------------------------------------------------------------------------
# found by outsiders' queries (tests/translate/edge_regressions.py)


def _empty_list(node: exp.Expr) -> None:
    # collect_list over no rows (or only NULLs) is [] in Spark and NULL in DuckDB; in a window or
    # with FILTER the whole call is wrapped
    target = node
    while isinstance(target.parent, (exp.Window, exp.Filter)):
        target = target.parent
    target.replace(exp.Coalesce(this=target.copy(), expressions=[exp.Array(expressions=[])]))


EMPTY_LIST = Rewrite("COALESCE(list(x) FILTER (WHERE x IS NOT NULL), [])", _empty_list)


def _collect_list(node: exp.Expr, ctx: Context) -> None:
    if isinstance(node.this, exp.Distinct) and not isinstance(node.parent, exp.ArraySort):
        ctx.add(
            "nondeterministic",
            node,
            "collect_list(DISTINCT ...)'s element order is engine-specific (sort_array it, or use an ORDER BY inside the aggregate)",
        )
    elif _inside(node, exp.Pivot):
        return  # the PIVOT's own rule refuses it
    else:
        ctx.rewrites.append((EMPTY_LIST, node))


COLLECT_LIST = Check("collect_list, [] over no rows", (_collect_list,), ("nondeterministic",))


def _inside(node: exp.Expr, cls: type[exp.Expr]) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, cls):
            return True
        parent = parent.parent
    return False


_EMPTY_CELL_AGGREGATES = (exp.Count, exp.CountIf, exp.ArrayAgg)


def _pivot_empty_cells(node: exp.Expr, ctx: Context) -> None:
    if node.args.get("unpivot"):
        return
    for agg in node.expressions:
        if any(isinstance(n, _EMPTY_CELL_AGGREGATES) for n in agg.walk()):
            ctx.add(
                "pivot-empty-cell",
                node,
                "a PIVOT cell of a value that never occurs is NULL in Spark; DuckDB's count is 0 there, and "
                "collect_list's [] for a value with only NULLs is NULL in DuckDB",
            )
            return


def _pivot_names(node: exp.Expr, ctx: Context) -> None:
    """A pivot value named like a grouping column: Spark keeps both columns, DuckDB one."""
    source = node.parent.this if isinstance(node.parent, exp.Subquery) else None
    if node.args.get("unpivot") or not isinstance(source, exp.Query):
        return
    used = {c.name.lower() for f in node.args.get("fields") or [] for c in f.find_all(exp.Column)}
    used |= {c.name.lower() for a in node.expressions for c in a.find_all(exp.Column)}
    grouping = {s.alias_or_name.lower() for s in source.selects} - used
    values = [
        v.alias if isinstance(v, exp.PivotAlias) else v.name
        for f in node.args.get("fields") or []
        if isinstance(f, exp.In)
        for v in f.expressions
    ]
    if any(v.lower() in grouping for v in values):
        ctx.add(
            "pivot-name",
            node,
            "a pivot value is named like a grouping column: Spark keeps both columns, DuckDB only one (alias the value)",
        )


PIVOT_EMPTY_CELLS = Check(
    "PIVOT of sum/min/max/avg, values not named like grouping columns",
    (_pivot_empty_cells, _pivot_names),
    ("pivot-empty-cell", "pivot-name"),
)


def _avg_in_doubles(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) != _T.BIGINT:
        return
    if isinstance(node.parent, exp.Window):
        # a window frame sums its rows in another order in each engine: the doubles' rounding differs
        ctx.add(
            "window-aggregate",
            node,
            "avg of a BIGINT over a window frame is summed in doubles in another order by each engine (CAST it to DECIMAL(38, 0))",
        )
        return
    if ctx.source == "spark":
        ctx.rewrites.append((AVG_OF_DOUBLES, node))
    else:
        ctx.add(
            "floating-aggregate",
            node,
            "avg of a BIGINT: DuckDB sums exactly, Spark in doubles (CAST the argument to DECIMAL(38, 0))",
        )


def _cast_avg_operand(node: exp.Expr) -> None:
    node.set("this", exp.Cast(this=node.this.copy(), to=exp.DataType.build("DOUBLE")))


AVG_OF_DOUBLES = Rewrite("avg(CAST(x AS DOUBLE))", _cast_avg_operand)
AVG_OF_BIGINT = Check(
    "avg of a BIGINT summed in doubles", (_avg_in_doubles,), ("window-aggregate", "floating-aggregate")
)


def _window_default(node: exp.Expr, ctx: Context) -> None:
    default = node.args.get("default")
    if default is None or isinstance(default, exp.Null):
        return
    value = type_of(node.this)
    if value is None:
        ctx.add("window-default", node, "lead/lag of a value of unknown type with a default")
        return
    if isinstance(default, exp.Literal):
        if literal_cast_is_safe(default, value) and (default.is_string == (value.this in TEXT)):
            return
    elif type_of(default) == value:
        return
    ctx.add(
        "window-default",
        node,
        "Spark casts lead/lag's default to the value's type (1.5 becomes 1 for an INT); DuckDB converts otherwise",
    )


WINDOW_DEFAULT = Check("lead/lag with a default of the value's type", (_window_default,), ("window-default",))


def _code_points_reversed(node: exp.Expr) -> None:
    # Spark reverses code points; DuckDB's reverse keeps grapheme clusters (e + U+0301, emoji with
    # a skin-tone modifier) together
    text = node.this
    split = exp.Anonymous(this="STRING_SPLIT", expressions=[text.copy(), exp.Literal.string("")])
    node.replace(
        exp.Anonymous(
            this="ARRAY_TO_STRING",
            expressions=[exp.Anonymous(this="LIST_REVERSE", expressions=[split]), exp.Literal.string("")],
        )
    )


REVERSE_CODE_POINTS = Rewrite("array_to_string(list_reverse(string_split(s, '')), '')", _code_points_reversed)


def _reverse_code_points(node: exp.Expr, ctx: Context) -> None:
    _reverse_text(node, ctx)
    if _kind(node.this) in TEXT:
        ctx.rewrites.append((REVERSE_CODE_POINTS, node))


REVERSE_TEXT_DUCKDB = Check(
    "reverse of a string, by code points", (_reverse_code_points,), ("array-function",)
)


def _locate_start(node: exp.Expr, ctx: Context) -> None:
    start = node.args.get("position")
    if start is None:
        return
    if not (isinstance(start, exp.Literal) and INT_LITERAL.match(start.name) and int(start.name) > 0):
        ctx.add(
            "substring-position",
            node,
            "locate with a start that may be 0 or negative: Spark returns 0, DuckDB searches from the end",
        )
        return
    needle = node.args.get("substr")
    if not (isinstance(needle, exp.Literal) and needle.is_string and needle.name):
        ctx.add(
            "substring-position",
            node,
            "locate of an empty (or non-literal) string from a start: Spark returns 1, DuckDB the start",
        )


LOCATE_START = Check("locate from a positive start", (_locate_start,), ("substring-position",))


def _date_diff_unit(node: exp.Expr, ctx: Context) -> None:
    if node.args.get("unit") is not None:
        ctx.add(
            "date-diff",
            node,
            "datediff with a unit is Spark's timestampdiff: it counts whole units elapsed (days of 24 hours in the "
            "session time zone), DuckDB's date_diff the boundaries crossed; write datediff(end, start) for days",
        )


DATE_DIFF_UNIT = Check("datediff without a unit", (_date_diff_unit,), ("date-diff",))


def _add_months(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    if k == _T.TIMESTAMPNTZ:
        ctx.rewrites.append((ADD_MONTHS_OF_DATE, node))
    elif k != _T.DATE:
        ctx.add(
            "date-add",
            node,
            "add_months takes a DATE: Spark casts a timestamp to its date (in the session time zone for a TIMESTAMP) "
            "and returns a DATE",
        )


def _operand_to_date(node: exp.Expr) -> None:
    node.set("this", exp.Cast(this=node.this.copy(), to=exp.DataType.build("DATE")))


ADD_MONTHS_OF_DATE = Rewrite("add_months(CAST(ts AS DATE), n)", _operand_to_date)
ADD_MONTHS = Check("add_months of a date", (_add_months,), ("date-add",))

_INTERVAL_OPERANDS = frozenset({_T.DATE, _T.TIMESTAMPNTZ, _T.TIMESTAMP, _T.TIMESTAMPTZ, _T.TIMESTAMPLTZ})


def _interval_result(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) in _INTERVAL_OPERANDS and _kind(node.expression) in _INTERVAL_OPERANDS:
        ctx.add(
            "interval-result",
            node,
            "the difference of two dates or timestamps is an interval in Spark (an integer in DuckDB); "
            "write datediff(end, start) for days",
        )


INTERVAL_RESULT = Check("no difference of dates", (_interval_result,), ("interval-result",))

_LONG_MIN_DIV = "BIGINT DIV -1 at the type's minimum: legacy Spark wraps around, ANSI Spark and DuckDB raise"


def _div_minus_one(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) in (_T.TINYINT, _T.SMALLINT, _T.INT):
        ctx.rewrites.append((DIV_IN_BIGINT, node))  # Spark's DIV computes in BIGINT
        return
    if ctx.spark_ansi or _kind(node.this) not in (_T.BIGINT, None):
        return
    divisor = node.expression
    while isinstance(divisor, exp.Paren):
        divisor = divisor.this
    literal = divisor.this if isinstance(divisor, exp.Neg) else divisor
    if isinstance(literal, exp.Literal) and not literal.is_string:
        value = -float(literal.name) if isinstance(divisor, exp.Neg) else float(literal.name)
        if value != -1:
            return
    ctx.add("integer-overflow", node, _LONG_MIN_DIV)


def _dividend_to_bigint(node: exp.Expr) -> None:
    node.set("this", exp.Cast(this=node.this.copy(), to=exp.DataType.build("BIGINT")))


DIV_IN_BIGINT = Rewrite("CAST(a AS BIGINT) // b", _dividend_to_bigint)
DIV_MINUS_ONE = Check("DIV by a divisor that is not -1", (_div_minus_one,), ("integer-overflow",))
