"""The view and namespace endpoints of the server, in-process: answers, errors, paging, and that
every change goes through the catalog's one change path (the catalog sees what the server wrote)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
    ],
}


def create_body(name: str = "v", sql: str = "SELECT id, name FROM ns.t", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "schema": copy.deepcopy(SCHEMA),
        "view-version": {
            "version-id": 1,
            "timestamp-ms": 1700000000000,
            "schema-id": 0,
            "summary": {"engine-name": "spark", "app": "ünïcode"},
            "representations": [{"type": "sql", "sql": sql, "dialect": "spark"}],
            "default-namespace": ["ns"],
        },
        "properties": {"owner": "data-eng"},
    }
    body.update(extra)
    return body


def error(response: Any) -> dict[str, Any]:
    doc = response.json()
    assert set(doc) == {"error"}, doc
    assert doc["error"]["code"] == response.status_code
    return dict(doc["error"])


@pytest.fixture
def ns(client: TestClient) -> str:
    assert (
        client.post("/v1/namespaces", json={"namespace": ["ns"], "properties": {"a": "1"}}).status_code == 200
    )
    return "ns"


def test_config_advertises_every_route(client: TestClient) -> None:
    doc = client.get("/v1/config").json()
    assert doc["defaults"] == {} and doc["overrides"] == {}
    assert "POST /v1/{prefix}/namespaces/{namespace}/views/{view}" in doc["endpoints"]
    assert "POST /v1/{prefix}/namespaces/{namespace}/register-view" in doc["endpoints"]
    assert len(doc["endpoints"]) == len(set(doc["endpoints"]))


def test_create_load_commit_and_the_catalog_sees_it(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    created = client.post("/v1/namespaces/ns/views", json=create_body())
    assert created.status_code == 200, created.text
    doc = created.json()
    assert doc["metadata-location"].startswith(catalog.properties["warehouse"] + "/ns/v/metadata/")
    version = doc["metadata"]["versions"][0]
    assert version["summary"]["app"] == "ünïcode"  # the client's summary is kept
    assert doc["metadata"]["properties"] == {"owner": "data-eng"}

    loaded = client.get("/v1/namespaces/ns/views/v").json()
    assert loaded == doc
    view = catalog.load_view("ns.v")
    assert view.metadata_location == doc["metadata-location"]

    change = {
        "requirements": [{"type": "assert-view-uuid", "uuid": doc["metadata"]["view-uuid"]}],
        "updates": [
            {"action": "set-properties", "updates": {"comment": "über"}},
            {"action": "remove-properties", "removals": ["owner"]},
        ],
    }
    committed = client.post("/v1/namespaces/ns/views/v", json=change)
    assert committed.status_code == 200, committed.text
    assert committed.json()["metadata"]["properties"] == {"comment": "über"}
    assert catalog.load_view("ns.v").properties == {"comment": "über"}


def test_replace_as_java_sends_it(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    doc = client.post("/v1/namespaces/ns/views", json=create_body()).json()
    schema = copy.deepcopy(SCHEMA)
    schema["fields"].append({"id": 3, "name": "day", "required": False, "type": "date"})
    version = {
        "version-id": 2,
        "timestamp-ms": 1700000001000,
        "schema-id": -1,
        "summary": {"engine-name": "spark"},
        "representations": [{"type": "sql", "sql": "SELECT id, name, day FROM ns.t", "dialect": "spark"}],
        "default-namespace": ["ns"],
    }
    change = {
        "requirements": [{"type": "assert-view-uuid", "uuid": doc["metadata"]["view-uuid"]}],
        "updates": [
            {"action": "add-schema", "schema": schema, "last-column-id": 3},
            {"action": "add-view-version", "view-version": version},
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }
    answer = client.post("/v1/namespaces/ns/views/v", json=change)
    assert answer.status_code == 200, answer.text
    view = catalog.load_view("ns.v")
    assert view.current_version.version_id == 2
    assert [f.name for f in view.schema.fields] == ["id", "name", "day"]
    assert len(view.metadata.version_log) == 2


def test_requirement_failure_is_a_conflict_and_writes_nothing(
    client: TestClient, catalog: SqlCatalog, ns: str
) -> None:
    client.post("/v1/namespaces/ns/views", json=create_body())
    before = catalog.load_view("ns.v").metadata_location
    change = {
        "requirements": [{"type": "assert-view-uuid", "uuid": "00000000-0000-0000-0000-000000000000"}],
        "updates": [{"action": "set-properties", "updates": {"x": "y"}}],
    }
    answer = client.post("/v1/namespaces/ns/views/v", json=change)
    assert answer.status_code == 409
    assert error(answer)["type"] == "CommitFailedException"
    assert catalog.load_view("ns.v").metadata_location == before


@pytest.mark.parametrize(
    ("body", "status", "kind", "where"),
    [
        (b"{not json", 400, "BadRequestException", "malformed JSON"),
        (b"[]", 400, "BadRequestException", "expected a JSON object"),
        (b'{"updates": [{"action": "set-location"}]}', 400, "BadRequestException", "$.updates[0].location"),
        (b'{"updates": [{"action": "fly"}]}', 400, "BadRequestException", "$.updates[0].action"),
        (b'{"updates": {}}', 400, "BadRequestException", "$.updates"),
        (
            b'{"updates": [{"action": "set-current-view-version", "view-version-id": 7}]}',
            400,
            "IllegalArgumentException",
            "Cannot set current version to unknown version: 7",
        ),
    ],
)
def test_bad_commits_name_what_and_where(
    client: TestClient, catalog: SqlCatalog, ns: str, body: bytes, status: int, kind: str, where: str
) -> None:
    client.post("/v1/namespaces/ns/views", json=create_body())
    before = catalog.load_view("ns.v").metadata_location
    answer = client.post("/v1/namespaces/ns/views/v", content=body)
    assert answer.status_code == status, answer.text
    err = error(answer)
    assert err["type"] == kind
    assert where in err["message"]
    assert catalog.load_view("ns.v").metadata_location == before


def test_create_errors(client: TestClient, ns: str) -> None:
    assert client.post("/v1/namespaces/ns/views", json=create_body()).status_code == 200
    again = client.post("/v1/namespaces/ns/views", json=create_body())
    assert (again.status_code, error(again)["type"]) == (409, "AlreadyExistsException")
    no_schema = create_body("w")
    del no_schema["schema"]
    answer = client.post("/v1/namespaces/ns/views", json=no_schema)
    assert answer.status_code == 400 and "$.schema" in error(answer)["message"]
    bad_type = create_body("w")
    bad_type["schema"]["fields"][0]["type"] = "varchar"
    answer = client.post("/v1/namespaces/ns/views", json=bad_type)
    assert answer.status_code == 400 and "varchar" in error(answer)["message"]


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", "x\x00y"])
def test_names_cannot_escape_the_warehouse(client: TestClient, ns: str, name: str) -> None:
    answer = client.post("/v1/namespaces/ns/views", json=create_body(name))
    assert answer.status_code == 400
    assert "may not contain" in error(answer)["message"]


def test_locations_stay_in_the_warehouse(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    outside = client.post("/v1/namespaces/ns/views", json=create_body(location="file:///etc/iceview"))
    assert (outside.status_code, error(outside)["type"]) == (403, "ForbiddenException")
    inside = client.post(
        "/v1/namespaces/ns/views", json=create_body(location=catalog.properties["warehouse"] + "/custom/v")
    )
    assert inside.status_code == 200, inside.text
    move = {"updates": [{"action": "set-location", "location": "file:/tmp/elsewhere"}]}
    answer = client.post("/v1/namespaces/ns/views/v", json=move)
    assert answer.status_code == 403


def test_missing_things_are_404_with_the_right_type(client: TestClient, ns: str) -> None:
    cases = {
        ("GET", "/v1/namespaces/ns/views/none"): "NoSuchViewException",
        ("DELETE", "/v1/namespaces/ns/views/none"): "NoSuchViewException",
        ("GET", "/v1/namespaces/nope/views"): "NoSuchNamespaceException",
        ("GET", "/v1/namespaces/nope"): "NoSuchNamespaceException",
    }
    for (method, path), kind in cases.items():
        answer = client.request(method, path)
        assert answer.status_code == 404, (method, path, answer.text)
        if kind:
            assert error(answer)["type"] == kind
    assert client.head("/v1/namespaces/ns/views/none").status_code == 404
    assert client.head("/v1/namespaces/ns/views/none").content == b""


def test_rename_and_drop(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    client.post("/v1/namespaces/ns/views", json=create_body())
    client.post("/v1/namespaces", json={"namespace": ["other"]})
    moved = client.post(
        "/v1/views/rename",
        json={
            "source": {"namespace": ["ns"], "name": "v"},
            "destination": {"namespace": ["other"], "name": "w"},
        },
    )
    assert moved.status_code == 204, moved.text
    assert catalog.view_exists("other.w") and not catalog.view_exists("ns.v")
    missing = client.post(
        "/v1/views/rename",
        json={
            "source": {"namespace": ["ns"], "name": "v"},
            "destination": {"namespace": ["ns"], "name": "x"},
        },
    )
    assert (missing.status_code, error(missing)["type"]) == (404, "NoSuchViewException")
    assert client.delete("/v1/namespaces/other/views/w").status_code == 204
    assert not catalog.view_exists("other.w")


def test_register_view(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    doc = client.post("/v1/namespaces/ns/views", json=create_body()).json()
    answer = client.post(
        "/v1/namespaces/ns/register-view",
        json={"name": "again", "metadata-location": doc["metadata-location"]},
    )
    assert answer.status_code == 200, answer.text
    assert catalog.load_view("ns.again").metadata.uuid == doc["metadata"]["view-uuid"]
    outside = client.post(
        "/v1/namespaces/ns/register-view", json={"name": "evil", "metadata-location": "file:///etc/passwd"}
    )
    assert outside.status_code == 403


def test_paging_is_stable_and_complete(client: TestClient, ns: str) -> None:
    names = [f"v{i:02d}" for i in range(7)]
    for name in names:
        assert client.post("/v1/namespaces/ns/views", json=create_body(name)).status_code == 200
    assert [i["name"] for i in client.get("/v1/namespaces/ns/views").json()["identifiers"]] == names
    seen: list[str] = []
    token = ""
    while True:
        doc = client.get("/v1/namespaces/ns/views", params={"pageToken": token, "pageSize": "3"}).json()
        seen += [i["name"] for i in doc["identifiers"]]
        if "next-page-token" not in doc:
            break
        token = doc["next-page-token"]
        if len(seen) == 3:  # a view added behind the cursor does not shift the pages
            client.post("/v1/namespaces/ns/views", json=create_body("v00a"))
    assert seen == names
    bad = client.get("/v1/namespaces/ns/views", params={"pageToken": "garbage!", "pageSize": "3"})
    assert bad.status_code == 400
    # a token names the last view answered in its namespace: another namespace's token is refused
    assert client.post("/v1/namespaces", json={"namespace": ["other"]}).status_code == 200
    first = client.get("/v1/namespaces/ns/views", params={"pageToken": "", "pageSize": "2"}).json()
    elsewhere = client.get("/v1/namespaces/other/views", params={"pageToken": first["next-page-token"]})
    assert elsewhere.status_code == 400
    assert "not a token this server issued" in elsewhere.json()["error"]["message"]


def test_namespaces(client: TestClient, ns: str) -> None:
    assert client.post("/v1/namespaces", json={"namespace": ["ns", "inner"]}).status_code == 200
    assert client.get("/v1/namespaces").json() == {"namespaces": [["ns"]]}
    assert client.get("/v1/namespaces", params={"parent": "ns"}).json() == {"namespaces": [["ns", "inner"]]}
    loaded = client.get("/v1/namespaces/ns").json()
    assert loaded["namespace"] == ["ns"] and loaded["properties"]["a"] == "1"
    assert client.head("/v1/namespaces/ns%1Finner").status_code == 204
    update = client.post(
        "/v1/namespaces/ns/properties", json={"removals": ["a", "zz"], "updates": {"b": "2"}}
    )
    assert update.json() == {"updated": ["b"], "removed": ["a"], "missing": ["zz"]}
    both = client.post("/v1/namespaces/ns/properties", json={"removals": ["b"], "updates": {"b": "3"}})
    assert (both.status_code, error(both)["type"]) == (422, "UnprocessableEntityException")
    twice = client.post("/v1/namespaces/ns/properties", json={"removals": ["b", "c", "b"], "updates": {}})
    assert (twice.status_code, error(twice)["type"]) == (400, "BadRequestException")  # uniqueItems
    assert error(twice)["message"].endswith("keys removed more than once: b")
    assert client.get("/v1/namespaces/ns").json()["properties"]["b"] == "2"  # nothing was removed
    again = client.post("/v1/namespaces", json={"namespace": ["ns"]})
    assert (again.status_code, error(again)["type"]) == (409, "AlreadyExistsException")
    client.post("/v1/namespaces/ns/views", json=create_body())
    full = client.delete("/v1/namespaces/ns")
    assert (full.status_code, error(full)["type"]) == (409, "NamespaceNotEmptyException")
    assert client.delete("/v1/namespaces/ns%1Finner").status_code == 204


def test_unknown_routes_methods_and_large_bodies(client: TestClient, ns: str) -> None:
    assert error(client.get("/v1/nothing"))["type"] == "NotFoundException"
    put = client.put("/v1/namespaces")
    assert (put.status_code, error(put)["type"]) == (405, "MethodNotAllowedException")
    big = client.post("/v1/namespaces/ns/views", content=b"{" + b" " * (70 * 1024) + b"}")
    assert big.status_code == 413
    assert error(big)["type"] == "RequestTooLargeException"


def test_health_and_metrics(client: TestClient, ns: str) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    client.post("/v1/namespaces/ns/views", json=create_body())
    client.post("/v1/namespaces/ns/views", json=create_body())  # a conflict: already exists
    text = client.get("/metrics").text
    assert (
        'iceview_requests_total{endpoint="POST /v1/{prefix}/namespaces/{namespace}/views",method="POST",status="409"} 1.0'
        in text
    )
    assert 'iceview_commits_total{kind="view"} 1.0' in text
    assert "iceview_request_seconds_bucket" in text


def test_several_catalogs_are_served_under_prefixes(tmp_path: Any) -> None:
    from iceview.server import ServedCatalog, create_app
    from server.conftest import sqlite_catalog

    a = sqlite_catalog(tmp_path / "a", "a")
    b = sqlite_catalog(tmp_path / "b", "b")
    app = create_app([ServedCatalog("a", a), ServedCatalog("b", b)])
    with TestClient(app) as client:
        assert client.get("/v1/config").json()["overrides"] == {"prefix": "a"}
        assert client.get("/v1/config", params={"warehouse": "b"}).json()["overrides"] == {"prefix": "b"}
        by_location = client.get("/v1/config", params={"warehouse": b.properties["warehouse"]})
        assert by_location.json()["overrides"] == {"prefix": "b"}
        unknown = client.get("/v1/config", params={"warehouse": "c"})
        assert (unknown.status_code, error(unknown)["type"]) == (404, "NotFoundException")
        assert client.post("/v1/b/namespaces", json={"namespace": ["only_b"]}).status_code == 200
        assert (
            client.post("/v1/b/namespaces/only_b/views", json=create_body(sql="SELECT 1")).status_code == 200
        )
        assert b.view_exists("only_b.v") and not a.namespace_exists("only_b")
        assert client.get("/v1/a/namespaces").json() == {"namespaces": []}
        missing = client.get("/v1/c/namespaces")
        assert (missing.status_code, error(missing)["type"]) == (404, "NotFoundException")
    with pytest.raises(ValueError, match="the name is a path segment"):
        create_app([ServedCatalog("views", a)])


def test_load_answers_on_the_loop_and_falls_back_to_a_thread(tmp_path: Any) -> None:
    """With a metadata cache on SQLite, a load is answered on the event loop (no worker thread);
    while a writer holds the database's lock it goes to a thread, waits, and still answers."""
    import sqlite3
    import threading
    import time

    from iceview.server import ServedCatalog, ServerSettings, create_app
    from server.conftest import sqlite_catalog

    catalog = sqlite_catalog(tmp_path, **{"iceview.metadata-cache-size": "8"})
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings())
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
        created = client.post("/v1/namespaces/ns/views", json=create_body())
        assert created.status_code == 200
        threads: list[str] = []
        real = catalog.load_view

        def recording(identifier: Any) -> Any:
            threads.append(threading.current_thread().name)
            return real(identifier)

        catalog.load_view = recording  # type: ignore[method-assign]
        for _ in range(3):
            answer = client.get("/v1/namespaces/ns/views/v")
            assert answer.status_code == 200
            assert answer.json()["metadata-location"] == created.json()["metadata-location"]
        assert threads == []  # never handed to a thread
        assert client.get("/v1/namespaces/ns/views/missing").status_code == 404
        assert threads == []

        locker = sqlite3.connect(tmp_path / "catalog.db", isolation_level=None, check_same_thread=False)
        locker.execute("BEGIN EXCLUSIVE")
        release = threading.Timer(0.3, lambda: locker.execute("ROLLBACK"))
        release.start()
        started = time.perf_counter()
        answer = client.get("/v1/namespaces/ns/views/v")
        release.join()
        locker.close()
        assert answer.status_code == 200, answer.text
        assert answer.json()["metadata-location"] == created.json()["metadata-location"]
        assert time.perf_counter() - started >= 0.25  # it waited for the lock, on a thread
        assert len(threads) == 1 and threads[0].startswith("iceview-serve")


