"""docs/cli.md tells the truth: every example is re-run, in order, against a fresh demo catalog,
and its output compared (uuids, times, paths and column widths aside); every command and every exit
code is documented."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_docs import DOC, DOCS_ROOT, blocks, docs_env, in_process_runner, normalise, run_steps
from cli_support import build_demo

from iceview.cli import ExitCode
from iceview.cli.commands import all_commands


def test_every_example_prints_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = build_demo(tmp_path / "demo")
    runner = in_process_runner(docs_env(demo))
    monkeypatch.chdir(demo.root)
    state: dict[str, int] = {}
    examples = blocks(DOC.read_text())
    assert len(examples) >= 12
    for block in examples:
        for shown, ran in zip(block, run_steps(block, runner, state), strict=True):
            expected = normalise(shown.output, str(DOCS_ROOT))
            actual = normalise(ran.output, str(demo.root))
            assert actual == expected, f"$ {shown.command}"


def test_every_command_has_a_section() -> None:
    text = DOC.read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    for command in all_commands():
        assert command.name is not None
        assert any(command.name in heading for heading in headings), command.name
        assert f"$ iceview {command.name}" in text, f"no example of {command.name}"


def test_every_exit_code_is_documented() -> None:
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| ") and "|" in line[2:]]
    documented = {row.split("|")[1].strip() for row in rows}
    assert {str(int(code)) for code in ExitCode} <= documented
