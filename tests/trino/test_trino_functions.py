"""SQL UDFs in Trino: views that call the catalog's functions (``tests/udf/engine_cases.py``) get a
``trino`` dialect with the calls inlined (``add_dialects``, and the derived dialects of
``iceview.derive-dialects``), and Trino 476 returns the rows computed in Python, as Spark and
DuckDB do (``tests/spark/test_spark_functions.py``, ``tests/duckdb/test_duckdb_functions.py``).

Trino writes the edge table (NULLs, NaN, -0.0, 1e308, decimals at their edge, a leap day, the ends
of the calendar, empty and non-ASCII strings) on the JDBC catalog it shares with iceview.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from fixtures.trino_server import JDBC_CATALOG, TrinoCatalogs
from iceview.sql import UnsafeTranslationError
from udf.engine_cases import EDGE_ROWS, EXPECTED, NS, VIEWS, create_functions, create_views, normalise

pytestmark = [pytest.mark.trino, pytest.mark.postgres]

TRINO_NAME = "iceview.trino.catalog-name"
DERIVE = "iceview.derive-dialects"
EDGE_DDL = "(id BIGINT, i INTEGER, l BIGINT, x DOUBLE, d DECIMAL(10, 2), s VARCHAR, dt DATE, color VARCHAR)"


def _literal(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, float):  # Trino reads the text as Java's Double.parseDouble does
        return "DOUBLE 'NaN'" if math.isnan(v) else f"DOUBLE '{v!r}'"
    if isinstance(v, Decimal):
        return f"DECIMAL '{v}'"
    if isinstance(v, datetime.date):
        return f"DATE '{v.isoformat()}'"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return str(v)


@pytest.fixture(scope="module")
def lake(trino: TrinoCatalogs) -> Iterator[Any]:
    """The functions and views of engine_cases on the JDBC catalog, over Trino's edge table."""
    trino.query(f"CREATE SCHEMA {JDBC_CATALOG}.{NS}")
    trino.query(f"CREATE TABLE {JDBC_CATALOG}.{NS}.edge {EDGE_DDL}")
    values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in EDGE_ROWS)
    trino.query(f"INSERT INTO {JDBC_CATALOG}.{NS}.edge VALUES {values}")
    catalog = trino.iceview_jdbc(**{TRINO_NAME: JDBC_CATALOG})
    create_functions(catalog)
    create_views(catalog)
    try:
        yield catalog
    finally:
        catalog.close()


def trino_rows(trino: TrinoCatalogs, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in trino.query(sql)]


def test_the_edge_table_trino_wrote_is_the_one_the_expectations_read(trino: TrinoCatalogs, lake: Any) -> None:
    rows = trino_rows(trino, f"SELECT * FROM {JDBC_CATALOG}.{NS}.edge")
    assert normalise(rows) == normalise(list(EDGE_ROWS))
    assert math.copysign(1, next(r[3] for r in rows if r[0] == 4)) < 0


@pytest.mark.parametrize(
    ("view", "source"),
    # v_table_translated from DuckDB SQL: the Spark-only table function body is translated into
    # DuckDB SQL first, then the whole query into Trino's
    [("v_calls", "duckdb"), ("v_table", None), ("v_table_translated", "duckdb")],
)
def test_views_calling_functions_return_the_expected_rows_in_trino(
    trino: TrinoCatalogs, lake: Any, view: str, source: str | None
) -> None:
    added = lake.load_view((NS, view)).add_dialects(["trino"], source=source)
    assert "iceview.inlined-functions" in added.metadata.current_version.summary
    rows = trino_rows(trino, f"SELECT * FROM {JDBC_CATALOG}.{NS}.{view}")
    assert normalise(rows) == normalise(EXPECTED[view])


def test_what_trino_would_compute_differently_is_refused_by_name(lake: Any) -> None:
    # v_translated's safe_ratio uses NULLIF over doubles: NULLIF(NaN, NaN) is NaN in Trino only
    with pytest.raises(UnsafeTranslationError) as e:
        lake.load_view((NS, "v_translated")).add_dialects(["trino"])
    assert "nan-semantics" in e.value.codes


def test_a_derived_trino_dialect_runs_the_functions(trino: TrinoCatalogs, lake: Any) -> None:
    schema, queries = VIEWS["v_calls"]
    made = lake.create_view(
        (NS, "v_calls_derived"),
        schema=schema,
        queries={"duckdb": queries["duckdb"]},
        default_namespace=(NS,),
        properties={DERIVE: "trino"},
    )
    assert "trino" in made.metadata.current_version.dialects
    rows = trino_rows(trino, f"SELECT * FROM {JDBC_CATALOG}.{NS}.v_calls_derived WHERE id > 0")
    assert normalise(rows) == normalise(EXPECTED["v_calls"])
    # Trino's own query over the view, with a filter and an aggregate on the inlined columns
    assert trino_rows(
        trino, f"SELECT count(*), sum(l1) FROM {JDBC_CATALOG}.{NS}.v_calls_derived WHERE i1 IS NOT NULL"
    ) == [(4, 10 + 2 - 5 + 2 + 0 + 2 + 3000000000 + 2)]


def test_a_correlated_lateral_table_function_call_is_refused_by_name(lake: Any) -> None:
    """``LATERAL tf(e.id)`` inlines to a correlated LATERAL subquery, which the translator refuses
    by name (``lateral-subquery``): a blind check found names in such subqueries resolved
    differently across engines. The view keeps its own dialect; nothing is committed."""
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "other", LongType(), required=False),
        NestedField(3, "s", StringType(), required=False),
    )
    view = lake.create_view(
        (NS, "v_lateral"),
        schema=schema,
        queries={"duckdb": "SELECT e.id, q.id AS other, q.s FROM edge AS e, LATERAL ids_from(e.id) AS q"},
        default_namespace=(NS,),
    )
    with pytest.raises(UnsafeTranslationError) as e:
        view.add_dialects(["trino"])
    assert e.value.codes == ("lateral-subquery",)
    assert lake.load_view((NS, "v_lateral")).metadata.current_version.dialects == ("duckdb",)
