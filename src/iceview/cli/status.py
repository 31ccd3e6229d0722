"""The progress line of a running command: a spinner on a terminal's stderr that appears once the
command has run for a second, so that a quick command prints nothing extra and a slow one is
never silent. The step that runs sets its text (``starting Spark``, ``linting 3 of 40 views``).

The line goes away for good before the command's first output, warning or prompt (a spinner
redrawn between lines of output would garble them), and when the command ends. It is shown on a
real terminal only: pipes, logs and captured runs see nothing.

This module imports nothing of iceview, so that the output and error helpers can hide the line.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["DELAY", "command_status", "hide", "step"]

DELAY = 1.0
"""Seconds a command runs before its progress line appears."""


class _Line:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lock = threading.Lock()
        self.status: Any = None
        self.spinner: Any = None
        self.finished = False

    def show(self) -> None:
        with self.lock:
            if self.finished or self.status is not None:
                return
            from rich.console import Console
            from rich.live import Live
            from rich.spinner import Spinner

            # nothing is printed while the line shows (see hide), so stdout stays as it is
            self.spinner = Spinner("dots", text=self.text)
            self.status = Live(
                self.spinner,
                console=Console(file=sys.stderr, stderr=True),
                transient=True,
                refresh_per_second=12.5,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self.status.start()

    def update(self, text: str) -> None:
        with self.lock:
            self.text = text
            if self.status is not None:
                self.spinner.update(text=text)

    def finish(self) -> None:
        with self.lock:
            self.finished = True
            if self.status is not None:
                self.status.stop()
                self.status = None


_current: _Line | None = None


def _stderr_is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def command_status(text: str) -> Iterator[None]:
    """Run a command with its progress line (``text`` until a step says more), shown after
    :data:`DELAY` seconds."""
    global _current
    if not _stderr_is_terminal() or _current is not None:
        yield
        return
    line = _Line(text)
    timer = threading.Timer(DELAY, line.show)
    timer.daemon = True
    _current = line
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        line.finish()
        _current = None


@contextlib.contextmanager
def step(text: str) -> Iterator[None]:
    """Say what the command is doing while the block runs; the text before comes back after."""
    line = _current
    if line is None or line.finished:
        yield
        return
    before = line.text
    line.update(text)
    try:
        yield
    finally:
        if not line.finished:
            line.update(before)


def hide() -> None:
    """Remove the progress line for the rest of the command: output, a warning or a prompt
    follows."""
    if _current is not None:
        _current.finish()
