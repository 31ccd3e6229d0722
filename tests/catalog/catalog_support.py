"""Shared values for the catalog tests (ViewCatalogTests' fixtures, in Python)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

from iceview.catalog.sql import SqlCatalog

# ViewCatalogTests.SCHEMA / OTHER_SCHEMA
SCHEMA = Schema(
    NestedField(3, "id", IntegerType(), required=True, doc="unique ID"),
    NestedField(4, "data", StringType(), required=True),
    schema_id=5,
)
OTHER_SCHEMA = Schema(NestedField(1, "some_id", IntegerType(), required=True), schema_id=7)

# a schema PyIceberg can make tables with
TABLE_SCHEMA = Schema(NestedField(1, "id", IntegerType(), required=False), schema_id=0)


def file_path(location: str) -> str:
    """A local path from a ``file:`` URI (or a path)."""
    if location.startswith("file://"):
        return location[len("file://") :]
    if location.startswith("file:"):
        return location[len("file:") :]
    return location


CATALOG_NAME = "testCatalog"

# ViewCatalogTests' catalog properties
VIEW_CATALOG_PROPERTIES = {
    "view-default.key1": "catalog-default-key1",
    "view-default.key2": "catalog-default-key2",
    "view-default.key3": "catalog-default-key3",
    "view-override.key3": "catalog-override-key3",
    "view-override.key4": "catalog-override-key4",
}


# the session's metastore expires locks after 15 s without a heartbeat (tests/fixtures/hms_server.py)
HIVE_TEST_PROPERTIES = {"iceberg.hive.lock-heartbeat-interval-ms": "4000"}


@dataclass
class CatalogEnv:
    """Where a test's catalog lives: the database URL (SQLAlchemy), the warehouse, the backend."""

    backend: str
    url: str
    warehouse: Path
    jdbc_url: str | None = None
    jdbc_user: str | None = None
    properties: dict[str, str] = field(default_factory=dict)
    """Further catalog properties (the Hive catalog's lock mode)."""

    @property
    def worker_url(self) -> str:
        """The url catalog_worker.py opens, with :attr:`properties` after a ``#``."""
        if not self.properties:
            return self.url
        from urllib.parse import urlencode

        return f"{self.url}#{urlencode(self.properties)}"

    def view_dir(self, namespace: str, name: str) -> Path:
        """Where a view's default location puts its files: ``<ns>/<name>``, and in a Hive
        database's folder ``<ns>.db/<name>``."""
        return self.warehouse / (f"{namespace}.db" if self.backend == "hive" else namespace) / name

    @property
    def warehouse_uri(self) -> str:
        if self.backend == "rest":  # the Java server's HadoopFileIO writes file:/path
            return "file:" + str(self.warehouse)
        return "file://" + str(self.warehouse)

    def catalog(self, name: str = CATALOG_NAME, **props: str) -> Any:
        """iceview's catalog: the SQL catalog, or (backend ``rest``) the REST catalog on the
        reference server at ``url``."""
        if self.backend == "rest":
            from iceview.catalog.rest import RestCatalog

            return RestCatalog(name, uri=self.url, **props)
        if self.backend == "hive":
            from iceview.catalog.hive import HiveCatalog

            return HiveCatalog(
                name, uri=self.url, warehouse=self.warehouse_uri, **HIVE_TEST_PROPERTIES, **props
            )
        merged = {"uri": self.url, "warehouse": self.warehouse_uri, **props}
        return SqlCatalog(name, **merged)

    def pyiceberg(self, name: str = CATALOG_NAME, **props: str) -> Any:
        """PyIceberg's catalog on the same store (its SqlCatalog, or its RestCatalog)."""
        if self.backend == "rest":
            from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog

            return PyIcebergRestCatalog(name, uri=self.url, **props)
        if self.backend == "hive":
            from pyiceberg.catalog.hive import HiveCatalog as PyIcebergHiveCatalog

            return PyIcebergHiveCatalog(name, uri=self.url, warehouse=self.warehouse_uri, **props)
        from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog

        return PyIcebergSqlCatalog(name, uri=self.url, warehouse=self.warehouse_uri, **props)


