"""The view catalog interface: what every catalog offers, whatever holds its pointers.

Every change to a view goes through one method, :meth:`Catalog.commit_view`, as requirements plus
updates (REST's ``CommitViewRequest``). Create and replace take a
:class:`~iceview.view.ViewDefinition` (or its fields as keywords). Engines and the command line ask
a catalog what they need through this interface only: the table catalog for table schemas
(:meth:`Catalog.table_catalog`), the schemas a query reads (:meth:`Catalog.relation_schemas`), its
type and a displayable address (:attr:`Catalog.catalog_type`, :meth:`Catalog.display_uri`).
"""

from __future__ import annotations

import bisect
import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from iceview.errors import (
    InvalidArgumentError,
    InvalidIdentifierError,
    NoSuchFunctionError,
    NoSuchViewError,
    UnsupportedOperationError,
    ViewAlreadyExistsError,
)
from iceview.identifiers import (
    IdentifierLike,
    NamespaceLike,
    ViewIdentifier,
    to_identifier,
    to_new_identifier,
)

if TYPE_CHECKING:
    from pyiceberg.schema import Schema
    from typing_extensions import Unpack

    from iceview.function import Function, NewDefinition
    from iceview.spec import ViewMetadata, ViewRequirement, ViewUpdate, ViewVersion
    from iceview.udf import FunctionMetadata, FunctionRequirement, FunctionUpdate
    from iceview.view import DefinitionFields, View, ViewDefinition
    from iceview.view.functions import DependentsSync

# The format (iceview.spec, iceview.view, PyIceberg's schemas) is imported where a method needs
# it, so that listing names (``iceview list``) starts without loading it.

