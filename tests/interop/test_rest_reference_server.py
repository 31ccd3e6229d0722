"""The Iceberg REST reference server fixture (``fixtures.rest_java``) speaks the REST protocol.

Raw HTTP (``urllib``) for the protocol details, and PyIceberg's ``RestCatalog`` as an independent
client. Auth, ``advertise_views=False`` and ``prefix`` use private servers from the factory.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fixtures.postgres import PostgresDatabase
from fixtures.rest_java import JavaRestServer, RestServerError, start_java_rest_server
from iceview.files import read_metadata
from iceview.spec import ViewMetadata

pytestmark = pytest.mark.java

VIEW_ENDPOINTS = {
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "POST /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/views/rename",
}
SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [{"id": 1, "name": "x", "required": False, "type": "long"}],
}
Answer = tuple[int, Any]


def call(
    server: JavaRestServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> Answer:
    """``method`` ``server.uri + path``; returns (status, decoded JSON body or None)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(server.uri + path, data=data, method=method, headers=headers or {})
    if data is not None and raw is None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read()
        return e.code, json.loads(text) if text else None


def ns_name() -> str:
    return "ns_" + uuid.uuid4().hex[:8]


def make_namespace(server: JavaRestServer, *levels: str, prefix: str = "") -> None:
    status, body = call(server, "POST", f"v1/{prefix}namespaces", {"namespace": list(levels)})
    assert status == 200, body


def view_version(version_id: int, sql: str, namespace: list[str]) -> dict[str, Any]:
    return {
        "version-id": version_id,
        "timestamp-ms": 1_700_000_000_000 + version_id,
        "schema-id": 0,
        "summary": {"engine-name": "iceview-test"},
        "representations": [{"type": "sql", "sql": sql, "dialect": "spark"}],
        "default-namespace": namespace,
    }


def create_view_request(name: str, namespace: list[str], sql: str = "SELECT 1 AS x") -> dict[str, Any]:
    return {
        "name": name,
        "schema": SCHEMA,
        "view-version": view_version(1, sql, namespace),
        "properties": {"comment": "made over REST"},
    }


def error_of(answer: Answer, status: int, kind: str) -> str:
    got_status, body = answer
    assert got_status == status, body
    assert body["error"]["type"] == kind, body
    assert body["error"]["code"] == status
    message: str = body["error"]["message"]
    return message


def read_metadata_file(location: str) -> ViewMetadata:
    """iceview's own reader of a metadata file (gzip or not, by its name)."""
    return read_metadata(location)


# ----------------------------------------------------------------------------- protocol, raw HTTP


def test_config_advertises_namespaces_tables_and_views(java_rest_server: JavaRestServer) -> None:
    status, config = call(java_rest_server, "GET", "v1/config")
    assert status == 200
    assert config["defaults"] == {} and config["overrides"] == {}
    endpoints = set(config["endpoints"])
    assert endpoints >= VIEW_ENDPOINTS
    assert {"GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces/{namespace}/tables"} <= endpoints
    assert not any("register-view" in e for e in endpoints)  # not in Iceberg 1.10.2


def test_namespaces_create_load_list_page_and_drop(java_rest_server: JavaRestServer) -> None:
    server = java_rest_server
    parent = ns_name()
    status, created = call(server, "POST", "v1/namespaces", {"namespace": [parent], "properties": {"a": "1"}})
    assert status == 200 and created["namespace"] == [parent]
    for child in ("c1", "c2", "c3"):
        make_namespace(server, parent, child)
    status, loaded = call(server, "GET", f"v1/namespaces/{parent}")
    assert status == 200 and loaded["properties"]["a"] == "1"
    assert call(server, "HEAD", f"v1/namespaces/{parent}%1Fc2") == (204, None)
    assert call(server, "HEAD", f"v1/namespaces/{parent}%1Fnope") == (404, None)  # HEAD: no body

    seen: list[list[str]] = []
    token: str | None = None
    pages = 0
    while True:
        query = {"parent": parent, "pageSize": "2", **({"pageToken": token} if token else {})}
        status, page = call(server, "GET", "v1/namespaces?" + urllib.parse.urlencode(query))
        assert status == 200
        assert len(page["namespaces"]) <= 2
        seen += page["namespaces"]
        pages += 1
        token = page.get("next-page-token")
        if not token:
            break
    assert sorted(seen) == [[parent, "c1"], [parent, "c2"], [parent, "c3"]]
    assert pages >= 2

    status, updated = call(
        server, "POST", f"v1/namespaces/{parent}/properties", {"updates": {"b": "2"}, "removals": ["a"]}
    )
    assert status == 200 and updated["updated"] == ["b"] and updated["removed"] == ["a"]
    assert call(server, "POST", f"v1/namespaces/{parent}/views", create_view_request("v", [parent]))[0] == 200
    error_of(call(server, "DELETE", f"v1/namespaces/{parent}"), 409, "NamespaceNotEmptyException")
    error_of(call(server, "POST", "v1/namespaces", {"namespace": [parent]}), 409, "AlreadyExistsException")


