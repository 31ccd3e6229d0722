"""``iceview dialects sync VIEW``: derive a view's dialects (``iceview.derive-dialects``) again."""

from __future__ import annotations

from collections.abc import Callable

from cli_support import VIEW, Result, error_line, parse_json


def test_sync_derives_then_is_in_step(run: Callable[..., Result]) -> None:
    missing = run("dialects", "sync", VIEW)
    assert missing.exit_code != 0
    assert "derives no dialects: set its iceview.derive-dialects property first" in error_line(missing.stderr)

    assert run("set-property", VIEW, "iceview.derive-dialects", "duckdb,trino").exit_code == 0
    synced = run("dialects", "sync", VIEW)
    assert synced.exit_code == 0, synced.stderr
    # the demo view's SQL is refused for both (left out, with the reasons in the version summary)
    assert (
        f"{VIEW}: version 4 derives nothing; refused: duckdb (ansi-cast,nested-namespace); "
        "trino (ansi-cast,nested-namespace) (was version 3)"
    ) in synced.stdout

    again = run("dialects", "sync", VIEW, "-o", "json")
    assert again.exit_code == 0, again.stderr
    data = parse_json(again.stdout)
    assert data["changed"] is False and data["version-id"] == 4
    assert data["dialects"] == ["spark"] and data["derived"] == []
    assert data["refused"] == {"duckdb": "ansi-cast,nested-namespace", "trino": "ansi-cast,nested-namespace"}

    shown = run("show", VIEW, "-o", "json")
    assert shown.exit_code == 0
    assert "iceview.derive-refused.duckdb" in shown.stdout
    text = run("show", VIEW).stdout
    assert "SQL (trino): not derived, refused: ansi-cast,nested-namespace" in text
    history = run("history", VIEW).stdout
    assert "spark, !duckdb, !trino" in history
    assert "! refused (iceview.derive-dialects)" in history


def test_sync_derives_translatable_sql(tmp_path: object) -> None:
    from pathlib import Path

    from cli_support import BY_SOURCE, build_lake, invoke

    lake = build_lake(Path(str(tmp_path)) / "lake")
    assert invoke(lake.env, "set-property", BY_SOURCE, "iceview.derive-dialects", "duckdb").exit_code == 0
    synced = invoke(lake.env, "dialects", "sync", BY_SOURCE)
    assert synced.exit_code == 0, synced.stderr
    assert f"{BY_SOURCE}: version 2 derives duckdb (was version 1)" in synced.stdout
    with lake.catalog() as catalog:
        view = catalog.load_view(BY_SOURCE)
        assert [r.dialect for r in view.current_version.representations] == ["spark", "duckdb"]
    shown = invoke(lake.env, "show", BY_SOURCE)
    assert "SQL (spark)\n" in shown.stdout and "SQL (duckdb, derived from spark)\n" in shown.stdout
    data = parse_json(invoke(lake.env, "show", BY_SOURCE, "-o", "json").stdout)
    reps = data["current-version"]["representations"]
    assert [(r["dialect"], r["derived"]) for r in reps] == [("spark", False), ("duckdb", True)]
    history = invoke(lake.env, "history", BY_SOURCE).stdout
    assert "spark, duckdb*" in history and "* derived from the version's own SQL" in history


def test_dialects_group_help(run: Callable[..., Result]) -> None:
    result = run("dialects", "--help")
    assert result.exit_code == 0
    assert "sync" in result.stdout and "iceview.derive-dialects" in result.stdout
