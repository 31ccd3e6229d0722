"""No error message echoes an input file or a library's internals: PyIceberg's and pydantic's
validation errors become iceview's own text naming the JSON path of the bad field, never its
value, pydantic's version or its documentation link."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from pyiceberg import exceptions as pyiceberg_errors
from pyiceberg.table.metadata import TableMetadataWrapper
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.catalog.rest_session import rest_error_from_pyiceberg
from iceview.server.errors import from_exception, library_text
from iceview.spec.pydantic_errors import json_path, validation_problem

from ..test_server_tables import create_body, local_path
from ..test_server_views import create_body as view_body

SECRET = "S3CR3T-do-not-echo"
# what pydantic's own text has, and iceview's never may
LEAKS = ("pydantic", "input_value", "input_type", "errors.pydantic.dev", "TableMetadata", "[type=", SECRET)


def error(response: Any, status: int, error_type: str) -> str:
    assert response.status_code == status, response.text
    doc = response.json()["error"]
    assert doc["type"] == error_type, doc
    message = str(doc["message"])
    for leak in LEAKS:
        assert leak not in message, message
    assert "\n" not in message, message
    return message


@pytest.fixture
def ns(client: TestClient) -> str:
    assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
    return "ns"


@pytest.fixture
def table(client: TestClient, ns: str) -> dict[str, Any]:
    response = client.post("/v1/namespaces/ns/tables", json=create_body(properties={"k": "v"}))
    assert response.status_code == 200, response.text
    return dict(response.json())


def register(client: TestClient, location: str) -> Any:
    return client.post("/v1/namespaces/ns/register", json={"name": "r", "metadata-location": location})


def test_a_view_metadata_file_registered_as_a_table(client: TestClient, catalog: SqlCatalog, ns: str) -> None:
    created = client.post("/v1/namespaces/ns/views", json=view_body(name="v", sql=f"SELECT '{SECRET}'"))
    assert created.status_code == 200, created.text
    location = created.json()["metadata-location"]
    view_uuid = created.json()["metadata"]["view-uuid"]
    message = error(register(client, location), 400, "BadRequestException")
    assert message == (
        "Invalid table metadata: the file is a view metadata file, not a table metadata file "
        f"(at $ in {location})"
    )
    assert view_uuid not in message
    assert not catalog.table_exists("ns.r")


def write_table_file(catalog: SqlCatalog, doc: dict[str, Any], name: str = "bad.metadata.json") -> str:
    location = catalog.properties["warehouse"] + "/ns/bad/metadata/" + name
    path = local_path(location)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return location


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.pop("last-column-id"), "missing field last-column-id (at $.last-column-id"),
        (
            lambda d: d.update({"last-column-id": SECRET}),
            "last-column-id must be an integer (at $.last-column-id",
        ),
        (lambda d: d.update({"table-uuid": SECRET}), "table-uuid must be a UUID (at $.table-uuid"),
        (
            lambda d: d["schemas"][0]["fields"][0].update({"id": SECRET}),
            "id must be an integer (at $.schemas[0].fields[0].id",
        ),
        (
            lambda d: d.update({"format-version": 9, "x": SECRET}),
            "format-version is not one of the supported values",
        ),
        (
            lambda d: d.update({"refs": {"main": {"type": "branch", "snapshot-id": SECRET}}}),
            "snapshot-id must be an integer (at $.refs.main.snapshot-id",
        ),
    ],
)
def test_a_broken_table_metadata_file_is_named_by_path_not_content(
    client: TestClient, catalog: SqlCatalog, table: dict[str, Any], change: Any, expected: str
) -> None:
    doc = json.loads(local_path(table["metadata-location"]).read_text())
    doc["properties"]["note"] = SECRET
    change(doc)
    location = write_table_file(catalog, doc)
    message = error(register(client, location), 400, "BadRequestException")
    assert message.startswith("Invalid table metadata: "), message
    assert expected in message, message
    assert not catalog.table_exists("ns.r")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"not json " + SECRET.encode(), "the file is not JSON"),
        (b'["' + SECRET.encode() + b'"]', "the file is not a JSON object"),
    ],
)
def test_a_file_that_is_no_metadata_at_all(
    client: TestClient, catalog: SqlCatalog, ns: str, content: bytes, expected: str
) -> None:
    location = write_table_file(catalog, {})
    local_path(location).write_bytes(content)
    message = error(register(client, location), 400, "BadRequestException")
    assert expected in message


def test_a_table_whose_metadata_file_broke_is_loaded_without_its_content(
    client: TestClient, table: dict[str, Any]
) -> None:
    path = local_path(table["metadata-location"])
    doc = json.loads(path.read_text())
    doc["properties"]["note"] = SECRET
    del doc["last-column-id"]
    path.write_text(json.dumps(doc))
    message = error(client.get("/v1/namespaces/ns/tables/t"), 400, "ValidationException")
    assert message == "Validation failed: missing field last-column-id (at $.last-column-id)"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (create_body(**{"stage-create": SECRET}), "stage-create must be a boolean (at $.stage-create)"),
        (
            create_body(name="t", properties={"k": SECRET}, location=["x", SECRET]),
            "location must be a string",
        ),
    ],
)
def test_request_bodies_are_named_by_path_not_value(
    client: TestClient, ns: str, body: dict[str, Any], expected: str
) -> None:
    message = error(client.post("/v1/namespaces/ns/tables", json=body), 400, "BadRequestException")
    assert message.startswith("Invalid CreateTableRequest: ") and expected in message, message


def test_a_commit_that_cannot_be_applied_says_so_without_internals(
    client: TestClient, table: dict[str, Any]
) -> None:
    body = {
        "requirements": [],
        "updates": [
            {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": 424242}
        ],
    }
    response = client.post("/v1/namespaces/ns/tables/t", json=body)
    assert response.status_code in (400, 409), response.text
    message = response.json()["error"]["message"]
    assert "KeyError" not in message and "Traceback" not in message and "(" not in message.split(":")[0]


def pydantic_error(text: str) -> pydantic.ValidationError:
    try:
        TableMetadataWrapper.model_validate_json(text)
    except pydantic.ValidationError as e:
        return e
    raise AssertionError("valid")


def test_library_text_keeps_no_value_and_no_version() -> None:
    e = pydantic_error(json.dumps({"format-version": 2, "location": SECRET}))
    wrapped = pyiceberg_errors.ValidationError(e)
    wrapped.__cause__ = e
    for error in (e, wrapped):
        text = library_text(error)
        assert text.startswith("missing field ") and "(at $." in text, text
        assert all(leak not in text for leak in LEAKS), text
        answer = from_exception(error, mutation=True)
        assert (answer.status, answer.error_type) == (400, "ValidationException")
    # PyIceberg's own messages are cut where they start to show what they checked
    dump = pyiceberg_errors.ValidationError(f"Missing format-version in TableMetadata: {{'x': '{SECRET}'}}")
    assert library_text(dump) == "Missing format-version in TableMetadata"
    order = pyiceberg_errors.ValidationError(
        f"default-sort-order-id 3 can't be found in [SortOrder({SECRET})]"
    )
    assert library_text(order) == "default-sort-order-id 3 can't be found"
    assert len(library_text(pyiceberg_errors.ValidationError("y" * 5000))) < 210


def test_validation_problem_and_json_path() -> None:
    data = {"updates": [{"action": "add-schema", "schema": {}}]}
    assert json_path(("updates", 0, "add-schema", "schema"), data) == "$.updates[0].schema"
    errors = [{"type": "int_parsing", "loc": ("a", 1, "b"), "msg": SECRET, "input": SECRET}]
    assert validation_problem(errors) == ("b must be an integer", "$.a[1].b")
    two = [*errors, {"type": "value_error", "loc": ("c",), "msg": SECRET, "input": SECRET}]
    assert validation_problem(two) == ("b must be an integer (and 1 more problem)", "$.a[1].b")
    assert validation_problem([{"type": "value_error", "loc": ("c",), "ctx": {"error": SECRET}}]) == (
        "c is invalid",
        "$.c",
    )
    assert validation_problem([{"type": "missing", "loc": ("k" * 500,)}])[1] == "$." + "k" * 64 + "..."


def test_the_rest_client_does_not_show_a_malformed_response() -> None:
    e = pydantic_error(json.dumps({"format-version": 2, "location": SECRET}))
    wrapped = pyiceberg_errors.ValidationError(e)
    wrapped.__cause__ = e
    for error in (e, wrapped):
        mapped = rest_error_from_pyiceberg(error, "table ns.t", lambda text: text)
        assert mapped is not None
        text = str(mapped)
        assert text.startswith("Malformed response from the REST catalog (table ns.t): missing field "), text
        assert all(leak not in text for leak in LEAKS), text
