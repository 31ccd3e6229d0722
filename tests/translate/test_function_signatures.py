"""Function arguments keyed by type signature (``iceview.sql.translate.function_signatures``): a
function translates between Spark and DuckDB only for the argument classes the generated queries
ran it with (``tests/translate/generated/test_generated.py`` keeps the table equal to what the
generator draws); any other argument is refused with ``type-signature``, naming the function and
the class."""

from __future__ import annotations

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BinaryType,
    DateType,
    IntegerType,
    ListType,
    MapType,
    NestedField,
    StringType,
    TimestampType,
)

from iceview.sql import UnsafeTranslationError, translate

SCHEMAS = {
    ("cat", "db", "t"): Schema(
        NestedField(1, "i", IntegerType(), required=False),
        NestedField(2, "s", StringType(), required=False),
        NestedField(3, "b", BinaryType(), required=False),
        NestedField(4, "d", DateType(), required=False),
        NestedField(5, "ts", TimestampType(), required=False),
        NestedField(6, "arr", ListType(7, StringType(), element_required=False), required=False),
        NestedField(
            8, "m", MapType(9, StringType(), 10, IntegerType(), value_required=False), required=False
        ),
    )
}


def translated(sql: str, source: str = "spark", target: str = "duckdb", schemas: object = SCHEMAS) -> str:
    return translate(
        sql, source, target, default_catalog="cat", default_namespace=["db"], schemas=schemas
    ).sql  # type: ignore[arg-type]


def refusal(sql: str, source: str = "spark", target: str = "duckdb") -> UnsafeTranslationError:
    with pytest.raises(UnsafeTranslationError) as e:
        translated(sql, source, target)
    return e.value


@pytest.mark.parametrize(
    ("sql", "source", "fragment"),
    [
        ("SELECT last_day(i) FROM t", "spark", "LastDay(this: int)"),
        ("SELECT sqrt(d) FROM t", "spark", "Sqrt(this: date)"),
        ("SELECT round(ts) FROM t", "spark", "Round(this: timestamp_ntz)"),
        ("SELECT count(DISTINCT arr) FROM t", "spark", "Count(this: ARRAY<STRING>)"),
        ("SELECT first_value(m) OVER (ORDER BY i) FROM t", "spark", "FirstValue(this: MAP<STRING, INT>)"),
        ("SELECT repeat(s, i) FROM t", "spark", "Repeat(times: int)"),
        ("SELECT lag(i, i) OVER (ORDER BY i) FROM t", "spark", "Lag(offset: int)"),
        ("SELECT ntile(i) OVER (ORDER BY i) FROM t", "spark", "Ntile(this: int)"),
        ("SELECT add_months(d, i) FROM t", "spark", "AddMonths(expression: int)"),
        ("SELECT abs(d) FROM t", "duckdb", "Abs(this: date)"),
        ("SELECT sqrt(ts - ts) FROM t", "duckdb", "Sqrt(this: unknown)"),
        ("SELECT trim(BOTH 'x' FROM s) FROM t", "spark", "Trim with an argument 'expression'"),
    ],
)
def test_arguments_of_classes_never_run_are_refused(sql: str, source: str, fragment: str) -> None:
    target = "duckdb" if source == "spark" else "spark"
    e = refusal(sql, source, target)
    assert "type-signature" in e.codes, str(e)
    assert fragment in str(e)
    assert "not a proven signature" in str(e)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT length(s), substr(s, 2, 3), lpad(s, 3, '*') FROM t",
        "SELECT year(d), month(ts), last_day(d), datediff(d, d) FROM t",
        "SELECT count(*), count(DISTINCT s), count(i), min(i), max(d) FROM t",
        "SELECT array_contains(arr, s), length(concat_ws('-', s, s)) FROM t",
        "SELECT coalesce(i, NULL), greatest(i, 2), if(i > 1, s, NULL) FROM t",
        "SELECT row_number() OVER (ORDER BY i), lag(i, 1, 0) OVER (ORDER BY i) FROM t",
    ],
)
def test_proven_signatures_translate(sql: str) -> None:
    assert translated(sql).startswith("SELECT")


def test_without_schemas_a_site_that_needs_a_columns_type_is_refused() -> None:
    """Without the tables' schemas a column's class is unknown, so a site whose meaning depends on
    it is not proven: refused (a decimal divided or compared differs from a double; an unknown
    type is proven for nothing). What needs no type still translates."""
    for sql in (
        "SELECT length(x), substr(y, 1, 2) FROM t",
        "SELECT x / 3 FROM t",
        "SELECT x + 1 FROM t",
        "SELECT x = 1.5 FROM t",
        "SELECT abs(DATE '2024-01-01') FROM t",
    ):
        with pytest.raises(UnsafeTranslationError) as e:
            translated(sql, schemas=None)
        assert "type-signature" in e.value.codes, sql
    assert translated("SELECT x, y FROM t WHERE x IS NULL", schemas=None).startswith("SELECT")


def test_other_directions_are_not_gated() -> None:
    """Trino's directions are proven by their own suites, not by the generated queries yet."""
    assert translated("SELECT length(b) FROM t", "spark", "trino").startswith("SELECT")
