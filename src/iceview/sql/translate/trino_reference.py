"""The evidence for Trino: for every function class accepted with Trino as the target (Trino's
allow-list) or as the source (the Spark and DuckDB allow-lists, read from Trino SQL), the page of
Trino's documentation and the documented fact (NULL handling, overflow, result type) that makes
the translation exact, or the rule that rewrites or refuses it where Trino's documented semantics
differ from Spark's or DuckDB's.

No Trino server runs here (no Docker, no Maven), so Trino's documentation is the evidence; Spark's
and DuckDB's sides are executed by the edge suite (``tests/translate/test_edge.py``). A class with
no reference is refused with ``trino-unreferenced`` (:data:`UNREFERENCED_RULES`), and
``tests/translate/test_trino_reference.py`` fails when an accepted class has neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from iceview.sql.translate.allowlists import ALLOWED, allowed_functions
from iceview.sql.translate.policy import Refuse, Rule, exactly, on_allow_list

__all__ = [
    "DOCS",
    "REFERENCES",
    "TRINO_SOURCE_TARGETS",
    "TRINO_SOURCE_UNREFERENCED",
    "TRINO_TARGET_UNREFERENCED",
    "UNREFERENCED_RULES",
    "TrinoReference",
    "accepted_from_trino",
    "accepted_into_trino",
]

DOCS = "https://trino.io/docs/current"

TRINO_SOURCE_TARGETS = ("spark", "duckdb")
"""The dialects a Trino view's SQL is translated into."""
"""Trino's documentation (sources: trinodb/trino, docs/src/main/sphinx)."""


@dataclass(frozen=True)
class TrinoReference:
    """Where Trino documents a construct (``page`` under :data:`DOCS`), what it documents, and how
    the translation follows from it (``verdict``: ``exact``, or the rule that rewrites or refuses)."""

    page: str
    fact: str
    verdict: str = "exact"

    @property
    def url(self) -> str:
        return f"{DOCS}/{self.page}"


def _r(page: str, fact: str, verdict: str = "exact") -> TrinoReference:
    return TrinoReference(page, fact, verdict)


_AGG = "functions/aggregate.html"
_WIN = "functions/window.html"
_COND = "functions/conditional.html"
_MATH = "functions/math.html"
_STR = "functions/string.html"
_DT = "functions/datetime.html"
_ARR = "functions/array.html"
_CONV = "functions/conversion.html"
_LOGIC = "functions/logical.html"
_CMP = "functions/comparison.html"
_NULL_AGG = "aggregates ignore NULLs and return NULL over no rows or only NULLs (as Spark)"

