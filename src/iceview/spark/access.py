"""How :class:`~iceview.spark.SparkViews` reads the iceview catalog: through its public interface
only (:meth:`~iceview.catalog.Catalog.load_view` and :meth:`View.refresh <iceview.view.View.refresh>`).

A handle is kept per view and refreshed on every read, so each statement sees the view as the
catalog holds it now, and an unchanged view costs one look at the catalog's pointer: its metadata
file is not read again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from pyiceberg.schema import Schema

from iceview.errors import InvalidIdentifierError, NoSuchViewError, ViewUUIDMismatchError
from iceview.identifiers import ViewIdentifier, to_identifier
from iceview.spark import _format
from iceview.spark.errors import view_not_found
from iceview.spark.names import ENGINE_NAME
from iceview.spec import ViewMetadata
from iceview.sql import ResolvedView
from iceview.view.reading import engine_sql

if TYPE_CHECKING:
    from iceview.catalog.interface import Catalog
    from iceview.spark.names import Translate
    from iceview.view import View

__all__ = ["AccessHost", "ViewAccess"]


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
        self._handles: dict[ViewIdentifier, View] = {}

    def load(self, ident: ViewIdentifier) -> ViewMetadata | None:
        """The view's current metadata (fresh from the catalog), or ``None`` if there is no view."""
        for _ in range(2):
            handle = self._handles.get(ident)
            try:
                if handle is None:
                    handle = self.views.catalog.load_view(ident)
                    self._handles[ident] = handle
                else:
                    handle.refresh()
                return handle.metadata
            except NoSuchViewError:
                self._handles.pop(ident, None)
                return None
            except ViewUUIDMismatchError:  # dropped and created again: start over
                self._handles.pop(ident, None)
        return None

    def load_view(self, ident: ViewIdentifier) -> View:
        """A new handle on the view (for a change), or Spark's ``TABLE_OR_VIEW_NOT_FOUND``."""
        try:
            return self.views.catalog.load_view(ident)
        except NoSuchViewError as e:
            raise view_not_found(_format.quoted(ident.levels)) from e

    def forget(self, ident: ViewIdentifier) -> None:
        """Drop the handle kept for ``ident`` (the view was dropped)."""
        self._handles.pop(ident, None)

    def resolve(self, qualified: tuple[str, ...]) -> ResolvedView | None:
        """The view ``qualified`` (``<catalog>.<ns>...<name>``) names, for expansion, or ``None``."""
        views = self.views
        if len(qualified) < 2 or qualified[0] != views.name:
            return None
        try:
            ident = to_identifier(qualified[1:])
        except InvalidIdentifierError:
            return None
        metadata = self.load(ident)
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
        )
        return ResolvedView.with_sql(qualified, metadata, read.sql, read.dialect)

    def _schemas(
        self, sql: str, dialect: str, default_catalog: str | None, default_namespace: Sequence[str]
    ) -> dict[tuple[str, ...], Schema]:
        """The schemas of what a view's SQL reads, from the catalog (for translation's type rules)."""
        return self.views.catalog.relation_schemas(
            sql, dialect, default_catalog=default_catalog, default_namespace=default_namespace
        )

    def full_name(self, ident: ViewIdentifier) -> str:
        """Iceberg's ``View.name()``: ``<catalog>.<ns>.<name>``, unquoted."""
        return ".".join((self.views.name, *ident.levels))
