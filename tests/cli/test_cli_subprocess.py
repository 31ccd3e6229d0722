"""Every command as a real process: the installed ``iceview`` script (and ``python -m
iceview.cli``), against real SQLite catalogs. The processes run concurrently, once per module;
each test then checks one of them."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from cli_support import DATA, OTHER, VIEW, Demo, build_demo, error_line, parse_json, run_process

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
    "translate": Case(
        ("translate", "SELECT 1", "--to", "trino"), ExitCode.NOT_AVAILABLE, err="not available"
    ),
    "add-dialect": Case(("add-dialect", VIEW, "trino"), ExitCode.NOT_AVAILABLE, err="not available"),
    "sql": Case(
        ("sql", "SELECT 1", "--engine", "duckdb"), ExitCode.NOT_AVAILABLE, err="engines are not available"
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
    demos: dict[str, Demo] = {
        name: build_demo(root / f"own-{i}") if case.own else shared
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
