"""The Trino corpus of ``test_directions.py``: view queries as Trino users write them, over
``customers``, ``orders`` and ``edge_events`` (``corpus_sources.py``). Expectations per target:
``spark`` and ``duckdb``."""

from __future__ import annotations

from translate.corpus_sources import EQUAL, SourceCase, case

__all__ = ["EQUAL", "TRINO_CASES"]

TRINO_CASES: list[SourceCase] = [
    # --- aggregations -----------------------------------------------------------------------------
    case(
        "status_totals",
        "SELECT status, count(*) AS n, sum(amount) AS total FROM orders GROUP BY status",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "busy_customers",
        "SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id HAVING count(*) > 5",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "kept_revenue",
        "SELECT customer_id, sum(amount) AS total, count(*) AS n FROM orders WHERE status <> 'cancelled' "
        "GROUP BY customer_id HAVING sum(amount) > 100",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "group_int_stats",
        "SELECT grp, sum(i) AS s, min(i) AS lo, max(i) AS hi FROM edge_events GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case("group_avg_int", "SELECT grp, avg(i) AS a FROM edge_events GROUP BY grp", spark=EQUAL, duckdb=EQUAL),
    case(
        "group_amount",
        "SELECT grp, sum(amount) AS total FROM edge_events GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "group_big", "SELECT grp, sum(big) AS total FROM edge_events GROUP BY grp", spark=EQUAL, duckdb=EQUAL
    ),
    case(
        "group_avg_amount",
        "SELECT grp, avg(amount) AS a FROM edge_events GROUP BY grp",
        spark="decimal-avg",
        duckdb="decimal-avg",
    ),
    case(
        "group_ratio",
        "SELECT grp, avg(ratio) AS a, count(ratio) AS n FROM edge_events GROUP BY grp",
        # equal on this data, but a sum of doubles depends on the order of addition (the
        # generator found Spark's 12345719.010000007 against Trino's and DuckDB's ...005)
        spark="floating-aggregate",
        duckdb="floating-aggregate",
    ),
    case(
        "group_stddev",
        "SELECT grp, stddev(ratio) AS sd FROM edge_events GROUP BY grp",
        spark="function",
        duckdb="function",
    ),
    case(
        "group_dates",
        "SELECT grp, max(ev_ts) AS latest, min(ev_date) AS earliest FROM edge_events GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "count_distinct",
        "SELECT grp, count(DISTINCT label) AS n FROM edge_events GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "filtered_groups",
        "SELECT grp, count(*) AS n, sum(amount) AS total FROM edge_events WHERE amount > 0 GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "empty_group",
        "SELECT grp, sum(amount) AS total FROM edge_events WHERE grp = 'e' AND amount < 0 GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    # unchecked, as count_if_null_group below: COUNT_IF over no rows is NULL in DuckDB, 0 in Trino
    case(
        "no_rows_aggregate",
        "SELECT count(*) AS n, sum(i) AS s, max(label) AS m, count_if(flag) AS f FROM edge_events WHERE event_id < 0",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "count_if",
        "SELECT customer_id, count_if(qty > 4) AS many FROM orders GROUP BY customer_id",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    # unchecked (Spark refuses count_if): into DuckDB COUNT_IF stays as is, NULL for the all-NULL group
    # where Trino documents 0 (the COALESCE rewrite applies from Spark only)
    case(
        "count_if_null_group",
        "SELECT grp, count_if(flag) AS flagged FROM edge_events GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "count_filter",
        "SELECT grp, count(*) FILTER (WHERE flag) AS n FROM edge_events GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "bool_aggs",
        "SELECT grp, bool_and(flag) AS all_flag, bool_or(flag) AS any_flag FROM edge_events GROUP BY grp",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "array_agg_ordered",
        "SELECT customer_id, array_agg(order_id ORDER BY order_id) AS ids FROM orders GROUP BY customer_id",
        spark="function",
        duckdb="function",
    ),
    case(
        "array_agg_labels",
        "SELECT grp, array_agg(label ORDER BY event_id) AS labels FROM edge_events GROUP BY grp",
        spark="function",
        duckdb="function",
    ),
    case(
        "approx_distinct",
        "SELECT status, approx_distinct(customer_id) AS customers FROM orders GROUP BY status",
        spark="approximate",
        duckdb="approximate",
    ),
    case(
        "approx_percentile",
        "SELECT grp, approx_percentile(ratio, 0.5) AS med FROM edge_events GROUP BY grp",
        spark="approximate",
        duckdb="approximate",
    ),
    case(
        "max_by",
        "SELECT status, max_by(order_id, amount) AS top_order FROM orders GROUP BY status",
        spark="nondeterministic",
        duckdb="nondeterministic",
    ),
    case(
        "arbitrary",
        "SELECT customer_id, arbitrary(status) AS any_status FROM orders GROUP BY customer_id",
        spark="function",
        duckdb="function",
    ),
    case(
        "listagg",
        "SELECT grp, listagg(label, ',') WITHIN GROUP (ORDER BY label) AS labels FROM edge_events GROUP BY grp",
        spark="function",
        duckdb="function",
    ),
    case(
        "monthly_shipped",
        "SELECT date_trunc('month', ts) AS m, count_if(status = 'shipped') AS shipped, count(*) AS n "
        "FROM orders GROUP BY date_trunc('month', ts)",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    # --- dates and times --------------------------------------------------------------------------
    case(
        "orders_per_month",
        "SELECT date_trunc('month', order_date) AS month, count(*) AS n FROM orders GROUP BY 1",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "events_per_week",
        "SELECT date_trunc('week', ev_date) AS wk, count(*) AS n FROM edge_events GROUP BY 1",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "trunc_ts",
        "SELECT event_id, date_trunc('day', ev_ts) AS d, date_trunc('hour', ev_ts) AS h FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "trunc_date_coarse",
        "SELECT event_id, date_trunc('quarter', ev_date) AS q, date_trunc('year', ev_date) AS y FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "date_add_day",
        "SELECT order_id, date_add('day', 7, order_date) AS due FROM orders",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "date_add_month",
        "SELECT event_id, date_add('month', 1, ev_date) AS next_month FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "date_diff",
        "SELECT order_id, date_diff('day', order_date, DATE '2024-12-31') AS days_left FROM orders",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "interval_day",
        "SELECT event_id, ev_date + INTERVAL '1' DAY AS next_day FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "interval_hour",
        "SELECT event_id, ev_ts - INTERVAL '1' HOUR AS hour_before FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "date_parts",
        "SELECT event_id, year(ev_date) AS y, month(ev_date) AS m, day(ev_date) AS d FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "extract_parts",
        "SELECT event_id, extract(YEAR FROM ev_ts) AS y, hour(ev_ts) AS h, quarter(ev_date) AS q FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "day_of_week",
        "SELECT event_id, day_of_week(ev_date) AS dow FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case("iso_week", "SELECT event_id, week(ev_date) AS w FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case(
        "last_day_of_month",
        "SELECT event_id, last_day_of_month(ev_date) AS eom FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "format_datetime",
        "SELECT order_id, format_datetime(ts, 'yyyy-MM-dd') AS day FROM orders",
        spark="function",
        duckdb="function",
    ),
    case(
        "date_format",
        "SELECT order_id, date_format(ts, '%Y-%m-%d') AS day FROM orders",
        spark="function",
        duckdb="function",
    ),
    case(
        "ts_to_date", "SELECT event_id, CAST(ev_ts AS date) AS d FROM edge_events", spark=EQUAL, duckdb=EQUAL
    ),
    case(
        "to_iso8601",
        "SELECT event_id, to_iso8601(ev_date) AS s FROM edge_events",
        spark="function",
        duckdb="function",
    ),
    # --- numbers ----------------------------------------------------------------------------------
    case(
        "integer_division",
        "SELECT event_id, i / 2 AS half FROM edge_events",
        spark="integer-division",
        duckdb="integer-division",
    ),
    case(
        "modulo", "SELECT event_id, i % 3 AS m, mod(i, 4) AS m4 FROM edge_events", spark=EQUAL, duckdb=EQUAL
    ),
    case("decimal_times", "SELECT event_id, amount * 2 AS dbl FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case(
        "decimal_division",
        "SELECT event_id, amount / 3 AS third FROM edge_events",
        spark="decimal-division",
        duckdb="decimal-division",
    ),
    case(
        "decimal_plus_big",
        "SELECT event_id, amount + big AS total FROM edge_events",
        # beyond 38 digits Spark lowers the scale, Trino keeps it (found by running Trino)
        spark="decimal-overflow",
        duckdb="decimal-overflow (in spark)",
    ),
    case(
        "double_division",
        "SELECT event_id, CAST(i AS double) / 4 AS q FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "guarded_division",
        "SELECT event_id, ratio / nullif(i, 0) AS q FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "round_decimal",
        "SELECT event_id, round(amount, 1) AS r FROM edge_events",
        spark="function",
        duckdb="function",
    ),
    case(
        "abs_sign",
        "SELECT event_id, abs(i) AS a, sign(i) AS s FROM edge_events",
        spark="integer-overflow|ansi:equal",
        duckdb=EQUAL,
    ),
    case(
        "ceil_floor",
        "SELECT event_id, ceil(amount) AS c, floor(amount) AS f FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "truncate_double",
        "SELECT event_id, truncate(ratio) AS t FROM edge_events",
        spark="function",
        duckdb="function",
    ),
    case(
        "power_sqrt",
        "SELECT event_id, power(ratio, 2) AS p, sqrt(abs(ratio)) AS s FROM edge_events",
        spark="function",
        duckdb="function",
    ),
    case("greatest", "SELECT event_id, greatest(i, 0) AS g FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case("nullif", "SELECT event_id, nullif(i, 0) AS n FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case(
        "between", "SELECT event_id, i BETWEEN -5 AND 5 AS small FROM edge_events", spark=EQUAL, duckdb=EQUAL
    ),
    # --- casts ------------------------------------------------------------------------------------
    case(
        "safe_casts",
        "SELECT event_id, CAST(i AS bigint) AS b, CAST(amount AS decimal(12, 2)) AS a, "
        "CAST(event_id AS varchar) AS s FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "double_to_int",
        "SELECT event_id, CAST(ratio AS integer) AS r FROM edge_events",
        spark="cast-semantics",
        duckdb="cast-semantics",
    ),
    case(
        "try_cast",
        "SELECT order_id, try_cast(note AS integer) AS n FROM orders",
        spark="try-cast-text",
        duckdb="try-cast-text",
    ),
    # --- strings ----------------------------------------------------------------------------------
    case(
        "lower_upper",
        "SELECT event_id, lower(label) AS l, upper(label) AS u FROM edge_events",
        spark="unicode-case",
        duckdb="unicode-case",
    ),
    case("length", "SELECT event_id, length(label) AS len FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case("substr", "SELECT event_id, substr(label, 1, 3) AS pre FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case("concat", "SELECT event_id, concat(label, '!') AS x FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case(
        "concat_pipes",
        "SELECT event_id, label || '-' || grp AS x FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "replace",
        "SELECT event_id, replace(label, 'a', 'A') AS r FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case("strpos", "SELECT event_id, strpos(label, 'a') AS pos FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case(
        "trim",
        "SELECT event_id, trim(label) AS t FROM edge_events",
        spark="trim-whitespace",
        duckdb="trim-whitespace",
    ),
    case(
        "lpad",
        "SELECT order_id, lpad(CAST(order_id AS varchar), 5, '0') AS code FROM orders",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case("like", "SELECT event_id FROM edge_events WHERE label LIKE 'c%'", spark=EQUAL, duckdb=EQUAL),
    case(
        "regexp_like",
        "SELECT order_id FROM orders WHERE regexp_like(note, '^r')",
        spark="regex",
        duckdb="regex",
    ),
    # --- conditionals and NULLs -------------------------------------------------------------------
    case(
        "case_when",
        "SELECT order_id, CASE WHEN amount > 60 THEN 'large' WHEN amount > 20 THEN 'medium' ELSE 'small' END "
        "AS size_class FROM orders",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "coalesce",
        "SELECT order_id, coalesce(status, 'unknown') AS status FROM orders",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "if_expr", "SELECT order_id, if(qty > 5, 'many', 'few') AS q FROM orders", spark=EQUAL, duckdb=EQUAL
    ),
    case("null_filter", "SELECT event_id FROM edge_events WHERE label IS NULL", spark=EQUAL, duckdb=EQUAL),
    # --- arrays -----------------------------------------------------------------------------------
    case(
        "element_at",
        "SELECT order_id, element_at(tags, 1) AS first_tag FROM orders",
        spark="array-index",
        duckdb="array-index",
    ),
    case(
        "cardinality",
        "SELECT order_id, cardinality(tags) AS n FROM orders",
        spark="size-of-null",
        duckdb="size-of-null",
    ),
    # unchecked (Spark refuses contains): into DuckDB it becomes ARRAY_CONTAINS, false where Trino's
    # documented contains() is NULL (not found, and the array holds a NULL: event 13)
    case(
        "contains",
        "SELECT event_id, contains(tags, 'x') AS has_x FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "unnest",
        "SELECT order_id, t.tag FROM orders CROSS JOIN UNNEST(tags) AS t(tag)",
        spark="function",
        duckdb="function",
    ),
    # --- joins, subqueries, set operations ----------------------------------------------------------
    case(
        "left_join",
        "SELECT e.event_id, c.name FROM edge_events e LEFT JOIN customers c ON e.customer_id = c.customer_id",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "customer_event_count",
        "SELECT c.customer_id, count(e.event_id) AS n FROM customers c "
        "LEFT JOIN edge_events e ON c.customer_id = e.customer_id GROUP BY c.customer_id",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "join_group",
        "SELECT e.grp, c.segment, count(*) AS n FROM edge_events e JOIN customers c "
        "ON e.customer_id = c.customer_id GROUP BY e.grp, c.segment",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "cte",
        "WITH t AS (SELECT grp, sum(amount) AS total FROM edge_events GROUP BY grp) "
        "SELECT grp, total FROM t WHERE total IS NOT NULL",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "in_subquery",
        "SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM edge_events WHERE flag)",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "not_exists",
        "SELECT c.name FROM customers c WHERE NOT EXISTS "
        "(SELECT 1 FROM edge_events e WHERE e.customer_id = c.customer_id)",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case("union", "SELECT grp FROM edge_events UNION SELECT status FROM orders", spark=EQUAL, duckdb=EQUAL),
    case(
        "except",
        "SELECT customer_id FROM customers EXCEPT SELECT customer_id FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case("distinct", "SELECT DISTINCT grp FROM edge_events", spark=EQUAL, duckdb=EQUAL),
    case(
        "top10",
        "SELECT order_id, amount FROM orders WHERE amount IS NOT NULL ORDER BY amount DESC, order_id LIMIT 10",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    # --- windows ----------------------------------------------------------------------------------
    case(
        "row_number",
        "SELECT order_id, row_number() OVER (PARTITION BY customer_id ORDER BY order_id) AS rn FROM orders",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "rank",
        "SELECT event_id, rank() OVER (PARTITION BY grp ORDER BY i) AS r FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "lag",
        "SELECT event_id, lag(i) OVER (ORDER BY event_id) AS prev FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
    case(
        "running_sum",
        "SELECT event_id, sum(amount) OVER (PARTITION BY grp ORDER BY event_id) AS running FROM edge_events",
        spark=EQUAL,
        duckdb=EQUAL,
    ),
]
