"""A hostile read-write client cannot make ``iceview serve`` write or delete outside the warehouse.

One test per attack (a view's ``write.metadata.path`` on create and in a set-properties commit, a
registered view or table whose file points outside, a purge of a table whose ``metadata-log``
names files outside), then a bounded, derandomized hypothesis sweep over hostile names, locations,
properties and registered files: after every request nothing under the sentinel folders (outside
the warehouse, and the working directory relative paths resolve against) changed, and no answer
was a 5xx. The same rule through the Python API: tests/catalog/test_catalog_confinement.py.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from iceview import files
from iceview.catalog import SqlCatalog
from iceview.server import ServedCatalog, ServerSettings, create_app

from ..conftest import sqlite_catalog

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [{"id": 1, "name": "id", "type": "long", "required": False}],
}
LOCATION_KEYS = [
    "write.metadata.path",
    "write.data.path",
    "write.object-storage.path",
    "write.folder-storage.path",
]


def view_body(name: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "schema": copy.deepcopy(SCHEMA),
        "view-version": {
            "version-id": 1,
            "timestamp-ms": 1700000000000,
            "schema-id": 0,
            "summary": {"engine-name": "spark"},
            "representations": [{"type": "sql", "sql": "SELECT 1 AS id", "dialect": "spark"}],
            "default-namespace": ["ns"],
        },
        "properties": {},
    }
    body.update(extra)
    return body


def table_body(name: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "schema": copy.deepcopy(SCHEMA)}
    body.update(extra)
    return body


def local(uri: str) -> Path:
    return Path(urlparse(uri).path)


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folders``: (size, mtime in ns); symlinks are not followed."""
    found: dict[str, tuple[int, int]] = {}
    for folder in folders:
        for root, dirs, names in os.walk(folder):
            for name in dirs + names:
                path = os.path.join(root, name)
                info = os.lstat(path)
                found[path] = (info.st_size, info.st_mtime_ns)
    return found


@dataclass
class Setup:
    client: TestClient
    catalog: SqlCatalog
    root: Path
    warehouse: str  # file:// URI
    outside: Path
    cwd: Path

    @property
    def wh(self) -> Path:
        return local(self.warehouse)

    def sentinels(self) -> dict[str, tuple[int, int]]:
        return snapshot(self.outside, self.cwd)

    def hostile(self, name: str = "m") -> list[str]:
        """Spellings of places outside the warehouse (``name`` in the sentinel folders)."""
        out, wh, root = self.outside, self.wh, self.root
        return [
            str(out / name),
            f"file:{out}/{name}",
            f"file://{out}/{name}",
            f"file://localhost{out}/{name}",
            f"file://evil{out}/{name}",
            f"{wh}/../outside/{name}",
            f"file://{wh}/ns/../../outside/{name}",
            f"file://{wh}/link/{name}",
            f"file://{wh}/link/../outside/{name}",
            name,
            f"../outside/{name}",
            f"{root}/cwd/{name}",
            f"s3://bucket/{name}",
        ]


@contextlib.contextmanager
def make_setup(root: Path, allow_external: bool = False) -> Iterator[Setup]:
    outside = root / "outside"
    outside.mkdir()
    (outside / "victim.metadata.json").write_text("{}")
    (outside / "data.parquet").write_bytes(b"PAR1")
    cwd = root / "cwd"
    cwd.mkdir()
    (cwd / "keep.txt").write_text("x")
    catalog = sqlite_catalog(root)
    wh = local(catalog.properties["warehouse"])
    wh.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, wh / "link")
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings(allow_external_locations=allow_external))
    old = os.getcwd()
    os.chdir(cwd)  # relative locations resolve here: a sentinel folder
    try:
        with TestClient(app, raise_server_exceptions=False) as client:
            assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
            yield Setup(client, catalog, root, catalog.properties["warehouse"], outside, cwd)
    finally:
        os.chdir(old)
        catalog.close()


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    with make_setup(tmp_path) as made:
        yield made


def forbidden(response: Any) -> str:
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["type"] == "ForbiddenException", error
    assert "outside the catalog's warehouse" in error["message"]
    return str(error["message"])


# ----------------------------------------------------------------------------- one test per attack


def test_a_view_write_metadata_path_outside_is_refused_on_create(setup: Setup) -> None:
    before = setup.sentinels()
    for i, place in enumerate(setup.hostile()):
        body = view_body(f"v{i}", properties={"write.metadata.path": place})
        message = forbidden(setup.client.post("/v1/namespaces/ns/views", json=body))
        assert message.startswith("View write.metadata.path ")
        assert not setup.catalog.view_exists(f"ns.v{i}")
    assert setup.sentinels() == before


