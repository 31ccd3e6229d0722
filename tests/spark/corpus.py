"""The view corpus of the Spark tests: 33 hand-written views and the 22 TPC-H queries, over the
TPC-H tables of namespace ``tpch``.

Views are created in order (later ones read earlier ones: ``lvl1`` → ``lvl2`` → ``lvl3`` is three
deep) with the session in ``<catalog>.tpch``. Each entry is ``(name, columns, query)``; ``columns``
is the optional column list of the CREATE statement. This module imports nothing outside the
standard library, so the Spark 4 / Spark Connect runner (another venv) uses it too.
"""

from __future__ import annotations

import datetime
import decimal
import math
from pathlib import Path
from typing import Any

TPCH_DIR = Path(__file__).resolve().parent.parent / "data" / "tpch"

CUSTOM: list[tuple[str, str, str]] = [
    (
        "c_join",
        "",
        "SELECT c_custkey, c_name, o_orderkey, o_totalprice FROM customer JOIN orders ON c_custkey = o_custkey WHERE o_totalprice > 100000",
    ),
    (
        "c_agg",
        "",
        "SELECT n_name, count(*) AS n, sum(s_acctbal) AS bal, avg(s_acctbal) AS avg_bal FROM supplier JOIN nation ON s_nationkey = n_nationkey GROUP BY n_name",
    ),
    (
        "c_rank",
        "",
        "SELECT o_custkey, o_orderkey, o_totalprice, rank() OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC, o_orderkey) AS rnk FROM orders",
    ),
    (
        "c_running",
        "",
        "SELECT o_orderkey, o_orderdate, sum(o_totalprice) OVER (ORDER BY o_orderdate, o_orderkey ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM orders WHERE o_orderkey < 200",
    ),
    (
        "c_cte",
        "",
        "WITH big AS (SELECT * FROM orders WHERE o_totalprice > 50000) SELECT o_orderpriority, count(*) AS c FROM big GROUP BY o_orderpriority",
    ),
    (
        "c_in",
        "",
        "SELECT p_partkey, p_name FROM part WHERE p_partkey IN (SELECT ps_partkey FROM partsupp WHERE ps_availqty > 6000)",
    ),
    (
        "c_exists",
        "",
        "SELECT c_custkey FROM customer c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey AND o.o_orderstatus = 'F')",
    ),
    (
        "c_scalar",
        "",
        "SELECT s_suppkey, s_acctbal - (SELECT avg(s_acctbal) FROM supplier) AS diff FROM supplier",
    ),
    (
        "c_union",
        "",
        "SELECT 'c' AS kind, c_nationkey AS nk FROM customer UNION ALL SELECT 's', s_nationkey FROM supplier",
    ),
    (
        "c_except",
        "",
        "SELECT n_nationkey FROM nation EXCEPT SELECT c_nationkey FROM customer WHERE c_acctbal > 0 INTERSECT SELECT n_nationkey FROM nation WHERE n_regionkey < 3",
    ),
    ("c_columns", "(region_id COMMENT 'the region', region_name)", "SELECT r_regionkey, r_name FROM region"),
    ("lvl1", "", "SELECT o_orderkey, o_custkey, o_totalprice FROM orders WHERE o_orderstatus = 'O'"),
    ("lvl2", "", "SELECT o_custkey, sum(o_totalprice) AS total FROM lvl1 GROUP BY o_custkey"),
    (
        "lvl3",
        "(customer_name COMMENT 'name', total_open)",
        "SELECT c_name, total FROM lvl2 JOIN customer ON c_custkey = o_custkey WHERE total > 300000",
    ),
    ("c_cte_shadow", "", "WITH lvl1 AS (SELECT 1 AS o_orderkey) SELECT * FROM lvl1"),
    (
        "c_view_in_subquery",
        "",
        "SELECT c_custkey FROM customer WHERE c_custkey IN (SELECT o_custkey FROM lvl1)",
    ),
    ("c_view_in_cte", "", "WITH x AS (SELECT * FROM lvl2) SELECT count(*) AS n, max(total) AS top FROM x"),
    ("c_view_setop", "", "SELECT o_custkey FROM lvl1 UNION SELECT o_custkey FROM lvl2"),
    ("c_three_part", "", "SELECT * FROM {catalog}.tpch.lvl1 WHERE o_totalprice > 80000"),
    ("c_two_part", "", "SELECT count(*) AS n FROM tpch.lvl2"),
    (
        "c_self_join",
        "",
        "SELECT a.o_custkey, count(*) AS c FROM lvl1 a JOIN lvl1 b ON a.o_custkey = b.o_custkey AND a.o_orderkey < b.o_orderkey GROUP BY a.o_custkey",
    ),
    (
        "c_lateral",
        "",
        "SELECT n_name, x FROM nation LATERAL VIEW explode(array(1, 2)) t AS x WHERE n_nationkey < 3",
    ),
    ("c_star", "", "SELECT * FROM region"),
    (
        "c_case",
        "",
        "SELECT p_partkey, CASE WHEN p_size > 25 THEN 'big' ELSE 'small' END AS sz, upper(substr(p_name, 1, 5)) AS nm FROM part",
    ),
    (
        "c_dates",
        "",
        "SELECT year(o_orderdate) AS y, month(o_orderdate) AS m, count(*) AS c FROM orders GROUP BY 1, 2",
    ),
    (
        "c_having",
        "",
        "SELECT l_orderkey, sum(l_quantity) AS q FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 200",
    ),
    ("c_distinct", "", "SELECT DISTINCT c_mktsegment FROM customer"),
    (
        "c_left_join",
        "",
        "SELECT c_custkey, count(o_orderkey) AS n FROM customer LEFT JOIN orders ON c_custkey = o_custkey GROUP BY c_custkey",
    ),
    (
        "c_window_view",
        "",
        "SELECT o_custkey, total, dense_rank() OVER (ORDER BY total DESC, o_custkey) AS r FROM lvl2",
    ),
    ("lvl2_alias", "(cust, amount)", "SELECT * FROM lvl2"),
    ("c_over_alias", "", "SELECT cust FROM lvl2_alias WHERE amount > 100000"),
    (
        "c_nested_types",
        "",
        "SELECT r_regionkey, named_struct('name', r_name, 'len', length(r_name)) AS info, array(r_regionkey, r_regionkey * 2) AS arr, map(r_name, r_regionkey) AS m FROM region",
    ),
    (
        "c_qualified_cols",
        "",
        "SELECT lvl1.o_orderkey, tpch.lvl1.o_custkey FROM tpch.lvl1 WHERE lvl1.o_custkey < 10",
    ),
]

