"""The handle of one view in a catalog (Java's ``BaseView``).

A :class:`View` shows the metadata it loaded: readers see one version until they call
:meth:`View.refresh` (or commit through this handle). Every change is a
:class:`~iceview.view.changes.ViewChange` (requirements plus updates) built against the freshly
loaded metadata and committed through :meth:`Catalog.commit_view`, which re-applies the updates on
conflicts with the view's ``commit.retry.*`` properties.

::

    view = catalog.load_view("ns.v")
    view.update_properties().set("comment", "daily").remove("owner").commit()
    view.replace_version(schema=schema, queries={"spark": "SELECT ..."}, default_namespace=("ns",))
    view.set_current_version(1)   # roll back to version 1
    view.add_dialects(["trino", "duckdb"])   # translated from the spark SQL (docs/translation.md)
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pyiceberg.schema import Schema

from iceview.errors import InvalidArgumentError, InvalidStateError
from iceview.identifiers import ViewIdentifier
from iceview.spec import (
    SQLRepresentation,
    ViewHistory,
    ViewMetadata,
    ViewRequirement,
    ViewUpdate,
    ViewVersion,
)
from iceview.spec.builder import REPLACE_DROP_DIALECT_ALLOWED
from iceview.view.changes import (
    ViewChange,
    add_version_change,
    location_change,
    properties_change,
    replace_change,
    rollback_change,
)
from iceview.view.definition import ViewDefinition
from iceview.view.derived import (
    DERIVE_DIALECTS,
    DERIVED_KEY,
    DeriveContext,
    derive_dialects_of,
    derive_version,
    derived_dialects,
    refusals,
)
from iceview.view.dialects import (
    FunctionSource,
    SchemaLookup,
    inlined_functions_summary,
    source_representation,
    translate_representations,
)
from iceview.view.functions import stale_inlined

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from iceview.view.definition import DefinitionFields

__all__ = ["MetadataSource", "UpdateViewProperties", "View", "ViewCommitter"]


class MetadataSource(Protocol):
    """Where a :class:`View` gets its metadata: one view's pointer in a catalog."""

    @property
    def identifier(self) -> ViewIdentifier: ...

    def current(self) -> ViewMetadata | None: ...

    def refresh(self) -> ViewMetadata | None: ...


class ViewCommitter(FunctionSource, Protocol):
    """What a :class:`View` needs of its catalog: the one change path, and the schemas of the
    relations a query reads (for translations), its properties (for translation settings) and its
    SQL UDFs (inlined into translations)."""

    name: str
    properties: dict[str, str]

    def commit_view(
        self,
        identifier: ViewIdentifier | View,
        requirements: Sequence[ViewRequirement],
        updates: Sequence[ViewUpdate],
    ) -> View: ...

    def relation_schemas(
        self,
        sql: str,
        dialect: str,
        *,
        default_catalog: str | None,
        default_namespace: Sequence[str],
        tables: Any = None,
    ) -> dict[tuple[str, ...], Schema]: ...


