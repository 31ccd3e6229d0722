"""SQL UDFs in Spark 3.5 (which has no SQL functions of its own) through SparkViews, beside DuckDB on
the same lake: the Iceberg edge table written by Iceberg-Spark 1.10.2, the functions and views in
iceview's catalog on the same PostgreSQL database. Spark and DuckDB each return the rows computed in
Python (tests/udf/engine_cases.py) for every view, in views and in queries, nested in views, and for
a table function; Spark's column names are the calls'."""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from conftest import CATALOG, Lake
from iceview.errors import AmbiguousFunctionCallError, FunctionInliningError
from udf.engine_cases import (
    EDGE_ROWS,
    EXPECTED,
    NS,
    SPARK_DDL,
    VIEWS,
    create_functions,
    create_views,
    normalise,
)

pytestmark = [pytest.mark.java, pytest.mark.postgres]


def _literal(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "double('NaN')"
        return f"CAST('{v!r}' AS DOUBLE)"
    if isinstance(v, Decimal):
        return f"CAST('{v}' AS DECIMAL(10,2))"
    if isinstance(v, datetime.date):
        return f"DATE '{v.isoformat()}'"
    if isinstance(v, int):
        return f"{v}L" if abs(v) >= 2**31 else str(v)
    return "'" + str(v).replace("'", "\\'") + "'"


@pytest.fixture(scope="module")
def lake_fn(lake: Lake) -> Iterator[Lake]:
    spark = lake.spark
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.{NS}")
    spark.sql(f"CREATE TABLE {CATALOG}.{NS}.edge {SPARK_DDL} USING iceberg")
    values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in EDGE_ROWS)
    spark.sql(f"INSERT INTO {CATALOG}.{NS}.edge VALUES {values}")
    create_functions(lake.catalog)
    create_views(lake.catalog)
    yield lake


def spark_rows(lake: Lake, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in lake.views.sql(sql).collect()]


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_spark_and_duckdb_return_the_same_rows(lake_fn: Lake, view: str) -> None:
    from iceview.duckdb import DuckDBViews

    expected = normalise(EXPECTED[view])
    assert normalise(spark_rows(lake_fn, f"SELECT * FROM {CATALOG}.{NS}.{view}")) == expected
    with DuckDBViews(lake_fn.catalog, namespace=NS) as duck:
        assert normalise(duck.execute(f"SELECT * FROM {view}")) == expected


def test_a_query_calls_functions_by_their_names_and_names_columns_after_the_calls(lake_fn: Lake) -> None:
    frame = lake_fn.views.sql(
        f"SELECT id, {CATALOG}.{NS}.add_one(i), {CATALOG}.{NS}.label(s, 7) AS lab FROM {CATALOG}.{NS}.edge"
    )
    assert frame.columns == ["id", f"{CATALOG}.{NS}.add_one(i)", "lab"]
    rows = sorted(tuple(r) for r in frame.collect())
    assert rows[0] == (1, 2, "é:7") and rows[1] == (2, None, "∅:7")
    # after USE, the namespace alone names them, as Spark resolves a persistent function
    lake_fn.views.sql(f"USE {CATALOG}.{NS}")
    assert sorted(spark_rows(lake_fn, "SELECT id, add_one(i) FROM edge"))[0] == (1, 2)


def test_a_view_over_a_view_that_calls_functions(lake_fn: Lake) -> None:
    lake_fn.views.sql(
        f"CREATE VIEW {CATALOG}.{NS}.v_nested AS "
        f"SELECT id, {CATALOG}.{NS}.add_one(i1) AS i2 FROM {CATALOG}.{NS}.v_calls WHERE id < 4"
    )
    try:
        rows = sorted(spark_rows(lake_fn, f"SELECT * FROM {CATALOG}.{NS}.v_nested"))
        assert rows == [(1, 3), (2, None), (3, -5)]
    finally:
        lake_fn.views.sql(f"DROP VIEW {CATALOG}.{NS}.v_nested")


def test_a_table_function_in_a_correlated_subquery(lake_fn: Lake) -> None:
    rows = spark_rows(
        lake_fn,
        f"SELECT e.id, (SELECT count(*) FROM {CATALOG}.{NS}.by_color(e.color) AS b) AS n "
        f"FROM {CATALOG}.{NS}.edge AS e ORDER BY e.id",
    )
    assert rows == [(1, 2), (2, 0), (3, 2), (4, 1), (5, 0)]


def test_refusals_name_the_reason(lake_fn: Lake) -> None:
    with pytest.raises(AmbiguousFunctionCallError):
        lake_fn.views.sql(f"SELECT {CATALOG}.{NS}.add_one(NULL)")
    with pytest.raises(FunctionInliningError) as e:
        lake_fn.views.sql(f"SELECT {CATALOG}.{NS}.safe_ratio(CAST(rand() AS DOUBLE), 2.0e0)")
    assert e.value.code == "UDF_NONDETERMINISTIC_ARGUMENT"


def test_a_replaced_body_is_read_by_the_next_statement(lake_fn: Lake) -> None:
    from iceview.function.changes import NewDefinition

    catalog = lake_fn.catalog
    catalog.create_function((NS, "bump"), NewDefinition([("x", "int")], "int", {"spark": "x + 10"}))
    try:
        query = f"SELECT {CATALOG}.{NS}.bump(1) AS b"
        assert spark_rows(lake_fn, query) == [(11,)]
        catalog.load_function((NS, "bump")).replace_definition("int", {"spark": "x + 20"})
        assert spark_rows(lake_fn, query) == [(21,)]  # the remembered expansion is not replayed
    finally:
        catalog.drop_function((NS, "bump"))