TPCH: list[tuple[str, str, str]] = [
    (f"tpch_{p.stem}", "", p.read_text().strip().rstrip(";")) for p in sorted(TPCH_DIR.glob("q*.sql"))
]

CORPUS = CUSTOM + TPCH


def create_statement(name: str, columns: str, query: str, catalog: str, *, replace: bool = False) -> str:
    head = "CREATE OR REPLACE VIEW" if replace else "CREATE VIEW"
    cols = f" {columns}" if columns else ""
    return f"{head} {name}{cols} AS {query.replace('{catalog}', catalog)}"


def _value(v: Any) -> Any:
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return float(f"{v:.9g}")
    if isinstance(v, decimal.Decimal):
        return f"D:{v}"
    if isinstance(v, datetime.datetime):
        return "T:" + v.isoformat()
    if isinstance(v, datetime.date):
        return "d:" + v.isoformat()
    if isinstance(v, dict):
        return {str(k): _value(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if hasattr(v, "asDict"):
        return _value(v.asDict(recursive=True))
    return v


def normalise(rows: list[Any]) -> list[list[Any]]:
    """Rows (Spark ``Row``s or dicts) as sorted JSON-able lists, floats to 9 significant digits."""
    out = []
    for r in rows:
        d = r.asDict(recursive=True) if hasattr(r, "asDict") else r
        out.append([_value(x) for x in d.values()])
    out.sort(key=repr)
    return out


def columns_of(rows: list[Any]) -> list[str]:
    if not rows:
        return []
    r = rows[0]
    return list(r.asDict().keys() if hasattr(r, "asDict") else r.keys())
