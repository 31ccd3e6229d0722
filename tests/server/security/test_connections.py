"""Connections that send no request: a real ``iceview serve`` closes a connection whose request
head is not complete within ``--header-timeout`` (silent, or trickling a byte at a time), and
closes at once the connections of one client address over ``--max-connections-per-client``,
while a valid request on a connection within the cap is served."""

from __future__ import annotations

import contextlib
import json
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from fixtures.iceview_serve import IceviewServer

HEADER_TIMEOUT_S = 1.0
CAP = 8


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IceviewServer]:
    from fixtures.iceview_serve import start_iceview_server

    served = start_iceview_server(
        tmp_path_factory.mktemp("connections"),
        args=("--header-timeout", str(HEADER_TIMEOUT_S), "--max-connections-per-client", str(CAP)),
    )
    yield served
    served.stop()


def connect(server: IceviewServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def read_until_closed(sock: socket.socket) -> bytes:
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def status_and_error(answer: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]


def test_a_silent_connection_is_closed_after_the_header_timeout(server: IceviewServer) -> None:
    started = time.monotonic()
    with connect(server) as sock:
        answer = read_until_closed(sock)
    took = time.monotonic() - started
    assert HEADER_TIMEOUT_S * 0.8 < took < HEADER_TIMEOUT_S + 3, took
    status, error = status_and_error(answer)
    assert (status, error["code"], error["type"]) == (408, 408, "RequestTimeoutException")


def test_a_trickling_head_is_not_extended(server: IceviewServer) -> None:
    head = b"GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
    started = time.monotonic()
    with connect(server) as sock:
        sent = 0
        closed = False
        while sent < len(head) and time.monotonic() - started < HEADER_TIMEOUT_S + 5:
            try:
                sock.sendall(head[sent : sent + 1])
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            sent += 1
            time.sleep(0.1)
            sock.setblocking(False)
            try:
                if sock.recv(65536, socket.MSG_PEEK):
                    closed = True
                    break
            except BlockingIOError:
                pass
            finally:
                sock.setblocking(True)
        assert closed, "still open after trickling"
        answer = read_until_closed(sock)
    took = time.monotonic() - started
    assert took < HEADER_TIMEOUT_S + 3, took
    assert status_and_error(answer)[0] == 408


def test_a_slow_client_within_the_timeout_is_served(server: IceviewServer) -> None:
    # on one keep-alive connection, each head may take (almost) the whole timeout: the timer
    # starts again after each answer
    with connect(server) as sock:
        for _ in range(2):
            time.sleep(HEADER_TIMEOUT_S / 2)
            sock.sendall(b"GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            data = b""
            while b"\r\n\r\n" not in data:
                data += sock.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            assert head.split()[1] == b"200", data
            length = int(
                next(
                    line.split(b":")[1]
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
            )
            while len(body) < length:
                body += sock.recv(65536)


def test_connections_over_the_per_address_cap_are_closed(server: IceviewServer) -> None:
    held = [connect(server) for _ in range(CAP)]
    try:
        time.sleep(0.2)  # all accepted
        started = time.monotonic()
        with connect(server) as extra:
            answer = read_until_closed(extra)
        assert time.monotonic() - started < HEADER_TIMEOUT_S / 2  # at once, not at the timeout
        status, error = status_and_error(answer)
        assert (status, error["type"]) == (503, "ServiceUnavailableException")
        # one closes: a valid request on a fresh connection within the cap is served
        held.pop().close()
        time.sleep(0.2)
        with urllib.request.urlopen(server.uri + "v1/config", timeout=10) as response:
            assert response.status == 200
    finally:
        for sock in held:
            sock.close()
    # the held connections are counted down once closed
    time.sleep(0.3)
    with urllib.request.urlopen(server.uri + "v1/config", timeout=10) as response:
        assert response.status == 200


@pytest.mark.parametrize(
    "head",
    [
        b"GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\x00b\r\n\r\n",
        b"GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n folded\r\n\r\n",
        b"get /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"FROB /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"POST /v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"POST /v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
    ],
    ids=["nul", "obs-fold", "lower-case-method", "unknown-method", "cl-and-te", "negative-cl"],
)
def test_malformed_http_gets_an_iceberg_error_response(server: IceviewServer, head: bytes) -> None:
    with connect(server) as sock:
        sock.sendall(head)
        answer = read_until_closed(sock)
    status, error = status_and_error(answer)
    assert (status, error["code"], error["type"]) == (400, 400, "BadRequestException"), answer
    assert b"content-type: application/json" in answer.lower()
