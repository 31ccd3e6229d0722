"""What an unauthenticated client can make the server say: no redirect built from its Host
header, no client-supplied value repeated at length, no internals in ``/healthz``."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.server import ServedCatalog, ServerSettings, create_app
from iceview.server.auth import load_authenticator
from iceview.server.errors import SHOWN_CHARS, clipped

from ..test_server_auth import auth_config, write_json


def test_a_trailing_slash_is_a_404_not_a_redirect_to_the_host_header(client: TestClient) -> None:
    for method in ("POST", "GET"):
        for path in ("/v1/namespaces/", "/v1/config/", "/v1/namespaces/ns/tables/"):
            response = client.request(
                method, path, headers={"Host": "evil.example:9999"}, follow_redirects=False
            )
            assert response.status_code == 404, (method, path, response.headers)
            assert "location" not in response.headers
            error = response.json()["error"]
            assert (error["code"], error["type"]) == (404, "NotFoundException")
            assert "evil.example" not in response.text


def test_a_trailing_slash_is_refused_before_authentication(catalog: SqlCatalog, tmp_path: Path) -> None:
    app = create_app(
        [ServedCatalog("srv", catalog)],
        ServerSettings(),
        authenticator=load_authenticator(write_json(tmp_path, auth_config())),
    )
    with TestClient(app, raise_server_exceptions=False) as c:
        response = c.post("/v1/namespaces/", headers={"Host": "evil.example:9999"}, follow_redirects=False)
        assert response.status_code in (401, 404) and "location" not in response.headers


def test_clipped() -> None:
    assert clipped("etl") == "'etl'"
    long = clipped("a" * 100_000)
    assert long == repr("a" * SHOWN_CHARS) + "…"


def test_the_token_endpoint_repeats_at_most_64_characters_of_a_client_id(tmp_path: Path) -> None:
    auth = load_authenticator(write_json(tmp_path, auth_config()))
    status, doc = auth.issue_token(
        {"grant_type": "client_credentials", "client_id": "x" * 100_000, "client_secret": "s"}
    )
    assert (status, doc["error"]) == (401, "invalid_client")
    assert len(doc["error_description"]) < 200, len(doc["error_description"])
    assert "x" * SHOWN_CHARS + "'…" in doc["error_description"]
    status, doc = auth.issue_token({"grant_type": "g" * 100_000})
    assert (status, doc["error"]) == (400, "unsupported_grant_type")
    assert len(doc["error_description"]) < 200


def test_a_long_path_is_not_repeated_whole(client: TestClient) -> None:
    response = client.get("/v1/" + "p" * 10_000)
    assert response.status_code == 404
    assert len(response.json()["error"]["message"]) < 200


def test_healthz_says_only_that_the_database_does_not_answer(
    client: TestClient, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    with sqlite3.connect(tmp_path / "catalog.db") as db:
        db.execute("DROP TABLE iceberg_tables")
    with caplog.at_level(logging.WARNING, logger="iceview.server"):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "reason": "the catalog's database does not answer"}
    # the detail is in the server's log
    assert any("iceberg_tables" in r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