class View:
    """A view in a catalog. Made by :meth:`Catalog.load_view` and the create/replace calls."""

    def __init__(self, ops: MetadataSource, name: str, catalog: ViewCommitter | None = None) -> None:
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
    def catalog(self) -> ViewCommitter | None:
        return self._catalog

    @property
    def operations(self) -> MetadataSource:
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
    def _fresh(self) -> ViewMetadata:
        base = self._ops.refresh()
        if base is None:  # pragma: no cover - refresh raises NoSuchViewError instead
            raise InvalidStateError(f"View {self._name} has no metadata")
        return base

    def commit(self, change: ViewChange) -> View:
        """Commit ``change`` through the catalog (:meth:`Catalog.commit_view`); this handle then
        shows the committed metadata."""
        if self._catalog is None:
            raise InvalidStateError(f"View {self._name} has no catalog to commit to")
        committed = self._catalog.commit_view(self, change.requirements, change.updates)
        self._ops = committed.operations
        return self

    def update_properties(self) -> UpdateViewProperties:
        """Start a properties change: ``.set(k, v)``, ``.remove(k)``, then ``.commit()``."""
        return UpdateViewProperties(self)

    def replace_version(
        self, definition: ViewDefinition | None = None, **fields: Unpack[DefinitionFields]
    ) -> View:
        """Add a new version (id ``max + 1``) and make it current: Java's ``replaceVersion()``.
        Takes a :class:`ViewDefinition` or its fields (``schema``, ``queries``,
        ``default_namespace``, ``default_catalog``, ``summary``); the properties and location are
        kept unless the definition sets them. An identical earlier version is reused, as Java
        does."""
        d = ViewDefinition.of(definition, **fields)
        if d.dialects:
            raise InvalidArgumentError(
                "replace_version does not translate: use Catalog.replace_view(..., dialects=...) "
                "or add_dialects after it"
            )
        d.checked("replace")
        return self.commit(replace_change(self._fresh(), d, d.properties))

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
        ``UnsafeTranslationError``, several refused dialects raise ``DialectsRefusedError`` naming
        each, and nothing is committed). Dialects the version already has are left alone (one
        representation per dialect); when nothing is missing, nothing is committed.

        ``source`` picks the representation to translate (default ``spark``, else the first).
        Names are qualified with the version's ``default-catalog`` (or this view's catalog when it
        is null) and ``default-namespace``; ``known_catalogs`` adds catalog names a name may start
        with. ``schemas`` gives relation schemas (by default the catalog's views and tables, through
        PyIceberg: ``tables`` is an optional PyIceberg catalog to load tables with). The summary of
        the new version records ``iceview.translated-from`` (the source dialect) and
        ``iceview.translator-version``. If the view gets another current version before the commit
        lands, the commit fails with ``CommitFailedError`` rather than add stale translations."""
        from iceview.sql.translate import provenance_summary

        base = self._fresh()
        current = base.current_version
        reps = [r for r in current.representations if isinstance(r, SQLRepresentation)]
        if not reps:
            raise InvalidStateError(f"View {self._name} has no SQL representation to translate")
        dialects = list(dialects)
        derives = derive_dialects_of(base.properties)
        have = {d.lower() for d in current.dialects}
        extra = [
            d for d in (x.strip().lower() for x in dialects) if derives and d not in derives and d not in have
        ]
        if extra:
            # every commit derives exactly the property's dialects again: one added here would be lost
            raise InvalidArgumentError(
                f"View {self._name} derives its dialects ({DERIVE_DIALECTS}={','.join(derives)}): "
                f"add {', '.join(dict.fromkeys(extra))} to that property instead"
            )
        catalog_name = self._name.split(".", 1)[0] if self._catalog is None else self._catalog.name
        lookup: SchemaLookup | None = None
        if schemas is not None:
            fixed = schemas

            def lookup_fixed(sql: str, dialect: str) -> Mapping[tuple[str, ...], Schema]:
                return fixed

            lookup = lookup_fixed
        elif self._catalog is not None:
            cat = self._catalog

            def lookup_catalog(sql: str, dialect: str) -> Mapping[tuple[str, ...], Schema]:
                return cat.relation_schemas(
                    sql,
                    dialect,
                    default_catalog=current.default_catalog,
                    default_namespace=current.default_namespace,
                    tables=tables,
                )

            lookup = lookup_catalog
        used: set[Any] = set()
        added = translate_representations(
            reps,
            [d.strip().lower() for d in dialects],
            default_catalog=current.default_catalog or catalog_name,
            default_namespace=current.default_namespace,
            known_catalogs={catalog_name, *known_catalogs},
            schemas=lookup,
            source=source,
            view_schema=base.schema,
            summary=current.summary,
            properties=base.properties,
            catalog_name=catalog_name,
            catalog_properties=self._catalog.properties if self._catalog is not None else None,
            functions=self._catalog,
            tables=tables,
            used=used,
        )
        if not added:
            return self
        src = source_representation(reps, source)
        marks = {
            **provenance_summary(src.dialect),
            DERIVED_KEY: ",".join([*sorted(derived_dialects(current)), *(r.dialect for r in added)]),
            **inlined_functions_summary(used),
        }
        change = add_version_change(base, (*current.representations, *added), marks)
        return self.commit(change)

    def sync_dialects(self) -> View:
        """Derive again the dialects the view's ``iceview.derive-dialects`` property asks for
        (:mod:`iceview.view.derived`), from the current version's source SQL, in a new version,
        when the current version lacks them: a version written where iceview is not on the write
        path (Iceberg-Spark on a catalog's shared JDBC tables) carries only its own SQL. They are
        derived again, too, when they inlined a SQL UDF definition version that is no longer
        current (:func:`iceview.view.functions.stale_inlined`); a view without the property then
        derives again the dialects its current version derived. A current version that has every
        dialect the property asks for (hand-written, derived, or refused with its reasons recorded)
        and is in step with its functions is left alone, and nothing is committed. A view without
        the property (and nothing stale) raises ``InvalidStateError``."""
        base = self._fresh()
        wanted = derive_dialects_of(base.properties)
        current = base.current_version
        cat = self._catalog
        stale = (
            cat is not None
            and cat.supports_functions()
            and bool(stale_inlined(current, cat, base.properties))
        )
        if not wanted and stale:
            wanted = tuple(sorted(derived_dialects(current)))
        if not wanted:
            raise InvalidStateError(
                f"View {self._name} derives no dialects: set its {DERIVE_DIALECTS} property first "
                f"(e.g. {DERIVE_DIALECTS}=trino,duckdb)"
            )
        if cat is None:
            context = DeriveContext(self._name.split(".", 1)[0], {})
        else:

            def lookup(sql: str, dialect: str, version: ViewVersion) -> Mapping[tuple[str, ...], Schema]:
                return cat.relation_schemas(
                    sql,
                    dialect,
                    default_catalog=version.default_catalog,
                    default_namespace=version.default_namespace,
                )

            context = DeriveContext(cat.name, cat.properties, lookup, functions=cat)
        # every version iceview commits derives from its own SQL, so a version is in step when it
        # accounts for every dialect asked for (the SQL text is not compared: a server that derives
        # again, iceview serve, names catalogs as it knows them)
        accounted = {d.lower() for d in current.dialects} | set(refusals(current))
        drop_allowed = base.properties.get(REPLACE_DROP_DIALECT_ALLOWED, "").lower() == "true"
        if accounted >= set(wanted) and drop_allowed and not stale:
            return self
        derived = derive_version(current, wanted, base.schema, base.properties, context)
        # the version's own summary is kept: it says which engine (and Spark semantics) wrote the SQL
        return self.commit(add_version_change(base, derived.representations, derived.summary))

    def set_current_version(self, version_id: int) -> View:
        """Make a retained version current again (a rollback); the version log records it.
        Unknown ids raise ``InvalidArgumentError`` (``Cannot set current version to unknown version: N``)."""
        return self.commit(rollback_change(self._fresh(), version_id))

    def update_location(self, location: str | None) -> View:
        """Move the view's base location (new metadata files go under it): Java's
        ``updateLocation().setLocation(location).commit()``."""
        if location is None:
            raise InvalidStateError("Invalid view location: null")
        return self.commit(location_change(self._fresh(), location))

    def __repr__(self) -> str:
        return f"View({self._name!r})"


class UpdateViewProperties:
    """A pending properties change: Java's ``PropertiesUpdate``. Setting an unchanged value still
    writes a new metadata file, as in Java; an empty change writes nothing. Versions and the version
    log are untouched."""

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
        base = self._view._fresh()
        return (
            ViewMetadata.build_from(base)
            .set_properties(dict(self._updates))
            .remove_properties(list(self._removals))
            .build()
            .properties
        )

    def commit(self) -> View:
        """Commit the change (nothing is written when it sets and removes nothing)."""
        change = properties_change(self._view._fresh(), self._updates, self._removals)
        return self._view.commit(change)