def test_a_view_write_metadata_path_outside_is_refused_in_a_commit(setup: Setup) -> None:
    assert setup.client.post("/v1/namespaces/ns/views", json=view_body("v")).status_code == 200
    before = setup.sentinels()
    for place in setup.hostile():
        change = {"updates": [{"action": "set-properties", "updates": {"write.metadata.path": place}}]}
        forbidden(setup.client.post("/v1/namespaces/ns/views/v", json=change))
    assert setup.sentinels() == before
    assert "write.metadata.path" not in setup.catalog.load_view("ns.v").properties
    # inside the warehouse it is allowed
    inside = setup.warehouse + "/elsewhere"
    change = {"updates": [{"action": "set-properties", "updates": {"write.metadata.path": inside}}]}
    answer = setup.client.post("/v1/namespaces/ns/views/v", json=change)
    assert answer.status_code == 200, answer.text
    assert answer.json()["metadata-location"].startswith(inside + "/")


@pytest.mark.parametrize("field", ["location", "write.metadata.path"])
def test_a_registered_view_file_cannot_point_outside(setup: Setup, field: str) -> None:
    doc = setup.client.post("/v1/namespaces/ns/views", json=view_body("v")).json()["metadata"]
    if field == "location":
        doc["location"] = str(setup.outside)
    else:
        doc["properties"] = {field: f"file://{setup.outside}"}
    crafted = setup.wh / "crafted.metadata.json"
    crafted.write_text(json.dumps(doc))
    before = setup.sentinels()
    body = {"name": "crafted", "metadata-location": f"file://{crafted}"}
    forbidden(setup.client.post("/v1/namespaces/ns/register-view", json=body))
    assert not setup.catalog.view_exists("ns.crafted")
    assert setup.sentinels() == before


def test_a_query_fragment_or_parameter_cannot_name_another_file_in_the_warehouse(setup: Setup) -> None:
    # found by a blind attack: file:///wh/victim.metadata.json? was inside by its path, and the new
    # metadata file <that>/00001-....metadata.json was written over the victim (urlparse ends the path
    # at ?); so were a table's metadata and the catalog database, and a purge deleted the victim.
    # (";" is not among them: every FileIO keeps it in the name, so it names a new folder.)
    catalog_db = setup.wh / "catalog.db"
    catalog_db.write_bytes(b"SQLite format 3\x00 the catalog")
    victim = setup.client.post("/v1/namespaces/ns/views", json=view_body("victim")).json()
    victim_file = victim["metadata-location"]
    inside = snapshot(setup.wh)
    targets = [victim_file, "file://" + str(catalog_db), setup.warehouse]
    spellings = [t + suffix for t in targets for suffix in ("?", "#", "?x=1", "#../../x")]
    spellings += [f"{setup.warehouse}/x?y=1", f"{setup.wh}/x#y", f"{setup.wh}/a?/b"]
    for i, place in enumerate(spellings):
        body = view_body(f"a{i}", properties={"write.metadata.path": place})
        forbidden(setup.client.post("/v1/namespaces/ns/views", json=body))
        forbidden(setup.client.post("/v1/namespaces/ns/views", json=view_body(f"b{i}", location=place)))
        change = {"updates": [{"action": "set-properties", "updates": {"write.metadata.path": place}}]}
        forbidden(setup.client.post("/v1/namespaces/ns/views/victim", json=change))
        forbidden(
            setup.client.post(
                "/v1/namespaces/ns/views/victim",
                json={"updates": [{"action": "set-location", "location": place}]},
            )
        )
        assert setup.client.post(
            "/v1/namespaces/ns/tables", json=table_body(f"t{i}", location=place)
        ).status_code in (400, 403)
    assert snapshot(setup.wh) == inside  # nothing in the warehouse was written over or deleted
    assert setup.client.get("/v1/namespaces/ns/views/victim").json()["metadata"] == victim["metadata"]


@pytest.mark.parametrize("field", ["location", "write.metadata.path", "write.data.path"])
def test_a_registered_table_file_cannot_point_outside(setup: Setup, field: str) -> None:
    created = setup.client.post("/v1/namespaces/ns/tables", json=table_body("t"))
    assert created.status_code == 200, created.text
    doc = json.loads(local(created.json()["metadata-location"]).read_text())
    if field == "location":
        doc["location"] = f"file://{setup.outside}/t"
    else:
        doc["properties"] = {field: f"file://{setup.outside}/t"}
    crafted = setup.wh / "crafted.metadata.json"
    crafted.write_text(json.dumps(doc))
    body = {"name": "crafted", "metadata-location": f"file://{crafted}"}
    forbidden(setup.client.post("/v1/namespaces/ns/register", json=body))
    assert not setup.catalog.table_exists("ns.crafted")


