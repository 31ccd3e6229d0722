"""One view's (or function's) metadata pointer in a metastore: Java's ``BaseViewOperations``.

:class:`MetadataOperations` holds one view's or function's current metadata and its location
(:class:`ViewOperations` and :class:`FunctionOperations` name the kind,
:mod:`iceview.catalog.kinds`). ``refresh()`` asks the
metastore where the pointer is and reads that file; ``commit(base, new)`` writes a new metadata file
and asks the metastore to swap the pointer from ``base``'s file to it (compare-and-swap). A definite
failure deletes the file it wrote; an unknown outcome keeps it.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from iceview.catalog.kinds import FUNCTION, VIEW, Metadata, MetadataKind
from iceview.errors import (
    CommitFailedError,
    CommitStateUnknownError,
    InvalidArgumentError,
    InvalidMetadataError,
)
from iceview.identifiers import ViewIdentifier

if TYPE_CHECKING:
    from pyiceberg.io import FileIO

    from iceview.spec import ViewMetadata  # noqa: F401 (named in a base class, as a string)
    from iceview.udf import FunctionMetadata  # noqa: F401


__all__ = [
    "METADATA_CACHE_SIZE",
    "FunctionOperations",
    "LocationCache",
    "MetadataCache",
    "MetadataOperations",
    "ViewOperations",
    "delete_file_quietly",
    "read_metadata",
]

METADATA_CACHE_SIZE = "iceview.metadata-cache-size"
"""Catalog property: how many parsed metadata files to keep by location (0, the default: none).
``iceview serve`` sets it; a long-lived process that loads the same views often may too."""

log = logging.getLogger(__name__)

T = TypeVar("T")
M = TypeVar("M", bound=Metadata)


def read_metadata(io: FileIO, location: str, kind: MetadataKind[Any] = VIEW) -> Any:
    """Read a metadata file of ``kind`` (a view's by default); errors name the file
    (``NotFoundError``, ``InvalidMetadataError``)."""
    try:
        return kind.read(location, io)
    except InvalidMetadataError as e:
        if e.location:
            raise
        raise e.with_location(location) from e


def delete_file_quietly(io: FileIO, location: str) -> None:
    """Best-effort delete (cleanup of an orphan, or a drop with gc.enabled)."""
    from iceview import files

    try:
        files.delete_file(location, io=io)
    except Exception as e:
        log.warning("Failed to delete metadata file %s: %s", location, e)


class LocationCache(Generic[T]):
    """Values derived from metadata files, by file location, least recently used first out. A
    metadata file never changes once written (each commit writes a new one), so an entry cannot go
    stale; the pointer is still asked on every refresh, so a cache never serves an old version of
    a view."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, location: str) -> T | None:
        with self._lock:
            found = self._entries.get(location)
            if found is not None:
                self._entries.move_to_end(location)
            return found

    def put(self, location: str, value: T) -> None:
        with self._lock:
            self._entries[location] = value
            self._entries.move_to_end(location)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


MetadataCache = LocationCache[Any]
"""Parsed metadata files by location (``iceview.metadata-cache-size``): views' and functions'
(a file's location says which it is, so one cache holds both)."""


# ----------------------------------------------------------------------------- operations


class MetadataOperations(ABC, Generic[M]):
    """One view's or function's metadata pointer: Java's ``BaseViewOperations``.

    Subclasses implement :meth:`do_refresh` (where does the metastore point?) and :meth:`do_commit`
    (swap the pointer). This class reads and writes the metadata files, names them as Java names a
    view's, enforces the uuid rule on refresh and cleans up after definite failures.
    """

    def __init__(
        self,
        kind: MetadataKind[M],
        identifier: ViewIdentifier,
        io: FileIO,
        full_name: str,
        cache: MetadataCache | None = None,
        *,
        warehouse: str | None = None,
    ) -> None:
        self.kind = kind
        self.identifier = identifier
        self.io = io
        self.full_name = full_name
        self.cache = cache
        self.warehouse = warehouse
        """The root every file this pointer writes must lie in (:func:`iceview.files.confinement_root`
        of the catalog's properties); None: not confined."""
        self._current: M | None = None
        self._current_location: str | None = None
        self._should_refresh = True

    # -- to implement --------------------------------------------------------------------------
    @abstractmethod
    def do_refresh(self) -> str | None:
        """The metadata location the metastore points at, or None when there is no such entry.
        Java raises ``NoSuchViewException`` when the view disappeared after having been loaded;
        :meth:`refresh` does that from a None."""

    @abstractmethod
    def do_commit(self, base: M | None, new_location: str) -> None:
        """Swap the pointer from ``base``'s file (``None``: create the entry) to ``new_location``.

        Raise :class:`CommitFailedError` (or another iceview error) when the swap definitely did
        not happen, and :class:`CommitStateUnknownError` when it may have."""

    # -- state -----------------------------------------------------------------------------------
    @property
    def current_metadata_location(self) -> str | None:
        return self._current_location

    def request_refresh(self) -> None:
        self._should_refresh = True

    def current(self) -> M | None:
        """The metadata as last loaded; refreshed first only if a commit asked for it."""
        if self._should_refresh:
            return self.refresh()
        return self._current

    def refresh(self) -> M | None:
        """Ask the metastore and load the file it points at (only if it changed)."""
        had_metadata = self._current_location is not None
        location = self.do_refresh()
        if location is None:
            if had_metadata:
                # what was loaded is kept: every later refresh says it is gone again, and a new
                # entry under the name is another view (the uuid rule), never adopted
                self._should_refresh = True
                raise self.kind.no_such(f"{self.kind.title} does not exist: {self.identifier}")
            self._should_refresh = False
            return None
        self.refresh_from_location(location)
        return self._current

    def refresh_from_location(self, location: str) -> None:
        if location != self._current_location:
            kind = self.kind
            log.debug("Refreshing %s metadata from new version: %s", kind.noun, location)
            metadata = self.cache.get(location) if self.cache is not None else None
            if metadata is None:
                metadata = read_metadata(self.io, location, kind)
                if self.cache is not None:
                    self.cache.put(location, metadata)
            kind.check_same(self._current, metadata, self.identifier, location)
            self._current = metadata
            self._current_location = location
        self._should_refresh = False

    # -- commit ----------------------------------------------------------------------------------
    def check_locations(self, metadata: M) -> None:
        """The location and the ``write.*.path`` properties must lie in the warehouse
        (:func:`iceview.files.check_in_warehouse`); ``LocationOutsideWarehouseError`` if not."""
        from iceview import files

        noun = self.kind.noun
        if metadata.location is not None:
            files.check_in_warehouse(metadata.location, self.warehouse, f"{noun} location")
        files.check_location_properties(metadata.properties, self.warehouse, noun)

    def commit(self, base: M | None, metadata: M) -> M:
        """Commit ``metadata`` on top of ``base`` (None to create); returns the committed metadata
        (with its file location). Java's ``BaseViewOperations.commit``."""
        kind = self.kind
        current = self.current()
        if base is not current:
            if base is not None:
                raise CommitFailedError(f"Cannot commit: stale {kind.noun} metadata")
            raise kind.already_exists(f"{kind.title} already exists: {self.identifier}")
        if base is metadata:
            log.info("Nothing to commit.")
            return metadata
        from iceview import files

        start = time.monotonic()
        written = metadata.metadata_file_location is None
        # where this file and the next ones go must stay in the warehouse: checked on what is
        # committed, so a create, a set-location, a set-properties and a registered file all are
        self.check_locations(metadata)
        if written:
            if metadata.location is None and not metadata.properties.get(files.WRITE_METADATA_LOCATION):
                raise InvalidArgumentError(
                    f"Cannot commit {kind.noun} {self.identifier}: it has no location and no "
                    f"{files.WRITE_METADATA_LOCATION} property to write its metadata file in"
                )
            new_location = files.new_metadata_location(
                metadata.location or "", metadata.properties, self._current_location
            )
            files.check_in_warehouse(new_location, self.warehouse, "metadata file")
            kind.write(metadata, new_location, self.io)
            committed: M = metadata.with_metadata_file_location(new_location)
        else:
            registered = metadata.metadata_file_location
            assert registered is not None
            new_location = registered
            committed = metadata
        try:
            self.do_commit(base, new_location)
        except CommitStateUnknownError:
            # the pointer may hold the new file: keep it
            self.request_refresh()
            raise
        except BaseException:
            # a definite failure (or an interrupt before anything was sent): the file is an orphan
            if written:
                delete_file_quietly(self.io, new_location)
            raise
        self._current = committed
        self._current_location = new_location
        if self.cache is not None:
            self.cache.put(new_location, committed)
        # as Java: the next current() asks the metastore again (cheap: the file is not re-read
        # while the pointer still holds it)
        self._should_refresh = True
        log.info(
            "Successfully committed to %s %s in %d ms",
            kind.noun,
            self.full_name,
            (time.monotonic() - start) * 1000,
        )
        return committed


class ViewOperations(MetadataOperations["ViewMetadata"]):
    """One view's metadata pointer: Java's ``BaseViewOperations``."""

    def __init__(
        self,
        identifier: ViewIdentifier,
        io: FileIO,
        full_name: str,
        cache: MetadataCache | None = None,
        *,
        warehouse: str | None = None,
    ) -> None:
        super().__init__(VIEW, identifier, io, full_name, cache, warehouse=warehouse)


class FunctionOperations(MetadataOperations["FunctionMetadata"]):
    """One SQL UDF's metadata pointer, kept as a view's is."""

    def __init__(
        self,
        identifier: ViewIdentifier,
        io: FileIO,
        full_name: str,
        cache: MetadataCache | None = None,
        *,
        warehouse: str | None = None,
    ) -> None:
        super().__init__(FUNCTION, identifier, io, full_name, cache, warehouse=warehouse)