def test_view_create_load_commit_rename_drop(java_rest_server: JavaRestServer) -> None:
    server = java_rest_server
    ns = ns_name()
    make_namespace(server, ns)
    views = f"v1/namespaces/{ns}/views"

    status, created = call(server, "POST", views, create_view_request("v1", [ns]))
    assert status == 200, created
    metadata = created["metadata"]
    assert metadata["current-version-id"] == 1
    assert metadata["properties"]["comment"] == "made over REST"
    location = created["metadata-location"]
    assert Path(urllib.parse.urlparse(location).path).is_file()
    assert location.startswith("file:" + server.warehouse)
    parsed = read_metadata_file(location)
    assert parsed.uuid == metadata["view-uuid"]
    error_of(call(server, "POST", views, create_view_request("v1", [ns])), 409, "AlreadyExistsException")

    status, loaded = call(server, "GET", f"{views}/v1")
    assert status == 200 and loaded["metadata-location"] == location
    assert call(server, "HEAD", f"{views}/v1") == (204, None)

    commit = {
        "requirements": [{"type": "assert-view-uuid", "uuid": metadata["view-uuid"]}],
        "updates": [
            {"action": "add-view-version", "view-version": view_version(2, "SELECT 2 AS x", [ns])},
            {"action": "set-current-view-version", "view-version-id": -1},
            {"action": "set-properties", "updates": {"owner": "iceview"}},
        ],
    }
    status, committed = call(server, "POST", f"{views}/v1", commit)
    assert status == 200, committed
    assert committed["metadata"]["current-version-id"] == 2
    assert committed["metadata"]["properties"]["owner"] == "iceview"
    assert committed["metadata-location"] != location
    after = read_metadata_file(committed["metadata-location"])
    assert after.current_version_id == 2 and len(after.versions) == 2

    stale = {**commit, "requirements": [{"type": "assert-view-uuid", "uuid": str(uuid.uuid4())}]}
    message = error_of(call(server, "POST", f"{views}/v1", stale), 409, "CommitFailedException")
    assert "UUID" in message or "uuid" in message

    rename = {"source": {"namespace": [ns], "name": "v1"}, "destination": {"namespace": [ns], "name": "v2"}}
    assert call(server, "POST", "v1/views/rename", rename) == (204, None)
    error_of(call(server, "GET", f"{views}/v1"), 404, "NoSuchViewException")
    status, listed = call(server, "GET", views)
    assert status == 200 and listed["identifiers"] == [{"namespace": [ns], "name": "v2"}]

    assert call(server, "DELETE", f"{views}/v2") == (204, None)
    error_of(call(server, "DELETE", f"{views}/v2"), 404, "NoSuchViewException")
    assert call(server, "HEAD", f"{views}/v2") == (404, None)
    error_of(call(server, "GET", f"v1/namespaces/{ns_name()}/views"), 404, "NoSuchNamespaceException")


def test_view_listing_pages(java_rest_server: JavaRestServer) -> None:
    server = java_rest_server
    ns = ns_name()
    make_namespace(server, ns)
    names = [f"v{i}" for i in range(5)]
    for name in names:
        assert call(server, "POST", f"v1/namespaces/{ns}/views", create_view_request(name, [ns]))[0] == 200
    seen: list[str] = []
    token = None
    while True:
        query = {"pageSize": "2", **({"pageToken": token} if token else {})}
        status, page = call(server, "GET", f"v1/namespaces/{ns}/views?" + urllib.parse.urlencode(query))
        assert status == 200 and len(page["identifiers"]) <= 2
        seen += [ident["name"] for ident in page["identifiers"]]
        token = page.get("next-page-token")
        if not token:
            break
    assert sorted(seen) == names


