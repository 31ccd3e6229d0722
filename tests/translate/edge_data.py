"""The edge-data table of the differential suite (``test_edge.py``): one row set with the edges real
tables have, in every Iceberg type that views use.

Edges: NULLs everywhere, a group whose values are all NULL (``grp = 'z'``), a NULL group, empty
groups (the suite also aggregates over ``WHERE id < 0``); decimals at scales 0, 2 and 10 with their
extremes; integer limits (overflow in ``+ - *`` and ``sum``); NaN, infinities and -0.0; leap days,
month and year ends, Sundays and Mondays (week boundaries), years before 1000, timestamps with
microseconds; mixed-case and non-ASCII strings (``ß``, ``İ``, final sigma, combining accents,
CJK), strings that look like numbers, dates and booleans; arrays that are NULL, empty or hold NULLs.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
)

CATALOG = "edge"
NAMESPACE = "db"
TABLE = "t"
NAME = (CATALOG, NAMESPACE, TABLE)

EDGE = Schema(
    NestedField(1, "id", IntegerType(), required=False),
    NestedField(2, "grp", StringType(), required=False),
    NestedField(3, "b", BooleanType(), required=False),
    NestedField(4, "i", IntegerType(), required=False),
    NestedField(5, "l", LongType(), required=False),
    NestedField(6, "f", FloatType(), required=False),
    NestedField(7, "d", DoubleType(), required=False),
    NestedField(8, "dec0", DecimalType(5, 0), required=False),
    NestedField(9, "dec2", DecimalType(10, 2), required=False),
    NestedField(10, "dec10", DecimalType(38, 10), required=False),
    NestedField(11, "dt", DateType(), required=False),
    NestedField(12, "ts", TimestampType(), required=False),
    NestedField(13, "tstz", TimestamptzType(), required=False),
    NestedField(14, "s", StringType(), required=False),
    NestedField(15, "arr", ListType(16, StringType(), element_required=False), required=False),
    NestedField(17, "iarr", ListType(18, IntegerType(), element_required=False), required=False),
    NestedField(
        19,
        "st",
        StructType(
            NestedField(20, "x", IntegerType(), required=False),
            NestedField(21, "y", StringType(), required=False),
        ),
        required=False,
    ),
)

_NAN = float("nan")
_INF = float("inf")
_UTC = dt.timezone.utc
_I32 = 2**31 - 1
_I64 = 2**63 - 1


def _ts(*a: int) -> dt.datetime:
    return dt.datetime(*a)


# (id, grp, b, i, l, f, d, dec0, dec2, dec10, dt, ts, tstz, s, arr, iarr, st)
ROWS: list[tuple[Any, ...]] = [
    (
        1,
        "a",
        True,
        0,
        0,
        0.0,
        0.0,
        Decimal("0"),
        Decimal("0.00"),
        Decimal("0E-10"),
        dt.date(2024, 2, 29),
        _ts(2024, 2, 29, 23, 59, 59, 999999),
        dt.datetime(2024, 2, 29, 23, 59, 59, 999999, _UTC),
        "Straße",
        ["b", "a", None],
        [3, 1, 2],
        (1, "x"),
    ),
    (
        2,
        "a",
        False,
        1,
        10,
        1.5,
        2.5,
        Decimal("7"),
        Decimal("0.05"),
        Decimal("0.0000000001"),
        dt.date(2023, 12, 31),
        _ts(2023, 12, 31, 0, 0, 0),
        dt.datetime(2023, 12, 31, 0, 0, tzinfo=_UTC),
        "İstanbul",
        [],
        [],
        (None, None),
    ),
    (
        3,
        "a",
        None,
        -1,
        -3,
        -0.0,
        -1.5,
        Decimal("-99999"),
        Decimal("-0.01"),
        Decimal("-1234567890123456789012345678.0123456789"),
        dt.date(2024, 1, 1),
        _ts(2024, 1, 1, 12, 30, 45, 123456),
        dt.datetime(2024, 1, 1, 12, 30, 45, 123456, _UTC),
        "ΟΔΟΣ",
        [None],
        [1, None, 3],
        None,
    ),
    (
        4,
        "a",
        True,
        _I32,
        _I64,
        3.4e38,
        1e300,
        Decimal("99999"),
        Decimal("99999999.99"),
        Decimal("1234567890123456789012345678.9999999999"),
        dt.date(2023, 1, 1),
        _ts(1970, 1, 1, 0, 0, 0, 1),
        dt.datetime(1970, 1, 1, 0, 0, 0, 1, _UTC),
        "MiXeD Case",
        ["x"],
        [None],
        (2, "ß"),
    ),
    (
        5,
        "b",
        False,
        -_I32 - 1,
        -_I64 - 1,
        _NAN,
        _NAN,
        Decimal("1"),
        Decimal("-99999999.99"),
        Decimal("0.5000000000"),
        dt.date(999, 6, 15),
        _ts(999, 6, 15, 6, 7, 8, 900000),
        None,
        "",
        None,
        None,
        (3, ""),
    ),
    (
        6,
        "b",
        True,
        7,
        9,
        _INF,
        _INF,
        Decimal("2"),
        Decimal("12345678.99"),
        Decimal("-0.5000000000"),
        dt.date(2024, 3, 31),
        _ts(2024, 3, 31, 23, 59, 59, 999999),
        dt.datetime(2024, 3, 31, 23, 0, tzinfo=_UTC),
        "  padded  ",
        ["A", "a", "B", "b"],
        [2, 2, -1],
        (4, "é"),
    ),
    (
        7,
        "b",
        None,
        -7,
        1,
        -_INF,
        -_INF,
        Decimal("-2"),
        Decimal("2.50"),
        Decimal("2.5"),
        dt.date(2023, 2, 28),
        _ts(2023, 2, 28, 0, 0, 0, 500000),
        dt.datetime(2023, 2, 28, 12, 0, tzinfo=_UTC),
        "a_b%c\\d",
        ["ß", "ς"],
        [0],
        (5, "ΟΔΟΣ"),
    ),
    (
        8,
        "c",
        False,
        2,
        2,
        0.1,
        0.1,
        Decimal("3"),
        Decimal("0.10"),
        Decimal("0.1"),
        dt.date(2020, 12, 31),
        _ts(2020, 12, 31, 23, 59, 59),
        dt.datetime(2020, 12, 31, 23, 59, 59, tzinfo=_UTC),
        "123",
        ["1", "2"],
        [1, 2],
        (6, "1"),
    ),
    (
        9,
        "c",
        True,
        100,
        1000,
        1e-30,
        1e-300,
        Decimal("-1"),
        Decimal("-2.50"),
        Decimal("-2.5"),
        dt.date(2021, 1, 3),
        _ts(2021, 1, 3, 0, 0, 0),
        dt.datetime(2021, 1, 3, tzinfo=_UTC),
        " 42 ",
        ["e\u0301"],
        [5],
        (7, " "),
    ),
    (10, "c", None, None, None, None, None, None, None, None, None, None, None, None, None, None, None),
    (
        11,
        "d",
        True,
        3,
        3,
        2.0,
        3.0,
        Decimal("4"),
        Decimal("1.00"),
        Decimal("1"),
        dt.date(2024, 12, 30),
        _ts(2024, 12, 30, 1, 2, 3, 4),
        dt.datetime(2024, 12, 30, 1, 2, 3, 4, _UTC),
        "1e3",
        ["z"],
        [7, 8, 9],
        (8, "y"),
    ),
    (
        12,
        "d",
        False,
        4,
        4,
        -2.0,
        -3.0,
        Decimal("5"),
        Decimal("3.33"),
        Decimal("3.3333333333"),
        dt.date(2025, 1, 1),
        _ts(2025, 1, 1, 0, 0, 0),
        dt.datetime(2025, 1, 1, tzinfo=_UTC),
        "true",
        ["b"],
        [4],
        (9, "z"),
    ),
    (
        13,
        "d",
        True,
        5,
        5,
        4.0,
        2.0,
        Decimal("6"),
        Decimal("6.67"),
        Decimal("6.6666666667"),
        dt.date(2024, 2, 28),
        _ts(2024, 2, 28, 12, 0, 0),
        dt.datetime(2024, 2, 28, 12, tzinfo=_UTC),
        "2024-02-30",
        ["c", None],
        [None, None],
        (10, "w"),
    ),
    (
        14,
        "d",
        False,
        6,
        6,
        8.0,
        7.0,
        Decimal("8"),
        Decimal("4.44"),
        Decimal("4.4444444444"),
        dt.date(2024, 6, 30),
        _ts(2024, 6, 30, 18, 0, 0),
        dt.datetime(2024, 6, 30, 18, tzinfo=_UTC),
        "日本語",
        ["日"],
        [6],
        (11, "v"),
    ),
    (
        15,
        "e",
        True,
        8,
        7,
        5.0,
        5.5,
        Decimal("9"),
        Decimal("5.55"),
        Decimal("5.5555555555"),
        dt.date(2024, 7, 31),
        _ts(2024, 7, 31, 9, 9, 9, 90909),
        dt.datetime(2024, 7, 31, 9, tzinfo=_UTC),
        "nan",
        ["a"],
        [1],
        (12, "u"),
    ),
    (
        16,
        "e",
        False,
        9,
        8,
        6.0,
        6.5,
        Decimal("10"),
        Decimal("7.77"),
        Decimal("7.7777777777"),
        dt.date(2024, 9, 30),
        _ts(2024, 9, 30, 10, 10, 10),
        dt.datetime(2024, 9, 30, 10, tzinfo=_UTC),
        "Hello World",
        ["q"],
        [2],
        (13, "t"),
    ),
    # the all-NULL group: every value NULL but the key
    (17, "z", None, None, None, None, None, None, None, None, None, None, None, None, None, None, None),
    (18, "z", None, None, None, None, None, None, None, None, None, None, None, None, None, None, None),
    # the NULL group
    (
        19,
        None,
        True,
        11,
        12,
        1.25,
        1.25,
        Decimal("11"),
        Decimal("11.11"),
        Decimal("11.1111111111"),
        dt.date(2000, 2, 29),
        _ts(2000, 2, 29, 0, 0, 0, 1),
        dt.datetime(2000, 2, 29, tzinfo=_UTC),
        "ǅungla",
        ["x", "y"],
        [1, 1],
        (14, "s"),
    ),
]


def spark_frame(spark: Any) -> Any:
    """The edge table as a Spark DataFrame with the schema Iceberg-Spark gives ``EDGE``."""
    from pyspark.sql import types as T

    st = T.StructType([T.StructField("x", T.IntegerType()), T.StructField("y", T.StringType())])
    schema = T.StructType(
        [
            T.StructField("id", T.IntegerType()),
            T.StructField("grp", T.StringType()),
            T.StructField("b", T.BooleanType()),
            T.StructField("i", T.IntegerType()),
            T.StructField("l", T.LongType()),
            T.StructField("f", T.FloatType()),
            T.StructField("d", T.DoubleType()),
            T.StructField("dec0", T.DecimalType(5, 0)),
            T.StructField("dec2", T.DecimalType(10, 2)),
            T.StructField("dec10", T.DecimalType(38, 10)),
            T.StructField("dt", T.DateType()),
            T.StructField("ts", T.TimestampNTZType()),
            T.StructField("tstz", T.TimestampType()),
            T.StructField("s", T.StringType()),
            T.StructField("arr", T.ArrayType(T.StringType())),
            T.StructField("iarr", T.ArrayType(T.IntegerType())),
            T.StructField("st", st),
        ]
    )
    return spark.createDataFrame(ROWS, schema)


def duckdb_connection() -> Any:
    """An in-memory DuckDB with the edge table as ``edge.db.t``."""
    import duckdb
    from iceview.sql.types import duckdb_type_name

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"ATTACH ':memory:' AS {CATALOG}")
    con.execute(f"CREATE SCHEMA {CATALOG}.{NAMESPACE}")
    cols = ", ".join(f'"{f.name}" {duckdb_type_name(f.field_type)}' for f in EDGE.fields)
    con.execute(f"CREATE TABLE {CATALOG}.{NAMESPACE}.{TABLE} ({cols})")
    marks = ", ".join("?" for _ in EDGE.fields)
    rows = [
        tuple({"x": v[0], "y": v[1]} if k == 16 and v is not None else v for k, v in enumerate(r))
        for r in ROWS
    ]
    con.executemany(f"INSERT INTO {CATALOG}.{NAMESPACE}.{TABLE} VALUES ({marks})", rows)
    return con


# --------------------------------------------------------------------------------------------------
# one row inside a daylight-saving gap: for translations that might read the session time zone

DST_ZONE = "America/Los_Angeles"
GAP = dt.datetime(2024, 3, 10, 2, 30, 59, 999999)
"""A local time that does not exist in :data:`DST_ZONE` (clocks went from 02:00 to 03:00)."""
GAP_NAME = (CATALOG, NAMESPACE, "g")
GAP_TABLE = Schema(
    NestedField(1, "ts", TimestampType(), required=False),
    NestedField(2, "n", IntegerType(), required=False),
    NestedField(3, "x", DecimalType(10, 2), required=False),
    NestedField(4, "a", ListType(5, IntegerType(), element_required=False), required=False),
)
"""``g``: one row, ``ts`` = :data:`GAP`, ``n`` NULL, ``x`` -0.50, ``a`` [1, NULL]."""


def gap_duckdb(con: Any) -> None:
    """Creates ``g`` in ``con``'s current schema."""
    con.execute("CREATE TABLE g (ts TIMESTAMP, n INTEGER, x DECIMAL(10, 2), a INTEGER[])")
    con.execute("INSERT INTO g VALUES (?, NULL, -0.50, [1, NULL])", [GAP])


def gap_frame(spark: Any) -> Any:
    """``g`` as a Spark DataFrame with the types Iceberg-Spark gives ``GAP_TABLE``."""
    from pyspark.sql import types as T

    schema = T.StructType(
        [
            T.StructField("ts", T.TimestampNTZType()),
            T.StructField("n", T.IntegerType()),
            T.StructField("x", T.DecimalType(10, 2)),
            T.StructField("a", T.ArrayType(T.IntegerType())),
        ]
    )
    return spark.createDataFrame([(GAP, None, Decimal("-0.50"), [1, None])], schema)
