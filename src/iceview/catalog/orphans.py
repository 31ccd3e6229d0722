"""Orphan metadata files of a view: files in its metadata folder that nothing points at.

A commit writes a new metadata file and then swaps the catalog's pointer; a file whose swap
failed, or one that an older commit left behind (Iceberg views keep no ``metadata-log``, so nothing
ever deletes a replaced file), stays in the folder. :func:`metadata_orphans` lists them and, when
asked, deletes the old enough ones, inside the warehouse only.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from iceview.errors import InvalidMetadataError, LocationOutsideWarehouseError, NotFoundError
from iceview.identifiers import IdentifierLike

if TYPE_CHECKING:
    from iceview.catalog.interface import Catalog

__all__ = ["DEFAULT_GRACE", "Orphan", "OrphanReport", "metadata_orphans"]

log = logging.getLogger(__name__)

DEFAULT_GRACE = timedelta(hours=1)
"""How old an orphan must be before it is deleted: a concurrent writer's file, written but not yet
swapped in, is younger than this."""


@dataclass(frozen=True)
class Orphan:
    """One orphan metadata file: its location, size, age in seconds, whether it was deleted and,
    if it was not although deletion was asked for, why (``younger than the grace period``,
    ``outside the warehouse``, or the error)."""

    location: str
    size: int
    age_s: float
    deleted: bool = False
    kept_because: str | None = None


@dataclass(frozen=True)
class OrphanReport:
    """What :func:`metadata_orphans` found in ``folder``: the orphans, and the metadata files it
    left out because they are not this view's (another view's uuid, or unreadable)."""

    folder: str
    orphans: tuple[Orphan, ...]
    foreign: tuple[str, ...]


def metadata_orphans(
    catalog: Catalog,
    identifier: IdentifierLike,
    *,
    delete: bool = False,
    older_than: timedelta = DEFAULT_GRACE,
    now: float | None = None,
) -> OrphanReport:
    """The orphan metadata files of view ``identifier``: the metadata files in its metadata folder
    (``write.metadata.path``, else ``<location>/metadata``) that hold this view (its
    ``view-uuid``) and that no entry of the catalog points at (:meth:`Catalog.metadata_pointers`:
    every current and previous pointer, of every view and table, so a file another view was
    registered from is kept). Files of another view, or that do not parse, are never orphans.

    With ``delete``, an orphan is deleted only when it is older than ``older_than`` (a concurrent
    writer's file is not yet swapped in) and it lies inside the catalog's warehouse
    (:func:`iceview.files.check_in_warehouse`; not confined when the catalog has no warehouse or
    ``iceview.allow-external-locations`` is true). Only local folders can be listed."""
    from iceview import files

    view = catalog.load_view(identifier)
    metadata = view.metadata
    folder = files.metadata_dir(metadata.location, metadata.properties)
    listed = files.list_metadata_files(folder)
    pointers = catalog.metadata_pointers()
    if view.metadata_location:
        pointers.add(view.metadata_location)
    root = files.confinement_root(catalog.properties)
    clock = time.time() if now is None else now
    grace = older_than.total_seconds()
    orphans: list[Orphan] = []
    foreign: list[str] = []
    for found in listed:
        if any(files.same_file(found.location, pointer) for pointer in pointers):
            continue
        try:
            held = files.read_metadata(found.location, properties=catalog.properties)
        except (InvalidMetadataError, NotFoundError, OSError, ValueError):
            foreign.append(found.location)
            continue
        if held.uuid.lower() != metadata.uuid.lower():
            foreign.append(found.location)
            continue
        age = max(0.0, clock - found.modified)
        orphan = Orphan(found.location, found.size, age)
        if delete:
            orphan = _delete(orphan, grace, root)
        orphans.append(orphan)
    return OrphanReport(folder, tuple(orphans), tuple(foreign))


def _delete(orphan: Orphan, grace: float, root: str | None) -> Orphan:
    from iceview import files

    if orphan.age_s < grace:
        return Orphan(orphan.location, orphan.size, orphan.age_s, False, "younger than the grace period")
    try:
        files.check_in_warehouse(orphan.location, root, "orphan metadata file")
    except LocationOutsideWarehouseError as e:
        log.warning("Not deleting %s", e)
        return Orphan(orphan.location, orphan.size, orphan.age_s, False, "outside the warehouse")
    try:
        files.delete_file(orphan.location)
    except OSError as e:
        return Orphan(orphan.location, orphan.size, orphan.age_s, False, f"cannot delete: {e}")
    return Orphan(orphan.location, orphan.size, orphan.age_s, True)
