"""Times on the command line: ISO-8601 in UTC out, ISO-8601 or epoch milliseconds in."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from iceview.cli.errors import CliUsageError

__all__ = ["iso_local", "iso_utc", "parse_duration", "parse_timestamp"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MILLIS = re.compile(r"-?[0-9]+")
_UNIT = re.compile(r"(-?[0-9]+)\s*(ms|s)", re.I)
_SMALLEST_BARE_MILLIS = 100_000_000_000  # 1973-03-03 as milliseconds; as seconds, year 5138


def iso_utc(timestamp_ms: int) -> str:
    """``2024-05-01T12:30:00.123Z``."""
    moment = _EPOCH + timedelta(milliseconds=timestamp_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{timestamp_ms % 1000:03d}Z"


def iso_local(timestamp_ms: int) -> str:
    """``2024-05-01T14:30:00.123+02:00``: the time in this machine's time zone (``$TZ``)."""
    moment = (_EPOCH + timedelta(milliseconds=timestamp_ms)).astimezone()
    return moment.isoformat(timespec="milliseconds")


def parse_timestamp(text: str) -> int:
    """Epoch milliseconds from an ISO-8601 date or time (UTC unless it has an offset), or from a
    number with its unit: ``1700000000000ms`` or ``1700000000s``. A bare number is milliseconds
    when it has 12 digits or more (any time from 1973 on); a shorter one would be read as a time in
    1970, so it is refused, with both readings named."""
    value = text.strip()
    unit = _UNIT.fullmatch(value)
    if unit:
        number = int(unit.group(1))
        return number * 1000 if unit.group(2).lower() == "s" else number
    if _MILLIS.fullmatch(value):
        number = int(value)
        if abs(number) >= _SMALLEST_BARE_MILLIS:
            return number
        raise CliUsageError(
            f"ambiguous timestamp {text!r}: as epoch milliseconds it is {iso_utc(number)}, as seconds "
            f"{iso_utc(number * 1000)}; write {number}ms or {number}s, or an ISO-8601 time"
        )
    iso = value[:-1] + "+00:00" if value[-1:] in ("Z", "z") else value
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        raise CliUsageError(
            f"invalid timestamp {text!r}: give ISO-8601 (2024-05-01T12:30:00Z), or epoch milliseconds "
            "(1714566600000 or 1714566600000ms) or seconds (1714566600s)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """A duration as seconds: a number with a unit (``90s``, ``30m``, ``1h``, ``7d``), or ``0``."""
    value = text.strip().lower()
    unit = value[-1:] if value[-1:] in _DURATION_UNITS else ""
    number = value[: len(value) - len(unit)] if unit else value
    try:
        amount = float(number)
    except ValueError:
        raise ValueError(
            f"invalid duration {text!r}: expected a number and a unit (s, m, h, d), e.g. 1h"
        ) from None
    if amount < 0 or amount != amount or amount == float("inf") or (not unit and amount != 0):
        raise ValueError(f"invalid duration {text!r}: expected a number and a unit (s, m, h, d), e.g. 1h")
    return amount * _DURATION_UNITS.get(unit, 1)
