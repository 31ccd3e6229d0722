"""Fixtures for the CLI tests: a fresh demo catalog per test, and the CLI run in-process through
click's CliRunner. Every test runs with a private HOME and PYICEBERG_HOME and none of the
caller's PYICEBERG_* variables."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import SCRUBBED, Demo, base_env, build_demo, invoke
from click.testing import Result


@pytest.fixture(autouse=True)
def private_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.upper().startswith("PYICEBERG") or key in SCRUBBED:
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PYICEBERG_HOME", str(home))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def demo(tmp_path: Path) -> Demo:
    """The demo catalog (see cli_support.build_demo) in this test's folder."""
    return build_demo(tmp_path)


@pytest.fixture
def empty_env(tmp_path: Path) -> dict[str, str]:
    """An environment with no catalog configured at all."""
    env = base_env(tmp_path)
    for key in [k for k in env if k.startswith("PYICEBERG_CATALOG__") or k == "PYICEBERG_DEFAULT_CATALOG"]:
        del env[key]
    return env


@pytest.fixture
def run(demo: Demo) -> Callable[..., Result]:
    """``run("show", "default.event_agg")``: the CLI in-process against the demo catalog."""

    def _run(*args: str, input: str | None = None) -> Result:
        return invoke(demo.env, *args, input=input)

    return _run
