"""Rows compared by type, shared by the differential suites (``test_edge.py``, ``test_edge_duckdb.py``,
``test_directions.py``, ``generated/``).

A view's rows are compared the way a reader sees them: the other engine's result is cast to the
types of the source's result (the view's schema), then decimals compare as decimals at that scale,
doubles exactly with NaN equal to NaN (``-0.0 == 0.0``, as Python compares them), timestamps with a
zone as instants to the microsecond, arrays in order, structs by their values, maps as sets of
entries.
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from typing import Any

from sqlglot import exp

# --------------------------------------------------------------------------------------------------
# the view's types: a Spark result's types in DuckDB, a DuckDB result's types in Spark


class SparkNotAViewType(Exception):
    """Spark's result has a type no Iceberg view can store (e.g. an interval): Spark cannot create
    the view, so there is nothing to compare."""


def spark_type_to_duckdb(t: Any) -> str:
    """DuckDB's name for the view column that stores a Spark result column of type ``t``."""
    from pyspark.sql import types as T

    simple = {
        T.BooleanType: "BOOLEAN",
        T.ByteType: "TINYINT",
        T.ShortType: "SMALLINT",
        T.IntegerType: "INTEGER",
        T.LongType: "BIGINT",
        T.FloatType: "FLOAT",
        T.DoubleType: "DOUBLE",
        T.StringType: "VARCHAR",
        T.DateType: "DATE",
        T.TimestampNTZType: "TIMESTAMP",
        T.TimestampType: "TIMESTAMPTZ",
        T.BinaryType: "BLOB",
    }
    if isinstance(t, T.DecimalType):
        return f"DECIMAL({t.precision}, {t.scale})"
    if isinstance(t, T.ArrayType):
        return f"{spark_type_to_duckdb(t.elementType)}[]"
    if isinstance(t, T.StructType):
        return "STRUCT(" + ", ".join(f'"{f.name}" {spark_type_to_duckdb(f.dataType)}' for f in t.fields) + ")"
    if isinstance(t, T.MapType):
        return f"MAP({spark_type_to_duckdb(t.keyType)}, {spark_type_to_duckdb(t.valueType)})"
    for cls, name in simple.items():
        if type(t) is cls:
            return name
    raise SparkNotAViewType(f"no Iceberg type for Spark's {t}")


_T = exp.DataType.Type
_SIMPLE = {
    _T.BOOLEAN: "BOOLEAN",
    _T.TINYINT: "INT",
    _T.SMALLINT: "INT",
    _T.INT: "INT",
    _T.BIGINT: "BIGINT",
    _T.INT128: "DECIMAL(38, 0)",
    _T.FLOAT: "FLOAT",
    _T.DOUBLE: "DOUBLE",
    _T.VARCHAR: "STRING",
    _T.TEXT: "STRING",
    _T.DATE: "DATE",
    _T.TIMESTAMP: "TIMESTAMP_NTZ",
    _T.TIMESTAMPNTZ: "TIMESTAMP_NTZ",  # how sqlglot reads DuckDB's TIMESTAMP
    _T.TIMESTAMPTZ: "TIMESTAMP",
    _T.BLOB: "BINARY",
    _T.VARBINARY: "BINARY",
}


class DuckdbNotAViewType(Exception):
    """DuckDB's result has a type no Iceberg view stores (an interval, an unsigned integer)."""


def spark_type_of(duckdb_type: str) -> str:
    """The Spark type of the view column that stores a DuckDB result column of ``duckdb_type``."""
    return _spark_type(exp.DataType.build(duckdb_type, dialect="duckdb"))


def _spark_type(t: exp.DataType) -> str:
    if t.this in _SIMPLE:
        return _SIMPLE[t.this]
    if t.this == _T.DECIMAL:
        p, s = (int(x.name) for x in t.expressions) if t.expressions else (18, 3)
        return f"DECIMAL({p}, {s})"
    if t.this == _T.ARRAY:
        return f"ARRAY<{_spark_type(t.expressions[0])}>"
    if t.this == _T.MAP and len(t.expressions) == 2:
        return f"MAP<{_spark_type(t.expressions[0])}, {_spark_type(t.expressions[1])}>"
    if t.this == _T.STRUCT:
        fields = []
        for f in t.expressions:
            assert isinstance(f, exp.ColumnDef), f
            kind = f.args["kind"]
            assert isinstance(kind, exp.DataType)
            fields.append(f"`{f.name}`: {_spark_type(kind)}")
        return "STRUCT<" + ", ".join(fields) + ">"
    raise DuckdbNotAViewType(f"no Iceberg type for DuckDB's {t.sql('duckdb')}")


# --------------------------------------------------------------------------------------------------
# values


def norm(v: Any) -> Any:
    """A value in a form both engines' results share: NaN as a marker, instants in UTC, structs and
    arrays as tuples, maps (a Spark ``dict``, or DuckDB's list of key-value pairs read through
    :func:`map_entries`) as sorted entries."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, bytearray):  # Spark's BINARY; DuckDB's BLOB is bytes
        return bytes(v)
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(v, MapEntries):
        return MapEntries(sorted(((norm(k), norm(x)) for k, x in v), key=repr))
    if isinstance(v, dict):
        return tuple(norm(x) for x in v.values())
    if isinstance(v, (list, tuple)):  # arrays in order; a Spark Row is a tuple
        return tuple(norm(x) for x in v)
    return v


class MapEntries(tuple):  # type: ignore[type-arg]
    """A map's entries (compared as a set: :func:`norm` sorts them)."""


def map_entries(v: Any, map_columns: frozenset[int], k: int, from_spark: bool) -> Any:
    """Column ``k``'s value with a map made :class:`MapEntries` (Spark gives a ``dict``, DuckDB's
    Arrow result a list of ``(key, value)`` pairs)."""
    if k not in map_columns or v is None:
        return v
    return MapEntries(v.items() if from_spark else v)


def key(row: tuple[Any, ...]) -> str:
    """A sort key under which rows :func:`same` calls equal sort alike (``-0.0`` and ``0.0``,
    ``Decimal('1E-10')`` and ``Decimal('1.00E-10')`` have one key)."""
    return repr(_canonical(row))


def _canonical(v: Any) -> Any:
    if isinstance(v, Decimal):
        return ("decimal", str(v.normalize() if v != 0 else Decimal(0)))
    if isinstance(v, float) and v == 0:
        return 0.0
    if isinstance(v, tuple):
        return tuple(_canonical(x) for x in v)
    return v


def same(a: Any, b: Any) -> bool:
    if isinstance(a, Decimal) and isinstance(b, Decimal):  # both at the scale of the view's type
        return a == b
    if isinstance(a, float) and isinstance(b, float):
        return a == b
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def rows_differ(
    a_rows: list[tuple[Any, ...]], b_rows: list[tuple[Any, ...]], ordered: bool
) -> tuple[Any, Any] | None:
    """None when the rows are equal (in order when ``ordered``, else as multisets); else the first
    pair of rows that differ (or the two row counts)."""
    a = [tuple(norm(v) for v in r) for r in a_rows]
    b = [tuple(norm(v) for v in r) for r in b_rows]
    if not ordered:
        a.sort(key=key)
        b.sort(key=key)
    if len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True)):
        return None
    return next(((x, y) for x, y in zip(a, b, strict=False) if not same(x, y)), (len(a), len(b)))
