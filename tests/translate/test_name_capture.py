"""The name-capture check (``iceview.sql.translate.names``): ``x.v`` in a subquery, where ``x`` is an
outer query's alias and also a (struct) column of a relation the subquery reads, is refused; within
one query, and where no relation inside has such a column, it is kept.

The engine test shows why: Spark and DuckDB read field ``v`` of the inner struct (a double with a
NaN), where the translator's typing read the outer alias's decimal column ``v`` and so passed
``sign``, which the rules refuse for a double."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import DecimalType, DoubleType, IntegerType, LongType, NestedField, StructType

import duckdb
from iceview.sql import UnsafeTranslationError, translate

CAT = "spark_catalog"
SCHEMAS = {
    (CAT, "db", "nc_b"): Schema(NestedField(1, "bid", LongType()), NestedField(2, "v", DecimalType(10, 2))),
    (CAT, "db", "nc_s"): Schema(
        NestedField(1, "sid", IntegerType()),
        NestedField(
            2, "x", StructType(NestedField(3, "v", DoubleType()), NestedField(4, "k", IntegerType()))
        ),
    ),
    (CAT, "db", "nc_t"): Schema(NestedField(1, "tid", IntegerType()), NestedField(2, "w", DoubleType())),
}
DIRECTIONS = [(s, t) for s in ("spark", "duckdb", "trino") for t in ("spark", "duckdb", "trino") if s != t]

CAPTURED = [
    "SELECT x.bid, (SELECT max(sign(x.v)) FROM nc_s) AS z FROM nc_b AS x",
    "SELECT x.bid, (SELECT count(*) FROM nc_s WHERE sign(x.v) > 0) AS z FROM nc_b AS x",
    "SELECT x.bid FROM nc_b AS x WHERE EXISTS (SELECT 1 FROM nc_s WHERE x.v = 3)",
    "SELECT x.bid FROM nc_b AS x WHERE NOT EXISTS (SELECT 1 FROM nc_t JOIN nc_s ON true WHERE x.v = 3)",
    "SELECT x.bid FROM nc_b AS x WHERE x.bid IN (SELECT x.v FROM nc_s)",
    # two queries out: the relation in between has the column
    "SELECT x.bid FROM nc_b AS x WHERE EXISTS (SELECT 1 FROM nc_s WHERE EXISTS (SELECT 1 FROM nc_t WHERE x.v = 1))",
    # a CTE's column, and a derived table's
    "WITH c AS (SELECT x FROM nc_s) SELECT x.bid, (SELECT count(*) FROM c WHERE x.v > 0) AS z FROM nc_b AS x",
    "SELECT x.bid, (SELECT count(*) FROM (SELECT sid AS x FROM nc_s) AS d WHERE x.v > 0) AS z FROM nc_b AS x",
    # an alias column list names it
    "SELECT x.bid, (SELECT count(*) FROM nc_t AS d(x, w) WHERE x.v > 0) AS z FROM nc_b AS x",
]
KEPT = [
    # within one query the alias wins, in every engine and in the typing
    "SELECT x.bid, x.v FROM nc_b AS x JOIN nc_s ON true",
    # a correlated name whose qualifier no relation inside has as a column
    "SELECT x.bid, (SELECT count(*) FROM nc_t WHERE nc_t.tid = x.bid) AS z FROM nc_b AS x",
    "SELECT b.bid FROM nc_b AS b WHERE EXISTS (SELECT 1 FROM nc_s AS x WHERE x.sid = b.bid)",
    # the inner alias shadows the outer one: the name is the inner relation's
    "SELECT x.bid, (SELECT count(*) FROM nc_s AS x WHERE x.sid > 0) AS z FROM nc_b AS x",
]


def _translate(sql: str, source: str, target: str) -> Any:
    return translate(
        sql, source, target, default_catalog=CAT, default_namespace=["db"], schemas=SCHEMAS, spark_ansi=True
    )


def _refusal(sql: str, source: str, target: str, code: str) -> Any:
    """The issue of code ``code`` the translation is refused with (it must be refused so)."""
    with pytest.raises(UnsafeTranslationError) as e:
        _translate(sql, source, target)
    found = [i for i in e.value.issues if i.code == code]
    assert found, [i.code for i in e.value.issues]
    return found[0]


@pytest.mark.parametrize(("source", "target"), DIRECTIONS)
@pytest.mark.parametrize("sql", CAPTURED)
def test_a_captured_name_is_refused(sql: str, source: str, target: str) -> None:
    capture = _refusal(sql, source, target, "name-capture")
    assert "'x' is an alias of an enclosing query" in capture.reason
    assert "rename the alias" in capture.reason


@pytest.mark.parametrize(("source", "target"), DIRECTIONS)
@pytest.mark.parametrize("sql", KEPT)
def test_a_name_the_engines_resolve_alike_is_kept(sql: str, source: str, target: str) -> None:
    try:
        _translate(sql, source, target)
    except UnsafeTranslationError as e:
        assert "name-capture" not in {i.code for i in e.issues}, e


def test_a_relation_of_unknown_columns_inside_is_refused() -> None:
    """With schemas, a relation inside whose columns are not known might have the alias's name as
    a column: refused too."""
    sql = "SELECT x.bid, (SELECT count(*) FROM nc_u WHERE x.bid > 0) AS z FROM nc_b AS x"
    assert "are not known" in _refusal(sql, "spark", "duckdb", "name-capture").reason


# --------------------------------------------------------------------------------------------------
# the engines

_ROWS_B = [(10, "1.10")]
_ROWS_S = [(1, "2.675D", "1"), (2, "CAST('NaN' AS DOUBLE)", "2"), (3, "-1.5D", "CAST(NULL AS INT)")]


def _spark_views(spark: Any) -> None:
    b = ", ".join(f"({i}L, CAST({v} AS DECIMAL(10, 2)))" for i, v in _ROWS_B)
    s = ", ".join(f"({i}, named_struct('v', {v}, 'k', {k}))" for i, v, k in _ROWS_S)
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW nc_b AS SELECT * FROM VALUES {b} AS t(bid, v)")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW nc_s AS SELECT * FROM VALUES {s} AS t(sid, x)")


def _duckdb() -> Any:
    con = duckdb.connect()
    con.execute(f"ATTACH ':memory:' AS {CAT}")
    con.execute(f"CREATE SCHEMA {CAT}.db")
    con.execute(f"USE {CAT}.db")
    con.execute("CREATE TABLE nc_b (bid BIGINT, v DECIMAL(10, 2))")
    con.execute("INSERT INTO nc_b VALUES (10, 1.10)")
    con.execute("CREATE TABLE nc_s (sid INTEGER, x STRUCT(v DOUBLE, k INTEGER))")
    con.execute(
        "INSERT INTO nc_s VALUES (1, {'v': 2.675, 'k': 1}), (2, {'v': 'NaN'::DOUBLE, 'k': 2}), "
        "(3, {'v': -1.5, 'k': NULL})"
    )
    return con


@pytest.mark.java
def test_the_engines_read_the_inner_struct_and_the_typing_did_not(java_spark: Any) -> None:
    """Spark 3.5 and DuckDB both take ``x.v`` in the subquery as the struct field (a double: sign
    of NaN is NaN in Spark, 0 in DuckDB), so a translation typed by the outer decimal would have
    given other rows; within one query both take the alias's column, as the kept translation does."""
    spark = java_spark.spark
    _spark_views(spark)
    con = _duckdb()
    try:
        per_row = "SELECT x.bid, (SELECT collect_list(sign(x.v)) FROM nc_s) AS z FROM nc_b AS x"
        [(bid, signs)] = [tuple(r) for r in spark.sql(per_row).collect()]
        assert bid == 10 and len(signs) == 3 and any(math.isnan(v) for v in signs)  # a double, with NaN
        duck = con.execute(
            "SELECT x.bid, (SELECT list(sign(x.v) ORDER BY sid) FROM nc_s) AS z FROM nc_b AS x"
        ).fetchall()
        assert duck == [(10, [1.0, 0.0, -1.0])]  # the struct's double too, and sign(NaN) = 0
        with pytest.raises(UnsafeTranslationError):
            _translate(
                "SELECT x.bid, (SELECT max(sign(x.v)) FROM nc_s) AS z FROM nc_b AS x", "spark", "duckdb"
            )

        kept = "SELECT x.bid, s.sid, sign(x.v) AS z FROM nc_b AS x JOIN nc_s AS s ON true"
        expected = sorted(tuple(r) for r in spark.sql(kept).collect())
        assert {r[2] for r in expected} == {1}  # the decimal 1.10: the alias's column
        got = sorted(con.execute(_translate(kept, "spark", "duckdb").sql).fetchall())
        assert [(b, s, float(z)) for b, s, z in got] == [(b, s, float(z)) for b, s, z in expected]
    finally:
        con.close()
        spark.sql("DROP VIEW IF EXISTS nc_b")
        spark.sql("DROP VIEW IF EXISTS nc_s")