REFERENCES: Mapping[str, TrinoReference] = {
    # aggregates
    "Count": _r(_AGG, "count(*) / count(x) -> bigint, the number of rows / non-NULL values; 0 over no rows"),
    "Sum": _r(
        _AGG,
        f"sum(x) -> [same as input]; {_NULL_AGG}",
        "rewritten: the input is cast to Spark's result type (BIGINT, decimal(p + 10, s)); "
        "integer-overflow where legacy Spark wraps and Trino raises",
    ),
    "Avg": _r(
        _AGG,
        f"avg(x) -> double; {_NULL_AGG}",
        "checked: decimal-avg (Spark's avg of decimal(p, s) is decimal(p + 4, s + 4))",
    ),
    "Min": _r(_AGG, f"min(x) -> [same as input]; {_NULL_AGG}", "checked: nan-ordering"),
    "Max": _r(_AGG, f"max(x) -> [same as input]; {_NULL_AGG}", "checked: nan-ordering"),
    "CountIf": _r(_AGG, "count_if(x) -> bigint, equivalent to count(CASE WHEN x THEN 1 END); 0 over no rows"),
    "LogicalAnd": _r(_AGG, f"bool_and(boolean) -> boolean; {_NULL_AGG}"),
    "LogicalOr": _r(_AGG, f"bool_or(boolean) -> boolean; {_NULL_AGG}"),
    "Stddev": _r(_AGG, "stddev(x) -> double", "refused: floating-aggregate (algorithms differ)"),
    "StddevSamp": _r(_AGG, "stddev_samp(x) -> double", "refused: floating-aggregate"),
    "StddevPop": _r(_AGG, "stddev_pop(x) -> double", "refused: floating-aggregate"),
    "Variance": _r(_AGG, "variance(x) -> double", "refused: floating-aggregate"),
    "VariancePop": _r(_AGG, "var_pop(x) -> double", "refused: floating-aggregate"),
    "ArrayAgg": _r(
        _AGG, "array_agg(x) keeps NULL elements; Spark's collect_list drops them", "refused: function"
    ),
    # logic
    "And": _r(_LOGIC, "three-valued AND truth table (FALSE AND NULL is FALSE), as Spark's"),
    "Or": _r(_LOGIC, "three-valued OR truth table (TRUE OR NULL is TRUE), as Spark's"),
    "Not": _r(_LOGIC, "NOT NULL is NULL, as Spark's"),
    "Exists": _r("sql/select.html", "EXISTS (subquery) is TRUE when the subquery returns a row"),
    # windows: sqlglot writes Spark's NULL ordering (NULLS FIRST ascending) explicitly
    "RowNumber": _r(_WIN, "row_number() -> bigint, from 1 within the partition's order"),
    "Rank": _r(_WIN, "rank() -> bigint, with gaps after ties"),
    "DenseRank": _r(_WIN, "dense_rank() -> bigint, without gaps"),
    "Ntile": _r(_WIN, "ntile(n) -> bigint, buckets 1..n, the first buckets one row larger"),
    "PercentRank": _r(_WIN, "percent_rank() -> double, (r - 1) / (n - 1)"),
    "CumeDist": _r(_WIN, "cume_dist() -> double, rows up to the current peer group / n"),
    "Lag": _r(_WIN, "lag(x, offset, default): NULL (or default) before the partition's start"),
    "Lead": _r(_WIN, "lead(x, offset, default): NULL (or default) past the partition's end"),
    "FirstValue": _r(_WIN, "first_value(x) of the window frame (default RANGE UNBOUNDED PRECEDING)"),
    "LastValue": _r(_WIN, "last_value(x) of the window frame (default RANGE UNBOUNDED PRECEDING)"),
    # conditionals
    "Coalesce": _r(_COND, "coalesce(value1, ...): the first non-NULL argument"),
    "If": _r(_COND, "if(condition, true_value, false_value): false_value when condition is FALSE or NULL"),
    "Case": _r(_COND, "CASE ... ELSE NULL when no branch matches and no ELSE is given"),
    "Nullif": _r(_COND, "nullif(value1, value2): NULL if value1 = value2, else value1"),
    # numbers
    "Abs": _r(
        _MATH,
        "abs(x) -> [same as input]",
        "checked: integer-overflow (legacy Spark wraps abs of the minimum)",
    ),
    "Ceil": _r(
        _MATH,
        "ceil(x) -> [same as input]",
        "checked: float-to-integer (Spark's ceil of a double is a BIGINT)",
    ),
    "Floor": _r(
        _MATH,
        "floor(x) -> [same as input]",
        "checked: float-to-integer (Spark's floor of a double is a BIGINT)",
    ),
    "Round": _r(
        _MATH,
        "round(x, d) -> [same as input]; how ties are broken is not documented (Spark rounds half up)",
        "checked: trino-unreferenced (always, with round-floating and integer-overflow)",
    ),
    "Sqrt": _r(_MATH, "sqrt(x) -> double; IEEE 754 square root, correctly rounded as Java's StrictMath.sqrt"),
    "Ln": _r(_MATH, "ln(x) -> double", "refused: libm (ln(0) is NULL in Spark)"),
    "Exp": _r(_MATH, "exp(x) -> double", "refused: libm"),
    "Pow": _r(_MATH, "power(x, p) -> double, no accuracy documented", "refused: libm"),
    "Sign": _r(
        _MATH, "sign(x) -> [same as input]; NaN for NaN, 1/-1 for infinities", "checked: nan-semantics"
    ),
    "Mod": _r(_MATH, "mod(n, m) -> [same as input], the remainder with the dividend's sign, as Spark's %"),
    "IntDiv": _r(
        _MATH,
        "'/' of integers truncates (towards zero, as Spark's DIV)",
        "rewritten: CAST(a AS BIGINT) / CAST(b AS BIGINT); div-semantics for non-integers",
    ),
    # strings
    "Upper": _r(_STR, "upper does no one-to-many or context-sensitive mapping", "checked: unicode-case"),
    "Lower": _r(_STR, "lower does no one-to-many or context-sensitive mapping", "checked: unicode-case"),
    "Trim": _r(
        _STR,
        "trim(string) removes leading and trailing whitespace; trim(BOTH ' ' FROM s) removes spaces",
        "rewritten from Spark to TRIM(BOTH ' ' FROM s); refused from Trino: trim-whitespace",
    ),
    "Length": _r(_STR, "length(string) -> bigint, in code points (as Spark's length)"),
    "Reverse": _r(_STR, "reverse(string) reverses code points", "checked: array-function (strings only)"),
    "Replace": _r(_STR, "replace(string, search, replace) replaces every instance", "checked: replace-empty"),
    "StrPosition": _r(
        _STR, "strpos(string, substring) -> bigint, 1-based, 0 when not found (as instr/locate)"
    ),
    "Substring": _r(
        _STR,
        "substring(string, start, length): 1-based, a negative start counts from the end (as Spark)",
        "checked: substring-position (start 0, negative lengths)",
    ),
    "Left": _r(
        _STR,
        "substr(string, start, length): 1-based; Trino has no left()",
        "rewritten from Spark: left(s, n) is substr(s, 1, n) for a non-negative literal n (substring-position)",
    ),
    "Right": _r(
        _STR,
        "substr(string, start): a start past the end gives ''; Trino has no right()",
        "rewritten from Spark: right(s, n) is substr(s, greatest(length(s) - n + 1, 1)) (substring-position)",
    ),
    "MD5": _r(
        "functions/binary.html",
        "md5(binary) -> varbinary; to_hex(binary) writes upper-case hex; to_utf8(string) -> varbinary",
        "rewritten from Spark: md5(s) is lower(to_hex(md5(to_utf8(s)))) for strings (md5-input)",
    ),
    "Concat": _r(
        _STR,
        "concat(string1, ..., stringN) -> varchar; NULL if any argument is NULL (as Spark's concat)",
        "checked: concat-text (doubles and timestamps have other text forms)",
    ),
    "ConcatWs": _r(
        _STR,
        "concat_ws(string0, ...) skips NULL arguments; NULL separator gives NULL",
        "checked: concat-ws (strings only)",
    ),
    # dates and times (sqlglot casts Spark's date arguments to DATE first)
    "Year": _r(_DT, "year(x) -> bigint"),
    "Quarter": _r(_DT, "quarter(x) -> bigint, 1-4"),
    "Month": _r(_DT, "month(x) -> bigint, 1-12"),
    "Day": _r(_DT, "day(x) -> bigint, the day of the month"),
    "DayOfMonth": _r(_DT, "day_of_month(x), an alias of day"),
    "Hour": _r(_DT, "hour(x) -> bigint, 0-23"),
    "Minute": _r(_DT, "minute(x) -> bigint, 0-59"),
    "Second": _r(_DT, "second(x) -> bigint, 0-59, without the fraction (as Spark's second)"),
    "WeekOfYear": _r(_DT, "week_of_year(x): the ISO week 1-53 (as Spark's weekofyear)"),
    "TsOrDsToDate": _r(
        _DT, "CAST(x AS DATE) of a date or timestamp", "checked: to_date of dates and timestamps"
    ),
    "TsOrDsAdd": _r(_DT, "date_add(unit, value, date) -> date for day units"),
    "DateAdd": _r(
        _DT,
        "date_add(unit, value, date) -> date; a month added to the 31st ends on the month's last day",
        "checked: date-add (DATE values and day, week, month, quarter, year units); "
        "rewritten into DuckDB to CAST(... AS DATE)",
    ),
    "DayOfWeekIso": _r(
        _DT,
        "day_of_week(x) -> bigint, the ISO day of the week, Monday 1 to Sunday 7",
        "rewritten into Spark: weekday(x) + 1 (sqlglot's dayofweek formula numbers Sunday 2)",
    ),
    "AddMonths": _r(
        _DT,
        "date_add('month', value, date) -> date (java.time's plusMonths: the 31st ends on the month's last day)",
        "rewritten from Spark: add_months(d, n) of a DATE is date_add('month', n, d) (date-add)",
    ),
    "DayOfWeek": _r(
        _DT,
        "day_of_week(x) -> bigint, the ISO day of the week, Monday 1 to Sunday 7",
        "rewritten from Spark: dayofweek(x) (Sunday 1) is day_of_week(x) % 7 + 1 (dayofweek)",
    ),
    "LastDay": _r(_DT, "last_day_of_month(x) -> date, the last day of the month"),
    "DateDiff": _r(
        _DT,
        "date_diff('day', date1, date2) -> bigint, date2 - date1 in days of DATE values",
        "checked: date-diff (DATE values, day unit); rewritten into Spark's datediff(end, start)",
    ),
    "DateTrunc": _r(_DT, "date_trunc(unit, x) -> [same as input]", "checked: trunc-unit"),
    "TimestampTrunc": _r(
        _DT,
        "date_trunc(unit, x) -> [same as input]; 'week' starts on Monday",
        "checked: trunc-unit, time-zone; rewritten to keep a DATE a DATE and to truncate without the session time zone",
    ),
    "TimeToStr": _r(_DT, "date_format(timestamp, format): MySQL specifiers", "checked: date-format"),
    "TimeStrToTime": _r(
        _CONV,
        "CAST(varchar AS timestamp): the accepted text forms are not listed",
        "refused: trino-unreferenced",
    ),
    "Greatest": _r(
        _CMP,
        "greatest(value1, ..., valueN): NULL when any argument is NULL (Spark and DuckDB skip NULLs)",
        "rewritten: CASE WHEN any argument IS NULL THEN NULL ELSE greatest(...) END; nan-semantics",
    ),
    "Least": _r(
        _CMP,
        "least(value1, ..., valueN): NULL when any argument is NULL (Spark and DuckDB skip NULLs)",
        "rewritten: CASE WHEN any argument IS NULL THEN NULL ELSE least(...) END; nan-semantics",
    ),
    "Pad": _r(
        _STR,
        "lpad/rpad(string, size, padstring): truncated to size when longer; padstring must not be empty",
        "checked: pad (a non-empty literal pad)",
    ),
    "Extract": _r(_DT, "extract(field FROM x) -> bigint", "checked: extract-field (no SECOND, DOW)"),
    # arrays and rows
    "ArrayContains": _r(
        _ARR,
        "contains(x, element): NULL when not found and x has a NULL element",
        "checked: array-contains-null",
    ),
    "Array": _r(_ARR, "ARRAY[...] constructor, elements in order"),
    "Explode": _r(
        "sql/select.html", "CROSS JOIN UNNEST(array) drops empty and NULL arrays", "checked: explode"
    ),
    "Struct": _r(
        "language/types.html",
        "ROW(...) makes anonymous fields; Spark's struct names them",
        "refused: trino-unreferenced",
    ),
    # casts
    "Cast": _r(
        _CONV,
        "cast(value AS type) raises when the value cannot be cast",
        "checked: ansi-cast, cast-semantics",
    ),
    "TryCast": _r(
        _CONV, "try_cast(value AS type) returns NULL when the cast fails", "checked: cast-semantics"
    ),
}
"""Per sqlglot function class (by name), Trino's documented semantics and the verdict."""

