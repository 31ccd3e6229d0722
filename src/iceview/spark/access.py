"""How :class:`~iceview.spark.SparkViews` reads the iceview catalog: through its public interface
only (:meth:`~iceview.catalog.Catalog.load_view` and :meth:`View.refresh <iceview.view.View.refresh>`).

A handle is kept per view and refreshed on every read, so each statement sees the view as the
catalog holds it now, and an unchanged view costs one look at the catalog's pointer: its metadata
file is not read again.

A view read while expanding another is loaded with the chain of views it is read through
(``load_view(..., referenced_by=...)``: a REST catalog tells its server), and its handle is kept
per chain, so its refreshes go through the same views.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from pyiceberg.schema import Schema

from iceview.errors import (
    InvalidIdentifierError,
    NoSuchViewError,
    SQLParseError,
    ViewUUIDMismatchError,
)
from iceview.identifiers import ViewIdentifier, to_identifier
from iceview.spark import _format
from iceview.spark.errors import view_not_found
from iceview.spark.names import ENGINE_NAME
from iceview.spec import ViewMetadata
from iceview.sql import ResolvedView, find_references
from iceview.sql.inline import source_preparer
from iceview.view.reading import engine_sql

if TYPE_CHECKING:
    from iceview.catalog.interface import Catalog
    from iceview.spark.names import Translate
    from iceview.udf import FunctionMetadata
    from iceview.view import View

__all__ = ["AccessHost", "Chain", "ViewAccess"]

Chain = tuple[ViewIdentifier, ...]
"""The views a view is read through, outermost first (``referenced-by``)."""


class AccessHost(Protocol):
    """What :class:`ViewAccess` needs of its :class:`~iceview.spark.SparkViews`."""

    catalog: Catalog
    name: str
    translate: bool | Translate

    @property
    def ansi_enabled(self) -> bool | None: ...


class ViewAccess:
    """The views of a :class:`~iceview.spark.SparkViews`' catalog, loaded fresh."""

    def __init__(self, views: AccessHost) -> None:
        self.views = views
        self._handles: dict[tuple[ViewIdentifier, Chain], View] = {}

    def load(self, ident: ViewIdentifier, referenced_by: Chain = ()) -> ViewMetadata | None:
        """The view's current metadata (fresh from the catalog), or ``None`` if there is no view.
        ``referenced_by``: the views it is read through, outermost first."""
        key = (ident, referenced_by)
        catalog = self.views.catalog
        for _ in range(2):
            handle = self._handles.get(key)
            try:
                if handle is None:
                    # without a chain, called as before: a catalog written for the older interface works
                    if referenced_by:
                        handle = catalog.load_view(ident, referenced_by=referenced_by)
                    else:
                        handle = catalog.load_view(ident)
                    self._handles[key] = handle
                else:
                    handle.refresh()
                return handle.metadata
            except NoSuchViewError:
                self._handles.pop(key, None)
                return None
            except ViewUUIDMismatchError:  # dropped and created again: start over
                self._handles.pop(key, None)
        return None

    def load_view(self, ident: ViewIdentifier) -> View:
        """A new handle on the view (for a change), or Spark's ``TABLE_OR_VIEW_NOT_FOUND``."""
        try:
            return self.views.catalog.load_view(ident)
        except NoSuchViewError as e:
            raise view_not_found(_format.quoted(ident.levels)) from e

    def forget(self, ident: ViewIdentifier) -> None:
        """Drop the handles kept for ``ident`` (the view was dropped)."""
        for key in [k for k in self._handles if k[0] == ident]:
            del self._handles[key]

    def resolve(self, qualified: tuple[str, ...], referenced_by: Chain = ()) -> ResolvedView | None:
        """The view ``qualified`` (``<catalog>.<ns>...<name>``) names, for expansion, or ``None``;
        ``referenced_by``: the views of this catalog it is read through, outermost first."""
        views = self.views
        if len(qualified) < 2 or qualified[0] != views.name:
            return None
        try:
            ident = to_identifier(qualified[1:])
        except InvalidIdentifierError:
            return None
        metadata = self.load(ident, referenced_by)
        if metadata is None:
            return None
        hook = views.translate if callable(views.translate) else None
        if hook is not None or metadata.current_version.sql_for(ENGINE_NAME) is not None:
            # the view's spark SQL, or another dialect for the expander's hook to translate
            return ResolvedView.from_metadata(
                qualified, metadata, dialect=ENGINE_NAME, allow_other_dialect=hook is not None
            )
        read = engine_sql(
            ".".join(qualified),
            metadata,
            ENGINE_NAME,
            default_catalog=qualified[0],
            translate=views.translate is True,
            schemas=self._schemas,
            known_catalogs={views.name},
            spark_ansi=views.ansi_enabled,
            prepare=self._preparer(),
        )
        return ResolvedView.with_sql(qualified, metadata, read.sql, read.dialect)

    def _preparer(self) -> Callable[[str, str, str, tuple[str, ...]], str] | None:
        """For a view read by translation: its functions inlined in its own dialect first, with
        the column types of the catalog's views and tables."""
        views = self.views
        if not views.catalog.supports_functions():
            return None
        return source_preparer(
            self.load_function,
            lambda dialect: lambda qualified: self.catalog_types(qualified, dialect),
            known_catalogs={views.name},
            spark_ansi=views.ansi_enabled,
        )

    def catalog_types(self, qualified: tuple[str, ...], dialect: str) -> dict[str, str] | None:
        """A view's or table's columns of the catalog by qualified name, spelled in ``dialect``."""
        if qualified[0] != self.views.name or len(qualified) < 3:
            return None
        return self.views.catalog.relation_types(qualified[1:], dialect)

    def _schemas(
        self, sql: str, dialect: str, default_catalog: str | None, default_namespace: Sequence[str]
    ) -> dict[tuple[str, ...], Schema]:
        """The schemas of what a view's SQL reads, from the catalog (for translation's type rules)."""
        return self.views.catalog.relation_schemas(
            sql, dialect, default_catalog=default_catalog, default_namespace=default_namespace
        )

    def load_function(self, qualified: tuple[str, ...]) -> FunctionMetadata | None:
        """The metadata of the catalog's SQL UDF ``qualified`` names (catalog first), fresh, or
        ``None`` when it names none (or the catalog keeps no functions)."""
        if qualified[0] != self.views.name or len(qualified) < 3:
            return None
        return self.views.catalog.find_function(qualified[1:])

    @staticmethod
    def references(view: ResolvedView) -> tuple[tuple[str, ...], ...]:
        """The relation names the view's SQL reads, as written (unqualified); none when it does
        not parse (expansion reports that)."""
        return _written_references(view.sql, view.dialect)

    def full_name(self, ident: ViewIdentifier) -> str:
        """Iceberg's ``View.name()``: ``<catalog>.<ns>.<name>``, unquoted."""
        return ".".join((self.views.name, *ident.levels))


@lru_cache(maxsize=1024)
def _written_references(sql: str, dialect: str) -> tuple[tuple[str, ...], ...]:
    # a view's SQL is parsed once per process, not once per statement that reads it
    try:
        return tuple(ref.parts for ref in find_references(sql, dialect))
    except SQLParseError:
        return ()
