"""The CLI's small parts: view names, timestamps, one-line messages, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import PySparkException

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
        ("0ms", 0),
        ("0s", 0),
        ("1700000000s", 1_700_000_000_000),
        ("1700000000123ms", 1_700_000_000_123),
        ("100000000000", 100_000_000_000),
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


@pytest.mark.parametrize("text", ["0", "1700000000", "-5"])
def test_short_bare_numbers_are_ambiguous(text: str) -> None:
    with pytest.raises(CliUsageError, match=f"ambiguous timestamp '{text}': as epoch milliseconds it is 19"):
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


def test_exit_code_for_a_refused_translation() -> None:
    assert ExitCode.REFUSED == 7
    assert not hasattr(ExitCode, "NOT_AVAILABLE")


# ----------------------------------------------------------------------------- sql: engines, values


class _SparkError(PySparkException):
    """A stand-in for pyspark's captured exceptions (an error class, a message with the plan)."""

    def __init__(self, error_class: str, message: str) -> None:
        Exception.__init__(self, message)
        self.error_class = error_class
        self.message = message
        self.message_parameters = None

    def __str__(self) -> str:
        return self.message


def test_spark_errors_are_one_line_without_the_plan() -> None:
    from iceview.cli.engines import _spark_error
    from iceview.cli.errors import CliError, NotFound

    missing = _spark_error(
        _SparkError(
            "TABLE_OR_VIEW_NOT_FOUND",
            "[TABLE_OR_VIEW_NOT_FOUND] The table or view `nope` cannot be found.\n'UnresolvedRelation [nope]",
        )
    )
    assert isinstance(missing, NotFound)
    assert (
        missing.format_message()
        == "spark: [TABLE_OR_VIEW_NOT_FOUND] The table or view `nope` cannot be found."
    )
    syntax = _spark_error(
        _SparkError(
            "PARSE_SYNTAX_ERROR", "\n[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.\n== SQL =="
        )
    )
    assert type(syntax) is CliError
    assert syntax.format_message() == "spark: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'."
    other = ValueError("not from Spark")
    assert _spark_error(other) is other


def test_spark_conf_registers_the_catalog_without_creating_tables(tmp_path: Path) -> None:
    from iceview.catalog.sql import SqlCatalog
    from iceview.cli.engines import _spark_conf

    catalog = SqlCatalog("lake", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{tmp_path}/wh")
    try:
        conf = _spark_conf(catalog)
    finally:
        catalog.close()
    assert conf["spark.sql.catalog.lake"] == "org.apache.iceberg.spark.SparkCatalog"
    assert conf["spark.sql.catalog.lake.uri"] == f"jdbc:sqlite:{tmp_path}/catalog.db"
    assert conf["spark.sql.catalog.lake.jdbc.init-catalog-tables"] == "false"
    assert conf["spark.sql.catalog.lake.clients"] == "1"


def test_json_values() -> None:
    import datetime
    import decimal

    from iceview.cli.engines import cell_text, json_value, unique_names

    assert json_value(decimal.Decimal("1.50")) == "1.50"
    assert json_value(datetime.datetime(2026, 1, 2, 3, 4, 5)) == "2026-01-02T03:04:05"
    assert json_value(float("inf")) == "inf" and json_value(2.5) == 2.5
    assert json_value(b"\x01\x02") == "AQI="
    assert json_value({"a": [1, (2, None)]}) == {"a": [1, [2, None]]}
    assert cell_text(None) is None and cell_text(False) == "false"
    assert cell_text(datetime.datetime(2026, 1, 2, 3, 4)) == "2026-01-02 03:04:00"
    assert cell_text({"k": [1]}) == '{"k": [1]}'
    assert unique_names(["n", "n", "n_2", "x"]) == ["n", "n_2", "n_2_2", "x"]
