"""The evidence of the differential suite from Trino (``test_edge_trino.py``): for every function class
a Trino view's SQL may keep (``allowed_functions(target, "trino")``, the same list into Spark and into
DuckDB) and for the Trino rules' constructs, Trino SQL over the edge table (``edge_data.py``), in the
notation of ``edge_queries.py`` (``e:`` expression, ``a:`` aggregate, ``q:`` query).

No Trino runs here, so two kinds of evidence stand together:

* :data:`EVIDENCE_FROM_TRINO`: each query's translations into Spark (ANSI off and on) and into DuckDB
  must give the same rows on the edge table;
* :data:`TRINO_DOCUMENTED`: what Trino's documentation says a call returns (``trino_reference.py``
  names the page), on the values where Spark or DuckDB would say something else. Both translations
  must return it, with Spark in a session time zone that has daylight saving.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

EVIDENCE_FROM_TRINO: dict[str, tuple[str, ...]] = {
    # ---------------------------------------------------------------------------------- aggregates
    "Count": ("a:count(i)", "a:count(*)", "a:count(DISTINCT s)"),
    "Sum": ("a:sum(i)", "a:sum(d)", "a:sum(dec2)", "a:sum(dec10)"),
    "Avg": ("a:avg(i)", "a:avg(l)", "a:avg(d)"),
    "Min": ("a:min(i)", "a:min(s)", "a:min(dec2)", "a:min(dt)", "a:min(ts)", "a:min(b)"),
    "Max": ("a:max(i)", "a:max(s)", "a:max(dec10)", "a:max(ts)", "a:max(l)"),
    "CountIf": ("a:count_if(i > 0)", "a:count_if(b)", "a:count_if(s LIKE '%a%')"),
    "LogicalAnd": ("a:bool_and(b)", "a:bool_and(i > 0)"),
    "LogicalOr": ("a:bool_or(b)", "a:bool_or(i > 0)"),
    # --------------------------------------------------------------------------------------- logic
    "And": ("e:b AND i > 0", "e:i > 0 AND s IS NOT NULL"),
    "Or": ("e:b OR i > 0", "e:i < 0 OR s = ''"),
    "Not": ("e:NOT b", "e:NOT (i > 0)"),
    "Exists": (
        "q:SELECT id FROM t AS o WHERE EXISTS (SELECT 1 FROM t AS x WHERE x.i = o.id)",
        "q:SELECT id FROM t AS o WHERE NOT EXISTS (SELECT 1 FROM t AS x WHERE x.l = o.i)",
    ),
    # ------------------------------------------------------------------------------------- windows
    "RowNumber": ("q:SELECT id, row_number() OVER (PARTITION BY grp ORDER BY id) AS c FROM t",),
    "Rank": ("q:SELECT id, rank() OVER (PARTITION BY grp ORDER BY i) AS c FROM t",),
    "DenseRank": ("q:SELECT id, dense_rank() OVER (ORDER BY dec2) AS c FROM t",),
    "Lag": ("q:SELECT id, lag(dt) OVER (ORDER BY id) AS c FROM t",),
    "Lead": ("q:SELECT id, lead(s, 2, 'x') OVER (PARTITION BY grp ORDER BY id) AS c FROM t",),
    # -------------------------------------------------------------------------------- conditionals
    "Coalesce": ("e:coalesce(i, 0)", "e:coalesce(s, 'none')", "e:coalesce(dt, DATE '2000-01-01')"),
    "If": ("e:if(i > 0, 'pos', 'neg')", "e:if(b, i, 0)"),
    "Case": ("e:CASE WHEN i > 0 THEN 'p' WHEN i < 0 THEN 'n' ELSE 'z' END", "e:CASE grp WHEN 'a' THEN 1 END"),
    "Nullif": ("e:nullif(i, 0)", "e:nullif(s, '')"),
    # ------------------------------------------------------------------------------------- numbers
    "Abs": ("e:abs(dec2)", "e:abs(d)"),
    "Ceil": ("e:ceil(dec2)", "e:ceil(dec10)", "e:ceil(i)", "e:ceiling(dec0)"),
    "Floor": ("e:floor(dec2)", "e:floor(dec10)", "e:floor(l)"),
    "Sign": ("e:sign(i)", "e:sign(dec2)", "e:sign(dec10)"),
    "Greatest": (
        "e:greatest(i, 0)",
        "e:greatest(dt, DATE '2024-01-01')",
        "e:greatest(s, 'm')",
        "e:greatest(dec2, dec0)",
    ),
    "Least": ("e:least(i, id)", "e:least(ts, TIMESTAMP '2024-01-01 00:00:00')", "e:least(l, NULL)"),
    # ------------------------------------------------------------------------------------- strings
    "Upper": ("e:upper('abc')",),
    "Lower": ("e:lower('ABC')",),
    "Trim": ("e:trim(BOTH ' ' FROM s)", "e:trim(LEADING 'x' FROM s)"),
    "Length": ("e:length(s)",),
    "Replace": ("e:replace(s, 'a', 'o')", "e:replace(s, 'ß', 'ss')"),
    "Concat": ("e:concat(s, '!')", "e:concat(grp, '-', s)", "e:concat(s, CAST(dt AS varchar))"),
    "Substring": ("e:substr(s, 1, 3)", "e:substr(s, 2)", "e:substring(s, 3, 1)", "e:substr(s, -2, 2)"),
    "StrPosition": ("e:strpos(s, 'a')", "e:strpos(s, 'ß')", "e:strpos(s, '')"),
    "Pad": ("e:lpad(s, 5, '0')", "e:rpad(s, 3, '.')", "e:lpad(CAST(id AS varchar), 4, '0')"),
    # --------------------------------------------------------------------------------------- dates
    "Year": ("e:year(dt)", "e:year(ts)"),
    "Quarter": ("e:quarter(dt)", "e:quarter(ts)"),
    "Month": ("e:month(dt)", "e:month(ts)"),
    "Day": ("e:day(dt)", "e:day_of_month(ts)"),
    "Hour": ("e:hour(ts)",),
    "Minute": ("e:minute(ts)",),
    "Second": ("e:second(ts)",),
    "WeekOfYear": ("e:week(dt)", "e:week_of_year(ts)"),
    "DayOfWeekIso": ("e:day_of_week(dt)", "e:dow(ts)"),
    "LastDay": ("e:last_day_of_month(dt)", "e:last_day_of_month(ts)"),
    "Extract": (
        "e:extract(YEAR FROM dt)",
        "e:extract(MONTH FROM ts)",
        "e:extract(DAY FROM dt)",
        "e:extract(HOUR FROM ts)",
        "e:extract(QUARTER FROM dt)",
    ),
    "DateTrunc": ("e:date_trunc('week', DATE '2024-03-03')", "e:date_trunc('quarter', DATE '2024-02-29')"),
    "TimestampTrunc": (
        "e:date_trunc('year', dt)",
        "e:date_trunc('quarter', dt)",
        "e:date_trunc('month', dt)",
        "e:date_trunc('week', dt)",
        "e:date_trunc('day', dt)",
        "e:date_trunc('year', ts)",
        "e:date_trunc('month', ts)",
        "e:date_trunc('week', ts)",
        "e:date_trunc('day', ts)",
        "e:date_trunc('hour', ts)",
        "e:date_trunc('minute', ts)",
        "e:date_trunc('second', ts)",
    ),
    "DateAdd": (
        "e:date_add('day', 1, dt)",
        "e:date_add('day', -1, dt)",
        "e:date_add('week', 2, dt)",
        "e:date_add('month', 1, dt)",
        "e:date_add('month', -1, dt)",
        "e:date_add('quarter', 1, dt)",
        "e:date_add('year', 1, dt)",
        "e:date_add('day', i, dt)",
    ),
    "DateDiff": ("e:date_diff('day', dt, DATE '2024-12-31')", "e:date_diff('day', DATE '2000-01-01', dt)"),
    # ---------------------------------------------------------------------------------- arrays
    "ArrayContains": ("e:contains(arr, 'a')", "e:contains(iarr, 1)", "e:contains(iarr, i)"),
    # ---------------------------------------------------------------------------------------- casts
    "Cast": (
        "e:CAST(i AS bigint)",
        "e:CAST(dec2 AS decimal(20, 4))",
        "e:CAST(ts AS date)",
        "e:CAST(i AS varchar)",
    ),
    "TryCast": ("e:try_cast(i AS bigint)",),
}
"""Per construct, Trino SQL whose Spark and DuckDB translations must agree on the edge table."""


_D = dt.date
_TS = dt.datetime

TRINO_DOCUMENTED: tuple[tuple[str, Any, str], ...] = (
    # (Trino expression over ``g``, the value Trino documents, what Spark or DuckDB would give instead);
    # ``g`` has one row: ``ts`` TIMESTAMP '2024-03-10 02:30:59.999999' (inside the daylight-saving gap
    # of America/Los_Angeles), ``n`` INTEGER NULL, ``x`` DECIMAL(10, 2) -0.50 and ``a`` ARRAY(INTEGER) [1, NULL]
    ("greatest(1, n)", None, "Spark and DuckDB skip NULL arguments: 1"),
    ("least(n, 2, 3)", None, "Spark and DuckDB skip NULL arguments: 2"),
    ("day_of_week(DATE '2024-03-03')", 7, "a Sunday; sqlglot's Spark formula gives 2"),
    ("day_of_week(DATE '2024-03-04')", 1, "a Monday; sqlglot's Spark formula gives 3"),
    ("date_trunc('week', DATE '2024-03-03')", _D(2024, 2, 26), "weeks start on Monday; a DATE stays a DATE"),
    (
        "date_trunc('month', DATE '2024-02-29')",
        _D(2024, 2, 1),
        "Spark's and DuckDB's date_trunc return a TIMESTAMP",
    ),
    (
        "date_trunc('hour', ts)",
        _TS(2024, 3, 10, 2, 0),
        "in the daylight-saving gap: Spark's date_trunc gives 03:00",
    ),
    ("date_trunc('minute', ts)", _TS(2024, 3, 10, 2, 30), "the daylight-saving gap"),
    ("date_trunc('second', ts)", _TS(2024, 3, 10, 2, 30, 59), "the daylight-saving gap"),
    ("date_trunc('day', ts)", _TS(2024, 3, 10), "the daylight-saving gap"),
    ("date_trunc('month', ts)", _TS(2024, 3, 1), "the daylight-saving gap"),
    ("hour(ts)", 2, "the daylight-saving gap"),
    (
        "date_add('month', 1, DATE '2024-01-31')",
        _D(2024, 2, 29),
        "the month's last day; DuckDB's is a TIMESTAMP",
    ),
    ("date_add('year', 1, DATE '2024-02-29')", _D(2025, 2, 28), "no 29 February"),
    ("date_add('day', 1, DATE '2024-02-28')", _D(2024, 2, 29), "a leap day"),
    (
        "date_diff('day', DATE '2024-03-01', DATE '2024-03-15')",
        14,
        "across the daylight-saving change: Spark's DATEDIFF(DAY, ...) counts 24-hour days and gives 13",
    ),
    ("last_day_of_month(DATE '2023-02-10')", _D(2023, 2, 28), "not a leap year"),
    ("week(DATE '2021-01-03')", 53, "the ISO week of the year before"),
    ("lpad('abc', 2, 'x')", "ab", "truncated to size"),
    ("substr('abc', 2)", "bc", "1-based"),
    ("strpos('Straße', 'e')", 6, "in code points"),
    ("ceil(x)", Decimal("0"), "a decimal's ceiling"),
    ("floor(x)", Decimal("-1"), "a decimal's floor"),
    ("sign(x)", Decimal("-1"), "the sign of a decimal"),
    ("contains(a, 2)", None, "not found in an array that holds a NULL"),
)
"""What Trino documents for a call on a value where the engines differ (checked in Spark and DuckDB)."""
