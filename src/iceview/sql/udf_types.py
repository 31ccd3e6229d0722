"""SQL UDF types between the format and the engines: a UDF type as an Iceberg (PyIceberg) type, for
the engines' type names, and an engine's type (as sqlglot reads it) as a UDF type, for resolving a
call's definition (:func:`iceview.udf.resolve_definition`).

Only what every engine here spells the same way is mapped; anything else is ``None`` (unknown), and
a call whose argument type is unknown is refused rather than guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import count

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
    TimeType,
    UUIDType,
)
from sqlglot import exp
from sqlglot.errors import SqlglotError

from iceview.errors import InvalidArgumentError, TranslationError
from iceview.spec.primitives import DECIMAL, FIXED
from iceview.sql.types import type_namer
from iceview.udf import types as ut

__all__ = ["from_sqlglot", "schema_of", "to_iceberg"]

_T = exp.DataType.Type

_PRIMITIVES: dict[str, IcebergType] = {
    "boolean": BooleanType(),
    "int": IntegerType(),
    "long": LongType(),
    "float": FloatType(),
    "double": DoubleType(),
    "date": DateType(),
    "time": TimeType(),
    "timestamp": TimestampType(),
    "timestamptz": TimestamptzType(),
    "string": StringType(),
    "uuid": UUIDType(),
    "binary": BinaryType(),
}

_FROM_SQLGLOT: dict[exp.DType, str] = {
    _T.BOOLEAN: "boolean",
    _T.TINYINT: "int",
    _T.SMALLINT: "int",
    _T.INT: "int",
    _T.BIGINT: "long",
    _T.FLOAT: "float",
    _T.DOUBLE: "double",
    _T.TEXT: "string",
    _T.VARCHAR: "string",
    _T.NVARCHAR: "string",
    _T.DATE: "date",
    _T.TIMESTAMPNTZ: "timestamp",
    _T.DATETIME: "timestamp",
    _T.TIMESTAMPTZ: "timestamptz",
    _T.TIMESTAMPLTZ: "timestamptz",
    _T.BINARY: "binary",
    _T.VARBINARY: "binary",
    _T.BLOB: "binary",
    _T.UUID: "uuid",
}


def to_iceberg(t: ut.DataType) -> IcebergType:
    """The Iceberg type of a UDF type. Raises :class:`~iceview.errors.TranslationError` for a type
    no engine here can hold (``variant``, ``geometry``, nanosecond timestamps, ...)."""
    ids = count(1)
    return _to_iceberg(t, ids)


def _to_iceberg(t: ut.DataType, ids: count[int]) -> IcebergType:
    if isinstance(t, ut.PrimitiveType):
        found = _PRIMITIVES.get(t.name)
        if found is not None:
            return found
        m = DECIMAL.fullmatch(t.name)
        if m:
            return DecimalType(int(m.group(1)), int(m.group(2)))
        m = FIXED.fullmatch(t.name)
        if m:
            return FixedType(int(m.group(1)))
        raise TranslationError(f"No engine here has a type for the UDF type {t.name}")
    if isinstance(t, ut.ListType):
        return ListType(next(ids), _to_iceberg(t.element, ids), element_required=False)
    if isinstance(t, ut.MapType):
        return MapType(
            next(ids), _to_iceberg(t.key, ids), next(ids), _to_iceberg(t.value, ids), value_required=False
        )
    fields = [NestedField(next(ids), name, _to_iceberg(ft, ids), required=False) for name, ft in t.fields]
    return StructType(*fields)


def from_sqlglot(t: exp.DataType | None, *, dialect: str) -> ut.DataType | None:
    """The UDF type of an engine's type as sqlglot annotates it, or ``None`` when it has none here
    (unknown, ``NULL``, intervals, ...). ``dialect`` tells what an unqualified ``TIMESTAMP`` is:
    with a time zone in Spark, without in DuckDB and Trino (sqlglot reads them so already)."""
    if t is None:
        return None
    kind = t.this
    try:
        name = _FROM_SQLGLOT.get(kind)
        if name is not None:
            return ut.PrimitiveType(name)
        if kind == _T.TIMESTAMP:
            return ut.PrimitiveType(
                "timestamptz" if dialect.lower() in ("spark", "databricks") else "timestamp"
            )
        if kind == _T.DECIMAL:
            params = [e for e in t.expressions if isinstance(e, exp.DataTypeParam)]
            if not params:
                precision, scale = (10, 0) if dialect.lower() == "spark" else (18, 3)
            else:
                precision = int(params[0].name)
                scale = int(params[1].name) if len(params) > 1 else 0
            return ut.PrimitiveType(f"decimal({precision},{scale})")
        if kind == _T.ARRAY and len(t.expressions) == 1:
            element = from_sqlglot(_as_type(t.expressions[0]), dialect=dialect)
            return None if element is None else ut.ListType(element)
        if kind == _T.MAP and len(t.expressions) == 2:
            key = from_sqlglot(_as_type(t.expressions[0]), dialect=dialect)
            value = from_sqlglot(_as_type(t.expressions[1]), dialect=dialect)
            return None if key is None or value is None else ut.MapType(key, value)
        if kind == _T.STRUCT and t.expressions:
            fields: list[tuple[str, ut.DataType]] = []
            for e in t.expressions:
                if not isinstance(e, exp.ColumnDef):
                    return None
                ft = from_sqlglot(_as_type(e.args.get("kind")), dialect=dialect)
                if ft is None:
                    return None
                fields.append((e.name, ft))
            return ut.StructType(tuple(fields))
    except (ValueError, TypeError, InvalidArgumentError):  # a type the format cannot hold
        return None
    return None


def _as_type(node: object) -> exp.DataType | None:
    return node if isinstance(node, exp.DataType) else None


def schema_of(types: Mapping[str, str], dialect: str) -> Schema | None:
    """The Iceberg schema of a relation whose columns' types are spelled in ``dialect`` (as
    :meth:`iceview.catalog.Catalog.relation_types` gives them), or ``None`` when a type does not
    read back as the type whose name in ``dialect`` it is (as sqlglot reads both)."""
    namer = type_namer(dialect)
    fields = []
    for i, (name, spelled) in enumerate(types.items()):
        try:
            parsed = exp.DataType.build(spelled, dialect=dialect)
        except (SqlglotError, ValueError):
            return None
        t = from_sqlglot(parsed, dialect=dialect)
        if t is None:
            return None
        iceberg = to_iceberg(t)
        try:
            if exp.DataType.build(namer(iceberg), dialect=dialect) != parsed:
                return None
        except (TranslationError, SqlglotError, ValueError):
            return None
        fields.append(NestedField(i + 1, name, iceberg, required=False))
    return Schema(*fields) if fields else None
