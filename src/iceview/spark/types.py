"""Spark types as Iceberg types and back, as Iceberg-Spark converts them.

:func:`to_iceberg_schema` is Iceberg's ``SparkSchemaUtil.convert(StructType)`` (``SparkTypeToType``):

* the top-level fields get the ids ``0 .. n-1`` (their ordinals);
* nested fields, list elements and map keys/values get the ids after that, in the visitor's
  post-order: a struct's fields are numbered when the struct is left, after everything inside them,
  and a list's element (or a map's key and value) after the element (or value) type;
* ``nullable`` becomes optional, otherwise required; a ``comment`` in the field metadata becomes the
  ``doc``;
* ``timestamp`` → ``timestamptz``, ``timestamp_ntz`` → ``timestamp``, ``byte``/``short``/``int`` →
  ``int``, ``char``/``varchar``/``string`` → ``string``; intervals, ``null``, variants and
  user-defined types are refused, as Iceberg does (``Not a supported type: ...``).

:func:`spark_type` is the reverse direction, Iceberg's ``TypeToSparkType``, and
:func:`spark_simple_string` its ``DataType.simpleString`` (what ``DESCRIBE`` prints).
"""

from __future__ import annotations

from collections.abc import Sequence

from pyiceberg.schema import Schema
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
    TimestampType,
    TimestamptzType,
    UUIDType,
)
from pyspark.sql import types as st

from iceview.spark.errors import SparkViewsUnsupportedOperationError

__all__ = [
    "MAX_TO_STRING_FIELDS",
    "spark_simple_string",
    "spark_type",
    "to_iceberg_schema",
    "to_iceberg_type",
]

MAX_TO_STRING_FIELDS = 25
"""Spark's ``spark.sql.debug.maxToStringFields`` default: wider structs are abbreviated."""


