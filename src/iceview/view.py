"""The handle of one view in a catalog (Java's ``BaseView``).

A :class:`View` shows the metadata it loaded: readers see one version until they call
:meth:`View.refresh` (or commit through this handle). Changes are optimistic commits: each one
refreshes, applies the change to the fresh metadata, writes a new metadata file and swaps the
catalog's pointer, retrying on conflicts with the view's ``commit.retry.*`` properties.

::

    view = catalog.load_view("ns.v")
    view.update_properties().set("comment", "daily").remove("owner").commit()
    view.replace_version(schema=schema, queries={"spark": "SELECT ..."}, default_namespace=("ns",))
    view.set_current_version(1)   # roll back to version 1
"""

from __future__ import annotations

import time
import uuid as uuidlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pyiceberg.schema import Schema

from iceview.catalog.base import (
    Queries,
    ViewOperations,
    _default_namespace,
    _representations,
    commit_with_retries,
    environment_summary,
)
from iceview.catalog.identifiers import NamespaceLike
from iceview.errors import InvalidArgumentError, InvalidStateError
from iceview.spec import SQLRepresentation, ViewHistory, ViewMetadata, ViewVersion

if TYPE_CHECKING:
    from iceview.catalog.base import Catalog
    from iceview.catalog.identifiers import ViewIdentifier

__all__ = ["UpdateViewProperties", "View"]


class View:
    """A view in a catalog. Made by :meth:`Catalog.load_view` and the create/replace calls."""

    def __init__(self, ops: ViewOperations, name: str, catalog: Catalog | None = None) -> None:
        self._ops = ops
        self._name = name
        self._catalog = catalog

    # -- identity --------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """``<catalog>.<namespace>.<name>``, as Java's ``View.name()``."""
        return self._name

    @property
    def identifier(self) -> ViewIdentifier:
        return self._ops.identifier

    @property
    def catalog(self) -> Catalog | None:
        return self._catalog

    @property
    def operations(self) -> ViewOperations:
        return self._ops

    # -- metadata --------------------------------------------------------------------------------
    @property
    def metadata(self) -> ViewMetadata:
        """The metadata this handle holds (re-read from the catalog only after a commit through it)."""
        current = self._ops.current()
        if current is None:  # pragma: no cover - a loaded view always has metadata
            raise InvalidStateError(f"View {self._name} has no metadata")
        return current

    @property
    def metadata_location(self) -> str | None:
        """The metadata file the catalog pointed at when this handle last loaded it."""
        return self.metadata.metadata_file_location

    def refresh(self) -> View:
        """Load the metadata the catalog points at now. Raises ``NoSuchViewError`` if the view is
        gone and ``ViewUUIDMismatchError`` if the name now holds another view."""
        self._ops.refresh()
        return self

    @property
    def uuid(self) -> uuidlib.UUID:
        return uuidlib.UUID(self.metadata.uuid)

    @property
    def location(self) -> str:
        return self.metadata.location

    @property
    def properties(self) -> Mapping[str, str]:
        return self.metadata.properties

    @property
    def schema(self) -> Schema:
        """The current version's schema."""
        return self.metadata.schema

    @property
    def schemas(self) -> Mapping[int, Schema]:
        return self.metadata.schemas_by_id

    @property
    def current_version(self) -> ViewVersion:
        return self.metadata.current_version

    @property
    def versions(self) -> tuple[ViewVersion, ...]:
        return self.metadata.versions

    def version(self, version_id: int) -> ViewVersion | None:
        return self.metadata.version(version_id)

    @property
    def history(self) -> ViewHistory:
        """The version log: which version was current from when."""
        return self.metadata.history

    def sql_for(self, dialect: str, *, fallback: bool = False) -> SQLRepresentation | None:
        """The current SQL for ``dialect`` (case-insensitive). Java's ``View.sqlFor`` falls back to
        the first SQL representation when the dialect is missing; pass ``fallback=True`` for that."""
        return self.metadata.sql_for(dialect, fallback=fallback)

    # -- changes ---------------------------------------------------------------------------------
    def update_properties(self) -> UpdateViewProperties:
        """Start a properties change: ``.set(k, v)``, ``.remove(k)``, then ``.commit()``."""
        return UpdateViewProperties(self)

    def replace_version(
        self,
        *,
        schema: Schema | None = None,
        queries: Queries | None = None,
        default_namespace: NamespaceLike | None = None,
        default_catalog: str | None = None,
        summary: Mapping[str, str] | None = None,
    ) -> View:
        """Add a new version (id ``max + 1``) and make it current: Java's ``replaceVersion()``.
        Properties and location are kept; an identical earlier version is reused, as Java does."""
        representations = _representations(queries)
        namespace = _default_namespace(default_namespace)
        if not representations:
            raise InvalidStateError("Cannot replace view without specifying a query")
        if schema is None:
            raise InvalidStateError("Cannot replace view without specifying schema")
        if namespace is None:
            raise InvalidStateError("Cannot replace view without specifying a default namespace")
        new_schema = schema
        new_namespace = namespace
        full_summary = {**environment_summary(), **(summary or {})}

        def apply(base: ViewMetadata) -> ViewMetadata:
            ids = base.version_ids
            max_id = max(ids) if ids else base.current_version.version_id
            version = ViewVersion(
                version_id=max_id + 1,
                timestamp_ms=int(time.time() * 1000),
                schema_id=new_schema.schema_id,
                summary=full_summary,
                representations=tuple(representations),
                default_namespace=new_namespace,
                default_catalog=default_catalog,
            )
            return ViewMetadata.build_from(base).set_current_version(version, new_schema).build()

        commit_with_retries(self._ops, apply)
        return self

    def set_current_version(self, version_id: int) -> View:
        """Make a retained version current again (a rollback); the version log records it.
        Unknown ids raise ``InvalidArgumentError`` (``Cannot set current version to unknown version: N``)."""

        def apply(base: ViewMetadata) -> ViewMetadata:
            return ViewMetadata.build_from(base).set_current_version_id(version_id).build()

        commit_with_retries(self._ops, apply)
        return self

    def update_location(self, location: str | None) -> View:
        """Move the view's base location (new metadata files go under it): Java's
        ``updateLocation().setLocation(location).commit()``."""
        if location is None:
            raise InvalidStateError("Invalid view location: null")
        new_location = location

        def apply(base: ViewMetadata) -> ViewMetadata:
            return ViewMetadata.build_from(base).set_location(new_location).build()

        commit_with_retries(self._ops, apply)
        return self

    def __repr__(self) -> str:
        return f"View({self._name!r})"


