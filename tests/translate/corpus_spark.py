"""The Spark corpus of ``test_directions.py``: the SQL of the equivalence corpus
(``translate.corpus.CASES``, all but the two that read a view the corpus test creates) and queries
over ``edge_events`` (``corpus_sources.py``). Expectations per target: ``duckdb`` and ``trino``."""

from __future__ import annotations

from translate.corpus import CASES
from translate.corpus_sources import EQUAL, SourceCase, case

__all__ = ["EQUAL", "SPARK_CASES"]

_CORPUS = {c.name: c for c in CASES}
READS_A_VIEW = frozenset({"nested_view", "three_level"})  # per_customer exists only in test_corpus.py


def corpus_case(name: str, *, duckdb: str | None = None, trino: str | None = None) -> SourceCase:
    """A case of ``translate.corpus.CASES``, by name, with this corpus's expectations."""
    c = _CORPUS[name]
    return case(name, c.sql, duckdb=duckdb, trino=trino, unordered_lists=c.unordered_lists)


SPARK_CASES: list[SourceCase] = [
    # --- the SQL of translate.corpus.CASES ---------------------------------------------------------
    corpus_case("all_orders", duckdb=EQUAL, trino=EQUAL),
    corpus_case("open_orders", duckdb=EQUAL, trino=EQUAL),
    corpus_case("per_customer", duckdb=EQUAL, trino=EQUAL),
    corpus_case("per_status", duckdb="floating-aggregate", trino="floating-aggregate"),
    corpus_case("joined", duckdb=EQUAL, trino=EQUAL),
    corpus_case("left_joined", duckdb=EQUAL, trino=EQUAL),
    corpus_case("cte", duckdb=EQUAL, trino=EQUAL),
    corpus_case("union_all", duckdb=EQUAL, trino=EQUAL),
    corpus_case("union_distinct", duckdb=EQUAL, trino=EQUAL),
    corpus_case("row_number", duckdb=EQUAL, trino=EQUAL),
    corpus_case("ranks", duckdb=EQUAL, trino=EQUAL),
    corpus_case("lag_lead", duckdb=EQUAL, trino=EQUAL),
    corpus_case("running_sum", duckdb=EQUAL, trino=EQUAL),
    corpus_case("case_when", duckdb=EQUAL, trino=EQUAL),
    corpus_case("if_expr", duckdb=EQUAL, trino=EQUAL),
    corpus_case("coalesce_nvl", duckdb=EQUAL, trino=EQUAL),
    corpus_case("string_basics", duckdb=EQUAL, trino=EQUAL),
    corpus_case("upper_lower", duckdb="unicode-case", trino="unicode-case"),
    corpus_case("concat_nulls", duckdb=EQUAL, trino=EQUAL),
    corpus_case("concat_ws", duckdb=EQUAL, trino=EQUAL),
    corpus_case("substrings", duckdb=EQUAL, trino=EQUAL),
    corpus_case("replace_instr", duckdb=EQUAL, trino=EQUAL),
    corpus_case("date_parts", duckdb=EQUAL, trino=EQUAL),
    corpus_case("date_math", duckdb=EQUAL, trino=EQUAL),
    corpus_case("trunc_date", duckdb=EQUAL, trino=EQUAL),
    corpus_case("date_trunc_ts", duckdb="time-zone", trino=EQUAL),
    corpus_case("date_format", duckdb="time-zone", trino=EQUAL),
    corpus_case("safe_casts", duckdb=EQUAL, trino=EQUAL),
    corpus_case("arithmetic", duckdb=EQUAL, trino="decimal-division"),
    corpus_case(
        "integer_overflow", duckdb="integer-overflow|ansi:equal", trino="integer-overflow|ansi:equal"
    ),
    corpus_case("guarded_division", duckdb=EQUAL, trino=EQUAL),
    corpus_case("having", duckdb=EQUAL, trino=EQUAL),
    corpus_case("in_subquery", duckdb=EQUAL, trino=EQUAL),
    corpus_case("exists", duckdb=EQUAL, trino=EQUAL),
    corpus_case("scalar_subquery", duckdb=EQUAL, trino="decimal-avg"),
    corpus_case("top10", duckdb=EQUAL, trino=EQUAL),
    corpus_case("distinct", duckdb=EQUAL, trino=EQUAL),
    corpus_case("count_distinct", duckdb=EQUAL, trino=EQUAL),
    corpus_case("explode", duckdb=EQUAL, trino=EQUAL),
    corpus_case("pivot", duckdb=EQUAL, trino="pivot"),
    corpus_case("math", duckdb=EQUAL, trino=EQUAL),
    corpus_case("ceil_double", duckdb="float-to-integer", trino="float-to-integer"),
    corpus_case("greatest_least", duckdb=EQUAL, trino="function"),
    corpus_case("between_like", duckdb=EQUAL, trino=EQUAL),
    corpus_case("null_filters", duckdb=EQUAL, trino=EQUAL),
    corpus_case("count_if", duckdb=EQUAL, trino=EQUAL),
    corpus_case("stats", duckdb="floating-aggregate", trino="floating-aggregate"),
    corpus_case("round_decimal", duckdb=EQUAL, trino="trino-unreferenced"),
    corpus_case("collect_list", duckdb=EQUAL, trino="function"),
    corpus_case("md5", duckdb=EQUAL, trino=EQUAL),
    corpus_case("month_end", duckdb=EQUAL, trino=EQUAL),
    corpus_case("order_by_nulls", duckdb=EQUAL, trino=EQUAL),
    corpus_case("distribution", duckdb=EQUAL, trino=EQUAL),
    corpus_case("first_value", duckdb=EQUAL, trino=EQUAL),
    corpus_case("in_list", duckdb=EQUAL, trino=EQUAL),
    corpus_case("intersect_except", duckdb=EQUAL, trino=EQUAL),
    corpus_case("bool_aggs", duckdb=EQUAL, trino=EQUAL),
    corpus_case("cast_string_to_int", duckdb="ansi-cast", trino="ansi-cast"),
    corpus_case("unguarded_division", duckdb="ansi-division", trino="ansi-division"),
    corpus_case("integer_div", duckdb="ansi-division", trino="ansi-division"),
    corpus_case("hash", duckdb="hash", trino="hash"),
    corpus_case("xxhash64", duckdb="hash", trino="hash"),
    corpus_case("from_json", duckdb="from_json", trino="from_json"),
    corpus_case("trunc_day", duckdb="trunc-unit", trino="trunc-unit"),
    corpus_case("trunc_q", duckdb="trunc-unit", trino="trunc-unit"),
    corpus_case("outer_explode", duckdb="outer-explode", trino="outer-explode"),
    corpus_case("explode_outer_fn", duckdb="outer-explode", trino="outer-explode"),
    corpus_case("tablesample", duckdb="tablesample", trino="tablesample"),
    corpus_case("unknown_function", duckdb="function", trino="function"),
    corpus_case("round_double", duckdb="round-floating", trino="round-floating"),
    corpus_case("array_index", duckdb="array-index", trino="array-index"),
    corpus_case("size", duckdb="size-of-null", trino="size-of-null"),
    corpus_case("dayofweek", duckdb=EQUAL, trino=EQUAL),
    corpus_case("regexp", duckdb="regex", trino="regex"),
    corpus_case("rlike", duckdb="regex", trino="regex"),
    corpus_case("percentile_approx", duckdb="approximate", trino="approximate"),
    corpus_case("double_to_int", duckdb="cast-semantics", trino="cast-semantics"),
    corpus_case("substring_zero", duckdb=EQUAL, trino=EQUAL),
    corpus_case("like_escape", duckdb="like-escape", trino="like-escape"),
    corpus_case("string_vs_number", duckdb="implicit-cast", trino="implicit-cast"),
    corpus_case("first_agg", duckdb="nondeterministic", trino="nondeterministic"),
    corpus_case("to_date", duckdb="ansi-cast", trino="ansi-cast"),
    corpus_case("ts_to_string", duckdb="cast-semantics", trino="cast-semantics"),
    corpus_case("explode_select", duckdb="explode", trino="explode"),
    corpus_case("posexplode", duckdb="posexplode", trino="posexplode"),
    corpus_case("months_between", duckdb="months-between", trino="months-between"),
    corpus_case("initcap", duckdb="initcap", trino="initcap"),
    corpus_case("collect_set", duckdb="nondeterministic", trino="nondeterministic"),
    corpus_case("int_overflow_cast", duckdb="ansi-cast", trino="ansi-cast"),
    # --- over edge_events -------------------------------------------------------------------------
    case(
        "edge_group_ints",
        "SELECT grp, count(*) AS n, sum(i) AS s, avg(i) AS a FROM edge_events GROUP BY grp",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_group_amount",
        "SELECT grp, sum(amount) AS total, max(amount) AS hi FROM edge_events GROUP BY grp",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_group_big",
        "SELECT grp, sum(big) AS total FROM edge_events GROUP BY grp",
        duckdb="decimal-overflow|ansi:equal",
        trino=EQUAL,
    ),
    case(
        "edge_avg_amount",
        "SELECT grp, avg(amount) AS a FROM edge_events GROUP BY grp",
        duckdb=EQUAL,
        trino="decimal-avg",
    ),
    case(
        "edge_truncs",
        "SELECT event_id, date_trunc('WEEK', ev_ts) AS wk, trunc(ev_date, 'MM') AS m, "
        "date_trunc('QUARTER', ev_date) AS q FROM edge_events",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_date_math",
        "SELECT event_id, date_add(ev_date, 1) AS next, last_day(ev_date) AS eom, "
        "datediff(ev_date, DATE '2024-01-01') AS d FROM edge_events",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_count_if",
        "SELECT grp, count_if(flag) AS flagged FROM edge_events GROUP BY grp",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_sorted_labels",
        "SELECT grp, sort_array(collect_list(label)) AS labels FROM edge_events GROUP BY grp",
        duckdb="function",
        trino="function",
    ),
    case(
        "edge_upper",
        "SELECT event_id, upper(label) AS u FROM edge_events",
        duckdb="unicode-case",
        trino="unicode-case",
    ),
    case(
        "edge_strings",
        "SELECT event_id, length(label) AS len, substring(label, 1, 2) AS pre, concat(label, '|', grp) AS x "
        "FROM edge_events",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_left_join",
        "SELECT e.event_id, c.name FROM edge_events e LEFT JOIN customers c ON e.customer_id = c.customer_id",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_int_div",
        "SELECT event_id, i DIV 2 AS h, i % 3 AS m FROM edge_events",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_decimal_math",
        "SELECT event_id, amount * 2 AS dbl, amount / 4 AS q FROM edge_events",
        duckdb=EQUAL,
        trino="decimal-division",
    ),
    case(
        "edge_date_parts",
        "SELECT event_id, year(ev_ts) AS y, hour(ev_ts) AS h, dayofweek(ev_date) AS dow, "
        "weekofyear(ev_date) AS w FROM edge_events",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_group_dates",
        "SELECT grp, min(ev_ts) AS first_ts, max(ev_date) AS last_date FROM edge_events GROUP BY grp",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_no_rows",
        "SELECT count(*) AS n, sum(amount) AS s, count_if(flag) AS f FROM edge_events WHERE event_id < 0",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_null_filters",
        "SELECT event_id, coalesce(label, 'n/a') AS label FROM edge_events WHERE label IS NOT NULL OR grp IS NULL",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_decimal_widen",
        "SELECT event_id, CAST(amount AS DECIMAL(38, 6)) + big AS total FROM edge_events",
        duckdb="decimal-overflow|ansi:equal",
        trino="decimal-overflow",
    ),
    case(
        "edge_rank",
        "SELECT event_id, rank() OVER (PARTITION BY grp ORDER BY amount DESC) AS r FROM edge_events",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_date_format",
        "SELECT event_id, date_format(ev_ts, 'yyyy-MM-dd HH:mm:ss') AS f FROM edge_events",
        duckdb="time-zone",
        trino=EQUAL,
    ),
    case(
        "edge_join_group",
        "SELECT e.grp, c.segment, count(*) AS n FROM edge_events e JOIN customers c "
        "ON e.customer_id = c.customer_id GROUP BY e.grp, c.segment",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_empty_group",
        "SELECT grp, sum(amount) AS total FROM edge_events WHERE grp = 'e' AND amount < 0 GROUP BY grp",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    case(
        "edge_array_contains",
        "SELECT event_id, array_contains(tags, 'x') AS has_x FROM edge_events",
        duckdb=EQUAL,
        trino=EQUAL,
    ),
    # --- correlated LATERAL subqueries (what a LATERAL table function call inlines to): refused ----
    case(
        "lateral_orders",
        "SELECT c.customer_id, o.order_id, o.amount FROM customers AS c, LATERAL (SELECT x.order_id, "
        "x.amount FROM orders AS x WHERE x.customer_id = c.customer_id AND x.status <> 'cancelled') AS o",
        duckdb="lateral-subquery",
        trino="lateral-subquery",
    ),
    case(
        "lateral_range",
        "SELECT c.customer_id, o.order_id FROM customers AS c, LATERAL (SELECT x.order_id FROM orders AS x "
        "WHERE x.customer_id >= c.customer_id AND x.qty > 2) AS o",
        duckdb="lateral-subquery",
        trino="lateral-subquery",
    ),
]
