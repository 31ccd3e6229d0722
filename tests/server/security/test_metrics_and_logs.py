"""``/healthz`` answers without a token; ``/metrics`` needs one when asked to (by default: when the
server listens beyond loopback); ``--access-log`` writes one line per request, with no query
string, ``Authorization`` header, token or client secret in it."""

from __future__ import annotations

import json
import logging
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from fixtures.iceview_serve import IceviewServer, write_auth_file
from iceview.catalog import SqlCatalog
from iceview.server import ServedCatalog, ServerSettings, create_app
from iceview.server.auth import hash_secret, hash_token, load_authenticator
from iceview.server.run import ServeOptions, build_app

TOKEN = secrets.token_urlsafe(32)
SECRET = "client-secret-" + secrets.token_urlsafe(12)
_SECRET_HASH = hash_secret(SECRET)


def auth_file(tmp_path: Path) -> str:
    path = tmp_path / "auth.json"
    path.write_text(
        json.dumps(
            {
                "signing-key": "s" * 40,
                "clients": [{"id": "etl", "secret-hash": _SECRET_HASH, "access": "read-write"}],
                "tokens": [{"name": "dashboards", "token-hash": hash_token(TOKEN)}],
            }
        )
    )
    return str(path)


# -- /healthz and /metrics ---------------------------------------------------------------------------
@pytest.mark.parametrize("metrics_auth", [True, False])
def test_healthz_is_open_and_metrics_follow_the_option(
    catalog: SqlCatalog, tmp_path: Path, metrics_auth: bool
) -> None:
    app = create_app(
        [ServedCatalog("srv", catalog)],
        ServerSettings(metrics_auth=metrics_auth),
        authenticator=load_authenticator(auth_file(tmp_path)),
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/v1/config").status_code == 401
        anonymous = client.get("/metrics")
        if metrics_auth:
            assert anonymous.status_code == 401
            assert anonymous.json()["error"]["type"] == "NotAuthorizedException"
            assert "iceview_requests" not in anonymous.text
            bad = client.get("/metrics", headers={"Authorization": "Bearer wrong-token-123456789"})
            assert bad.status_code == 401
        else:
            assert anonymous.status_code == 200 and "iceview_requests" in anonymous.text
        authorized = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert authorized.status_code == 200 and "iceview_requests" in authorized.text


@pytest.mark.parametrize(
    ("host", "option", "needs_token"),
    [
        ("127.0.0.1", None, False),
        ("::1", None, False),
        ("0.0.0.0", None, True),
        ("10.1.2.3", None, True),
        ("0.0.0.0", False, False),
        ("127.0.0.1", True, True),
    ],
)
def test_metrics_auth_defaults_to_on_beyond_loopback(
    catalog: SqlCatalog, tmp_path: Path, host: str, option: bool | None, needs_token: bool
) -> None:
    options = ServeOptions(host=host, auth_file=auth_file(tmp_path), metrics_auth=option, idempotency=False)
    app = build_app(options, [ServedCatalog("srv", catalog)])
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/metrics").status_code == (401 if needs_token else 200)
        assert client.get("/healthz").status_code == 200


# -- the access log ----------------------------------------------------------------------------------
LINE = re.compile(
    r"^(?P<client>\S+) (?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3}) (?P<ms>[\d.]+)ms (?P<who>\S+)$"
)


def test_the_access_log_has_one_line_per_request_without_secrets(
    catalog: SqlCatalog, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(
        [ServedCatalog("srv", catalog)],
        ServerSettings(access_log=True),
        authenticator=load_authenticator(auth_file(tmp_path)),
    )
    caplog.set_level(logging.INFO, logger="iceview.access")
    with TestClient(app, raise_server_exceptions=False) as client:
        client.get(f"/v1/config?warehouse={TOKEN}", headers={"Authorization": f"Bearer {TOKEN}"})
        client.post(
            "/v1/oauth/tokens",
            data={"grant_type": "client_credentials", "client_id": "etl", "client_secret": SECRET},
        )
        client.get("/v1/namespaces", headers={"Authorization": "Bearer not-a-token-0123456789"})
    lines = [r.getMessage() for r in caplog.records if r.name == "iceview.access"]
    assert len(lines) == 3, lines
    parsed = [LINE.match(line) for line in lines]
    assert all(parsed), lines
    fields = [(m["client"], m["method"], m["path"], m["status"], m["who"]) for m in parsed if m]
    assert fields == [
        ("testclient:50000", "GET", "/v1/config", "200", "dashboards"),
        ("testclient:50000", "POST", "/v1/oauth/tokens", "200", "-"),
        ("testclient:50000", "GET", "/v1/namespaces", "401", "-"),
    ]
    for secret in (TOKEN, SECRET, "not-a-token", "Bearer", "warehouse"):
        assert secret not in caplog.text


def test_access_log_of_a_real_server_names_requests_and_no_secret(
    iceview_server_factory: Callable[..., IceviewServer], tmp_path: Path
) -> None:
    auth = write_auth_file(tmp_path, {"etl": "read-write"}, {"dashboards": "read-only"})
    server = iceview_server_factory(args=("--auth-file", str(auth.path), "--access-log"))
    token = auth.tokens["dashboards"]
    client_id, secret = auth.credentials["etl"].split(":", 1)

    def call(path: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> int:
        req = urllib.request.Request(server.uri.rstrip("/") + path, data=data, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=10) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    assert call(f"/v1/config?warehouse={token}&x=1", headers={"Authorization": f"Bearer {token}"}) == 200
    form = urllib.parse.urlencode(
        {
            "grant_type": "client_credentials",
            "client_id": client_id,
            "client_secret": secret,
            "scope": "catalog",
        }
    ).encode()
    assert call("/v1/oauth/tokens", data=form) == 200
    wrong = secret[::-1]
    assert call("/v1/oauth/tokens", data=form.replace(secret.encode(), wrong.encode())) == 401
    assert call("/healthz") == 200
    assert server.stop() == 0
    log = server.log_path.read_text()
    requests = [line for line in log.splitlines() if re.search(r" (GET|POST) /", line)]
    assert any(
        re.search(r"127\.0\.0\.1:\d+ GET /v1/config 200 [\d.]+ms dashboards$", line) for line in requests
    ), log
    assert any(re.search(r"POST /v1/oauth/tokens 200 [\d.]+ms -$", line) for line in requests), log
    assert any(re.search(r"POST /v1/oauth/tokens 401 [\d.]+ms -$", line) for line in requests), log
    assert any(re.search(r"GET /healthz 200 ", line) for line in requests), log
    for leaked in (token, secret, wrong, "warehouse=", "Authorization", "Bearer", "client_secret"):
        assert leaked not in log
    assert "signing-key" not in log
    assert json.loads(auth.path.read_text())["signing-key"] not in log


def test_without_access_log_no_request_lines(iceview_server_factory: Callable[..., IceviewServer]) -> None:
    server = iceview_server_factory()
    with urllib.request.urlopen(server.uri + "v1/config", timeout=10) as answer:
        assert answer.status == 200
    assert not re.search(r" GET /v1/config 200 ", server.log_text())
