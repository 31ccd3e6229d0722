"""Reads of an embedded SQLite catalog that never wait: for a server's event loop.

Handing a blocking call to a worker thread and back costs more than a pointer query on a local
SQLite file takes (about 0.5 ms against 0.03 ms, ``docs/performance.md``). A :class:`NoWaitReader`
runs such a query on the caller's thread, on a read-only connection of its own whose busy timeout
is 0: when a writer holds the file's lock, or another thread holds the reader, it answers
:data:`WOULD_WAIT` at once, and the caller does the read the ordinary way (on a thread, where
waiting does no harm). Every statement is parameterized.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Final

__all__ = ["WOULD_WAIT", "NoWaitReader"]


class _WouldWait:
    def __repr__(self) -> str:
        return "WOULD_WAIT"


WOULD_WAIT: Final = _WouldWait()
"""What a read answers when it could only be done by waiting."""


class NoWaitReader:
    """A read-only connection to one SQLite file that answers at once or not at all. Opened on
    first use in each process (a connection must not cross a ``fork``)."""

    def __init__(self, database: str) -> None:
        self.uri = Path(database).resolve().as_uri() + "?mode=ro"
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._closed = False

    def first_row(self, sql: str, params: tuple[str, ...]) -> dict[str, Any] | _WouldWait | None:
        """The first row ``sql`` (``?`` placeholders) selects with ``params``, by column name; None
        when there is none; or :data:`WOULD_WAIT`."""
        if not self._lock.acquire(blocking=False):
            return WOULD_WAIT
        try:
            conn = self._connection()
            if conn is None:
                return WOULD_WAIT
            try:
                row = conn.execute(sql, params).fetchone()
            except sqlite3.Error:  # locked, busy, or anything the ordinary read should report
                return WOULD_WAIT
            return None if row is None else dict(zip(row.keys(), row, strict=True))
        finally:
            self._lock.release()

    def _connection(self) -> sqlite3.Connection | None:
        if self._closed:
            return None
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        try:
            conn = sqlite3.connect(self.uri, uri=True, timeout=0, check_same_thread=False)
            conn.execute("PRAGMA case_sensitive_like = ON")
            conn.row_factory = sqlite3.Row
        except sqlite3.Error:
            return None
        self._conn, self._pid = conn, os.getpid()
        return conn

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None
