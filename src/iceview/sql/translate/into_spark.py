"""Rules for Spark as the target of DuckDB's and Trino's SQL, where Spark computes dates and times
differently from both (found on the edge table with Spark's session time zone set to one with
daylight saving: ``tests/translate/test_edge_trino.py``).

* ``date_trunc``: DuckDB's and Trino's truncate a timestamp without time zone as it is written, and
  Trino's keeps a ``DATE`` a ``DATE``. Spark's ``date_trunc`` takes a ``TIMESTAMP`` (with the
  session's time zone): a ``TIMESTAMP_NTZ`` goes through the session time zone and back, which moves
  a time inside a daylight-saving gap (``2024-03-10 02:30`` truncated to the hour is ``03:00`` in
  ``America/Los_Angeles``), and a ``DATE`` comes back as a ``TIMESTAMP`` (as in DuckDB, not in Trino). The rewrite truncates a
  ``DATE`` with ``trunc(date, unit)`` and a ``TIMESTAMP_NTZ`` field by field, neither of which reads
  the time zone; a timestamp with time zone (or an untyped value) is refused (``time-zone``).
* Fields of a timestamp with time zone (``hour``, ``extract``, ``date_trunc``, ...): Spark reads
  them in the session time zone, DuckDB in its ``TimeZone`` setting, Trino in the value's own zone:
  refused (``time-zone``).
* ``day_of_week`` (ISO, Monday 1 to Sunday 7): sqlglot writes ``(dayofweek(x) % 7) + 1``, which
  numbers Sunday 2; the rewrite is ``weekday(x) + 1``.
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate.checks import TRUNC_UNITS, cast_in_place
from iceview.sql.translate.checks import kind_of as _kind
from iceview.sql.translate.policy import Check, Context, Rewrite, call

__all__ = ["DATE_PARTS", "DAY_OF_WEEK_ISO", "TRUNC", "TRUNC_WITHOUT_TIME_ZONE", "ZONE_FREE"]

TRUNC = call(exp.DateTrunc, exp.TimestampTrunc)
DATE_PARTS = call(
    exp.Year, exp.Quarter, exp.Month, exp.Day, exp.Hour, exp.Minute, exp.Second, exp.WeekOfYear, exp.LastDay
)
"""Functions that read one field of a date or timestamp."""

_T = exp.DataType.Type
_NAIVE = frozenset({_T.TIMESTAMPNTZ, _T.TIMESTAMP, _T.DATETIME})
"""Timestamps without time zone (sqlglot reads DuckDB's and Trino's ``TIMESTAMP`` as one of these)."""
_BY_DATE = ("YEAR", "QUARTER", "MONTH", "WEEK")
_FIELDS = ("HOUR", "MINUTE", "SECOND")


def _unit(node: exp.Expr) -> str | None:
    unit = node.args.get("unit")
    if isinstance(unit, (exp.Literal, exp.Var)):
        return TRUNC_UNITS.get(unit.name.upper())
    return None


def _truncatable(node: exp.Expr, ctx: Context) -> None:
    kind, unit = _kind(node.this), _unit(node)
    if unit is None:
        return  # the unit check names it
    if kind == _T.DATE and unit in _FIELDS:
        ctx.add(
            "trunc-unit",
            node,
            f"date_trunc of a DATE to the {unit.lower()}: the engines' result types differ",
        )
    elif kind != _T.DATE and kind not in _NAIVE:
        what = "an operand of unknown type (pass the table schemas)" if kind is None else f"a {kind.value}"
        ctx.add(
            "time-zone",
            node,
            f"date_trunc of {what}: Spark truncates in the session time zone, {ctx.source} in the value's own",
        )
    elif kind != _T.DATE and unit in _FIELDS and not isinstance(node.this, exp.Column):
        # the field-by-field form repeats the operand: kept to columns, which no rewrite changes
        ctx.add(
            "time-zone",
            node,
            f"date_trunc to the {unit.lower()} of an expression: only a column is truncated without the session time zone",
        )
    elif kind == _T.DATE and ctx.source == "duckdb":
        ctx.rewrites.append((_TRUNC_DATE_TO_TIMESTAMP, node))  # DuckDB's date_trunc of a DATE is a TIMESTAMP
    else:
        ctx.rewrites.append((_TRUNC_REWRITE, node))


def _date(value: exp.Expr) -> exp.Expr:
    return exp.Cast(this=value, to=exp.DataType.build("DATE"))


def _fn(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def _truncate(node: exp.Expr) -> None:
    value, unit = node.this, _unit(node)
    assert unit is not None
    if _kind(value) == _T.DATE:
        node.replace(value if unit == "DAY" else _fn("TRUNC", value, exp.Literal.string(unit)))
        return
    ntz = exp.DataType.build("TIMESTAMP_NTZ", dialect="spark")
    if unit in _BY_DATE or unit == "DAY":
        day = _date(value)
        truncated = day if unit == "DAY" else _fn("TRUNC", day, exp.Literal.string(unit))
        node.replace(exp.Cast(this=truncated, to=ntz))
        return
    parts = [_fn(f, value.copy()) for f in ("YEAR", "MONTH", "DAY", "HOUR")]
    zero = exp.Literal.number(0)
    minute = _fn("MINUTE", value.copy()) if unit in ("MINUTE", "SECOND") else zero
    second = _fn("SECOND", value.copy()) if unit == "SECOND" else zero.copy()
    node.replace(_fn("MAKE_TIMESTAMP_NTZ", *parts, minute, second))


def _truncate_to_timestamp(node: exp.Expr) -> None:
    cast_in_place(node, exp.DataType.build("TIMESTAMP_NTZ", dialect="spark"))
    _truncate(node)


_TRUNC_DATE_TO_TIMESTAMP = Rewrite("CAST(trunc(date) AS TIMESTAMP_NTZ)", _truncate_to_timestamp)
_TRUNC_REWRITE = Rewrite("trunc(date) or a TIMESTAMP_NTZ built field by field", _truncate)

TRUNC_WITHOUT_TIME_ZONE = Check(
    "date_trunc of a DATE or a timestamp without time zone, without the session time zone",
    (_truncatable,),
    ("trunc-unit", "time-zone"),
)


def _iso_day_of_week(node: exp.Expr) -> None:
    node.replace(exp.Paren(this=exp.Add(this=_fn("WEEKDAY", node.this), expression=exp.Literal.number(1))))


DAY_OF_WEEK_ISO = Rewrite("weekday(x) + 1", _iso_day_of_week)


_ZONED = frozenset({_T.TIMESTAMPTZ, _T.TIMESTAMPLTZ})


def _zone_free(node: exp.Expr, ctx: Context) -> None:
    for arg in (node.this, node.args.get("expression")):
        if isinstance(arg, exp.Expr) and _kind(arg) in _ZONED:
            ctx.add(
                "time-zone",
                node,
                f"a field of a timestamp with time zone: Spark reads it in the session time zone, {ctx.source} in another",
            )
            return


ZONE_FREE = Check("a date or a timestamp without time zone", (_zone_free,), ("time-zone",))