TRINO_TARGET_UNREFERENCED = frozenset({"Struct"})
"""Classes on Trino's allow-list refused into Trino: what decides the result is not documented
(``round`` and ``TimeStrToTime`` of text are refused by checks in :mod:`.trino_rules`, beside the
other ``round`` checks)."""

TRINO_SOURCE_UNREFERENCED = frozenset(
    (allowed_functions("spark", "trino") | allowed_functions("duckdb", "trino")) - set(REFERENCES)
    | {"Round", "TimeStrToTime", "Struct", "Pow"}
)
"""Classes accepted into Spark or DuckDB that have no Trino reference: refused from Trino."""


def accepted_into_trino() -> frozenset[str]:
    """The function classes a Spark -> Trino translation may keep (Trino's allow-list)."""
    return ALLOWED["trino"]


def accepted_from_trino() -> frozenset[str]:
    """The function classes a Trino -> Spark or Trino -> DuckDB translation may keep."""
    return allowed_functions("spark", "trino") | allowed_functions("duckdb", "trino")


def _unreferenced(name: str, source: str, target: str) -> Rule:
    base = exactly(name)
    why = REFERENCES[name].fact if name in REFERENCES else "Trino's documentation was not checked for it"
    return Rule(
        base.where(f"{name} (allowed)", on_allow_list),
        source,
        target,
        Refuse("trino-unreferenced", f"{{name}}(): no documented Trino semantics to prove it exact ({why})"),
    )


UNREFERENCED_RULES: tuple[Rule, ...] = tuple(
    [_unreferenced(n, "spark", "trino") for n in sorted(TRINO_TARGET_UNREFERENCED)]
    + [
        _unreferenced(n, "trino", target)
        for target in TRINO_SOURCE_TARGETS
        for n in sorted(TRINO_SOURCE_UNREFERENCED)
        if n in allowed_functions(target, "trino")
    ]
)
"""Refusals of what has no reference, per direction (spliced into the rules table)."""
