"""Limits on a request's head: the total size of its header fields and their number. Over either,
the answer is ``431 Request Header Fields Too Large``, an ``IcebergErrorResponse``.

Two places enforce them. ``iceview serve`` parses HTTP with uvicorn's httptools protocol, which
has no such limit (a 1 MB header or 10,000 headers were read whole):
:mod:`iceview.server.http_protocol` counts the bytes and fields while the head arrives, refuses
before the request reaches the app, and never buffers much more than the limit.
:class:`HeaderLimits` checks the same limits in the app (before authentication), for any other
ASGI server the app is run under.
"""

from __future__ import annotations

from typing import Any

from iceview.server.errors import error_body

__all__ = [
    "DEFAULT_MAX_HEADERS",
    "DEFAULT_MAX_HEADER_BYTES",
    "HeaderLimits",
    "head_size",
    "too_large_body",
]

DEFAULT_MAX_HEADER_BYTES = 64 * 1024
"""The largest request head (request line and header fields, as sent), in bytes."""
DEFAULT_MAX_HEADERS = 100
"""The most header fields a request may have."""

ERROR_TYPE = "RequestHeaderFieldsTooLargeException"


def too_large_body(max_bytes: int, max_count: int) -> bytes:
    """The ``IcebergErrorResponse`` of a 431."""
    return error_body(
        431,
        ERROR_TYPE,
        f"Request header fields too large: at most {max_count} header fields "
        f"and {max_bytes} bytes of request line and headers",
    )


def head_size(method: bytes | str, target: int, headers: list[tuple[bytes, bytes]]) -> int:
    """The size of a request head as it was sent: ``METHOD TARGET HTTP/1.1`` and ``name: value``
    lines, each with its CRLF (``target``: the size of the path and query)."""
    return len(method) + target + 12 + sum(len(n) + len(v) + 4 for n, v in headers)


class HeaderLimits:
    """ASGI middleware: 431 for a request whose head is over the limits."""

    def __init__(
        self, app: Any, max_bytes: int = DEFAULT_MAX_HEADER_BYTES, max_count: int = DEFAULT_MAX_HEADERS
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_count = max_count

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = scope["headers"]
            target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope["query_string"]) + 1
            if len(headers) > self.max_count or head_size(scope["method"], target, headers) > self.max_bytes:
                body = too_large_body(self.max_bytes, self.max_count)
                await send(
                    {
                        "type": "http.response.start",
                        "status": 431,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
