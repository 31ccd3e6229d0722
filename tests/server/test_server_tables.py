"""The table endpoints of the server: in-process over the SQL catalog (PyIceberg's ``SqlCatalog``
on the same store sees every change), and PyIceberg's ``RestCatalog`` against a real
``iceview serve`` (create, append with pyarrow, load, scan, a staged create, schema evolution)."""

from __future__ import annotations

import copy
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError, TableAlreadyExistsError
from pyiceberg.types import LongType, StringType
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.catalog.interface import close_table_catalog
from iceview.server import ServedCatalog, ServerSettings, create_app

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "identifier-field-ids": [1],
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
    ],
}

VIEW = {
    "name": "v",
    "schema": {
        "type": "struct",
        "schema-id": 0,
        "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}],
    },
    "view-version": {
        "version-id": 1,
        "timestamp-ms": 1700000000000,
        "schema-id": 0,
        "summary": {"engine-name": "spark"},
        "representations": [{"type": "sql", "sql": "SELECT 1 AS id", "dialect": "spark"}],
        "default-namespace": ["ns"],
    },
}


def create_body(name: str = "t", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "schema": copy.deepcopy(SCHEMA), "properties": {"owner": "eng"}}
    body.update(extra)
    return body


def error(response: Any, status: int, error_type: str) -> str:
    assert response.status_code == status, response.text
    doc = response.json()["error"]
    assert doc["type"] == error_type and doc["code"] == status, doc
    return str(doc["message"])


def local_path(uri: str) -> Path:
    return Path(urlparse(uri).path)


@pytest.fixture
def ns(client: TestClient) -> str:
    assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
    return "ns"


@pytest.fixture
def created(client: TestClient, ns: str) -> dict[str, Any]:
    response = client.post("/v1/namespaces/ns/tables", json=create_body())
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_create_load_list_exists_and_pyiceberg_sees_it(
    client: TestClient, catalog: SqlCatalog, created: dict[str, Any]
) -> None:
    assert set(created) == {"metadata-location", "metadata", "config"}
    metadata = created["metadata"]
    assert metadata["format-version"] == 2
    assert metadata["properties"] == {"owner": "eng"}
    assert metadata["schemas"][0]["identifier-field-ids"] == [1]
    assert created["metadata-location"].startswith(catalog.properties["warehouse"] + "/ns/t/metadata/")
    assert local_path(created["metadata-location"]).is_file()

    loaded = client.get("/v1/namespaces/ns/tables/t")
    assert loaded.status_code == 200 and loaded.json() == created
    assert client.head("/v1/namespaces/ns/tables/t").status_code == 204
    assert client.head("/v1/namespaces/ns/tables/nope").status_code == 404

    tables = catalog.table_catalog()
    try:
        table = tables.load_table(("ns", "t"))
        assert table.metadata_location == created["metadata-location"]
        assert str(table.metadata.table_uuid) == metadata["table-uuid"]
    finally:
        close_table_catalog(tables)
    assert catalog.table_exists("ns.t")


def test_list_tables_pages_and_leaves_out_views(client: TestClient, ns: str) -> None:
    for name in ("c", "a", "b"):
        assert client.post("/v1/namespaces/ns/tables", json=create_body(name)).status_code == 200
    assert client.post("/v1/namespaces/ns/views", json=VIEW).status_code == 200
    everything = client.get("/v1/namespaces/ns/tables").json()
    assert everything == {"identifiers": [{"namespace": ["ns"], "name": n} for n in ("a", "b", "c")]}
    first = client.get("/v1/namespaces/ns/tables", params={"pageToken": "", "pageSize": "2"}).json()
    assert [i["name"] for i in first["identifiers"]] == ["a", "b"]
    rest = client.get("/v1/namespaces/ns/tables", params={"pageToken": first["next-page-token"]}).json()
    assert [i["name"] for i in rest["identifiers"]] == ["c"] and "next-page-token" not in rest
    error(client.get("/v1/namespaces/missing/tables"), 404, "NoSuchNamespaceException")


