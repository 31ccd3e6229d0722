"""Listing a metastore database's entries: names first, entries in bounded batches.

The metastore answers a list of names cheaply (``get_tables_by_type`` / ``get_all_tables``: strings
only); the entries themselves (``get_table_objects_by_name``: storage descriptor, columns,
parameters) are what tell an Iceberg view from a plain Hive view or an Iceberg table, and they are
the cost. A whole list fetches them in batches of :data:`BATCH` names (so no single request grows
with the database); a page fetches only the entries of the names it may show, so a page of 100
views of a database of 100,000 costs the names and about 100 entries, not 100,000.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from iceview.catalog.hive_client import MetastoreClients
from iceview.errors import NoSuchNamespaceError

__all__ = ["BATCH", "HiveListing"]

BATCH = 1000
"""Names per ``get_table_objects_by_name`` request of a whole list."""


class HiveListing:
    """The entries of a database of one metastore (through :class:`MetastoreClients`)."""

    def __init__(self, clients: MetastoreClients) -> None:
        self.clients = clients

    def names(self, database: str, table_type: str | None) -> list[str]:
        """The sorted names of the database's entries of ``table_type`` (all when ``None``);
        :class:`NoSuchNamespaceError` if there is no such database."""
        from hive_metastore.ttypes import NoSuchObjectException, UnknownDBException

        missing = (NoSuchObjectException, UnknownDBException)
        try:
            if table_type is None:
                found = self.clients.run(
                    f"list {database}", lambda c: c.get_all_tables(database), expected=missing
                )
            else:
                found = self.clients.run(
                    f"list {database}",
                    lambda c: c.get_tables_by_type(database, "*", table_type),
                    expected=missing,
                )
        except missing as e:
            raise NoSuchNamespaceError(f"Namespace does not exist: {database}") from e
        return sorted(found or ())

    def entries(self, database: str, names: Sequence[str]) -> list[Any]:
        """The entries of ``names`` (one request; names no longer there are left out)."""
        from hive_metastore.ttypes import NoSuchObjectException, UnknownDBException

        if not names:
            return []
        missing = (NoSuchObjectException, UnknownDBException)
        wanted = list(names)
        try:
            found = self.clients.run(
                f"list {database}",
                lambda c: c.get_table_objects_by_name(database, wanted),
                expected=missing,
            )
        except missing as e:
            raise NoSuchNamespaceError(f"Namespace does not exist: {database}") from e
        return list(found or ())

    def of_type(self, database: str, keep: Callable[[Any], bool], table_type: str | None) -> Iterator[Any]:
        """Every entry of ``table_type`` that ``keep`` accepts, in name order, fetched in batches."""
        names = self.names(database, table_type)
        for start in range(0, len(names), BATCH):
            batch = self.entries(database, names[start : start + BATCH])
            yield from sorted((t for t in batch if keep(t)), key=lambda t: str(t.tableName))

    def page(
        self,
        database: str,
        keep: Callable[[Any], bool],
        table_type: str | None,
        *,
        after: str | None,
        limit: int,
    ) -> tuple[list[str], bool]:
        """Up to ``limit`` names, after ``after``, of the entries ``keep`` accepts, and whether
        more follow. Entries are fetched for just enough names to fill the page and tell whether
        one more follows (more when some names turn out not to be kept)."""
        names = self.names(database, table_type)
        i = 0 if after is None else bisect.bisect_right(names, after)
        kept: list[str] = []
        while i < len(names) and len(kept) <= limit:
            batch = names[i : i + limit + 1 - len(kept)]
            i += len(batch)
            kept += sorted(str(t.tableName) for t in self.entries(database, batch) if keep(t))
        return kept[:limit], len(kept) > limit
