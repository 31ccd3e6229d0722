"""The access log (``iceview serve --access-log``): one line per request on the logger
``iceview.access``::

    127.0.0.1:53412 GET /v1/namespaces/db/views/v 200 1.3ms etl

client address and port, method, path, status, duration, and the principal's name (``-``: none,
or not authenticated). The path is logged without its query string (a query may carry anything a
client puts there), and nothing of the headers or the body is: no ``Authorization``, token or
client secret can reach a line.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

__all__ = ["PRINCIPAL_KEY", "AccessLog", "configure_access_log", "log"]

log = logging.getLogger("iceview.access")

PRINCIPAL_KEY = "iceview.principal"
"""The ASGI scope key under which the app leaves the authenticated principal's name."""


def configure_access_log() -> None:
    """Send ``iceview.access`` lines to stderr (once per process)."""
    log.setLevel(logging.INFO)
    log.propagate = False
    if not any(getattr(h, "_iceview_access", False) for h in log.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        handler._iceview_access = True  # type: ignore[attr-defined]
        log.addHandler(handler)


def _path(scope: Any) -> str:
    """The path as the client sent it (percent-encoded: no space or line break can reach the
    line), without the query."""
    raw = scope.get("raw_path")
    if raw:
        return str(raw.decode("ascii", "backslashreplace"))
    return str(scope["path"]).encode("unicode_escape").decode("ascii")


class AccessLog:
    """ASGI middleware: one ``iceview.access`` line per HTTP request, once its answer is sent."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def sending(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            client = scope.get("client")
            log.info(
                "%s %s %s %d %.1fms %s",
                f"{client[0]}:{client[1]}" if client else "-",
                scope["method"],
                _path(scope),
                status or 500,
                (time.perf_counter() - started) * 1000,
                scope.get(PRINCIPAL_KEY) or "-",
            )