def test_a_purge_deletes_nothing_outside_the_warehouse(setup: Setup) -> None:
    created = setup.client.post("/v1/namespaces/ns/tables", json=table_body("t"))
    assert created.status_code == 200, created.text
    doc = json.loads(local(created.json()["metadata-location"]).read_text())
    victims = [
        str(setup.outside / "victim.metadata.json"),
        f"file://{setup.outside}/data.parquet",
        f"{setup.warehouse}/../outside/victim.metadata.json",
        f"{setup.warehouse}/link/data.parquet",
        f"{setup.root}/cwd/keep.txt",
    ]
    inside = setup.wh / "ns" / "old.metadata.json"
    inside.write_text("{}")
    doc["metadata-log"] = [{"timestamp-ms": 1, "metadata-file": v} for v in [*victims, f"file://{inside}"]]
    crafted = setup.wh / "ns" / "crafted.metadata.json"
    crafted.write_text(json.dumps(doc))
    body = {"name": "crafted", "metadata-location": f"file://{crafted}"}
    assert setup.client.post("/v1/namespaces/ns/register", json=body).status_code == 200
    before = setup.sentinels()
    answer = setup.client.delete("/v1/namespaces/ns/tables/crafted", params={"purgeRequested": "true"})
    assert answer.status_code == 204, answer.text
    assert setup.sentinels() == before
    assert not crafted.exists() and not inside.exists()  # what is inside is purged
    assert not setup.catalog.table_exists("ns.crafted")


def test_the_server_switch_sets_the_catalog_property(tmp_path: Path) -> None:
    with make_setup(tmp_path, allow_external=True) as setup:
        assert setup.catalog.properties[files.ALLOW_EXTERNAL_LOCATIONS] == "true"
        body = view_body("v", properties={"write.metadata.path": f"file://{setup.outside}/m"})
        answer = setup.client.post("/v1/namespaces/ns/views", json=body)
        assert answer.status_code == 200, answer.text
        assert (setup.outside / "m").is_dir()


def test_without_the_switch_a_catalog_property_does_not_open_the_server(tmp_path: Path) -> None:
    catalog = sqlite_catalog(tmp_path, **{files.ALLOW_EXTERNAL_LOCATIONS: "true"})
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings())
    with TestClient(app, raise_server_exceptions=False) as client:
        assert catalog.properties[files.ALLOW_EXTERNAL_LOCATIONS] == "false"
        assert client.post("/v1/namespaces", json={"namespace": ["ns"]}).status_code == 200
        body = view_body("v", properties={"write.metadata.path": f"file://{tmp_path}/outside/m"})
        forbidden(client.post("/v1/namespaces/ns/views", json=body))
    catalog.close()
    assert not (tmp_path / "outside").exists()


def test_an_over_long_location_in_the_warehouse_is_a_400(setup: Setup) -> None:
    long = setup.warehouse + "/" + "x" * 5000
    for answer in (
        setup.client.post("/v1/namespaces/ns/views", json=view_body("v", location=long)),
        setup.client.post("/v1/namespaces/ns/tables", json=table_body("t", location=long)),
    ):
        assert answer.status_code == 400, answer.text
        assert "longer than the file system allows" in answer.json()["error"]["message"]


# ----------------------------------------------------------------------------- the sweep

SEGMENT = st.text(alphabet="abc.%2eE/\\\x00-_~ü", min_size=0, max_size=8)
KINDS = [
    "create-view-location",
    "create-view-property",
    "commit-view-property",
    "commit-view-location",
    "register-view",
    "create-table-location",
    "create-table-property",
    "commit-table-property",
    "register-table-and-purge",
    "create-view-name",
]


@st.composite
def hostile_locations(draw: st.DrawFn, setup: Setup) -> str:
    base = draw(st.sampled_from([*setup.hostile(), setup.warehouse, str(setup.wh), "file:" + str(setup.wh)]))
    tail = draw(st.lists(SEGMENT, max_size=3))
    location = "/".join([base, *tail]) if tail else base
    if draw(st.booleans()):
        location = location.replace("..", draw(st.sampled_from(["%2e%2e", "%2E%2E", ".%2e", ".."])))
    if draw(st.integers(0, 5)) == 0:
        location += "/" + "x" * draw(st.sampled_from([255, 300, 5000]))
    return location


