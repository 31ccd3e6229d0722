"""Options of the REST reference server fixture: bearer token, OAuth2, hidden views, prefix."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from fixtures.rest_java import JavaRestServer

pytestmark = pytest.mark.java

Factory = Callable[..., JavaRestServer]
TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"


def call(
    server: JavaRestServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    form: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One request; returns (status, decoded JSON body or None)."""
    all_headers = dict(headers or {})
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = json.dumps(body).encode()
        all_headers["Content-Type"] = "application/json"
    if token is not None:
        all_headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(server.uri + path, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read()
        return e.code, json.loads(text) if text else None


def assert_not_authorized(answer: tuple[int, Any]) -> None:
    status, body = answer
    assert status == 401, body
    assert body["error"]["type"] == "NotAuthorizedException"
    assert body["error"]["code"] == 401


def token_for(server: JavaRestServer, client_id: str, secret: str) -> tuple[int, Any]:
    form = {
        "grant_type": "client_credentials",
        "client_id": client_id,
        "client_secret": secret,
        "scope": "catalog",
    }
    return call(server, "POST", "v1/oauth/tokens", form=form)


# ----------------------------------------------------------------------------- bearer token


def test_static_token_is_required_and_checked(java_rest_server_factory: Factory) -> None:
    server = java_rest_server_factory(auth="token")
    assert server.token and server.credential is None
    assert_not_authorized(call(server, "GET", "v1/config"))
    assert_not_authorized(call(server, "GET", "v1/namespaces", token="wrong-" + server.token))
    assert_not_authorized(
        call(server, "GET", "v1/namespaces", headers={"Authorization": f"Basic {server.token}"})
    )
    status, config = call(server, "GET", "v1/config", token=server.token)
    assert status == 200 and config["endpoints"]
    assert call(server, "POST", "v1/namespaces", {"namespace": ["t"]}, token=server.token)[0] == 200
    # no OAuth2 token endpoint on a static-token server
    status, _ = token_for(server, "any", "thing")
    assert status == 404
    assert server.token not in server.log_text(lines=10_000)


def test_pyiceberg_uses_the_static_token(java_rest_server_factory: Factory) -> None:
    from pyiceberg.catalog.rest import RestCatalog

    server = java_rest_server_factory(auth="token")
    assert server.token is not None
    catalog = RestCatalog("tok", uri=server.uri, token=server.token)
    catalog.create_namespace("from_py")
    assert ("from_py",) in catalog.list_namespaces()


# ----------------------------------------------------------------------------- OAuth2


def test_oauth2_client_credentials_issue_tokens(java_rest_server_factory: Factory) -> None:
    server = java_rest_server_factory(auth="oauth2")
    assert server.credential is not None and server.token is None
    client_id, secret = server.credential.split(":", 1)

    status, issued = token_for(server, client_id, secret)
    assert status == 200, issued
    assert issued["token_type"].lower() == "bearer"
    assert issued["issued_token_type"] == TOKEN_TYPE
    assert issued["expires_in"] > 0
    token = issued["access_token"]
    assert call(server, "GET", "v1/config", token=token)[0] == 200
    assert_not_authorized(call(server, "GET", "v1/config"))
    assert_not_authorized(call(server, "GET", "v1/namespaces", token=token + "x"))

    # client_secret_basic works too (RFC 6749 2.3.1)
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    status, issued2 = call(
        server,
        "POST",
        "v1/oauth/tokens",
        form={"grant_type": "client_credentials"},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert status == 200 and issued2["access_token"] != token

    # a refresh by token exchange needs a token this server issued
    exchange = {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "subject_token_type": TOKEN_TYPE,
    }
    status, refreshed = call(server, "POST", "v1/oauth/tokens", form={**exchange, "subject_token": token})
    assert status == 200 and call(server, "GET", "v1/config", token=refreshed["access_token"])[0] == 200
    status, body = call(server, "POST", "v1/oauth/tokens", form={**exchange, "subject_token": "forged"})
    assert status == 401 and body["error"] == "invalid_client"


def test_oauth2_wrong_secret_is_invalid_client(java_rest_server_factory: Factory) -> None:
    server = java_rest_server_factory(auth="oauth2")
    assert server.credential is not None
    client_id, secret = server.credential.split(":", 1)
    for answer in (token_for(server, client_id, secret + "x"), token_for(server, "someone-else", secret)):
        status, body = answer
        assert status == 401
        assert body["error"] == "invalid_client"
        assert body["error_description"]
        assert secret not in json.dumps(body)
    status, body = call(server, "POST", "v1/oauth/tokens", form={"grant_type": "password"})
    assert status == 400 and body["error"] == "unsupported_grant_type"
    assert secret not in server.log_text(lines=10_000)


def test_pyiceberg_oauth2_credential(java_rest_server_factory: Factory) -> None:
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.exceptions import OAuthError

    server = java_rest_server_factory(auth="oauth2")
    assert server.credential is not None
    token_uri = server.uri + "v1/oauth/tokens"
    catalog = RestCatalog(
        "oauth", uri=server.uri, credential=server.credential, **{"oauth2-server-uri": token_uri}
    )
    catalog.create_namespace("via_oauth")
    assert ("via_oauth",) in catalog.list_namespaces()
    client_id = server.credential.split(":", 1)[0]
    with pytest.raises(OAuthError, match="invalid_client"):
        RestCatalog(
            "bad",
            uri=server.uri,
            credential=f"{client_id}:not-the-secret",
            **{"oauth2-server-uri": token_uri},
        )


# ----------------------------------------------------------------------------- gating, prefix


def test_server_without_view_endpoints(java_rest_server_factory: Factory) -> None:
    server = java_rest_server_factory(advertise_views=False)
    status, config = call(server, "GET", "v1/config")
    assert status == 200
    assert config["endpoints"]
    assert not [e for e in config["endpoints"] if "/views" in e]
    assert call(server, "POST", "v1/namespaces", {"namespace": ["n"]})[0] == 200
    status, body = call(server, "GET", "v1/namespaces/n/views")
    assert status == 404 and body["error"]["type"] == "NotFoundException"
    status, _ = call(server, "GET", "v1/namespaces/n/tables")
    assert status == 200


def test_prefix_routes_and_config_override(java_rest_server_factory: Factory) -> None:
    from pyiceberg.catalog.rest import RestCatalog

    server = java_rest_server_factory(prefix="wh1")
    status, config = call(server, "GET", "v1/config")
    assert status == 200 and config["overrides"] == {"prefix": "wh1"}
    assert call(server, "POST", "v1/wh1/namespaces", {"namespace": ["p"]})[0] == 200
    assert call(server, "GET", "v1/namespaces")[0] == 404
    assert call(server, "GET", "v1/other/namespaces")[0] == 404
    status, listed = call(server, "GET", "v1/wh1/namespaces")
    assert status == 200 and listed["namespaces"] == [["p"]]
    # PyIceberg picks the prefix up from /v1/config's overrides
    catalog = RestCatalog("pre", uri=server.uri)
    assert catalog.list_namespaces() == [("p",)]
