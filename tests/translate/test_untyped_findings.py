"""What a blind check of translation without schemas found (and, for some, with them): each is
refused by name now. ``+s`` was dropped (Spark casts a string under a unary + to a DOUBLE);
``i IS TRUE`` of an integer matched other rows in DuckDB; ``*`` over a USING or NATURAL join came out
in another column order from DuckDB; and what Spark or DuckDB cannot parse (``* EXCLUDE``,
``WITH ROLLUP``, ``LIKE`` of a number) failed in the target instead of being refused."""

from __future__ import annotations

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import DoubleType, IntegerType, NestedField, StringType

from iceview.sql import UnsafeTranslationError, translate

CAT = "spark_catalog"
SCHEMAS = {
    (CAT, "db", "k"): Schema(
        NestedField(1, "key", IntegerType()),
        NestedField(2, "v", DoubleType()),
        NestedField(3, "d", DoubleType()),
    ),
    (CAT, "db", "n"): Schema(
        NestedField(1, "d", DoubleType()),
        NestedField(2, "s", StringType()),
        NestedField(3, "i", IntegerType()),
    ),
}

# (source, sql, code, refused with the schemas known too)
CASES = [
    ("spark", "SELECT +s AS x FROM n", "unary-plus", True),
    ("spark", "SELECT +'10' AS x FROM n", "unary-plus", True),
    ("duckdb", "SELECT i, -+i AS x FROM n", "unary-plus", True),
    ("spark", "SELECT i FROM n WHERE i IS TRUE", "boolean-context", True),
    ("duckdb", "SELECT i FROM n WHERE i IS NOT FALSE", "boolean-context", True),
    ("spark", "SELECT d FROM n WHERE d LIKE '1.5%'", "cast-semantics", True),
    ("duckdb", "SELECT * FROM k NATURAL JOIN n", "star-using", True),
    ("duckdb", "SELECT * FROM k JOIN n USING (d)", "star-using", True),
    ("spark", "SELECT * FROM k JOIN n USING (d)", "star-using", False),  # expanded in Spark's order
    ("duckdb", "SELECT * EXCLUDE (s) FROM n", "star-modifier", False),  # expanded with the schemas
    ("duckdb", "SELECT * REPLACE (1 AS i) FROM n", "star-modifier", False),
    ("spark", "SELECT s, count(*) AS c FROM n GROUP BY s WITH ROLLUP", "does-not-parse", False),
]


@pytest.mark.parametrize(("source", "sql", "code", "typed_too"), CASES)
def test_refused_by_name(source: str, sql: str, code: str, typed_too: bool) -> None:
    target = "duckdb" if source == "spark" else "spark"
    for schemas in (None, SCHEMAS) if typed_too else (None,):
        with pytest.raises(UnsafeTranslationError) as e:
            translate(sql, source, target, default_catalog=CAT, default_namespace=["db"], schemas=schemas)
        assert code in e.value.codes, (schemas is not None, e.value.codes)


def test_what_is_not_a_sign_or_a_type_question_still_translates() -> None:
    for source, sql in (
        ("spark", "SELECT i + 1 AS x, s FROM n WHERE s LIKE 'a%' AND (i + 2) > 0"),
        ("spark", "SELECT COALESCE(k.d, n.d) AS d, key FROM k JOIN n USING (d)"),
        ("duckdb", "SELECT i FROM n WHERE (i > 0) IS TRUE"),
    ):
        target = "duckdb" if source == "spark" else "spark"
        translate(
            sql,
            source,
            target,
            default_catalog=CAT,
            default_namespace=["db"],
            schemas=SCHEMAS,
            spark_ansi=True,
        )
