"""One set of SQL UDFs, an edge table and views that call them, run in every engine: DuckDB alone
(tests/duckdb/test_duckdb_functions.py) and Spark beside DuckDB on one lake
(tests/spark/test_spark_functions.py). Every engine must return :data:`EXPECTED`, computed here in
Python from the rows, for each view.

The edge rows hold NULLs, NaN, -0.0, 1e308, decimals at their precision's edge, a leap day and the
ends of the calendar, empty and non-ASCII strings. The functions are overloaded (``add_one`` has
four signatures; a decimal(3,2) literal and an int argument need widening to reach theirs), return
NULL on NULL input or handle it, have bodies in one dialect only (translated for the other) or in
both, and three are table functions (two with a body in one dialect only, translated for the
other engine).
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import (
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
)

from iceview.function.changes import NewDefinition

NS = "fn"

EDGE_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "i", IntegerType(), required=False),
    NestedField(3, "l", LongType(), required=False),
    NestedField(4, "x", DoubleType(), required=False),
    NestedField(5, "d", DecimalType(10, 2), required=False),
    NestedField(6, "s", StringType(), required=False),
    NestedField(7, "dt", DateType(), required=False),
    NestedField(8, "color", StringType(), required=False),
)
SPARK_DDL = "(id bigint, i int, l bigint, x double, d decimal(10,2), s string, dt date, color string)"

D = Decimal
EDGE_ROWS: list[tuple[Any, ...]] = [
    (1, 1, 10, 1.5, D("1.25"), "é", datetime.date(2024, 2, 29), "red"),
    (2, None, None, None, None, None, None, None),
    (3, -7, -5, math.nan, D("-0.01"), "", datetime.date(1970, 1, 1), "red"),
    (4, 0, 0, -0.0, D("99999999.99"), "日本", datetime.date(9999, 12, 31), "yellow"),
    (5, 2147483646, 3000000000, 1e308, D("0.00"), " ", datetime.date(1969, 12, 31), None),
]

STRUCT_ID_S = {"type": "struct", "fields": [{"name": "id", "type": "long"}, {"name": "s", "type": "string"}]}

FUNCTIONS: dict[str, list[NewDefinition]] = {
    "add_one": [
        NewDefinition([("x", "int")], "int", {"spark": "x + 1", "duckdb": "x + 1"}),
        NewDefinition([("x", "long")], "long", {"spark": "x + 2", "duckdb": "x + 2"}),
        NewDefinition([("x", "double")], "double", {"spark": "x + 1.5"}),  # translated for DuckDB
        NewDefinition(
            [("x", "decimal(10,2)")], "decimal(11,2)", {"spark": "x + 1"}, on_null_input="return-null"
        ),
    ],
    "label": [
        NewDefinition(
            [("s", "string"), ("n", "int")],
            "string",
            {
                "spark": "concat(coalesce(s, '∅'), ':', CAST(n AS STRING))",
                "duckdb": "coalesce(s, '∅') || ':' || CAST(n AS VARCHAR)",
            },
        )
    ],
    "safe_ratio": [
        NewDefinition(
            [("a", "double"), ("b", "double")],
            "double",
            {"spark": "a / NULLIF(b, 0)"},
            on_null_input="return-null",
        )
    ],
    "by_color": [
        NewDefinition(
            [("c", "string")],
            STRUCT_ID_S,
            {
                "spark": "SELECT id, s FROM edge WHERE color = c",
                "duckdb": "SELECT id, s FROM edge WHERE color = c",
            },
            function_type="udtf",
        )
    ],
    # table functions with a body in one dialect only: the other engine translates it (the Spark
    # one after inlining the scalar call in it, in Spark SQL)
    "by_color_plus": [
        NewDefinition(
            [("c", "string"), ("n", "int")],
            {
                "type": "struct",
                "fields": [
                    {"name": "id", "type": "long"},
                    {"name": "d1", "type": "decimal(11,2)"},
                    {"name": "lab", "type": "string"},
                ],
            },
            {"spark": "SELECT id, d + 1 AS d1, label(s, n) AS lab FROM edge WHERE color = c"},
            function_type="udtf",
        )
    ],
    "ids_from": [
        NewDefinition(
            [("lo", "long")],
            STRUCT_ID_S,
            {"duckdb": "SELECT id, coalesce(s, '∅') || '!' AS s FROM edge WHERE id >= lo"},
            function_type="udtf",
        )
    ],
}


def _schema(*fields: tuple[str, Any]) -> Schema:
    return Schema(*(NestedField(i + 1, n, t, required=False) for i, (n, t) in enumerate(fields)))


TABLES_SQL = (
    "SELECT p.id, p.d1, p.lab, q.s FROM by_color_plus('red', 7) AS p JOIN ids_from(0) AS q ON p.id = q.id"
)
# name -> (schema, {dialect: SQL}); one-part calls resolve in the view's namespace (fn), as
# Iceberg-Spark qualifies a view's functions
CALLS_SQL = (
    "SELECT id, add_one(i) AS i1, add_one(l) AS l1, fn.add_one(1.25) AS w, label(s, i) AS lab FROM edge"
)
VIEWS: dict[str, tuple[Schema, dict[str, str]]] = {
    # SQL for both engines: each inlines the bodies of its own dialect
    "v_calls": (
        _schema(
            ("id", LongType()),
            ("i1", IntegerType()),
            ("l1", LongType()),
            ("w", DecimalType(11, 2)),
            ("lab", StringType()),
        ),
        {"spark": CALLS_SQL, "duckdb": CALLS_SQL},
    ),
    # Spark SQL only: DuckDB inlines the Spark bodies, then translates the whole query
    "v_translated": (
        _schema(("id", LongType()), ("x1", DoubleType()), ("d1", DecimalType(11, 2)), ("r", DoubleType())),
        {"spark": "SELECT id, add_one(x) AS x1, add_one(d) AS d1, safe_ratio(x, i) AS r FROM edge"},
    ),
    # a table function, with a NULL-free and a NULL color
    "v_table": (
        _schema(("id", LongType()), ("s", StringType())),
        {
            "spark": "SELECT b.id, b.s FROM by_color('red') AS b",
            "duckdb": "SELECT b.id, b.s FROM by_color('red') AS b",
        },
    ),
    # table function bodies each engine translates from the other's dialect
    "v_table_translated": (
        _schema(("id", LongType()), ("d1", DecimalType(11, 2)), ("lab", StringType()), ("s", StringType())),
        {
            "spark": TABLES_SQL,
            "duckdb": TABLES_SQL,
        },
    ),
}


def _add_one_double(x: float | None) -> float | None:
    return None if x is None else x + 1.5


def _ratio(a: float | None, b: int | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


EXPECTED: dict[str, list[tuple[Any, ...]]] = {
    "v_calls": [
        (
            rid,
            None if i is None else i + 1,
            None if big is None else big + 2,
            D("2.25"),
            None if i is None else f"{'∅' if s is None else s}:{i}",
        )
        for rid, i, big, _, _, s, _, _ in EDGE_ROWS
    ],
    "v_translated": [
        (rid, _add_one_double(x), None if d is None else d + 1, _ratio(x, i))
        for rid, i, _, x, d, _, _, _ in EDGE_ROWS
    ],
    "v_table": [(rid, s) for rid, _, _, _, _, s, _, color in EDGE_ROWS if color == "red"],
    "v_table_translated": [
        (rid, d + 1, f"{'∅' if s is None else s}:7", f"{'∅' if s is None else s}!")
        for rid, _, _, _, d, s, _, color in EDGE_ROWS
        if color == "red"
    ],
}


def normalise(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows comparable across engines: sorted by id, NaN as a string, decimals exact."""

    def value(v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        return v

    return sorted((tuple(value(v) for v in row) for row in rows), key=lambda r: (r[0] is None, r[0]))


def create_functions(catalog: Any, namespace: str = NS) -> None:
    for name, definitions in FUNCTIONS.items():
        catalog.create_function((namespace, name), definitions)


def create_views(catalog: Any, namespace: str = NS) -> None:
    for name, (schema, queries) in VIEWS.items():
        catalog.create_view((namespace, name), schema=schema, queries=queries, default_namespace=(namespace,))


def sqlite_lake(base: Any) -> Any:
    """A SQLite catalog ``lake`` in the folder ``base`` holding namespace :data:`NS`, the edge
    table (written by PyIceberg), the functions and the views."""
    import pyarrow as pa

    from iceview.catalog.sql import SqlCatalog

    catalog = SqlCatalog("lake", uri=f"sqlite:///{base}/c.db", warehouse=f"file://{base}/wh")
    catalog.create_namespace(NS)
    tables = catalog.table_catalog()
    table = tables.create_table((NS, "edge"), schema=EDGE_SCHEMA)
    columns = list(zip(*EDGE_ROWS, strict=True))
    arrow_schema = table.schema().as_arrow()
    table.append(
        pa.table(
            {f.name: pa.array(list(columns[k]), f.type) for k, f in enumerate(arrow_schema)},
            schema=arrow_schema,
        )
    )
    tables.engine.dispose()
    create_functions(catalog)
    create_views(catalog)
    return catalog
