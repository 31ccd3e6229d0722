"""iceview.sql.types: Iceberg types as Spark and DuckDB type names."""

from __future__ import annotations

import pytest
import sqlglot
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UnknownType,
    UUIDType,
)

from iceview.errors import TranslationError
from iceview.sql import duckdb_type_name, spark_type_name, type_namer

NESTED = StructType(
    NestedField(1, "a b", LongType()),
    NestedField(2, "tags", ListType(3, StringType())),
    NestedField(4, "m", MapType(5, StringType(), 6, DecimalType(10, 2))),
)

CASES: list[tuple[IcebergType, str, str]] = [
    (BooleanType(), "BOOLEAN", "BOOLEAN"),
    (IntegerType(), "INT", "INTEGER"),
    (LongType(), "BIGINT", "BIGINT"),
    (FloatType(), "FLOAT", "FLOAT"),
    (DoubleType(), "DOUBLE", "DOUBLE"),
    (DecimalType(38, 10), "DECIMAL(38, 10)", "DECIMAL(38, 10)"),
    (DateType(), "DATE", "DATE"),
    (TimestampType(), "TIMESTAMP_NTZ", "TIMESTAMP"),
    (TimestamptzType(), "TIMESTAMP", "TIMESTAMPTZ"),
    (TimestampNanoType(), "TIMESTAMP_NTZ", "TIMESTAMP_NS"),
    (StringType(), "STRING", "VARCHAR"),
    (UUIDType(), "STRING", "UUID"),
    (FixedType(16), "BINARY", "BLOB"),
    (BinaryType(), "BINARY", "BLOB"),
    (ListType(1, IntegerType()), "ARRAY<INT>", "INTEGER[]"),
    (MapType(1, StringType(), 2, LongType()), "MAP<STRING, BIGINT>", "MAP(VARCHAR, BIGINT)"),
    (
        NESTED,
        "STRUCT<`a b`: BIGINT, `tags`: ARRAY<STRING>, `m`: MAP<STRING, DECIMAL(10, 2)>>",
        'STRUCT("a b" BIGINT, "tags" VARCHAR[], "m" MAP(VARCHAR, DECIMAL(10, 2)))',
    ),
]


@pytest.mark.parametrize(("t", "spark", "duck"), CASES)
def test_type_names(t: IcebergType, spark: str, duck: str) -> None:
    assert spark_type_name(t) == spark
    assert duckdb_type_name(t) == duck
    assert type_namer("spark")(t) == spark
    assert type_namer("DuckDB")(t) == duck
    # sqlglot reads the cast in each dialect
    sqlglot.parse_one(f"SELECT CAST(x AS {spark})", read="spark")
    sqlglot.parse_one(f"SELECT CAST(x AS {duck})", read="duckdb")


def test_duckdb_casts_execute() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    for t, _, duck in CASES:
        if isinstance(t, FixedType | BinaryType):
            value = "'\\xAA'::BLOB"
        elif isinstance(t, StructType):
            value = "{'a b': 1, 'tags': ['x'], 'm': MAP {'k': 1.5}}"
        else:
            value = "NULL"
        con.execute(f"SELECT CAST({value} AS {duck})")


def test_unsupported() -> None:
    with pytest.raises(TranslationError, match="Spark does not support the Iceberg type time"):
        spark_type_name(TimeType())
    assert duckdb_type_name(TimeType()) == "TIME"
    with pytest.raises(TranslationError):
        duckdb_type_name(UnknownType())
    with pytest.raises(TranslationError, match="pass type_name="):
        type_namer("postgres")
    assert type_namer("trino")(TimeType()) == "TIME(6)"
