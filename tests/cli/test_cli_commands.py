"""Every command's normal use, in-process (click's CliRunner), text and JSON output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import CATALOG, DATA, OTHER, SQL_1, SQL_3, VIEW, Demo, build_demo, invoke, parse_json
from click.testing import Result

from iceview.cli.times import iso_utc

Run = Callable[..., Result]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """One demo catalog for the tests that only read it."""
    return build_demo(tmp_path_factory.mktemp("shared"))


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    return result


def read(shared: Demo, *args: str) -> Result:
    return ok(invoke(shared.env, *args))


# ----------------------------------------------------------------------------- catalogs, listing


def test_help_lists_every_command() -> None:
    result = ok(invoke({}, "--help"))
    for name in (
        "catalogs", "namespaces", "list", "show", "history", "diff", "rollback", "set-property",
        "unset-property", "rename", "drop", "orphans", "lint", "translate", "add-dialect", "sql",
    ):  # fmt: skip
        assert f"\n  {name} " in result.stdout
    assert "Exit codes" in result.stdout


def test_no_command_prints_help() -> None:
    assert "Commands:" in ok(invoke({})).stdout


def test_version() -> None:
    assert ok(invoke({}, "--version")).stdout.startswith("iceview 0.1.0")


def test_catalogs_text_and_json(shared: Demo) -> None:
    text = read(shared, "catalogs").stdout
    assert "demo (default)" in text and f"sqlite:///{shared.database}" in text
    data = parse_json(read(shared, "catalogs", "-o", "json").stdout)
    assert data["default-catalog"] == CATALOG
    assert data["config-file"] is None
    assert data["catalogs"] == [
        {
            "name": CATALOG,
            "default": True,
            "configured": True,
            "type": "sql",
            "uri": f"sqlite:///{shared.database}",
            "warehouse": f"file://{shared.warehouse}",
        }
    ]


def test_namespaces(shared: Demo) -> None:
    assert read(shared, "namespaces").stdout.splitlines() == ["analytics", "default"]
    assert read(shared, "namespaces", "analytics").stdout.splitlines() == ["analytics.daily"]
    data = parse_json(read(shared, "namespaces", "analytics", "--output", "json").stdout)
    assert data == {"catalog": CATALOG, "parent": "analytics", "namespaces": ["analytics.daily"]}


def test_list(shared: Demo) -> None:
    assert read(shared, "list").stdout.splitlines() == [OTHER, VIEW]
    assert read(shared, "list", "analytics").stdout.splitlines() == [OTHER]
    assert read(shared, "list", "default", "--catalog", CATALOG).stdout.splitlines() == [VIEW]
    data = parse_json(read(shared, "-o", "json", "list").stdout)
    assert data == {"catalog": CATALOG, "namespace": None, "views": [OTHER, VIEW]}


def test_options_before_or_after_the_command(shared: Demo) -> None:
    before = read(shared, "--catalog", CATALOG, "--output", "json", "list").stdout
    after = read(shared, "list", "--catalog", CATALOG, "--output", "json").stdout
    assert before == after


# ----------------------------------------------------------------------------- show, history, diff


def test_show_text(shared: Demo) -> None:
    out = read(shared, "show", VIEW).stdout
    with shared.catalog() as catalog:
        md = catalog.load_view(VIEW).metadata
    for expected in (
        f"view               {VIEW}",
        f"uuid               {md.uuid}",
        f"metadata file      {md.metadata_file_location}",
        f"location           {md.location}",
        "current version    3 (replace, ",
        "summary            engine-name=Spark, engine-version=3.5.2",
        "SQL (spark)",
        SQL_3,
        "comment    Daily event counts",
    ):
        assert expected in out
    schema_rows = [line.split() for line in out.splitlines() if line.startswith(("1 ", "2 ", "3 "))]
    assert schema_rows[:3] == [
        ["1", "event_count", "long", "yes", "Count", "of", "events"],
        ["2", "event_date", "date", "no"],
        ["3", "source", "string", "no"],
    ]
    assert "\x1b[" not in out  # no colour off a terminal


def test_show_json(shared: Demo) -> None:
    data = parse_json(read(shared, "show", VIEW, "-o", "json").stdout)
    assert list(data) == [
        "view", "catalog", "metadata-file", "uuid", "format-version", "location",
        "current-version-id", "current-version", "schema", "properties", "functions",
    ]  # fmt: skip
    assert data["view"] == VIEW and data["catalog"] == CATALOG
    assert data["current-version-id"] == 3
    version = data["current-version"]
    assert version["representations"] == [{"type": "sql", "dialect": "spark", "sql": SQL_3, "derived": False}]
    assert version["summary"] == {"engine-name": "Spark", "engine-version": "3.5.2"}
    assert version["time"] == iso_utc(version["timestamp-ms"])
    assert version["default-namespace"] == ["default"] and version["default-catalog"] is None
    assert [f["name"] for f in data["schema"]["fields"]] == ["event_count", "event_date", "source"]
    assert data["properties"] == {"comment": "Daily event counts"}


def test_show_nested_schema_and_two_dialects(shared: Demo) -> None:
    out = read(shared, "show", OTHER).stdout
    assert "SQL (spark)" in out and "SQL (trino)" in out
    assert "list<string>" in out
    assert "Properties: none" in out


def test_show_a_metadata_file() -> None:
    path = DATA / "spec" / "appendix-a-newer-2.metadata.json"
    out = ok(invoke({}, "show", str(path))).stdout
    assert "prod.default.events" in out and "event_count" in out
    data = parse_json(ok(invoke({}, "show", str(path), "-o", "json")).stdout)
    assert data["view"] is None and data["catalog"] is None
    assert data["metadata-file"] == str(path)
    assert data["uuid"] == "fa6506c3-7681-40c8-86dc-e36561f83385"


def test_show_a_gzip_file_of_the_golden_set() -> None:
    folder = DATA / "golden" / "java-1.10.2" / "gz" / "default.event_agg"
    last = sorted(folder.iterdir())[-1]
    data = parse_json(ok(invoke({}, "show", str(last), "-o", "json")).stdout)
    assert data["current-version"]["summary"]["engine-name"] == "spark"


def test_history_text(shared: Demo) -> None:
    out = read(shared, "history", VIEW).stdout
    assert out.startswith(f"{VIEW}: current version 3")
    log_rows = [line.split() for line in out.splitlines() if line.startswith("20") and "Z" in line]
    # three periods of the log, then three versions
    assert [row[2] for row in log_rows[:3]] == ["1", "2", "3"]
    assert log_rows[2][1] == "now" and log_rows[2][3] == "current"
    assert "rollback" not in out
    version_rows = [line.split() for line in out.split("Versions")[1].splitlines()[3:]]
    assert [(row[0], row[2], row[3], row[4], row[5]) for row in version_rows] == [
        ("1", "create", "0", "Spark", "3.5.1"),
        ("2", "replace", "0", "Spark", "3.5.1"),
        ("3", "replace", "1", "Spark", "3.5.2"),
    ]


def test_history_json(shared: Demo) -> None:
    data = parse_json(read(shared, "history", VIEW, "-o", "json").stdout)
    assert data["current-version-id"] == 3
    periods = data["history"]
    assert [p["version-id"] for p in periods] == [1, 2, 3]
    assert [p["current"] for p in periods] == [False, False, True]
    assert periods[0]["until"] == periods[1]["from"]
    assert periods[-1]["until"] is None
    assert all(p["from"].endswith("Z") for p in periods)
    assert [v["version-id"] for v in data["versions"]] == [1, 2, 3]


def test_history_marks_rollbacks(run: Run) -> None:
    ok(run("rollback", VIEW, "--to", "1"))
    data = parse_json(ok(run("history", VIEW, "-o", "json")).stdout)
    assert [(p["version-id"], p["rollback"], p["current"]) for p in data["history"]] == [
        (1, False, False),
        (2, False, False),
        (3, False, False),
        (1, True, True),
    ]
    assert "rollback, current" in ok(run("history", VIEW)).stdout


def test_history_of_a_golden_file_with_expired_versions() -> None:
    path = (
        DATA / "golden" / "java-1.10.2" / "23-view-default.many_versions-after-many-versions-12.metadata.json"
    )
    data = parse_json(ok(invoke({}, "history", str(path), "-o", "json")).stdout)
    assert data["current-version-id"] == 12
    assert len(data["versions"]) == 10
    assert all(p["retained"] for p in data["history"])


def test_diff_text(shared: Demo) -> None:
    out = read(shared, "diff", VIEW, "1", "3").stdout
    assert out.startswith(f"{VIEW}: version 1 -> version 3")
    assert "  + source  string (optional)" in out
    assert "  ~ event_count  type: int -> long; required: optional -> required" in out
    assert "--- version 1 (spark)\n+++ version 3 (spark)" in out
    assert "-FROM events\n" in out and "+FROM prod.default.events\n" in out
    assert "  ~ engine-version: 3.5.1 -> 3.5.2" in out
    assert "Default namespace: default (unchanged)" in out
    assert "Default catalog: prod -> (none)" in out


def test_diff_json(shared: Demo) -> None:
    data = parse_json(read(shared, "diff", VIEW, "1", "current", "-o", "json").stdout)
    assert data["from"]["version-id"] == 1 and data["to"]["version-id"] == 3
    assert [c["name"] for c in data["schema"]["added"]] == ["source"]
    assert data["schema"]["removed"] == []
    assert data["schema"]["changed"] == [
        {
            "name": "event_count",
            "changes": {"type": {"from": "int", "to": "long"}, "required": {"from": False, "to": True}},
        }
    ]
    spark = data["sql"]["spark"]
    assert spark["changed"] and spark["from"] == SQL_1 and spark["to"] == SQL_3
    assert spark["diff"].startswith("--- version 1 (spark)\n+++ version 3 (spark)\n@@")
    assert data["summary"]["changed"] == {"engine-version": {"from": "3.5.1", "to": "3.5.2"}}
    assert data["default-catalog"] == {"from": "prod", "to": None, "changed": True}
    assert data["default-namespace"]["changed"] is False


def test_diff_defaults_to_the_current_version_and_reports_no_changes(shared: Demo) -> None:
    out = read(shared, "diff", VIEW, "3").stdout
    assert "Schema: no changes" in out and "SQL (spark): no changes" in out
    assert "Summary: no changes" in out


def test_diff_of_a_golden_file() -> None:
    path = DATA / "golden" / "java-1.10.2" / "10-view-default.dedupe-after-dedupe-replace-B.metadata.json"
    data = parse_json(ok(invoke({}, "diff", str(path), "1", "2", "-o", "json")).stdout)
    assert data["sql"]["spark"]["changed"]


# ----------------------------------------------------------------------------- changes


def test_rollback_to(run: Run, demo: Demo) -> None:
    result = ok(run("rollback", VIEW, "--to", "1"))
    assert result.stdout == f"{VIEW}: current version 3 -> 1\n"
    with demo.catalog() as catalog:
        md = catalog.load_view(VIEW).metadata
    assert md.current_version_id == 1
    assert [e.version_id for e in md.history] == [1, 2, 3, 1]
    again = ok(run("rollback", VIEW, "--to", "1"))
    assert again.stdout == f"{VIEW}: version 1 is already current; nothing changed\n"


def test_rollback_at_a_time(run: Run, demo: Demo) -> None:
    with demo.catalog() as catalog:
        log = list(catalog.load_view(VIEW).metadata.history)
    moment = log[1].timestamp_ms  # version 2 became current then
    data = parse_json(ok(run("rollback", VIEW, "--at", str(moment), "-o", "json")).stdout)
    assert data["previous-version-id"] == 3 and data["current-version-id"] == 2 and data["changed"]
    assert data["metadata-file"].endswith(".gz.metadata.json")
    # ISO-8601, with Z, with an offset, and naive (UTC)
    assert ok(run("rollback", VIEW, "--at", iso_utc(log[0].timestamp_ms))).stdout.endswith("2 -> 1\n")
    iso = iso_utc(log[2].timestamp_ms).replace("Z", "+00:00")
    assert ok(run("rollback", VIEW, "--at", iso)).stdout.endswith("1 -> 3\n")
    naive = iso_utc(log[1].timestamp_ms)[:-1]
    assert ok(run("rollback", VIEW, "--at", naive)).stdout.endswith("3 -> 2\n")


def test_set_and_unset_property(run: Run, demo: Demo) -> None:
    assert ok(run("set-property", VIEW, "owner", "data-eng")).stdout == (
        f"{VIEW}: owner = 'data-eng' (not set before)\n"
    )
    data = parse_json(ok(run("set-property", VIEW, "owner", "team-b", "-o", "json")).stdout)
    assert data["previous"] == "data-eng" and data["value"] == "team-b"
    with demo.catalog() as catalog:
        assert catalog.load_view(VIEW).properties["owner"] == "team-b"
    assert ok(run("unset-property", VIEW, "owner")).stdout == f"{VIEW}: removed owner (was 'team-b')\n"
    with demo.catalog() as catalog:
        view = catalog.load_view(VIEW)
        assert "owner" not in view.properties
        assert view.metadata.current_version_id == 3  # versions untouched
    skipped = ok(run("unset-property", VIEW, "owner", "--if-exists", "-o", "json")).stdout
    assert parse_json(skipped)["changed"] is False


def test_rename(run: Run, demo: Demo) -> None:
    assert ok(run("rename", VIEW, "events_daily")).stdout == f"{VIEW} renamed to default.events_daily\n"
    data = parse_json(
        ok(run("rename", "default.events_daily", "analytics.events_daily", "-o", "json")).stdout
    )
    assert data == {"view": "default.events_daily", "renamed-to": "analytics.events_daily"}
    with demo.catalog() as catalog:
        assert catalog.list_views("analytics") == [("analytics", "events_daily")]
        assert catalog.list_views("default") == []


def test_drop_with_yes(run: Run, demo: Demo) -> None:
    metadata = demo.metadata_file()
    assert ok(run("drop", VIEW, "--yes")).stdout == f"{VIEW} dropped from catalog 'demo'\n"
    with demo.catalog() as catalog:
        assert not catalog.view_exists(VIEW)
    assert not metadata.exists()
    data = parse_json(ok(run("drop", OTHER, "-y", "-o", "json")).stdout)
    assert data == {"view": OTHER, "catalog": CATALOG, "dropped": True}


def test_orphans_lists_and_deletes_old_unreferenced_files(run: Run, demo: Demo) -> None:
    current = demo.metadata_file()
    folder = current.parent
    before = sorted(p.name for p in folder.iterdir())
    listed = ok(run("orphans", VIEW)).stdout.splitlines()
    # three versions, three files: the current one and the previous pointer are kept
    assert len(before) == 3 and len(listed) == 2
    assert listed[0].endswith("/" + before[0]) and listed[1].startswith("1 orphan metadata file in ")
    young = ok(run("orphans", VIEW, "--delete")).stdout
    assert (
        "kept: younger than the grace period" in young and sorted(p.name for p in folder.iterdir()) == before
    )
    data = parse_json(ok(run("orphans", VIEW, "--delete", "--older-than", "0s", "-o", "json")).stdout)
    assert [o["deleted"] for o in data["orphans"]] == [True] and data["view"] == VIEW
    assert sorted(p.name for p in folder.iterdir()) == before[1:] and current.exists()
    assert ok(run("orphans", VIEW)).stdout.startswith("no orphan metadata files in ")
    with demo.catalog() as catalog:
        assert catalog.load_view(VIEW).metadata.current_version_id == 3
    bad = run("orphans", VIEW, "--older-than", "soon")
    assert bad.exit_code == 2 and "invalid duration 'soon'" in bad.stderr


def test_drop_asks_on_a_terminal(run: Run, demo: Demo, monkeypatch: pytest.MonkeyPatch) -> None:
    from iceview.cli.commands import drop

    monkeypatch.setattr(drop, "stdin_is_interactive", lambda: True)
    declined = run("drop", VIEW, input="n\n")
    assert declined.exit_code == 1
    assert "Drop view default.event_agg from catalog 'demo'?" in declined.stderr
    assert declined.stderr.strip().endswith("iceview: default.event_agg was not dropped")
    with demo.catalog() as catalog:
        assert catalog.view_exists(VIEW)
    assert ok_exit(run("drop", VIEW, input="y\n")) == f"{VIEW} dropped from catalog 'demo'\n"


def ok_exit(result: Result) -> str:
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_names_with_backquotes(run: Run, demo: Demo) -> None:
    with demo.catalog() as catalog:
        view = catalog.load_view(VIEW)
        catalog.create_view(
            ("default", "my.view"),
            schema=view.schema,
            queries={"spark": "SELECT 1"},
            default_namespace=("default",),
        )
    assert "default.`my.view`" in ok(run("list", "default")).stdout.splitlines()
    data = parse_json(ok(run("show", "default.`my.view`", "-o", "json")).stdout)
    assert data["view"] == "default.`my.view`"
    assert parse_json(ok(run("show", "`default`.event_agg", "-o", "json")).stdout)["view"] == VIEW


def test_unconfigured_default_catalog_uses_the_embedded_database(
    empty_env: dict[str, str], tmp_path: Path
) -> None:
    """With nothing configured, iceview's default catalog ./warehouse/catalog.db is used if it exists."""
    from iceview.catalog import load_catalog

    catalog = load_catalog()  # creates ./warehouse/catalog.db, as the library does
    catalog.create_namespace("ns")
    catalog.close()
    result = invoke(empty_env, "namespaces")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "ns\n"
    data = parse_json(invoke(empty_env, "catalogs", "-o", "json").stdout)
    assert data["catalogs"][0]["name"] == "default" and data["catalogs"][0]["configured"] is False
