"""``translate``, ``add-dialect`` and ``sql`` (DuckDB engine) in-process, through click's CliRunner,
against the events lake (cli_support.add_events): the Iceberg table ``default.events``, the Spark
view ``default.events_by_source`` and the Trino-only view ``default.source_stats``. Bad input is in
test_cli_errors.py, real processes in test_cli_subprocess.py, the Spark engine in
test_cli_sql_spark.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import (
    BY_SOURCE,
    BY_SOURCE_ROWS,
    BY_SOURCE_SCHEMA,
    BY_SOURCE_SQL,
    SOURCE_STATS,
    SOURCE_STATS_ROWS,
    VIEW,
    Demo,
    build_lake,
    error_line,
    invoke,
    parse_json,
    screen,
    terminal,
)
from click.testing import Result

from fixtures.events import EVENTS_SCHEMA
from iceview.cli import ExitCode

# SQL text has no view schema: the query as it is
BY_SOURCE_TRINO_TEXT = (
    'SELECT events.source AS source, COUNT(1) AS events, MIN(events.event_ts) AS first_seen FROM demo."default".events '
    "AS events GROUP BY events.source"
)
# a view's SQL follows Trino's view contract: each column named and typed as the view's schema stores it
BY_SOURCE_TRINO = (
    'SELECT CAST("__c0" AS VARCHAR) AS "source", CAST("__c1" AS BIGINT) AS "events", '
    'CAST("__c2" AS TIMESTAMP(6)) AS "first_seen" FROM (SELECT events.source AS source, COUNT(1) AS events, '
    'MIN(events.event_ts) AS first_seen FROM demo."default".events AS events GROUP BY events.source) '
    'AS "__v"("__c0", "__c1", "__c2")'
)
HASHED = "SELECT hash(source) % 4 AS bucket, count(1) AS n FROM events GROUP BY 1"


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """One lake for the tests that do not change it."""
    return build_lake(tmp_path_factory.mktemp("lake"))


@pytest.fixture
def own_lake(tmp_path: Path) -> Demo:
    return build_lake(tmp_path / "lake")


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    return result


def refused(result: Result, *fragments: str) -> str:
    assert result.exit_code == ExitCode.REFUSED, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    line = error_line(result.stderr)
    for fragment in fragments:
        assert fragment in line, line
    return line


def metadata_location(lake: Demo, view: str) -> str:
    with lake.catalog() as catalog:
        location = catalog.load_view(view).metadata_location
    assert location is not None
    return location


# ----------------------------------------------------------------------------- translate: SQL text


def test_translate_sql_text(lake: Demo) -> None:
    out = ok(invoke(lake.env, "translate", "--sql", BY_SOURCE_SQL, "--from", "spark", "--to", "trino")).stdout
    assert out == BY_SOURCE_TRINO_TEXT + "\n"
    assert "\x1b[" not in out  # no colour off a terminal
    duckdb = ok(
        invoke(lake.env, "translate", "--sql", BY_SOURCE_SQL, "--to", "DuckDB")
    ).stdout  # --from spark
    assert duckdb == BY_SOURCE_TRINO_TEXT + "\n"  # the same text in both dialects


def test_translate_is_highlighted_on_a_terminal(lake: Demo) -> None:
    out = ok(
        invoke({**lake.env, "FORCE_COLOR": "1"}, "translate", "--sql", BY_SOURCE_SQL, "--to", "trino")
    ).stdout
    assert "\x1b[" in out and "SELECT" in out


def test_translate_sql_from_stdin(lake: Demo) -> None:
    result = invoke(lake.env, "translate", "--sql", "-", "--to", "trino", input=BY_SOURCE_SQL)
    assert ok(result).stdout == BY_SOURCE_TRINO_TEXT + "\n"


def test_translate_sql_text_names(lake: Demo) -> None:
    other = ok(
        invoke(
            lake.env, "translate", "--sql", "SELECT id FROM t", "--to", "trino", "--default-namespace", "ns"
        )
    )
    assert other.stdout.strip() == "SELECT id FROM demo.ns.t"
    prod = invoke(
        lake.env, "translate", "--sql", "SELECT id FROM db.t", "--to", "duckdb", "--default-catalog", "prod"
    )
    assert ok(prod).stdout.strip() == "SELECT id FROM prod.db.t"


def test_translate_uses_the_catalog_schemas(lake: Demo) -> None:
    """A cast of a column is proven safe with the table's schema, and refused without one."""
    cast = "SELECT CAST(event_id AS STRING) AS id FROM {table}"
    safe = ok(invoke(lake.env, "translate", "--sql", cast.format(table="events"), "--to", "trino"))
    assert (
        safe.stdout.strip()
        == 'SELECT TRY_CAST(events.event_id AS VARCHAR) AS id FROM demo."default".events AS events'
    )
    refused(
        invoke(lake.env, "translate", "--sql", cast.format(table="missing"), "--to", "trino"),
        "cannot translate spark SQL to trino: 1 construct refused: CAST(event_id AS STRING): the operand's type is unknown",
        "[ansi-cast]",
    )


