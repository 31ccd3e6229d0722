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


def test_lint_and_sync_all_follow_the_functions_views_inlined(tmp_path: object) -> None:
    """A view whose trino SQL inlined a function: lint names the call no definition takes and the
    translation a replaced body made stale; ``dialects sync --all`` translates it again."""
    from pathlib import Path

    from cli_support import base_env, invoke

    from iceview.function.changes import NewDefinition
    from udf.engine_cases import NS, VIEWS, sqlite_lake

    root = Path(str(tmp_path))
    catalog = sqlite_lake(root)
    env = {
        **base_env(root),
        "PYICEBERG_CATALOG__LAKE__URI": f"sqlite:///{root}/c.db",
        "PYICEBERG_CATALOG__LAKE__WAREHOUSE": f"file://{root}/wh",
        "PYICEBERG_DEFAULT_CATALOG": "lake",
    }
    schema, _ = VIEWS["v_table"]
    catalog.create_function((NS, "twice"), NewDefinition([("x", "int")], "int", {"duckdb": "x * 2"}))
    catalog.create_view(
        (NS, "uses_twice"),
        schema=schema,
        queries={"duckdb": "SELECT id, CAST(twice(i) AS VARCHAR) AS s FROM edge"},
        default_namespace=(NS,),
    )
    catalog.create_view(
        (NS, "bad_call"),
        schema=schema,
        queries={"spark": "SELECT id, label(s, s) AS s FROM edge"},
        default_namespace=(NS,),
    )
    added = invoke(env, "add-dialect", f"{NS}.uses_twice", "trino")
    assert added.exit_code == 0, added.stderr
    clean = invoke(env, "lint", f"{NS}.uses_twice")
    assert clean.exit_code == 0, clean.stdout
    # the functions a view calls are shown with it
    shown = invoke(env, "show", f"{NS}.uses_twice")
    assert shown.exit_code == 0 and "functions" in shown.stdout and "fn.twice" in shown.stdout
    data = parse_json(invoke(env, "show", f"{NS}.v_calls", "-o", "json").stdout)
    assert data["functions"] == ["fn.add_one", "fn.label"]

    catalog.load_function((NS, "twice")).replace_definition("int", {"duckdb": "x * 3"}, sync_views=False)
    linted = invoke(env, "lint", "--all", "-o", "json")
    assert linted.exit_code == 1
    found = {t["target"]: [p["code"] for p in t["problems"]] for t in parse_json(linted.stdout)["targets"]}
    assert found[f"{NS}.uses_twice"] == ["stale-inlined-function"]
    assert found[f"{NS}.bad_call"] == ["no-matching-definition"]
    assert found[f"{NS}.v_calls"] == []

    synced = invoke(env, "dialects", "sync", "--all", "-o", "json")
    assert synced.exit_code == 0, synced.stderr
    data = parse_json(synced.stdout)
    assert [(v["view"], v["changed"]) for v in data["views"]] == [(f"{NS}.uses_twice", True)]
    assert "* 3" in catalog.load_view((NS, "uses_twice")).sql_for("trino").sql
    again = invoke(env, "dialects", "sync", "--all")
    assert again.exit_code == 0 and "no view derives dialects" in again.stdout
    both = invoke(env, "dialects", "sync", f"{NS}.uses_twice", "--all")
    assert both.exit_code != 0 and "not both" in error_line(both.stderr)

    # a rollback of the function through the CLI derives the views that inlined it again
    rolled = invoke(env, "rollback", f"{NS}.twice", "--to", "1")
    assert rolled.exit_code == 0, rolled.stderr
    assert f"views derived again: lake.{NS}.uses_twice" in rolled.stdout
    assert "* 2" in catalog.load_view((NS, "uses_twice")).sql_for("trino").sql
    rolled = parse_json(invoke(env, "rollback", f"{NS}.twice", "--to", "2", "-o", "json").stdout)
    assert rolled["views"] == {"synced": [f"lake.{NS}.uses_twice"], "in-step": [], "failed": []}
    # --no-sync-views leaves them to dialects sync; it is for functions only
    before = catalog.load_view((NS, "uses_twice")).metadata_location
    rolled = parse_json(
        invoke(env, "rollback", f"{NS}.twice", "--to", "1", "--no-sync-views", "-o", "json").stdout
    )
    assert rolled["changed"] and rolled["views"] == {"synced": [], "in-step": [], "failed": []}
    assert catalog.load_view((NS, "uses_twice")).metadata_location == before
    for args in (("rollback", f"{NS}.uses_twice", "--to", "1"), ("add-dialect", f"{NS}.uses_twice", "spark")):
        wrong = invoke(env, *args, "--no-sync-views")
        assert wrong.exit_code == 2 and "--no-sync-views is for functions" in error_line(wrong.stderr)
    catalog.close()


