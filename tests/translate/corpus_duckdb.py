"""The DuckDB corpus of ``test_directions.py``: view queries as DuckDB users write them, over
``customers``, ``orders`` and ``edge_events`` (``corpus_sources.py``). Expectations per target:
``spark`` and ``trino``."""

from __future__ import annotations

from translate.corpus_sources import EQUAL, SourceCase, case

__all__ = ["DUCKDB_CASES", "EQUAL"]

DUCKDB_CASES: list[SourceCase] = [
    # --- aggregations -----------------------------------------------------------------------------
    case(
        "status_totals",
        "SELECT status, count(*) AS n, sum(amount) AS total FROM orders GROUP BY status",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "group_by_all",
        "SELECT customer_id, count(*) AS n FROM orders GROUP BY ALL HAVING count(*) > 5",
        spark=EQUAL,
        trino="group-by-all",
    ),
    case(
        "kept_revenue",
        "SELECT customer_id, sum(amount) AS total, count(*) AS n FROM orders WHERE status <> 'cancelled' "
        "GROUP BY customer_id HAVING sum(amount) > 100",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "group_int_stats",
        "SELECT grp, sum(i) AS s, min(i) AS lo, max(i) AS hi FROM edge_events GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case("group_avg_int", "SELECT grp, avg(i) AS a FROM edge_events GROUP BY grp", spark=EQUAL, trino=EQUAL),
    case(
        "group_amount",
        "SELECT grp, sum(amount) AS total FROM edge_events GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "group_big",
        "SELECT grp, sum(big) AS total FROM edge_events GROUP BY grp",
        spark="decimal-overflow|ansi:equal",
        trino=EQUAL,
    ),
    case(
        "group_avg_amount",
        "SELECT grp, avg(amount) AS a FROM edge_events GROUP BY grp",
        spark="decimal-division",
        trino="decimal-division",
    ),
    case(
        "group_ratio",
        "SELECT grp, avg(ratio) AS a, count(ratio) AS n FROM edge_events GROUP BY grp",
        spark="floating-aggregate",
        trino="floating-aggregate",
    ),
    case(
        "group_stddev",
        "SELECT grp, stddev(ratio) AS sd FROM edge_events GROUP BY grp",
        spark="function",
        trino="floating-aggregate",
    ),
    case(
        "group_dates",
        "SELECT grp, max(ev_ts) AS latest, min(ev_date) AS earliest FROM edge_events GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "count_distinct",
        "SELECT grp, count(DISTINCT label) AS n FROM edge_events GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "filtered_groups",
        "SELECT grp, count(*) AS n, sum(amount) AS total FROM edge_events WHERE amount > 0 GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "empty_group",
        "SELECT grp, sum(amount) AS total FROM edge_events WHERE grp = 'e' AND amount < 0 GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "no_rows_aggregate",
        "SELECT count(*) AS n, sum(i) AS s, max(label) AS m, count_if(flag) AS f FROM edge_events WHERE event_id < 0",
        spark="function",
        trino="count-if-null",
    ),
    case(
        "count_if",
        "SELECT customer_id, count_if(qty > 4) AS many FROM orders GROUP BY customer_id",
        spark="function",
        trino="count-if-null",
    ),
    case(
        "count_if_null_group",
        "SELECT grp, count_if(flag) AS flagged FROM edge_events GROUP BY grp",
        spark="function",
        trino="count-if-null",
    ),
    case(
        "count_filter",
        "SELECT grp, count(*) FILTER (WHERE flag) AS n FROM edge_events GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "sum_filter",
        "SELECT customer_id, sum(amount) FILTER (WHERE status = 'shipped') AS shipped FROM orders GROUP BY customer_id",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "bool_aggs",
        "SELECT grp, bool_and(flag) AS all_flag, bool_or(flag) AS any_flag FROM edge_events GROUP BY grp",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "list_ordered",
        "SELECT customer_id, list(order_id ORDER BY order_id) AS ids FROM orders GROUP BY customer_id",
        spark="function",
        trino="function",
    ),
    case(
        "array_agg_ordered",
        "SELECT customer_id, array_agg(order_id ORDER BY order_id) AS ids FROM orders GROUP BY customer_id",
        spark="function",
        trino="function",
    ),
    case(
        "list_labels",
        "SELECT grp, list(label ORDER BY event_id) AS labels FROM edge_events GROUP BY grp",
        spark="function",
        trino="function",
    ),
    case(
        "string_agg",
        "SELECT grp, string_agg(label, ',' ORDER BY label) AS labels FROM edge_events GROUP BY grp",
        spark="function",
        trino="function",
    ),
    case(
        "approx_count_distinct",
        "SELECT status, approx_count_distinct(customer_id) AS customers FROM orders GROUP BY status",
        spark="approximate",
        trino="approximate",
    ),
    case(
        "median",
        "SELECT grp, median(ratio) AS med FROM edge_events GROUP BY grp",
        spark="function",
        trino="function",
    ),
    case(
        "arg_max",
        "SELECT status, arg_max(order_id, amount) AS top_order FROM orders GROUP BY status",
        spark="nondeterministic",
        trino="nondeterministic",
    ),
    case(
        "any_value",
        "SELECT customer_id, any_value(status) AS any_status FROM orders GROUP BY customer_id",
        spark="function",
        trino="function",
    ),
    case(
        "monthly_shipped",
        "SELECT date_trunc('month', ts) AS m, count_if(status = 'shipped') AS shipped, count(*) AS n "
        "FROM orders GROUP BY ALL",
        spark="function",
        trino="group-by-all",
    ),
    # --- dates and times --------------------------------------------------------------------------
    case(
        "orders_per_month",
        "SELECT date_trunc('month', order_date) AS month, count(*) AS n FROM orders GROUP BY 1",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "events_per_week",
        "SELECT date_trunc('week', ev_date) AS wk, count(*) AS n FROM edge_events GROUP BY 1",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "trunc_ts",
        "SELECT event_id, date_trunc('day', ev_ts) AS d, date_trunc('hour', ev_ts) AS h FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "trunc_date_coarse",
        "SELECT event_id, date_trunc('quarter', ev_date) AS q, date_trunc('year', ev_date) AS y FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "strftime",
        "SELECT order_id, strftime(ts, '%Y-%m-%d') AS day FROM orders",
        spark="function",
        trino="date-format",
    ),
    case(
        "date_diff",
        "SELECT order_id, date_diff('day', order_date, DATE '2024-12-31') AS days_left FROM orders",
        spark="function",
        trino=EQUAL,
    ),
    case(
        "datediff_month",
        "SELECT event_id, datediff('month', ev_date, DATE '2025-01-01') AS months FROM edge_events",
        spark="function",
        trino=EQUAL,
    ),
    case(
        "interval_day",
        "SELECT event_id, ev_date + INTERVAL 1 DAY AS next_day FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "interval_month",
        "SELECT event_id, ev_date + INTERVAL 1 MONTH AS next_month FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "interval_hour",
        "SELECT event_id, ev_ts - INTERVAL 1 HOUR AS hour_before FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "date_parts",
        "SELECT event_id, year(ev_date) AS y, month(ev_date) AS m, day(ev_date) AS d FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "extract_parts",
        "SELECT event_id, extract(year FROM ev_ts) AS y, hour(ev_ts) AS h, quarter(ev_date) AS q FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "date_part",
        "SELECT event_id, date_part('year', ev_date) AS y FROM edge_events",
        spark="function",
        trino="function",
    ),
    case(
        "dayofweek",
        "SELECT event_id, dayofweek(ev_date) AS dow, isodow(ev_date) AS iso FROM edge_events",
        spark="dayofweek",
        trino="dayofweek",
    ),
    case(
        "weekofyear",
        "SELECT event_id, weekofyear(ev_date) AS w FROM edge_events",
        spark="function",
        trino=EQUAL,
    ),
    case(
        "last_day",
        "SELECT event_id, last_day(ev_date) AS eom FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case("ts_to_date", "SELECT event_id, ev_ts::DATE AS d FROM edge_events", spark=EQUAL, trino=EQUAL),
    case(
        "make_date",
        "SELECT event_id, make_date(year(ev_date), 1, 1) AS jan1 FROM edge_events",
        spark="function",
        trino="function",
    ),
    # --- numbers ----------------------------------------------------------------------------------
    case("division", "SELECT event_id, i / 2 AS half FROM edge_events", spark=EQUAL, trino=EQUAL),
    case("integer_division", "SELECT event_id, i // 2 AS half FROM edge_events", spark=EQUAL, trino=EQUAL),
    case("modulo", "SELECT event_id, i % 3 AS m FROM edge_events", spark=EQUAL, trino=EQUAL),
    case("decimal_times", "SELECT event_id, amount * 2 AS dbl FROM edge_events", spark=EQUAL, trino=EQUAL),
    case(
        "decimal_division",
        "SELECT event_id, amount / 3 AS third FROM edge_events",
        spark="decimal-division",
        trino="decimal-division",
    ),
    case(
        "decimal_plus_big",
        "SELECT event_id, amount + big AS total FROM edge_events",
        spark="decimal-overflow",
        trino=EQUAL,
    ),
    case(
        "guarded_division",
        "SELECT event_id, ratio / nullif(i, 0) AS q FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "round_decimal",
        "SELECT event_id, round(amount, 1) AS r FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "abs_sign",
        "SELECT event_id, abs(i) AS a, sign(i) AS s FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "ceil_floor",
        "SELECT event_id, ceil(amount) AS c, floor(amount) AS f FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "pow_sqrt",
        "SELECT event_id, pow(ratio, 2) AS p, sqrt(abs(ratio)) AS s FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "greatest",
        "SELECT event_id, greatest(i, 0) AS g FROM edge_events",
        spark=EQUAL,
        trino="function",
    ),
    case("nullif", "SELECT event_id, nullif(i, 0) AS n FROM edge_events", spark=EQUAL, trino=EQUAL),
    case(
        "between", "SELECT event_id, i BETWEEN -5 AND 5 AS small FROM edge_events", spark=EQUAL, trino=EQUAL
    ),
    # --- casts ------------------------------------------------------------------------------------
    case(
        "double_colon_casts",
        "SELECT event_id, i::BIGINT AS b, amount::DECIMAL(12, 2) AS a, event_id::VARCHAR AS s FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "double_to_int",
        "SELECT event_id, ratio::INTEGER AS r FROM edge_events",
        spark="cast-semantics",
        trino="cast-semantics",
    ),
    case(
        "try_cast",
        "SELECT order_id, try_cast(note AS INTEGER) AS n FROM orders",
        spark="try-cast-text",
        trino="try-cast-text",
    ),
    # --- strings ----------------------------------------------------------------------------------
    case(
        "lower_upper",
        "SELECT event_id, lower(label) AS l, upper(label) AS u FROM edge_events",
        spark="unicode-case",
        trino="unicode-case",
    ),
    case("length", "SELECT event_id, length(label) AS len FROM edge_events", spark=EQUAL, trino=EQUAL),
    case(
        "substr",
        "SELECT event_id, substr(label, 1, 3) AS pre FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "concat_pipes", "SELECT event_id, label || '-' || grp AS x FROM edge_events", spark=EQUAL, trino=EQUAL
    ),
    case(
        "concat_ws",
        "SELECT event_id, concat_ws('-', label, grp) AS x FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "replace", "SELECT event_id, replace(label, 'a', 'A') AS r FROM edge_events", spark=EQUAL, trino=EQUAL
    ),
    case("strpos", "SELECT event_id, strpos(label, 'a') AS pos FROM edge_events", spark=EQUAL, trino=EQUAL),
    case("trim", "SELECT event_id, trim(label) AS t FROM edge_events", spark=EQUAL, trino=EQUAL),
    case(
        "starts_with",
        "SELECT event_id, starts_with(label, 'c') AS c FROM edge_events",
        spark=EQUAL,
        trino="function",
    ),
    case("ilike", "SELECT name FROM customers WHERE name ILIKE 'b%'", spark="unicode-case", trino=EQUAL),
    case(
        "ilike_non_ascii",
        "SELECT event_id FROM edge_events WHERE label ILIKE '%ärger%'",
        spark="unicode-case",
        trino=EQUAL,
    ),
    case("like", "SELECT event_id FROM edge_events WHERE label LIKE 'c%'", spark=EQUAL, trino=EQUAL),
    case(
        "regexp_matches",
        "SELECT order_id FROM orders WHERE regexp_matches(note, '^r')",
        spark="regex",
        trino="regex",
    ),
    # --- conditionals and NULLs -------------------------------------------------------------------
    case(
        "case_when",
        "SELECT order_id, CASE WHEN amount > 60 THEN 'large' WHEN amount > 20 THEN 'medium' ELSE 'small' END "
        "AS size_class FROM orders",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "coalesce",
        "SELECT order_id, coalesce(status, 'unknown') AS status FROM orders",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case("if_expr", "SELECT order_id, if(qty > 5, 'many', 'few') AS q FROM orders", spark=EQUAL, trino=EQUAL),
    case("null_filter", "SELECT event_id FROM edge_events WHERE label IS NULL", spark=EQUAL, trino=EQUAL),
    # --- lists ------------------------------------------------------------------------------------
    case(
        "list_contains",
        "SELECT order_id FROM orders WHERE list_contains(tags, 'a')",
        spark="function",
        trino="array-contains-null",
    ),
    case(
        "list_contains_null",
        "SELECT event_id, list_contains(tags, 'x') AS has_x FROM edge_events",
        spark="function",
        trino="array-contains-null",
    ),
    # DuckDB's len of a list: Spark's and Trino's length take strings only (it was translated to
    # Spark's length(tags), which fails there, until cross_rules.LENGTH_OF_TEXT)
    case(
        "len_list",
        "SELECT order_id, len(tags) AS n FROM orders",
        spark="length-of-list",
        trino="length-of-list",
    ),
    case(
        "list_index",
        "SELECT order_id, tags[1] AS first_tag FROM orders",
        spark="array-index",
        trino="array-index",
    ),
    case("unnest", "SELECT order_id, unnest(tags) AS tag FROM orders", spark="function", trino="explode"),
    # --- joins, subqueries, set operations ----------------------------------------------------------
    case(
        "left_join",
        "SELECT e.event_id, c.name FROM edge_events e LEFT JOIN customers c ON e.customer_id = c.customer_id",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "customer_event_count",
        "SELECT c.customer_id, count(e.event_id) AS n FROM customers c "
        "LEFT JOIN edge_events e ON c.customer_id = e.customer_id GROUP BY c.customer_id",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "join_group",
        "SELECT e.grp, c.segment, count(*) AS n FROM edge_events e JOIN customers c "
        "ON e.customer_id = c.customer_id GROUP BY e.grp, c.segment",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "cte",
        "WITH t AS (SELECT grp, sum(amount) AS total FROM edge_events GROUP BY grp) "
        "SELECT grp, total FROM t WHERE total IS NOT NULL",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "in_subquery",
        "SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM edge_events WHERE flag)",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "not_exists",
        "SELECT c.name FROM customers c WHERE NOT EXISTS "
        "(SELECT 1 FROM edge_events e WHERE e.customer_id = c.customer_id)",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case("union", "SELECT grp FROM edge_events UNION SELECT status FROM orders", spark=EQUAL, trino=EQUAL),
    case(
        "except",
        "SELECT customer_id FROM customers EXCEPT SELECT customer_id FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case("distinct", "SELECT DISTINCT grp FROM edge_events", spark=EQUAL, trino=EQUAL),
    case("star_exclude", "SELECT * EXCLUDE (tags, big) FROM edge_events", spark=EQUAL, trino=EQUAL),
    case(
        "top10",
        "SELECT order_id, amount FROM orders WHERE amount IS NOT NULL ORDER BY amount DESC, order_id LIMIT 10",
        spark=EQUAL,
        trino=EQUAL,
    ),
    # --- windows ----------------------------------------------------------------------------------
    case(
        "row_number",
        "SELECT order_id, row_number() OVER (PARTITION BY customer_id ORDER BY order_id) AS rn FROM orders",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "rank",
        "SELECT event_id, rank() OVER (PARTITION BY grp ORDER BY i) AS r FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "lag",
        "SELECT event_id, lag(i) OVER (ORDER BY event_id) AS prev FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "running_sum",
        "SELECT event_id, sum(amount) OVER (PARTITION BY grp ORDER BY event_id) AS running FROM edge_events",
        spark=EQUAL,
        trino=EQUAL,
    ),
    case(
        "qualify",
        "SELECT order_id, customer_id FROM orders QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY order_id) = 1",
        spark=EQUAL,
        trino=EQUAL,
    ),
    # --- correlated LATERAL subqueries (what a LATERAL table function call inlines to): refused ----
    case(
        "lateral_orders",
        "SELECT c.customer_id, o.order_id, o.amount FROM customers AS c, LATERAL (SELECT x.order_id, "
        "x.amount FROM orders AS x WHERE x.customer_id = c.customer_id AND x.status <> 'cancelled') AS o",
        spark="lateral-subquery",
        trino="lateral-subquery",
    ),
    case(
        "lateral_range",
        "SELECT c.customer_id, o.order_id FROM customers AS c, LATERAL (SELECT x.order_id FROM orders AS x "
        "WHERE x.customer_id >= c.customer_id AND x.qty > 2) AS o",
        spark="lateral-subquery",
        trino="lateral-subquery",
    ),
]
