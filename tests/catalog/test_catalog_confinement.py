"""The warehouse confinement rule through the SQL catalog's Python API (the server's side is
tests/server/security/test_confinement.py): ``iceview.files.check_in_warehouse`` and every place
the catalog writes or deletes a file: a view's location and ``write.metadata.path`` on create and in
a set-properties commit, the location and ``write.metadata.path`` inside a registered file, a drop,
a table purge (``iceview.catalog.tables.purge_table``) and orphan removal
(``iceview.catalog.orphans.metadata_orphans``)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from catalog_support import SCHEMA

from iceview import files, localfs
from iceview.catalog import SqlCatalog, load_catalog
from iceview.catalog.interface import close_table_catalog
from iceview.catalog.orphans import metadata_orphans
from iceview.catalog.tables import purge_table
from iceview.errors import InvalidArgumentError, LocationOutsideWarehouseError


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder``: (size, mtime in ns); symlinks not followed."""
    found: dict[str, tuple[int, int]] = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            info = os.lstat(os.path.join(root, name))
            found[os.path.relpath(os.path.join(root, name), folder)] = (info.st_size, info.st_mtime_ns)
    return found


def open_catalog(tmp_path: Path, **props: str) -> SqlCatalog:
    catalog = load_catalog(
        "conf", type="sql", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{tmp_path}/wh", **props
    )
    assert isinstance(catalog, SqlCatalog)
    return catalog


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.metadata.json").write_text("{}")
    return folder


@pytest.fixture
def catalog(tmp_path: Path, outside: Path) -> Iterator[SqlCatalog]:
    (tmp_path / "wh").mkdir()
    os.symlink(outside, tmp_path / "wh" / "link")
    c = open_catalog(tmp_path)
    c.create_namespace("ns")
    yield c
    c.close()


def create(catalog: SqlCatalog, ident: str = "ns.v", **kw: Any) -> Any:
    kw.setdefault("schema", SCHEMA)
    kw.setdefault("queries", {"spark": "SELECT 1"})
    kw.setdefault("default_namespace", ("ns",))
    return catalog.create_view(ident, **kw)


def hostile(tmp_path: Path) -> list[str]:
    """Spellings of places outside ``<tmp_path>/wh`` (the working directory is ``tmp_path``)."""
    out = tmp_path / "outside"
    return [
        str(out / "m"),
        f"file:{out}/m",
        f"file://{out}/m",
        f"file://localhost{out}/m",
        f"file://evil{out}/m",
        f"file://{tmp_path}/wh/../outside/m",
        f"file://{tmp_path}/wh/link/m",
        f"file://{tmp_path}/wh/link/../outside/m",
        "outside/m",
        "wh/../outside/m",
        f"file://{tmp_path}/wh/ns/../../outside/m",
        "s3://bucket/m",
    ]


# ----------------------------------------------------------------------------- the rule


def test_the_rule_normalises_every_spelling(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "wh").mkdir()
    os.symlink(outside, tmp_path / "wh" / "link")
    monkeypatch.chdir(tmp_path)
    warehouse = f"file://{tmp_path}/wh"
    for location in [*hostile(tmp_path), f"{tmp_path}/wh\x00/x", ""]:
        with pytest.raises(LocationOutsideWarehouseError) as raised:
            files.check_in_warehouse(location, warehouse, "view location")
        assert raised.value.role == "view location" and raised.value.location == location
        assert str(raised.value).startswith("View location ") and "outside the catalog's warehouse" in str(
            raised.value
        )
    for location in (
        f"{tmp_path}/wh/ns/v",
        f"file:{tmp_path}/wh/ns/v",
        f"file://{tmp_path}/wh/ns/v",
        f"file://{tmp_path}/wh",
        "wh/ns/v",
        f"{tmp_path}/wh/a/../b",
        f"{tmp_path}/wh/%2e%2e/x",  # no FileIO unquotes a local path: a folder named %2e%2e
    ):
        assert files.check_in_warehouse(location, warehouse, "view location") == location
    assert files.check_in_warehouse(str(outside), None, "view location") == str(outside)
    assert isinstance(LocationOutsideWarehouseError("r", "l", "w"), InvalidArgumentError)


def test_object_store_locations_compare_scheme_bucket_and_key() -> None:
    inside = ["s3://b/wh/ns/v", "s3://b/wh", "s3://b/wh/x%2Fy"]
    outside = ["s3://b/wh/../x", "s3://b/wh/%2e%2e/x", "s3://b/whx/v", "s3://c/wh/v", "s3a://b/wh/v",
               "gs://b/wh/v", "s3://b/wh/v?x=1", "s3://b/wh/v#f", "/wh/v", "file:///wh/v"]  # fmt: skip
    for location in inside:
        files.check_in_warehouse(location, "s3://b/wh", "table location")
    for location in outside:
        with pytest.raises(LocationOutsideWarehouseError):
            files.check_in_warehouse(location, "s3://b/wh", "table location")