class _Converter:
    def __init__(self, root: st.StructType) -> None:
        self.root = root
        self.next_id = len(root.fields)

    def new_id(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def visit(self, t: st.DataType) -> IcebergType:
        if isinstance(t, st.StructType):
            types = [self.visit(f.dataType) for f in t.fields]
            return self.struct(t, types)
        if isinstance(t, st.MapType):
            key = self.visit(t.keyType)
            value = self.visit(t.valueType)
            key_id, value_id = self.new_id(), self.new_id()
            return MapType(key_id, key, value_id, value, value_required=not t.valueContainsNull)
        if isinstance(t, st.ArrayType):
            element = self.visit(t.elementType)
            return ListType(self.new_id(), element, element_required=not t.containsNull)
        if isinstance(t, st.UserDefinedType):
            raise SparkViewsUnsupportedOperationError("User-defined types are not supported")
        return _atomic(t)

    def struct(self, t: st.StructType, types: Sequence[IcebergType]) -> StructType:
        is_root = t is self.root
        fields = []
        for i, (f, ft) in enumerate(zip(t.fields, types, strict=True)):
            field_id = i if is_root else self.new_id()
            fields.append(NestedField(field_id, f.name, ft, required=not f.nullable, doc=_comment(f)))
        return StructType(*fields)


def _comment(f: st.StructField) -> str | None:
    comment = (f.metadata or {}).get("comment")
    return None if comment is None else str(comment)


def _atomic(t: st.DataType) -> IcebergType:
    if isinstance(t, st.BooleanType):
        return BooleanType()
    if isinstance(t, (st.IntegerType, st.ShortType, st.ByteType)):
        return IntegerType()
    if isinstance(t, st.LongType):
        return LongType()
    if isinstance(t, st.FloatType):
        return FloatType()
    if isinstance(t, st.DoubleType):
        return DoubleType()
    if isinstance(t, (st.StringType, st.CharType, st.VarcharType)):
        return StringType()
    if isinstance(t, st.DateType):
        return DateType()
    if isinstance(t, st.TimestampNTZType):
        return TimestampType()
    if isinstance(t, st.TimestampType):
        return TimestamptzType()
    if isinstance(t, st.DecimalType):
        return DecimalType(t.precision, t.scale)
    if isinstance(t, st.BinaryType):
        return BinaryType()
    raise SparkViewsUnsupportedOperationError(f"Not a supported type: {_catalog_string(t)}")


def _catalog_string(t: st.DataType) -> str:
    try:
        return str(t.simpleString())
    except Exception:  # pragma: no cover - every PySpark type has simpleString
        return str(t)


def to_iceberg_type(t: st.DataType) -> IcebergType:
    """One Spark type as an Iceberg type; nested ids start at 1 (use :func:`to_iceberg_schema` for
    a schema)."""
    root = st.StructType([st.StructField("_", t)])
    field = to_iceberg_schema(root).fields[0]
    return field.field_type


def to_iceberg_schema(struct: st.StructType, *, schema_id: int = 0) -> Schema:
    """A Spark schema as an Iceberg schema, ids as Iceberg-Spark assigns them (see module doc)."""
    converter = _Converter(struct)
    converted = converter.visit(struct)
    assert isinstance(converted, StructType)
    return Schema(*converted.fields, schema_id=schema_id)


def _truncated(items: Sequence[str], start: str, sep: str, end: str) -> str:
    """Spark's ``truncatedString`` with ``maxToStringFields`` = 25."""
    if len(items) > MAX_TO_STRING_FIELDS:
        keep = max(0, MAX_TO_STRING_FIELDS - 1)
        return start + sep.join(items[:keep]) + sep + f"... {len(items) - keep} more fields" + end
    return start + sep.join(items) + end


_SIMPLE: dict[type[IcebergType], st.DataType] = {
    BooleanType: st.BooleanType(),
    IntegerType: st.IntegerType(),
    LongType: st.LongType(),
    FloatType: st.FloatType(),
    DoubleType: st.DoubleType(),
    DateType: st.DateType(),
    TimestamptzType: st.TimestampType(),
    TimestampType: st.TimestampNTZType(),
    StringType: st.StringType(),
    UUIDType: st.StringType(),
    FixedType: st.BinaryType(),
    BinaryType: st.BinaryType(),
}


def spark_type(t: IcebergType) -> st.DataType:
    """The Spark type Iceberg-Spark reads an Iceberg type as (``TypeToSparkType``): optional →
    nullable, ``timestamptz`` → ``timestamp``, ``timestamp`` → ``timestamp_ntz``, ``uuid`` →
    ``string``, ``fixed`` → ``binary``. Raises :class:`SparkViewsUnsupportedOperationError` for
    types Spark has no counterpart of (``time``, nanosecond timestamps, ...)."""
    if isinstance(t, DecimalType):
        return st.DecimalType(t.precision, t.scale)
    if isinstance(t, StructType):
        return st.StructType(
            [st.StructField(f.name, spark_type(f.field_type), not f.required) for f in t.fields]
        )
    if isinstance(t, ListType):
        return st.ArrayType(spark_type(t.element_type), not t.element_required)
    if isinstance(t, MapType):
        return st.MapType(spark_type(t.key_type), spark_type(t.value_type), not t.value_required)
    simple = _SIMPLE.get(type(t))
    if simple is None:
        raise SparkViewsUnsupportedOperationError(f"Cannot convert unknown type to Spark: {t}")
    return simple


def spark_simple_string(t: IcebergType) -> str:
    """``DataType.simpleString`` of the Spark type Iceberg-Spark reads an Iceberg type as
    (:func:`spark_type`), with Spark's abbreviation of structs wider than 25 fields."""
    return _simple_string(spark_type(t))


def _simple_string(t: st.DataType) -> str:
    if isinstance(t, st.StructType):
        return _truncated([f"{f.name}:{_simple_string(f.dataType)}" for f in t.fields], "struct<", ",", ">")
    if isinstance(t, st.ArrayType):
        return f"array<{_simple_string(t.elementType)}>"
    if isinstance(t, st.MapType):
        return f"map<{_simple_string(t.keyType)},{_simple_string(t.valueType)}>"
    return str(t.simpleString())
