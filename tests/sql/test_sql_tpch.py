"""The 22 TPC-H queries as views: qualified, expanded and run in DuckDB; expanded in Spark SQL and
read back by sqlglot."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
import sqlglot
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IcebergType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
)
from sqlglot import exp

from iceview.sql import ResolvedView, ViewExpander, find_references
from sql.conftest import TPCH_QUERIES

_DUCK_TYPES: dict[str, IcebergType] = {
    "BIGINT": LongType(),
    "HUGEINT": LongType(),
    "INTEGER": IntegerType(),
    "DOUBLE": DoubleType(),
    "VARCHAR": StringType(),
    "DATE": DateType(),
    "BOOLEAN": BooleanType(),
}


def iceberg_type(duck: str) -> IcebergType:
    m = re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", duck)
    if m:
        return DecimalType(int(m.group(1)), int(m.group(2)))
    return _DUCK_TYPES[duck]


def view_schema(con: Any, sql: str) -> Schema:
    """The view's schema as an engine would record it at CREATE: the query's output columns."""
    rel = con.sql(sql)
    return Schema(
        *(
            NestedField(i, name, iceberg_type(str(t)), required=False)
            for i, (name, t) in enumerate(zip(rel.columns, rel.types, strict=True))
        )
    )


def normalise(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    def key(row: tuple[Any, ...]) -> tuple[str, ...]:
        return tuple(repr(v) for v in row)

    return sorted(
        (tuple(float(v) if isinstance(v, Decimal | float) else v for v in row) for row in rows), key=key
    )


@pytest.fixture(scope="module")
def tpch_views(tpch_duckdb: Any) -> dict[tuple[str, ...], ResolvedView]:
    tpch_duckdb.execute("USE cat.tpch")
    views = {}
    for name, sql in TPCH_QUERIES.items():
        views[("cat", "tpch", name)] = ResolvedView(
            ("cat", "tpch", name), sql, "duckdb", "cat", ("tpch",), view_schema(tpch_duckdb, sql)
        )

    # views over views: 3 deep
    def add(name: str, sql: str) -> None:
        views[("cat", "tpch", name)] = ResolvedView(
            ("cat", "tpch", name),
            sql,
            "duckdb",
            "cat",
            ("tpch",),
            view_schema(tpch_duckdb, _inline(views, sql)),
        )

    add("asia_revenue", "SELECT n_name AS nation, revenue FROM q05")
    add(
        "asia_top", "SELECT nation FROM asia_revenue WHERE revenue >= (SELECT avg(revenue) FROM asia_revenue)"
    )
    add("asia_top_count", "SELECT count(*) AS n FROM asia_top")
    tpch_duckdb.execute("USE memory.main")
    return views


def _inline(views: dict[tuple[str, ...], ResolvedView], sql: str) -> str:
    return ViewExpander(views.get, known_catalogs={"cat", "memory"}, dialect="duckdb").expand(
        sql, current_catalog="cat", current_namespace=("tpch",)
    )


@pytest.mark.parametrize("name", sorted(TPCH_QUERIES))
def test_tpch_view_rows_equal_the_query_rows(
    tpch_duckdb: Any, tpch_views: dict[tuple[str, ...], ResolvedView], name: str
) -> None:
    con = tpch_duckdb
    con.execute("USE cat.tpch")
    expected = con.sql(TPCH_QUERIES[name]).fetchall()
    # read the view from another catalog and schema: only the view's own defaults can find the tables
    con.execute("USE memory.main")
    x = ViewExpander(tpch_views.get, known_catalogs={"cat", "memory"}, dialect="duckdb")
    out = x.expand(f"SELECT * FROM cat.tpch.{name}", current_catalog="memory", current_namespace=("main",))
    got = con.sql(out).fetchall()
    assert expected, f"{name}: the generated data should give rows"
    assert normalise(got) == normalise(expected)
    assert con.sql(out).columns == [f.name for f in tpch_views[("cat", "tpch", name)].schema.fields]


def test_views_over_tpch_views_three_deep(
    tpch_duckdb: Any, tpch_views: dict[tuple[str, ...], ResolvedView]
) -> None:
    con = tpch_duckdb
    x = ViewExpander(tpch_views.get, known_catalogs={"cat", "memory"}, dialect="duckdb")
    out = x.expand(
        "SELECT n FROM cat.tpch.asia_top_count", current_catalog="memory", current_namespace=("main",)
    )
    con.execute("USE cat.tpch")
    expected = con.sql(
        "WITH r AS (SELECT n_name AS nation, revenue FROM (" + TPCH_QUERIES["q05"] + ")) "
        "SELECT count(*) FROM r WHERE revenue >= (SELECT avg(revenue) FROM r)"
    ).fetchall()
    con.execute("USE memory.main")
    assert con.sql(out).fetchall() == expected
    assert expected[0][0] > 0


@pytest.mark.parametrize("name", sorted(TPCH_QUERIES))
def test_tpch_view_expands_to_spark_sql(tpch_views: dict[tuple[str, ...], ResolvedView], name: str) -> None:
    """The same views stored for Spark: the expansion is valid Spark SQL (per sqlglot) whose every
    table is qualified with the view's defaults, and which casts to Spark type names."""
    spark_views = {
        k: ResolvedView(
            ("prod", "tpch", k[2]), TPCH_QUERIES.get(k[2], v.sql), "spark", "prod", ("tpch",), v.schema
        )
        for k, v in tpch_views.items()
        if k[2] in TPCH_QUERIES
    }
    resolve = {("prod", *k[1:]): v for k, v in spark_views.items()}.get
    x = ViewExpander(resolve, known_catalogs={"prod", "spark_catalog"}, dialect="spark")
    out = x.expand(
        f"SELECT * FROM tpch.{name} ORDER BY 1", current_catalog="prod", current_namespace=("default",)
    )
    tree = sqlglot.parse_one(out, read="spark")
    tables = [r.parts for r in find_references(out)]
    assert tables and all(p[:2] == ("prod", "tpch") and len(p) == 3 for p in tables)
    fields = tpch_views[("cat", "tpch", name)].schema.fields
    outer = tree.find(exp.Subquery)
    assert outer is not None and outer.alias == name
    wrapper = outer.this
    assert isinstance(wrapper, exp.Select)
    assert [e.alias for e in wrapper.expressions] == [f.name for f in fields]
    assert all(isinstance(e.this, exp.Cast) for e in wrapper.expressions)
