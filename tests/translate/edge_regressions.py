"""Queries written by outsiders that once translated into other rows than the source engine
returns ("wrong rows"), kept as evidence so they never come back: each is run by the edge suites
(``test_edge.py`` from Spark into DuckDB, ``test_edge_duckdb.py`` from DuckDB into Spark) under
Spark 3.5.9 with ANSI mode off and on, and must now give equal rows or be refused with a named code.

Same notation as ``edge_queries.py`` (``e:`` expression, ``a:`` aggregate per group and over no
rows, ``q:`` query over ``t``). The keys name the class of wrong rows; they are not constructs.
"""

from __future__ import annotations

REGRESSIONS: dict[str, tuple[str, ...]] = {
    "regression: aggregates over empty or all-NULL groups": (
        # Spark's collect_list keeps the order rows arrive in, which depends on its partitions
        "a:sort_array(collect_list(i))",
        "a:sort_array(collect_list(s))",
        "a:collect_list(DISTINCT i)",
        "a:sort_array(collect_list(DISTINCT i))",
        "q:SELECT id, collect_list(i) OVER (PARTITION BY grp ORDER BY id) AS c FROM t",
        "q:SELECT id, collect_list(s) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM t",
        "q:SELECT * FROM (SELECT grp, i FROM t) PIVOT (collect_list(i) FOR grp IN ('a', 'z', 'q'))",
        "q:SELECT * FROM (SELECT grp, i FROM t) PIVOT (count(i) FOR grp IN ('a', 'z', 'q'))",
        "q:SELECT * FROM (SELECT grp, i FROM t) PIVOT (sum(i) FOR grp IN ('a', 'z', 'q'))",
    ),
    "regression: numbers": (
        "e:dec2 / NULLIF(i, 0)",
        "e:i / NULLIF(dec2, 0)",
        "e:dec0 / NULLIF(l, 0)",
        "e:1 / 3",
        "e:10.5 / 4",
        "e:1 / 3.0",
        "e:2.50 / 0.3",
        "e:i / 3.0",
        "e:l / 2.5",
        "e:d / 2.5",
        "e:-2.5 / 2",
        "e:dec2 / -3",
        "q:SELECT avg(l) AS c FROM t WHERE id IN (2, 4, 5)",
        "q:SELECT avg(l) AS c FROM t WHERE id IN (4, 5, 9)",
        "a:avg(l)",
        "q:SELECT id, lag(i, 1, 1.5) OVER (ORDER BY id) AS c FROM t",
        "q:SELECT id, lead(i, 1, 'x') OVER (ORDER BY id) AS c FROM t",
        "q:SELECT id, lag(d, 1, 0) OVER (ORDER BY id) AS c FROM t",
        "q:SELECT id, lag(dec2, 1, 0) OVER (ORDER BY id) AS c FROM t",
        "q:SELECT id, lead(s, 1, 'x') OVER (ORDER BY id) AS c FROM t",
    ),
    "regression: implicit casts": (
        "e:i IN ('01', '2')",
        "e:l IN ('010')",
        "e:dec2 IN ('0.050', '1')",
        "e:dt IN ('2024-2-29', '2023-12-31')",
        "e:concat(s, d)",
        "e:concat('x', d)",
        "e:s || d",
        "e:concat_ws('-', s, d)",
        "e:concat(s, f)",
        "e:concat(s, tstz)",
        "e:concat(s, ts)",
        "e:concat(s, dt)",
        "e:concat_ws('-', s, ts)",
    ),
    "regression: strings": (
        "e:reverse(s)",
        "e:reverse(concat(s, 'e\u0301\U0001f44d\U0001f3fd'))",
        "e:locate('a', s, 0)",
        "e:locate('a', s, -1)",
        "e:locate('a', s, 2)",
        "e:locate('', s)",
        "e:locate('', s, 3)",
        "e:s ILIKE 'a\\\\_%'",
        "e:s ILIKE 'A\\\\_B%'",
    ),
    "regression: dates and times": (
        "e:datediff(MONTH, ts, CAST(dt AS TIMESTAMP_NTZ))",
        "e:datediff(DAY, ts, CAST(dt AS TIMESTAMP_NTZ))",
        "e:add_months(ts, 1)",
        "e:CAST(add_months(ts, 1) AS STRING)",
        "e:CAST(add_months(dt, 1) AS STRING)",
        "e:add_months(tstz, 1)",
        "e:CAST(dt - dt AS STRING)",
        "e:CAST(dt - DATE'2024-01-01' AS STRING)",
        "e:date_format(dt, 'y')",
        "e:date_format(dt, 'yyyy')",
        "e:date_format(ts, 'y-MM-dd')",
    ),
    "regression: nested values": (
        "q:SELECT id, rank() OVER (ORDER BY iarr) AS c FROM t",
        "q:SELECT id, iarr AS c FROM t ORDER BY iarr, id",
        "q:SELECT id, st AS c FROM t ORDER BY st NULLS LAST, id",
        "a:min(iarr)",
        "a:max(iarr)",
        "a:min(st)",
        "a:max(st)",
        "e:iarr < array(1)",
        "e:CAST(st AS STRING)",
        "e:CAST(iarr AS STRING)",
    ),
    "regression: time zones": (
        "e:date_trunc('HOUR', tstz)",
        "e:date_trunc('DAY', tstz)",
        "e:date_trunc('HOUR', ts)",
        "e:ts < tstz",
        "e:ts = tstz",
    ),
    "regression: subqueries": (
        "e:i IN (SELECT i FROM t WHERE grp = 'z' OR id = 1)",
        "e:i NOT IN (SELECT i FROM t WHERE grp = 'z' OR id = 1)",
        "q:SELECT id FROM t WHERE i IN (SELECT i FROM t WHERE grp = 'z' OR id = 1)",
        "q:SELECT id FROM t WHERE i NOT IN (SELECT i FROM t WHERE grp = 'z' OR id = 1)",
        "q:SELECT id FROM t WHERE id > 1 AND i NOT IN (SELECT i FROM t WHERE id = 1)",
        "q:SELECT id FROM t WHERE (i IN (SELECT i FROM t WHERE grp = 'z' OR id = 1)) IS NULL",
    ),
    "regression: errors on data": (
        "e:l div -1",
        "e:l div NULLIF(i, 0)",
        "e:i div -1",
        "e:l div 2",
        "e:l % -1",
    ),
    # an outside check on the final code of the third slice (1,383 queries, issue 27)
    "regression: decimal products, quotients and averages": (
        "e:dec2 * dec2 * dec2",
        "e:dec2 * 1.5 * dec2",
        "e:(dec2 + 0.005) * dec2",
        "e:i * 1.5 * dec2",
        "e:-(dec2 * 1.5) * dec2",
        "e:dec2 / 160",
        "e:dec2 / -160",
        "e:dec2 / 1600",
        "e:dec2 / 800",
        "e:dec2 / 160 > 0.0346875",
        "a:avg(dec2) * max(dec2)",
        "q:SELECT id, avg(dec2) OVER (PARTITION BY grp) * dec2 AS c FROM t",
        "q:SELECT id, x * dec2 AS c FROM (SELECT id, dec2 * 1.5 AS x, dec2 FROM t)",
    ),
    "regression: bit shifts": ("e:shiftleft(i, 2)", "e:shiftright(i, 33)", "e:shiftright(l, 65)"),
}
"""Spark -> DuckDB."""