IMPLICIT_LATERAL = [
    "SELECT x.bid, q.c FROM nc_b AS x, (SELECT count(*) AS c FROM nc_t WHERE nc_t.tid = x.bid) AS q",
    "SELECT x.bid, q.c FROM nc_b AS x LEFT JOIN (SELECT count(*) AS c FROM nc_t WHERE nc_t.tid = x.bid) AS q ON TRUE",
    "SELECT x.bid, q.c FROM nc_b AS x JOIN (SELECT nc_t.tid AS c FROM nc_t WHERE nc_t.tid = x.bid) AS q ON q.c >= 0",
    "SELECT x.bid FROM nc_b AS x, (SELECT 1 AS c UNION ALL SELECT tid FROM nc_t WHERE tid = x.bid) AS q",
]


@pytest.mark.parametrize("target", ["spark", "trino"])
@pytest.mark.parametrize("sql", IMPLICIT_LATERAL)
def test_duckdbs_implicit_lateral_is_refused_by_name(sql: str, target: str) -> None:
    """DuckDB reads a derived table that names an earlier FROM item as LATERAL without the keyword;
    kept as it is, Spark and Trino cannot resolve the name (``UNRESOLVED_COLUMN``)."""
    issue = _refusal(sql, "duckdb", target, "lateral-subquery")
    assert "reads it as a LATERAL subquery without the keyword" in issue.reason