def test_translate_without_a_catalog_warns_and_goes_on(empty_env: dict[str, str]) -> None:
    result = invoke(empty_env, "translate", "--sql", "SELECT id FROM t", "--to", "trino")
    assert result.exit_code == 0
    assert result.stdout.strip() == 'SELECT id FROM "default"."default".t'
    line = error_line(result.stderr)
    assert line.startswith("iceview: warning: no table schemas: no catalog: 'default' is not configured")
    assert line.endswith("casts of columns will be refused")


def test_translate_refusal_names_every_construct(lake: Demo) -> None:
    line = refused(invoke(lake.env, "translate", "--sql", HASHED, "--to", "trino"))
    assert line == (
        "iceview: cannot translate spark SQL to trino: 2 constructs refused: "
        "HASH(events.source): Spark's hash() is Murmur3 with seed 42; no other engine computes the same values [hash]; "
        "HASH(events.source): hash() is not a Trino function [unknown-function]"
    )


def test_translate_refusal_as_json(lake: Demo) -> None:
    result = invoke(lake.env, "translate", "--sql", HASHED, "--to", "duckdb", "-o", "json")
    assert result.exit_code == ExitCode.REFUSED and result.stderr == ""
    data = parse_json(result.stdout)
    assert data["sql"] is None and data["warnings"] == []
    assert data["refused"] == [
        {
            "code": "hash",
            "construct": "HASH(events.source)",
            "reason": "Spark's hash() is Murmur3 with seed 42; no other engine computes the same values",
        }
    ]
    assert data["error"].startswith(
        "cannot translate spark SQL to duckdb: 1 construct refused: HASH(events.source)"
    )


def test_translate_lenient(lake: Demo) -> None:
    result = invoke(lake.env, "translate", "--sql", HASHED, "--to", "duckdb", "--lenient")
    assert result.exit_code == 0
    assert result.stdout.strip() == (
        'SELECT HASH(events.source) % 4 AS bucket, COUNT(1) AS n FROM demo."default".events AS events '
        "GROUP BY HASH(events.source) % 4"
    )
    assert result.stderr == (
        "iceview: warning: unsafe: HASH(events.source): Spark's hash() is Murmur3 with seed 42; "
        "no other engine computes the same values [hash]\n"
    )
    data = parse_json(
        ok(invoke(lake.env, "translate", "--sql", HASHED, "--to", "duckdb", "--lenient", "-o", "json")).stdout
    )
    assert data["sql"].startswith("SELECT HASH(events.source)")
    assert [w["code"] for w in data["warnings"]] == ["hash"] and data["refused"] == []


