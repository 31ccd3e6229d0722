"""The CLI's small parts: view names, timestamps, one-line messages, exit codes."""

from __future__ import annotations

import pytest

from iceview.cli.errors import CliUsageError, ExitCode, one_line
from iceview.cli.names import format_name, parse_name, parse_namespace
from iceview.cli.times import iso_utc, parse_timestamp


@pytest.mark.parametrize(
    ("text", "levels"),
    [
        ("ns.v", ("ns", "v")),
        ("a.b.c.v", ("a", "b", "c", "v")),
        ("v", ("v",)),
        ("`ns`.`v`", ("ns", "v")),
        ("ns.`my.view`", ("ns", "my.view")),
        ("ns.`back``quote`", ("ns", "back`quote")),
        ("`a.b`.c", ("a.b", "c")),
        ("ns.`with space`", ("ns", "with space")),
    ],
)
def test_parse_name(text: str, levels: tuple[str, ...]) -> None:
    assert parse_name(text) == levels
    assert parse_name(format_name(levels)) == levels


@pytest.mark.parametrize("text", ["", ".v", "ns.", "a..b", "ns.`v", "`"])
def test_bad_names(text: str) -> None:
    with pytest.raises(CliUsageError):
        parse_name(text)


def test_format_name_quotes_only_when_needed() -> None:
    assert format_name(("ns", "v")) == "ns.v"
    assert format_name(("ns", "my.view")) == "ns.`my.view`"
    assert format_name(("ns", "a`b")) == "ns.`a``b`"


def test_parse_namespace() -> None:
    assert parse_namespace(None) == () and parse_namespace("") == ()
    assert parse_namespace("a.b") == ("a", "b")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("1700000000123", 1_700_000_000_123),
        ("1970-01-01", 0),
        ("1970-01-01T00:00:01Z", 1000),
        ("1970-01-01T00:00:01.5z", 1500),
        ("1970-01-01T01:00:00+01:00", 0),
        ("1970-01-01 00:00:00.001", 1),
        ("2023-11-14T22:13:20.123Z", 1_700_000_000_123),
    ],
)
def test_parse_timestamp(text: str, expected: int) -> None:
    assert parse_timestamp(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "2023-13-01", "12:00", ""])
def test_bad_timestamps(text: str) -> None:
    with pytest.raises(CliUsageError, match="invalid timestamp"):
        parse_timestamp(text)


@pytest.mark.parametrize("ms", [0, 1, 999, 1_700_000_000_123, -1, -1001])
def test_iso_utc_round_trip(ms: int) -> None:
    text = iso_utc(ms)
    assert text.endswith("Z") and len(text) == 24
    assert parse_timestamp(text) == ms


def test_iso_utc() -> None:
    assert iso_utc(1_700_000_000_123) == "2023-11-14T22:13:20.123Z"
    assert iso_utc(-1) == "1969-12-31T23:59:59.999Z"


def test_one_line() -> None:
    assert one_line("a:\nb\n\n c ") == "a: b; c"
    assert one_line("single") == "single"


def test_exit_codes_are_distinct() -> None:
    assert len({int(c) for c in ExitCode}) == len(ExitCode)
    assert (ExitCode.OK, ExitCode.FAILURE, ExitCode.USAGE) == (0, 1, 2)
