"""The one walk through a catalog's namespaces that ``list``, ``tables``, ``lint --all``, the
did-you-mean hints and shell completion share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from iceview.errors import NoSuchNamespaceError

if TYPE_CHECKING:
    from iceview.catalog import Catalog

__all__ = ["walk"]


def walk(
    catalog: Catalog,
    kind: Literal["views", "tables", "functions", "namespaces"],
    namespace: tuple[str, ...] = (),
) -> Iterator[tuple[str, ...]]:
    """Every view, table, function or namespace at and below ``namespace`` (the root by default), depth
    first: a namespace's own views or tables, sorted, then each child namespace in turn.

    A catalog without a root namespace has nothing in it; any other namespace that does not exist
    raises the catalog's :class:`~iceview.errors.NoSuchNamespaceError`.
    """
    if kind != "namespaces":
        try:
            if kind == "views":
                found = catalog.list_views(namespace)
            elif kind == "functions":
                found = catalog.list_functions(namespace)
            else:
                found = catalog.list_tables(namespace)
        except NoSuchNamespaceError:
            if namespace:
                raise
            found = []
        yield from sorted(tuple(name) for name in found)
    for child in catalog.list_namespaces(namespace):
        level = tuple(child)
        if kind == "namespaces":
            yield level
        yield from walk(catalog, kind, level)
