"""Injected faults of the REST reference server fixture (for the REST client's fault tests)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from fixtures.rest_java import JavaRestServer

pytestmark = pytest.mark.java

Factory = Callable[..., JavaRestServer]


def call(
    server: JavaRestServer, method: str, path: str, body: Any = None, timeout: float = 30
) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.uri + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def new_view(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "schema": {
            "type": "struct",
            "schema-id": 0,
            "fields": [{"id": 1, "name": "x", "required": False, "type": "long"}],
        },
        "view-version": {
            "version-id": 1,
            "timestamp-ms": 1_700_000_000_000,
            "schema-id": 0,
            "summary": {},
            "representations": [{"type": "sql", "sql": "SELECT 1 AS x", "dialect": "spark"}],
            "default-namespace": ["f"],
        },
    }


def test_status_malformed_and_delay_faults(java_rest_server_factory: Factory) -> None:
    server = java_rest_server_factory()
    assert call(server, "POST", "v1/namespaces", {"namespace": ["f"]})[0] == 200
    views = "v1/namespaces/f/views"

    server.inject_fault("POST", views, "status", status=503)
    status, body = call(server, "POST", views, new_view("a"))
    assert status == 503 and json.loads(body)["error"]["type"] == "ServiceUnavailableException"
    assert call(server, "HEAD", f"{views}/a")[0] == 404  # not done
    assert call(server, "POST", views, new_view("a"))[0] == 200  # fired once only

    server.inject_fault("GET", f"{views}/a", "malformed")
    status, body = call(server, "GET", f"{views}/a")
    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)

    server.inject_fault("POST", views, "status-after", status=504)
    status, body = call(server, "POST", views, new_view("b"))
    assert status == 504 and json.loads(body)["error"]["type"] == "CommitStateUnknownException"
    assert call(server, "HEAD", f"{views}/b")[0] == 204  # done despite the error

    server.inject_fault("GET", f"{views}/a", "delay", delay_ms=1500)
    with pytest.raises(TimeoutError):
        call(server, "GET", f"{views}/a", timeout=0.5)
    server.inject_fault("GET", f"{views}/a", "status", times=5)
    server.clear_faults()
    assert call(server, "GET", f"{views}/a")[0] == 200
    with pytest.raises(ValueError, match="unknown fault action"):
        server.inject_fault("GET", views, "explode")


@pytest.mark.parametrize("when", ["halt-before", "halt-after"])
def test_server_dies_mid_request(java_rest_server_factory: Factory, when: str) -> None:
    server = java_rest_server_factory()
    assert call(server, "POST", "v1/namespaces", {"namespace": ["f"]})[0] == 200
    server.inject_fault("POST", "v1/namespaces/f/views", when)
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        call(server, "POST", "v1/namespaces/f/views", new_view("v"))
    deadline = time.monotonic() + 10
    while server.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not server.running
    server.restart()
    exists = call(server, "HEAD", "v1/namespaces/f/views/v")[0]
    assert exists == (204 if when == "halt-after" else 404)