def test_bad_requests_get_iceberg_error_responses(java_rest_server: JavaRestServer) -> None:
    server = java_rest_server
    ns = ns_name()
    make_namespace(server, ns)
    error_of(call(server, "POST", f"v1/namespaces/{ns}/views", raw=b"{not json"), 400, "BadRequestException")
    error_of(call(server, "GET", "v1/no/such/route"), 404, "NotFoundException")
    error_of(call(server, "GET", f"v1/namespaces/{ns}/views/missing"), 404, "NoSuchViewException")
    error_of(call(server, "GET", f"v1/namespaces/{ns}/tables/missing"), 404, "NoSuchTableException")
    no_version = {"name": "bad", "schema": SCHEMA, "properties": {}}
    status, body = call(server, "POST", f"v1/namespaces/{ns}/views", no_version)
    assert status == 400 and body["error"]["type"] in {"BadRequestException", "IllegalArgumentException"}


# ----------------------------------------------------------------------------- PyIceberg as a client


def test_pyiceberg_rest_catalog_namespaces_tables_and_views(java_rest_server: JavaRestServer) -> None:
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField
    from pyiceberg.view.metadata import ViewVersion

    catalog = RestCatalog("ref", uri=java_rest_server.uri)
    ns = ns_name()
    catalog.create_namespace(ns, {"owner": "py"})
    assert (ns,) in catalog.list_namespaces()
    assert catalog.load_namespace_properties(ns)["owner"] == "py"

    schema = Schema(NestedField(1, "x", LongType(), required=False))
    table = catalog.create_table((ns, "t"), schema)
    assert table.schema().fields[0].name == "x"
    assert catalog.list_tables(ns) == [(ns, "t")]
    assert catalog.load_table((ns, "t")).metadata_location == table.metadata_location

    version = ViewVersion.model_validate(
        {
            "version-id": 1,
            "schema-id": 0,
            "timestamp-ms": 1_700_000_000_000,
            "summary": {"engine-name": "pyiceberg"},
            "representations": [{"type": "sql", "sql": f"SELECT x FROM {ns}.t", "dialect": "spark"}],
            "default-namespace": [ns],
        }
    )
    catalog.create_view((ns, "pv"), schema, version)
    assert catalog.view_exists((ns, "pv"))
    assert catalog.list_views(ns) == [(ns, "pv")]
    loaded = catalog.load_view((ns, "pv"))
    assert loaded.metadata.current_version_id == 1
    status, raw = call(java_rest_server, "GET", f"v1/namespaces/{ns}/views/pv")
    assert status == 200
    sql = read_metadata_file(raw["metadata-location"]).current_version.sql_for("spark")
    assert sql is not None and sql.sql == f"SELECT x FROM {ns}.t"
    catalog.drop_view((ns, "pv"))
    assert not catalog.view_exists((ns, "pv"))
    catalog.drop_table((ns, "t"))
    catalog.drop_namespace(ns)
    assert (ns,) not in catalog.list_namespaces()


# ----------------------------------------------------------------------------- lifecycle


def test_restart_keeps_the_store_and_the_port(
    java_rest_server_factory: Callable[..., JavaRestServer],
) -> None:
    server = java_rest_server_factory()
    make_namespace(server, "kept")
    assert call(server, "POST", "v1/namespaces/kept/views", create_view_request("v", ["kept"]))[0] == 200
    uri = server.uri
    server.kill()
    assert not server.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(server.uri + "v1/config", timeout=5)
    server.restart()
    assert server.uri == uri and server.running
    status, loaded = call(server, "GET", "v1/namespaces/kept/views/v")
    assert status == 200 and loaded["metadata"]["current-version-id"] == 1
    server.stop()
    assert not server.running
    assert "STOPPED" in server.log_text()


def test_a_failed_start_shows_the_server_log(tmp_path: Path) -> None:
    with pytest.raises(RestServerError) as info:
        start_java_rest_server(tmp_path, jdbc_uri="jdbc:nosuchdb:/nowhere")
    message = str(info.value)
    assert "exited with" in message and "rest-server.log" in message
    assert "nosuchdb" in message  # the JDBC error, from the log


@pytest.mark.postgres
def test_server_on_postgresql(
    java_rest_server_factory: Callable[..., JavaRestServer], postgres_database: PostgresDatabase
) -> None:
    server = java_rest_server_factory(jdbc_uri=postgres_database.jdbc_url)
    assert server.jdbc_uri == postgres_database.jdbc_url
    make_namespace(server, "pg")
    status, created = call(server, "POST", "v1/namespaces/pg/views", create_view_request("v", ["pg"]))
    assert status == 200, created
    server.restart()
    status, loaded = call(server, "GET", "v1/namespaces/pg/views/v")
    assert status == 200 and loaded["metadata-location"] == created["metadata-location"]
