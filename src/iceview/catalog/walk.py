"""The one walk through a catalog's namespaces that the CLI's ``list``, ``tables``, ``lint --all``,
``dialects sync --all``, its did-you-mean hints and shell completion share, and the search for the
views that inlined a function (:mod:`iceview.catalog.dependents`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Literal, Protocol

from iceview.errors import NoSuchNamespaceError

__all__ = ["Listing", "walk"]


class Listing(Protocol):
    """What the walk asks of a catalog (:class:`~iceview.catalog.Catalog` has it)."""

    def list_namespaces(self, namespace: Any) -> Sequence[Sequence[str]]: ...

    def list_views(self, namespace: Any) -> Sequence[Sequence[str]]: ...

    def list_tables(self, namespace: Any) -> Sequence[Sequence[str]]: ...

    def list_functions(self, namespace: Any) -> Sequence[Sequence[str]]: ...


def walk(
    catalog: Listing,
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
