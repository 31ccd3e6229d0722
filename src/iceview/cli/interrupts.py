"""Ctrl-C: one message (``iceview: interrupted``), exit code 130, no traceback, and never in the
middle of a commit.

:func:`run` wraps the whole command line (click's own handling would print ``Aborted!`` and exit
1). :func:`committing` holds SIGINT back while a command changes the catalog: a commit either has not
started or has finished when the interrupt is reported, and the message says which.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from iceview.cli.errors import Interrupted

__all__ = ["committing"]


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
