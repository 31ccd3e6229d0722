"""``iceview.metadata-cache-size``: parsed metadata files kept by location. The pointer is still
read on every load, so a cached catalog never serves an old version; files are read once."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_support import SCHEMA

from iceview import files
from iceview.catalog import SqlCatalog, load_catalog
from iceview.errors import InvalidArgumentError


def open_catalog(tmp_path: Path, size: str) -> SqlCatalog:
    catalog = load_catalog(
        "cached",
        type="sql",
        uri=f"sqlite:///{tmp_path}/catalog.db",
        warehouse=f"file://{tmp_path}/warehouse",
        **{"iceview.metadata-cache-size": size},
    )
    assert isinstance(catalog, SqlCatalog)
    return catalog


def test_files_are_read_once_and_new_versions_are_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = open_catalog(tmp_path, "0")
    writer.create_namespace("ns")
    writer.create_view("ns.v", schema=SCHEMA, queries={"spark": "SELECT 1"}, default_namespace="ns")
    reads: list[str] = []
    real = files.read_metadata

    def counting(location: str, **kw: object) -> object:
        reads.append(location)
        return real(location, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "read_metadata", counting)
    cached = open_catalog(tmp_path, "10")
    first = cached.load_view("ns.v")
    for _ in range(5):
        assert cached.load_view("ns.v").metadata == first.metadata
    assert reads == [first.metadata_location]

    # another process commits: the next load follows the pointer to the new file
    writer.load_view("ns.v").update_properties().set("k", "v").commit()
    reads.clear()
    again = cached.load_view("ns.v")
    assert again.properties == {"k": "v"}
    assert again.metadata_location != first.metadata_location
    assert reads == [again.metadata_location]

    # a commit through the cached catalog puts the file it wrote in the cache
    cached.load_view("ns.v").update_properties().set("k", "w").commit()
    reads.clear()
    assert cached.load_view("ns.v").properties == {"k": "w"}
    assert reads == []
    assert cached.metadata_cache is not None and len(cached.metadata_cache) == 3


def test_the_cache_is_bounded_and_off_by_default(tmp_path: Path) -> None:
    assert open_catalog(tmp_path, "0").metadata_cache is None
    small = open_catalog(tmp_path, "2")
    small.create_namespace("ns")
    for name in ("a", "b", "c"):
        small.create_view(f"ns.{name}", schema=SCHEMA, queries={"spark": "SELECT 1"}, default_namespace="ns")
        small.load_view(f"ns.{name}")
    assert small.metadata_cache is not None and len(small.metadata_cache) == 2
    with pytest.raises(InvalidArgumentError, match=r"iceview\.metadata-cache-size 'many'"):
        open_catalog(tmp_path, "many")


def test_load_view_nowait_reads_the_pointer_and_never_waits(tmp_path: Path) -> None:
    """``load_view_nowait`` (the server's load on its event loop): the pointer is read every time,
    so another process's commit is seen at once; a file not in the cache, a locked database or a
    catalog without a cache answer None (the caller then loads the ordinary way)."""
    import sqlite3
    import time

    from iceview.errors import NoSuchViewError

    writer = open_catalog(tmp_path, "0")
    writer.create_namespace("ns")
    writer.create_view("ns.v", schema=SCHEMA, queries={"spark": "SELECT 1"}, default_namespace="ns")
    assert writer.load_view_nowait("ns.v") is None  # no cache: it cannot promise not to read a file

    cached = open_catalog(tmp_path, "10")
    assert cached.load_view_nowait("ns.v") is None  # the file is not cached yet
    loaded = cached.load_view("ns.v")
    quick = cached.load_view_nowait("ns.v")
    assert quick is not None
    assert quick.metadata == loaded.metadata and quick.metadata_location == loaded.metadata_location
    with pytest.raises(NoSuchViewError, match=r"View does not exist: ns\.missing"):
        cached.load_view_nowait("ns.missing")

    # another process commits: the pointer moves to a file the cache does not hold yet
    writer.load_view("ns.v").update_properties().set("k", "v").commit()
    assert cached.load_view_nowait("ns.v") is None
    assert cached.load_view("ns.v").properties == {"k": "v"}
    fresh = cached.load_view_nowait("ns.v")
    assert fresh is not None and fresh.properties == {"k": "v"}

    # a writer holds the database's lock: no wait, no answer
    locker = sqlite3.connect(tmp_path / "catalog.db", isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        started = time.perf_counter()
        assert cached.load_view_nowait("ns.v") is None
        assert time.perf_counter() - started < 0.5
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert cached.load_view_nowait("ns.v") is not None

    # a handle it returns commits like any other
    quick_handle = cached.load_view_nowait("ns.v")
    assert quick_handle is not None
    quick_handle.update_properties().set("k", "w").commit()
    assert writer.load_view("ns.v").properties == {"k": "w"}
    cached.close()
    assert cached.load_view_nowait("ns.v") is None  # closed: nothing is opened again
    writer.close()
