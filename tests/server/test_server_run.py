"""``iceview serve`` as a user runs it: a real process, its one line, loopback by default,
clean stops on SIGTERM and Ctrl-C, several workers; and the time limit of a request."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.server import ServedCatalog, ServerSettings, create_app

ICEVIEW = str(Path(sys.executable).with_name("iceview"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYICEBERG_CATALOG__SRV__TYPE="sql",
        PYICEBERG_CATALOG__SRV__URI=f"sqlite:///{tmp_path}/catalog.db",
        PYICEBERG_CATALOG__SRV__WAREHOUSE=f"file://{tmp_path}/warehouse",
    )
    return env


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    proc = subprocess.Popen(
        [ICEVIEW, "-c", "srv", "serve", "--port", str(port), *args],
        env=env_for(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line == f"iceview serve: listening on http://127.0.0.1:{port}/", (
        line,
        proc.stderr.read() if proc.poll() is not None else "",
    )
    return proc, f"http://127.0.0.1:{port}/"


@pytest.mark.parametrize(("workers", "stop"), [(1, signal.SIGTERM), (2, signal.SIGTERM), (1, signal.SIGINT)])
def test_serve_announces_answers_and_stops_cleanly(
    tmp_path: Path, workers: int, stop: signal.Signals
) -> None:
    proc, url = start(tmp_path, "--workers", str(workers))
    try:
        request = urllib.request.Request(
            url + "v1/namespaces", data=json.dumps({"namespace": ["n"]}).encode(), method="POST"
        )
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert json.loads(answer.read()) == {"namespace": ["n"], "properties": {}}
        for _ in range(2 * workers):  # whichever worker answers, it serves the same catalog
            with urllib.request.urlopen(url + "v1/namespaces", timeout=10) as answer:
                assert json.loads(answer.read()) == {"namespaces": [["n"]]}
    finally:
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_serve_refuses_a_public_address_without_auth(tmp_path: Path) -> None:
    done = subprocess.run(
        [ICEVIEW, "-c", "srv", "serve", "--host", "0.0.0.0", "--port", str(free_port())],
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Refusing to serve on 0.0.0.0 without authentication" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_slow_request_times_out_with_the_right_error(
    catalog: SqlCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog.create_namespace("ns")
    real = catalog.list_views

    def slow(namespace: object = ()) -> list[tuple[str, ...]]:
        time.sleep(1.0)
        return real(namespace)  # type: ignore[arg-type]

    monkeypatch.setattr(catalog, "list_views", slow)
    monkeypatch.setattr(catalog, "create_namespace", lambda *a, **k: time.sleep(1.0))
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings(request_timeout_s=0.2))
    with TestClient(app) as client:
        read = client.get("/v1/namespaces/ns/views")
        assert read.status_code == 503
        assert read.json()["error"]["type"] == "ServiceUnavailableException"
        write = client.post("/v1/namespaces", json={"namespace": ["x"]})
        assert write.status_code == 500
        assert write.json()["error"]["type"] == "CommitStateUnknownException"


def test_hash_secret_prints_only_a_hash_the_server_accepts(tmp_path: Path) -> None:
    from iceview.server.auth import verify_secret

    done = subprocess.run(
        [ICEVIEW, "serve", "--hash-secret"],
        input="a-client-secret\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    hashed = done.stdout.strip()
    assert "a-client-secret" not in done.stdout + done.stderr
    assert hashed.startswith("scrypt:")
    assert verify_secret("a-client-secret", hashed)
    assert not verify_secret("another-secret", hashed)
