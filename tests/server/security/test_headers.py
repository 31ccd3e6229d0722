"""Limits on request heads: a 1 MB header, 10,000 headers or a 100 KB URL get 431 Request Header
Fields Too Large from a real ``iceview serve`` (uvicorn parses the head, so the app alone would
not show it), and heads within the limits are served. The app enforces the same limits for other
ASGI servers."""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from fixtures.iceview_serve import IceviewServer
from iceview.catalog import SqlCatalog
from iceview.server import ServedCatalog, ServerSettings, create_app
from iceview.server.auth import hash_token, load_authenticator

LIMIT_BYTES = 64 * 1024
LIMIT_COUNT = 100


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from fixtures.iceview_serve import start_iceview_server

    served = start_iceview_server(tmp_path_factory.mktemp("headers"), args=("--access-log",))
    yield served
    served.stop()


def exchange(server: IceviewServer, head: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``head`` (a whole request) on a fresh connection; the status, headers and body of the
    answer (read until the server closes or the body is complete)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        # refused before it was all sent: the answer is still to be read
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(head)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        status_line, _, rest = data.partition(b"\r\n")
        raw_headers, _, body = rest.partition(b"\r\n\r\n")
        headers = dict(
            (k.strip().lower().decode(), v.strip().decode())
            for k, _, v in (line.partition(b":") for line in raw_headers.split(b"\r\n") if line)
        )
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    return int(status_line.split()[1]), headers, body


def request(path: str = "/v1/config", headers: list[tuple[str, str]] = ()) -> bytes:  # type: ignore[assignment]
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def assert_431(answer: tuple[int, dict[str, str], bytes]) -> None:
    status, headers, body = answer
    assert status == 431, answer[:2]
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    error = json.loads(body)["error"]
    assert (error["code"], error["type"]) == (431, "RequestHeaderFieldsTooLargeException")
    assert "100 header fields" in error["message"] and "65536 bytes" in error["message"]


def still_serves(server: IceviewServer) -> None:
    with urllib.request.urlopen(server.uri + "v1/config", timeout=10) as answer:
        assert answer.status == 200


def refused_by_the_protocol(server: IceviewServer) -> int:
    """How many requests uvicorn's protocol refused for their head (the app never saw them)."""
    return server.log_text(10_000).count(" - - 431 - (request head over the limits)")


def test_a_1_mb_header_gets_431(server: IceviewServer) -> None:
    before = refused_by_the_protocol(server)
    started = time.monotonic()
    assert_431(exchange(server, request(headers=[("X-Big", "a" * (1024 * 1024))])))
    assert time.monotonic() - started < 10
    still_serves(server)
    # refused while the head arrived, not after reading it whole and passing it to the app
    assert refused_by_the_protocol(server) == before + 1, server.log_text()
    assert "X-Big" not in server.log_text(10_000) and "aaaa" not in server.log_text(10_000)


def test_10000_headers_get_431(server: IceviewServer) -> None:
    before = refused_by_the_protocol(server)
    many = [(f"X-H{i}", "v") for i in range(10_000)]
    assert_431(exchange(server, request(headers=many)))
    still_serves(server)
    assert refused_by_the_protocol(server) == before + 1, server.log_text()


def test_a_head_just_over_the_limits_gets_431(server: IceviewServer) -> None:
    # in one small write: the exact count of fields and bytes decides, not the reads
    assert_431(exchange(server, request(headers=[(f"X-H{i}", "v") for i in range(LIMIT_COUNT)])))
    assert_431(exchange(server, request(headers=[("X-Big", "a" * LIMIT_BYTES)])))
    assert_431(exchange(server, request(path="/v1/config?x=" + "a" * (100 * 1024))))
    still_serves(server)


def test_heads_within_the_limits_are_served(server: IceviewServer) -> None:
    # 2 fields are the request's own (Host, X-Big / the 97 X-H*): 99 < 100 fields, 60 KB < 64 KiB
    status, _, body = exchange(server, request(headers=[(f"X-H{i}", "v") for i in range(LIMIT_COUNT - 2)]))
    assert status == 200, body
    status, _, body = exchange(server, request(headers=[("X-Big", "a" * (60 * 1024))]))
    assert status == 200, body
    # a large body is not a large head
    payload = b"{" + b" " * (200 * 1024) + b"}"
    head = (
        "POST /v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode()
    status, _, body = exchange(server, head + payload)
    assert status == 400, body  # read and refused as a request without a namespace, not as a head


# -- the app, under any ASGI server ----------------------------------------------------------------
def test_the_app_refuses_heads_over_its_limits_before_auth(catalog: SqlCatalog, tmp_path: Path) -> None:
    token = secrets.token_urlsafe(32)
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"tokens": [{"name": "svc", "token-hash": hash_token(token)}]}))
    settings = ServerSettings(max_header_bytes=4096, max_headers=20)
    app = create_app([ServedCatalog("srv", catalog)], settings, authenticator=load_authenticator(str(path)))
    with TestClient(app, raise_server_exceptions=False) as client:
        many = client.get("/v1/config", headers={f"x-h{i}": "v" for i in range(30)})
        assert many.status_code == 431  # not 401: refused before authentication
        assert many.json()["error"]["type"] == "RequestHeaderFieldsTooLargeException"
        assert client.get("/v1/config", headers={"x-big": "a" * 5000}).status_code == 431
        assert client.get("/v1/config", headers={"x-h": "v"}).status_code == 401
        assert client.get("/v1/config", headers={"Authorization": f"Bearer {token}"}).status_code == 200


# -- the protocol: refused while the head arrives ----------------------------------------------------
class _Transport:
    def __init__(self) -> None:
        self.written = b""
        self.eof = False
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written += data

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("10.1.2.3", 4000), "sockname": ("127.0.0.1", 8181)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_the_protocol_refuses_a_large_head_before_it_is_all_read() -> None:
    import asyncio

    import uvicorn
    from uvicorn.server import ServerState

    from iceview.server.http_protocol import LimitedHttpToolsProtocol

    called: list[object] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(scope)

    loop = asyncio.new_event_loop()
    try:
        config = uvicorn.Config(app, lifespan="off")
        config.load()
        protocol = LimitedHttpToolsProtocol(config, ServerState(), {}, _loop=loop)
        transport = _Transport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        head = request(headers=[("X-Big", "a" * (1024 * 1024))])
        fed = 0
        while fed < len(head) and not transport.written:
            protocol.data_received(head[fed : fed + 16 * 1024])
            fed += 16 * 1024
        # answered after the limit and one read, not after the whole megabyte
        assert LIMIT_BYTES < fed <= LIMIT_BYTES + 32 * 1024
        assert transport.written.startswith(b"HTTP/1.1 431 ")
        assert b"RequestHeaderFieldsTooLargeException" in transport.written
        assert transport.eof and not transport.closed  # half-closed: the client can read the answer
        written = len(transport.written)
        protocol.data_received(head[fed:])  # the rest is dropped
        assert len(transport.written) == written
        assert called == []  # the app never saw the request
    finally:
        loop.close()
