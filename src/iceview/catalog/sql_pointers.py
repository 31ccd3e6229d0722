"""The metadata pointers of the SQL catalog, read and swapped one way for every kind.

A view's pointer is its row in Java's ``iceberg_tables`` (``iceberg_type = 'VIEW'``); a SQL UDF's
is its row in iceview's own ``iceview_functions`` (:mod:`iceview.catalog.sql_functions`). Both are
read by name and swapped by compare-and-swap: ``UPDATE ... SET metadata_location = <new>,
previous_metadata_location = <old> WHERE <name> AND metadata_location = <old>``, which must change
exactly one row; a create inserts the row, and a duplicate key is "already exists".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from iceview.catalog.kinds import MetadataKind
from iceview.catalog.sql_db import (
    Stmt,
    describe,
    first_row,
    is_constraint_violation,
    java_sql_message,
    transaction,
)
from iceview.errors import CatalogError, CommitFailedError, CommitStateUnknownError, InvalidStateError
from iceview.identifiers import ViewIdentifier

__all__ = ["PointerTable", "SqlHost", "read_pointer", "swap_pointer"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PointerTable:
    """Where one kind's pointers live: the statements that read, swap and insert one, each taking
    ``(catalog, namespace, name)`` first as Java's do (``insert`` then the new location and
    ``insert_extra``)."""

    get: Stmt
    """``(catalog, namespace, name)``: the row, with ``metadata_location``."""
    swap: Stmt
    """``(new, old, catalog, namespace, name, old)``."""
    insert: Stmt
    """``(catalog, namespace, name, new, *insert_extra)``."""
    insert_extra: tuple[str, ...] = ()


class SqlHost(Protocol):
    """What the pointer functions need of the SQL catalog."""

    name: str
    engine: Engine

    def outcome_unknown(self, e: DBAPIError) -> bool:
        """Whether a failure after the swap was sent leaves its outcome unknown."""
        ...

    def is_busy(self, e: DBAPIError) -> bool:
        """Whether the database refused because another writer holds it (a conflict: retried)."""
        ...


def pointer_row(conn: Connection, host: SqlHost, table: PointerTable, ident: ViewIdentifier) -> Any:
    """The pointer's row inside a transaction, or None."""
    return (
        conn.execute(table.get.clause, table.get.params(host.name, ident.namespace_string, ident.name))
        .mappings()
        .first()
    )


def read_pointer(
    host: SqlHost, table: PointerTable, kind: MetadataKind[Any], ident: ViewIdentifier
) -> str | None:
    """The metadata location the pointer holds, or None when there is no such entry (a read of
    the pointer alone, outside any transaction)."""
    try:
        row = first_row(host.engine, table.get, host.name, ident.namespace_string, ident.name)
    except DBAPIError as e:
        raise CatalogError(
            f"Failed to get {kind.noun} {ident} from catalog {host.name}: {describe(e)}"
        ) from e
    if row is None:
        return None
    location = row["metadata_location"]
    if location is None:
        raise InvalidStateError(f"Invalid {kind.noun} {ident}: metadata location is null")
    return str(location)


def _pointer_is(host: SqlHost, table: PointerTable, ident: ViewIdentifier, location: str) -> bool:
    """Whether the catalog now points at ``location`` (False if it cannot tell)."""
    try:
        row = first_row(host.engine, table.get, host.name, ident.namespace_string, ident.name)
    except SQLAlchemyError:
        return False
    return row is not None and row["metadata_location"] == location


def swap_pointer(
    host: SqlHost,
    table: PointerTable,
    kind: MetadataKind[Any],
    ident: ViewIdentifier,
    base_location: str | None,
    new_location: str,
    *,
    creating: bool,
    before_insert: Callable[[Connection], None],
) -> None:
    """Swap the pointer from ``base_location`` to ``new_location`` or, ``creating``, insert it
    (after ``before_insert(conn)``, which raises when the entry may not be created: no namespace,
    the name taken). Raises ``CommitFailedError`` when the swap definitely did not happen and
    ``CommitStateUnknownError`` when it may have."""
    sent = False
    try:
        with transaction(host.engine) as conn:
            if not creating:
                row = pointer_row(conn, host, table, ident)
                catalog_location = row["metadata_location"] if row is not None else None
                if base_location != catalog_location:
                    raise CommitFailedError(
                        f"Cannot commit {ident}: metadata location {base_location} has changed from "
                        f"{catalog_location}"
                    )
                sent = True
                result = conn.execute(
                    table.swap.clause,
                    table.swap.params(
                        new_location,
                        base_location,
                        host.name,
                        ident.namespace_string,
                        ident.name,
                        base_location,
                    ),
                )
                updated = result.rowcount
                conn.commit()
                if updated != 1:
                    raise CommitFailedError(f"Failed to update {kind.noun} {ident} from catalog {host.name}")
            else:
                before_insert(conn)
                if pointer_row(conn, host, table, ident) is not None:
                    raise kind.already_exists(f"{kind.title} already exists: {ident}")
                sent = True
                result = conn.execute(
                    table.insert.clause,
                    table.insert.params(
                        host.name, ident.namespace_string, ident.name, new_location, *table.insert_extra
                    ),
                )
                inserted = result.rowcount
                conn.commit()
                if inserted != 1:
                    raise CommitFailedError(f"Failed to create {kind.noun} {ident} in catalog {host.name}")
    except DBAPIError as e:
        if is_constraint_violation(e):
            if creating:
                raise kind.already_exists(f"{kind.title} already exists: {ident}") from e
            raise CatalogError(f"{kind.title} already exists: {ident}") from e
        if sent and host.outcome_unknown(e):
            if _pointer_is(host, table, ident, new_location):
                log.warning("Commit to %s raised %s, but the catalog holds the new metadata", ident, e)
                return
            raise CommitStateUnknownError(
                f"Commit state unknown for {kind.noun} {ident}: the database failed after the swap of "
                f"{base_location} to {new_location} was sent ({describe(e)}); the new metadata file is kept"
            ) from e
        if not creating and host.is_busy(e):
            raise CommitFailedError(f"Cannot commit {ident}: {describe(e)}") from e
        raise CatalogError(f"{java_sql_message(e)}: {describe(e)}") from e
