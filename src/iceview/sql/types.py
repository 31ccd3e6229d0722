"""Iceberg types rendered as the type names of an engine's SQL, for ``CAST(x AS <type>)``.

A *type namer* is any ``Callable[[IcebergType], str]``. Two are built in:

=====================  ==========================  =============================
Iceberg                Spark (3.4+)                DuckDB
=====================  ==========================  =============================
boolean                BOOLEAN                     BOOLEAN
int                    INT                         INTEGER
long                   BIGINT                      BIGINT
float                  FLOAT                       FLOAT
double                 DOUBLE                      DOUBLE
decimal(p, s)          DECIMAL(p, s)               DECIMAL(p, s)
date                   DATE                        DATE
time                   (not supported by Spark)    TIME
timestamp              TIMESTAMP_NTZ               TIMESTAMP
timestamptz            TIMESTAMP                   TIMESTAMPTZ
timestamp_ns           TIMESTAMP_NTZ               TIMESTAMP_NS
timestamptz_ns         TIMESTAMP                   TIMESTAMPTZ
string                 STRING                      VARCHAR
uuid                   STRING                      UUID
fixed[n], binary       BINARY                      BLOB
struct<a: T, ...>      STRUCT<`a`: T, ...>         STRUCT("a" T, ...)
list<T>                ARRAY<T>                    T[]
map<K, V>              MAP<K, V>                   MAP(K, V)
=====================  ==========================  =============================

Spark's mapping is Iceberg-Spark's ``TypeToSparkType``. A type the engine cannot express raises
:class:`~iceview.errors.TranslationError`.
"""

from __future__ import annotations

from collections.abc import Callable

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
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

from iceview.errors import TranslationError
from iceview.sql._text import quote_identifier

__all__ = ["TypeNamer", "duckdb_type_name", "spark_type_name", "trino_type_name", "type_namer"]

TypeNamer = Callable[[IcebergType], str]

_SPARK_PRIMITIVES: dict[type[IcebergType], str] = {
    BooleanType: "BOOLEAN",
    IntegerType: "INT",
    LongType: "BIGINT",
    FloatType: "FLOAT",
    DoubleType: "DOUBLE",
    DateType: "DATE",
    TimestampType: "TIMESTAMP_NTZ",
    TimestamptzType: "TIMESTAMP",
    TimestampNanoType: "TIMESTAMP_NTZ",
    TimestamptzNanoType: "TIMESTAMP",
    StringType: "STRING",
    UUIDType: "STRING",
    FixedType: "BINARY",
    BinaryType: "BINARY",
}

_DUCKDB_PRIMITIVES: dict[type[IcebergType], str] = {
    BooleanType: "BOOLEAN",
    IntegerType: "INTEGER",
    LongType: "BIGINT",
    FloatType: "FLOAT",
    DoubleType: "DOUBLE",
    DateType: "DATE",
    TimeType: "TIME",
    TimestampType: "TIMESTAMP",
    TimestamptzType: "TIMESTAMPTZ",
    TimestampNanoType: "TIMESTAMP_NS",
    TimestamptzNanoType: "TIMESTAMPTZ",
    StringType: "VARCHAR",
    UUIDType: "UUID",
    FixedType: "BLOB",
    BinaryType: "BLOB",
}


def spark_type_name(t: IcebergType) -> str:
    """Spark SQL's name for an Iceberg type (Iceberg-Spark's ``TypeToSparkType``)."""
    if isinstance(t, DecimalType):
        return f"DECIMAL({t.precision}, {t.scale})"
    if isinstance(t, StructType):
        fields = ", ".join(
            f"{quote_identifier(f.name, 'spark')}: {spark_type_name(f.field_type)}" for f in t.fields
        )
        return f"STRUCT<{fields}>"
    if isinstance(t, ListType):
        return f"ARRAY<{spark_type_name(t.element_type)}>"
    if isinstance(t, MapType):
        return f"MAP<{spark_type_name(t.key_type)}, {spark_type_name(t.value_type)}>"
    name = _SPARK_PRIMITIVES.get(type(t))
    if name is None:
        raise TranslationError(f"Spark does not support the Iceberg type {t}")
    return name


def duckdb_type_name(t: IcebergType) -> str:
    """DuckDB's name for an Iceberg type."""
    if isinstance(t, DecimalType):
        return f"DECIMAL({t.precision}, {t.scale})"
    if isinstance(t, StructType):
        fields = ", ".join(
            f"{quote_identifier(f.name, 'duckdb')} {duckdb_type_name(f.field_type)}" for f in t.fields
        )
        return f"STRUCT({fields})"
    if isinstance(t, ListType):
        return f"{duckdb_type_name(t.element_type)}[]"
    if isinstance(t, MapType):
        return f"MAP({duckdb_type_name(t.key_type)}, {duckdb_type_name(t.value_type)})"
    name = _DUCKDB_PRIMITIVES.get(type(t))
    if name is None:
        raise TranslationError(f"DuckDB does not support the Iceberg type {t}")
    return name


_TRINO_PRIMITIVES: dict[type[IcebergType], str] = {
    BooleanType: "BOOLEAN",
    IntegerType: "INTEGER",
    LongType: "BIGINT",
    FloatType: "REAL",
    DoubleType: "DOUBLE",
    DateType: "DATE",
    TimeType: "TIME(6)",
    TimestampType: "TIMESTAMP(6)",
    TimestamptzType: "TIMESTAMP(6) WITH TIME ZONE",
    StringType: "VARCHAR",
    UUIDType: "UUID",
    FixedType: "VARBINARY",
    BinaryType: "VARBINARY",
}


def trino_type_name(t: IcebergType) -> str:
    """Trino's type for an Iceberg type (Trino's Iceberg connector, ``TypeConverter``)."""
    if isinstance(t, DecimalType):
        return f"DECIMAL({t.precision}, {t.scale})"
    if isinstance(t, StructType):
        fields = ", ".join(
            '"' + f.name.replace('"', '""') + '" ' + trino_type_name(f.field_type) for f in t.fields
        )
        return f"ROW({fields})"
    if isinstance(t, ListType):
        return f"ARRAY({trino_type_name(t.element_type)})"
    if isinstance(t, MapType):
        return f"MAP({trino_type_name(t.key_type)}, {trino_type_name(t.value_type)})"
    name = _TRINO_PRIMITIVES.get(type(t))
    if name is None:
        raise TranslationError(f"Trino has no type for the Iceberg type {t}")
    return name


_NAMERS: dict[str, TypeNamer] = {
    "spark": spark_type_name,
    "duckdb": duckdb_type_name,
    "trino": trino_type_name,
}


def type_namer(dialect: str) -> TypeNamer:
    """The built-in type namer of a dialect (``spark``, ``duckdb`` or ``trino``); for other
    dialects pass your own."""
    namer = _NAMERS.get(dialect.lower())
    if namer is None:
        raise TranslationError(
            f"No built-in type names for dialect {dialect!r}; pass type_name= (built in: spark, duckdb, trino)"
        )
    return namer