def test_translate_json(lake: Demo) -> None:
    data = parse_json(
        ok(invoke(lake.env, "translate", "--sql", BY_SOURCE_SQL, "--to", "trino", "-o", "json")).stdout
    )
    assert data == {
        "view": None,
        "source": "spark",
        "target": "trino",
        "default-catalog": "demo",
        "default-namespace": ["default"],
        "sql": BY_SOURCE_TRINO_TEXT,
        "warnings": [],
        "refused": [],
    }


# ----------------------------------------------------------------------------- translate: a view


def test_translate_a_view(lake: Demo) -> None:
    assert ok(invoke(lake.env, "translate", BY_SOURCE, "--to", "trino")).stdout == BY_SOURCE_TRINO + "\n"
    data = parse_json(ok(invoke(lake.env, "translate", SOURCE_STATS, "--to", "spark", "-o", "json")).stdout)
    assert data["view"] == SOURCE_STATS and data["source"] == "trino" and data["target"] == "spark"
    assert data["sql"] == (
        "SELECT events.source AS source, COUNT(*) AS events, MAX(events.event_id) AS last_id "
        "FROM demo.`default`.events AS events WHERE events.event_id > 1 GROUP BY events.source"
    )


def test_translate_a_view_from_a_chosen_dialect(own_lake: Demo) -> None:
    ok(invoke(own_lake.env, "add-dialect", BY_SOURCE, "duckdb"))
    out = ok(invoke(own_lake.env, "translate", BY_SOURCE, "--from", "duckdb", "--to", "trino")).stdout
    assert out == BY_SOURCE_TRINO + "\n"
    line = error_line(
        invoke(own_lake.env, "translate", SOURCE_STATS, "--from", "spark", "--to", "duckdb").stderr
    )
    assert line == f"iceview: {SOURCE_STATS} has no SQL for dialect spark (its dialects: trino)"


def test_translate_a_view_that_is_refused(lake: Demo) -> None:
    """The Appendix A view reads prod.default.events: prod is no catalog here, so the name has four
    parts, and the table's schema is unknown."""
    line = refused(invoke(lake.env, "translate", VIEW, "--to", "trino"))
    assert line.startswith(f"iceview: {VIEW}: cannot translate spark SQL to trino: 2 constructs refused: ")
    assert "CAST(event_ts AS DATE): the operand's type is unknown" in line and "[ansi-cast]" in line
    assert "demo.prod.`default`.events: trino names have at most three parts" in line


# ----------------------------------------------------------------------------- add-dialect


def test_add_dialect_commits_one_version(own_lake: Demo) -> None:
    before = metadata_location(own_lake, BY_SOURCE)
    expected = ok(invoke(own_lake.env, "translate", BY_SOURCE, "--to", "duckdb")).stdout.strip()
    result = ok(invoke(own_lake.env, "add-dialect", BY_SOURCE, "trino", "duckdb"))
    assert result.stdout == f"{BY_SOURCE}: version 2 adds trino, duckdb (translated from spark)\n"
    with own_lake.catalog() as catalog:
        view = catalog.load_view(BY_SOURCE)
        assert view.metadata_location != before
        assert [v.version_id for v in view.versions] == [1, 2]
        current = view.current_version
        assert list(current.dialects) == ["spark", "trino", "duckdb"]
        assert current.summary["iceview.translated-from"] == "spark"
        assert view.schema.as_struct() == BY_SOURCE_SCHEMA.as_struct()
        sql = {r.dialect: r.sql for r in current.representations}  # type: ignore[attr-defined]
    assert sql == {"spark": BY_SOURCE_SQL, "trino": BY_SOURCE_TRINO, "duckdb": expected}


