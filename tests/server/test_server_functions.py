"""The SQL UDF endpoints of the server, in-process: the REST spec's list and load (main branch),
iceview's write extension (commit, create through ``assert-create``, drop, exists, rename), what
``/v1/config`` advertises, and the errors each refusal answers. Every write goes through the
catalog's one change path: the catalog sees what the server wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.catalog.hive import HiveCatalog
from iceview.function import NewDefinition
from iceview.function.changes import create_change
from iceview.server import ServedCatalog, create_app
from iceview.server.app import endpoints

FUNCTION_ENDPOINTS = {
    "GET /v1/{prefix}/namespaces/{namespace}/functions",
    "GET /v1/{prefix}/namespaces/{namespace}/functions/{function}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/functions/{function}",
    "POST /v1/{prefix}/namespaces/{namespace}/functions/{function}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/functions/{function}",
    "POST /v1/{prefix}/functions/rename",
}
ADD_ONE = NewDefinition([("x", "int")], "int", {"spark": "x + 1"})


def error(response: Any) -> dict[str, Any]:
    doc = response.json()
    assert set(doc) == {"error"}, doc
    assert doc["error"]["code"] == response.status_code
    return dict(doc["error"])


def create_body(*definitions: NewDefinition, **properties: str) -> dict[str, Any]:
    """A ``CommitFunctionRequest`` that creates: ``assert-create`` and the builder's updates, with
    no location (the server chooses it)."""
    change = create_change(list(definitions) or [ADD_ONE], None, properties or None, doc="döc")
    return {
        "requirements": [r.to_dict() for r in change.requirements],
        "updates": [u.to_dict() for u in change.updates],
    }


@pytest.fixture
def ns(client: TestClient) -> str:
    assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
    return "ns"


def test_config_advertises_the_function_endpoints_of_a_catalog_that_keeps_them(client: TestClient) -> None:
    advertised = set(client.get("/v1/config").json()["endpoints"])
    assert advertised >= FUNCTION_ENDPOINTS
    assert not FUNCTION_ENDPOINTS & set(endpoints(functions=False))
    # a catalog without functions (the Hive catalog) is served without them
    hive = HiveCatalog("h", uri="thrift://127.0.0.1:1", warehouse="/tmp/nowhere")
    with TestClient(create_app([ServedCatalog("h", hive)]), raise_server_exceptions=False) as other:
        served = set(other.get("/v1/config").json()["endpoints"])
        assert not FUNCTION_ENDPOINTS & served
        listed = other.get("/v1/namespaces/ns/functions")
        assert listed.status_code == 406
        assert error(listed)["type"] == "UnsupportedOperationException"


def test_create_load_list_and_the_catalog_sees_it(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    created = client.post(
        "/v1/namespaces/ns/functions/add_one",
        json=create_body(ADD_ONE, NewDefinition([("x", "long")], "long", {"spark": "x + 1"}), owner="data"),
    )
    assert created.status_code == 200, created.text
    doc = created.json()
    assert set(doc) == {"metadata-location", "metadata"}
    warehouse = catalog.properties["warehouse"]
    assert doc["metadata"]["location"] == f"{warehouse}/ns/functions/add_one"  # the server's default
    assert doc["metadata-location"].startswith(f"{warehouse}/ns/functions/add_one/metadata/00000-")
    assert [d["definition-id"] for d in doc["metadata"]["definitions"]] == ["int", "long"]
    assert doc["metadata"]["doc"] == "döc" and doc["metadata"]["properties"] == {"owner": "data"}
    assert client.get("/v1/namespaces/ns/functions/add_one").json() == doc
    assert catalog.load_function("ns.add_one").metadata_location == doc["metadata-location"]
    assert client.head("/v1/namespaces/ns/functions/add_one").status_code == 204
    listed = client.get("/v1/namespaces/ns/functions")
    assert listed.status_code == 200 and listed.json() == {"identifiers": [["ns", "add_one"]]}


def test_a_commit_goes_through_the_one_change_path(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    doc = client.post("/v1/namespaces/ns/functions/f", json=create_body()).json()
    uuid = doc["metadata"]["function-uuid"]
    version = {
        "version-id": 9,
        "representations": [{"type": "sql", "dialect": "spark", "sql": "x + 2"}],
        "timestamp-ms": 1700000000000,
    }
    change = {
        "requirements": [
            {"type": "assert-function-uuid", "uuid": uuid},
            {
                "type": "assert-current-definitions",
                "definition-versions": [{"definition-id": "int", "version-id": 1}],
            },
        ],
        "updates": [
            {"action": "add-definition-version", "definition-id": "int", "version": version},
            {"action": "set-current-definition-version", "definition-id": "int", "version-id": -1},
            {"action": "set-properties", "updates": {"k": "v"}},
        ],
    }
    committed = client.post("/v1/namespaces/ns/functions/f", json=change)
    assert committed.status_code == 200, committed.text
    assert catalog.load_function("ns.f").metadata.current_definition_versions == {"int": 2}
    assert committed.json()["metadata"]["properties"] == {"k": "v"}
    # the same requirements again: the current versions moved, a 409 conflict, nothing written
    again = client.post("/v1/namespaces/ns/functions/f", json=change)
    assert again.status_code == 409
    assert error(again)["type"] == "CommitFailedException"
    assert catalog.load_function("ns.f").metadata.current_definition_versions == {"int": 2}


@pytest.mark.parametrize(
    ("body", "status", "kind", "text"),
    [
        ({"requirements": []}, 400, "BadRequestException", "missing field updates"),
        ({"updates": {}}, 400, "BadRequestException", "updates must be an array"),
        ({"updates": [], "requirements": 3}, 400, "BadRequestException", "requirements must be an array"),
        ({"updates": [{"action": "drop-everything"}]}, 400, "BadRequestException", "drop-everything"),
        (
            {
                "updates": [
                    {"action": "set-current-definition-version", "definition-id": "int", "version-id": 7}
                ]
            },
            400,
            "IllegalArgumentException",
            "unknown version: 7",
        ),
        (
            {"updates": [{"action": "remove-definition", "definition-id": "int"}]},
            400,
            "IllegalArgumentException",
            "Cannot remove the last definition",
        ),
        (
            {"requirements": [{"type": "assert-function-uuid", "uuid": "not-a-uuid"}], "updates": []},
            409,
            "CommitFailedException",
            "function UUID does not match",
        ),
        (
            {"updates": [{"action": "set-location", "location": "/tmp/elsewhere"}]},
            403,
            "ForbiddenException",
            "outside the catalog's warehouse",
        ),
        (
            {"updates": [{"action": "set-properties", "updates": {"write.metadata.path": "/etc"}}]},
            403,
            "ForbiddenException",
            "outside the catalog's warehouse",
        ),
    ],
)
def test_refused_commits(
    client: TestClient, catalog: SqlCatalog, ns: str, body: dict[str, Any], status: int, kind: str, text: str
) -> None:
    client.post("/v1/namespaces/ns/functions/f", json=create_body())
    before = catalog.load_function("ns.f").metadata_location
    answer = client.post("/v1/namespaces/ns/functions/f", json=body)
    assert answer.status_code == status, answer.text
    problem = error(answer)
    assert problem["type"] == kind and text in problem["message"], problem
    assert "Traceback" not in answer.text
    assert catalog.load_function("ns.f").metadata_location == before


def test_missing_things_are_404s_and_names_are_checked(client: TestClient, ns: str, tmp_path: Path) -> None:
    for method in ("GET", "DELETE"):
        missing = client.request(method, "/v1/namespaces/ns/functions/nope")
        assert missing.status_code == 404
        assert error(missing)["type"] == "NoSuchFunctionException"
    assert client.head("/v1/namespaces/ns/functions/nope").status_code == 404
    nowhere = client.post("/v1/namespaces/nowhere/functions/f", json=create_body())
    assert nowhere.status_code == 404 and error(nowhere)["type"] == "NoSuchNamespaceException"
    assert not (tmp_path / "warehouse" / "nowhere").exists()  # refused before anything was written
    assert client.get("/v1/namespaces/nowhere/functions").status_code == 404
    bad_name = client.post("/v1/namespaces/ns/functions/a%5Cb", json=create_body())
    assert bad_name.status_code == 400, bad_name.text
    exists = client.post("/v1/namespaces/ns/functions/f", json=create_body())
    assert exists.status_code == 200
    twice = client.post("/v1/namespaces/ns/functions/f", json=create_body())
    assert twice.status_code == 409 and error(twice)["type"] == "AlreadyExistsException"
    assert error(twice)["message"] == "Function already exists: ns.f"


def test_rename_drop_and_paging(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    for name in ("c", "a", "b"):
        assert client.post(f"/v1/namespaces/ns/functions/{name}", json=create_body()).status_code == 200
    pages: list[list[str]] = []
    params: dict[str, str] = {"pageToken": "", "pageSize": "2"}
    while True:
        doc = client.get("/v1/namespaces/ns/functions", params=params).json()
        pages.append([i[-1] for i in doc["identifiers"]])
        if "next-page-token" not in doc:
            break
        params["pageToken"] = doc["next-page-token"]
    assert pages == [["a", "b"], ["c"]]

    rename = {"source": {"namespace": ["ns"], "name": "a"}, "destination": {"namespace": ["ns"], "name": "z"}}
    assert client.post("/v1/functions/rename", json=rename).status_code == 204
    assert catalog.list_functions("ns") == [("ns", "b"), ("ns", "c"), ("ns", "z")]
    taken = {"source": {"namespace": ["ns"], "name": "b"}, "destination": {"namespace": ["ns"], "name": "c"}}
    answer = client.post("/v1/functions/rename", json=taken)
    assert answer.status_code == 409 and "Function already exists" in error(answer)["message"]
    escape = {
        "source": {"namespace": ["ns"], "name": "b"},
        "destination": {"namespace": ["ns"], "name": "a/b"},
    }
    assert client.post("/v1/functions/rename", json=escape).status_code == 400

    assert client.delete("/v1/namespaces/ns/functions/b").status_code == 204
    assert client.delete("/v1/namespaces/ns/functions/b").status_code == 404
    not_empty = client.delete("/v1/namespaces/ns")
    assert not_empty.status_code == 409 and "function(s)" in error(not_empty)["message"]
