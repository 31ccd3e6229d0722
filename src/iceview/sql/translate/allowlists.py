"""Function lists, per dialect, as data: the sqlglot function classes whose translation into each
target was checked (the allow-lists the rules table consults), and the functions Trino has (for
checking sqlglot's Trino output, since no Trino server is at hand)."""

from __future__ import annotations

from collections.abc import Mapping

# allow-lists: sqlglot expression classes whose translation was checked (for DuckDB: executed
# against Spark 3.5.9 by tests/translate/test_corpus.py), per target dialect

_COMMON = frozenset(
    {
        # aggregates
        "Count",
        "Sum",
        "Avg",
        "Min",
        "Max",
        "CountIf",
        "LogicalAnd",
        "LogicalOr",
        "Stddev",
        "StddevSamp",
        "StddevPop",
        "Variance",
        "VariancePop",
        "ArrayAgg",
        # logic (sqlglot models these as functions)
        "And",
        "Or",
        "Not",
        "Exists",
        # windows
        "RowNumber",
        "Rank",
        "DenseRank",
        "Lag",
        "Lead",
        "Ntile",
        "PercentRank",
        "CumeDist",
        "FirstValue",
        "LastValue",
        # conditionals
        "Coalesce",
        "If",
        "Case",
        "Nullif",
        # numbers
        "Abs",
        "Ceil",
        "Floor",
        "Round",
        "Sqrt",
        "Ln",
        "Exp",
        "Pow",
        "Sign",
        "Mod",
        "IntDiv",
        # strings
        "Upper",
        "Lower",
        "Trim",
        "Length",
        "Reverse",
        "Replace",
        "StrPosition",
        "Left",
        "Right",
        "Substring",
        "Concat",
        "ConcatWs",
        "Repeat",
        # dates
        "Year",
        "Month",
        "Day",
        "DayOfMonth",
        "Quarter",
        "Hour",
        "Minute",
        "Second",
        "WeekOfYear",
        "TsOrDsToDate",
        "TsOrDsAdd",
        "DateDiff",
        "LastDay",
        "DateTrunc",
        "TimestampTrunc",
        "TimeToStr",
        "TimeStrToTime",
        "Extract",
        "AddMonths",
        # arrays and structs
        "ArrayContains",
        "Array",
        "Explode",
        "Struct",
        # casts (checked by their own rules)
        "Cast",
        "TryCast",
    }
)

ALLOWED: Mapping[str, frozenset[str]] = {
    "duckdb": _COMMON | {"Greatest", "Least", "MD5", "Pad"},
    # no Trino server here: only what sqlglot's Trino output was read for; Greatest/Least return
    # NULL on any NULL argument in Trino (Spark skips NULLs), MD5 needs varbinary there
    # Left, Right, AddMonths, LastDay and MD5 are rewritten into Trino's spellings (trino_rules.py)
    "trino": _COMMON - {"Repeat"} | {"MD5"},
    "spark": frozenset(
        {
            # executed from DuckDB against Spark 3.5.9 by tests/translate/test_edge_duckdb.py
            "And",
            "Or",
            "Not",
            "Count",
            "Sum",
            "Avg",
            "Min",
            "Max",
            "RowNumber",
            "Rank",
            "DenseRank",
            "Lag",
            "Lead",
            "Coalesce",
            "If",
            "Case",
            "Nullif",
            "Abs",
            "Upper",
            "Lower",
            "Trim",
            "Length",
            "Replace",
            "Year",
            "Month",
            "Day",
            "Cast",
            "TryCast",
        }
    ),
}


# more classes per direction, beyond the target's list, each with its own execution evidence
FROM_DUCKDB_TO_SPARK = frozenset(
    {
        # executed from DuckDB against Spark 3.5.9 (ANSI and legacy) on the edge table by
        # tests/translate/test_edge_duckdb.py (edge_queries_duckdb.py), and on the DuckDB corpus by
        # tests/translate/test_directions.py
        "Exists",
        "LogicalAnd",
        "LogicalOr",
        "ConcatWs",
        "StrPosition",
        "Substring",
        "StartsWith",
        "Pad",
        "Greatest",
        "Least",
        "TimestampTrunc",
        "Extract",
        "Quarter",
        "Hour",
        "Minute",
        "Second",
        "LastDay",
        "Ceil",
        "Floor",
        "Round",
        "Sign",
        "Sqrt",
        "Pow",
    }
)

