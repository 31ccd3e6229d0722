"""The evidence of the differential suite: for every construct the rules table keeps, checks or
rewrites from Spark into DuckDB (the allow-list's function classes and the rules' named
constructs), Spark SQL that exercises it on the edge table (``edge_data.py``).

A query is written as

* ``"e:<expr>"``: a scalar expression, ``SELECT id, <expr> AS c FROM t``;
* ``"a:<agg>"``: an aggregate, per group (``GROUP BY grp``) and over no rows (``WHERE id < 0``);
* ``"q:<query>"``: a whole query over ``t`` (rows compared in order when it has ``ORDER BY``).

``test_edge.py`` fails when a construct has no evidence, or when a query does not contain the
construct it is listed for.
"""

from __future__ import annotations

from translate.edge_regressions import REGRESSIONS

EVIDENCE: dict[str, tuple[str, ...]] = {
    # ---------------------------------------------------------------------------------- aggregates
    "Count": ("a:count(i)", "a:count(*)", "a:count(DISTINCT s)", "a:count(1)"),
    "Sum": ("a:sum(i)", "a:sum(l)", "a:sum(d)", "a:sum(dec2)", "a:sum(dec10)", "a:sum(f)"),
    "Avg": ("a:avg(i)", "a:avg(l)", "a:avg(d)", "a:avg(dec2)", "a:avg(dec0)", "a:avg(dec10)"),
    "Min": ("a:min(d)", "a:min(s)", "a:min(dec2)", "a:min(dt)", "a:min(ts)", "a:min(b)"),
    "Max": ("a:max(d)", "a:max(s)", "a:max(dec10)", "a:max(ts)", "a:max(f)"),
    "CountIf": ("a:count_if(i > 0)", "a:count_if(b)"),
    "LogicalAnd": ("a:bool_and(b)", "a:bool_and(i > 0)"),
    "LogicalOr": ("a:bool_or(b)", "a:bool_or(i > 0)"),
    "Stddev": ("a:stddev(d)", "a:stddev(i)", "a:stddev(dec2)"),
    "StddevSamp": ("a:stddev_samp(i)", "a:stddev_samp(dec2)"),
    "StddevPop": ("a:stddev_pop(i)", "a:stddev_pop(dec2)"),
    "Variance": ("a:variance(i)", "a:var_samp(dec2)"),
    "VariancePop": ("a:var_pop(i)", "a:var_pop(dec2)"),
    "ArrayAgg": ("a:sort_array(collect_list(i))", "a:size(collect_list(s))"),
    # --------------------------------------------------------------------------------------- logic
    "And": ("e:b AND i > 0", "e:i > 0 AND s IS NOT NULL"),
    "Or": ("e:b OR i > 0", "e:i < 0 OR s = ''"),
    "Not": ("e:NOT b", "e:NOT (i > 0)"),
    "Exists": ("q:SELECT id FROM t AS o WHERE EXISTS (SELECT 1 FROM t AS x WHERE x.i = o.l)",),
    # ------------------------------------------------------------------------------------- windows
    "RowNumber": ("q:SELECT id, row_number() OVER (PARTITION BY grp ORDER BY id) AS c FROM t",),
    "Rank": (
        "q:SELECT id, rank() OVER (PARTITION BY grp ORDER BY i) AS c FROM t",
        "q:SELECT id, rank() OVER (ORDER BY d) AS c FROM t",
    ),
    "DenseRank": ("q:SELECT id, dense_rank() OVER (ORDER BY dec2) AS c FROM t",),
    "Lag": (
        "q:SELECT id, lag(d) OVER (ORDER BY id) AS c FROM t",
        "q:SELECT id, lag(s, 2, 'x') OVER (ORDER BY id) AS c FROM t",
    ),
    "Lead": ("q:SELECT id, lead(dec2) OVER (PARTITION BY grp ORDER BY id) AS c FROM t",),
    "Ntile": ("q:SELECT id, ntile(4) OVER (ORDER BY id) AS c FROM t",),
    "PercentRank": ("q:SELECT id, percent_rank() OVER (ORDER BY id) AS c FROM t",),
    "CumeDist": ("q:SELECT id, cume_dist() OVER (PARTITION BY grp ORDER BY id) AS c FROM t",),
    "FirstValue": ("q:SELECT id, first_value(s) OVER (PARTITION BY grp ORDER BY id) AS c FROM t",),
    "LastValue": (
        "q:SELECT id, last_value(s) OVER (PARTITION BY grp ORDER BY id "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS c FROM t",
    ),
    # -------------------------------------------------------------------------------- conditionals
    "Coalesce": (
        "e:coalesce(i, 0)",
        "e:coalesce(s, 'none')",
        "e:coalesce(dec2, dec10)",
        "e:coalesce(i, l)",
        "e:coalesce(d, i)",
    ),
    "If": ("e:if(i > 0, 'pos', 'neg')", "e:if(b, i, l)", "e:if(b, dec0, dec2)"),
    "Case": (
        "e:CASE WHEN i > 0 THEN 'p' WHEN i < 0 THEN 'n' ELSE 'z' END",
        "e:CASE grp WHEN 'a' THEN dec2 ELSE dec0 END",
        "e:CASE WHEN b THEN i ELSE d END",
    ),
    "Nullif": ("e:nullif(i, 0)", "e:nullif(s, '')"),
    "Greatest": ("e:greatest(i, l)", "e:greatest(d, 0.0)", "e:greatest(dec0, dec2)"),
    "Least": ("e:least(i, 5)", "e:least(d, 1.0)", "e:least(s, 'm')"),
    # ------------------------------------------------------------------------------------- numbers
    "Abs": ("e:abs(i)", "e:abs(l)", "e:abs(d)", "e:abs(dec2)"),
    "Ceil": ("e:ceil(d)", "e:ceil(dec2)", "e:ceil(i)"),
    "Floor": ("e:floor(d)", "e:floor(dec2)", "e:floor(f)"),
    "Round": ("e:round(dec2, 1)", "e:round(dec10, 3)", "e:round(i, -1)", "e:round(dec2)"),
    "Round (allowed)": ("e:round(dec2, 1)", "e:round(l, -2)"),
    "Sqrt": ("e:sqrt(d)", "e:sqrt(i)"),
    "Ln": ("e:ln(d)", "e:ln(i)"),
    "Exp": ("e:exp(d)", "e:exp(i)"),
    "Pow": ("e:pow(d, 2)", "e:power(i, 2)", "e:pow(2, i)"),
    "Sign": ("e:sign(d)", "e:signum(i)"),
    "Mod": ("e:i % 3", "e:l % 7", "e:d % 2", "e:dec2 % 3", "e:mod(i, -3)"),
    "IntDiv": ("e:i div 2", "e:l div 3", "e:dec2 div 2"),
    # ------------------------------------------------------------------------------------- strings
    "Upper": ("e:upper(s)",),
    "Lower": ("e:lower(s)",),
    "Trim": ("e:trim(s)", "e:ltrim(s)", "e:rtrim(s)"),
    "Length": ("e:length(s)", "e:char_length(s)"),
    "Reverse": ("e:reverse(s)", "e:reverse(arr)"),
    "Replace": ("e:replace(s, 'a', 'o')", "e:replace(s, 'ß', 'ss')"),
    "StrPosition": ("e:instr(s, 'a')", "e:locate('e', s)", "e:position('a' IN s)"),
    "Left": ("e:left(s, 2)", "e:left(s, 0)", "e:left(s, -1)"),
    "Right": ("e:right(s, 2)", "e:right(s, 0)"),
    "Substring": (
        "e:substring(s, 2, 3)",
        "e:substr(s, 1)",
        "e:substring(s, 2, 0)",
        "e:substring(s, 2, -1)",
        "e:substring(s, 0, 2)",
        "e:substring(s, 0)",
    ),
    "Concat": ("e:concat(s, '!')", "e:concat(s, i)", "e:concat(arr, arr)"),
    "ConcatWs": ("e:concat_ws('-', s, grp)", "e:concat_ws(',', arr)"),
    "Repeat": ("e:repeat(s, 2)", "e:repeat(s, id - 10)"),
    "MD5": ("e:md5(s)", "e:md5(i)"),
    "Pad": ("e:lpad(s, 5, '*')", "e:rpad(s, 3, 'xy')", "e:lpad(s, 4, '')", "e:lpad(s, id - 5, '*')"),
    # --------------------------------------------------------------------------------------- dates
    "Year": ("e:year(dt)", "e:year(ts)"),
    "Month": ("e:month(dt)",),
    "Day": ("e:day(dt)", "e:day(ts)"),
    "DayOfMonth": ("e:dayofmonth(dt)",),
    "Quarter": ("e:quarter(dt)",),
    "Hour": ("e:hour(ts)",),
    "Minute": ("e:minute(ts)",),
    "Second": ("e:second(ts)",),
    "WeekOfYear": ("e:weekofyear(dt)",),
    "TsOrDsToDate": ("e:to_date(ts)", "e:to_date(dt)"),
    "TsOrDsToDate (allowed)": ("e:to_date(ts)",),
    "TsOrDsAdd": ("e:date_add(dt, 1)", "e:date_sub(dt, 30)", "e:date_add(dt, i)", "e:date_add(ts, 1)"),
    "DateDiff": (
        "e:datediff(dt, DATE'2024-01-01')",
        "e:datediff(ts, DATE'2024-01-01')",
        "e:datediff(ts, tstz)",
    ),
    "LastDay": ("e:last_day(dt)",),
    "DateTrunc": (
        "e:trunc(dt, 'MM')",
        "e:trunc(dt, 'YEAR')",
        "e:trunc(dt, 'WEEK')",
        "e:trunc(dt, 'QUARTER')",
    ),
    "DateTrunc (allowed)": ("e:trunc(dt, 'MM')",),
    "TimestampTrunc": (
        "e:date_trunc('MONTH', ts)",
        "e:date_trunc('WEEK', ts)",
        "e:date_trunc('DAY', dt)",
        "e:date_trunc('HOUR', ts)",
    ),
    "DateTrunc | TimestampTrunc (allowed)": ("e:date_trunc('YEAR', ts)",),
    "truncation unit": ("e:date_trunc('MM', ts)", "e:trunc(dt, 'YYYY')"),
    "TimeToStr": ("e:date_format(dt, 'yyyy-MM-dd')", "e:date_format(ts, 'yyyy-MM-dd HH:mm:ss')"),
    "date_format with an exactly mapped pattern": ("e:date_format(ts, 'yyyy/MM/dd HH:mm')",),
    "Extract": (
        "e:extract(YEAR FROM dt)",
        "e:extract(SECOND FROM ts)",
        "e:extract(DOW FROM dt)",
        "e:extract(WEEK FROM dt)",
    ),
    "DayOfWeek": ("e:dayofweek(dt)", "e:dayofweek(ts)", "e:dayofweek(s)"),
    "AddMonths": ("e:add_months(dt, 1)", "e:add_months(dt, -12)", "e:add_months(ts, 1)"),
    # -------------------------------------------------------------------------- arrays and structs
    "ArrayContains": ("e:array_contains(arr, 'a')", "e:array_contains(iarr, 1)", "e:array_contains(arr, s)"),
    "Array": ("e:array(i, l)", "e:array(s, NULL)"),
    "Explode": ("q:SELECT id, x AS c FROM t LATERAL VIEW explode(arr) e AS x",),
    "explode in LATERAL VIEW": ("q:SELECT id, x AS c FROM t LATERAL VIEW explode(iarr) e AS x",),
    "Struct": ("e:struct(i, s)", "e:named_struct('a', i, 'b', s)"),
    # ---------------------------------------------------------------------------------------- casts
    "Cast": (
        "e:CAST(i AS BIGINT)",
        "e:CAST(i AS STRING)",
        "e:CAST(dec2 AS STRING)",
        "e:CAST(dt AS STRING)",
        "e:CAST(b AS STRING)",
        "e:CAST(i AS DOUBLE)",
        "e:CAST(dec2 AS DOUBLE)",
        "e:CAST(dec2 AS DECIMAL(20, 4))",
        "e:CAST(ts AS DATE)",
        "e:CAST(dt AS TIMESTAMP_NTZ)",
        "e:CAST(b AS INT)",
        "e:CAST(i AS DECIMAL)",
    ),
    "TryCast": (
        "e:try_cast(s AS INT)",
        "e:try_cast(s AS DOUBLE)",
        "e:try_cast(s AS DATE)",
        "e:try_cast(s AS BOOLEAN)",
    ),
    "Cast | TryCast (allowed)": ("e:CAST(i AS BIGINT)", "e:CAST(s AS INT)"),
    "DECIMAL without precision": ("e:CAST(dec0 AS DECIMAL)", "e:CAST(i AS DECIMAL)"),
    # ------------------------------------------------------------------------------------ the rest
    "comparison or arithmetic": (
        "e:i + 1",
        "e:i + i",
        "e:l + 1",
        "e:l * 2",
        "e:i * i",
        "e:l - 1",
        "e:d - 1",
        "e:d * 2",
        "e:f + d",
        "e:dec2 + dec2",
        "e:dec2 * dec2",
        "e:dec2 * i",
        "e:dec0 * dec0",
        "e:dec10 * dec10",
        "e:dec2 - dec10",
        "e:i = 1",
        "e:d = d",
        "e:d < 1.0",
        "e:d > 0",
        "e:s < 'b'",
        "e:s = 'Straße'",
        "e:dt - dt",
        "e:dt > DATE'2024-01-01'",
        "e:ts >= TIMESTAMP_NTZ'2024-01-01 00:00:00'",
        "e:i = '1'",
        "e:s = 1",
        "e:dec2 = 0.05",
    ),
    "integer or decimal arithmetic": ("e:dec2 + dec10", "e:dec0 - dec2", "e:d + i", "e:i - 1", "e:dt + 1"),
    "multiplication": ("e:dec2 * i", "e:dec0 * dec0", "e:d * 0.5", "e:dec10 * 2"),
    "Div": (
        "e:i / 2",
        "e:l / 4",
        "e:d / 2",
        "e:dec2 / 3",
        "e:dec10 / 7",
        "e:i / NULLIF(l, 0)",
        "e:dec2 / NULLIF(dec0, 0)",
    ),
    "DPipe": ("e:s || grp",),
    "Neg": ("e:-i", "e:-l", "e:-dec2"),
    "Like": ("e:s LIKE 'a%'", "e:s LIKE '%ß%'", "e:s LIKE 'a\\\\_%' ESCAPE '\\\\'"),
    "ILike": ("e:s ILIKE 'str%'", "e:s ILIKE '%STRASSE%'"),
    "In": (
        "e:i IN (1, 2, 3)",
        "e:s IN ('a', '')",
        "e:i IN (1, NULL)",
        "e:i IN ('1', '2')",
        "e:d IN (1.5, 2.5)",
    ),
    "Between": ("e:i BETWEEN 0 AND 10", "e:dt BETWEEN DATE'2024-01-01' AND DATE'2024-12-31'"),
    "Distinct": ("q:SELECT DISTINCT grp AS c FROM t", "q:SELECT DISTINCT d AS c FROM t"),
    "Order": ("q:SELECT id, d AS c FROM t ORDER BY d, id", "q:SELECT id, s AS c FROM t ORDER BY s DESC, id"),
    "Having": ("q:SELECT grp, count(*) AS c FROM t GROUP BY grp HAVING count(i) > 0",),
    "Union": (
        "q:SELECT i AS c FROM t UNION SELECT l AS c FROM t",
        "q:SELECT d AS c FROM t UNION ALL SELECT f AS c FROM t",
    ),
    "Join": ("q:SELECT a.id, b.id AS c FROM t AS a JOIN t AS b ON a.d = b.d",),
    "Pivot": ("q:SELECT * FROM (SELECT grp, i FROM t) PIVOT (sum(i) FOR grp IN ('a', 'b', 'z'))",),
    "Table": ("q:SELECT id, i AS c FROM t",),
    "table function": ("q:SELECT id AS c FROM range(3) AS r(id)",),
}

EVIDENCE.update(REGRESSIONS)  # outsiders' queries that once gave wrong rows (edge_regressions.py)

EVIDENCE.update(
    {
        "ORDER BY item": (
            "q:SELECT id, d AS c FROM t ORDER BY d, id",
            "q:SELECT id, iarr AS c FROM t ORDER BY id",
        ),
        "ordering comparison": ("e:i > 1", "e:dt <= DATE'2024-01-01'", "e:s < 'b'", "e:tstz >= tstz"),
        "equality comparison": ("e:i = 1", "e:s <> 'a'", "e:ts = ts"),
    }
)

UNREACHABLE_FROM_SPARK: dict[str, str] = {
    "TimeStrToTime": "sqlglot's Spark parser never produces it (to_timestamp and timestamp() parse as casts)",
}
"""Allow-listed classes that no Spark SQL parses into (so no Spark -> DuckDB evidence exists)."""
