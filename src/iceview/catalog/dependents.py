"""The views that inlined a SQL UDF, and keeping their translated dialects in step when it changes.

A view's translated dialects (``add-dialect``, ``iceview.derive-dialects``) hold the bodies of the
functions they inlined; the version summary records which definition versions
(``iceview.inlined-functions``, :func:`iceview.view.functions.inlined_definitions`). No catalog
keeps an index from a function to those views, so :func:`dependent_views` walks the catalog's views
and reads each one's current version (one load per view: a cost that grows with the catalog).
:func:`sync_dependents` derives each dependent's dialects again (:meth:`iceview.view.View.sync_dialects`):
what :class:`~iceview.function.Function`'s changes of a definition do once they are committed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from iceview.catalog.walk import Listing, walk
from iceview.errors import IceviewError, NoSuchViewError
from iceview.identifiers import IdentifierLike, to_identifier
from iceview.view.functions import DependentsSync, inlined_definitions, wants_sync

if TYPE_CHECKING:
    from iceview.view import View
    from iceview.view.dialects import FunctionSource

__all__ = ["dependent_views", "sync_dependents"]


class Catalog(Listing, Protocol):
    """What finding and syncing dependents asks of a catalog (:class:`~iceview.catalog.Catalog`)."""

    def load_view(self, identifier: Any) -> View: ...


def dependent_views(catalog: Catalog, function: IdentifierLike) -> Iterator[View]:
    """Every view of ``catalog`` whose current version's translated dialects inlined a definition
    of ``function`` (namespace and name), or whose record of them cannot be read. A view that
    cannot be loaded is passed over."""
    target = tuple(to_identifier(function).levels)
    for levels in walk(catalog, "views"):
        try:
            view = catalog.load_view(levels)
        except NoSuchViewError:
            continue  # dropped meanwhile
        except IceviewError:
            continue  # unreadable metadata: lint reports it
        used = inlined_definitions(view.metadata.current_version)
        if used is None or any((*u.namespace, u.name) == target for u in used):
            yield view


def sync_dependents(catalog: Catalog, functions: FunctionSource, function: IdentifierLike) -> DependentsSync:
    """Derive again the translated dialects of every view of ``catalog`` that inlined ``function``
    (of ``functions``: the same catalog), each view in a commit of its own (:meth:`~iceview.view.View.sync_dialects`); one view that cannot be synced
    does not stop the others."""
    synced: list[str] = []
    in_step: list[str] = []
    failed: list[tuple[str, str]] = []
    for view in dependent_views(catalog, function):
        before = view.metadata_location
        try:
            if not wants_sync(view.metadata, functions):
                in_step.append(view.name)  # nothing to derive, and its dialects are in step
                continue
            after = view.sync_dialects()
        except IceviewError as e:
            failed.append((view.name, str(e)))
            continue
        (synced if after.metadata_location != before else in_step).append(view.name)
    return DependentsSync(tuple(synced), tuple(in_step), tuple(failed))
