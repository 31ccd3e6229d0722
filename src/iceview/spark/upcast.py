"""Reading a view's query into its stored schema as Iceberg-Spark 1.10 does: by position, up-cast only.

Iceberg-Spark's ``ResolveViews.createViewRelation`` (Spark 3.5 runtime) puts a ``Project`` over the
view's parsed query with one ``Alias(UpCast(GetColumnByOrdinal(i, type_i), type_i), name_i)`` per
field of the view's schema. So:

* column ``i`` of the schema reads column ``i`` of the query, whatever its name;
* extra query columns (a ``SELECT *`` over a table that gained columns) are ignored;
* a query with fewer columns than the schema cannot be read (Spark fails with an internal error);
* Spark's ``ResolveUpCast`` turns each ``UpCast`` into a ``Cast`` when ``Cast.canUpCast(from, to)``
  holds and otherwise fails with ``CANNOT_UP_CAST_DATATYPE`` ("Cannot up cast <column> from <type>
  to <type>").

:func:`can_up_cast` is Spark 3.5's ``Cast.canUpCast`` on PySpark types (checked against the JVM's
own function in ``tests/spark/test_spark_upcast.py``); :func:`spark_type` is Iceberg's
``TypeToSparkType``; :func:`check_output` applies the rules to a view and the analysed output of its
query and raises :class:`~iceview.spark.errors.SparkViewsExpansionError` (a
:class:`~iceview.errors.ViewExpansionError` and a PySpark ``AnalysisException``) naming the view,
the column and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyiceberg.schema import Schema
from pyiceberg.types import IcebergType
from pyspark.sql import types as st

from iceview.spark import types
from iceview.spark.errors import SparkViewsExpansionError, SparkViewsUnsupportedOperationError
from iceview.sql import spark_quote_if_needed

__all__ = ["UP_CAST_ERROR", "can_up_cast", "check_output", "spark_sql_type", "spark_type"]

UP_CAST_ERROR = "CANNOT_UP_CAST_DATATYPE"
COLUMN_COUNT_ERROR = "VIEW_COLUMN_COUNT_MISMATCH"

_NUMERIC_PRECEDENCE: tuple[type[st.DataType], ...] = (
    st.ByteType,
    st.ShortType,
    st.IntegerType,
    st.LongType,
    st.FloatType,
    st.DoubleType,
)
_INTEGRAL_DECIMAL: dict[type[st.DataType], tuple[int, int]] = {
    st.ByteType: (3, 0),
    st.ShortType: (5, 0),
    st.IntegerType: (10, 0),
    st.LongType: (20, 0),
}
_ATOMIC: tuple[type[st.DataType], ...] = (
    st.NumericType,
    st.StringType,
    st.CharType,
    st.VarcharType,
    st.BinaryType,
    st.BooleanType,
    st.DateType,
    st.TimestampType,
    st.TimestampNTZType,
    st.DayTimeIntervalType,
    st.YearMonthIntervalType,
)


def _is_string(t: st.DataType) -> bool:
    return isinstance(t, (st.StringType, st.CharType, st.VarcharType))


def _precedence(t: st.DataType) -> int:
    for i, cls in enumerate(_NUMERIC_PRECEDENCE):
        if type(t) is cls:
            return i
    return -1


def _as_decimal(t: st.DataType) -> tuple[int, int] | None:
    """``DecimalType.forType`` for integral types; a decimal's own precision and scale."""
    if isinstance(t, st.DecimalType):
        return t.precision, t.scale
    return _INTEGRAL_DECIMAL.get(type(t))


def _wider(to: st.DecimalType, other: st.DataType) -> bool:
    """Spark's ``DecimalType.isWiderThan``: decimals and integral types only."""
    o = _as_decimal(other)
    if o is None:
        return False
    return (to.precision - to.scale) >= (o[0] - o[1]) and to.scale >= o[1]


def _tighter(frm: st.DecimalType, other: st.DataType) -> bool:
    """Spark's ``DecimalType.isTighterThan``: decimals and integral types only; into an integral
    type only with scale 0 and fewer digits than the type's decimal form (``decimal(2,0)`` fits a
    ``tinyint``, ``decimal(3,0)`` may overflow it)."""
    if isinstance(other, st.DecimalType):
        return (frm.precision - frm.scale) <= (other.precision - other.scale) and frm.scale <= other.scale
    o = _INTEGRAL_DECIMAL.get(type(other))
    if o is None:
        return False
    return frm.precision < o[0] and frm.scale == 0


def _nullability(from_nullable: bool, to_nullable: bool) -> bool:
    """Spark's ``resolvableNullability``: a nullable value cannot go into a non-nullable slot."""
    return to_nullable or not from_nullable