def test_create_conflicts_use_java_texts(client: TestClient, created: dict[str, Any]) -> None:
    message = error(
        client.post("/v1/namespaces/ns/tables", json=create_body()), 409, "AlreadyExistsException"
    )
    assert message == "Table already exists: ns.t"
    assert client.post("/v1/namespaces/ns/views", json=VIEW).status_code == 200
    for path in ("/v1/namespaces/ns/tables", "/v1/namespaces/ns/register"):
        body = (
            create_body("v")
            if path.endswith("tables")
            else {"name": "v", "metadata-location": created["metadata-location"]}
        )
        message = error(client.post(path, json=body), 409, "AlreadyExistsException")
        assert message == "View with same name already exists: ns.v"
    message = error(
        client.post("/v1/namespaces/missing/tables", json=create_body()), 404, "NoSuchNamespaceException"
    )
    assert message == "Namespace does not exist: missing"


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"name": "t"}, "$.schema"),
        (
            {"name": "t", "schema": {"type": "struct", "fields": [{"id": 1, "name": "x"}]}},
            "$.schema.fields[0].type",
        ),
        ({"name": "t", "schema": SCHEMA, "properties": {"k": 1}}, "$.properties.k"),
        ({"name": "t", "schema": SCHEMA, "stage-create": "maybe"}, "$.stage-create"),
        ({"name": 3, "schema": SCHEMA}, "$.name"),
        # found by the fuzzer: PyIceberg fills in a sort order's missing order-id and fields
        ({"name": "t", "schema": SCHEMA, "write-order": {"": []}}, "$.write-order.order-id"),
        ({"name": "t", "schema": SCHEMA, "write-order": {"order-id": 0}}, "$.write-order.fields"),
        (
            {
                "name": "t",
                "schema": SCHEMA,
                "write-order": {"order-id": 1, "fields": [{"source-id": 1, "transform": "identity"}]},
            },
            "$.write-order.fields[0].direction",
        ),
        ({"name": "t", "schema": SCHEMA, "partition-spec": {"spec-id": 0}}, "$.partition-spec.fields"),
        (
            {"name": "t", "schema": SCHEMA, "partition-spec": {"fields": [{"source-id": "1"}]}},
            "$.partition-spec.fields[0].source-id",
        ),
        # a default that does not fit its type fails inside PyIceberg with a TypeError
        (
            {
                "name": "t",
                "schema": {
                    "type": "struct",
                    "fields": [
                        {"id": 1, "name": "b", "required": False, "type": "fixed[2]", "initial-default": 17}
                    ],
                },
            },
            "$.schema",
        ),
    ],
)
def test_bad_create_requests_are_400_with_the_path(
    client: TestClient, ns: str, body: dict[str, Any], path: str
) -> None:
    message = error(client.post("/v1/namespaces/ns/tables", json=body), 400, "BadRequestException")
    assert message.startswith("Invalid CreateTableRequest") and message.endswith(f"(at {path})"), message


def test_locations_must_stay_in_the_warehouse(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    for body in (
        create_body(location="file:///elsewhere/t"),
        create_body(properties={"write.metadata.path": "file:///elsewhere/m"}),
        create_body(location=catalog.properties["warehouse"] + "/ns/../../t"),
    ):
        response = client.post("/v1/namespaces/ns/tables", json=body)
        assert response.status_code in (400, 403), response.text
    assert not catalog.table_exists("ns.t")
    # a namespace's location property is a client's word too
    props = {"updates": {"location": "file:///elsewhere/ns"}}
    assert client.post("/v1/namespaces/ns/properties", json=props).status_code == 200
    for stage in (False, True):
        response = client.post("/v1/namespaces/ns/tables", json=create_body(**{"stage-create": stage}))
        error(response, 403, "ForbiddenException")
    assert not Path("/elsewhere").exists()
    inside = create_body(location=catalog.properties["warehouse"] + "/custom/t")
    assert client.post("/v1/namespaces/ns/tables", json=inside).status_code == 200
    move = {"requirements": [], "updates": [{"action": "set-location", "location": "file:///elsewhere/t"}]}
    error(client.post("/v1/namespaces/ns/tables/t", json=move), 403, "ForbiddenException")


def test_external_locations_when_allowed(catalog: SqlCatalog, tmp_path: Path) -> None:
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings(allow_external_locations=True))
    with TestClient(app) as client:
        assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
        body = create_body(location=f"file://{tmp_path}/outside/t")
        response = client.post("/v1/namespaces/ns/tables", json=body)
        assert response.status_code == 200, response.text
        assert response.json()["metadata-location"].startswith(f"file://{tmp_path}/outside/t/metadata/")


