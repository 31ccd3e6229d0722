"""Times on the command line: ISO-8601 in UTC out, ISO-8601 or epoch milliseconds in."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from iceview.cli.errors import CliUsageError

__all__ = ["iso_utc", "parse_timestamp"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MILLIS = re.compile(r"-?[0-9]+")


def iso_utc(timestamp_ms: int) -> str:
    """``2024-05-01T12:30:00.123Z``."""
    moment = _EPOCH + timedelta(milliseconds=timestamp_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{timestamp_ms % 1000:03d}Z"


def parse_timestamp(text: str) -> int:
    """Epoch milliseconds from epoch milliseconds or an ISO-8601 date or time; a time without an
    offset is UTC."""
    value = text.strip()
    if _MILLIS.fullmatch(value):
        return int(value)
    iso = value[:-1] + "+00:00" if value[-1:] in ("Z", "z") else value
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        raise CliUsageError(
            f"invalid timestamp {text!r}: give ISO-8601 (2024-05-01T12:30:00Z) or epoch milliseconds"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