def can_up_cast(frm: st.DataType, to: st.DataType) -> bool:
    """Spark 3.5's ``Cast.canUpCast(from, to)``: whether Spark's ``UpCast`` accepts the conversion
    (no narrowing, no loss of precision or range, no reinterpretation)."""
    if frm == to:
        return True
    if isinstance(to, st.DecimalType) and isinstance(frm, st.NumericType) and _wider(to, frm):
        return True
    if isinstance(frm, st.DecimalType) and isinstance(to, st.NumericType) and _tighter(frm, to):
        return True
    f, t = _precedence(frm), _precedence(to)
    if 0 <= f < t:
        return True
    if isinstance(frm, st.DateType) and isinstance(to, (st.TimestampType, st.TimestampNTZType)):
        return True
    if isinstance(frm, (st.TimestampType, st.TimestampNTZType)) and isinstance(
        to, (st.TimestampType, st.TimestampNTZType)
    ):
        return True
    if isinstance(to, st.StringType) and isinstance(frm, _ATOMIC):
        return True
    if isinstance(frm, st.NullType):
        return True
    if (type(frm) is st.TimestampType and type(to) is st.LongType) or (
        type(frm) is st.LongType and type(to) is st.TimestampType
    ):
        return True
    if isinstance(frm, st.ArrayType) and isinstance(to, st.ArrayType):
        return _nullability(frm.containsNull, to.containsNull) and can_up_cast(
            frm.elementType, to.elementType
        )
    if isinstance(frm, st.MapType) and isinstance(to, st.MapType):
        return (
            _nullability(frm.valueContainsNull, to.valueContainsNull)
            and can_up_cast(frm.keyType, to.keyType)
            and can_up_cast(frm.valueType, to.valueType)
        )
    if isinstance(frm, st.StructType) and isinstance(to, st.StructType):
        return len(frm.fields) == len(to.fields) and all(
            _nullability(a.nullable, b.nullable) and can_up_cast(a.dataType, b.dataType)
            for a, b in zip(frm.fields, to.fields, strict=True)
        )
    return (isinstance(frm, st.DayTimeIntervalType) and isinstance(to, st.DayTimeIntervalType)) or (
        isinstance(frm, st.YearMonthIntervalType) and isinstance(to, st.YearMonthIntervalType)
    )


def spark_type(t: IcebergType) -> st.DataType:
    """The Spark type Iceberg-Spark reads an Iceberg type as (:func:`iceview.spark.types.spark_type`);
    a type Spark has no counterpart of makes the view unreadable: :class:`SparkViewsExpansionError`."""
    try:
        return types.spark_type(t)
    except SparkViewsUnsupportedOperationError as e:
        raise SparkViewsExpansionError(str(e)) from e


def spark_sql_type(t: st.DataType) -> str:
    """Spark's ``DataType.sql`` (what ``toSQLType`` quotes in error messages): ``BIGINT``,
    ``DECIMAL(7,2)``, ``STRUCT<a: INT>``, ``ARRAY<STRING>``, ``MAP<STRING, INT>``."""
    if isinstance(t, st.StructType):
        inner = ", ".join(f"{spark_quote_if_needed(f.name)}: {spark_sql_type(f.dataType)}" for f in t.fields)
        return f"STRUCT<{inner}>"
    if isinstance(t, st.ArrayType):
        return f"ARRAY<{spark_sql_type(t.elementType)}>"
    if isinstance(t, st.MapType):
        return f"MAP<{spark_sql_type(t.keyType)}, {spark_sql_type(t.valueType)}>"
    if isinstance(t, st.DecimalType):
        return f"DECIMAL({t.precision},{t.scale})"
    if isinstance(t, st.LongType):
        return "BIGINT"
    if isinstance(t, st.IntegerType):
        return "INT"
    if isinstance(t, st.ShortType):
        return "SMALLINT"
    if isinstance(t, st.ByteType):
        return "TINYINT"
    if isinstance(t, st.NullType):
        return "VOID"
    return str(t.simpleString()).upper()


def check_output(view: Sequence[str], schema: Schema, output: st.StructType) -> int:
    """Check that a view's query, whose analysed output is ``output``, can be read into the view's
    stored ``schema`` as Iceberg-Spark reads it (by position, up-cast only); return the query's
    column count.

    Raises :class:`SparkViewsExpansionError` naming the view, the column and the reason: error class
    ``CANNOT_UP_CAST_DATATYPE`` when a column would be narrowed or reinterpreted (Spark's own
    message), ``VIEW_COLUMN_COUNT_MISMATCH`` when the query returns fewer columns than the schema."""
    name = ".".join(view)
    fields = schema.fields
    columns = output.fields
    if len(columns) < len(fields):
        missing = ", ".join(spark_quote_if_needed(f.name) for f in fields[len(columns) :])
        raise SparkViewsExpansionError(
            f"View {name} cannot be read: its SQL returns {len(columns)} column"
            f"{'s' if len(columns) != 1 else ''} but its schema has {len(fields)}; "
            f"no query column for {missing}",
            COLUMN_COUNT_ERROR,
        )
    for i, f in enumerate(fields):
        target = spark_type(f.field_type)
        source = columns[i]
        if not can_up_cast(source.dataType, target):
            raise SparkViewsExpansionError(
                f"Cannot up cast {spark_quote_if_needed(source.name)} from "
                f'"{spark_sql_type(source.dataType)}" to "{spark_sql_type(target)}" '
                f"reading column {spark_quote_if_needed(f.name)} (position {i + 1}) of view {name}.\n"
                "The type path of the target object is:\n\n"
                "You can either add an explicit cast to the input data or choose a higher precision "
                "type of the field in the target object",
                UP_CAST_ERROR,
            )
    return len(columns)
