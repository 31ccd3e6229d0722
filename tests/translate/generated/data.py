"""The generator's table: the edge table (``translate/edge_data.py``) with what the edge suites do
not need and a generator does: a map column, a ``DECIMAL(38, 0)`` with its extremes, and rows at the
daylight-saving transitions of ``America/Los_Angeles`` (both engines run in that zone), the first
day of year 1, the Julian-Gregorian gap of 1582, emoji with skin-tone modifiers and combining marks,
more number-like strings (``-0``, ``1.50``, ``Infinity``), a single-row group (``grp = 'g'``).

``edge_data.py`` is left as it is: its suites' expectations are written against its rows.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import DecimalType, IntegerType, MapType, NestedField, StringType

from translate.edge_data import CATALOG, DST_ZONE, EDGE, NAMESPACE, ROWS, TABLE
from translate.edge_data import spark_frame as edge_frame

NAME = (CATALOG, NAMESPACE, TABLE)
ZONE = DST_ZONE

GEN = Schema(
    *EDGE.fields,
    NestedField(22, "m", MapType(23, StringType(), 24, IntegerType(), value_required=False), required=False),
    NestedField(25, "dec38", DecimalType(38, 0), required=False),
)

_D38 = Decimal("9" * 38)
_MINUS_D38 = Decimal("-" + "9" * 38)  # not -_D38: unary minus rounds to 28 digits
_UTC = dt.timezone.utc

# (m, dec38) for the edge rows, by position
_MORE: list[tuple[Any, ...]] = [
    ({"a": 1, "b": None}, Decimal(0)),
    ({}, Decimal(1)),
    (None, Decimal(-1)),
    ({"x": 2147483647}, _D38),
    ({"k": -1}, _MINUS_D38),
    ({"a": 0}, Decimal("12345678901234567890123456789012345678")),
    ({"ß": 3}, Decimal(7)),
    ({"1": 1, "2": 2}, Decimal(-7)),
    ({" ": None}, Decimal(100)),
    (None, None),
    ({"z": 9}, Decimal(2)),
    ({"y": 8}, Decimal(3)),
    ({"w": 7}, Decimal(4)),
    ({"v": 6}, Decimal(5)),
    ({"u": 5}, Decimal(6)),
    ({"t": 4}, Decimal(8)),
    (None, None),
    (None, None),
    ({"s": 3}, Decimal(11)),
]
assert len(_MORE) == len(ROWS)

# (id, grp, b, i, l, f, d, dec0, dec2, dec10, dt, ts, tstz, s, arr, iarr, st, m, dec38)
ROWS_GEN: list[tuple[Any, ...]] = [(*r, *more) for r, more in zip(ROWS, _MORE, strict=True)] + [
    (
        20,
        "f",
        True,
        12,
        -12,
        -0.0,
        -0.0,
        Decimal("-0"),
        Decimal("-0.00"),
        Decimal("-0.0000000001"),
        dt.date(1, 1, 1),
        dt.datetime(2024, 3, 10, 2, 30, 0),  # inside the spring-forward gap in Los Angeles
        dt.datetime(2024, 3, 10, 10, 30, tzinfo=_UTC),  # 03:30 PDT, just after the change
        "e\u0301\U0001f44d\U0001f3fd",  # e + combining acute, thumbs up + skin tone
        ["\U0001f600", None, ""],
        [None, 2147483647, -2147483648],
        (None, "\U0001f600"),
        {"\U0001f600": 1},
        _D38,
    ),
    (
        21,
        "f",
        False,
        -12,
        12,
        float("nan"),
        float("-inf"),
        Decimal("-1"),
        Decimal("0.99"),
        Decimal("9999999999999999999999999999.9999999999"),
        dt.date(1582, 10, 10),  # in the Julian-Gregorian gap
        dt.datetime(2024, 11, 3, 1, 30, 0),  # the hour that happens twice in Los Angeles
        dt.datetime(2024, 11, 3, 8, 30, tzinfo=_UTC),  # 01:30 PDT, the first of the two
        "-0",
        [None, None],
        [0, 0],
        (0, None),
        {"a": None},
        _MINUS_D38,
    ),
    (
        22,
        "g",
        None,
        1,
        -1,
        1e-45,
        5e-324,
        Decimal("99999"),
        Decimal("-0.99"),
        Decimal("0.0000000005"),
        dt.date(9999, 12, 31),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
        dt.datetime(2024, 11, 3, 9, 30, tzinfo=_UTC),  # 01:30 PST, the second of the two
        "1.50",
        ["Infinity"],
        [-1],
        (-1, "Infinity"),
        None,
        Decimal(0),
    ),
    (
        23,
        "f",
        True,
        2147483647,
        -9223372036854775808,
        float("inf"),
        float("nan"),
        Decimal("0"),
        Decimal("0.01"),
        Decimal("-0.0000000001"),
        dt.date(2024, 3, 10),
        dt.datetime(2024, 3, 10, 1, 59, 59, 999999),  # the last microsecond before the gap
        dt.datetime(2024, 3, 10, 9, 59, 59, 999999, tzinfo=_UTC),
        "Infinity",
        ["a", "A", "ä", "a\u0308"],  # ä precomposed and decomposed
        [3, None, 1],
        (2147483647, "ǅ"),
        {"b": 2, "a": 1},
        Decimal(-1),
    ),
]

COLUMNS = [f.name for f in GEN.fields]


def spark_frame(spark: Any) -> Any:
    """The table as a Spark DataFrame with the schema Iceberg-Spark gives ``GEN``."""
    from pyspark.sql import types as T

    base = edge_frame(spark).schema
    schema = T.StructType(
        [
            *base.fields,
            T.StructField("m", T.MapType(T.StringType(), T.IntegerType(), True)),
            T.StructField("dec38", T.DecimalType(38, 0)),
        ]
    )
    return spark.createDataFrame(ROWS_GEN, schema)


def duckdb_connection() -> Any:
    """An in-memory DuckDB in :data:`ZONE` with the table as ``edge.db.t``, and ``USE edge.db``."""
    import duckdb
    from iceview.sql.types import duckdb_type_name

    con = duckdb.connect()
    con.execute(f"SET TimeZone = '{ZONE}'")
    con.execute(f"ATTACH ':memory:' AS {CATALOG}")
    con.execute(f"CREATE SCHEMA {CATALOG}.{NAMESPACE}")
    cols = ", ".join(f'"{f.name}" {duckdb_type_name(f.field_type)}' for f in GEN.fields)
    con.execute(f"CREATE TABLE {CATALOG}.{NAMESPACE}.{TABLE} ({cols})")
    st, m = COLUMNS.index("st"), COLUMNS.index("m")
    # DuckDB's Python binding reads a 38-digit Decimal through a double: the text is exact
    marks = ", ".join("CAST(? AS DECIMAL(38, 0))" if f.name == "dec38" else "?" for f in GEN.fields)
    rows = []
    for r in ROWS_GEN:
        values = list(r)
        if values[st] is not None:
            values[st] = {"x": values[st][0], "y": values[st][1]}
        if values[m] is not None:
            values[m] = {"key": list(values[m]), "value": list(values[m].values())}
        values[-1] = None if values[-1] is None else str(values[-1])
        rows.append(tuple(values))
    con.executemany(f"INSERT INTO {CATALOG}.{NAMESPACE}.{TABLE} VALUES ({marks})", rows)
    con.execute(f"USE {CATALOG}.{NAMESPACE}")
    return con
