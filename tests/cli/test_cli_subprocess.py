"""Every command as a real process: the installed ``iceview`` script (and ``python -m
iceview.cli``), against real SQLite catalogs. The processes run concurrently, once per module;
each test then checks one of them."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from cli_support import (
    BY_SOURCE,
    BY_SOURCE_ROWS,
    BY_SOURCE_SQL,
    DATA,
    OTHER,
    SOURCE_STATS,
    VIEW,
    Demo,
    build_demo,
    build_lake,
    error_line,
    parse_json,
    run_process,
)

from iceview.cli import ExitCode

CORPUS_BAD = str(DATA / "corpus" / "iceberg-java" / "ViewMetadataInvalidCurrentVersion.json")
GOLDEN = str(
    DATA / "golden" / "java-1.10.2" / "04-view-default.event_agg-after-spec-replace-view.metadata.json"
)


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    code: int
    out: tuple[str, ...] = ()  # fragments of stdout
    err: str | None = None  # fragment of the one error line
    own: bool = False  # changes the catalog: runs on its own copy
    module: bool = False  # python -m iceview.cli
    yaml: bool = False  # configured by a .pyiceberg.yaml in PYICEBERG_HOME, not by variables
    lake: bool = False  # the demo catalog with the events lake (cli_support.add_events)


CASES: dict[str, Case] = {
    "help": Case(("--help",), 0, ("Commands:", "rollback", "Exit codes")),
    "catalogs (python -m)": Case(("catalogs",), 0, ("demo (default)",), module=True),
    "namespaces": Case(("namespaces",), 0, ("analytics\ndefault\n",)),
    "list --output json": Case(("list", "--output", "json"), 0, (f'"{OTHER}"', f'"{VIEW}"')),
    "show": Case(("show", VIEW), 0, ("SQL (spark)", "FROM prod.default.events", "event_count")),
    "history": Case(("history", VIEW), 0, ("Version log", "current")),
    "diff": Case(("diff", VIEW, "1", "3"), 0, ("+FROM prod.default.events", "+ source")),
    "rollback": Case(("rollback", VIEW, "--to", "1"), 0, (f"{VIEW}: current version 3 -> 1",), own=True),
    "set-property": Case(("set-property", VIEW, "owner", "me"), 0, ("owner = 'me'",), own=True),
    "unset-property": Case(("unset-property", VIEW, "comment"), 0, ("removed comment",), own=True),
    "rename": Case(("rename", VIEW, "renamed"), 0, ("renamed to default.renamed",), own=True),
    "drop --yes": Case(("drop", VIEW, "--yes"), 0, ("dropped",), own=True),
    "drop without a terminal": Case(
        ("drop", VIEW), ExitCode.USAGE, err="stdin is not a terminal (pass --yes)"
    ),
    "lint --all": Case(("lint", "--all"), 0, ("checked 2 views: no problems",)),
    "lint FILE": Case(("lint", CORPUS_BAD, GOLDEN), 1, ("current-version-missing", f"{GOLDEN}: ok")),
    "translate --sql": Case(
        ("translate", "--sql", BY_SOURCE_SQL, "--from", "spark", "--to", "trino"),
        0,
        (
            'SELECT events.source AS source, COUNT(1) AS events, MIN(events.event_ts) AS first_seen FROM demo."default".events',
        ),
        lake=True,
    ),
    "translate VIEW --output json": Case(
        ("translate", SOURCE_STATS, "--to", "duckdb", "-o", "json"),
        0,
        ('"source": "trino"', '"refused": []'),
        lake=True,
    ),
    "translate refused": Case(
        ("translate", "--sql", "SELECT xxhash64(source) FROM events", "--to", "trino"),
        ExitCode.REFUSED,
        err="cannot translate spark SQL to trino: 2 constructs refused: XXHASH64(events.source)",
        lake=True,
    ),
    "add-dialect": Case(
        ("add-dialect", BY_SOURCE, "trino", "duckdb"),
        0,
        (f"{BY_SOURCE}: version 2 adds trino, duckdb (translated from spark)\n",),
        own=True,
        lake=True,
    ),
    "add-dialect refused": Case(
        ("add-dialect", VIEW, "trino"),
        ExitCode.REFUSED,
        err=f"{VIEW}: nothing was committed: cannot translate",
    ),
    "sql (python -m)": Case(
        ("sql", "SELECT * FROM source_stats ORDER BY source", "--translate"),
        0,
        ("source\tevents\tlast_id\napi\t1\t4\n",),
        module=True,
        lake=True,
    ),
    "sql --output json": Case(
        ("sql", f"SELECT * FROM {BY_SOURCE} ORDER BY source", "--translate", "--output", "json"),
        0,
        ('"first_seen": "2026-11-20T09:30:00"',),
        lake=True,
    ),
    "sql unknown table": Case(
        ("sql", "SELECT * FROM default.nope"),
        ExitCode.NOT_FOUND,
        err="table or view default.nope does not exist",
    ),
    "sql unknown dialect": Case(
        ("sql", "SELECT 1", "--engine", "oracle"),
        ExitCode.USAGE,
        err="'oracle' is not one of 'duckdb', 'spark'",
    ),
    "unknown view": Case(
        ("show", "default.nope"), ExitCode.NOT_FOUND, err="view default.nope does not exist"
    ),
    "unknown catalog": Case(("list", "-c", "prod"), ExitCode.CATALOG, err="catalog 'prod' is not configured"),
    "missing file": Case(("show", "/nonexistent/x.metadata.json"), ExitCode.NOT_FOUND, err="does not exist"),
    "malformed JSON": Case(("history", "FILES/bad.metadata.json"), ExitCode.METADATA, err="malformed JSON"),
    "corrupt gzip": Case(("diff", "FILES/bad.gz.metadata.json", "1"), ExitCode.METADATA, err="bad gzip data"),
    "--debug": Case(
        ("--debug", "show", "default.nope"), ExitCode.NOT_FOUND, err="view default.nope does not exist"
    ),
    ".pyiceberg.yaml": Case(("list",), 0, (f"{OTHER}\n{VIEW}\n",), yaml=True),
}


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("processes")
    shared = build_demo(root / "shared")
    files = root / "files"
    files.mkdir()
    (files / "bad.metadata.json").write_text('{"view-uuid": ')
    (files / "bad.gz.metadata.json").write_bytes(b"\x1f\x8b not really gzip")
    lake = build_lake(root / "lake")
    demos: dict[str, Demo] = {
        name: (build_lake if case.lake else build_demo)(root / f"own-{i}")
        if case.own
        else lake
        if case.lake
        else shared
        for i, (name, case) in enumerate(CASES.items())
    }

    def run(name: str) -> subprocess.CompletedProcess[str]:
        case = CASES[name]
        demo = demos[name]
        env = demo.env
        if case.yaml:
            env = {
                k: v for k, v in env.items() if not k.startswith(("PYICEBERG_CATALOG__", "PYICEBERG_DEFAULT"))
            }
            home = root / "yaml-home"
            home.mkdir()
            (home / ".pyiceberg.yaml").write_text(
                "default-catalog: demo\ncatalog:\n  demo:\n"
                f"    uri: sqlite:///{demo.database}\n    warehouse: file://{demo.warehouse}\n"
            )
            env["PYICEBERG_HOME"] = env["HOME"] = str(home)
        args = [a.replace("FILES", str(files)) for a in case.args]
        return run_process(env, *args, cwd=demo.root, module=case.module)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(CASES, pool.map(run, CASES), strict=True))


@pytest.mark.parametrize("name", list(CASES))
def test_process(processes: dict[str, subprocess.CompletedProcess[str]], name: str) -> None:
    case = CASES[name]
    done = processes[name]
    assert done.returncode == case.code, (done.stdout, done.stderr)
    for fragment in case.out:
        assert fragment in done.stdout
    assert "\x1b[" not in done.stdout  # no colour when not on a terminal
    if name == "--debug":
        assert "Traceback (most recent call last)" in done.stderr
        assert done.stderr.rstrip().splitlines()[-1].startswith(f"iceview: {case.err}")
        return
    assert "Traceback" not in done.stderr
    if case.err is not None:
        assert case.err in error_line(done.stderr)
        assert done.stdout == ""
    else:
        assert done.stderr == ""


def test_json_from_a_process(processes: dict[str, subprocess.CompletedProcess[str]]) -> None:
    data = parse_json(processes["list --output json"].stdout)
    assert data == {"catalog": "demo", "namespace": None, "views": [OTHER, VIEW]}
    rows = parse_json(processes["sql --output json"].stdout)
    assert rows == [
        {"source": source, "events": n, "first_seen": first.isoformat()}
        for source, n, first in BY_SOURCE_ROWS
    ]