def test_functions_in_translate_add_dialect_and_sync_all(tmp_path: object) -> None:
    """``translate VIEW`` inlines as ``add-dialect`` does; a call that cannot be inlined is a
    refusal naming the view (exit 7); ``sync --all`` names a view it cannot sync and goes on."""
    from pathlib import Path

    from cli_support import base_env, invoke

    from iceview.function.changes import NewDefinition
    from udf.engine_cases import NS, VIEWS, sqlite_lake

    root = Path(str(tmp_path))
    catalog = sqlite_lake(root)
    env = {
        **base_env(root),
        "PYICEBERG_CATALOG__LAKE__URI": f"sqlite:///{root}/c.db",
        "PYICEBERG_CATALOG__LAKE__WAREHOUSE": f"file://{root}/wh",
        "PYICEBERG_DEFAULT_CATALOG": "lake",
    }
    translated = invoke(env, "translate", f"{NS}.v_table", "--to", "trino")
    assert translated.exit_code == 0, translated.stderr
    assert invoke(env, "add-dialect", f"{NS}.v_table", "trino").exit_code == 0
    stored = catalog.load_view((NS, "v_table")).sql_for("trino").sql
    assert translated.stdout.strip() == stored.strip() and "by_color" not in stored

    schema, _ = VIEWS["v_table"]
    catalog.create_view(
        (NS, "untyped"),
        schema=schema,
        queries={"spark": "SELECT id, label(s, abs(i)) AS s FROM edge"},
        default_namespace=(NS,),
    )
    refused = invoke(env, "add-dialect", f"{NS}.untyped", "duckdb")
    assert refused.exit_code == 7
    assert error_line(refused.stderr).startswith(
        f"iceview: {NS}.untyped: nothing was committed: UDF_ARGUMENT_UNTYPED"
    )
    refused = invoke(env, "translate", f"{NS}.untyped", "--to", "duckdb")
    assert refused.exit_code == 7 and "UDF_ARGUMENT_UNTYPED" in refused.stderr

    # two stale views; the first cannot be translated again (its function is gone), the second can
    for name in ("f_a", "f_b"):
        catalog.create_function((NS, name), NewDefinition([("x", "int")], "int", {"duckdb": "x * 2"}))
        catalog.create_view(
            (NS, f"a_{name}"),
            schema=schema,
            queries={"duckdb": f"SELECT id, CAST({name}(i) AS VARCHAR) AS s FROM edge"},
            default_namespace=(NS,),
        )
        assert invoke(env, "add-dialect", f"{NS}.a_{name}", "trino").exit_code == 0
    catalog.drop_function((NS, "f_a"))
    catalog.load_function((NS, "f_b")).replace_definition("int", {"duckdb": "x * 3"}, sync_views=False)
    synced = invoke(env, "dialects", "sync", "--all", "-o", "json")
    assert synced.exit_code == 1
    data = parse_json(synced.stdout)
    assert [f["view"] for f in data["failed"]] == [f"{NS}.a_f_a"]
    assert [(v["view"], v["changed"]) for v in data["views"]] == [(f"{NS}.a_f_b", True)]
    assert "* 3" in catalog.load_view((NS, "a_f_b")).sql_for("trino").sql
    catalog.close()