def test_hostile_requests_write_and_delete_nothing_outside(tmp_path: Path) -> None:
    with make_setup(tmp_path) as setup:
        assert setup.client.post("/v1/namespaces/ns/views", json=view_body("v")).status_code == 200
        table = setup.client.post("/v1/namespaces/ns/tables", json=table_body("t"))
        assert table.status_code == 200, table.text
        table_doc = json.loads(local(table.json()["metadata-location"]).read_text())
        view_doc = setup.client.get("/v1/namespaces/ns/views/v").json()["metadata"]
        counter = itertools.count()
        before = setup.sentinels()
        answers: list[tuple[int, str]] = []

        def note(response: Any) -> None:
            answers.append((response.status_code, response.text))

        @settings(
            max_examples=60,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(
            kind=st.sampled_from(KINDS),
            location=hostile_locations(setup),
            key=st.sampled_from(LOCATION_KEYS),
            victim=st.sampled_from(range(13)),
            name=st.one_of(st.sampled_from(["../x", "..", "a/b", "x\x00", "", "ok"]), SEGMENT),
        )
        def request(kind: str, location: str, key: str, victim: int, name: str) -> None:
            n = next(counter)
            first = len(answers)
            client = setup.client
            if kind == "create-view-location":
                answer = client.post("/v1/namespaces/ns/views", json=view_body(f"v{n}", location=location))
            elif kind == "create-view-property":
                answer = client.post(
                    "/v1/namespaces/ns/views", json=view_body(f"v{n}", properties={key: location})
                )
            elif kind == "commit-view-property":
                change = {"updates": [{"action": "set-properties", "updates": {key: location}}]}
                answer = client.post("/v1/namespaces/ns/views/v", json=change)
                if answer.status_code == 200:  # undo, so the next commits still write inside
                    undo = {"updates": [{"action": "remove-properties", "removals": [key]}]}
                    note(client.post("/v1/namespaces/ns/views/v", json=undo))
            elif kind == "commit-view-location":
                change = {"updates": [{"action": "set-location", "location": location}]}
                answer = client.post("/v1/namespaces/ns/views/v", json=change)
                if answer.status_code == 200:
                    back = {"updates": [{"action": "set-location", "location": view_doc["location"]}]}
                    note(client.post("/v1/namespaces/ns/views/v", json=back))
            elif kind == "register-view":
                doc = dict(view_doc)
                if key == "write.metadata.path":
                    doc["properties"] = {key: location}
                else:
                    doc["location"] = location
                crafted = setup.wh / f"crafted{n}.metadata.json"
                crafted.write_text(json.dumps(doc))
                body = {"name": f"r{n}", "metadata-location": f"file://{crafted}"}
                answer = client.post("/v1/namespaces/ns/register-view", json=body)
                if answer.status_code == 200:  # then a commit to it must still stay inside
                    change = {"updates": [{"action": "set-properties", "updates": {"k": "v"}}]}
                    note(client.post(f"/v1/namespaces/ns/views/r{n}", json=change))
            elif kind == "create-table-location":
                answer = client.post("/v1/namespaces/ns/tables", json=table_body(f"t{n}", location=location))
            elif kind == "create-table-property":
                answer = client.post(
                    "/v1/namespaces/ns/tables", json=table_body(f"t{n}", properties={key: location})
                )
            elif kind == "commit-table-property":
                change = {
                    "requirements": [],
                    "updates": [{"action": "set-properties", "updates": {key: location}}],
                }
                answer = client.post("/v1/namespaces/ns/tables/t", json=change)
                if answer.status_code == 200:
                    undo = {
                        "requirements": [],
                        "updates": [{"action": "remove-properties", "removals": [key]}],
                    }
                    note(client.post("/v1/namespaces/ns/tables/t", json=undo))
            elif kind == "register-table-and-purge":
                doc = copy.deepcopy(table_doc)
                # the location drawn, and an existing file outside spelled one of the hostile ways
                existing = setup.hostile("victim.metadata.json")[victim]
                if existing == "victim.metadata.json":
                    existing = "keep.txt"  # relative: the working directory's sentinel
                log = [location, existing]
                doc["metadata-log"] = [{"timestamp-ms": 1, "metadata-file": entry} for entry in log]
                crafted = setup.wh / "ns" / f"crafted{n}.metadata.json"
                crafted.write_text(json.dumps(doc))
                body = {"name": f"p{n}", "metadata-location": f"file://{crafted}"}
                answer = client.post("/v1/namespaces/ns/register", json=body)
                if answer.status_code == 200:
                    purge = client.delete(f"/v1/namespaces/ns/tables/p{n}", params={"purgeRequested": "true"})
                    note(purge)
            else:
                answer = client.post("/v1/namespaces/ns/views", json=view_body(name, location=location))
            note(answer)
            failed = [text for status, text in answers[first:] if status >= 500]
            assert not failed, (kind, location, key, name, failed)
            assert setup.sentinels() == before, (kind, location, key, name)

        request()
        # the sweep reached both answers: some requests were refused, and some were not
        statuses = {status for status, _ in answers}
        assert 403 in statuses and any(200 <= s < 300 for s in statuses), statuses