def test_stage_create_writes_nothing_until_a_commit_asserts_create(
    client: TestClient, catalog: SqlCatalog, ns: str
) -> None:
    staged = client.post("/v1/namespaces/ns/tables", json=create_body(**{"stage-create": True}))
    assert staged.status_code == 200, staged.text
    doc = staged.json()
    assert doc.get("metadata-location") is None
    metadata = doc["metadata"]
    assert client.head("/v1/namespaces/ns/tables/t").status_code == 404
    assert not (local_path(catalog.properties["warehouse"]) / "ns" / "t").exists()

    # what Java's and PyIceberg's clients send to create a staged table
    create = {
        "requirements": [{"type": "assert-create"}],
        "updates": [
            {"action": "assign-uuid", "uuid": metadata["table-uuid"]},
            {"action": "upgrade-format-version", "format-version": metadata["format-version"]},
            {"action": "add-schema", "schema": metadata["schemas"][0]},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "add-spec", "spec": metadata["partition-specs"][0]},
            {"action": "set-default-spec", "spec-id": -1},
            {"action": "add-sort-order", "sort-order": metadata["sort-orders"][0]},
            {"action": "set-default-sort-order", "sort-order-id": -1},
            {"action": "set-location", "location": metadata["location"]},
            {"action": "set-properties", "updates": metadata["properties"]},
        ],
    }
    committed = client.post("/v1/namespaces/ns/tables/t", json=create)
    assert committed.status_code == 200, committed.text
    result = committed.json()
    assert set(result) == {"metadata-location", "metadata"}
    assert result["metadata"]["table-uuid"] == metadata["table-uuid"]
    assert result["metadata"]["properties"] == {"owner": "eng"}
    assert catalog.table_exists("ns.t")
    assert client.get("/v1/namespaces/ns/tables/t").json()["metadata-location"] == result["metadata-location"]

    again = client.post("/v1/namespaces/ns/tables/t", json=create)
    assert error(again, 409, "CommitFailedException") == "Requirement failed: table already exists"


def test_a_create_commit_onto_a_view_or_a_missing_namespace(client: TestClient, ns: str) -> None:
    assert client.post("/v1/namespaces/ns/views", json=VIEW).status_code == 200
    create = {"requirements": [{"type": "assert-create"}], "updates": []}
    message = error(client.post("/v1/namespaces/ns/tables/v", json=create), 409, "AlreadyExistsException")
    assert message == "View with same name already exists: ns.v"
    error(client.post("/v1/namespaces/nope/tables/t", json=create), 404, "NoSuchNamespaceException")
    message = error(client.post("/v1/namespaces/ns/tables/t", json=create), 400, "BadRequestException")
    assert "must set its location" in message


def test_commit_applies_updates_and_checks_requirements(
    client: TestClient, catalog: SqlCatalog, created: dict[str, Any]
) -> None:
    uuid = created["metadata"]["table-uuid"]
    evolve = {
        "identifier": {"namespace": ["ns"], "name": "t"},
        "requirements": [
            {"type": "assert-table-uuid", "uuid": uuid},
            {"type": "assert-current-schema-id", "current-schema-id": 0},
        ],
        "updates": [
            {
                "action": "add-schema",
                "schema": {
                    **SCHEMA,
                    "schema-id": 1,
                    "fields": [*SCHEMA["fields"], {"id": 3, "name": "x", "required": False, "type": "int"}],
                },  # type: ignore[dict-item]
                "last-column-id": 3,
            },
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "remove-properties", "removals": ["owner"]},
        ],
    }
    response = client.post("/v1/namespaces/ns/tables/t", json=evolve)
    assert response.status_code == 200, response.text
    doc = response.json()
    assert doc["metadata"]["current-schema-id"] == 1 and doc["metadata"]["properties"] == {}
    assert doc["metadata"]["metadata-log"][-1]["metadata-file"] == created["metadata-location"]
    tables = catalog.table_catalog()
    try:
        assert [f.name for f in tables.load_table("ns.t").schema().fields] == ["id", "name", "x"]
    finally:
        close_table_catalog(tables)

    # the same request again: its requirement is stale now
    message = error(client.post("/v1/namespaces/ns/tables/t", json=evolve), 409, "CommitFailedException")
    assert message == "Requirement failed: current schema changed: expected id 0 != 1"
    wrong = {
        "requirements": [{"type": "assert-table-uuid", "uuid": "00000000-0000-0000-0000-000000000000"}],
        "updates": [],
    }
    message = error(client.post("/v1/namespaces/ns/tables/t", json=wrong), 409, "CommitFailedException")
    assert message.startswith("Requirement failed: UUID does not match: expected 00000000-")


