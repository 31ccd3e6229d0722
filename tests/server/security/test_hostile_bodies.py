"""Request bodies a blind attack answered with a 500 (or with the database's own words), each now a
4xx ``IcebergErrorResponse`` that names what is wrong and nothing of the server's internals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from iceview.catalog.sql import SqlCatalog
from iceview.errors import CatalogError, InvalidIdentifierError
from iceview.server.app import create_app
from iceview.server.context import ServedCatalog, ServerSettings
from iceview.server.errors import from_exception
from iceview.server.protocol import MAX_ENTRIES
from server.conftest import sqlite_catalog

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}],
}
INTERNALS = ("Error", "Traceback", "pydantic", "sqlalchemy", "sqlite", "iceberg_", "StopIteration", "errno")


def _view(name: str, **extra: Any) -> dict[str, Any]:
    version = {
        "version-id": 1,
        "timestamp-ms": 1700000000000,
        "schema-id": 0,
        "summary": {},
        "representations": [{"type": "sql", "sql": "select 1", "dialect": "spark"}],
        "default-namespace": ["fz"],
    }
    return {"name": name, "schema": SCHEMA, "view-version": version, **extra}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    catalog = sqlite_catalog(tmp_path)
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings())
    with TestClient(app, raise_server_exceptions=False) as c:
        assert c.post("/v1/namespaces", json={"namespace": ["fz"]}).status_code == 200
        assert c.post("/v1/namespaces/fz/tables", json={"name": "ft", "schema": SCHEMA}).status_code == 200
        yield c
    catalog.close()


def _deep(tmp_path: Path) -> str:
    return str(tmp_path / "warehouse") + "/" + "a/" * 3000


CASES: list[tuple[str, str, Any, str]] = [
    (
        "/v1/namespaces/fz/tables",
        "create",
        {"name": "p1", "schema": SCHEMA, "properties": -1},
        "properties must be an object",
    ),
    (
        "/v1/namespaces/fz/tables",
        "create",
        {"name": "p2", "schema": SCHEMA, "properties": "x"},
        "properties must be an object",
    ),
    (
        "/v1/namespaces/fz/tables",
        "create",
        {"name": "p3", "schema": SCHEMA, "properties": []},
        "properties must be an object",
    ),
    (
        "/v1/namespaces/fz/tables/ft",
        "commit",
        {"requirements": [], "updates": [{"action": {"a": None}}]},
        "action must be a string",
    ),
    (
        "/v1/namespaces/fz/tables/ft",
        "commit",
        {"requirements": [], "updates": [{"action": [None]}]},
        "action must be a string",
    ),
    (
        "/v1/namespaces/fz/tables/ft",
        "commit",
        {"requirements": [], "updates": [{"action": "set-properties", "updates": []}]},
        "updates must be an object of strings, got an array (at $.updates[0].updates)",
    ),
    (
        "/v1/namespaces/fz/tables/ctx",
        "create by commit",
        {
            "requirements": [{"type": "assert-create"}],
            "updates": [{"action": "set-location", "location": "LOCATION"}],
        },
        "the table would have no current schema",
    ),
    (
        "/v1/namespaces/fz/properties",
        "null updates",
        {"updates": None},
        "updates must be an object of strings, got null",
    ),
    (
        "/v1/namespaces/fz/properties",
        "null removals",
        {"removals": None, "updates": {}},
        "removals must be an array of strings, got null",
    ),
    ("/v1/namespaces", "null properties", {"namespace": ["np"], "properties": None}, "got null"),
    ("/v1/namespaces/fz/views", "view named .", _view("."), "a name may not be '.'"),
    ("/v1/namespaces", "namespace level .", {"namespace": ["."]}, "'.'"),
    (
        "/v1/namespaces",
        "70,000 properties",
        {"namespace": ["many"], "properties": {f"k{i}": "v" for i in range(70_000)}},
        f"more than the {MAX_ENTRIES} allowed",
    ),
]


@pytest.mark.parametrize(
    ("path", "what", "body", "says"), CASES, ids=[c[1] + ":" + str(i) for i, c in enumerate(CASES)]
)
def test_a_malformed_body_is_a_400_without_internals(
    client: TestClient, tmp_path: Path, path: str, what: str, body: Any, says: str
) -> None:
    if what == "create by commit":  # a location in the warehouse, and nothing else
        body = {
            **body,
            "updates": [{"action": "set-location", "location": f"file://{tmp_path}/warehouse/fz/ctx"}],
        }
    answer = client.post(path, json=body)
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]["message"]
    assert says in message
    assert not any(word in message for word in INTERNALS), message


def test_a_location_of_3000_folders_is_a_400(client: TestClient, tmp_path: Path) -> None:
    # os.makedirs recursed once per folder and overflowed the stack: a 500 RecursionError
    answer = client.post("/v1/namespaces/fz/views", json=_view("deep", location=_deep(tmp_path)))
    assert answer.status_code == 400, answer.text
    assert "longer than the file system allows" in answer.json()["error"]["message"]
    assert not (tmp_path / "warehouse" / "a").exists()


def test_the_database_s_own_words_stay_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    error = CatalogError(
        "Failed to insert namespace properties: Unknown failure: OperationalError: too many SQL variables"
    )
    answer = from_exception(error, mutation=True)
    assert answer.status == 500
    assert "OperationalError" not in answer.message and "SQL" not in answer.message
    assert "too many SQL variables" in caplog.text


def test_names_of_dot_and_many_properties_in_the_library(tmp_path: Path) -> None:
    catalog = SqlCatalog("c", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/wh")
    with pytest.raises(InvalidIdentifierError, match=r"'\.' names the folder"):
        catalog.create_namespace(("a", "."))
    catalog.create_namespace("ns")
    with pytest.raises(InvalidIdentifierError, match=r"'\.' names the folder"):
        catalog.create_view(("ns", "."), schema=None, queries={"spark": "select 1"})  # type: ignore[arg-type]
    # more properties than SQLite binds in one statement: inserted in parts
    many = {f"k{i}": str(i) for i in range(9_000)}
    catalog.create_namespace("big", many)
    loaded = catalog.load_namespace_properties("big")
    assert {k: v for k, v in loaded.items() if k in many} == many
    catalog.close()