def test_confinement_root_follows_the_catalog_properties() -> None:
    assert files.confinement_root({"warehouse": "s3://b/wh"}) == "s3://b/wh"
    assert files.confinement_root({"warehouse": "s3://b/wh", files.ALLOW_EXTERNAL_LOCATIONS: "TRUE"}) is None
    assert files.confinement_root({}) is None  # no warehouse: nothing to confine to, as before
    assert files.is_location_property("write.metadata.path") and files.is_location_property(
        "write.x.location"
    )
    assert not files.is_location_property("comment")


# ----------------------------------------------------------------------------- views


@pytest.mark.parametrize("key", ["location", "write.metadata.path"])
def test_a_view_cannot_be_created_to_write_outside(
    catalog: SqlCatalog, tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    monkeypatch.chdir(tmp_path)
    before = snapshot(outside)
    for i, place in enumerate(hostile(tmp_path)):
        kw: dict[str, Any] = {"location": place} if key == "location" else {"properties": {key: place}}
        with pytest.raises(LocationOutsideWarehouseError, match="outside the catalog's warehouse"):
            create(catalog, f"ns.v{i}", **kw)
        assert not catalog.view_exists(f"ns.v{i}")
    assert snapshot(outside) == before
    assert not (tmp_path / "outside" / "m").exists()


def test_set_properties_cannot_move_metadata_outside(
    catalog: SqlCatalog, tmp_path: Path, outside: Path
) -> None:
    view = create(catalog)
    before = snapshot(outside)
    for place in hostile(tmp_path):
        with pytest.raises(LocationOutsideWarehouseError) as raised:
            view.update_properties().set("write.metadata.path", place).commit()
        assert raised.value.role == "view write.metadata.path"
    with pytest.raises(LocationOutsideWarehouseError):
        view.update_location(str(outside))
    assert snapshot(outside) == before
    inside = f"file://{tmp_path}/wh/elsewhere"
    moved = view.update_properties().set("write.metadata.path", inside).commit()
    assert moved.metadata_location.startswith(inside + "/")


@pytest.mark.parametrize("field", ["location", "write.metadata.path"])
def test_a_registered_file_cannot_point_outside(
    catalog: SqlCatalog, tmp_path: Path, outside: Path, field: str
) -> None:
    view = create(catalog)
    doc = view.metadata.to_dict()
    if field == "location":
        doc["location"] = str(outside)
    else:
        doc["properties"] = {**doc.get("properties", {}), field: f"file://{outside}"}
    crafted = tmp_path / "wh" / "ns" / "crafted.metadata.json"
    crafted.write_text(json.dumps(doc))
    before = snapshot(outside)
    with pytest.raises(LocationOutsideWarehouseError):
        catalog.register_view("ns.crafted", f"file://{crafted}")
    assert not catalog.view_exists("ns.crafted")
    # the registered file itself must be in the warehouse too (a drop deletes it)
    (outside / "r.metadata.json").write_text(json.dumps(view.metadata.to_dict()))
    with pytest.raises(LocationOutsideWarehouseError, match="Registered metadata file"):
        catalog.register_view("ns.r", str(outside / "r.metadata.json"))
    assert snapshot(outside) == {**before, "r.metadata.json": snapshot(outside)["r.metadata.json"]}


def test_allow_external_locations_relaxes_the_rule_and_a_drop_leaves_outside_files_alone(
    catalog: SqlCatalog, tmp_path: Path, outside: Path
) -> None:
    free = open_catalog(tmp_path, **{files.ALLOW_EXTERNAL_LOCATIONS: "true"})
    try:
        view = create(free, location=str(outside / "v"))
        assert view.metadata_location.startswith(str(outside / "v" / "metadata"))
    finally:
        free.close()
    written = Path(localfs.local_path(view.metadata_location))
    assert written.exists()
    assert catalog.drop_view("ns.v")  # the confined catalog drops the entry, not the file
    assert written.exists()


def test_without_a_warehouse_nothing_is_confined(tmp_path: Path, outside: Path) -> None:
    bare = load_catalog("bare", type="sql", uri=f"sqlite:///{tmp_path}/bare.db")
    try:
        view = create(bare, "v", default_namespace=(), location=str(outside / "v"))
        assert Path(localfs.local_path(view.metadata_location)).exists()
    finally:
        bare.close()


# ----------------------------------------------------------------------------- table purge


def test_purge_leaves_files_outside_the_warehouse(catalog: SqlCatalog, tmp_path: Path, outside: Path) -> None:
    tables = catalog.table_catalog()
    try:
        table = tables.create_table(("ns", "t"), pa.schema([("id", pa.int64())]))
        table.append(pa.table({"id": [1, 2]}))
        table = tables.load_table(("ns", "t"))
        doc = json.loads(Path(localfs.local_path(table.metadata_location)).read_text())
        victim = outside / "victim.metadata.json"
        spellings = [str(victim), f"file:{victim}", f"file://{tmp_path}/wh/../outside/victim.metadata.json",
                     f"file://{tmp_path}/wh/link/victim.metadata.json"]  # fmt: skip
        doc["metadata-log"] = [{"timestamp-ms": 1, "metadata-file": s} for s in spellings]
        crafted = tmp_path / "wh" / "ns" / "crafted.metadata.json"
        crafted.write_text(json.dumps(doc))
        tables.drop_table(("ns", "t"))
        tables.register_table(("ns", "crafted"), f"file://{crafted}")
        before = snapshot(outside)
        result = purge_table(tables, ("ns", "crafted"), catalog.warehouse_root)
        assert snapshot(outside) == before and victim.exists()
        assert sorted(location for location, _ in result.outside) == sorted(spellings)
        assert {role for _, role in result.outside} == {"metadata-log entry"}
        assert f"file://{crafted}" in result.deleted and not crafted.exists()
        assert any(path.endswith(".parquet") for path in result.deleted)
        assert not tables.table_exists(("ns", "crafted"))
    finally:
        close_table_catalog(tables)


# ----------------------------------------------------------------------------- orphans


def test_orphans_are_listed_and_old_ones_deleted_inside_the_warehouse(
    catalog: SqlCatalog, tmp_path: Path
) -> None:
    view = create(catalog)
    for i in range(3):
        view = view.update_properties().set("k", str(i)).commit()
    folder = Path(localfs.local_path(files.metadata_dir(view.location, view.properties)))
    current = Path(localfs.local_path(view.metadata_location))
    every = sorted(p.name for p in folder.iterdir())
    assert len(every) == 4
    # a file registered as another view is not an orphan; a foreign or broken file is never one
    catalog.register_view("ns.again", f"file://{folder / every[0]}")
    (folder / "99999-foreign.metadata.json").write_text(
        json.dumps({**view.metadata.to_dict(), "view-uuid": "00000000-0000-0000-0000-000000000000"})
    )
    (folder / "99998-broken.metadata.json").write_text("{")
    report = metadata_orphans(catalog, "ns.v")
    names = [Path(localfs.local_path(o.location)).name for o in report.orphans]
    # the current file and the previous pointer (the row's previous_metadata_location) stay
    assert names == [every[1]]
    assert current.name not in names and every[2] not in names
    assert sorted(Path(f).name for f in report.foreign) == [
        "99998-broken.metadata.json",
        "99999-foreign.metadata.json",
    ]
    # young files are kept, old ones deleted
    kept = metadata_orphans(catalog, "ns.v", delete=True)
    assert [o.kept_because for o in kept.orphans] == ["younger than the grace period"]
    assert (folder / every[1]).exists()
    later = time.time() + 2 * 3600
    done = metadata_orphans(catalog, "ns.v", delete=True, now=later)
    assert [o.deleted for o in done.orphans] == [True] and not (folder / every[1]).exists()
    assert (
        current.exists()
        and (folder / every[0]).exists()
        and (folder / "99999-foreign.metadata.json").exists()
    )
    assert catalog.load_view("ns.v").metadata_location == view.metadata_location


def test_orphans_outside_the_warehouse_are_not_deleted(
    catalog: SqlCatalog, tmp_path: Path, outside: Path
) -> None:
    free = open_catalog(tmp_path, **{files.ALLOW_EXTERNAL_LOCATIONS: "true"})
    try:
        view = create(free, location=str(outside / "v"))
        view.update_properties().set("k", "1").commit()
        view = free.load_view("ns.v").update_properties().set("k", "2").commit()
    finally:
        free.close()
    before = snapshot(outside)
    report = metadata_orphans(catalog, "ns.v", delete=True, older_than=timedelta(0))
    assert len(report.orphans) == 1
    assert [o.kept_because for o in report.orphans] == ["outside the warehouse"]
    assert snapshot(outside) == before


def test_a_local_location_with_a_query_or_fragment_is_outside(tmp_path: Path) -> None:
    # file:///wh/v.metadata.json?/00001-... is the file /wh/v.metadata.json to urlparse (and PyArrow)
    warehouse = f"file://{tmp_path}/wh"
    for location in (
        f"{warehouse}/ns/v.metadata.json?",
        f"{warehouse}/x#y",
        f"{tmp_path}/wh/a?/b",
        f"{warehouse}?",
    ):
        with pytest.raises(LocationOutsideWarehouseError):
            files.check_in_warehouse(location, warehouse, "metadata file")
    # ";" is kept in the name by every FileIO: a folder of its own, inside
    assert files.check_in_warehouse(f"{warehouse}/a;p/b", warehouse, "metadata file")


def test_the_catalog_never_writes_over_an_existing_metadata_file(
    catalog: SqlCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = create(catalog)
    existing = view.metadata_location
    before = files.read_metadata(existing).to_json()
    # a new file name that happens to be taken (a fresh uuid never is; a crafted location could be)
    monkeypatch.setattr(files, "new_metadata_location", lambda *a, **k: existing)
    with pytest.raises(InvalidArgumentError, match="Metadata file already exists"):
        view.update_properties().set("k", "v").commit()
    assert files.read_metadata(existing).to_json() == before
