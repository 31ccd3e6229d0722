"""What one request works on: the served catalog (with its table catalog and the locations it
may write to) and the server's settings. Also the answer a handler gives."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from iceview.catalog import Catalog
from iceview.catalog.interface import close_table_catalog
from iceview.files import ALLOW_EXTERNAL_LOCATIONS, confinement_root

__all__ = ["REFERENCED_BY_KEY", "Reply", "ServedCatalog", "ServerSettings"]

REFERENCED_BY_KEY = "iceview.referenced-by"
"""The ASGI scope key under which the app leaves the parsed ``referenced-by`` chain of a load (a
tuple of :class:`~iceview.identifiers.ViewIdentifier`, outermost view first) for middleware such as
audit or authorization hooks; set only when the request carried the parameter."""


@dataclass(frozen=True)
class ServerSettings:
    """Limits and policies of one server (the same in every worker)."""

    max_body_bytes: int = 8 * 1024 * 1024
    """Larger request bodies are refused with 413."""
    request_timeout_s: float = 60.0
    """A request still running after this is answered 503 (a mutation: 500, outcome unknown)."""
    threads: int = 32
    """Threads per process that run the catalog calls (each holds at most one database connection)."""
    max_page_size: int = 1000
    """The largest page of a list answer, and the page size when a client pages without one."""
    idempotency_lifetime_s: int = 30 * 60
    """How long an ``Idempotency-Key`` is remembered (advertised as ``idempotency-key-lifetime``)."""
    allow_external_locations: bool = False
    """Whether a view or table may be given a location outside its catalog's warehouse."""
    metrics_auth: bool = False
    """Whether ``/metrics`` needs a bearer token (when authentication is configured)."""
    max_header_bytes: int = 64 * 1024
    """Larger request heads (request line and header fields) are refused with 431."""
    max_headers: int = 100
    """Requests with more header fields are refused with 431."""
    token_rate_per_s: float = 2.0
    """Requests per second and client address that may need a slow check (the token endpoint, and
    bearer tokens that only a scrypt-stored static token could match); more get 429."""
    token_burst: int = 20
    """How many such requests an address may make at once before the rate applies."""
    auth_threads: int = 2
    """Threads that run slow checks (scrypt); at most ``auth_queue`` more wait for one, beyond
    which requests get 503 at once."""
    auth_queue: int = 32
    auth_failure_delay_s: float = 0.1
    """How long a 401 or 429 answer is held back (a timer: it costs the server nothing, and a client
    sending wrong credentials as fast as it can gets at most ten answers a second a connection)."""
    access_log: bool = False
    """Log one line per request on ``iceview.access`` (``iceview.server.access_log``)."""


def _shareable(tables: Any) -> bool:
    """Whether one PyIceberg catalog may serve every request thread at once: its SQL catalog
    (a SQLAlchemy engine: a connection pool) and its REST catalog (an HTTP session) may. Its Hive
    catalog may not: PyIceberg 0.12's ``HiveCatalog`` keeps one Thrift transport that every call
    opens again and closes, so calls from two threads use and close each other's connection
    (``TTransportException``)."""
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog
    from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog

    return isinstance(tables, (PyIcebergSqlCatalog, PyIcebergRestCatalog))


@dataclass
class ServedCatalog:
    """A catalog behind the server, by the name (prefix) it is served under."""

    name: str
    catalog: Catalog
    _tables: Any = field(default=None, repr=False)
    _shared: bool = field(default=True, repr=False)
    _own: threading.local = field(default_factory=threading.local, repr=False)
    _every: list[Any] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def tables(self) -> Any:
        """PyIceberg's catalog for the tables of the same store: created once and shared by the
        request threads when it can be (:func:`_shareable`: the SQL and REST catalogs), else
        one per request thread (the Hive catalog; creating one opens no connection)."""
        with self._lock:
            if self._tables is None:
                self._tables = self.catalog.table_catalog()
                self._shared = _shareable(self._tables)
                self._every.append(self._tables)
                if not self._shared:
                    self._own.tables = self._tables  # the first thread's own
            if self._shared:
                return self._tables
        own = getattr(self._own, "tables", None)
        if own is None:
            own = self.catalog.table_catalog()
            self._own.tables = own
            with self._lock:
                self._every.append(own)
        return own

    def confine(self, allow_external: bool) -> None:
        """Make the served catalog follow the server's one switch, ``--allow-external-locations``:
        its ``iceview.allow-external-locations`` property is set (or cleared) to match, so the
        library's own checks and the server's agree."""
        self.catalog.properties[ALLOW_EXTERNAL_LOCATIONS] = "true" if allow_external else "false"

    def warehouse_root(self, allow_external: bool) -> str | None:
        """Where views and tables may be written and deleted (:func:`iceview.files.confinement_root`
        with the server's switch); None when anywhere is allowed (by the switch, or when the
        catalog has no warehouse to confine them to)."""
        properties = dict(self.catalog.properties)
        properties[ALLOW_EXTERNAL_LOCATIONS] = "true" if allow_external else "false"
        return confinement_root(properties)

    def close(self) -> None:
        """Release the table catalog and the catalog's connections."""
        with self._lock:
            for tables in self._every:
                close_table_catalog(tables)
            self._every.clear()
            self._tables = None
            self._own = threading.local()
        self.catalog.close()


@dataclass(frozen=True)
class Reply:
    """A handler's answer: status and a JSON document (None: no body)."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