class UpdateViewProperties:
    """A pending properties change: Java's ``PropertiesUpdate``. Setting an unchanged value still
    writes a new metadata file, as in Java; versions and the version log are untouched."""

    def __init__(self, view: View) -> None:
        self._view = view
        self._updates: dict[str, str] = {}
        self._removals: list[str] = []

    def set(self, key: str, value: str) -> UpdateViewProperties:
        if key is None:
            raise InvalidArgumentError("Invalid key: null")
        if value is None:
            raise InvalidArgumentError("Invalid value: null")
        if key in self._removals:
            raise InvalidArgumentError(f"Cannot remove and update the same key: {key}")
        self._updates[key] = value
        return self

    def remove(self, key: str) -> UpdateViewProperties:
        if key is None:
            raise InvalidArgumentError("Invalid key: null")
        if key in self._updates:
            raise InvalidArgumentError(f"Cannot remove and update the same key: {key}")
        if key not in self._removals:
            self._removals.append(key)
        return self

    def apply(self) -> Mapping[str, str]:
        """The properties the view would have, on top of a fresh refresh."""
        base = self._view.operations.refresh()
        if base is None:  # pragma: no cover - refresh raises NoSuchViewError instead
            raise InvalidStateError(f"View {self._view.name} has no metadata")
        return self._apply(base).properties

    def _apply(self, base: ViewMetadata) -> ViewMetadata:
        return (
            ViewMetadata.build_from(base)
            .set_properties(dict(self._updates))
            .remove_properties(list(self._removals))
            .build()
        )

    def commit(self) -> View:
        commit_with_retries(self._view.operations, self._apply)
        return self._view
