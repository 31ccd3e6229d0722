"""What a newcomer meets on the first try: errors as JSON, CSV and TSV, the plain form in a pipe,
writes that change nothing commit nothing, times with units, ``diff VIEW``, a warning for metadata
outside the warehouse, ``tables``, the read-only statements of ``sql``, one default catalog, and
Ctrl-C (one line, exit code 130, never in the middle of a commit; through the real entry point)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import (
    VIEW,
    Demo,
    base_env,
    build_lake,
    default_sigint,
    error_line,
    iceview_command,
    invoke,
    run_process,
    screen,
    terminal,
)
from click.testing import Result

import iceview
from iceview.catalog import SqlCatalog
from iceview.cli import ExitCode
from iceview.cli.times import iso_utc
from iceview.errors import NoSuchCatalogError

Run = Callable[..., Result]


def metadata_files(demo: Demo) -> list[str]:
    return sorted(p.name for p in demo.warehouse.rglob("*.metadata.json"))


# ----------------------------------------------------------------------------- errors as JSON


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (("show", "default.event_ag"), ExitCode.NOT_FOUND, "did you mean default.event_agg?"),
        (("rollback", VIEW), ExitCode.USAGE, "give exactly one of --to N and --at TIMESTAMP"),
        (("show",), ExitCode.USAGE, "Missing argument 'NAME'"),
        (("-c", "nowhere", "list"), ExitCode.CATALOG, "catalog 'nowhere' is not configured"),
    ],
)
def test_errors_are_json_with_output_json(
    run: Run, args: tuple[str, ...], code: ExitCode, fragment: str
) -> None:
    for output in (("-o", "json"), ("--output=json",)):
        result = run(*args, *output)
        assert result.exit_code == code and result.stdout == ""
        body = json.loads(result.stderr)
        assert set(body) == {"error"} and body["error"]["type"] == code.name.lower()
        assert body["error"]["exit_code"] == int(code)
        assert fragment in body["error"]["message"]
    assert error_line(run(*args).stderr).startswith("iceview: ")  # text without -o json


def test_choices_in_a_usage_error_read_as_a_list(run: Run) -> None:
    line = error_line(run("translate", "--sql", "SELECT 1").stderr)
    assert "Missing option '--to'. Choose from: spark, trino, duckdb" in line


# ----------------------------------------------------------------------------- csv, tsv, pipes


@pytest.fixture
def lake(tmp_path: Path) -> Demo:
    return build_lake(tmp_path / "lake")


def test_csv_and_tsv(lake: Demo) -> None:
    env = lake.env
    assert invoke(env, "list", "default", "-o", "csv").stdout == (
        "view\ndefault.event_agg\ndefault.events_by_source\ndefault.source_stats\n"
    )
    assert invoke(env, "namespaces", "-o", "tsv").stdout == "namespace\nanalytics\ndefault\n"
    assert invoke(env, "tables", "-o", "csv").stdout == "table\ndefault.events\n"
    query = "SELECT 1 AS n, NULL AS nothing, 'a,b' AS comma, 'tab\there' AS tab, 'ünï' AS text"
    assert (
        invoke(env, "sql", query, "-o", "csv").stdout == 'n,nothing,comma,tab,text\n1,,"a,b",tab\there,ünï\n'
    )
    assert (
        invoke(env, "sql", query, "-o", "tsv").stdout
        == 'n\tnothing\tcomma\ttab\ttext\n1\t\ta,b\t"tab\there"\tünï\n'
    )
    history = invoke(env, "history", VIEW, "-o", "csv").stdout.splitlines()
    assert history[0] == "version-id,from,until,current,rollback,retained"
    assert [line.split(",")[0] for line in history[1:]] == ["1", "2", "3"]
    assert history[-1].endswith(",,true,false,true")
    catalogs = invoke(env, "catalogs", "-o", "csv").stdout.splitlines()
    assert catalogs[0] == "name,type,uri,warehouse,default,configured" and catalogs[1].startswith("demo,sql,")


def test_csv_is_refused_where_there_are_no_rows(run: Run) -> None:
    result = run("show", VIEW, "-o", "csv")
    assert result.exit_code == ExitCode.USAGE
    assert (
        "-o csv is for the commands that print rows (namespaces, list, tables, functions, history, catalogs, sql)"
        in (result.stderr)
    )


def test_sql_in_a_pipe_is_plain(lake: Demo) -> None:
    done = run_process(
        lake.env,
        "sql",
        "SELECT source, events FROM events_by_source ORDER BY 1",
        "--translate",
        cwd=lake.root,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == "source\tevents\napi\t1\napp\t2\nweb\t3\n"  # no rule, no row count, no colour


# ----------------------------------------------------------------------------- writes, times, diff


def test_setting_a_property_to_its_value_commits_nothing(demo: Demo, run: Run) -> None:
    assert run("set-property", VIEW, "owner", "data-eng").exit_code == 0
    before = metadata_files(demo)
    again = run("set-property", VIEW, "owner", "data-eng", "-o", "json")
    assert again.exit_code == 0 and json.loads(again.stdout)["changed"] is False
    assert run("set-property", VIEW, "owner", "data-eng").stdout == (
        f"{VIEW}: owner is already 'data-eng'; nothing changed\n"
    )
    unset = run("unset-property", VIEW, "nothing-here", "--if-exists")
    assert unset.exit_code == 0 and "nothing changed" in unset.stdout
    assert metadata_files(demo) == before
    changed = run("set-property", VIEW, "owner", "other", "-o", "json")
    assert json.loads(changed.stdout)["changed"] is True and len(metadata_files(demo)) == len(before) + 1


def test_rollback_at_names_the_unit_of_a_number(demo: Demo, run: Run) -> None:
    with demo.catalog() as catalog:
        log = list(catalog.load_view(VIEW).metadata.history)
    seconds = log[1].timestamp_ms // 1000 + 0  # inside version 2's period (it lasts milliseconds)
    ambiguous = run("rollback", VIEW, "--at", str(seconds))
    assert ambiguous.exit_code == ExitCode.USAGE
    assert f"ambiguous timestamp '{seconds}': as epoch milliseconds it is 1970-" in ambiguous.stderr
    as_millis = run("rollback", VIEW, "--at", f"{log[1].timestamp_ms}ms", "-o", "json")
    assert json.loads(as_millis.stdout)["current-version-id"] == 2
    bare = run("rollback", VIEW, "--at", str(log[-1].timestamp_ms), "-o", "json")  # 13 digits: milliseconds
    assert json.loads(bare.stdout)["current-version-id"] == 3


def test_diff_without_versions_compares_previous_and_current(demo: Demo, run: Run) -> None:
    assert run("diff", VIEW).stdout.startswith(f"{VIEW}: version 2 -> version 3\n")
    assert run("rollback", VIEW, "--to", "1").exit_code == 0
    assert run("diff", VIEW).stdout.startswith(f"{VIEW}: version 3 -> version 1\n")  # by the version log
    single = run("diff", "analytics.daily.users")
    assert single.exit_code == ExitCode.NOT_FOUND
    assert "has only version 1: there is no previous version to compare" in single.stderr


def test_lint_gives_the_gzip_hint(demo: Demo, run: Run, tmp_path: Path) -> None:
    plain_name = tmp_path / "v.metadata.json"
    plain_name.write_bytes(gzip.compress(b'{"format-version": 1}'))
    hint = "the file is gzip-compressed, but its name does not end in .gz.metadata.json"
    assert hint in run("lint", str(plain_name)).stdout
    assert hint in run("show", str(plain_name)).stderr


def test_metadata_outside_the_warehouse_is_named(demo: Demo, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(demo.root, copy, ignore=shutil.ignore_patterns("home"))
    env = {
        **base_env(copy),
        "PYICEBERG_CATALOG__DEMO__URI": f"sqlite:///{copy / 'catalog.db'}",
        "PYICEBERG_CATALOG__DEMO__WAREHOUSE": f"file://{copy / 'warehouse'}",
    }
    result = invoke(env, "show", VIEW)
    assert result.exit_code == 0
    warning = error_line(result.stderr)
    assert warning.startswith(
        f"iceview: warning: the metadata of {VIEW} lies outside the warehouse of catalog 'demo'"
    )
    assert f"file://{demo.warehouse}/default/event_agg/metadata/" in warning
    assert invoke(demo.env, "show", VIEW).stderr == ""  # the original: no warning


# ----------------------------------------------------------------------------- names, tables, sql


def test_names_that_are_not_views(lake: Demo) -> None:
    env = lake.env
    table = invoke(env, "show", "default.events")
    assert table.exit_code == ExitCode.NOT_FOUND and "default.events is a table, not a view" in table.stderr
    assert "is a namespace, not a view" in invoke(env, "history", "analytics.daily").stderr
    assert "did you mean default.event_agg?" in invoke(env, "drop", "default.evnt_agg", "--yes").stderr
    assert "no namespace defualt; did you mean default?" in invoke(env, "show", "defualt.event_agg").stderr
    assert "did you mean analytics.daily.users?" in invoke(env, "show", "users").stderr


def test_sql_describes_and_explains(lake: Demo) -> None:
    env = lake.env
    described = invoke(env, "sql", "DESCRIBE events_by_source", "--translate", "-o", "json")
    assert [(r["column_name"], r["column_type"]) for r in json.loads(described.stdout)] == [
        ("source", "VARCHAR"),
        ("events", "BIGINT"),
        ("first_seen", "TIMESTAMP"),
    ]
    table = json.loads(invoke(env, "sql", "DESCRIBE TABLE default.events", "-o", "json").stdout)
    assert [r["column_name"] for r in table] == ["event_id", "event_ts", "source"]
    plan = invoke(env, "sql", "EXPLAIN SELECT count(*) FROM events", "-o", "json")
    assert plan.exit_code == 0 and json.loads(plan.stdout)[0]["explain_key"] == "physical_plan"
    analyzed = invoke(env, "sql", "EXPLAIN ANALYZE SELECT * FROM events")
    assert analyzed.exit_code == 0 and analyzed.stderr == ""
    summary = json.loads(invoke(env, "sql", "SUMMARIZE SELECT event_id FROM events", "-o", "json").stdout)
    assert summary[0]["count"] == 6
    typo = invoke(env, "sql", "SELECT 1 +")
    assert (
        error_line(typo.stderr) == "iceview: Cannot parse query: syntax error at or near '+' (line 1, pos 9)"
    )


# ----------------------------------------------------------------------------- one default catalog


def test_an_unconfigured_name_is_an_error_in_the_api_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(
        NoSuchCatalogError, match=r"catalog 'prod' is not configured in .*\(configured catalogs: none\)"
    ):
        iceview.load_catalog("prod")
    assert not (tmp_path / "warehouse").exists()  # nothing created
    with iceview.load_catalog() as catalog:  # the default name: the embedded catalog
        assert catalog.name == "default"
    assert (tmp_path / "warehouse" / "catalog.db").exists()
    monkeypatch.setenv("PYICEBERG_DEFAULT_CATALOG", "prod")
    with iceview.load_catalog("prod") as catalog:  # now the default name
        assert catalog.name == "prod"


def test_only_another_catalog_configured(demo: Demo, tmp_path: Path) -> None:
    env = {k: v for k, v in demo.env.items() if k != "PYICEBERG_DEFAULT_CATALOG"}
    line = error_line(invoke(env, "list").stderr)
    assert "no catalog: 'default' is not configured" in line
    assert (
        "configured catalogs: demo (use -c demo, or make it the default: PYICEBERG_DEFAULT_CATALOG=demo"
        in line
    )
    listed = json.loads(invoke(env, "catalogs", "-o", "json").stdout)
    assert listed["default-catalog"] == "default" and [c["name"] for c in listed["catalogs"]] == ["demo"]


# ----------------------------------------------------------------------------- Ctrl-C


def test_interrupt_while_starting(demo: Demo, tmp_path: Path) -> None:
    """SIGINT arrives while the command line is still being imported (a real signal, sent by the
    process to itself at the moment click is first imported)."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(
        "import os, signal, sys\n"
        "class Trap:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'click':\n"
        "            sys.meta_path.remove(self)\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Trap())\n"
    )
    env = {**demo.env, "PYTHONPATH": os.pathsep.join([str(hooks), *sys.path])}
    # ("--version" alone imports nothing after iceview itself: tests/cli/test_cli_startup.py)
    for args in (("--debug", "--version"), ("list",)):
        done = run_process(env, *args, cwd=demo.root)
        assert (done.returncode, done.stdout, done.stderr) == (130, "", "iceview: interrupted\n"), args
    done = run_process(env, "list", "-o", "json", cwd=demo.root)
    assert (done.returncode, done.stdout) == (130, "")
    assert json.loads(done.stderr) == {
        "error": {"type": "interrupted", "message": "interrupted", "exit_code": 130}
    }


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_interrupt_cancels_a_duckdb_query(demo: Demo) -> None:
    """Ctrl-C while DuckDB runs a query that would take hours: the query is cancelled.

    Load-independent: the interrupt is sent once the process has used more CPU than a whole
    ``SELECT 1`` run needs (so the query is running, not still starting), and the bound on the
    cancel is far below the query's own running time."""
    quick = subprocess.Popen(
        [*iceview_command(), "sql", "SELECT 1"], env=demo.env, cwd=demo.root, stdout=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(quick.pid, 0)
    quick.returncode = os.waitstatus_to_exitcode(status)
    assert quick.returncode == 0
    start_up = usage.ru_utime + usage.ru_stime
    process = subprocess.Popen(
        [
            *iceview_command(),
            "sql",
            "SELECT count(*) FROM range(10000000) a(x), range(10000000) b(y) WHERE (x * y) % 7 = 3",
        ],
        env=demo.env,
        cwd=demo.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        deadline = time.monotonic() + 300
        while _cpu_seconds(process.pid) < start_up + 2:
            assert process.poll() is None, "the query ended before it could be interrupted"
            assert time.monotonic() < deadline, "the query did not start within 5 minutes"
            time.sleep(0.1)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
        assert (process.returncode, stdout, stderr) == (130, "", "iceview: interrupted\n")
        assert time.monotonic() - started < 60  # cancelled: the query alone runs for hours
    finally:
        if process.poll() is None:  # a query that was not cancelled must not outlive the test
            process.kill()
            process.wait()


def test_interrupt_during_a_commit_waits_for_it(
    demo: Demo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the middle of a commit (between writing the metadata file and swapping the
    pointer): the commit finishes, then the command reports the interrupt, saying so."""
    commit = SqlCatalog.commit_view

    def interrupted_commit(self: SqlCatalog, *args: object, **kwargs: object) -> object:
        os.kill(os.getpid(), signal.SIGINT)
        return commit(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SqlCatalog, "commit_view", interrupted_commit)
    before = signal.getsignal(signal.SIGINT)  # Python's, or PySpark's when the suite runs Spark
    result = run("set-property", VIEW, "owner", "data-eng")
    assert result.exit_code == 130
    assert error_line(result.stderr) == (
        "iceview: interrupted after the property change had finished (the change was made)"
    )
    monkeypatch.setattr(SqlCatalog, "commit_view", commit)
    with demo.catalog() as catalog:
        assert catalog.load_view(VIEW).properties["owner"] == "data-eng"
    assert signal.getsignal(signal.SIGINT) is before  # restored


# ----------------------------------------------------------------------------- shell completion


def complete(demo: Demo, *words: str) -> list[str]:
    """What bash completion offers for the last word (click's protocol, through the real script)."""
    env = {**demo.env, "_ICEVIEW_COMPLETE": "bash_complete", "COMP_WORDS": " ".join(["iceview", *words])}
    env["COMP_CWORD"] = str(len(words))
    done = subprocess.run(iceview_command(), env=env, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line]


def test_shell_completion_of_commands_catalogs_namespaces_and_views(demo: Demo) -> None:
    assert complete(demo, "sh") == ["show"]
    assert "set-property" in complete(demo, "se") and "tables" in complete(demo, "t")
    assert complete(demo, "-c", "") == ["demo"]
    assert complete(demo, "show", "def") == ["default.event_agg"]
    assert complete(demo, "history", "") == ["analytics.daily.users", "default.event_agg"]
    assert complete(demo, "list", "a") == ["analytics", "analytics.daily"]
    assert complete(demo, "-c", "nowhere", "show", "") == []  # a catalog that cannot open: nothing
    source = subprocess.run(
        iceview_command(),
        env={**demo.env, "_ICEVIEW_COMPLETE": "bash_source"},
        capture_output=True,
        text=True,
    )
    assert (
        "_iceview_completion()" in source.stdout
        and "complete -o nosort -F _iceview_completion iceview" in (source.stdout)
    )


def test_local_time(demo: Demo) -> None:
    env = {**demo.env, "TZ": "America/Los_Angeles"}  # November: UTC-8
    text = run_process(env, "history", VIEW, "--local-time", cwd=demo.root).stdout
    assert "current from (local)" in text and "created (local)" in text
    with demo.catalog() as catalog:
        first = catalog.load_view(VIEW).metadata.history[0].timestamp_ms
    local = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(first / 1000 - 8 * 3600))
    assert f"{local}.{first % 1000:03d}-08:00" in text
    assert "(UTC)" in run_process(env, "history", VIEW, cwd=demo.root).stdout
    as_json = json.loads(
        run_process(env, "history", VIEW, "--local-time", "-o", "json", cwd=demo.root).stdout
    )
    assert as_json["history"][0]["from"].endswith("Z")  # JSON stays UTC


def test_tables_fit_the_terminal_without_cutting_times(demo: Demo) -> None:
    text = screen(invoke(terminal(demo.env, 80), "history", VIEW).stdout)
    assert max(len(line) for line in text.splitlines()) <= 80
    with demo.catalog() as catalog:
        times = [iso_utc(v.timestamp_ms) for v in catalog.load_view(VIEW).metadata.versions]
    for moment in times:
        assert moment in text  # whole, not "2026-11-2…"