REGRESSIONS_FROM_DUCKDB: dict[str, tuple[str, ...]] = {
    # an outside check on the final code of the third slice (issue 27)
    "regression: DuckDB's substring, intervals, shifts and CTE hints": (
        "e:substring(s, 3, -2)",
        "e:substring(s, 5, -10)",
        "e:ts + INTERVAL '1 month 1 day'",
        "e:ts + INTERVAL '1.5 hours'",
        "e:ts + INTERVAL '1:30:00'",
        "e:i >> 33",
        "e:l >> 64",
        "q:WITH c AS MATERIALIZED (SELECT id, i FROM t) SELECT id, i AS c FROM c WHERE i > 3",
    ),
    "regression: DuckDB-only syntax": (
        "q:SELECT id AS c FROM t UNION ALL BY NAME SELECT id AS c FROM t",
        "e:s SIMILAR TO 'a.*'",
        "e:s GLOB 'a*'",
        "e:i > ALL (SELECT i FROM t WHERE i IS NOT NULL)",
        "e:i = ANY (SELECT i FROM t WHERE id < 3)",
        "q:SELECT a.id, b.id AS c FROM t AS a ASOF JOIN t AS b ON a.id >= b.id",
        "q:WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n AS c FROM r",
    ),
    "regression: nested values": (
        "q:SELECT id, rank() OVER (ORDER BY iarr) AS c FROM t",
        "q:SELECT id, iarr AS c FROM t ORDER BY iarr, id",
        "q:SELECT id, st AS c FROM t ORDER BY st NULLS LAST, id",
        "a:min(iarr)",
        "a:max(st)",
        "e:CAST(st AS VARCHAR)",
    ),
    "regression: implicit casts and text": (
        "e:i IN ('01', '2')",
        "e:dt IN ('2024-2-29', '2023-12-31')",
        "e:concat(s, d)",
        "e:s || d",
        "e:concat(s, i)",
    ),
    "regression: subqueries": (
        "e:i IN (SELECT i FROM t WHERE grp = 'z' OR id = 1)",
        "q:SELECT id FROM t WHERE i IN (SELECT i FROM t WHERE grp = 'z' OR id = 1)",
    ),
    "regression: strings and windows": (
        "e:reverse(s)",
        "q:SELECT id, lag(i, 1, 1.5) OVER (ORDER BY id) AS c FROM t",
        "e:ts < tstz",
    ),
}
"""DuckDB -> Spark."""
