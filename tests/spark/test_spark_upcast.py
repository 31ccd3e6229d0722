"""iceview.spark.upcast: Spark's ``Cast.canUpCast`` in Python, checked pair by pair against the JVM's
own function (Spark 3.5.9), and the errors of reading a view's query into its stored schema."""

from __future__ import annotations

from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import (
    DecimalType,
    FixedType,
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

from fixtures.java_session import JavaSpark
from iceview.errors import ViewExpansionError
from iceview.spark.errors import SparkViewsExpansionError
from iceview.spark.upcast import can_up_cast, check_output, spark_sql_type, spark_type

ATOMIC: list[st.DataType] = [
    st.ByteType(),
    st.ShortType(),
    st.IntegerType(),
    st.LongType(),
    st.FloatType(),
    st.DoubleType(),
    st.DecimalType(2, 0),
    st.DecimalType(3, 0),
    st.DecimalType(4, 1),
    st.DecimalType(5, 0),
    st.DecimalType(5, 2),
    st.DecimalType(7, 2),
    st.DecimalType(9, 0),
    st.DecimalType(10, 0),
    st.DecimalType(11, 1),
    st.DecimalType(19, 0),
    st.DecimalType(20, 0),
    st.DecimalType(38, 10),
    st.StringType(),
    st.BinaryType(),
    st.BooleanType(),
    st.DateType(),
    st.TimestampType(),
    st.TimestampNTZType(),
    st.NullType(),
    st.DayTimeIntervalType(),
    st.YearMonthIntervalType(),
]
NESTED: list[st.DataType] = [
    st.ArrayType(st.IntegerType(), True),
    st.ArrayType(st.IntegerType(), False),
    st.ArrayType(st.LongType(), True),
    st.ArrayType(st.StringType(), True),
    st.MapType(st.StringType(), st.IntegerType(), True),
    st.MapType(st.StringType(), st.IntegerType(), False),
    st.MapType(st.StringType(), st.LongType(), True),
    st.MapType(st.IntegerType(), st.IntegerType(), True),
    st.StructType([st.StructField("a", st.IntegerType(), True)]),
    st.StructType([st.StructField("a", st.IntegerType(), False)]),
    st.StructType([st.StructField("b", st.LongType(), True)]),
    st.StructType([st.StructField("a", st.IntegerType(), True), st.StructField("b", st.StringType(), True)]),
    st.StructType([st.StructField("a", st.LongType(), True), st.StructField("b", st.StringType(), True)]),
]


@pytest.mark.java
def test_can_up_cast_equals_spark_for_every_pair(java_spark: JavaSpark) -> None:
    jvm: Any = java_spark.jvm
    parse = jvm.org.apache.spark.sql.types.DataType.fromJson
    spark_can = jvm.org.apache.spark.sql.catalyst.expressions.Cast.canUpCast
    types = ATOMIC + NESTED
    java = {id(t): parse(t.json()) for t in types}
    wrong = []
    allowed = 0
    for a in types:
        for b in types:
            expected = bool(spark_can(java[id(a)], java[id(b)]))
            allowed += expected
            if can_up_cast(a, b) != expected:
                wrong.append(f"{a.simpleString()} -> {b.simpleString()}: Spark says {expected}")
    assert not wrong, "\n".join(wrong)
    assert 200 < allowed < len(types) ** 2 - 200  # the grid has both answers in numbers


def test_up_casts_that_matter_for_views() -> None:
    assert can_up_cast(st.IntegerType(), st.LongType())
    assert not can_up_cast(st.LongType(), st.IntegerType())
    assert not can_up_cast(st.DoubleType(), st.FloatType())
    assert not can_up_cast(st.DecimalType(7, 2), st.DecimalType(5, 2))
    assert can_up_cast(st.DecimalType(5, 2), st.DecimalType(7, 2))
    assert can_up_cast(st.IntegerType(), st.StringType())  # any atomic type reads as a string
    assert not can_up_cast(st.StringType(), st.IntegerType())


def test_iceberg_types_read_as_iceberg_spark_reads_them() -> None:
    assert spark_type(TimestamptzType()) == st.TimestampType()
    assert spark_type(TimestampType()) == st.TimestampNTZType()
    assert spark_type(UUIDType()) == st.StringType()
    assert spark_type(FixedType(4)) == st.BinaryType()
    nested = StructType(
        NestedField(1, "l", ListType(2, LongType(), element_required=True), required=True),
        NestedField(3, "m", MapType(4, StringType(), 5, DecimalType(9, 2), value_required=False)),
    )
    assert spark_sql_type(spark_type(nested)) == "STRUCT<l: ARRAY<BIGINT>, m: MAP<STRING, DECIMAL(9,2)>>"
    as_spark = spark_type(nested)
    assert isinstance(as_spark, st.StructType)
    assert as_spark.fields[0].nullable is False and as_spark.fields[1].nullable is True


SCHEMA = Schema(NestedField(0, "id", IntegerType()), NestedField(1, "name", StringType()), schema_id=0)


def _output(*fields: tuple[str, st.DataType]) -> st.StructType:
    return st.StructType([st.StructField(n, t, True) for n, t in fields])


def test_check_output_returns_the_query_width_extra_columns_allowed() -> None:
    out = _output(("id", st.ShortType()), ("name", st.StringType()), ("extra", st.DoubleType()))
    assert check_output(("sv", "db", "v"), SCHEMA, out) == 3


def test_check_output_narrowing_is_a_typed_error_naming_view_column_reason() -> None:
    out = _output(("id", st.LongType()), ("name", st.StringType()))
    with pytest.raises(SparkViewsExpansionError) as info:
        check_output(("sv", "db", "v"), SCHEMA, out)
    e = info.value
    assert isinstance(e, ViewExpansionError)
    assert e.error_class == "CANNOT_UP_CAST_DATATYPE"
    assert str(e).startswith(
        '[CANNOT_UP_CAST_DATATYPE] Cannot up cast id from "BIGINT" to "INT" reading column id (position 1) '
        "of view sv.db.v."
    )


def test_check_output_moved_columns_are_refused() -> None:
    out = _output(("name", st.StringType()), ("id", st.IntegerType()))
    with pytest.raises(
        SparkViewsExpansionError, match=r'Cannot up cast name from "STRING" to "INT" reading column id'
    ):
        check_output(("sv", "db", "v"), SCHEMA, out)


def test_check_output_too_few_columns() -> None:
    with pytest.raises(SparkViewsExpansionError) as info:
        check_output(("sv", "db", "v"), SCHEMA, _output(("id", st.IntegerType())))
    assert info.value.error_class == "VIEW_COLUMN_COUNT_MISMATCH"
    assert (
        "View sv.db.v cannot be read: its SQL returns 1 column but its schema has 2; no query column for name"
        in str(info.value)
    )
