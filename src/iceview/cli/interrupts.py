"""Ctrl-C: one message (``iceview: interrupted``), exit code 130, no traceback, and never in the
middle of a commit.

:func:`iceview.cli.main` and the command group's ``main`` turn KeyboardInterrupt into that message
(click's own handling would print ``Aborted!`` and exit 1). :func:`committing` holds SIGINT back
while a command changes the catalog: a commit either has not started or has finished when the
interrupt is reported, and the message says which. :func:`cancellable` runs a query so that Ctrl-C
cancels it at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

from iceview.cli.errors import Interrupted

__all__ = ["cancellable", "committing"]


@contextlib.contextmanager
def committing(what: str) -> Iterator[None]:
    """Run a change to the catalog (``what`` names it) to its end even if Ctrl-C comes meanwhile;
    the interrupt is then reported as :class:`Interrupted`, saying that the change was made."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return
    received: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)

    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    if received:
        raise Interrupted(f"interrupted after {what} had finished (the change was made)")


T = TypeVar("T")

_STOP_WAIT = 10.0  # seconds a cancelled query may take to stop before the process ends anyway


def cancellable(work: Callable[[], T], interrupt: Callable[[], object]) -> T:
    """Run ``work`` (a DuckDB query) in a worker thread while this one waits, so that Ctrl-C is
    seen at once: DuckDB notices it by itself only now and then. On Ctrl-C the query is cancelled
    with ``interrupt`` (again until the worker stops: it may be between two DuckDB calls), then
    KeyboardInterrupt goes on; a worker that does not stop ends with the process."""
    outcome: list[tuple[bool, Any]] = []

    def target() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as e:  # handed to the waiting thread
            outcome.append((False, e))

    worker = threading.Thread(target=target, name="iceview-query", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        deadline = time.monotonic() + _STOP_WAIT
        while worker.is_alive() and time.monotonic() < deadline:
            interrupt()
            worker.join(0.1)
        if worker.is_alive():  # closing a connection that is still busy would crash DuckDB
            sys.stderr.write("iceview: interrupted\n")
            sys.stderr.flush()
            os._exit(130)
        raise
    ok, value = outcome[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]
