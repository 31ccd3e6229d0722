"""The rules of the Trino directions (Spark -> Trino, Trino -> Spark, Trino -> DuckDB) that follow
from Trino's documented semantics (:mod:`.trino_reference` records each reference).

No Trino server runs here, so every construct accepted with Trino on either side rests on Trino's
function documentation; where that documentation gives another NULL, overflow, type or text
behaviour than Spark's (or DuckDB's), the construct is rewritten into the exact counterpart or
refused with a named code. :data:`TRINO_RULES` is spliced into :data:`~.rules.RULES`.
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate import checks as c
from iceview.sql.translate import edges as e
from iceview.sql.translate import into_spark as sp
from iceview.sql.translate import trino_edges as te
from iceview.sql.translate import trino_nan as tn
from iceview.sql.translate.checks import FLOATS, INTEGERS, TEXT, cast_in_place
from iceview.sql.translate.checks import kind_of as _kind
from iceview.sql.translate.policy import (
    ANY,
    KEEP,
    Check,
    Construct,
    Context,
    Rewrite,
    Rule,
    call,
    call_name,
    construct,
    exactly,
)
from iceview.sql.translate.spark_typing import spark_typer
from iceview.sql.translate.trino_reference import DOCS, TRINO_SOURCE_TARGETS, UNREFERENCED_RULES

__all__ = ["TRINO_RULES", "TRINO_RULE_CODES"]

_T = exp.DataType.Type
_DOCS = f"{DOCS}/functions"


# --------------------------------------------------------------------------------------------------
# strings


def _trim_spaces(node: exp.Expr) -> None:
    # Spark's trim/ltrim/rtrim remove spaces only; Trino's remove whitespace, unless given characters
    if node.args.get("expression") is None:
        node.set("expression", exp.Literal.string(" "))
        if node.args.get("position") is None:
            node.set("position", "BOTH")


TRIM_SPACES = Rewrite("TRIM(BOTH ' ' FROM s): Spark trims spaces only", _trim_spaces)


def _trim_whitespace(node: exp.Expr, ctx: Context) -> None:
    if node.args.get("expression") is None:
        ctx.add(
            "trim-whitespace",
            node,
            f"Trino's trim removes leading and trailing whitespace ({_DOCS}/string.html); Spark's and DuckDB's remove spaces only",
        )


TRIM_WHITESPACE = Check("trim with explicit characters", (_trim_whitespace,), ("trim-whitespace",))


def _replace_search(node: exp.Expr, ctx: Context) -> None:
    search = node.args.get("expression")
    if not (isinstance(search, exp.Literal) and search.is_string and search.name):
        ctx.add(
            "replace-empty",
            node,
            "replace with an empty (or non-literal) search: Trino inserts the replacement around every character, Spark returns the string unchanged",
        )


REPLACE_SEARCH = Check("replace of a non-empty literal", (_replace_search,), ("replace-empty",))

_SAME_TEXT = frozenset({*TEXT, *INTEGERS, _T.DECIMAL, _T.DATE, _T.BOOLEAN})
"""Types whose text form is the same in Spark and Trino (a double is ``1.0`` in Spark and ``1.0E0``
in Trino; a timestamp keeps its zero microseconds in Trino)."""


def _concat_args(node: exp.Expr, ctx: Context) -> None:
    args = node.expressions if isinstance(node, exp.Concat) else [node.this, node.expression]
    for arg in args:
        if isinstance(arg, exp.Literal) and arg.is_string:
            continue
        if _kind(arg) not in _SAME_TEXT:
            ctx.add(
                "concat-text",
                node,
                "concat of a value that is not text, a number with an exact text form, a date or a boolean "
                "(or of unknown type): Spark and Trino write doubles and timestamps as different text",
            )
            return


CONCAT_TEXT = Check("concat of values with the same text form", (_concat_args,), ("concat-text",))


# --------------------------------------------------------------------------------------------------
# numbers


def _widen_sum(node: exp.Expr, ctx: Context) -> None:
    # Spark sums integers in BIGINT and decimal(p, s) in decimal(p + 10, s); Trino's documented
    # result type is the input's, so the input is cast to Spark's result type first. The type is
    # Spark's, not sqlglot's (COALESCE(decimal, double) is a DOUBLE in Spark)
    ty = spark_typer(ctx, node, "spark")(node.this)
    k = _kind(node.this)
    to = None
    if ty.cls == "int" and k != _T.BIGINT:
        to = "BIGINT"
    elif ty.cls == "decimal" and ty.exact:
        to = f"DECIMAL({min(38, ty.p + 10)}, {ty.s})"
    elif ty.cls == "decimal":
        ctx.add("decimal-precision", node, "sum of a decimal whose precision Spark's rules cannot derive")
    elif ty.cls == "double" and k != _T.DOUBLE:
        to = "DOUBLE"
    elif ty.cls == "unknown" and k is not None and k not in INTEGERS:
        ctx.add(
            "type-signature",
            node,
            "sum of a value whose type Spark's rules do not settle (a decimal beside a double): CAST it",
        )
    if to is not None:
        target = exp.DataType.build(to)
        ctx.rewrites.append(
            (
                Rewrite(f"sum of CAST(x AS {to})", lambda n: n.set("this", exp.Cast(this=n.this, to=target))),
                node,
            )
        )


WIDEN_SUM = Check("sum in Spark's result type", (_widen_sum,), ("decimal-precision", "type-signature"))


def _decimal_avg(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    if k is None or k == _T.DECIMAL or e.decimal_literal(node.this):  # sqlglot types 1.5 as a double
        ctx.add(
            "decimal-avg",
            node,
            "avg of a decimal (or of an unknown type): Spark returns decimal(p + 4, s + 4), Trino's documented result is a double",
        )


DECIMAL_AVG = Check("avg of integers or floating-point values", (_decimal_avg,), ("decimal-avg",))


def _nan_ordering(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    if k is None or k in FLOATS:
        ctx.add(
            "nan-ordering",
            node,
            "min/max of a floating-point value (or of an unknown type): Spark orders NaN above every number, "
            "Trino's documentation gives no NaN ordering",
        )


NAN_ORDERING = Check("min/max of a non-floating value", (_nan_ordering,), ("nan-ordering",))


def _java_pow(node: exp.Expr, ctx: Context) -> None:
    ctx.add(
        "libm",
        node,
        "power() may differ in the last bit: Spark computes StrictMath.pow, Trino's documentation gives no accuracy",
    )


JAVA_POW = Check("power", (_java_pow,), ("libm",))


def _integer_div(node: exp.Expr) -> None:
    # Spark's DIV of integers truncates towards zero in BIGINT, as Trino's '/' of BIGINTs does
    # (sqlglot's default goes through a double, inexact beyond 2^53). The operands move rather
    # than being copied, so rewrites scheduled inside them still apply.
    bigint = exp.DataType.build("BIGINT")
    this, expression = node.this, node.expression
    node.replace(
        exp.Div(
            this=exp.Cast(this=this, to=bigint.copy()),
            expression=exp.Cast(this=expression, to=bigint.copy()),
            typed=True,
            safe=False,
        )
    )


INTEGER_DIV = Rewrite("CAST(a AS BIGINT) / CAST(b AS BIGINT)", _integer_div)


def _decimal_quotient(node: exp.Expr, ctx: Context) -> None:
    kinds = [_kind(node.this), _kind(node.expression)]
    if _T.DECIMAL in kinds or None in kinds:
        ctx.add(
            "decimal-division",
            node,
            "division of decimals (or of an unknown type): Trino's quotient has scale max(xs, ys) "
            f"({DOCS}/functions/decimal.html), Spark's at least 6 digits more",
        )


DECIMAL_QUOTIENT = Check(
    "division of integers or floating-point values", (_decimal_quotient,), ("decimal-division",)
)


def _round_ties(node: exp.Expr, ctx: Context) -> None:
    ctx.add(
        "trino-unreferenced",
        node,
        "round(): Trino's documentation does not say how ties are broken (Spark rounds half up)",
    )


ROUND_TIES = Check("round", (_round_ties,), ("trino-unreferenced",))


def _text_to_timestamp(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) not in (_T.DATE, _T.TIMESTAMP, _T.TIMESTAMPNTZ, _T.TIMESTAMPTZ, _T.TIMESTAMPLTZ):
        ctx.add(
            "trino-unreferenced",
            node,
            "a cast of text (or of an unknown type) to a timestamp: Trino's documentation does not list the text forms it accepts",
        )


TEXT_TO_TIMESTAMP = Check(
    "timestamp() of a date or timestamp", (_text_to_timestamp,), ("trino-unreferenced",)
)


# --------------------------------------------------------------------------------------------------
# dates and times


_DAY_UNITS = {"DAY": 1, "WEEK": 7}
_MONTH_UNITS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
_SMALL_INTEGERS = frozenset({_T.TINYINT, _T.SMALLINT, _T.INT})


def _unit_name(node: exp.Expr) -> str:
    unit = node.args.get("unit")
    return unit.name.upper() if isinstance(unit, (exp.Var, exp.Literal)) else ""


def _date_add(node: exp.Expr, ctx: Context) -> None:
    unit, amount = _unit_name(node), node.expression
    integral = (isinstance(amount, exp.Literal) and c.INT_LITERAL.match(amount.name)) or (
        isinstance(amount, exp.Neg) and isinstance(amount.this, exp.Literal)
    )
    if unit not in _DAY_UNITS and unit not in _MONTH_UNITS:
        ctx.add(
            "date-add",
            node,
            f"date_add of {unit.lower() or 'an unknown unit'}: only day, week, month, quarter and year are translated",
        )
    elif _kind(node.this) != _T.DATE:
        ctx.add(
            "date-add",
            node,
            "date_add of a timestamp (or of an unknown type): Spark's date_add and add_months return a DATE",
        )
    elif not integral and _kind(amount) not in _SMALL_INTEGERS:
        ctx.add(
            "date-add", node, "date_add by an amount that is not an INTEGER: Spark's date_add takes an INT"
        )


DATE_ADD = Check("date_add of a DATE by days, weeks, months, quarters or years", (_date_add,), ("date-add",))


def _as_date(node: exp.Expr) -> None:
    # DuckDB's DATE + INTERVAL is a TIMESTAMP; Trino's date_add of a DATE is a DATE
    cast_in_place(node, exp.DataType.build("DATE"))


AS_DATE = Rewrite("CAST(... AS DATE)", _as_date)


def _date_diff(node: exp.Expr, ctx: Context) -> None:
    if _unit_name(node) != "DAY" or _kind(node.this) != _T.DATE or _kind(node.expression) != _T.DATE:
        ctx.add(
            "date-diff",
            node,
            "date_diff of another unit than day or of values that are not DATEs (or of unknown type): "
            "the engines count months and times differently",
        )


DATE_DIFF = Check("date_diff in days of DATEs", (_date_diff,), ("date-diff",))


def _datediff_end_start(node: exp.Expr) -> None:
    # Spark's three-argument DATEDIFF(DAY, ...) is timestampdiff, which reads DATEs as timestamps in
    # the session time zone (a day across a daylight-saving change is 23 hours); datediff(end,
    # start) counts days
    node.set("unit", None)


DATEDIFF_OF_DATES = Rewrite("datediff(end, start)", _datediff_end_start)


def _trunc_keeps_date(node: exp.Expr, ctx: Context) -> None:
    kind = _kind(node.this)
    if kind == _T.DATE:
        ctx.rewrites.append((AS_DATE, node))
    elif kind not in (_T.TIMESTAMP, _T.TIMESTAMPNTZ, _T.DATETIME):
        what = "an operand of unknown type (pass the table schemas)" if kind is None else f"a {kind.value}"
        ctx.add(
            "time-zone",
            node,
            f"date_trunc of {what}: DuckDB truncates in its TimeZone setting, Trino in the value's zone",
        )


TRUNC_KEEPS_DATE = Check("date_trunc of a DATE stays a DATE", (_trunc_keeps_date,), ("time-zone",))


# --------------------------------------------------------------------------------------------------
# NULLs


def _plain(node: exp.Expr) -> bool:
    """A column, a literal or a cast of a literal (``DATE '...'``): an argument that can be repeated."""
    if isinstance(node, exp.Cast):
        node = node.this
    return isinstance(node, (exp.Column, exp.Literal, exp.Null))


def _null_if_any_null(node: exp.Expr, ctx: Context) -> None:
    args = [node.this, *node.expressions]
    if any(_kind(a) in FLOATS for a in args):
        ctx.add(
            "nan-semantics",
            node,
            f"{call_name(node)} of floating-point values: Trino's documentation gives no NaN ordering",
        )
    elif not all(_plain(a) for a in args):
        ctx.add(
            "greatest-null",
            node,
            f"{call_name(node)} of expressions: Trino's is NULL when any argument is, the rewrite is kept to columns and literals",
        )
    else:
        ctx.rewrites.append((NULL_IF_ANY_NULL, node))


def _case_null(node: exp.Expr) -> None:
    args = [node.this, *node.expressions]
    test = exp.or_(*(exp.Is(this=a.copy(), expression=exp.Null()) for a in args))
    case = exp.Case(ifs=[exp.If(this=test, true=exp.Null())])
    node.replace(case)
    node.set("ignore_nulls", True)  # no NULL reaches it now (sqlglot would test again for DuckDB)
    case.set("default", node)


NULL_IF_ANY_NULL = Rewrite("CASE WHEN any argument IS NULL THEN NULL ELSE ... END", _case_null)
GREATEST_NULLS = Check(
    "greatest/least of non-floating columns and literals",
    (_null_if_any_null,),
    ("nan-semantics", "greatest-null"),
)


def _strpos_two_args(node: exp.Expr, ctx: Context) -> None:
    if node.args.get("occurrence") is not None or node.args.get("position") is not None:
        ctx.add(
            "strpos-instance", node, "strpos with an instance: Spark's third argument is a start position"
        )


STRPOS_TWO_ARGS = Check("strpos(string, substring)", (_strpos_two_args,), ("strpos-instance",))


# --------------------------------------------------------------------------------------------------
# Spark's functions that Trino spells otherwise


def _right_from_start(node: exp.Expr) -> None:
    # sqlglot writes SUBSTR(s, LENGTH(s) - (n - 1)), whose start is 0 (Trino: '') when n is the
    # length plus one; Spark's right() of more than the length is the whole string
    text, n = node.this, node.expression
    start = exp.Add(
        this=exp.Sub(this=exp.Length(this=text.copy()), expression=n.copy()), expression=exp.Literal.number(1)
    )
    node.replace(
        exp.Substring(this=text, start=exp.Greatest(this=start, expressions=[exp.Literal.number(1)]))
    )


RIGHT_FROM_START = Rewrite("SUBSTR(s, GREATEST(LENGTH(s) - n + 1, 1))", _right_from_start)


def _plain_text(node: exp.Expr, ctx: Context) -> None:
    if not isinstance(node.this, (exp.Column, exp.Literal)):
        ctx.add(
            "substring-position",
            node,
            "right() of an expression: the rewrite repeats its operand, so it is kept to columns and literals",
        )
    else:
        ctx.rewrites.append((RIGHT_FROM_START, node))


RIGHT_OF_COLUMN = Check("right() of a column or literal", (_plain_text,), ("substring-position",))


def _md5_of_text(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) not in TEXT and not (isinstance(node.this, exp.Literal) and node.this.is_string):
        ctx.add(
            "md5-input",
            node,
            "md5 of a value that is not (or not known to be) a string: Spark hashes its UTF-8 text, Trino's md5 takes varbinary",
        )
    else:
        ctx.rewrites.append((MD5_OF_UTF8, node))


def _md5_of_utf8(node: exp.Expr) -> None:
    node.set("this", exp.Anonymous(this="TO_UTF8", expressions=[node.this]))


MD5_OF_UTF8 = Rewrite("lower(to_hex(md5(to_utf8(s))))", _md5_of_utf8)
MD5_OF_TEXT = Check("md5 of a string", (_md5_of_text,), ("md5-input",))


def _add_months_of_date(node: exp.Expr, ctx: Context) -> None:
    if _kind(node.this) != _T.DATE:
        ctx.add(
            "date-add",
            node,
            "add_months of a timestamp (or of an unknown type): Spark returns a DATE, Trino's date_add a timestamp",
        )
    else:
        ctx.rewrites.append((ADD_MONTHS_AS_DATE_ADD, node))


def _date_add_months(node: exp.Expr) -> None:
    node.replace(
        exp.Anonymous(this="DATE_ADD", expressions=[exp.Literal.string("month"), node.expression, node.this])
    )


ADD_MONTHS_AS_DATE_ADD = Rewrite("date_add('month', n, d)", _date_add_months)
ADD_MONTHS_OF_DATE = Check("add_months of a DATE", (_add_months_of_date,), ("date-add",))


def _spark_day_of_week(node: exp.Expr, ctx: Context) -> None:
    # sqlglot writes (day_of_week(x) % 7) + 1: Trino's ISO Monday 1 .. Sunday 7 as Spark's Sunday 1
    if _kind(node.this) not in (_T.DATE, _T.TIMESTAMPNTZ, _T.TIMESTAMP):
        ctx.add(
            "dayofweek",
            node,
            "dayofweek of anything but a date or timestamp (Spark casts text to a date first)",
        )


SPARK_DAY_OF_WEEK = Check("dayofweek of a date or timestamp", (_spark_day_of_week,), ("dayofweek",))


def _start_one(node: exp.Expr) -> None:
    node.set("start", exp.Literal.number(1))  # Spark's position 0 is its position 1


START_ONE = Rewrite("substring from position 1", _start_one)


def _then(rewrite: Rewrite) -> Check:
    """A check that only schedules ``rewrite`` (so a rule can check and rewrite)."""

    def schedule(node: exp.Expr, ctx: Context) -> None:
        ctx.rewrites.append((rewrite, node))

    return Check(rewrite.name, (schedule,), ())


# --------------------------------------------------------------------------------------------------
# the rows spliced into the rules table

_COMPARISON = construct(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, name="comparison")
_ARITHMETIC = construct(exp.Add, exp.Sub, name="integer or decimal arithmetic")
_PRODUCT = construct(exp.Mul, name="multiplication")
SUBSTRING_FROM_ZERO = call(exp.Substring).where(
    "substring from position 0",
    c.start_may_be_non_positive,
    lambda n, ctx: isinstance(n.args.get("start"), exp.Literal) and n.args["start"].name == "0",
)
_DIV_BY_NON_ZERO = call(exp.IntDiv).where(
    "DIV by a non-zero divisor", lambda n, ctx: not c.divisor_may_be_zero(n, ctx)
)


def _from_trino(what: Construct, policy: Check) -> tuple[Rule, ...]:
    """The rule for ``what`` from Trino into each other dialect."""
    return tuple(Rule(what, "trino", target, policy) for target in TRINO_SOURCE_TARGETS)


TRINO_RULES: tuple[Rule, ...] = (
    # Spark -> Trino
    Rule(call(exp.Trim), "spark", "trino", TRIM_SPACES),
    Rule(call(exp.Replace), "spark", "trino", REPLACE_SEARCH),
    Rule(call(exp.Concat), "spark", "trino", CONCAT_TEXT),
    Rule(construct(exp.DPipe), "spark", "trino", CONCAT_TEXT),
    Rule(call(exp.Sum), "spark", "trino", e.SUM_OVERFLOW + WIDEN_SUM),
    Rule(call(exp.Avg), "spark", "trino", DECIMAL_AVG),
    Rule(call(exp.Min, exp.Max), "spark", "trino", NAN_ORDERING),
    Rule(
        _COMPARISON,
        "spark",
        "trino",
        c.IMPLICIT_CONVERSION + te.COMPARABLE + te.PREDICATE_OPERANDS + tn.NAN_GUARD_INTO_TRINO,
    ),
    Rule(call(exp.Pow), "spark", "trino", JAVA_POW),
    Rule(_DIV_BY_NON_ZERO, "spark", "trino", e.DIV_OPERANDS + _then(INTEGER_DIV)),
    Rule(call(exp.TimeStrToTime), "spark", "trino", TEXT_TO_TIMESTAMP),
    Rule(call(exp.Round), "spark", "trino", c.ROUND_FLOATING + e.ROUND_INTEGER + ROUND_TIES),
    Rule(construct(exp.Div), "spark", "trino", e.DECIMAL_DIVISION + DECIMAL_QUOTIENT),
    Rule(call(exp.Right), "spark", "trino", e.POSITIVE_LENGTH + RIGHT_OF_COLUMN),
    Rule(call(exp.Right), "duckdb", "trino", e.POSITIVE_LENGTH + RIGHT_OF_COLUMN),
    Rule(call(exp.Replace), "duckdb", "trino", REPLACE_SEARCH),
    Rule(call(exp.Min, exp.Max), "duckdb", "trino", NAN_ORDERING),
    Rule(_DIV_BY_NON_ZERO, "duckdb", "trino", e.DIV_OPERANDS),
    Rule(
        _COMPARISON,
        "duckdb",
        "trino",
        c.IMPLICIT_CONVERSION + te.COMPARABLE + te.PREDICATE_OPERANDS + tn.NAN_GUARD_INTO_TRINO,
    ),
    Rule(call(exp.MD5), "spark", "trino", MD5_OF_TEXT),
    Rule(call(exp.AddMonths), "spark", "trino", ADD_MONTHS_OF_DATE),
    Rule(exactly(exp.DayOfWeek), "spark", "trino", SPARK_DAY_OF_WEEK),
    Rule(
        call(exp.ArrayContains), "spark", "trino", KEEP
    ),  # Trino's contains is Spark's: NULL when not found among NULLs
    Rule(SUBSTRING_FROM_ZERO, "spark", ANY, e.POSITIVE_LENGTH + _then(START_ONE)),
    # Trino -> Spark and Trino -> DuckDB
    # (per target, so that no rule of another direction's target outranks them)
    *_from_trino(call(exp.Trim), TRIM_WHITESPACE),
    *_from_trino(call(exp.Replace), REPLACE_SEARCH),
    *_from_trino(call(exp.Upper, exp.Lower), e.UNICODE_CASE),
    *_from_trino(call(exp.Avg), DECIMAL_AVG + te.REAL_AGGREGATE),
    *_from_trino(call(exp.Min, exp.Max), NAN_ORDERING),
    *_from_trino(_COMPARISON, c.IMPLICIT_CONVERSION + tn.NAN_GUARD_FROM_TRINO),
    Rule(construct(exp.In), ANY, "trino", tn.NAN_IN_INTO_TRINO),
    *_from_trino(construct(exp.In), tn.NAN_IN_FROM_TRINO),
    # Trino raises on integer overflow; legacy Spark would wrap and return rows
    Rule(_ARITHMETIC, "trino", "spark", c.IMPLICIT_CONVERSION + e.INTEGER_OVERFLOW + te.DECIMAL_WITHIN_38),
    Rule(_PRODUCT, "trino", "spark", c.IMPLICIT_CONVERSION + e.INTEGER_OVERFLOW + te.DECIMAL_WITHIN_38),
    Rule(construct(exp.Neg), "trino", "spark", e.INTEGER_OVERFLOW),
    Rule(call(exp.Abs), "trino", "spark", e.INTEGER_OVERFLOW),
    Rule(call(exp.Sum), "trino", "spark", e.SUM_OVERFLOW + te.REAL_AGGREGATE),
    Rule(construct(exp.Div), "trino", "spark", c.INTEGER_DIVISION + DECIMAL_QUOTIENT),
    Rule(construct(exp.Div), "trino", "duckdb", c.INTEGER_DIVISION + DECIMAL_QUOTIENT),
    # found on the edge table (tests/translate/test_edge_trino.py) against Trino's documentation
    *_from_trino(call(exp.Substring), e.POSITIVE_LENGTH),
    *_from_trino(call(exp.Pad), e.PAD_TEXT),
    *_from_trino(call(exp.Concat), CONCAT_TEXT),
    *_from_trino(call(exp.StrPosition), STRPOS_TWO_ARGS),
    *_from_trino(call(exp.Sign), e.NAN_SIGN),
    *_from_trino(call(exp.Extract), e.EXTRACT_FIELD + sp.ZONE_FREE),
    *_from_trino(sp.DATE_PARTS, sp.ZONE_FREE),
    Rule(call(exp.Ceil, exp.Floor), "trino", "spark", e.FLOAT_TO_BIGINT),
    *_from_trino(call(exp.Greatest, exp.Least), GREATEST_NULLS),
    Rule(call(exp.DateAdd), "trino", "spark", DATE_ADD),
    Rule(call(exp.DateAdd), "trino", "duckdb", DATE_ADD + _then(AS_DATE)),
    Rule(call(exp.DateDiff), "trino", "spark", DATE_DIFF + _then(DATEDIFF_OF_DATES)),
    Rule(call(exp.DateDiff), "trino", "duckdb", DATE_DIFF),
    Rule(call(exp.DayOfWeekIso), "trino", "spark", sp.ZONE_FREE + _then(sp.DAY_OF_WEEK_ISO)),
    Rule(sp.TRUNC, "trino", "spark", c.trunc_unit_check(c.TRUNC_UNITS) + sp.TRUNC_WITHOUT_TIME_ZONE),
    Rule(sp.TRUNC, "trino", "duckdb", c.trunc_unit_check(c.TRUNC_UNITS) + TRUNC_KEEPS_DATE),
    # what Trino's documentation does not settle
    *UNREFERENCED_RULES,
    # found by running Trino (trino_edges.py)
    *te.TRINO_EDGE_RULES,
)
"""The Trino rows of the rules table."""

TRINO_RULE_CODES = frozenset(code for r in TRINO_RULES for code in r.codes())
"""Every refusal code the Trino rows may give."""