# a Trino view's SQL is translated into Spark and into DuckDB with one list: Trino cannot run here,
# so a class is kept only where Trino documents it (trino_reference.py) and its translations into
# both engines give the same rows on the edge table, Spark in both modes and in a session time zone
# with daylight saving (tests/translate/test_edge_trino.py, edge_queries_trino.py)
FROM_TRINO = frozenset(
    {
        "Exists",
        "CountIf",
        "LogicalAnd",
        "LogicalOr",
        "Concat",
        "Substring",
        "StrPosition",
        "Pad",
        "Greatest",
        "Least",
        "Ceil",
        "Floor",
        "Sign",
        "TimestampTrunc",
        "DateTrunc",
        "DateAdd",
        "DateDiff",
        "Extract",
        "Quarter",
        "Hour",
        "Minute",
        "Second",
        "WeekOfYear",
        "DayOfWeekIso",
        "LastDay",
        "ArrayContains",
    }
)

BY_DIRECTION: Mapping[tuple[str, str], frozenset[str]] = {
    ("duckdb", "spark"): ALLOWED["spark"] | FROM_DUCKDB_TO_SPARK,
    ("trino", "spark"): ALLOWED["spark"] | FROM_TRINO,
    ("trino", "duckdb"): ALLOWED["spark"] | FROM_TRINO,
}
"""Per ``(source, target)``, the allow-list where it is more than the target's own."""


def allowed_functions(target: str, source: str | None = None) -> frozenset[str]:
    """The sqlglot expression classes (by name) allowed in a translation from ``source`` into
    ``target`` (without ``source``: the target's own list, which every source has)."""
    target = target.lower()
    if source is not None:
        found = BY_DIRECTION.get((source.lower(), target))
        if found is not None:
            return found
    return ALLOWED.get(target, frozenset())


# functions known to exist in Trino (its documentation, release 4xx); used to check sqlglot's
# output, since no Trino server is at hand
TRINO_FUNCTIONS = frozenset(
    [
        "abs",
        "acos",
        "approx_distinct",
        "approx_percentile",
        "arbitrary",
        "array_agg",
        "array_distinct",
        "array_join",
        "array_max",
        "array_min",
        "array_position",
        "array_sort",
        "arrays_overlap",
        "avg",
        "bool_and",
        "bool_or",
        "cardinality",
        "cast",
        "cbrt",
        "ceil",
        "ceiling",
        "coalesce",
        "concat",
        "concat_ws",
        "contains",
        "corr",
        "count",
        "count_if",
        "cume_dist",
        "current_date",
        "current_timestamp",
        "date",
        "date_add",
        "date_diff",
        "date_format",
        "date_parse",
        "date_trunc",
        "day",
        "day_of_month",
        "day_of_week",
        "day_of_year",
        "dense_rank",
        "element_at",
        "every",
        "exp",
        "extract",
        "first_value",
        "floor",
        "format",
        "from_iso8601_date",
        "greatest",
        "hour",
        "if",
        "is_nan",
        "last_day_of_month",
        "last_value",
        "lag",
        "lead",
        "least",
        "length",
        "ln",
        "log",
        "log10",
        "log2",
        "lower",
        "lpad",
        "md5",
        "ltrim",
        "max",
        "max_by",
        "min",
        "min_by",
        "minute",
        "mod",
        "month",
        "nth_value",
        "ntile",
        "nullif",
        "percent_rank",
        "pow",
        "power",
        "quarter",
        "rank",
        "regexp_extract",
        "regexp_like",
        "regexp_replace",
        "replace",
        "reverse",
        "round",
        "row_number",
        "rpad",
        "rtrim",
        "second",
        "sign",
        "split",
        "sqrt",
        "stddev",
        "stddev_pop",
        "stddev_samp",
        "strpos",
        "substr",
        "substring",
        "sum",
        "to_hex",
        "to_utf8",
        "trim",
        "truncate",
        "try",
        "try_cast",
        "upper",
        "var_pop",
        "var_samp",
        "variance",
        "week",
        "week_of_year",
        "year",
        "year_of_week",
    ]
)

KNOWN_FUNCTIONS: Mapping[str, frozenset[str]] = {"trino": TRINO_FUNCTIONS}
"""Per target dialect, the functions its output may call (checked after generation)."""