def test_a_derived_table_of_its_own_names_is_kept() -> None:
    sql = "SELECT x.bid, q.c FROM nc_b AS x JOIN (SELECT t.tid AS c FROM nc_t AS t WHERE t.tid > 0) AS q ON q.c = x.bid"
    for target in ("spark", "trino"):
        assert "JOIN (SELECT" in _translate(sql, "duckdb", target).sql


@pytest.mark.parametrize("target", ["spark", "trino"])
def test_duckdbs_count_of_no_argument_counts_rows(target: str) -> None:
    """DuckDB's ``count()`` counts rows; Spark has no ``count()`` (the edge suite runs it on the
    edge table, ``edge_queries_duckdb.py``)."""
    out = _translate("SELECT count() AS n, count(tid) AS m FROM nc_t", "duckdb", target).sql
    assert "COUNT(*) AS n" in out and "COUNT(nc_t.tid) AS m" in out


# the blind check's findings (names written by hand, and Spark's limits on correlated subqueries)
ROW_REFERENCES = [
    "SELECT x.bid FROM nc_b AS x WHERE EXISTS (SELECT 1 FROM nc_t WHERE nc_t IS NULL)",
    "SELECT x.bid, (SELECT count(nc_t) FROM nc_t WHERE nc_t.tid = x.bid) AS c FROM nc_b AS x",
    "SELECT nc_t FROM nc_t",
]


@pytest.mark.parametrize("target", ["spark", "trino"])
@pytest.mark.parametrize("sql", ROW_REFERENCES)
def test_duckdbs_row_reference_by_a_relations_name_is_refused(sql: str, target: str) -> None:
    """In DuckDB a relation's name used as a value is its whole row, which the typing takes for a
    column of that name (an outer one: other rows, no error)."""
    assert "whole row" in _refusal(sql, "duckdb", target, "name-capture").reason


def test_a_column_named_by_its_namespace_is_refused() -> None:
    for source, target in DIRECTIONS:
        for sql in (
            "SELECT db.nc_t.tid FROM nc_t",
            "SELECT tid FROM nc_t WHERE EXISTS (SELECT 1 FROM nc_b WHERE db.nc_t.w > 2)",
        ):
            with pytest.raises(UnsafeTranslationError) as e:
                _translate(sql, source, target)
            assert "qualified-column" in e.value.codes, (source, target, sql)
    assert "nc_t.tid" in _translate("SELECT nc_t.tid FROM nc_t", "duckdb", "spark").sql


SPARK_CANNOT_PLAN = [
    "SELECT a.tid FROM nc_t AS a ORDER BY (SELECT max(b.bid) FROM nc_b AS b WHERE b.bid = a.tid), a.tid",
    "SELECT a.tid, b.bid FROM nc_t AS a LEFT JOIN nc_b AS b ON a.tid = b.bid AND EXISTS (SELECT 1 FROM nc_s AS s WHERE s.sid = a.tid)",
    "SELECT (SELECT max(b.bid) FROM nc_b AS b WHERE b.bid = a.tid) AS m, count(*) AS n FROM nc_t AS a GROUP BY (SELECT max(b.bid) FROM nc_b AS b WHERE b.bid = a.tid)",
]


@pytest.mark.parametrize("sql", SPARK_CANNOT_PLAN)
def test_correlated_subqueries_spark_cannot_plan_are_refused_into_spark(sql: str) -> None:
    with pytest.raises(UnsafeTranslationError) as e:
        _translate(sql, "duckdb", "spark")
    assert "correlated-subquery" in e.value.codes
    try:
        _translate(sql, "spark", "duckdb")
    except UnsafeTranslationError as other:
        assert "correlated-subquery" not in other.codes  # a limit of Spark's, not of DuckDB's


def test_correlated_subqueries_spark_plans_are_kept() -> None:
    for sql in (
        "SELECT a.tid FROM nc_t AS a WHERE EXISTS (SELECT 1 FROM nc_b AS b WHERE b.bid = a.tid)",
        "SELECT a.tid, (SELECT count(*) FROM nc_b AS b WHERE b.bid = a.tid) AS n FROM nc_t AS a",
        "SELECT a.tid FROM nc_t AS a ORDER BY (SELECT max(b.bid) FROM nc_b AS b), a.tid",
    ):
        _translate(sql, "duckdb", "spark")
