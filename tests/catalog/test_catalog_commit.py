"""``Catalog.commit_view``: every change to a view is requirements plus updates, applied to the
catalog's current metadata by the one commit loop (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from catalog_support import OTHER_SCHEMA, SCHEMA, CatalogEnv, file_path, metadata_files

from iceview.catalog.commit import commit_with_retries
from iceview.catalog.properties import RetryPolicy
from iceview.catalog.sql import SqlCatalog
from iceview.errors import (
    CommitFailedError,
    InvalidUpdateError,
    NoSuchViewError,
    ViewAlreadyExistsError,
)
from iceview.files import read_metadata
from iceview.spec import (
    AddSchema,
    AddViewVersion,
    AssertCreate,
    AssertCurrentViewVersion,
    AssertViewUUID,
    AssignUUID,
    RemoveProperties,
    SetCurrentViewVersion,
    SetLocation,
    SetProperties,
    SQLRepresentation,
    UpgradeFormatVersion,
    ViewVersion,
    validate,
)
from iceview.view import ViewDefinition
from iceview.view.changes import replace_change

UUID = "2f2e6b5e-2c0b-4f3c-9a67-4c1b0e4f6a10"


def _version(version_id: int, sql: str, schema_id: int = -1) -> ViewVersion:
    return ViewVersion(
        version_id=version_id,
        timestamp_ms=1_700_000_000_000 + version_id,
        schema_id=schema_id,
        summary={"engine-name": "test"},
        representations=(SQLRepresentation(sql, "spark"),),
        default_namespace=("ns",),
    )


def _files(env: CatalogEnv) -> list[str]:
    return metadata_files(env.warehouse / "ns" / "v" / "metadata")


def _definition(sql: str) -> ViewDefinition:
    return ViewDefinition.of(schema=SCHEMA, queries={"spark": sql}, default_namespace="ns")


def _record_reads(catalog: SqlCatalog) -> list[str]:
    """The metadata files the catalog's FileIO opens for reading from now on."""
    reads: list[str] = []
    io = catalog.io
    original = io.new_input

    def counting(location: str):  # type: ignore[no-untyped-def]
        reads.append(location)
        return original(location)

    io.new_input = counting  # type: ignore[method-assign]
    return reads


