"""The REST catalog's configuration: auth (OAuth2 client credentials, bearer token, wrong secrets),
endpoint gating, a REST prefix, PyIceberg-style configuration, and the PyIceberg internals iceview
relies on (a test that fails when a PyIceberg release changes them)."""

from __future__ import annotations

import inspect
import logging
from typing import Any

import pytest
from catalog_support import SCHEMA

from iceview.catalog import load_catalog
from iceview.catalog.config import resolve_catalog
from iceview.catalog.rest import RestCatalog
from iceview.errors import InvalidArgumentError, NotAuthorizedError, UnsupportedOperationError


def create(cat: RestCatalog, ident: str) -> Any:
    return cat.create_view(
        ident, queries={"spark": "select 1 as id, 'a' as data"}, schema=SCHEMA, default_namespace=("ns",)
    )


def test_pyiceberg_parts_iceview_relies_on() -> None:
    import pyiceberg
    from pyiceberg.catalog import rest
    from pyiceberg.catalog.rest import response

    from iceview.catalog.rest_session import PYICEBERG_PARTS

    major_minor = tuple(int(p) for p in pyiceberg.__version__.split(".")[:2])
    assert (0, 12) <= major_minor < (0, 13), f"untested PyIceberg {pyiceberg.__version__}: see pyproject.toml"
    for name in PYICEBERG_PARTS["RestCatalog"]:
        if name in ("_session", "_supported_endpoints", "uri", "properties"):
            assert name in rest.RestCatalog.__annotations__ or name == "properties", name
        else:
            assert callable(getattr(rest.RestCatalog, name)), name
    for name in PYICEBERG_PARTS["Endpoints"]:
        assert isinstance(getattr(rest.Endpoints, name), str), name
    assert rest.Endpoints.load_view == "namespaces/{namespace}/views/{view}"
    assert rest.Endpoints.register_view == "namespaces/{namespace}/register-view"
    for name in PYICEBERG_PARTS["response"]:
        assert hasattr(response, name), name
    assert list(inspect.signature(rest.RestCatalog.url).parameters) == [
        "self",
        "endpoint",
        "prefixed",
        "kwargs",
    ]
    assert list(inspect.signature(rest.RestCatalog._encode_namespace_path).parameters) == [
        "self",
        "namespace",
    ]
    assert rest.PAGE_SIZE == "rest-page-size"
    assert rest.VIEW_ENDPOINTS_SUPPORTED == "view-endpoints-supported"
    assert str(rest.Endpoint.from_string("GET /v1/{prefix}/namespaces")) == "GET /v1/{prefix}/namespaces"
    # _fetch_config opens its session through _create_session (where iceview hooks /v1/config in)
    assert "_create_session()" in inspect.getsource(rest.RestCatalog._fetch_config)


