"""Table operations iceview does itself rather than leave to PyIceberg, because PyIceberg's would
touch files outside the catalog's warehouse: purging a table.

PyIceberg's ``Catalog.purge_table`` deletes every file the table's metadata names (data files,
manifests, manifest lists, every ``metadata-log`` entry), wherever they are: a table registered
from a crafted metadata file would delete any file its ``metadata-log`` lists. :func:`purge_table`
deletes the same files, but only those inside the warehouse
(:func:`iceview.files.check_in_warehouse`); the others are left alone, logged and reported.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from iceview.errors import LocationOutsideWarehouseError
from iceview.files import check_in_warehouse

__all__ = ["PurgeResult", "purge_table"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PurgeResult:
    """What :func:`purge_table` did: the files it deleted, and the ones it left alone because they
    lie outside the warehouse (each with the role it had: ``data file``, ``metadata-log entry``...)."""

    deleted: tuple[str, ...]
    outside: tuple[tuple[str, str], ...]


def purge_table(tables: Any, identifier: str | tuple[str, ...], warehouse: str | None) -> PurgeResult:
    """Drop a table from PyIceberg's catalog ``tables`` and delete its files, as PyIceberg's
    ``purge_table`` does, but only those inside ``warehouse`` (:func:`iceview.files.confinement_root`
    of the catalog's properties; None deletes every file, as PyIceberg does). A manifest list or
    manifest outside the warehouse is not read either. Raises PyIceberg's ``NoSuchTableError`` if
    there is no such table; a file that cannot be deleted is logged, as PyIceberg does."""
    from pyiceberg.io import load_file_io

    table = tables.load_table(identifier)
    tables.drop_table(identifier)
    io = load_file_io(tables.properties, table.metadata_location)
    metadata = table.metadata
    outside: list[tuple[str, str]] = []

    def inside(location: str, role: str) -> bool:
        try:
            check_in_warehouse(location, warehouse, role)
        except LocationOutsideWarehouseError as e:
            log.warning("Purge of table %s leaves a file alone: %s", identifier, e)
            outside.append((location, role))
            return False
        return True

    manifest_lists: dict[str, None] = {}
    manifests: dict[str, Any] = {}
    for snapshot in metadata.snapshots:
        if not inside(snapshot.manifest_list, "manifest list"):
            continue
        manifest_lists[snapshot.manifest_list] = None
        for manifest in _quietly(partial(snapshot.manifests, io), snapshot.manifest_list) or ():
            if manifest.manifest_path not in manifests and inside(manifest.manifest_path, "manifest"):
                manifests[manifest.manifest_path] = manifest
    data_files: dict[str, None] = {}
    for manifest in manifests.values():
        entries = _quietly(
            partial(manifest.fetch_manifest_entry, io, discard_deleted=False), manifest.manifest_path
        )
        for entry in entries or ():
            data_files[entry.data_file.file_path] = None
    deleted: list[str] = []
    planned = [
        *((path, "data file") for path in data_files),
        *((path, "manifest") for path in manifests),
        *((path, "manifest list") for path in manifest_lists),
        *((entry.metadata_file, "metadata-log entry") for entry in metadata.metadata_log),
        (table.metadata_location, "metadata file"),
    ]
    seen: set[str] = set()
    for path, role in planned:
        if path in seen:
            continue
        seen.add(path)
        # manifests and lists were checked when they were read
        if role in ("manifest", "manifest list") or inside(path, role):
            try:
                io.delete(path)
            except OSError:
                log.warning("Failed to delete %s %s", role, path)
            else:
                deleted.append(path)
    return PurgeResult(tuple(deleted), tuple(outside))


def _quietly(read: Callable[[], Any], location: str) -> Any:
    """What ``read`` returns, or None (logged) when the file cannot be read, as PyIceberg's purge
    goes on without it."""
    try:
        return read()
    except (OSError, ValueError) as e:
        log.warning("Purge cannot read %s: %s", location, e)
        return None
