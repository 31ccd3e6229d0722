"""What an unauthenticated client can make the server say: no redirect built from its Host
header, no client-supplied value repeated at length, no internals in ``/healthz``."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.server import ServedCatalog, ServerSettings, create_app
from iceview.server.auth import load_authenticator

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