def test_add_dialect_json_and_dialects_already_there(own_lake: Demo) -> None:
    data = parse_json(
        ok(invoke(own_lake.env, "add-dialect", BY_SOURCE, "trino", "spark", "-o", "json")).stdout
    )
    assert data == {
        "view": BY_SOURCE,
        "changed": True,
        "previous-version-id": 1,
        "version-id": 2,
        "added": ["trino"],
        "already-present": ["spark"],
        "translated-from": "spark",
        "metadata-file": metadata_location(own_lake, BY_SOURCE),
    }
    again = ok(invoke(own_lake.env, "add-dialect", BY_SOURCE, "trino", "TRINO"))
    assert again.stdout == f"{BY_SOURCE}: it already has trino; nothing changed\n"
    with own_lake.catalog() as catalog:
        assert len(catalog.load_view(BY_SOURCE).versions) == 2


def test_add_dialect_from_trino(own_lake: Demo) -> None:
    result = ok(invoke(own_lake.env, "add-dialect", SOURCE_STATS, "duckdb", "spark", "--from", "trino"))
    assert result.stdout == f"{SOURCE_STATS}: version 2 adds duckdb, spark (translated from trino)\n"


def test_add_dialect_refused_commits_nothing(own_lake: Demo) -> None:
    before = metadata_location(own_lake, VIEW)
    line = refused(invoke(own_lake.env, "add-dialect", VIEW, "trino", "duckdb"))
    assert line.startswith(
        f"iceview: {VIEW}: nothing was committed: cannot translate spark SQL to trino: 2 constructs refused: "
    )
    assert "; cannot translate spark SQL to duckdb: 2 constructs refused: " in line  # every dialect
    assert line.count("[ansi-cast]") == 2 and line.count("[nested-namespace]") == 2
    assert metadata_location(own_lake, VIEW) == before
    result = invoke(own_lake.env, "add-dialect", VIEW, "duckdb", "-o", "json")
    assert result.exit_code == ExitCode.REFUSED and result.stderr == ""
    data = parse_json(result.stdout)
    assert data["changed"] is False and data["version-id"] == 3 and data["metadata-file"] == before
    assert [i["code"] for i in data["refused"]["duckdb"]] == ["ansi-cast", "nested-namespace"]
    assert metadata_location(own_lake, VIEW) == before


def test_add_dialect_refuses_all_when_one_dialect_is_unsafe(own_lake: Demo) -> None:
    """duckdb alone would be fine; trino is refused, so neither is added."""
    with own_lake.catalog() as catalog:
        catalog.create_view(
            "default.buckets",
            schema=BY_SOURCE_SCHEMA,
            queries={
                "spark": "SELECT source, xxhash64(source) AS h, max(event_ts) AS m FROM events GROUP BY source"
            },
            default_namespace=("default",),
        )
    line = refused(invoke(own_lake.env, "add-dialect", "default.buckets", "duckdb", "trino"))
    assert "XXHASH64(events.source)" in line and "[hash]" in line
    with own_lake.catalog() as catalog:
        assert len(catalog.load_view("default.buckets").versions) == 1


def test_add_dialect_names_every_refused_dialect_at_once(own_lake: Demo) -> None:
    """A Java regular expression is unsafe in Trino and in DuckDB: one refusal names both dialects
    (the library's DialectsRefusedError), and nothing is committed."""
    with own_lake.catalog() as catalog:
        catalog.create_view(
            "default.web_events",
            schema=EVENTS_SCHEMA,
            queries={"spark": "SELECT * FROM events WHERE source RLIKE '^w'"},
            default_namespace=("default",),
        )
    before = metadata_location(own_lake, "default.web_events")
    line = refused(invoke(own_lake.env, "add-dialect", "default.web_events", "trino", "duckdb"))
    assert line.startswith("iceview: default.web_events: nothing was committed: ")
    assert "cannot translate spark SQL to trino: 1 construct refused: events.source RLIKE '^w'" in line
    assert "; cannot translate spark SQL to duckdb: 1 construct refused: events.source RLIKE '^w'" in line
    assert line.count("[regex]") == 2
    result = invoke(own_lake.env, "add-dialect", "default.web_events", "duckdb", "trino", "-o", "json")
    assert result.exit_code == ExitCode.REFUSED and result.stderr == ""
    data = parse_json(result.stdout)
    assert list(data["refused"]) == ["duckdb", "trino"]  # in the order asked for
    assert [[i["code"] for i in issues] for issues in data["refused"].values()] == [["regex"], ["regex"]]
    assert "to duckdb" in data["error"] and "to trino" in data["error"]
    assert metadata_location(own_lake, "default.web_events") == before


