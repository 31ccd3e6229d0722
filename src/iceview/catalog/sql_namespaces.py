"""Namespace properties in Java's ``iceberg_namespace_properties``: read, inserted in chunks, and
changed with Java's statements (one delete, one insert, one ``CASE`` update), for the SQL catalog."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from iceview.catalog.interface import NamespacePropertiesUpdate
from iceview.catalog.sql_db import (
    GET_ALL_NAMESPACE_PROPERTIES_SQL,
    Stmt,
    delete_properties_stmt,
    insert_properties_stmt,
    update_properties_stmt,
)
from iceview.errors import InvalidStateError
from iceview.identifiers import namespace_to_string

__all__ = ["fetch_properties", "insert_properties", "write_properties"]

_CHUNK = 500
"""Rows per insert: SQLite binds at most 32,766 values per statement."""


class PropertyHost(Protocol):
    """What the property functions need of the SQL catalog."""

    name: str

    def _query(self, what: str, stmt: Stmt, *args: str | int) -> list[Any]: ...

    def _execute(self, what: str, stmt: Stmt, *args: str | None) -> int: ...


def fetch_properties(host: PropertyHost, ns: tuple[str, ...]) -> dict[str, str]:
    """Every property row of ``ns`` (the reserved ``exists`` one included)."""
    rows = host._query(
        "load namespace properties", GET_ALL_NAMESPACE_PROPERTIES_SQL, host.name, namespace_to_string(ns)
    )
    return {r["property_key"]: r["property_value"] for r in rows}


def insert_properties(host: PropertyHost, ns: tuple[str, ...], properties: Mapping[str, str]) -> None:
    """Insert new property rows, :data:`_CHUNK` per statement."""
    name = namespace_to_string(ns)
    items = list(properties.items())
    for start in range(0, len(items), _CHUNK):
        chunk = items[start : start + _CHUNK]
        args: list[str] = []
        for k, v in chunk:
            args += [host.name, name, k, v]
        n = host._execute("insert namespace properties", insert_properties_stmt(len(chunk)), *args)
        if n != len(chunk):
            raise InvalidStateError(f"Failed to insert: {n} of {len(chunk)} succeeded")


def write_properties(
    host: PropertyHost, ns: tuple[str, ...], removals: Iterable[str], updates: dict[str, str]
) -> NamespacePropertiesUpdate:
    """Remove ``removals`` and set ``updates`` (checked by the caller), as Java's
    ``JdbcCatalog.setProperties`` / ``removeProperties`` do."""
    current = fetch_properties(host, ns)
    removed = [k for k in removals if k in current]
    missing = [k for k in removals if k not in current]
    shown = namespace_to_string(ns)
    if removed:
        stmt = delete_properties_stmt(len(removed))
        host._execute("remove namespace properties", stmt, host.name, shown, *removed)
    inserts = {k: v for k, v in updates.items() if k not in current}
    changes = {k: v for k, v in updates.items() if k in current}
    if inserts:
        insert_properties(host, ns, inserts)
    if changes:
        stmt = update_properties_stmt(len(changes))
        args: list[str] = []
        for k, v in changes.items():
            args += [k, v]
        args += [host.name, shown, *changes]
        n = host._execute("update namespace properties", stmt, *args)
        if n != len(changes):
            raise InvalidStateError(f"Failed to update: {n} of {len(changes)} succeeded")
    return NamespacePropertiesUpdate(removed=removed, updated=list(updates), missing=missing)
