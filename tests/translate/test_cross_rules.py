"""The rows of the rules table between DuckDB and Trino, and for DuckDB's overloaded ``len``
(``iceview.sql.translate.cross_rules``), found by the corpora per source dialect. The rewrites into
DuckDB run in DuckDB here and give Trino's documented values (``trino_reference.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import BooleanType, DecimalType, IntegerType, ListType, NestedField, StringType

import duckdb
from iceview.sql import UnsafeTranslationError, translate

T = ("c", "ns", "t")
SCHEMA = Schema(
    NestedField(6, "g", IntegerType(), required=False),
    NestedField(1, "tags", ListType(2, StringType(), element_required=False), required=False),
    NestedField(3, "s", StringType(), required=False),
    NestedField(4, "b", BooleanType(), required=False),
    NestedField(5, "amount", DecimalType(10, 2), required=False),
)


def run(sql: str, source: str, target: str) -> str:
    return translate(
        sql, source, target, default_catalog="c", default_namespace=("ns",), schemas={T: SCHEMA}
    ).sql


def refusal(sql: str, source: str, target: str) -> tuple[str, ...]:
    with pytest.raises(UnsafeTranslationError) as caught:
        run(sql, source, target)
    return caught.value.codes


@pytest.mark.parametrize("target", ["spark", "trino"])
def test_duckdb_len_of_a_list_is_refused_len_of_text_kept(target: str) -> None:
    assert refusal("SELECT len(tags) AS n FROM t", "duckdb", target) == ("length-of-list",)
    assert "LENGTH(" in run("SELECT length(s) AS n, length('abc') AS k FROM t", "duckdb", target)


def test_duckdb_semantics_trino_does_not_share_are_refused_into_trino() -> None:
    assert refusal("SELECT count_if(b) AS n FROM t", "duckdb", "trino") == ("count-if-null",)
    assert refusal("SELECT list_contains(tags, 'x') AS n FROM t", "duckdb", "trino") == (
        "array-contains-null",
    )
    assert refusal("SELECT s, count(*) AS n FROM t GROUP BY ALL", "duckdb", "trino") == ("group-by-all",)
    assert refusal("SELECT amount / 3 AS a FROM t", "duckdb", "trino") == ("decimal-division",)
    assert refusal("SELECT avg(amount) AS a FROM t", "duckdb", "trino") == ("decimal-division",)
    # and the plain forms still translate
    assert "GROUP BY t.s" in run("SELECT s, count(*) AS n FROM t GROUP BY s", "duckdb", "trino")


def _duckdb_rows(sql: str, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    con = duckdb.connect()
    con.execute("CREATE SCHEMA ns")
    con.execute("CREATE TABLE ns.t (g INTEGER, tags VARCHAR[], s VARCHAR, b BOOLEAN, amount DECIMAL(10, 2))")
    con.executemany("INSERT INTO ns.t VALUES (?, ?, ?, ?, ?)", rows)
    return con.sql(sql.replace('"c".', "").replace("c.", "")).fetchall()


def test_trino_count_if_is_zero_in_duckdb_over_no_rows_and_all_null_groups() -> None:
    sql = run("SELECT g, count_if(b) AS n FROM t GROUP BY g", "trino", "duckdb")
    assert "COALESCE(COUNT_IF(" in sql
    rows = [(1, None, None, None, None), (1, None, None, None, None), (2, None, None, True, None)]
    assert sorted(_duckdb_rows(sql, rows)) == [(1, 0), (2, 1)]  # Trino: 0 for the all-NULL group
    empty = run("SELECT count_if(b) AS n FROM t WHERE g > 5", "trino", "duckdb")
    assert _duckdb_rows(empty, rows) == [(0,)]  # Trino: 0 over no rows


def test_trino_contains_keeps_its_three_valued_result_in_duckdb() -> None:
    sql = run("SELECT g, contains(tags, 'x') AS has_x FROM t", "trino", "duckdb")
    rows = [
        (1, [None, "a"], None, None, None),  # not found, a NULL element: NULL in Trino
        (2, ["a"], None, None, None),  # not found: false
        (3, None, None, None, None),  # NULL array: NULL
        (4, ["x", None], None, None, None),  # found: true
        (5, [], None, None, None),  # empty: false
    ]
    assert sorted(_duckdb_rows(sql, rows)) == [(1, None), (2, False), (3, None), (4, True), (5, False)]