def test_oauth2_and_a_wrong_secret(java_rest_server_factory: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = java_rest_server_factory(auth="oauth2")
    cat = RestCatalog(
        "oauth",
        uri=server.uri,
        credential=server.credential,
        **{"oauth2-server-uri": server.uri + "v1/oauth/tokens"},
    )
    cat.create_namespace("ns")
    assert create(cat, "ns.v").current_version.version_id == 1
    assert cat.list_views("ns") == [("ns", "v")]
    cat.close()
    client_id, secret = server.credential.split(":", 1)
    wrong = f"{client_id}:not-the-secret-{secret[:3]}"
    with pytest.raises(NotAuthorizedError) as info:
        RestCatalog(
            "oauth", uri=server.uri, credential=wrong, **{"oauth2-server-uri": server.uri + "v1/oauth/tokens"}
        )
    text = str(info.value)
    assert "Not authorized" in text
    assert wrong.split(":", 1)[1] not in text and secret not in text
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert secret not in logged and wrong.split(":", 1)[1] not in logged


def test_bearer_token(java_rest_server_factory: Any) -> None:
    server = java_rest_server_factory(auth="token")
    cat = RestCatalog("tok", uri=server.uri, token=server.token)
    cat.create_namespace("ns")
    assert create(cat, "ns.v").metadata_location
    cat.close()
    wrong_token = "wrong-token-value-123"
    with pytest.raises(NotAuthorizedError) as info:
        RestCatalog("tok", uri=server.uri, token=wrong_token)
    assert wrong_token not in str(info.value) and server.token not in str(info.value)


def test_custom_auth_manager_from_flattened_config(
    java_rest_server_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyIceberg's custom auth (``auth: {type: custom, impl, custom: {...}}``) reaches PyIceberg as
    one nested mapping, whether it came from YAML or from PYICEBERG_CATALOG__X__AUTH__* variables."""
    from rest_custom_auth import StaticBearer

    server = java_rest_server_factory(auth="token")
    monkeypatch.setenv("PYICEBERG_CATALOG__CUSTOM__URI", server.uri)
    monkeypatch.setenv("PYICEBERG_CATALOG__CUSTOM__AUTH__TYPE", "custom")
    monkeypatch.setenv("PYICEBERG_CATALOG__CUSTOM__AUTH__IMPL", "rest_custom_auth.StaticBearer")
    monkeypatch.setenv("PYICEBERG_CATALOG__CUSTOM__AUTH__CUSTOM__TOKEN", server.token)
    monkeypatch.setenv("PYICEBERG_CATALOG__CUSTOM__TYPE", "rest")
    before = StaticBearer.calls
    cat = load_catalog("custom")
    cat.create_namespace("ns")
    assert create(cat, "ns.v").metadata_location
    assert StaticBearer.calls > before
    cat.close()
    monkeypatch.setenv("PYICEBERG_CATALOG__CUSTOM__AUTH__CUSTOM__TOKEN", "not-the-token-987")
    with pytest.raises(NotAuthorizedError) as info:
        load_catalog("custom")
    assert "not-the-token-987" not in str(info.value)


def test_endpoint_gating_without_view_endpoints(java_rest_server_factory: Any) -> None:
    server = java_rest_server_factory(advertise_views=False)
    cat = RestCatalog("noviews", uri=server.uri)
    cat.create_namespace("ns")
    message = "does not support views: it advertises no view endpoints"
    with pytest.raises(UnsupportedOperationError, match=message):
        create(cat, "ns.v")
    with pytest.raises(UnsupportedOperationError, match=message):
        cat.load_view("ns.v")
    with pytest.raises(UnsupportedOperationError, match=message):
        cat.list_views("ns")
    assert cat.namespace_exists("ns")  # namespaces and tables still work
    cat.close()


def test_prefix(java_rest_server_factory: Any) -> None:
    server = java_rest_server_factory(prefix="cat1")
    cat = RestCatalog("pre", uri=server.uri)
    assert cat.properties.get("prefix") == "cat1"  # from the server's /v1/config
    cat.create_namespace("ns")
    create(cat, "ns.v")
    assert cat.load_view("ns.v").current_version.version_id == 1
    cat.close()


def test_configuration_the_pyiceberg_way(
    java_rest_server: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("PYICEBERG_HOME", str(tmp_path))
    monkeypatch.setenv("PYICEBERG_CATALOG__PROD__URI", java_rest_server.uri)
    monkeypatch.setenv("PYICEBERG_CATALOG__PROD__TYPE", "rest")
    monkeypatch.setenv("PYICEBERG_CATALOG__PROD__TOKEN", "s3cr3t-t0ken")
    resolved = resolve_catalog("prod")
    assert resolved.catalog_type == "rest" and resolved.properties["uri"] == java_rest_server.uri
    cat = load_catalog("prod")
    assert isinstance(cat, RestCatalog)
    assert cat.display_uri() == java_rest_server.uri
    assert "s3cr3t" not in repr(cat) + cat.display_uri()
    cat.close()
    with pytest.raises(InvalidArgumentError, match="has no 'uri'"):
        resolve_catalog("other", type="rest")


def test_cli_on_a_rest_catalog(java_rest_server: Any, tmp_path: Any) -> None:
    """Every CLI command names a REST catalog with --catalog; `catalogs` shows type and URI only."""
    import json

    from click.testing import CliRunner

    from iceview.cli import cli

    cat = RestCatalog("prod", uri=java_rest_server.uri)
    ns = f"cli_{tmp_path.name[-8:].replace('-', '_')}"
    cat.create_namespace(ns)
    cat.create_view(
        f"{ns}.v", queries={"spark": "select 1 as id, 'a' as data"}, schema=SCHEMA, default_namespace=(ns,)
    )
    cat.replace_view(
        f"{ns}.v", queries={"spark": "select 2 as id, 'b' as data"}, schema=SCHEMA, default_namespace=(ns,)
    )
    env = {
        "PYICEBERG_HOME": str(tmp_path),
        "PYICEBERG_CATALOG__PROD__URI": java_rest_server.uri,
        "PYICEBERG_CATALOG__PROD__TYPE": "rest",
        "PYICEBERG_CATALOG__PROD__TOKEN": "cli-s3cr3t-token",
    }
    runner = CliRunner()

    def run(*args: str) -> Any:
        result = runner.invoke(cli, list(args), env=env, catch_exceptions=False, prog_name="iceview")
        assert result.exit_code == 0, result.stderr
        assert "cli-s3cr3t-token" not in result.stdout + result.stderr
        return result

    listed = json.loads(run("catalogs", "-o", "json").stdout)["catalogs"]
    assert [(c["name"], c["type"], c["uri"]) for c in listed] == [("prod", "rest", java_rest_server.uri)]
    assert f"{ns}.v" in run("--catalog", "prod", "list", ns).stdout
    run("--catalog", "prod", "rollback", f"{ns}.v", "--to", "1")
    assert cat.load_view(f"{ns}.v").current_version.version_id == 1
    run("--catalog", "prod", "set-property", f"{ns}.v", "owner", "me")
    assert cat.load_view(f"{ns}.v").properties["owner"] == "me"
    assert "version" in run("--catalog", "prod", "history", f"{ns}.v").stdout
    cat.close()
