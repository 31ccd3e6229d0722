"""SparkViews reads views that have no ``spark`` SQL by translating them safely, by default, with
the schemas from the catalog (``translate=True``); ``translate=False`` turns that off, and a hook
(``translate=iceview.sql.translation_hook(...)``) replaces it.

The views live in ``sv.optin`` of the shared lake (PostgreSQL catalog, Iceberg-Spark 1.10.2 in this
process's Spark session) and read ``sv.db.events`` (ids 1..5); they are written as Trino or DuckDB
would have written them, with that dialect's SQL only. Rows read through the translation must equal
Spark's own rows for the same query over the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from conftest import CATALOG, Lake
from iceview.errors import TranslationError, ViewTranslationRefusedError
from iceview.spark import SparkViews
from iceview.sql import Translation, UnsafeTranslationError, translation_hook

pytestmark = [pytest.mark.java, pytest.mark.postgres]

NS = "optin"


def _schema(*names: str) -> Schema:
    return Schema(*(NestedField(i + 1, name, LongType(), required=False) for i, name in enumerate(names)))


# name -> (dialect, SQL in that dialect, column names, the same query in Spark SQL over the table)
VIEWS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "trino_totals": (
        "trino",
        "SELECT count(*) AS n, max(id) AS top, min(id) AS low FROM events WHERE id > 1",
        ("n", "top", "low"),
        "SELECT count(*), max(id), min(id) FROM sv.db.events WHERE id > 1",
    ),
    "trino_scaled": (
        "trino",
        'SELECT id, CASE WHEN id > 2 THEN id ELSE 0 END AS scaled FROM "sv"."db"."events" WHERE id BETWEEN 2 AND 4',
        ("id", "scaled"),
        "SELECT id, CASE WHEN id > 2 THEN id ELSE 0 END FROM sv.db.events WHERE id BETWEEN 2 AND 4",
    ),
    "duckdb_parity": (
        "duckdb",
        "SELECT id % 2 AS parity, count(*) AS n FROM events GROUP BY id % 2",
        ("parity", "n"),
        "SELECT id % 2, count(*) FROM sv.db.events GROUP BY id % 2",
    ),
    "trino_sum": (  # refused into legacy Spark: Trino raises on BIGINT overflow, Spark wraps around
        "trino",
        "SELECT sum(id) AS total FROM events",
        ("total",),
        "SELECT sum(id) FROM sv.db.events",
    ),
    "trino_approx": (  # refused: approximate aggregates differ between engines
        "trino",
        "SELECT approx_distinct(id) AS n FROM events",
        ("n",),
        "SELECT count(DISTINCT id) FROM sv.db.events",
    ),
}


def rows(frame: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in frame.collect())


@pytest.fixture(scope="module")
def optin(lake: Lake) -> Iterator[Lake]:
    catalog = lake.catalog
    catalog.create_namespace(NS)
    for name, (dialect, sql, columns, _) in VIEWS.items():
        catalog.create_view(
            (NS, name), schema=_schema(*columns), queries={dialect: sql}, default_namespace=("db",)
        )
    # a Spark view over a Trino-only view: translation happens inside the expansion
    catalog.create_view(
        (NS, "spark_over_trino"),
        schema=_schema("doubled"),
        queries={"spark": f"SELECT n * 2 AS doubled FROM {NS}.trino_totals"},
        default_namespace=("db",),
    )
    # a view with both: Spark's SQL is used, nothing is translated
    catalog.create_view(
        (NS, "both"),
        schema=_schema("id"),
        queries={
            "trino": "SELECT id FROM events WHERE id = 1",
            "spark": "SELECT id FROM events WHERE id = 2",
        },
        default_namespace=("db",),
    )
    try:
        yield lake
    finally:
        for name in [*VIEWS, "spark_over_trino", "both"]:
            catalog.drop_view((NS, name))
        catalog.drop_namespace(NS)


def typed_hook(lake: Lake, **kwargs: Any) -> Callable[[str, str, str], str]:
    """A translation hook that knows the schema of ``sv.db.events`` (the expander hands it the
    view's SQL fully qualified), so type-aware rules can decide."""
    tables = lake.catalog.table_catalog()
    schema = tables.load_table(("db", "events")).schema()
    return translation_hook(schemas={(CATALOG, "db", "events"): schema}, **kwargs)


def counting(
    hook: Callable[[str, str, str], str], calls: list[tuple[str, str]]
) -> Callable[[str, str, str], str]:
    def spy(sql: str, source: str, target: str) -> str:
        calls.append((source, target))
        return hook(sql, source, target)

    return spy


@pytest.mark.parametrize("name", ["trino_totals", "trino_scaled", "duckdb_parity"])
def test_opt_in_reads_the_view_with_the_right_rows(optin: Lake, name: str) -> None:
    dialect, _, columns, spark_sql = VIEWS[name]
    calls: list[tuple[str, str]] = []
    views = SparkViews(optin.spark, optin.catalog, translate=counting(typed_hook(optin), calls))
    frame = views.sql(f"SELECT * FROM {CATALOG}.{NS}.{name}")
    assert list(frame.columns) == list(columns)
    assert rows(frame) == rows(optin.spark.sql(spark_sql))
    assert calls == [(dialect, "spark")]


def test_by_default_views_are_translated_with_the_catalog_s_schemas(optin: Lake) -> None:
    for name in ("trino_totals", "trino_scaled", "duckdb_parity"):
        _, _, columns, spark_sql = VIEWS[name]
        frame = optin.views.sql(f"SELECT * FROM {CATALOG}.{NS}.{name}")
        assert list(frame.columns) == list(columns)
        assert rows(frame) == rows(optin.spark.sql(spark_sql))
    # nested: a Spark view over a Trino-only one
    assert rows(optin.views.sql(f"SELECT * FROM {CATALOG}.{NS}.spark_over_trino")) == [(8,)]
    # refused: the message names the view, its dialects and the construct
    with pytest.raises(ViewTranslationRefusedError) as caught:
        optin.views.sql(f"SELECT * FROM {CATALOG}.{NS}.trino_approx")
    assert caught.value.codes == ("approximate",)
    assert str(caught.value).startswith(
        f"View {CATALOG}.{NS}.trino_approx has no SQL for dialect spark (its dialects: trino); "
        "translating its trino SQL was refused: Cannot translate trino SQL to spark: "
    )
    assert "[approximate]" in str(caught.value)


def test_translate_false_names_the_view_s_dialects(optin: Lake) -> None:
    off = SparkViews(optin.spark, optin.catalog, translate=False)
    for name, (dialect, *_) in VIEWS.items():
        with pytest.raises(TranslationError) as caught:
            off.sql(f"SELECT * FROM {CATALOG}.{NS}.{name}")
        assert str(caught.value) == (
            f"View {CATALOG}.{NS}.{name} has no SQL for dialect spark (its dialects: {dialect}); "
            "reading it by translation is turned off (translate=False)"
        )
    with pytest.raises(
        TranslationError, match=r"trino_totals has no SQL for dialect spark \(its dialects: trino\)"
    ):
        off.sql(f"SELECT * FROM {CATALOG}.{NS}.spark_over_trino")  # a nested view, too


def test_opt_in_translates_a_nested_view(optin: Lake) -> None:
    views = SparkViews(optin.spark, optin.catalog, translate=typed_hook(optin))
    assert rows(views.sql(f"SELECT * FROM {CATALOG}.{NS}.spark_over_trino")) == [(8,)]  # 2 * count(id > 1)


def test_what_depends_on_types_or_overflow_is_refused(optin: Lake) -> None:
    untyped = SparkViews(optin.spark, optin.catalog, translate=translation_hook())
    with pytest.raises(UnsafeTranslationError) as caught:  # max of an unknown type: NaN ordering
        untyped.sql(f"SELECT * FROM {CATALOG}.{NS}.trino_totals")
    assert set(caught.value.codes) == {"nan-ordering"}  # max and min
    typed = SparkViews(optin.spark, optin.catalog, translate=typed_hook(optin))
    with pytest.raises(UnsafeTranslationError) as caught:
        typed.sql(f"SELECT * FROM {CATALOG}.{NS}.trino_sum")
    assert caught.value.codes == ("integer-overflow",)


def test_spark_sql_is_used_when_there_is_some(optin: Lake) -> None:
    calls: list[tuple[str, str]] = []
    views = SparkViews(optin.spark, optin.catalog, translate=counting(translation_hook(), calls))
    assert rows(views.sql(f"SELECT * FROM {CATALOG}.{NS}.both")) == [(2,)]
    assert calls == []


def test_opt_in_is_strict_unless_asked_otherwise(optin: Lake) -> None:
    views = SparkViews(optin.spark, optin.catalog, translate=translation_hook())
    with pytest.raises(UnsafeTranslationError) as caught:
        views.sql(f"SELECT * FROM {CATALOG}.{NS}.trino_approx")
    assert caught.value.codes == ("approximate",)
    seen: list[Translation] = []
    lenient = SparkViews(
        optin.spark, optin.catalog, translate=translation_hook(strict=False, on_warning=seen.append)
    )
    [(n,)] = rows(lenient.sql(f"SELECT * FROM {CATALOG}.{NS}.trino_approx"))
    assert n == 5  # approx_count_distinct of 5 ids is exact at this size
    assert [w.code for t in seen for w in t.warnings] == ["approximate"]