__all__ = ["Catalog", "NamespacePropertiesUpdate", "ViewPage", "close_table_catalog"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NamespacePropertiesUpdate:
    """What :meth:`Catalog.update_namespace_properties` did (PyIceberg's ``PropertiesUpdateSummary``)."""

    removed: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ViewPage:
    """One page of a namespace's views (:meth:`Catalog.list_views_page`)."""

    identifiers: list[tuple[str, ...]]
    more: bool
    """Whether views follow the last one of this page."""


class Catalog(ABC):
    """The view catalog API. Identifiers are ``"ns.name"`` strings or tuples of levels; namespaces
    are ``"a.b"`` strings or tuples."""

    catalog_type: ClassVar[str] = "unknown"
    """The catalog's type as configured (``type`` property): ``sql``, ``rest``, ..."""

    def __init__(self, name: str, properties: Mapping[str, str]) -> None:
        self.name = name
        self.properties: dict[str, str] = dict(properties)

    # -- the one change path ---------------------------------------------------------------------
    @abstractmethod
    def commit_view(
        self,
        identifier: IdentifierLike | View,
        requirements: Sequence[ViewRequirement],
        updates: Sequence[ViewUpdate],
    ) -> View:
        """Check ``requirements`` against the view's current metadata, apply ``updates`` to it
        (:func:`iceview.spec.apply`) and swap the catalog's pointer to the result, retrying on
        conflicts with the view's ``commit.retry.*`` properties (updates are re-applied to the
        fresh metadata; requirements are checked again and a failed one is not retried). With
        :class:`~iceview.spec.AssertCreate` the view is created. An empty change commits nothing.
        The counterpart of PyIceberg's ``Catalog.commit_table``: ``identifier`` may be a
        :class:`View` handle of this catalog, whose loaded metadata is then the first base."""

    def _derive(self, base: ViewMetadata | None, updates: Sequence[ViewUpdate]) -> list[ViewUpdate]:
        """The updates a commit sends: with the derived dialects the view's
        ``iceview.derive-dialects`` asks for made again in every version it adds
        (:func:`iceview.view.derived.derive_updates`), translated with this catalog's schemas."""
        from iceview.view.derived import DeriveContext, derive_updates

        return derive_updates(
            base, updates, DeriveContext(self.name, self.properties, self._version_schemas, functions=self)
        )

    def _version_schemas(self, sql: str, dialect: str, version: ViewVersion) -> dict[tuple[str, ...], Schema]:
        return self.relation_schemas(
            sql, dialect, default_catalog=version.default_catalog, default_namespace=version.default_namespace
        )

    def _handle_operations(self, identifier: IdentifierLike | View) -> tuple[ViewIdentifier, object | None]:
        """The identifier ``commit_view`` was given and, when it is a :class:`View` handle of this
        catalog, the handle's operations: their loaded metadata is then the first base (as Java's
        ``PropertiesUpdate`` refreshes its own operations), so nothing is read twice."""
        from iceview.view import View

        if not isinstance(identifier, View):
            return to_identifier(identifier), None
        return identifier.identifier, identifier.operations if identifier.catalog is self else None

    # -- create and replace ----------------------------------------------------------------------
    def create_view(
        self,
        identifier: IdentifierLike,
        definition: ViewDefinition | None = None,
        **fields: Unpack[DefinitionFields],
    ) -> View:
        """Create a view from ``definition`` (or its fields as keywords). Java's
        ``buildView(...).create()``: ``ViewAlreadyExistsError`` if it exists."""
        return self._create_view(to_identifier(identifier), self._prepared(definition, fields))

    def replace_view(
        self,
        identifier: IdentifierLike,
        definition: ViewDefinition | None = None,
        **fields: Unpack[DefinitionFields],
    ) -> View:
        """Replace a view's definition with a new current version (properties are merged; the
        location moves only when given). Java's ``buildView(...).replace()``."""
        return self._replace_view(to_identifier(identifier), self._prepared(definition, fields))

    def create_or_replace_view(
        self,
        identifier: IdentifierLike,
        definition: ViewDefinition | None = None,
        **fields: Unpack[DefinitionFields],
    ) -> View:
        """Create the view, or replace it if it exists. Java's ``createOrReplace()``."""
        return self._create_or_replace_view(to_identifier(identifier), self._prepared(definition, fields))

    @abstractmethod
    def _create_view(self, identifier: ViewIdentifier, definition: ViewDefinition) -> View: ...

    @abstractmethod
    def _replace_view(self, identifier: ViewIdentifier, definition: ViewDefinition) -> View: ...

    def _create_or_replace_view(self, identifier: ViewIdentifier, definition: ViewDefinition) -> View:
        """Create the view, or replace it if it exists; a view created or dropped concurrently
        between the check and the write is replaced or created instead (three attempts)."""
        for attempt in range(3):
            last = attempt == 2
            if not self.view_exists(identifier):
                try:
                    return self._create_view(identifier, definition)
                except ViewAlreadyExistsError:
                    if last:
                        raise
                    continue  # created concurrently: replace it
            try:
                return self._replace_view(identifier, definition)
            except NoSuchViewError:
                if last:
                    raise
                continue  # dropped concurrently: create it
        raise AssertionError("unreachable")  # pragma: no cover

    def _prepared(self, definition: ViewDefinition | None, fields: DefinitionFields) -> ViewDefinition:
        """The definition asked for, with the translations of its ``dialects`` added (and the
        provenance keys in the summary). Unsafe SQL raises; nothing is committed then."""
        from iceview.view import ViewDefinition, source_representation, translate_representations
        from iceview.view.dialects import inlined_functions_summary

        d = ViewDefinition.of(definition, **fields)
        if not d.dialects or not d.representations or d.default_namespace is None:
            return d
        namespace = d.default_namespace
        used: set[Any] = set()
        added = translate_representations(
            d.representations,
            d.dialects,
            default_catalog=d.default_catalog or self.name,
            default_namespace=namespace,
            known_catalogs={self.name, d.default_catalog or self.name},
            schemas=lambda sql, dialect: self.relation_schemas(
                sql, dialect, default_catalog=d.default_catalog, default_namespace=namespace
            ),
            view_schema=d.schema,
            summary=d.summary,
            properties=d.properties,
            catalog_name=self.name,
            catalog_properties=self.properties,
            functions=self,
            used=used,
        )
        if not added:
            return d.with_representations(d.representations, d.summary)
        from iceview.sql.translate import provenance_summary

        source = source_representation(d.representations)
        return d.with_representations(
            [*d.representations, *added],
            {**d.summary, **provenance_summary(source.dialect), **inlined_functions_summary(used)},
        )

    # -- views -----------------------------------------------------------------------------------
    @abstractmethod
    def load_view(
        self, identifier: IdentifierLike, *, referenced_by: Sequence[IdentifierLike] | None = None
    ) -> View:
        """The view ``identifier`` names (``NoSuchViewError`` if there is none).

        ``referenced_by`` is the chain of views the view is loaded through when an engine expands
        a view that reads it: outermost view first, down to the view that names this one (REST
        spec 1.11's ``referenced-by``). A REST catalog sends it to the server (for its
        authorization and audit), and sends it again when the returned view is refreshed; other
        catalogs accept it and ignore it. It never changes what is loaded."""

    def load_view_nowait(self, identifier: IdentifierLike) -> View | None:
        """:meth:`load_view` when it can be answered without waiting (no lock, network or storage
        read to wait for), else None: the caller then calls :meth:`load_view` where waiting does no
        harm. For a server's event loop. The pointer is read all the same, so the view is never
        stale. A catalog that cannot tell answers None (the default)."""
        return None

    @abstractmethod
    def view_exists(self, identifier: IdentifierLike) -> bool: ...

    @abstractmethod
    def list_views(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]: ...

    def list_views_page(self, namespace: NamespaceLike, *, after: str | None, limit: int) -> ViewPage:
        """Up to ``limit`` (at least 1) views of ``namespace`` whose names come after ``after`` (from
        the first when None), in this catalog's order of names. A catalog whose store can answer one
        page overrides this (the SQL catalog asks its database for it, so that walking a namespace
        page by page costs the namespace's size, not its square); this one lists the namespace."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1: {limit}")
        names = self.list_views(namespace)
        start = 0 if after is None else bisect.bisect_right(names, after, key=lambda n: n[-1])
        return ViewPage(names[start : start + limit], start + limit < len(names))

    @abstractmethod
    def drop_view(self, identifier: IdentifierLike) -> bool: ...

    @abstractmethod
    def rename_view(self, from_identifier: IdentifierLike, to_identifier: IdentifierLike) -> None: ...

    @abstractmethod
    def register_view(self, identifier: IdentifierLike, metadata_location: str) -> View: ...

    # -- tables (read-only: tables belong to PyIceberg / Iceberg Java) ----------------------------
    @abstractmethod
    def table_exists(self, identifier: IdentifierLike) -> bool: ...

    @abstractmethod
    def list_tables(self, namespace: NamespaceLike) -> list[tuple[str, ...]]: ...

    def table_catalog(self) -> Any:
        """PyIceberg's catalog on the same metastore, for the schemas and data of tables, or None
        when there is none. The caller owns it (close it, or dispose its engine, when done)."""
        return None

    def relation_schemas(
        self,
        sql: str,
        dialect: str,
        *,
        default_catalog: str | None,
        default_namespace: Sequence[str],
        tables: Any = None,
    ) -> dict[tuple[str, ...], Schema]:
        """The schemas of the relations ``sql`` reads that live in this catalog (named by its name
        or one of its ``iceview.catalog-aliases``; views: their current schema; tables: PyIceberg's,
        through ``tables`` or :meth:`table_catalog`), by qualified name. For translation's type rules."""
        from iceview.sql import find_references, qualify_parts
        from iceview.view.derived import DeriveContext

        catalog = default_catalog or self.name
        ours = DeriveContext(self.name, self.properties).names  # with iceview.catalog-aliases
        out: dict[tuple[str, ...], Schema] = {}
        table_catalog = tables
        created = False
        try:
            for ref in find_references(sql, dialect):
                parts = qualify_parts(
                    ref.parts,
                    default_catalog=catalog,
                    default_namespace=default_namespace,
                    known_catalogs={catalog, *ours},
                )
                if parts in out or parts[0] not in ours or len(parts) < 3:
                    continue
                ident = parts[1:]
                try:
                    if self.view_exists(ident):
                        out[parts] = self.load_view(ident).schema
                        continue
                    if self.table_exists(ident):
                        if table_catalog is None:
                            table_catalog = self.table_catalog()
                            created = table_catalog is not None
                        if table_catalog is not None:
                            out[parts] = table_catalog.load_table(ident).schema()
                except Exception as e:  # a schema we cannot read only makes the type rules stricter
                    log.debug("No schema for %s: %s", ".".join(parts), e)
        finally:
            if created:
                close_table_catalog(table_catalog)
        return out

    def relation_types(
        self, identifier: IdentifierLike, dialect: str, *, tables: Any = None
    ) -> dict[str, str] | None:
        """The columns of this catalog's view or table ``identifier`` and their types spelled in
        ``dialect`` (:func:`iceview.sql.type_namer`), or None when it names neither, or a type has
        no name in ``dialect``. For the engines, to type the arguments of SQL UDF calls."""
        from iceview.errors import TranslationError
        from iceview.sql import render_name, type_namer

        try:
            parts = (self.name, *to_identifier(identifier).levels)
        except InvalidIdentifierError:
            return None
        schemas = self.relation_schemas(
            f"SELECT * FROM {render_name(parts, dialect)}",
            dialect,
            default_catalog=self.name,
            default_namespace=(),
            tables=tables,
        )
        schema = schemas.get(parts)
        if schema is None:
            return None
        try:
            namer = type_namer(dialect)
            return {f.name: namer(f.field_type) for f in schema.fields}
        except TranslationError:
            return None

    # -- namespaces ------------------------------------------------------------------------------
    @abstractmethod
    def create_namespace(
        self, namespace: NamespaceLike, properties: Mapping[str, str] | None = None
    ) -> None: ...

    @abstractmethod
    def list_namespaces(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]: ...

    @abstractmethod
    def namespace_exists(self, namespace: NamespaceLike) -> bool: ...

    @abstractmethod
    def load_namespace_properties(self, namespace: NamespaceLike) -> dict[str, str]: ...

    @abstractmethod
    def update_namespace_properties(
        self,
        namespace: NamespaceLike,
        removals: Iterable[str] | None = None,
        updates: Mapping[str, str] | None = None,
    ) -> NamespacePropertiesUpdate: ...

    @abstractmethod
    def drop_namespace(self, namespace: NamespaceLike) -> bool: ...

    # -- functions (SQL UDFs) --------------------------------------------------------------------
    # A catalog that keeps no functions answers UnsupportedOperationError; see docs/functions.md.

    def supports_functions(self) -> bool:
        """Whether this catalog keeps SQL UDFs (else every function method raises
        ``UnsupportedOperationError``)."""
        return False

    def _function_operations(
        self, identifier: IdentifierLike | Function
    ) -> tuple[ViewIdentifier, object | None]:
        """As :meth:`_handle_operations`, for a :class:`~iceview.function.Function` handle."""
        from iceview.function import Function

        if not isinstance(identifier, Function):
            return to_identifier(identifier), None
        return identifier.identifier, identifier.operations if identifier.catalog is self else None

    @staticmethod
    def _checked_change(requirements: Sequence[Any], updates: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """``requirements`` and ``updates`` as lists; anything but a sequence raises
        ``InvalidArgumentError``."""
        out: list[list[Any]] = []
        for what, given in (("requirements", requirements), ("updates", updates)):
            if given is None or isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Iterable):
                shown = "null" if given is None else repr(given)[:200]
                raise InvalidArgumentError(f"Invalid {what}: {shown} (a sequence of {what})")
            out.append(list(given))
        return out[0], out[1]

    def _no_functions(self) -> UnsupportedOperationError:
        return UnsupportedOperationError(
            f"The {self.catalog_type} catalog {self.name} does not keep SQL UDFs"
        )

    def commit_function(
        self,
        identifier: IdentifierLike | Function,
        requirements: Sequence[FunctionRequirement],
        updates: Sequence[FunctionUpdate],
    ) -> Function:
        """The one change path of SQL UDFs, as :meth:`commit_view` is of views: check
        ``requirements`` against the function's current metadata, apply ``updates``
        (:func:`iceview.udf.apply`) and swap the pointer, retrying on conflicts with the
        function's ``commit.retry.*`` properties. With :class:`iceview.udf.AssertCreate` the
        function is created. ``identifier`` may be a :class:`~iceview.function.Function` handle
        of this catalog."""
        raise self._no_functions()

    def create_function(
        self,
        identifier: IdentifierLike,
        definitions: NewDefinition | Sequence[NewDefinition],
        *,
        location: str | None = None,
        properties: Mapping[str, str] | None = None,
        doc: str | None = None,
        secure: bool = False,
    ) -> Function:
        """Create a SQL UDF with one or more definitions (overloads):
        ``FunctionAlreadyExistsError`` if the name holds one. The location defaults to
        :meth:`default_function_location`."""
        from iceview.function.changes import create_change

        ident = to_new_identifier(identifier)
        change = create_change(
            definitions if isinstance(definitions, Sequence) else [definitions],
            location or self.default_function_location(ident),
            properties,
            doc=doc,
            secure=secure,
        )
        return self.commit_function(ident, change.requirements, change.updates)

    def _before_function_create(self, identifier: ViewIdentifier) -> None:
        """Called by :meth:`commit_function` before a create writes anything: raise
        :meth:`_no_functions` unless this catalog keeps functions (one that does checks what it
        can, such as the namespace)."""
        raise self._no_functions()

    def default_function_location(self, identifier: ViewIdentifier) -> str | None:
        """Where a new function's metadata goes when none is given (None: the catalog decides)."""
        return None

    def load_function(self, identifier: IdentifierLike) -> Function:
        """The SQL UDF ``identifier`` names (``NoSuchFunctionError`` if there is none)."""
        raise self._no_functions()

    def find_function(self, identifier: IdentifierLike) -> FunctionMetadata | None:
        """The current metadata of the SQL UDF ``identifier`` names, read fresh, or None when it
        names none, is no valid name, or this catalog keeps no functions: what an engine asks for
        each call it might inline."""
        if not self.supports_functions():
            return None
        try:
            return self.load_function(identifier).metadata
        except (NoSuchFunctionError, InvalidIdentifierError):
            return None

    def function_exists(self, identifier: IdentifierLike) -> bool:
        raise self._no_functions()

    def sync_function_dependents(self, identifier: IdentifierLike) -> DependentsSync:
        """Derive again the translated dialects of every view of this catalog that inlined the
        function ``identifier`` names (:mod:`iceview.catalog.dependents`: a walk of every view)."""
        from iceview.catalog.dependents import sync_dependents

        return sync_dependents(self, self, identifier)

    def list_functions(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        """The SQL UDFs of a namespace, sorted."""
        raise self._no_functions()

    def drop_function(self, identifier: IdentifierLike) -> bool:
        """Drop a SQL UDF (its current metadata file too, when ``gc.enabled``); False if none."""
        raise self._no_functions()

    def rename_function(self, from_identifier: IdentifierLike, to_identifier: IdentifierLike) -> None:
        raise self._no_functions()

    # -- display and lifecycle -------------------------------------------------------------------
    def metadata_pointers(self) -> set[str]:
        """Every metadata file location an entry of this catalog points at: what must never be
        deleted as an orphan (:func:`iceview.catalog.orphans.metadata_orphans`). This default
        walks every namespace and loads every view and function; a catalog that can answer at once
        does."""
        found: set[str] = set()
        functions = self.supports_functions()
        pending: list[tuple[str, ...]] = [()]
        while pending:
            namespace = pending.pop()
            pending += self.list_namespaces(namespace)
            locations = [self.load_view(name).metadata_location for name in self.list_views(namespace)]
            if functions:
                locations += [self.load_function(f).metadata_location for f in self.list_functions(namespace)]
            found.update(location for location in locations if location)
        return found

    def display_uri(self) -> str | None:
        """Where the catalog lives, for display: secrets (passwords, tokens) are masked."""
        return None

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def close_table_catalog(table_catalog: Any) -> None:
    """Release what a catalog from :meth:`Catalog.table_catalog` holds (PyIceberg's SQL catalog
    keeps a SQLAlchemy engine; others hold nothing to release)."""
    from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog

    if isinstance(table_catalog, PyIcebergSqlCatalog):
        table_catalog.engine.dispose()
