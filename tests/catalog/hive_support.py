"""A TCP proxy in front of a Hive Metastore that can lose the answer to one Thrift call, for the
Hive catalog's fault tests: the call reaches the metastore and runs, but the client never hears
back (its connection is cut), as when a network or the client's host fails mid-commit."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any
from urllib.parse import urlparse


class ThriftProxy:
    """Forwards connections to the metastore at ``target_uri``. ``lose(method)``: the next request
    whose bytes name ``method`` is forwarded, its answer read and dropped, and both connections
    closed. ``refuse = True``: new connections are closed at once (the metastore seems down)."""

    def __init__(self, target_uri: str) -> None:
        target = urlparse(target_uri)
        self._target = (target.hostname or "127.0.0.1", target.port or 9083)
        self._lose: bytes | None = None
        self.lost = threading.Event()
        self.refuse = False
        self.refuse_after_loss = False
        """Once an answer is lost, refuse new connections too (the client cannot ask again)."""
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.uri = f"thrift://127.0.0.1:{self._listener.getsockname()[1]}"
        self._open: set[socket.socket] = set()
        self._guard = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def lose(self, method: str) -> None:
        self.lost.clear()
        self._lose = method.encode()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.refuse:
                client.close()
                continue
            try:
                server = socket.create_connection(self._target)
            except OSError:
                client.close()
                continue
            with self._guard:
                self._open |= {client, server}
            drop = threading.Event()
            threading.Thread(target=self._upstream, args=(client, server, drop), daemon=True).start()
            threading.Thread(target=self._downstream, args=(server, client, drop), daemon=True).start()

    def _upstream(self, client: socket.socket, server: socket.socket, drop: threading.Event) -> None:
        while True:
            try:
                data = client.recv(65536)
            except OSError:
                break
            if not data:
                break
            lose = self._lose
            if lose is not None and lose in data:
                self._lose = None
                drop.set()  # the metastore runs the call; _downstream drops its answer
            try:
                server.sendall(data)
            except OSError:
                break
            if drop.is_set():
                return
        self._close(client, server)

    def _downstream(self, server: socket.socket, client: socket.socket, drop: threading.Event) -> None:
        while True:
            try:
                data = server.recv(65536)
                if not data:
                    break
                if drop.is_set():
                    if self.refuse_after_loss:
                        self.refuse = True
                    self.lost.set()
                    break
                client.sendall(data)
            except OSError:
                break
        self._close(server, client)

    def _close(self, *sockets: socket.socket) -> None:
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()
            with self._guard:
                self._open.discard(s)

    def cut_all(self) -> None:
        """Close every open connection (the metastore restarted, as the client sees it)."""
        with self._guard:
            sockets = list(self._open)
        self._close(*sockets)

    def close(self) -> None:
        self._listener.close()
        self.cut_all()


def empty_metastore(metastore: Any) -> None:
    """Drop every database but ``default`` (with what it holds) and every table of ``default``."""
    with metastore.client() as client:
        for database in client.get_all_databases():
            if database != "default":
                client.drop_database(database, False, True)
        for table in client.get_all_tables("default"):
            client.drop_table("default", table, False)