def test_re_adding_an_existing_schema_does_not_duplicate_it(
    client: TestClient, created: dict[str, Any]
) -> None:
    metadata = created["metadata"]
    again = {
        "requirements": [],
        "updates": [
            {"action": "add-schema", "schema": metadata["schemas"][0]},
            {"action": "add-spec", "spec": metadata["partition-specs"][0]},
            {"action": "set-properties", "updates": {"k": "v"}},
        ],
    }
    response = client.post("/v1/namespaces/ns/tables/t", json=again)
    assert response.status_code == 200, response.text
    doc = response.json()["metadata"]
    assert [s["schema-id"] for s in doc["schemas"]] == [0]
    assert [s["spec-id"] for s in doc["partition-specs"]] == [0]
    assert doc["properties"]["k"] == "v"
    # a different schema under a taken id is refused, and nothing is written
    other = {**SCHEMA, "fields": [{"id": 1, "name": "other", "required": True, "type": "string"}]}
    clash = {"requirements": [], "updates": [{"action": "add-schema", "schema": other}]}
    message = error(client.post("/v1/namespaces/ns/tables/t", json=clash), 400, "BadRequestException")
    assert "cannot add schema 0" in message


@pytest.mark.parametrize(
    ("body", "status", "error_type", "path"),
    [
        (
            {"requirements": [], "updates": [{"action": "no-such-action"}]},
            400,
            "BadRequestException",
            "$.updates[0]",
        ),
        (
            {"requirements": [], "updates": [{"action": "set-properties"}]},
            400,
            "BadRequestException",
            "$.updates[0].updates",
        ),
        ({"requirements": [], "updates": "all"}, 400, "BadRequestException", "$.updates"),
        (
            {"requirements": [], "updates": [{"action": "add-sort-order", "sort-order": {"fields": []}}]},
            400,
            "BadRequestException",
            "$.updates[0].sort-order.order-id",
        ),
        (
            {"requirements": [], "updates": [{"action": "add-spec", "spec": {"spec-id": 1}}]},
            400,
            "BadRequestException",
            "$.updates[0].spec.fields",
        ),
        (
            {
                "requirements": [],
                "updates": [{"action": "add-schema", "schema": {"type": "struct", "fields": [{"id": 1}]}}],
            },
            400,
            "BadRequestException",
            "$.updates[0].schema.fields[0].name",
        ),
        ({}, 400, "BadRequestException", "$.requirements"),
        ({"requirements": []}, 400, "BadRequestException", "$.updates"),
        (
            {"requirements": [{"type": "assert-nothing"}], "updates": []},
            400,
            "BadRequestException",
            "$.requirements[0]",
        ),
        (
            {"identifier": {"namespace": ["ns"], "name": "other"}, "requirements": [], "updates": []},
            400,
            "BadRequestException",
            "$.identifier",
        ),
        (
            {"requirements": [], "updates": [{"action": "set-current-schema", "schema-id": 7}]},
            400,
            "IllegalArgumentException",
            None,
        ),
        (
            {
                "requirements": [],
                "updates": [
                    {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": 5}
                ],
            },
            400,
            None,
            None,
        ),
    ],
)
def test_bad_commits_are_4xx_and_change_nothing(
    client: TestClient,
    created: dict[str, Any],
    body: dict[str, Any],
    status: int,
    error_type: str | None,
    path: str | None,
) -> None:
    response = client.post("/v1/namespaces/ns/tables/t", json=body)
    assert response.status_code == status, response.text
    doc = response.json()["error"]
    if error_type:
        assert doc["type"] == error_type, doc
    if path:
        assert doc["message"].endswith(f"(at {path})"), doc
    assert (
        client.get("/v1/namespaces/ns/tables/t").json()["metadata-location"] == created["metadata-location"]
    )


def test_commit_to_a_missing_table_is_404(client: TestClient, ns: str) -> None:
    body = {"requirements": [], "updates": [{"action": "set-properties", "updates": {"a": "b"}}]}
    message = error(client.post("/v1/namespaces/ns/tables/nope", json=body), 404, "NoSuchTableException")
    assert message == "Table does not exist: ns.nope"


def test_rename_follows_java_jdbc_catalog(client: TestClient, created: dict[str, Any]) -> None:
    assert client.post("/v1/namespaces", json={"namespace": ["other"]}).status_code == 200
    assert client.post("/v1/namespaces/ns/views", json=VIEW).status_code == 200

    def rename(src: tuple[str, str], dst: tuple[str, str]) -> Any:
        return client.post(
            "/v1/tables/rename",
            json={
                "source": {"namespace": [src[0]], "name": src[1]},
                "destination": {"namespace": [dst[0]], "name": dst[1]},
            },
        )

    message = error(rename(("ns", "t"), ("ns", "v")), 409, "AlreadyExistsException")
    assert message == "Cannot rename ns.t to ns.v. View already exists"
    error(rename(("ns", "nope"), ("ns", "x")), 404, "NoSuchTableException")
    error(rename(("ns", "v"), ("ns", "x")), 404, "NoSuchTableException")  # a view is no table
    error(rename(("ns", "t"), ("missing", "x")), 404, "NoSuchNamespaceException")
    assert rename(("ns", "t"), ("other", "moved")).status_code == 204
    assert client.head("/v1/namespaces/ns/tables/t").status_code == 404
    moved = client.get("/v1/namespaces/other/tables/moved").json()
    assert moved["metadata-location"] == created["metadata-location"]
    assert client.post("/v1/namespaces/ns/tables", json=create_body()).status_code == 200
    message = error(rename(("ns", "t"), ("other", "moved")), 409, "AlreadyExistsException")
    assert message == "Table already exists: other.moved"
    error(
        client.post("/v1/tables/rename", json={"source": {"namespace": ["ns"], "name": "../x"}}),
        400,
        "BadRequestException",
    )


def test_drop_register_and_purge(client: TestClient, catalog: SqlCatalog, created: dict[str, Any]) -> None:
    location = created["metadata-location"]
    assert client.delete("/v1/namespaces/ns/tables/t").status_code == 204
    assert local_path(location).is_file()  # a drop without purge keeps the files
    error(client.delete("/v1/namespaces/ns/tables/t"), 404, "NoSuchTableException")

    registered = client.post(
        "/v1/namespaces/ns/register", json={"name": "back", "metadata-location": location}
    )
    assert registered.status_code == 200, registered.text
    assert registered.json()["metadata"]["table-uuid"] == created["metadata"]["table-uuid"]
    message = error(
        client.post("/v1/namespaces/ns/register", json={"name": "back", "metadata-location": location}),
        409,
        "AlreadyExistsException",
    )
    assert message == "Table already exists: ns.back"
    overwrite = {"name": "back", "metadata-location": location, "overwrite": True}
    message = error(client.post("/v1/namespaces/ns/register", json=overwrite), 409, "AlreadyExistsException")
    assert "overwrite is not supported" in message
    missing = catalog.properties["warehouse"] + "/ns/none.metadata.json"
    message = error(
        client.post("/v1/namespaces/ns/register", json={"name": "x", "metadata-location": missing}),
        400,
        "BadRequestException",
    )
    assert message.endswith("(at $.metadata-location)") and not catalog.table_exists("ns.x")
    outside = {"name": "x", "metadata-location": "file:///etc/t.metadata.json"}
    error(client.post("/v1/namespaces/ns/register", json=outside), 403, "ForbiddenException")
    # a file in the warehouse whose table lives elsewhere: later commits would write there
    doc = json.loads(local_path(location).read_text())
    doc["location"] = "file:///elsewhere/t"
    pointing_out = local_path(catalog.properties["warehouse"]) / "ns" / "out.metadata.json"
    pointing_out.write_text(json.dumps(doc))
    body = {"name": "x", "metadata-location": catalog.properties["warehouse"] + "/ns/out.metadata.json"}
    error(client.post("/v1/namespaces/ns/register", json=body), 403, "ForbiddenException")
    assert not catalog.table_exists("ns.x")

    error(
        client.delete("/v1/namespaces/ns/tables/back", params={"purgeRequested": "yes"}),
        400,
        "BadRequestException",
    )
    assert (
        client.delete("/v1/namespaces/ns/tables/back", params={"purgeRequested": "true"}).status_code == 204
    )
    assert not local_path(location).exists()  # purged
    assert not catalog.table_exists("ns.back")


def test_metrics_and_multi_table_transactions(client: TestClient, created: dict[str, Any]) -> None:
    report: dict[str, Any] = {
        "report-type": "commit-report",
        "table-name": "ns.t",
        "snapshot-id": 1,
        "sequence-number": 1,
        "operation": "append",
        "metrics": {},
    }
    assert client.post("/v1/namespaces/ns/tables/t/metrics", json=report).status_code == 204
    scan = {
        "report-type": "scan-report",
        "table-name": "ns.t",
        "snapshot-id": 1,
        "filter": True,
        "schema-id": 0,
        "projected-field-ids": [1],
        "projected-field-names": ["id"],
        "metrics": {"total-planning-duration": {"count": 1, "time-unit": "nanoseconds", "total-duration": 5}},
        "metadata": {"engine": "spark"},
    }
    assert client.post("/v1/namespaces/ns/tables/t/metrics", json=scan).status_code == 204
    for bad in (
        {},
        {**scan, "report-type": 1},
        {**scan, "snapshot-id": "one"},
        {**scan, "metrics": {"m": {"unit": "count"}}},
        {**scan, "metadata": {"k": 1}},
        {**report, "operation": None},
    ):
        error(client.post("/v1/namespaces/ns/tables/t/metrics", json=bad), 400, "BadRequestException")
    change = {
        "table-changes": [
            {"identifier": {"namespace": ["ns"], "name": "t"}, "requirements": [], "updates": []}
        ]
    }
    # not served, and not advertised: clients that read /v1/config do not call it
    error(client.post("/v1/transactions/commit", json=change), 404, "NotFoundException")
    assert not any("transactions" in e for e in client.get("/v1/config").json()["endpoints"])


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_pyiceberg_rest_catalog_against_iceview_serve(iceview_server_factory: Any, backend: str) -> None:
    server = iceview_server_factory(backend)
    rest = RestCatalog("served", uri=server.uri)
    rest.create_namespace("db")
    arrow = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
    table = rest.create_table("db.people", schema=arrow, properties={"owner": "eng"})
    assert table.metadata_location.startswith(server.warehouse_uri + "/db/people/metadata/")
    table.append(pa.Table.from_pylist([{"id": 1, "name": "ada"}, {"id": 2, "name": "grace"}], schema=arrow))
    table.append(pa.Table.from_pylist([{"id": 3, "name": "édith"}], schema=arrow))

    loaded = rest.load_table("db.people")
    assert len(loaded.metadata.snapshots) == 2
    rows = sorted(loaded.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    assert rows == [{"id": 1, "name": "ada"}, {"id": 2, "name": "grace"}, {"id": 3, "name": "édith"}]

    with loaded.update_schema() as update:
        update.add_column("age", LongType())
    assert [f.name for f in rest.load_table("db.people").schema().fields] == ["id", "name", "age"]

    # a stale client loses on its requirements
    stale = rest.load_table("db.people")
    with rest.load_table("db.people").update_schema() as update:
        update.add_column("city", StringType())
    with (
        pytest.raises(CommitFailedException, match="current schema changed"),
        stale.update_schema() as update,
    ):
        update.add_column("zip", StringType())

    # a staged create (stage-create, then a commit that asserts create)
    with rest.create_table_transaction("db.staged", schema=arrow) as txn:
        txn.set_properties(stage="yes")
        assert not rest.table_exists("db.staged")
    staged = rest.load_table("db.staged")
    assert staged.properties["stage"] == "yes"

    with pytest.raises(TableAlreadyExistsError):
        rest.create_table("db.people", schema=arrow)
    assert {t[1] for t in rest.list_tables("db")} == {"people", "staged"}
    rest.rename_table("db.staged", "db.renamed")
    rest.drop_table("db.renamed")
    with pytest.raises(NoSuchTableError):
        rest.load_table("db.renamed")
    rest.purge_table("db.people")
    assert rest.list_tables("db") == []


def test_concurrent_appends_commit_or_conflict(iceview_server_factory: Any) -> None:
    """Racing writers through the server: each append commits or is refused with 409 (PyIceberg's
    compare-and-swap on the catalog entry), never a 5xx, and every committed row is there."""
    server = iceview_server_factory()
    rest = RestCatalog("served", uri=server.uri)
    rest.create_namespace("db")
    arrow = pa.schema([pa.field("id", pa.int64(), nullable=False)])
    rest.create_table("db.t", schema=arrow)

    def append(i: int) -> str:
        table = rest.load_table("db.t")
        try:
            table.append(pa.Table.from_pylist([{"id": i}], schema=arrow))
        except CommitFailedException:
            return "conflict"
        return "ok"

    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(append, range(12)))
    committed = outcomes.count("ok")
    assert committed >= 1 and committed + outcomes.count("conflict") == 12
    table = rest.load_table("db.t")
    assert len(table.scan().to_arrow()) == committed
    assert len(table.metadata.snapshots) == committed
