"""The evidence of the differential suite from DuckDB into Spark (``test_edge_duckdb.py``): for every
construct the rules table keeps, checks or rewrites from DuckDB into Spark (Spark's allow-list and
the rules' named constructs), DuckDB SQL that exercises it on the edge table (``edge_data.py``), in
the same notation as ``edge_queries.py`` (``e:`` expression, ``a:`` aggregate, ``q:`` query).

Constructs that the rules keep without a rule of their own (arithmetic, ``LIKE``, ``IN``, set
operations, ...) have evidence too: a view's SQL is made of them.
"""

from __future__ import annotations

from translate.edge_regressions import REGRESSIONS_FROM_DUCKDB

EVIDENCE_FROM_DUCKDB: dict[str, tuple[str, ...]] = {
    # ---------------------------------------------------------------------------------- aggregates
    "Count": ("a:count(i)", "a:count(*)", "a:count(DISTINCT s)", "a:count(d)"),
    "count() of no argument": ("a:count()",),  # DuckDB's count of rows; Spark has no count()
    "Sum": ("a:sum(i)", "a:sum(l)", "a:sum(d)", "a:sum(dec2)", "a:sum(dec10)", "a:sum(f)"),
    "Avg": ("a:avg(i)", "a:avg(l)", "a:avg(d)", "a:avg(dec2)", "a:avg(dec0)", "a:avg(dec10)"),
    "Min": ("a:min(d)", "a:min(s)", "a:min(dec2)", "a:min(dt)", "a:min(ts)", "a:min(b)"),
    "Max": ("a:max(d)", "a:max(s)", "a:max(dec10)", "a:max(ts)", "a:max(f)", "a:max(i)"),
    # --------------------------------------------------------------------------------------- logic
    "And": ("e:b AND i > 0", "e:i > 0 AND s IS NOT NULL"),
    "Or": ("e:b OR i > 0", "e:i < 0 OR s = ''"),
    "Not": ("e:NOT b", "e:NOT (i > 0)"),
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
    # ------------------------------------------------------------------------------------- numbers
    "Abs": ("e:abs(i)", "e:abs(l)", "e:abs(d)", "e:abs(dec2)"),
    "Mod": ("e:i % 3", "e:l % 7", "e:d % 2", "e:dec2 % 3", "e:i % -3"),
    "IntDiv": ("e:i // 2", "e:l // 3", "e:dec2 // 2", "e:d // 2"),
    "Div": ("e:i / 2", "e:l / 4", "e:d / 2", "e:dec2 / 3", "e:dec10 / 7", "e:i / NULLIF(l, 0)"),
    "Neg": ("e:-i", "e:-l", "e:-dec2", "e:-d"),
    # ------------------------------------------------------------------------------------- strings
    "Upper": ("e:upper(s)", "e:upper('abc')"),
    "Lower": ("e:lower(s)", "e:lower('ABC')"),
    "Trim": ("e:trim(s)", "e:ltrim(s)", "e:rtrim(s)"),
    "Length": ("e:length(s)",),
    "Replace": ("e:replace(s, 'a', 'o')", "e:replace(s, 'ß', 'ss')"),
    "DPipe": ("e:s || grp",),
    "Like": ("e:s LIKE 'a%'", "e:s LIKE '%ß%'"),
    "ILike": ("e:s ILIKE 'str%'",),
    # --------------------------------------------------------------------------------------- dates
    "Year": ("e:year(dt)", "e:year(ts)"),
    "Month": ("e:month(dt)", "e:month(ts)"),
    "Day": ("e:day(dt)", "e:day(ts)"),
    "truncation unit": ("e:date_trunc('month', ts)", "e:date_trunc('year', dt)"),
    # ---------------------------------------------------------------------------------------- casts
    "Cast": (
        "e:CAST(i AS BIGINT)",
        "e:CAST(i AS VARCHAR)",
        "e:CAST(dec2 AS VARCHAR)",
        "e:CAST(dt AS VARCHAR)",
        "e:CAST(b AS VARCHAR)",
        "e:CAST(i AS DOUBLE)",
        "e:CAST(dec2 AS DOUBLE)",
        "e:CAST(dec2 AS DECIMAL(20, 4))",
        "e:CAST(ts AS DATE)",
        "e:CAST(dt AS TIMESTAMP)",
        "e:CAST(b AS INTEGER)",
        "e:CAST(d AS VARCHAR)",
        "e:CAST(s AS INTEGER)",
        "e:i::BIGINT",
    ),
    "TryCast": (
        "e:TRY_CAST(s AS INTEGER)",
        "e:TRY_CAST(s AS DOUBLE)",
        "e:TRY_CAST(s AS DATE)",
        "e:TRY_CAST(i AS BIGINT)",
    ),
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
        "e:dt > DATE '2024-01-01'",
        "e:ts >= TIMESTAMP '2024-01-01 00:00:00'",
        "e:i = '1'",
        "e:dec2 = 0.05",
        "e:dt + 1",
    ),
    "integer or decimal arithmetic": ("e:dec2 + dec10", "e:dec0 - dec2", "e:d + i", "e:i - 1", "e:dt + 1"),
    "multiplication": ("e:dec2 * i", "e:dec0 * dec0", "e:d * 0.5", "e:dec10 * 2", "e:dec10 * dec2"),
    "In": ("e:i IN (1, 2, 3)", "e:s IN ('a', '')", "e:i IN (1, NULL)", "e:d IN (1.5, 2.5)"),
    "Between": ("e:i BETWEEN 0 AND 10", "e:dt BETWEEN DATE '2024-01-01' AND DATE '2024-12-31'"),
    "Distinct": ("q:SELECT DISTINCT grp AS c FROM t", "q:SELECT DISTINCT d AS c FROM t"),
    "Order": ("q:SELECT id, d AS c FROM t ORDER BY d, id", "q:SELECT id, s AS c FROM t ORDER BY s DESC, id"),
    "Having": ("q:SELECT grp, count(*) AS c FROM t GROUP BY grp HAVING count(i) > 0",),
    "Union": (
        "q:SELECT i AS c FROM t UNION SELECT l AS c FROM t",
        "q:SELECT d AS c FROM t UNION ALL SELECT f AS c FROM t",
    ),
    "Join": ("q:SELECT a.id, b.id AS c FROM t AS a JOIN t AS b ON a.d = b.d",),
    "Table": ("q:SELECT id, i AS c FROM t", "q:SELECT * FROM t"),
    "table function": ("q:SELECT id AS c FROM range(3) AS r(id)",),
    # ------------------------------------------------ the DuckDB -> Spark allow-list's own classes
    "Exists": (
        "q:SELECT id, EXISTS (SELECT 1 FROM t AS u WHERE u.grp = t.grp AND u.i > 0) AS c FROM t",
        "q:SELECT id AS c FROM t WHERE NOT EXISTS (SELECT 1 FROM t AS u WHERE u.id = t.id + 1)",
    ),
    "LogicalAnd": ("a:bool_and(b)", "a:bool_and(i > 0)"),
    "LogicalOr": ("a:bool_or(b)", "a:bool_or(s IS NULL)"),
    "ConcatWs": ("e:concat_ws('-', s, grp)", "e:concat_ws(', ', s, NULL, grp)", "e:concat_ws(s, 'a', 'b')"),
    "StrPosition": ("e:strpos(s, 'a')", "e:strpos(s, 'ß')", "e:strpos(s, '')", "e:instr(s, 'İ')"),
    "Substring": ("e:substr(s, 2, 3)", "e:substring(s, 1, 1)", "e:substr(s, 3)", "e:substr(s, 2, 0)"),
    "Interval": (
        "e:ts + INTERVAL 1 DAY",
        "e:ts + INTERVAL '-13' MONTH",
        "e:ts + INTERVAL '1.5' SECOND",
        "e:ts + INTERVAL '2 days'",
        "e:ts - INTERVAL '1 year 1 month'",
        "e:ts + INTERVAL '3 hours 4 minutes'",
    ),
    "CTE with a MATERIALIZED hint": (
        "q:WITH c AS MATERIALIZED (SELECT id, i FROM t) SELECT id, i AS c FROM c WHERE i > 3",
        "q:WITH c AS NOT MATERIALIZED (SELECT id, s FROM t) SELECT id, s AS c FROM c",
    ),
    "StartsWith": ("e:starts_with(s, 'a')", "e:starts_with(s, '')", "e:starts_with(s, 'ß')"),
    "Pad": ("e:lpad(s, 5, '*')", "e:rpad(s, 3, 'xy')", "e:lpad(s, 0, '*')", "e:lpad(grp, 4, 'ä')"),
    "Greatest": (
        "e:greatest(i, l)",
        "e:greatest(d, 1.5)",
        "e:greatest(dt, DATE '2024-01-31')",
        "e:greatest(s, grp)",
    ),
    "Least": ("e:least(i, 0)", "e:least(dec2, dec0)", "e:least(ts, TIMESTAMP '2024-02-29 12:00:00')"),
    "TimestampTrunc": (
        "e:date_trunc('month', ts)",
        "e:date_trunc('week', ts)",
        "e:date_trunc('day', ts)",
        "e:date_trunc('hour', ts)",
        "e:date_trunc('quarter', ts)",
        "e:date_trunc('year', ts)",
        "e:date_trunc('week', dt)",
        "e:date_trunc('month', dt)",
    ),
    "Extract": (
        "e:extract(year FROM dt)",
        "e:extract(hour FROM ts)",
        "e:extract(quarter FROM dt)",
        "e:extract(minute FROM ts)",
    ),
    "Quarter": ("e:quarter(dt)", "e:quarter(ts)"),
    "LastDay": ("e:last_day(dt)", "e:last_day(ts)"),
    "Hour": ("e:hour(ts)",),
    "Minute": ("e:minute(ts)",),
    "Second": ("e:second(ts)",),
    "Ceil": ("e:ceil(dec2)", "e:ceil(d)", "e:ceil(i)", "e:ceil(dec10)", "e:ceil(f)"),
    "Floor": ("e:floor(dec2)", "e:floor(d)", "e:floor(l)", "e:floor(dec0)"),
    "Round": ("e:round(dec2, 1)", "e:round(dec2)", "e:round(dec10, 3)", "e:round(i, -1)", "e:round(d, 2)"),
    "Sign": ("e:sign(i)", "e:sign(dec2)", "e:sign(d)", "e:sign(l)"),
    "Sqrt": ("e:sqrt(d)", "e:sqrt(i)", "e:sqrt(dec2)"),
    "Pow": ("e:pow(d, 2)", "e:power(i, 2)", "e:pow(dec2, 0.5)"),
}
"""DuckDB SQL per construct, translated into Spark and compared (see the module's doc)."""

EVIDENCE_FROM_DUCKDB.update(REGRESSIONS_FROM_DUCKDB)  # outsiders' queries (edge_regressions.py)

EVIDENCE_FROM_DUCKDB.update(
    {
        "ORDER BY item": (
            "q:SELECT id, d AS c FROM t ORDER BY d, id",
            "q:SELECT id, iarr AS c FROM t ORDER BY id",
        ),
        "ordering comparison": ("e:i > 1", "e:dt <= DATE '2024-01-01'", "e:s < 'b'", "e:ts >= ts"),
        "equality comparison": ("e:i = 1", "e:s <> 'a'", "e:ts = ts"),
    }
)