def test_add_dialect_to_a_view_whose_sql_does_not_parse(own_lake: Demo) -> None:
    with own_lake.catalog() as catalog:
        catalog.create_view(
            "default.broken",
            schema=BY_SOURCE_SCHEMA,
            queries={"spark": "SELECT FROM WHERE ((("},
            default_namespace=("default",),
        )
    line = refused(invoke(own_lake.env, "add-dialect", "default.broken", "trino", "duckdb"))
    assert line.startswith("iceview: default.broken: nothing was committed: Cannot translate spark SQL: ")
    with own_lake.catalog() as catalog:
        assert len(catalog.load_view("default.broken").versions) == 1


# ----------------------------------------------------------------------------- sql (DuckDB)


def test_sql_prints_a_table(lake: Demo) -> None:
    result = ok(
        invoke(
            terminal(lake.env), "sql", "SELECT * FROM default.events_by_source ORDER BY source", "--translate"
        )
    )
    lines = screen(result.stdout).splitlines()
    assert lines[0].split() == ["source", "events", "first_seen"]
    assert [line.split() for line in lines[2:5]] == [
        [source, str(n), *str(first).split()] for source, n, first in BY_SOURCE_ROWS
    ]
    assert lines[5] == "3 rows"
    assert lines[2].index("1") > lines[0].index("events")  # numbers are right-aligned


def test_sql_json_is_a_list_of_row_objects(lake: Demo) -> None:
    query = "SELECT * FROM source_stats ORDER BY source"  # the current namespace is default
    data = parse_json(ok(invoke(lake.env, "sql", query, "--translate", "-o", "json")).stdout)
    assert data == [{"source": s, "events": n, "last_id": i} for s, n, i in SOURCE_STATS_ROWS]
    by_source = parse_json(
        ok(
            invoke(lake.env, "sql", f"SELECT * FROM {BY_SOURCE} ORDER BY 1", "--translate", "-o", "json")
        ).stdout
    )
    assert by_source[0] == {"source": "api", "events": 1, "first_seen": "2026-11-21T11:00:00"}


def test_sql_joins_views_and_tables(lake: Demo) -> None:
    query = (
        "SELECT e.event_id, s.events, b.first_seen FROM events e JOIN source_stats s USING (source) "
        "JOIN events_by_source b USING (source) WHERE e.event_id < 3 ORDER BY 1"
    )
    data = parse_json(ok(invoke(lake.env, "sql", query, "--translate", "-o", "json")).stdout)
    assert data == [
        {"event_id": 1, "events": 2, "first_seen": "2026-11-20T08:00:00"},
        {"event_id": 2, "events": 2, "first_seen": "2026-11-20T09:30:00"},
    ]


def test_sql_translates_by_default_and_not_with_no_translate(own_lake: Demo) -> None:
    query = f"SELECT sum(events) AS n FROM {BY_SOURCE}"
    translated = parse_json(ok(invoke(own_lake.env, "sql", query, "-o", "json")).stdout)
    assert translated == parse_json(
        ok(invoke(own_lake.env, "sql", query, "--translate", "-o", "json")).stdout
    )
    refused(
        invoke(own_lake.env, "sql", query, "--no-translate"),
        f"View demo.{BY_SOURCE} has no SQL for dialect duckdb (its dialects: spark); drop --no-translate",
    )
    result = invoke(own_lake.env, "sql", query, "--no-translate", "--lenient")
    assert result.exit_code == 2 and "--lenient cannot be used with --no-translate" in result.output


