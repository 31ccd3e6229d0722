"""The direction corpus (``test_directions.py``): view queries per SOURCE dialect (``spark``,
``trino``, ``duckdb``), each with what its translation into each other dialect must come to today:
``EQUAL`` (translated; the same rows) or the code of the refusal (the first code iceview names).

Where the Spark mode matters (a direction with Spark on one side is run with
``spark.sql.ansi.enabled`` false and true, and translated with ``spark_ansi`` set to match), an
outcome that differs between the modes is written ``"<legacy>|ansi:<ansi>"``, e.g.
``"integer-overflow|ansi:equal"``. From Trino (no Trino server here) the Spark and DuckDB translations
are run against each other; when one of them is refused the other cannot be checked, and its outcome
is the other's code with the other dialect named, e.g. ``"function (in spark)"``.

Tables (namespace ``corpus``, made through PyIceberg in ``conftest.py``): ``customers`` and
``orders`` (``corpus.py``) and ``edge_events`` (below), whose rows hold the edges where engines
disagree: a group whose inputs are all NULL (``grp = 'c'``), a NULL group, groups that filters
leave empty, customers with no match (99, NULL), integers and decimals that are negative, zero and
large (``decimal(38, 6)`` with 30 integer digits), calendar edges (2024-02-29, month and year ends,
Sundays and Mondays, midnight and 23:59:59.999999), mixed-case and non-ASCII text (``Ärger``,
``ß``, ``İstanbul``, ``ǅ``, emoji), arrays that are NULL, empty or hold a NULL.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pyarrow as pa
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)

from translate.corpus import EQUAL

__all__ = ["EDGE_EVENTS", "EQUAL", "SourceCase", "case", "edge_events_data"]

EDGE_EVENTS = Schema(
    NestedField(1, "event_id", LongType(), required=False),
    NestedField(2, "customer_id", IntegerType(), required=False),
    NestedField(3, "grp", StringType(), required=False),
    NestedField(4, "label", StringType(), required=False),
    NestedField(5, "i", IntegerType(), required=False),
    NestedField(6, "l", LongType(), required=False),
    NestedField(7, "amount", DecimalType(10, 2), required=False),
    NestedField(8, "big", DecimalType(38, 6), required=False),
    NestedField(9, "ratio", DoubleType(), required=False),
    NestedField(10, "ev_date", DateType(), required=False),
    NestedField(11, "ev_ts", TimestampType(), required=False),
    NestedField(12, "flag", BooleanType(), required=False),
    NestedField(13, "tags", ListType(14, StringType(), element_required=False), required=False),
)

_D = Decimal
_ts = dt.datetime
_d = dt.date
_EOD = (23, 59, 59, 999999)

# (event_id, customer_id, grp, label, i, l, amount, big, ratio, ev_date, ev_ts, flag, tags)
EDGE_ROWS: list[tuple[Any, ...]] = [
    (1, 1, "a", "Ärger", 7, 10, _D("12.50"), _D("123456789012345678901234567890.123456"), 0.1,
     _d(2024, 2, 29), _ts(2024, 2, 29), True, ["x", "y"]),
    (2, 2, "a", "ärger", -7, -10, _D("-12.50"), _D("-1.000001"), -2.5,
     _d(2024, 2, 28), _ts(2024, 2, 28, *_EOD), False, []),
    (3, 3, "a", "ß", 0, 0, _D("0.00"), _D("0.000000"), 0.0,
     _d(2024, 3, 1), _ts(2024, 3, 1), None, None),
    (4, 99, "b", "İstanbul", 2000000000, 1000000000000000, _D("99999999.99"),
     _D("99999999999999999999999999999.999999"), 1e-9,
     _d(2023, 12, 31), _ts(2023, 12, 31, *_EOD), True, ["x", None]),  # a Sunday, year end
    (5, None, "b", "istanbul", -3, -5, _D("-0.01"), _D("-99999999999999999999999999.999999"), -1 / 3,
     _d(2024, 1, 1), _ts(2024, 1, 1), False, ["y"]),  # a Monday
    (6, 4, "b", "STRASSE", 5, 7, _D("1.05"), _D("0.500000"), 2.5,
     _d(2024, 12, 31), _ts(2024, 12, 31, *_EOD), True, ["a", "b", "c"]),
    # the all-NULL group 'c'
    (7, 5, "c", None, None, None, None, None, None, _d(2024, 3, 3), None, None, None),  # a Sunday
    (8, 6, "c", None, None, None, None, None, None, _d(2024, 3, 4), None, None, None),  # a Monday
    # the NULL group
    (9, None, None, "😀 party", 11, 13, _D("3.33"), _D("1.500000"), 3.75,
     _d(2023, 1, 1), _ts(2023, 1, 1, 12), True, ["😀"]),  # a Sunday in ISO week 52 of 2022
    (10, 7, None, "Straße", -11, -13, _D("-3.33"), _D("2.250000"), -3.75,
     _d(2020, 12, 31), _ts(2020, 12, 31, *_EOD), False, ["x"]),  # ISO week 53
    (11, 8, "e", "ǅ mixed Case", 4, 9, _D("7.77"), _D("7.770000"), 1.25,
     _d(2024, 4, 30), _ts(2024, 4, 30, 12, 34, 56, 123456), True, ["z"]),
    (12, 9, "a", "  padded  ", 13, 21, _D("100.00"), _D("100.000000"), 0.5,
     _d(2024, 6, 30), _ts(2024, 6, 30), True, ["x", "x"]),
    (13, 1, "a", "café", -13, -21, _D("-100.00"), _D("-100.000000"), -0.5,
     _d(2024, 7, 1), _ts(2024, 7, 1), None, [None]),  # a Monday
    (14, 2, "b", "CAFÉ", 9, 1, _D("0.10"), _D("0.000001"), 1e9,
     _d(2024, 9, 29), _ts(2024, 9, 29, *_EOD), False, ["b"]),  # a Sunday
    (15, 99, "d", "İ", 1, -1, _D("50.00"), _D("50.000000"), None,
     _d(2025, 1, 1), _ts(2025, 1, 1), None, []),
    (16, 3, "d", "i̇", -1, 1, None, None, None, _d(2024, 2, 29), None, True, None),
]  # fmt: skip


def edge_events_data() -> pa.Table:
    columns = list(zip(*EDGE_ROWS, strict=True))
    types = [
        pa.int64(),
        pa.int32(),
        pa.string(),
        pa.string(),
        pa.int32(),
        pa.int64(),
        pa.decimal128(10, 2),
        pa.decimal128(38, 6),
        pa.float64(),
        pa.date32(),
        pa.timestamp("us"),
        pa.bool_(),
        pa.list_(pa.string()),
    ]
    names = [f.name for f in EDGE_EVENTS.fields]
    return pa.table({n: pa.array(list(c), t) for n, c, t in zip(names, columns, types, strict=True)})


@dataclass(frozen=True)
class SourceCase:
    """One view query in its source dialect and, per target dialect, what it must come to."""

    name: str
    sql: str
    expect: Mapping[str, str | None] = field(default_factory=dict)
    unordered_lists: bool = False  # compare list values as multisets (collect_list)


def case(
    name: str,
    sql: str,
    *,
    spark: str | None = None,
    trino: str | None = None,
    duckdb: str | None = None,
    unordered_lists: bool = False,
) -> SourceCase:
    expect = {k: v for k, v in (("spark", spark), ("trino", trino), ("duckdb", duckdb))}
    return SourceCase(name, sql, expect, unordered_lists)