def test_every_update_type(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    location = f"{env.warehouse_uri}/ns/v"
    view = catalog.commit_view(
        "ns.v",
        [AssertCreate()],
        [
            AssignUUID(UUID),
            UpgradeFormatVersion(1),
            SetProperties({"owner": "a", "comment": "c"}),
            SetLocation(location),
            AddSchema(SCHEMA),
            AddViewVersion(_version(1, "select 1")),
            SetCurrentViewVersion(-1),
        ],
    )
    assert view.metadata.uuid == UUID
    assert view.current_version.version_id == 1 and view.current_version.schema_id == 0
    assert view.properties == {"owner": "a", "comment": "c"}

    view = catalog.commit_view(
        "ns.v",
        [AssertViewUUID(UUID)],
        [
            RemoveProperties(("comment",)),
            SetLocation(location + "2"),
            AddSchema(OTHER_SCHEMA),
            AddViewVersion(_version(2, "select 2")),
            SetCurrentViewVersion(-1),
        ],
    )
    assert view.properties == {"owner": "a"}
    assert view.location == location + "2"
    assert view.current_version.version_id == 2 and view.current_version.schema_id == 1
    view = catalog.commit_view("ns.v", [AssertViewUUID(UUID.upper())], [SetCurrentViewVersion(1)])
    assert view.current_version.version_id == 1

    loaded = catalog.load_view("ns.v").metadata
    assert [v.version_id for v in loaded.versions] == [1, 2]
    assert [e.version_id for e in loaded.version_log] == [1, 2, 1]
    assert validate(loaded) == []
    # the file the catalog points at is what was committed, and it reads back the same
    assert loaded.metadata_file_location is not None
    assert read_metadata(loaded.metadata_file_location).to_json() == loaded.to_json()


def test_stale_view_uuid_fails_and_writes_nothing(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("select 1"))
    before = (view.metadata_location, _files(env))
    stale = str(uuid.uuid4())
    with pytest.raises(CommitFailedError) as info:
        catalog.commit_view("ns.v", [AssertViewUUID(stale)], [SetProperties({"a": "b"})])
    assert str(info.value) == (
        f"Requirement failed: view UUID does not match: expected {view.metadata.uuid} != {stale}"
    )
    assert (catalog.load_view("ns.v").metadata_location, _files(env)) == before


def test_failed_requirement_is_not_retried(
    catalog: SqlCatalog, env: CatalogEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("select 1"))
    waits: list[int] = []
    monkeypatch.setattr(RetryPolicy, "delay_ms", lambda self, attempt: waits.append(attempt) or 0)
    with pytest.raises(CommitFailedError, match="current view version changed: expected 7 != 1"):
        catalog.commit_view("ns.v", [AssertCurrentViewVersion(7)], [SetProperties({"a": "b"})])
    assert waits == []
    assert catalog.load_view("ns.v").metadata_location == view.metadata_location


def test_racing_writers_with_last_added_references_both_land(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    catalog.create_view("ns.v", _definition("select 1"))
    one = catalog.load_view("ns.v")
    two = catalog.load_view("ns.v")
    base = one.metadata
    # both changes are made against version 1: AddViewVersion(id 2, schema -1), SetCurrent(-1)
    first = replace_change(base, _definition("select 'one'"))
    second = replace_change(
        two.metadata,
        ViewDefinition.of(schema=OTHER_SCHEMA, queries={"spark": "select 2"}, default_namespace="ns"),
    )
    assert [u.action for u in second.updates] == [
        "add-schema",
        "add-view-version",
        "set-current-view-version",
    ]
    assert second.updates[1].view_version.version_id == 2  # type: ignore[union-attr]
    assert second.updates[1].view_version.schema_id == -1  # type: ignore[union-attr]

    one.commit(first)
    # two's handle still holds version 1: its compare-and-swap fails, it refreshes and re-applies
    two.commit(second)
    metadata = catalog.load_view("ns.v").metadata
    by_id = {v.version_id: v for v in metadata.versions}
    assert sorted(by_id) == [1, 2, 3]
    assert by_id[2].representations[0].sql == "select 'one'"  # type: ignore[union-attr]
    assert by_id[3].representations[0].sql == "select 2"  # type: ignore[union-attr]
    assert by_id[3].schema_id == 1 and metadata.schema.fields == OTHER_SCHEMA.fields
    assert metadata.current_version_id == 3
    assert [e.version_id for e in metadata.version_log] == [1, 2, 3]
    assert two.metadata.current_version_id == 3
    assert validate(metadata) == []
    # the failed attempt left no orphan: one file per commit
    assert len(_files(env)) == 3


def test_racing_writers_adding_the_same_new_schema_both_land(catalog: SqlCatalog, env: CatalogEnv) -> None:
    # issue 32: the second writer re-applies add-schema (now reused) + add-view-version(schema -1)
    catalog.create_namespace("ns")
    catalog.create_view("ns.v", _definition("select 1"))
    one = catalog.load_view("ns.v")
    two = catalog.load_view("ns.v")
    new = ViewDefinition.of(schema=OTHER_SCHEMA, queries={"spark": "select 'one'"}, default_namespace="ns")
    first = replace_change(one.metadata, new)
    second = replace_change(
        two.metadata,
        ViewDefinition.of(schema=OTHER_SCHEMA, queries={"spark": "select 'two'"}, default_namespace="ns"),
    )
    one.commit(first)
    two.commit(second)
    metadata = catalog.load_view("ns.v").metadata
    assert metadata.schema_ids == (0, 1)
    assert [(v.version_id, v.schema_id) for v in metadata.versions] == [(1, 0), (2, 1), (3, 1)]
    assert metadata.current_version.representations[0].sql == "select 'two'"  # type: ignore[union-attr]
    assert validate(metadata) == []
    assert len(_files(env)) == 3


def test_change_that_only_a_concurrent_commit_breaks_is_a_conflict(
    catalog: SqlCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a rollback to version 1, made while it existed; a concurrent replace expired it before the swap
    catalog.create_namespace("ns")
    catalog.create_view("ns.v", _definition("select 1"), properties={"version.history.num-entries": "2"})
    catalog.replace_view("ns.v", _definition("select 2"))
    stale = catalog.load_view("ns.v").metadata
    catalog.replace_view("ns.v", _definition("select 3"))  # expires version 1
    fresh = catalog.load_view("ns.v").metadata
    assert 1 not in fresh.version_ids
    swaps: list[int] = []

    def swap(base: object, new: object, updates: object) -> object:
        swaps.append(1)
        raise CommitFailedError("the pointer moved")  # what the catalog's compare-and-swap says

    monkeypatch.setattr(RetryPolicy, "delay_ms", lambda self, attempt: 0)
    rollback = [SetCurrentViewVersion(1)]
    with pytest.raises(CommitFailedError, match="a concurrent change to the view conflicts") as raised:
        commit_with_retries(stale, lambda: fresh, [AssertViewUUID(stale.uuid)], rollback, swap)  # type: ignore[arg-type]
    assert "Cannot set current version to unknown version: 1" in str(raised.value)
    assert not isinstance(raised.value, InvalidUpdateError)
    assert len(swaps) == 1  # the stale base swapped once; the refreshed ones never reached a swap
    # the same change on the caller's own base is the caller's error
    with pytest.raises(InvalidUpdateError, match="unknown version: 1"):
        catalog.commit_view("ns.v", [], rollback)


def test_stale_change_by_identifier_applies_to_the_fresh_base(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("select 1"))
    stale = view.metadata
    catalog.replace_view("ns.v", _definition("select 2"))
    change = replace_change(stale, _definition("select 3"))
    landed = catalog.commit_view("ns.v", change.requirements, change.updates)
    assert [v.version_id for v in landed.versions] == [1, 2, 3]
    assert landed.current_version.representations[0].sql == "select 3"  # type: ignore[union-attr]


def test_bad_update_is_typed_and_writes_nothing(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("select 1"))
    before = (view.metadata_location, _files(env))
    requirement = AssertViewUUID(view.metadata.uuid)
    with pytest.raises(InvalidUpdateError) as info:
        catalog.commit_view("ns.v", [requirement], [SetProperties({"a": "b"}), SetCurrentViewVersion(99)])
    assert (info.value.action, info.value.index) == ("set-current-view-version", 1)
    assert (
        str(info.value)
        == "Cannot set current version to unknown version: 99 (update 1: set-current-view-version)"
    )
    with pytest.raises(InvalidUpdateError, match=r"unknown schema: 4 \(update 0: add-view-version\)"):
        catalog.commit_view("ns.v", [requirement], [AddViewVersion(_version(2, "select 2", schema_id=4))])
    assert (catalog.load_view("ns.v").metadata_location, _files(env)) == before


def test_empty_change_commits_nothing(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("select 1"))
    before = (view.metadata_location, _files(env))
    catalog.commit_view("ns.v", [AssertViewUUID(view.metadata.uuid)], [])
    catalog.commit_view("ns.v", [], [SetCurrentViewVersion(1), SetLocation(view.location)])
    assert (catalog.load_view("ns.v").metadata_location, _files(env)) == before


def test_create_and_missing_views(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    updates = [
        SetLocation(f"{env.warehouse_uri}/ns/v"),
        AddSchema(SCHEMA),
        AddViewVersion(_version(1, "select 1")),
        SetCurrentViewVersion(-1),
    ]
    with pytest.raises(NoSuchViewError, match=r"View does not exist: ns\.v"):
        catalog.commit_view("ns.v", [], updates)
    catalog.commit_view("ns.v", [AssertCreate()], updates)
    with pytest.raises(ViewAlreadyExistsError, match=r"View already exists: ns\.v"):
        catalog.commit_view("ns.v", [AssertCreate()], updates)
    assert len(_files(env)) == 1


def test_a_handle_commit_reads_no_file_twice(catalog: SqlCatalog, tmp_path: Path) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("select 1"))
    reads = _record_reads(catalog)
    view.update_properties().set("a", "b").commit()
    view.set_current_version(1)
    assert reads == []
    assert file_path(str(view.metadata_location)).endswith(".metadata.json")


def test_add_dialects_reports_every_refused_dialect(catalog: SqlCatalog, env: CatalogEnv) -> None:
    from iceview.errors import DialectsRefusedError
    from iceview.sql.translate import UnsafeTranslationError

    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("SELECT id FROM ns.t WHERE data RLIKE 'a.*'"))
    before = (view.metadata_location, _files(env))
    with pytest.raises(DialectsRefusedError) as info:
        view.add_dialects(["trino", "duckdb"])
    assert list(info.value.errors) == ["trino", "duckdb"]
    for error in info.value.errors.values():
        assert isinstance(error, UnsafeTranslationError) and "regex" in error.codes
    assert str(info.value).startswith("Cannot translate spark SQL to trino, duckdb: trino: ")
    with pytest.raises(UnsafeTranslationError):
        view.add_dialects(["duckdb"])
    assert (catalog.load_view("ns.v").metadata_location, _files(env)) == before


def test_add_dialects_never_commits_stale_translations(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("SELECT 1 AS x"))
    from iceview.view.changes import add_version_change

    stale = view.metadata
    catalog.replace_view("ns.v", _definition("SELECT 2 AS x"))
    change = add_version_change(
        stale, (*stale.current_version.representations, SQLRepresentation("SELECT 1 AS x", "duckdb")), {}
    )
    with pytest.raises(CommitFailedError, match="current view version changed: expected 1 != 2"):
        catalog.commit_view("ns.v", change.requirements, change.updates)
    assert catalog.load_view("ns.v").current_version.version_id == 2
    view.refresh().add_dialects(["duckdb"])
    current = catalog.load_view("ns.v").current_version
    assert [r.dialect for r in current.representations] == ["spark", "duckdb"]  # type: ignore[union-attr]
    assert current.representations[1].sql == "SELECT 2 AS x"  # type: ignore[union-attr]


def test_create_and_replace_read_the_current_file_once(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    reads = _record_reads(catalog)
    catalog.create_view("ns.v", _definition("select 1"))
    assert reads == []
    catalog.replace_view("ns.v", _definition("select 2"))
    assert len(reads) == 1


def test_replace_version_takes_a_definition(catalog: SqlCatalog) -> None:
    from iceview.errors import InvalidArgumentError

    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", _definition("select 1"))
    view.replace_version(_definition("select 2"), properties={"owner": "me"})
    assert view.current_version.representations[0].sql == "select 2"  # type: ignore[union-attr]
    assert view.properties["owner"] == "me"
    view.replace_version(schema=SCHEMA, queries={"spark": "select 3"}, default_namespace="ns")
    assert [v.version_id for v in view.versions] == [1, 2, 3]
    with pytest.raises(InvalidArgumentError, match="replace_version does not translate"):
        view.replace_version(_definition("select 4"), dialects=["duckdb"])
    assert catalog.load_view("ns.v").current_version.version_id == 3