def metadata_files(path: Path) -> list[str]:
    """The metadata file names under a folder, sorted."""
    if not path.exists():
        return []
    # not Hadoop's hidden .crc checksum files (the Java REST server writes them beside each file)
    return sorted(n for n in os.listdir(path) if ".metadata.json" in n and not n.startswith("."))


# ----------------------------------------------------------------------------- REST


def unique_namespace(prefix: str = "ns") -> str:
    """A namespace name no other test uses (the session's REST server is shared)."""
    import uuid

    return f"{prefix}_{uuid.uuid4().hex[:10]}"


@dataclass
class Fault:
    """What :class:`RestProxy` does with a matching request, instead of forwarding it untouched.

    ``status``/``body``: answer this (without forwarding when ``forward`` is false; after forwarding
    otherwise: the server did the work, the client hears an error). ``delay``: wait before
    answering. ``malformed``: forward, then answer the server's status with a broken JSON body.
    ``drop``: forward, then close the connection without an answer. ``before``: run first (e.g.
    kill the server). ``rewrite``: forward, then answer what it makes of the server's body."""

    status: int | None = None
    body: bytes = b""
    forward: bool = True
    delay: float = 0.0
    malformed: bool = False
    drop: bool = False
    before: Any = None
    rewrite: Any = None  # bytes -> bytes, applied to the server's answer


class RestProxy:
    """A real HTTP proxy in the test process in front of a REST server, which forwards every
    request and injects :class:`Fault` s into the ones asked for. ``requests`` records
    ``(method, path with query)`` of everything it saw."""

    def __init__(self, target_uri: str) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import urlparse

        target = urlparse(target_uri)
        self._target = (target.hostname or "127.0.0.1", target.port or 80)
        self._faults: list[tuple[str, str, Fault, list[int]]] = []
        self._lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []
        self.headers: list[dict[str, str]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                proxy._serve(self)

            do_GET = do_POST = do_HEAD = do_DELETE = do_PUT = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.uri = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def inject(self, method: str, path_part: str, fault: Fault, times: int = 1) -> None:
        """Apply ``fault`` to the next ``times`` requests with ``method`` whose path contains
        ``path_part``."""
        with self._lock:
            self._faults.append((method, path_part, fault, [times]))

    def _fault_for(self, method: str, path: str) -> Fault | None:
        with self._lock:
            self.requests.append((method, path))
            for m, part, fault, left in self._faults:
                if m == method and part in path and left[0] > 0:
                    left[0] -= 1
                    return fault
        return None

    def _serve(self, handler: Any) -> None:
        import http.client
        import time

        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        fault = self._fault_for(handler.command, handler.path)
        with self._lock:
            self.headers.append(dict(handler.headers.items()))
        if fault is not None and fault.before is not None:
            fault.before()
        status, payload, content_type = 502, b"", "application/json"
        if fault is None or fault.forward:
            conn = http.client.HTTPConnection(*self._target, timeout=60)
            headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "connection")}
            try:
                conn.request(handler.command, handler.path, body=body, headers=headers)
                response = conn.getresponse()
                status, payload = response.status, response.read()
                content_type = response.getheader("Content-Type") or content_type
            except OSError:
                handler.close_connection = True
                return  # the server is gone: so is the client's connection
            finally:
                conn.close()
        if fault is not None:
            if fault.drop:
                handler.close_connection = True
                return
            if fault.delay:
                time.sleep(fault.delay)
            if fault.status is not None:
                status, payload = fault.status, fault.body
            if fault.rewrite is not None:
                payload = fault.rewrite(payload)
            if fault.malformed:
                payload = b'{"metadata-location": "s3://x", "metadata": {"view-uuid": '
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(payload)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def error_body(code: int, error_type: str, message: str) -> bytes:
    """An ``IcebergErrorResponse`` body."""
    import json

    return json.dumps({"error": {"message": message, "type": error_type, "code": code}}).encode()