def test_sql_reads_the_duckdb_sql_without_translating(own_lake: Demo) -> None:
    refused(
        invoke(own_lake.env, "sql", f"SELECT count(*) FROM {BY_SOURCE}", "--no-translate"),
        f"View demo.{BY_SOURCE} has no SQL for dialect duckdb (its dialects: spark); drop --no-translate",
    )
    ok(invoke(own_lake.env, "add-dialect", BY_SOURCE, "duckdb"))
    data = parse_json(
        ok(invoke(own_lake.env, "sql", f"SELECT sum(events) AS n FROM {BY_SOURCE}", "-o", "json")).stdout
    )
    assert data == [{"n": 6}]


def test_sql_unsafe_view_refused_or_lenient(own_lake: Demo) -> None:
    with own_lake.catalog() as catalog:
        catalog.create_view(
            "default.hashed",
            schema=BY_SOURCE_SCHEMA,
            queries={
                "spark": "SELECT source, hash(source) AS h, max(event_ts) AS m FROM events GROUP BY source"
            },
            default_namespace=("default",),
        )
    refused(
        invoke(own_lake.env, "sql", "SELECT count(*) AS n FROM default.hashed", "--translate"),
        "cannot translate spark SQL to duckdb: 1 construct refused: HASH(events.source)",
        "[hash]",
    )
    lenient = invoke(
        own_lake.env,
        "sql",
        "SELECT count(*) AS n FROM default.hashed",
        "--translate",
        "--lenient",
        "-o",
        "json",
    )
    assert lenient.exit_code == 0 and parse_json(lenient.stdout) == [{"n": 3}]
    assert error_line(lenient.stderr).startswith(
        "iceview: warning: unsafe translation: HASH(events.source): Spark's hash()"
    )


def test_sql_values_in_json_and_text(lake: Demo) -> None:
    query = (
        "SELECT 1.50::DECIMAL(4, 2) AS d, NULL AS nothing, [1, 2] AS l, {'a': 1} AS s, DATE '2026-01-02' AS day, "
        "'\\x01\\x02'::BLOB AS b, 'nan'::DOUBLE AS nan, true AS t, 2.5::DOUBLE AS f, 1 AS x, 2 AS x"
    )
    data = parse_json(ok(invoke(lake.env, "sql", query, "-o", "json")).stdout)
    assert data == [
        {
            "d": "1.50",
            "nothing": None,
            "l": [1, 2],
            "s": {"a": 1},
            "day": "2026-01-02",
            "b": "AQI=",
            "nan": "nan",
            "t": True,
            "f": 2.5,
            "x": 1,
            "x_2": 2,
        }
    ]
    text = screen(ok(invoke(terminal(lake.env, 200), "sql", query)).stdout).splitlines()
    assert text[2].split() == [
        "1.50",
        "NULL",
        "[1,",
        "2]",
        '{"a":',
        "1}",
        "2026-01-02",
        "AQI=",
        "nan",
        "true",
        "2.5",
        "1",
        "2",
    ]
    assert text[-1] == "1 row"


def test_sql_from_stdin_and_in_another_namespace(own_lake: Demo) -> None:
    with own_lake.catalog() as catalog:
        catalog.create_namespace("other")
    result = invoke(
        own_lake.env,
        "sql",
        "-",
        "-n",
        "other",
        "-o",
        "json",
        input="SELECT count(*) AS n FROM default.events",
    )
    assert parse_json(ok(result).stdout) == [{"n": 6}]
    empty = "SELECT 1 AS one WHERE false"
    assert screen(ok(invoke(terminal(own_lake.env), "sql", empty)).stdout) == "one\n───\n0 rows\n"
    assert ok(invoke(own_lake.env, "sql", empty)).stdout == "one\n"  # piped: the header only
