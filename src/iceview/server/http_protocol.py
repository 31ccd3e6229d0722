"""uvicorn's httptools protocol with limits on the request head (:mod:`iceview.server.limits`).

httptools (llhttp) sets no limit on the size or number of header fields, and uvicorn adds none:
a 1 MB header value, or 10,000 headers, were read whole and handed to the app. This protocol
counts, for each request, the bytes received while its head is incomplete (a memory bound: no
more than the limit and one read are ever buffered), and the request line and every header field
as httptools reports them (the exact sizes). Over a limit it answers ``431 Request Header Fields
Too Large`` (an ``IcebergErrorResponse``, ``Connection: close``), stops sending (half-close), and
discards whatever the client still sends for a moment before closing, so that the client reads
the answer instead of a reset connection.

It also bounds what a client holds without sending requests. A request head must be complete
within ``config.iceview_header_timeout_s`` of the connection opening, or of the previous answer
ending (bytes trickling in do not extend it): else ``408 Request Timeout`` (an
``IcebergErrorResponse``, when part of a head had arrived or the connection is new) and the
connection is closed. And each worker process accepts at most
``config.iceview_max_connections_per_client`` connections at once from one client address: one
more gets ``503`` and is closed at once. Many addresses at once are a job for a proxy in front
(``docs/server.md``).
"""

from __future__ import annotations

import logging
from asyncio import TimerHandle
from typing import Any, ClassVar

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from iceview.server.errors import error_body
from iceview.server.limits import DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_HEADERS, too_large_body

__all__ = ["LimitedHttpToolsProtocol"]

_LINGER_S = 2.0
DEFAULT_HEADER_TIMEOUT_S = 10.0
"""Seconds a request head may take to arrive (from the connection, or from the previous answer)."""
DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 64
"""Connections one client address may hold open at once, per worker process (0: no limit)."""
access_log = logging.getLogger("iceview.access")
log = logging.getLogger("iceview.server")


class _HeadTooLarge(Exception):
    pass


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` refusing request heads over ``config.iceview_max_header_bytes``
    bytes or ``config.iceview_max_headers`` fields with 431."""

    def __init__(self, config: Any, server_state: Any, app_state: Any, _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.max_header_bytes: int = getattr(config, "iceview_max_header_bytes", DEFAULT_MAX_HEADER_BYTES)
        self.max_headers: int = getattr(config, "iceview_max_headers", DEFAULT_MAX_HEADERS)
        self._in_head = True
        self._received = 0  # bytes received while this request's head was incomplete
        self._counted = 0  # the head's size from the parser's callbacks
        self._fields = 0
        self._over = False
        self._refused = False
        self.header_timeout_s: float = getattr(config, "iceview_header_timeout_s", DEFAULT_HEADER_TIMEOUT_S)
        self.max_connections_per_client: int = getattr(
            config, "iceview_max_connections_per_client", DEFAULT_MAX_CONNECTIONS_PER_CLIENT
        )
        self._head_timer: TimerHandle | None = None
        self._head_started = False  # the awaited head has begun to arrive
        self._fresh = True  # no request answered on this connection yet
        self._address: str | None = None  # counted in _open_per_address

    _open_per_address: ClassVar[dict[str, int]] = {}
    """Open connections per client address in this process (one event loop per worker)."""

    # -- connections -------------------------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if address is not None and self.max_connections_per_client > 0:
            open_now = self._open_per_address.get(address, 0)
            if open_now >= self.max_connections_per_client:
                self._too_many(address)
                return
            self._open_per_address[address] = open_now + 1
            self._address = address
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        if self._address is not None:
            left = self._open_per_address.get(self._address, 1) - 1
            if left > 0:
                self._open_per_address[self._address] = left
            else:
                self._open_per_address.pop(self._address, None)
            self._address = None
        super().connection_lost(exc)

    def _too_many(self, address: str) -> None:
        self._refused = True
        body = error_body(
            503,
            "ServiceUnavailableException",
            f"Too many connections from this address: at most {self.max_connections_per_client}",
        )
        self._write_error(503, body, (b"retry-after: 1\r\n",))
        log.warning("refused a connection from %s: %d open already", address, self.max_connections_per_client)
        self.transport.close()

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        if self.header_timeout_s > 0:
            self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self._refused or self.transport.is_closing():
            return
        self._refused = True
        if self._head_started or self._fresh:  # an idle keep-alive connection just closes
            body = error_body(
                408,
                "RequestTimeoutException",
                f"Request head not received within {self.header_timeout_s:g} seconds",
            )
            self._write_error(408, body)
            if access_log.isEnabledFor(logging.INFO):
                client = f"{self.client[0]}:{self.client[1]}" if self.client else "-"
                access_log.info("%s - - 408 - (request head not received in time)", client)
        self.transport.close()

    def _write_error(self, status: int, body: bytes, extra: tuple[bytes, ...] = ()) -> None:
        """Write an ``IcebergErrorResponse`` answer with ``Connection: close``."""
        content = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                *extra,
                b"content-type: application/json\r\n",
                b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
                b"connection: close\r\n",
                b"\r\n",
                body,
            ]
        )
        self.transport.write(b"".join(content))

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._fresh = False
        if not self.pipeline and not self.transport.is_closing() and not self._in_head_complete():
            self._arm_head_timer()

    def _in_head_complete(self) -> bool:
        """Whether the next request's head is already whole (a pipelined request being served)."""
        return self.cycle is not None and not self.cycle.response_complete

    # -- the head ----------------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_started = True
        self._in_head = True
        self._received = 0
        self._counted = 0
        self._fields = 0

    def on_url(self, url: bytes) -> None:
        self._counted += len(url)
        if self._counted > self.max_header_bytes:
            self._over = True
            raise _HeadTooLarge
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        self._counted += len(name) + len(value) + 4
        if self._fields > self.max_headers or self._counted > self.max_header_bytes:
            self._over = True
            raise _HeadTooLarge
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._head_started = False
        self._disarm_head_timer()
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        if self._refused:  # answered 431: what follows is discarded until the connection closes
            return
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError:
            if self._over:
                self._refuse()
                return
            self._refused = True
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Bad request: not a valid HTTP/1.1 request")
            return
        if self._in_head:
            self._received += len(data)
            if self._received > self.max_header_bytes:
                self._refuse()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request that is not valid HTTP, as an ``IcebergErrorResponse``
        (uvicorn's own is plain text): NUL or obs-fold in a header, an unknown or lower-case
        method, Content-Length with Transfer-Encoding, a negative Content-Length, ..."""
        self._write_error(400, error_body(400, "BadRequestException", msg))
        if access_log.isEnabledFor(logging.INFO):
            client = f"{self.client[0]}:{self.client[1]}" if self.client else "-"
            access_log.info("%s - - 400 - (not a valid HTTP request)", client)
        self.transport.close()

    def _refuse(self) -> None:
        self._refused = True
        self._write_error(431, too_large_body(self.max_header_bytes, self.max_headers))
        if access_log.isEnabledFor(logging.INFO):
            client = f"{self.client[0]}:{self.client[1]}" if self.client else "-"
            access_log.info("%s - - 431 - (request head over the limits)", client)
        # half-close, then read and drop what the client still sends: closing with unread data
        # would reset the connection, and the client could lose the answer
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(_LINGER_S, self.transport.close)
