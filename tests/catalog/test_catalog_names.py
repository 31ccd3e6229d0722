"""The maximum name length of the Python API (``iceview.identifiers``): a new view name or
namespace over the limit is :class:`InvalidNameError` (an :class:`InvalidIdentifierError`) before
anything is written, never a bare ``OSError``; names at the limit work down to the files; names
that already exist are still looked up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from catalog_support import SCHEMA

from iceview.catalog.sql import SqlCatalog
from iceview.errors import InvalidIdentifierError, InvalidNameError
from iceview.identifiers import (
    MAX_NAME_BYTES,
    MAX_NAME_LENGTH,
    name_problem,
    to_identifier,
    to_new_identifier,
    to_new_namespace,
)

TOO_LONG = ["x" * 10_000, "x" * (MAX_NAME_LENGTH + 1), "é" * (MAX_NAME_BYTES // 2 + 1)]
AT_THE_LIMIT = ["x" * MAX_NAME_LENGTH, "é" * (MAX_NAME_BYTES // 2), "😀" * (MAX_NAME_BYTES // 4)]


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    c = SqlCatalog("names", uri=f"sqlite:///{tmp_path}/c.db", warehouse=str(tmp_path / "wh"))
    c.create_namespace("ns")
    yield c
    c.close()


def create(catalog: SqlCatalog, ident: Any, **kw: Any) -> Any:
    kw.setdefault("schema", SCHEMA)
    kw.setdefault("queries", {"spark": "SELECT 1"})
    kw.setdefault("default_namespace", ("ns",))
    return catalog.create_view(ident, **kw)


def written(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "wh").rglob("*")) if (tmp_path / "wh").exists() else []


def test_the_limit_is_derived_from_a_path_component() -> None:
    # 255 bytes a component, less the longest suffix a layout adds ("-" and a uuid's 32 hex digits)
    assert MAX_NAME_BYTES == 255 - 33
    assert MAX_NAME_LENGTH == 128
    for name in AT_THE_LIMIT:
        assert name_problem(name) is None
        # the longest directory name the layouts make of it still fits 255 bytes (and NTFS's units)
        longest = f"{name}-{'0' * 32}"
        assert len(longest.encode()) <= 255 and len(longest.encode("utf-16-le")) // 2 <= 255
    for name in TOO_LONG:
        assert name_problem(name) is not None


@pytest.mark.parametrize("name", TOO_LONG, ids=["10000", "129", "224 bytes"])
def test_new_names_over_the_limit_are_refused_before_anything_is_written(
    catalog: SqlCatalog, tmp_path: Path, name: str
) -> None:
    create(catalog, "ns.v")
    before = written(tmp_path)
    calls = {
        "create": lambda: create(catalog, ("ns", name)),
        "create in namespace": lambda: create(catalog, (name, "v")),
        "create or replace": lambda: catalog.create_or_replace_view(
            ("ns", name), schema=SCHEMA, queries={"spark": "SELECT 1"}, default_namespace=("ns",)
        ),
        "register": lambda: catalog.register_view(
            ("ns", name), str(catalog.load_view("ns.v").metadata_location)
        ),
        "rename": lambda: catalog.rename_view("ns.v", ("ns", name)),
        "namespace": lambda: catalog.create_namespace((name,)),
        "nested namespace": lambda: catalog.create_namespace(("ns", name)),
    }
    for what, call in calls.items():
        with pytest.raises(InvalidNameError) as info:
            call()
        assert isinstance(info.value, InvalidIdentifierError), what
        assert "allowed" in str(info.value) and len(str(info.value)) < 200, what
    assert written(tmp_path) == before
    assert catalog.list_views("ns") == [("ns", "v")]
    assert catalog.list_namespaces() == [("ns",)] and catalog.list_namespaces("ns") == []


def test_a_namespace_is_limited_with_its_levels_joined(catalog: SqlCatalog) -> None:
    levels = ("a" * 64, "b" * 64)  # 129 characters joined by a dot
    with pytest.raises(InvalidNameError, match="129 characters"):
        catalog.create_namespace(levels)
    with pytest.raises(InvalidNameError):
        to_new_identifier((*levels, "v"))
    assert to_new_namespace(("a" * 63, "b" * 64)) == ("a" * 63, "b" * 64)


@pytest.mark.parametrize("name", AT_THE_LIMIT, ids=["128", "222 bytes", "emoji"])
def test_names_at_the_limit_work_down_to_the_files(catalog: SqlCatalog, name: str) -> None:
    catalog.create_namespace((name,))
    view = create(catalog, (name, name))
    assert view.metadata_location is not None and Path(view.metadata_location).exists()
    assert catalog.load_view((name, name)).metadata == view.metadata
    catalog.rename_view((name, name), ("ns", name))
    assert catalog.list_views("ns") == [("ns", name)]


def test_unique_locations_fit_with_a_name_at_the_limit(tmp_path: Path) -> None:
    c = SqlCatalog(
        "u",
        uri=f"sqlite:///{tmp_path}/c.db",
        warehouse=str(tmp_path / "wh"),
        **{"unique-table-location": "true"},
    )
    try:
        name = "é" * (MAX_NAME_BYTES // 2)
        view = create(c, ("ns", name))
        assert view.metadata_location is not None and Path(view.metadata_location).exists()
    finally:
        c.close()


def test_a_path_the_file_system_cannot_hold_is_a_typed_error(catalog: SqlCatalog, tmp_path: Path) -> None:
    # the name fits; the location the caller chose has a component over 255 bytes
    with pytest.raises(InvalidNameError, match="longer than the file system allows"):
        create(catalog, "ns.v", location=str(tmp_path / "wh" / ("l" * 300)))
    assert catalog.list_views("ns") == []


def test_existing_long_names_are_still_looked_up(catalog: SqlCatalog) -> None:
    long = "y" * (MAX_NAME_LENGTH + 20)  # Java has no limit: another client may have made it
    assert to_identifier(("ns", long)).name == long
    assert not catalog.view_exists(("ns", long))
    assert not catalog.drop_view(("ns", long))


def test_the_rest_client_refuses_before_sending(iceview_server: Any) -> None:
    from iceview.catalog.rest import RestCatalog

    catalog = RestCatalog("served", uri=iceview_server.uri, warehouse=iceview_server.warehouse_uri)
    try:
        catalog.create_namespace("names_rest")
        long = "z" * (MAX_NAME_LENGTH + 1)
        calls = {
            "namespace": lambda: catalog.create_namespace((long,)),
            "create": lambda: create(catalog, ("names_rest", long), default_namespace=("names_rest",)),
            "rename": lambda: catalog.rename_view("names_rest.v", ("names_rest", long)),
            "register": lambda: catalog.register_view(
                ("names_rest", long), "file:///x/00000-a.metadata.json"
            ),
        }
        for what, call in calls.items():
            with pytest.raises(InvalidNameError):
                call()
            assert (long,) not in catalog.list_namespaces(), what
        assert catalog.list_views("names_rest") == []
    finally:
        catalog.drop_namespace("names_rest")
        catalog.close()
