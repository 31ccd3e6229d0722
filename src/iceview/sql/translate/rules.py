"""The rules table: ``(construct, source dialect, target dialect) -> policy`` for every construct
whose translation is not simply what sqlglot generates.

Each row is a :class:`~iceview.sql.translate.policy.Rule`; :data:`RULES` looks up the most specific
one per node (see :mod:`iceview.sql.translate.policy`). Nodes without a rule are kept. Function
calls are refused unless their class is on the target's allow-list
(:data:`~iceview.sql.translate.allowlists.ALLOWED`); a few allowed ones have their own rule.
:data:`SOURCE_TEXT_CHECKS` are the rules read from the source text rather than from the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlglot import exp

from iceview.sql.translate import checks as c
from iceview.sql.translate import edges as e
from iceview.sql.translate import edges_both as eb
from iceview.sql.translate import edges_duckdb as ed
from iceview.sql.translate import exact_decimals as xd
from iceview.sql.translate import into_spark as sp
from iceview.sql.translate import source_text as st
from iceview.sql.translate.blind_rules import BLIND_RULES
from iceview.sql.translate.cross_rules import CROSS_RULES
from iceview.sql.translate.model import TranslationIssue
from iceview.sql.translate.policy import (
    ANY,
    KEEP,
    Construct,
    Context,
    Refuse,
    Rule,
    RuleTable,
    call,
    construct,
    exactly,
    on_allow_list,
    predicate,
)
from iceview.sql.translate.trino_rules import TRINO_RULES

_T = exp.DataType.Type


# --------------------------------------------------------------------------------------------------
# named constructs

TABLE = construct(exp.Table)
PIVOT = construct(exp.Pivot)
TABLE_FUNCTION = predicate("table function", exp.Table, lambda n, _: isinstance(n.this, exp.Func))
UNPIVOT = predicate("UNPIVOT", exp.Pivot, lambda n, _: bool(n.args.get("unpivot")))
LATERAL_VIEW_OUTER = predicate("LATERAL VIEW OUTER", exp.Lateral, lambda n, _: bool(n.args.get("outer")))
LATERAL_VIEW_OF_OTHER = predicate(
    "LATERAL VIEW of anything but explode",
    exp.Lateral,
    lambda n, _: not n.args.get("outer") and bool(n.args.get("view")) and not isinstance(n.this, exp.Explode),
)
LATERAL_SUBQUERY = predicate("LATERAL subquery", exp.Lateral, lambda n, _: not n.args.get("view"))
DIVISION_BY_MAYBE_ZERO = predicate(
    "division by a non-literal", (exp.Div, exp.IntDiv, exp.Mod), c.divisor_may_be_zero
)
LIKE_WITHOUT_ESCAPE = predicate(
    "LIKE with a backslash or a non-literal pattern", (exp.Like, exp.ILike), c.like_may_escape
)
COMPARISON_OR_ARITHMETIC = construct(
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.Add,
    exp.Sub,
    exp.Mul,
    name="comparison or arithmetic",
)
FUNCTION_CALL = construct(exp.Func, name="function call outside the allow-list")
ALLOWED_CALL = predicate("function call on the allow-list", exp.Func, on_allow_list)
TRUNC = sp.TRUNC
SPARK_TRUNC = call(exp.DateTrunc)  # Spark's trunc(date, fmt); date_trunc(fmt, ts) is TimestampTrunc
DATE_FORMAT = call(exp.TimeToStr)
EXACT_DATE_FORMAT = DATE_FORMAT.where("date_format with an exactly mapped pattern", c.exact_date_format)
SUBSTRING_FROM_MAYBE_NON_POSITIVE = call(exp.Substring).where(
    "substring from a position that may be 0 or negative", c.start_may_be_non_positive
)
CAST = call(exp.Cast, exp.TryCast)
COUNT_ROWS = call(exp.Count).where("count() of no argument", lambda n, _: n.this is None)
TO_DATE = call(exp.TsOrDsToDate)
EXPLODE = call(exp.Explode)
EXPLODE_IN_LATERAL_VIEW = EXPLODE.where("explode in LATERAL VIEW", c.in_lateral_view)
TRUNC_UNIT = predicate("truncation unit", (exp.Literal, exp.Var), c.known_trunc_unit)
BARE_DECIMAL = predicate("DECIMAL without precision", exp.DataType, c.bare_decimal)

DIV_BY_NON_ZERO = call(exp.IntDiv).where(
    "DIV by a non-zero divisor", lambda n, ctx: not c.divisor_may_be_zero(n, ctx)
)
ARITHMETIC = construct(exp.Add, exp.Sub, name="integer or decimal arithmetic")
ORDERING_COMPARISON = construct(exp.GT, exp.GTE, exp.LT, exp.LTE, name="ordering comparison")
EQUALITY = construct(exp.EQ, exp.NEQ, name="equality comparison")
ORDERED = construct(exp.Ordered, name="ORDER BY item")
IN = construct(exp.In)
CONCAT = call(exp.Concat, exp.ConcatWs)
PRODUCT = construct(exp.Mul, name="multiplication")

# refusals: a stable code and the reason
_LIBM = Refuse(
    "libm",
    "{name}() differs in the last bit between Java's StrictMath and the C library (and ln(0) is NULL in Spark)",
)
_FLOATING_AGGREGATE = Refuse(
    "floating-aggregate",
    "standard deviation and variance use different algorithms (last digits, NaN and infinities differ)",
)
_TABLESAMPLE = Refuse("tablesample", "sampling is random and each engine samples differently")
_OUTER_EXPLODE = Refuse(
    "outer-explode", "LATERAL VIEW OUTER keeps rows with empty or NULL arrays; CROSS JOIN UNNEST drops them"
)
_LATERAL_VIEW = Refuse("lateral-view", "only LATERAL VIEW explode(array) is translated")
_LATERAL_SUBQUERY = Refuse(
    "lateral-subquery",
    "a LATERAL subquery: a name in it may resolve to a struct field in one engine and to an outer "
    "column in another, and Spark refuses much of what DuckDB and Trino allow in it (LIMIT, "
    "windows, references two levels out)",
)
_ARRAY_INDEX = Refuse(
    "array-index",
    "array subscripts are 0-based in Spark and out-of-range access returns NULL or fails depending on ANSI mode",
)
_LIKE_ESCAPE = Refuse(
    "like-escape",
    "Spark's LIKE escapes with a backslash by default, DuckDB's and Trino's have no default escape",
)
_DATE_FORMAT = Refuse(
    "date-format",
    "only date_format patterns made of yyyy, MM, dd, HH, mm, ss and separators are translated exactly",
)
_SUBSTRING_POSITION = Refuse(
    "substring-position",
    "a start position that may be 0 or negative means different things in Spark and DuckDB/Trino",
)
_DIVISION = Refuse(
    "ansi-division",
    "a divisor that may be zero: Spark's ANSI mode raises, legacy mode returns NULL (write NULLIF(x, 0) to make it explicit)",
)
PIVOT_ONLY_SPARK_TO_DUCKDB = Refuse("pivot", "PIVOT/UNPIVOT is translated only from Spark to DuckDB")
NO_PIVOT_IN_TRINO = Refuse("pivot", "Trino has no PIVOT/UNPIVOT (sqlglot would drop it silently)")
_EXPLODE_OUTSIDE_LATERAL_VIEW = Refuse("explode", "explode() is translated only in LATERAL VIEW")
_COLLECT_LIST_INTO_TRINO = Refuse("function", "collect_list's NULL handling is not checked for Trino")
_REVERSE_GRAPHEMES = Refuse(
    "grapheme-reverse",
    "DuckDB's reverse keeps grapheme clusters (e + U+0301, emoji with a modifier) together; Spark reverses code points",
)
_NOT_ALLOWED = Refuse("function", "{name}() is not on the allow-list for {target}")
_OUTER = "OUTER explode keeps rows with empty or NULL arrays; CROSS JOIN UNNEST drops them"
_JAVA_REGEX = "Java regular expressions differ from RE2 (DuckDB) and Joni (Trino)"
_APPROXIMATE = "approximate aggregates use different algorithms in each engine"
_ANON_OUTER = "OUTER explode keeps rows with empty or NULL arrays"

# functions whose meaning cannot be carried over in any direction (none is on an allow-list)
_REFUSED_CALLS: tuple[tuple[type[exp.Expr] | str, str, str], ...] = (
    (
        exp.FromJson,
        "from_json",
        "Spark's from_json (schema string, PERMISSIVE mode) has no equivalent; sqlglot passes it through unchanged and invalid",
    ),
    (
        exp.JSONExtractScalar,
        "json",
        "JSON path functions differ in error handling and path syntax between engines",
    ),
    (exp.JSONFormat, "json", "to_json's text form differs between engines"),
    (exp.ApproxQuantile, "approximate", _APPROXIMATE),
    (exp.ApproxDistinct, "approximate", _APPROXIMATE),
    (exp.Quantile, "approximate", "percentile interpolation differs between engines"),
    (exp.First, "nondeterministic", "first() without an order returns an arbitrary row"),
    (exp.Last, "nondeterministic", "last() without an order returns an arbitrary row"),
    (exp.ArgMax, "nondeterministic", "max_by returns an arbitrary row among ties"),
    (exp.ArgMin, "nondeterministic", "min_by returns an arbitrary row among ties"),
    (exp.ArrayUniqueAgg, "nondeterministic", "collect_set's element order is engine-specific"),
    (exp.Rand, "nondeterministic", "random numbers differ between engines"),
    (exp.Uuid, "nondeterministic", "random values differ between engines"),
    (
        exp.ArraySize,
        "size-of-null",
        "Spark's size(NULL) is -1 in legacy mode (spark.sql.legacy.sizeOfNull) and NULL in ANSI mode",
    ),
    (exp.DayOfWeek, "dayofweek", "day-of-week numbering differs (Spark 1=Sunday, DuckDB 0=Sunday)"),
    (
        exp.RegexpReplace,
        "regex",
        "Java regular expressions and replacement references ($1) differ from RE2 (DuckDB) and Joni (Trino)",
    ),
    (exp.RegexpExtract, "regex", _JAVA_REGEX),
    (exp.RegexpLike, "regex", _JAVA_REGEX),
    (exp.RegexpSplit, "regex", "Spark's split() takes a Java regular expression and a limit; engines differ"),
    (exp.RegexpILike, "regex", _JAVA_REGEX),
    (exp.Initcap, "initcap", "initcap's word boundaries differ between engines"),
    (exp.StrToUnix, "time-zone", "unix_timestamp depends on the session time zone"),
    (exp.UnixToStr, "time-zone", "from_unixtime depends on the session time zone"),
    ("_ExplodeOuter", "outer-explode", _OUTER),
    (exp.ExplodeOuter, "outer-explode", _OUTER),
    (exp.Posexplode, "posexplode", "positions are 0-based in Spark and 1-based in WITH ORDINALITY"),
    (exp.PosexplodeOuter, "outer-explode", _OUTER),
    (exp.Inline, "explode", "inline() of structs is not translated reliably"),
    (exp.Stack, "explode", "stack() has no equivalent"),
    (
        exp.MonthsBetween,
        "months-between",
        "months_between's rounding (8 digits, day-of-month rules) has no equivalent",
    ),
    (exp.SafeDivide, "ansi-division", "try_divide is not translated"),
)

# functions sqlglot does not know (exp.Anonymous), by name as written
_REFUSED_ANONYMOUS: tuple[tuple[str, str, str], ...] = (
    ("hash", "hash", "Spark's hash() is Murmur3 with seed 42; no other engine computes the same values"),
    (
        "xxhash64",
        "hash",
        "Spark's xxhash64() is seeded with 42 and hashes Spark's binary encoding; other engines differ",
    ),
    ("crc32", "hash", "hash functions are not translated"),
    ("from_json", "from_json", "Spark's from_json has no equivalent"),
    ("explode_outer", "outer-explode", _ANON_OUTER),
    ("posexplode_outer", "outer-explode", _ANON_OUTER),
    ("inline_outer", "outer-explode", _ANON_OUTER),
)


def _anonymous(name: str) -> Construct:
    def named(node: exp.Expr, ctx: Context) -> bool:
        return node.name.lower() == name

    return predicate(f"{name}()", exp.Anonymous, named)


# --------------------------------------------------------------------------------------------------
# the table

RULES = RuleTable(
    [
        # relations
        Rule(construct(exp.TableSample), ANY, ANY, _TABLESAMPLE),
        Rule(TABLE_FUNCTION, ANY, ANY, KEEP),
        Rule(TABLE, ANY, ANY, c.TIME_TRAVEL),
        Rule(TABLE, ANY, "trino", c.THREE_PART_NAMES + c.TIME_TRAVEL),
        Rule(TABLE, ANY, "duckdb", c.THREE_PART_NAMES + c.TIME_TRAVEL),
        Rule(PIVOT, ANY, ANY, PIVOT_ONLY_SPARK_TO_DUCKDB),
        Rule(PIVOT, "spark", "duckdb", e.PIVOT_EMPTY_CELLS),
        Rule(PIVOT, ANY, "trino", NO_PIVOT_IN_TRINO),
        Rule(UNPIVOT, ANY, ANY, PIVOT_ONLY_SPARK_TO_DUCKDB),
        Rule(UNPIVOT, ANY, "trino", NO_PIVOT_IN_TRINO),
        Rule(LATERAL_VIEW_OUTER, ANY, ANY, _OUTER_EXPLODE),
        Rule(LATERAL_VIEW_OF_OTHER, ANY, ANY, _LATERAL_VIEW),
        Rule(LATERAL_SUBQUERY, ANY, ANY, _LATERAL_SUBQUERY),
        # expressions
        Rule(construct(exp.Bracket), ANY, ANY, _ARRAY_INDEX),
        Rule(DIVISION_BY_MAYBE_ZERO, "spark", ANY, _DIVISION),
        Rule(DIVISION_BY_MAYBE_ZERO, ANY, "spark", _DIVISION),
        Rule(construct(exp.Div), "trino", ANY, c.INTEGER_DIVISION),
        Rule(LIKE_WITHOUT_ESCAPE, ANY, ANY, _LIKE_ESCAPE),
        Rule(COMPARISON_OR_ARITHMETIC, ANY, ANY, c.IMPLICIT_CONVERSION),
        # function calls: refused unless on the target's allow-list
        Rule(FUNCTION_CALL, ANY, ANY, _NOT_ALLOWED),
        Rule(construct(exp.Anonymous), ANY, ANY, _NOT_ALLOWED),
        *(
            Rule(_anonymous(name), ANY, ANY, Refuse(code, reason))
            for name, code, reason in _REFUSED_ANONYMOUS
        ),
        *(Rule(exactly(cls), ANY, ANY, Refuse(code, reason)) for cls, code, reason in _REFUSED_CALLS),
        Rule(ALLOWED_CALL, ANY, ANY, KEEP),
        # allowed function calls with a rule of their own
        Rule(CAST, ANY, ANY, c.cast_check(ansi=False)),
        Rule(CAST, "spark", ANY, c.cast_check(ansi=True) + e.TRY_CAST_TEXT),
        Rule(CAST, ANY, "spark", c.cast_check(ansi=True)),
        Rule(TRUNC, ANY, ANY, c.trunc_unit_check(c.TRUNC_UNITS)),
        Rule(SPARK_TRUNC, "spark", ANY, c.trunc_unit_check(c.DATE_TRUNC_UNITS)),
        Rule(DATE_FORMAT, ANY, ANY, _DATE_FORMAT),
        Rule(EXACT_DATE_FORMAT, "spark", ANY, KEEP),
        Rule(SUBSTRING_FROM_MAYBE_NON_POSITIVE, ANY, ANY, _SUBSTRING_POSITION),
        Rule(call(exp.Round), ANY, ANY, c.ROUND_FLOATING),
        Rule(TO_DATE, ANY, ANY, c.to_date_check({_T.DATE, _T.TIMESTAMPNTZ, _T.TIMESTAMP})),
        # Spark's TIMESTAMP depends on the session time zone
        Rule(TO_DATE, "spark", ANY, c.to_date_check({_T.DATE, _T.TIMESTAMPNTZ})),
        Rule(EXPLODE, ANY, ANY, _EXPLODE_OUTSIDE_LATERAL_VIEW),
        Rule(EXPLODE_IN_LATERAL_VIEW, ANY, ANY, c.EXPLODE_ARRAY),
        Rule(call(exp.ArrayAgg), ANY, "trino", _COLLECT_LIST_INTO_TRINO),
        Rule(call(exp.ConcatWs), ANY, "trino", c.CONCAT_WS_TEXT),
        # found on edge data (tests/translate/test_edge.py): Spark's semantics against the targets'
        Rule(ARITHMETIC, "spark", ANY, c.IMPLICIT_CONVERSION + e.INTEGER_OVERFLOW + e.INTERVAL_RESULT),
        Rule(PRODUCT, "spark", ANY, c.IMPLICIT_CONVERSION + e.INTEGER_OVERFLOW + xd.DECIMAL_PRODUCT),
        Rule(construct(exp.Neg), "spark", ANY, e.INTEGER_OVERFLOW),
        Rule(call(exp.Abs), "spark", ANY, e.INTEGER_OVERFLOW),
        Rule(call(exp.Sum), "spark", ANY, e.SUM_OVERFLOW),
        Rule(call(exp.Round), "spark", ANY, c.ROUND_FLOATING + e.ROUND_INTEGER),
        Rule(construct(exp.Div), "spark", ANY, xd.DECIMAL_DIVISION),
        Rule(call(exp.Avg), "spark", ANY, xd.DECIMAL_AVG + e.AVG_OF_BIGINT),
        Rule(DIV_BY_NON_ZERO, "spark", ANY, e.DIV_OPERANDS + e.DIV_MINUS_ONE),
        Rule(call(exp.Ceil, exp.Floor), "spark", ANY, e.FLOAT_TO_BIGINT),
        Rule(call(exp.Sign), "spark", ANY, e.NAN_SIGN),
        Rule(call(exp.Exp, exp.Ln), "spark", ANY, _LIBM),
        Rule(
            call(exp.Stddev, exp.StddevSamp, exp.StddevPop, exp.Variance, exp.VariancePop),
            "spark",
            ANY,
            _FLOATING_AGGREGATE,
        ),
        Rule(call(exp.CountIf), "spark", ANY, e.COUNT_IF_ZERO),
        Rule(COUNT_ROWS, ANY, ANY, c.COUNT_STAR),
        Rule(call(exp.Upper, exp.Lower), "spark", ANY, e.UNICODE_CASE),
        Rule(call(exp.Left, exp.Right), "spark", ANY, e.POSITIVE_LENGTH),
        Rule(call(exp.Substring), "spark", ANY, e.POSITIVE_LENGTH),
        Rule(call(exp.Pad), "spark", ANY, e.PAD_TEXT),
        Rule(call(exp.Reverse), "spark", ANY, e.REVERSE_TEXT),
        Rule(call(exp.ArrayContains), "spark", ANY, e.ARRAY_CONTAINS),
        Rule(call(exp.ArrayContains), "spark", "duckdb", e.ARRAY_CONTAINS_NULLS),
        Rule(call(exp.Extract), "spark", ANY, e.EXTRACT_FIELD),
        Rule(call(exp.Extract), "spark", "duckdb", e.EXTRACT_FIELD_DUCKDB),
        Rule(exactly(exp.DayOfWeek), "spark", "duckdb", e.DAY_OF_WEEK),
        # found by outsiders' queries (tests/translate/edge_regressions.py)
        Rule(call(exp.ArrayAgg), "spark", "duckdb", e.COLLECT_LIST),
        Rule(call(exp.Lag, exp.Lead), ANY, ANY, e.WINDOW_DEFAULT),
        Rule(call(exp.Reverse), "spark", "duckdb", e.REVERSE_TEXT_DUCKDB),
        Rule(call(exp.Reverse), "duckdb", "spark", _REVERSE_GRAPHEMES),
        Rule(call(exp.StrPosition), "spark", ANY, e.LOCATE_START),
        Rule(call(exp.DateDiff), "spark", ANY, e.DATE_DIFF_UNIT),
        Rule(call(exp.AddMonths), "spark", ANY, e.ADD_MONTHS),
        Rule(call(exp.TimestampTrunc), "spark", "duckdb", c.trunc_unit_check(c.TRUNC_UNITS) + eb.ZONED_TRUNC),
        *(
            rule
            for source, target in (("spark", "duckdb"), ("duckdb", "spark"))
            for rule in (
                Rule(call(exp.Min, exp.Max), source, target, eb.NESTED_ORDERING),
                Rule(ORDERED, source, target, eb.NESTED_ORDERING),
                Rule(
                    ORDERING_COMPARISON,
                    source,
                    target,
                    c.IMPLICIT_CONVERSION + eb.NESTED_ORDERING + eb.ZONED_COMPARISON,
                ),
                Rule(EQUALITY, source, target, c.IMPLICIT_CONVERSION + eb.ZONED_COMPARISON),
                Rule(IN, source, target, eb.IN_TEXT_LITERALS + eb.IN_SUBQUERY),
                Rule(CONCAT, source, target, eb.CONCAT_TEXT),
                Rule(construct(exp.DPipe), source, target, eb.CONCAT_TEXT),
            )
        ),
        *(Rule(syntax, "duckdb", "spark", refusal) for syntax, refusal in eb.DUCKDB_SYNTAX),
        # found on edge data from DuckDB into Spark (tests/translate/test_edge_duckdb.py)
        Rule(
            ARITHMETIC,
            "duckdb",
            "spark",
            c.IMPLICIT_CONVERSION + ed.DECIMAL_PRECISION_LOSS + ed.TRY_INTEGER,
        ),
        Rule(PRODUCT, "duckdb", "spark", c.IMPLICIT_CONVERSION + ed.DECIMAL_PRECISION_LOSS + ed.TRY_INTEGER),
        Rule(construct(exp.Neg), "duckdb", "spark", ed.TRY_INTEGER),
        Rule(call(exp.Abs), "duckdb", "spark", ed.TRY_INTEGER),
        Rule(construct(exp.Div), "duckdb", "spark", ed.DECIMAL_IN_DOUBLES),
        Rule(call(exp.Sum), "duckdb", "spark", ed.SUM_OF_INTEGERS),
        Rule(construct(exp.IntDiv), "duckdb", "spark", ed.INT_DIV_OPERANDS),
        Rule(call(exp.Upper, exp.Lower), "duckdb", "spark", e.UNICODE_CASE),
        Rule(CAST, "duckdb", "spark", c.cast_check(ansi=True) + e.TRY_CAST_TEXT),
        Rule(call(exp.Ceil, exp.Floor), "duckdb", "spark", e.FLOAT_TO_BIGINT),
        Rule(call(exp.Sign), "duckdb", "spark", e.NAN_SIGN),
        Rule(call(exp.Round), "duckdb", "spark", c.ROUND_FLOATING + e.ROUND_INTEGER),
        Rule(call(exp.Avg), "duckdb", "spark", ed.DECIMAL_IN_DOUBLES + e.AVG_OF_BIGINT),
        # found with Spark's session time zone set to one with daylight saving (into_spark.py)
        Rule(TRUNC, "duckdb", "spark", c.trunc_unit_check(c.TRUNC_UNITS) + sp.TRUNC_WITHOUT_TIME_ZONE),
        Rule(call(exp.Extract), "duckdb", "spark", e.EXTRACT_FIELD + sp.ZONE_FREE),
        Rule(sp.DATE_PARTS, "duckdb", "spark", sp.ZONE_FREE),
        # rewrites of what sqlglot generates wrongly
        Rule(TRUNC_UNIT, ANY, ANY, c.NORMALISE_TRUNC_UNIT),
        Rule(BARE_DECIMAL, "spark", ANY, c.SPARK_DECIMAL),
        *TRINO_RULES,  # Trino's documented semantics (trino_rules.py, trino_reference.py)
        *CROSS_RULES,  # found by the corpora per source dialect (cross_rules.py)
        *BLIND_RULES,  # found by an outside check (blind_rules.py)
    ]
)
"""Every rule of the translation, by construct and direction."""

SOURCE_TEXT_CHECKS: Mapping[str, tuple[Callable[[str], list[TranslationIssue]], ...]] = {
    # sqlglot normalises trunc units on parsing ('Q' becomes QUARTER) that Spark does not know
    "spark": (st.spark_trunc_units, st.spark_year_patterns, st.unary_plus("spark")),
    "duckdb": (st.unary_plus("duckdb"),),
    "trino": (st.unary_plus("trino"),),
}
"""Per source dialect, the rules read from the source text; their issues follow the tree's."""

SOURCE_TEXT_CODES = frozenset({"trunc-unit", "date-format", "unary-plus"})
"""The refusal codes of :data:`SOURCE_TEXT_CHECKS`."""
