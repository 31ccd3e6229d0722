"""Start-up: ``iceview`` imports a command's module only when that command runs, and the libraries
that other commands need (sqlglot for translation, PyIceberg's REST session, Starlette, rich's syntax
highlighter) stay unloaded. Checked through ``python -X importtime`` on the real entry point; the
times themselves are measured in ``bench/``, not here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "sqlglot",
    "sqlalchemy",
    "pyiceberg",
    "pyiceberg.catalog.rest",
    "starlette",
    "uvicorn",
    "rich.syntax",
)


def _imported(
    args: list[str], env: dict[str, str], cwd: Path
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "iceview.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    modules = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    return modules, done


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYICEBERG_", "ICEVIEW_"))}
    return {**env, "HOME": str(tmp_path), **extra}


def test_version_imports_no_library(tmp_path: Path) -> None:
    modules, done = _imported(["--version"], _env(tmp_path), tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("iceview "), done.stderr[-2000:]
    assert not modules & {*HEAVY, "click", "rich"}, sorted(modules & {*HEAVY, "click", "rich"})
    assert not any(m.startswith("iceview.cli.commands.") for m in modules)
    # the same line as click's --version option prints (which runs when other options come first)
    from click.testing import CliRunner

    from iceview.cli import cli

    assert done.stdout == CliRunner().invoke(cli, ["--version"]).stdout
    modules, slow = _imported(["--debug", "--version"], _env(tmp_path), tmp_path)
    assert "click" in modules and slow.stdout == done.stdout


@pytest.mark.parametrize("command", [["list", "default"], ["namespaces"]])
def test_listing_an_embedded_catalog_loads_neither_sqlglot_nor_rest_nor_the_format(
    tmp_path: Path, command: list[str]
) -> None:
    from iceview.catalog.sql import SqlCatalog

    uri = f"sqlite:///{tmp_path}/catalog.db"
    catalog = SqlCatalog("t", uri=uri, warehouse=f"file://{tmp_path}/warehouse")
    catalog.create_namespace("default")
    catalog.close()
    env = _env(
        tmp_path,
        PYICEBERG_CATALOG__T__TYPE="sql",
        PYICEBERG_CATALOG__T__URI=uri,
        PYICEBERG_CATALOG__T__WAREHOUSE=f"file://{tmp_path}/warehouse",
    )
    modules, done = _imported(["-c", "t", *command], env, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sqlalchemy" in modules  # the SQL catalog did run
    unexpected = modules & {
        "sqlglot",
        "pyiceberg.catalog.rest",
        "starlette",
        "uvicorn",
        "rich.syntax",
        "iceview.spec",  # listing names reads no metadata
        "iceview.view",
        "pyiceberg.schema",
    }
    assert not unexpected, sorted(unexpected)
