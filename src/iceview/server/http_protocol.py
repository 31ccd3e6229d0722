"""uvicorn's httptools protocol with limits on the request head (:mod:`iceview.server.limits`).

httptools (llhttp) sets no limit on the size or number of header fields, and uvicorn adds none:
a 1 MB header value, or 10,000 headers, were read whole and handed to the app. This protocol
counts, for each request, the bytes received while its head is incomplete (a memory bound: no
more than the limit and one read are ever buffered), and the request line and every header field
as httptools reports them (the exact sizes). Over a limit it answers ``431 Request Header Fields
Too Large`` (an ``IcebergErrorResponse``, ``Connection: close``), stops sending (half-close), and
discards whatever the client still sends for a moment before closing, so that the client reads
the answer instead of a reset connection.
"""

from __future__ import annotations

import logging
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from iceview.server.limits import DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_HEADERS, too_large_body

__all__ = ["LimitedHttpToolsProtocol"]

_LINGER_S = 2.0
access_log = logging.getLogger("iceview.access")


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

    def on_message_begin(self) -> None:
        super().on_message_begin()
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
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        if self._in_head:
            self._received += len(data)
            if self._received > self.max_header_bytes:
                self._refuse()

    def _refuse(self) -> None:
        self._refused = True
        body = too_large_body(self.max_header_bytes, self.max_headers)
        content = [STATUS_LINE[431]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"content-type: application/json\r\n",
                b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
                b"connection: close\r\n",
                b"\r\n",
                body,
            ]
        )
        self.transport.write(b"".join(content))
        if access_log.isEnabledFor(logging.INFO):
            client = f"{self.client[0]}:{self.client[1]}" if self.client else "-"
            access_log.info("%s - - 431 - (request head over the limits)", client)
        # half-close, then read and drop what the client still sends: closing with unread data
        # would reset the connection, and the client could lose the answer
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(_LINGER_S, self.transport.close)
