"""The progress line, as a person sees it: ``iceview`` as a real process whose stderr is a
pseudo-terminal. A command that runs for more than a second shows a spinner with what it is doing;
a quick one, and any command whose stderr is not a terminal, shows nothing. The slowness is made
on purpose: a ``sitecustomize`` hook makes the named methods sleep first (1.6 s), and sets the
delay before the line appears (1 s) to 0.2 s for a slow command and to 30 s for a quick one, so
that a loaded machine changes nothing."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

from cli_support import VIEW, Demo, add_events, default_sigint, iceview_command, screen

_SLOW_HOOK = """
import importlib, os, time

def _slow(spec):
    module, _, attribute = spec.partition(":")
    owner_name, _, method = attribute.rpartition(".")
    owner = getattr(importlib.import_module(module), owner_name)
    original = getattr(owner, method)

    def slow(*args, **kwargs):
        time.sleep(float(os.environ.get("SLOW_SECONDS", "1.6")))
        return original(*args, **kwargs)

    setattr(owner, method, slow)

for spec in filter(None, os.environ.get("SLOW_METHODS", "").split(",")):
    _slow(spec)
if os.environ.get("PROGRESS_DELAY"):
    import iceview.cli.status
    iceview.cli.status.DELAY = float(os.environ["PROGRESS_DELAY"])
"""


def _on_terminal(
    demo: Demo, tmp_path: Path, *args: str, slow: str = "", delay: str = "0.2"
) -> tuple[int, str, str]:
    """Run ``iceview ARGS`` with stderr on a pseudo-terminal and stdout in a pipe; return the exit
    code, stdout, and what the terminal showed (colours and cursor codes removed)."""
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(_SLOW_HOOK)
    env = {
        **demo.env,
        "PYTHONPATH": os.pathsep.join([str(hooks), *sys.path]),
        "SLOW_METHODS": slow,
        "PROGRESS_DELAY": delay,
        "TERM": "xterm",
    }
    master, slave = pty.openpty()
    shown = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed with the process
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [*iceview_command(), *args],
            env=env,
            cwd=demo.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            preexec_fn=default_sigint,
            timeout=120,
            check=False,
        )
    finally:
        os.close(slave)
        reader.join(10)
        os.close(master)
    text = screen(shown.decode("utf-8", "replace"))
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)  # cursor moves and line clears
    return done.returncode, done.stdout.decode(), text


def test_a_quick_command_shows_nothing(demo: Demo, tmp_path: Path) -> None:
    code, out, shown = _on_terminal(demo, tmp_path, "list", "default", delay="30")
    assert (code, out, shown) == (0, "default.event_agg\n", "")


def test_a_slow_command_shows_what_it_does_and_leaves_stdout_alone(demo: Demo, tmp_path: Path) -> None:
    code, out, shown = _on_terminal(
        demo, tmp_path, "list", "default", slow="iceview.catalog.sql:SqlCatalog.list_views"
    )
    assert (code, out) == (0, "default.event_agg\n")
    assert "iceview list" in shown, repr(shown)


def test_steps_say_which_view_or_query(demo: Demo, tmp_path: Path) -> None:
    code, _out, shown = _on_terminal(
        demo, tmp_path, "lint", "--all", slow="iceview.catalog.sql:SqlCatalog.load_view"
    )
    assert code == 0 and "linting analytics.daily.users (1 of 2)" in shown, repr(shown)
    add_events(demo)
    code, out, shown = _on_terminal(
        demo,
        tmp_path,
        "sql",
        "SELECT count(*) AS n FROM default.events",
        slow="iceview.duckdb:DuckDBViews.sql",
    )
    assert (code, out) == (0, "n\n6\n")
    assert "running the query in DuckDB (Ctrl-C cancels it)" in shown, repr(shown)


def test_the_line_goes_before_a_prompt(demo: Demo, tmp_path: Path) -> None:
    # drop asks on a terminal only: stdin is the pseudo-terminal too, answered "n"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(_SLOW_HOOK)
    env = {
        **demo.env,
        "PYTHONPATH": os.pathsep.join([str(hooks), *sys.path]),
        "SLOW_METHODS": "iceview.catalog.sql:SqlCatalog.view_exists",
        "PROGRESS_DELAY": "0.2",
    }
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [*iceview_command(), "drop", VIEW],
        env=env,
        cwd=demo.root,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        preexec_fn=default_sigint,
    )
    os.close(slave)
    shown = bytearray()
    while b"[y/N]" not in shown:
        chunk = os.read(master, 4096)
        assert chunk, shown
        shown.extend(chunk)
    os.write(master, b"n\n")
    process.wait(60)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen(shown.decode()))
    assert "iceview drop" in text  # the line was shown while the catalog was slow
    prompt = text[text.index("Drop view") :]
    assert prompt.startswith(f"Drop view {VIEW} from catalog 'demo'? [y/N]") and "iceview drop" not in prompt
    os.close(master)
    assert process.returncode == 1