def test_the_server_derives_dialects_for_any_client(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    """A client that knows nothing of iceview (Iceberg Java's RESTCatalog: a replace carries only its
    own SQL) gets the view's derived dialects added by the server, in the same commit."""
    # the relation the view reads, whose schema types the translations
    assert (
        client.post(
            "/v1/namespaces/ns/views", json=create_body("t", sql="SELECT 1 AS id, 'a' AS name")
        ).status_code
        == 200
    )
    body = create_body(sql="SELECT id, name FROM ns.t WHERE id > 1")
    body["properties"]["iceview.derive-dialects"] = "trino,duckdb"
    created = client.post("/v1/namespaces/ns/views", json=body).json()["metadata"]
    assert created["properties"]["replace.drop-dialect.allowed"] == "true"
    first = created["versions"][0]
    assert [r["dialect"] for r in first["representations"]] == ["spark", "trino", "duckdb"]
    # a replace as Java's RESTCatalog sends it: assert-view-uuid, a version with spark SQL only
    version = copy.deepcopy(body["view-version"])
    version.update(
        {
            "version-id": 2,
            "schema-id": 0,
            "summary": {"engine-name": "spark", "engine-version": "3.5.9"},
            "representations": [
                {"type": "sql", "sql": "SELECT id, name FROM ns.t WHERE id > 2", "dialect": "spark"}
            ],
        }
    )
    commit = {
        "requirements": [{"type": "assert-view-uuid", "uuid": created["view-uuid"]}],
        "updates": [
            {"action": "add-view-version", "view-version": version},
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }
    answer = client.post("/v1/namespaces/ns/views/v", json=commit)
    assert answer.status_code == 200, answer.text
    metadata = answer.json()["metadata"]
    current = next(v for v in metadata["versions"] if v["version-id"] == metadata["current-version-id"])
    sql = {r["dialect"]: r["sql"] for r in current["representations"]}
    assert list(sql) == ["spark", "trino", "duckdb"]
    assert "id > 2" in sql["duckdb"] and "id > 2" in sql["trino"]
    assert current["summary"]["iceview.derived-dialects"] == "trino,duckdb"
    assert current["summary"]["engine-name"] == "spark"
    stored = catalog.load_view("ns.v").current_version
    assert stored.sql_for("duckdb") is not None and "id > 2" in stored.sql_for("duckdb").sql  # type: ignore[union-attr]
