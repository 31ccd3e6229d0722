"""Names longer than iceview allows (``iceview.identifiers.MAX_NAME_LENGTH`` characters,
``MAX_NAME_BYTES`` bytes of UTF-8) are a 400 ``BadRequestException`` on every way a new name comes
in (view and table create, register, rename, a create commit, namespace create), refused before
anything is written; a name at the limit works all the way to the files. A path the file system
cannot hold for another reason is a 400 too, never a 500 ``CommitStateUnknownException``."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.identifiers import MAX_NAME_BYTES, MAX_NAME_LENGTH

from ..test_server_tables import create_body as table_body
from ..test_server_views import create_body as view_body

TOO_LONG = {
    "10000 characters": "x" * 10_000,
    "one character over": "x" * (MAX_NAME_LENGTH + 1),
    "too many bytes": "é" * (MAX_NAME_BYTES // 2 + 1),  # 112 characters, 224 bytes
}
AT_THE_LIMIT = {"characters": "x" * MAX_NAME_LENGTH, "bytes": "é" * (MAX_NAME_BYTES // 2)}


def warehouse(catalog: SqlCatalog) -> Path:
    return Path(urlparse(catalog.properties["warehouse"]).path)


def files(catalog: SqlCatalog) -> list[Path]:
    root = warehouse(catalog)
    return sorted(p for p in root.rglob("*")) if root.exists() else []


def bad_request(response: Any) -> str:
    assert response.status_code == 400, response.text
    doc = response.json()
    assert doc["error"]["type"] == "BadRequestException", doc
    message = str(doc["error"]["message"])
    assert len(message) < 300, message  # the name is not echoed whole
    return message


def view_create_commit(location: str) -> dict[str, Any]:
    body = view_body()
    version = body["view-version"]
    return {
        "requirements": [{"type": "assert-create"}],
        "updates": [
            {"action": "assign-uuid", "uuid": "0195fb6c-bd2a-7a4b-8d3a-111111111111"},
            {"action": "upgrade-format-version", "format-version": 1},
            {"action": "add-schema", "schema": body["schema"]},
            {"action": "set-location", "location": location},
            {"action": "add-view-version", "view-version": version},
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }


@pytest.fixture
def ns(client: TestClient) -> str:
    assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
    return "ns"


def requests_with(name: str, client: TestClient, catalog: SqlCatalog) -> dict[str, Any]:
    """Every request that brings in a new name, with ``name`` in it (the namespace ``ns``, a view
    ``v`` and a table ``t`` exist)."""
    path_name = quote(name, safe="")
    rename = {
        "source": {"namespace": ["ns"], "name": "v"},
        "destination": {"namespace": ["ns"], "name": name},
    }
    rename_table = {**rename, "source": {"namespace": ["ns"], "name": "t"}}
    view = client.get("/v1/namespaces/ns/views/v").json()["metadata-location"]
    table = client.get("/v1/namespaces/ns/tables/t").json()["metadata-location"]
    location = catalog.properties["warehouse"] + "/ns/new"
    return {
        "create namespace": ("POST", "/v1/namespaces", {"namespace": [name]}),
        "create nested namespace": ("POST", "/v1/namespaces", {"namespace": ["ns", name]}),
        "create view": ("POST", "/v1/namespaces/ns/views", view_body(name=name)),
        "create view in namespace": ("POST", f"/v1/namespaces/{path_name}/views", view_body()),
        "register view": (
            "POST",
            "/v1/namespaces/ns/register-view",
            {"name": name, "metadata-location": view},
        ),
        "rename view": ("POST", "/v1/views/rename", rename),
        "view create commit": ("POST", f"/v1/namespaces/ns/views/{path_name}", view_create_commit(location)),
        "create table": ("POST", "/v1/namespaces/ns/tables", table_body(name=name)),
        "stage create table": (
            "POST",
            "/v1/namespaces/ns/tables",
            table_body(name=name, **{"stage-create": True}),
        ),
        "register table": ("POST", "/v1/namespaces/ns/register", {"name": name, "metadata-location": table}),
        "rename table": ("POST", "/v1/tables/rename", rename_table),
        "table create commit": (
            "POST",
            f"/v1/namespaces/ns/tables/{path_name}",
            {
                "requirements": [{"type": "assert-create"}],
                "updates": [{"action": "set-location", "location": location}],
            },
        ),
    }


REQUESTS = [
    "create namespace",
    "create nested namespace",
    "create view",
    "create view in namespace",
    "register view",
    "rename view",
    "view create commit",
    "create table",
    "stage create table",
    "register table",
    "rename table",
    "table create commit",
]


@pytest.mark.parametrize("kind", list(TOO_LONG))
@pytest.mark.parametrize("request_name", REQUESTS)
def test_a_name_over_the_limit_is_a_400_and_writes_nothing(
    client: TestClient, catalog: SqlCatalog, ns: str, kind: str, request_name: str
) -> None:
    assert client.post("/v1/namespaces/ns/views", json=view_body(name="v")).status_code == 200
    assert client.post("/v1/namespaces/ns/tables", json=table_body(name="t")).status_code == 200
    name = TOO_LONG[kind]
    method, path, body = requests_with(name, client, catalog)[request_name]
    before = files(catalog)
    message = bad_request(client.request(method, path, json=body))
    assert "allowed" in message, message
    assert files(catalog) == before
    assert catalog.list_namespaces() == [("ns",)]
    assert catalog.list_namespaces(("ns",)) == []
    assert catalog.list_views("ns") == [("ns", "v")]
    assert catalog.list_tables("ns") == [("ns", "t")]


def test_a_namespace_is_limited_with_its_levels_joined(client: TestClient, catalog: SqlCatalog) -> None:
    # PyIceberg's SQL catalog puts a table in <warehouse>/<level1.level2>/<table>: one directory
    levels = ["a" * 64, "b" * 64]
    message = bad_request(client.post("/v1/namespaces", json={"namespace": levels}))
    assert "129 characters" in message
    assert catalog.list_namespaces() == []


@pytest.mark.parametrize("kind", list(AT_THE_LIMIT))
def test_names_at_the_limit_work_down_to_the_files(
    client: TestClient, catalog: SqlCatalog, kind: str
) -> None:
    name = AT_THE_LIMIT[kind]
    assert client.post("/v1/namespaces", json={"namespace": [name]}).status_code == 200
    path_ns = quote(name, safe="")
    created = client.post(f"/v1/namespaces/{path_ns}/views", json=view_body(name=name))
    assert created.status_code == 200, created.text
    table_name = name[:-1] + "t"  # tables and views share one name space
    table = client.post(f"/v1/namespaces/{path_ns}/tables", json=table_body(name=table_name))
    assert table.status_code == 200, table.text
    assert catalog.list_views((name,)) == [(name, name)]
    assert catalog.list_tables((name,)) == [(name, table_name)]
    assert client.get(f"/v1/namespaces/{path_ns}/views/{path_ns}").status_code == 200


def test_a_path_too_long_for_the_file_system_is_a_400(
    client: TestClient, catalog: SqlCatalog, ns: str
) -> None:
    # the names fit, the location the client chose (inside the warehouse) does not
    location = catalog.properties["warehouse"] + "/ns/" + "l" * 300
    for path, body in (
        ("/v1/namespaces/ns/views", view_body(name="v", location=location)),
        ("/v1/namespaces/ns/tables", table_body(name="t", location=location)),
    ):
        response = client.post(path, json=body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["type"] == "BadRequestException"
        assert "longer than the file system allows" in response.json()["error"]["message"]
    assert catalog.list_views("ns") == [] and catalog.list_tables("ns") == []


def test_a_long_name_made_by_another_client_can_still_be_read_and_dropped(
    client: TestClient, catalog: SqlCatalog, ns: str
) -> None:
    # Java has no limit: a view it made under a longer name is looked up, loaded and dropped
    assert client.post("/v1/namespaces/ns/views", json=view_body(name="v")).status_code == 200
    long = "y" * (MAX_NAME_LENGTH + 20)
    with catalog.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE iceberg_tables SET table_name = ? WHERE table_name = 'v'", (long,))
    assert client.get(f"/v1/namespaces/ns/views/{long}").status_code == 200
    assert client.delete(f"/v1/namespaces/ns/views/{long}").status_code == 204
