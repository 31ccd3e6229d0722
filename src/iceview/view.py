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
    view.add_dialects(["trino", "duckdb"])   # translated from the spark SQL (docs/translation.md)
"""

from __future__ import annotations

import time
import uuid as uuidlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pyiceberg.schema import Schema

from iceview.catalog.base import (
    MetastoreViewCatalog,
    Queries,
    ViewOperations,
    _default_namespace,
    _representations,
    commit_with_retries,
    environment_summary,
    source_representation,
    translate_representations,
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

    def add_dialects(
        self,
        dialects: Iterable[str],
        *,
        source: str | None = None,
        known_catalogs: Iterable[str] = (),
        schemas: Mapping[tuple[str, ...], Schema] | None = None,
        tables: Any = None,
    ) -> View:
        """Translate the current SQL into ``dialects`` and commit ONE new version that keeps the
        schema, the defaults and every existing representation and adds the translations
        (:func:`iceview.sql.translate`, strict: an unsafe construct raises
        ``UnsafeTranslationError`` and nothing is committed). Dialects the version already has are
        left alone (one representation per dialect); when nothing is missing, nothing is committed.

        ``source`` picks the representation to translate (default ``spark``, else the first).
        Names are qualified with the version's ``default-catalog`` (or this view's catalog when it
        is null) and ``default-namespace``; ``known_catalogs`` adds catalog names a name may start
        with. ``schemas`` gives relation schemas (by default the catalog's views and tables, through
        PyIceberg: ``tables`` is an optional PyIceberg catalog to load tables with). The summary of
        the new version records ``iceview.translated-from`` (the source dialect) and
        ``iceview.translator-version``."""
        from iceview.sql.translate import provenance_summary

        wanted = [d.strip().lower() for d in dialects]
        catalog_name = self._name.split(".", 1)[0] if self._catalog is None else self._catalog.name
        cache: dict[tuple[int, str], list[SQLRepresentation]] = {}

        def translations(version: ViewVersion) -> list[SQLRepresentation]:
            reps = [r for r in version.representations if isinstance(r, SQLRepresentation)]
            if not reps:
                raise InvalidStateError(f"View {self._name} has no SQL representation to translate")
            key = (version.version_id, str(version.timestamp_ms))
            if key not in cache:
                default_catalog = version.default_catalog or catalog_name
                lookup = None
                if schemas is not None:
                    fixed = schemas

                    def lookup_fixed(sql: str, dialect: str) -> Mapping[tuple[str, ...], Schema]:
                        return fixed

                    lookup = lookup_fixed
                elif isinstance(self._catalog, MetastoreViewCatalog):
                    cat = self._catalog

                    def lookup_catalog(sql: str, dialect: str) -> Mapping[tuple[str, ...], Schema]:
                        return cat.relation_schemas(
                            sql,
                            dialect,
                            default_catalog=version.default_catalog,
                            default_namespace=version.default_namespace,
                            tables=tables,
                        )

                    lookup = lookup_catalog
                cache[key] = translate_representations(
                    reps,
                    wanted,
                    default_catalog=default_catalog,
                    default_namespace=version.default_namespace,
                    known_catalogs={catalog_name, *known_catalogs},
                    schemas=lookup,
                    source=source,
                )
            return cache[key]

        base = self._ops.refresh()
        if base is None:  # pragma: no cover - refresh raises NoSuchViewError instead
            raise InvalidStateError(f"View {self._name} has no metadata")
        if not translations(base.current_version):
            return self

        def apply(metadata: ViewMetadata) -> ViewMetadata:
            current = metadata.current_version
            added = translations(current)
            if not added:
                return metadata
            src = source_representation(
                [r for r in current.representations if isinstance(r, SQLRepresentation)]
            )
            if source is not None:
                src = next(
                    r
                    for r in current.representations
                    if isinstance(r, SQLRepresentation) and r.dialect.lower() == source.lower()
                )
            ids = metadata.version_ids
            version = ViewVersion(
                version_id=(max(ids) if ids else current.version_id) + 1,
                timestamp_ms=int(time.time() * 1000),
                schema_id=current.schema_id,
                summary={**environment_summary(), **provenance_summary(src.dialect)},
                representations=(*current.representations, *added),
                default_namespace=current.default_namespace,
                default_catalog=current.default_catalog,
            )
            return ViewMetadata.build_from(metadata).set_current_version(version, metadata.schema).build()

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
