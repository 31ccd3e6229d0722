"""SQL UDFs in the SQL catalog: a table of their own, ``iceview_functions``.

Java's ``iceberg_tables`` cannot hold them: its ``iceberg_type`` column is ``VARCHAR(5)`` (Java's
and PyIceberg's DDL), so ``FUNCTION`` does not fit (PostgreSQL refuses it), and its primary key
``(catalog_name, table_namespace, table_name)`` would stop a function from sharing its name with
a table or view, which SQL engines allow (they look functions and relations up apart). Java's
``JdbcCatalog`` and PyIceberg never read the new table, and it is named for iceview, so a future
Iceberg table of functions cannot clash with it.

``iceview_functions(catalog_name, function_namespace, function_name, metadata_location,
previous_metadata_location)``, primary key ``(catalog_name, function_namespace, function_name)``:
the layout of ``iceberg_tables`` without a type. Pointers are swapped as views' are
(:mod:`iceview.catalog.sql_pointers`). A function is created only in an existing namespace, and
a namespace that holds functions cannot be dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import Connection, Engine, inspect
from sqlalchemy.exc import DBAPIError

from iceview.catalog.kinds import FUNCTION
from iceview.catalog.metastore import MetastoreFunctionOperations, MetastoreViewCatalog
from iceview.catalog.sql_db import (
    Stmt,
    describe,
    is_constraint_violation,
    java_sql_message,
    lock_namespace,
    transaction,
)
from iceview.catalog.sql_pointers import PointerTable, read_pointer, swap_pointer
from iceview.errors import (
    CatalogError,
    FunctionAlreadyExistsError,
    InvalidArgumentError,
    NamespaceNotEmptyError,
    NoSuchFunctionError,
    NoSuchNamespaceError,
)
from iceview.identifiers import ViewIdentifier, namespace_to_string, string_to_namespace

if TYPE_CHECKING:
    from iceview.udf import FunctionMetadata

__all__ = ["FUNCTIONS_TABLE", "FunctionHost", "SqlFunctionOperations", "SqlFunctions"]

FUNCTIONS_TABLE = "iceview_functions"

CREATE_FUNCTIONS_TABLE_SQL = (
    "CREATE TABLE iceview_functions(catalog_name VARCHAR(255) NOT NULL,"
    "function_namespace VARCHAR(255) NOT NULL,function_name VARCHAR(255) NOT NULL,"
    "metadata_location VARCHAR(1000),previous_metadata_location VARCHAR(1000),"
    "PRIMARY KEY (catalog_name, function_namespace, function_name))"
)
_WHERE = "catalog_name = ? AND function_namespace = ? AND function_name = ?"
GET_FUNCTION_SQL = Stmt("SELECT * FROM iceview_functions WHERE " + _WHERE)
SWAP_FUNCTION_SQL = Stmt(
    "UPDATE iceview_functions SET metadata_location = ? , previous_metadata_location = ? WHERE "
    + _WHERE
    + " AND metadata_location = ?"
)
INSERT_FUNCTION_SQL = Stmt(
    "INSERT INTO iceview_functions (catalog_name, function_namespace, function_name, metadata_location, "
    "previous_metadata_location) VALUES (?,?,?,?,null)"
)
LIST_FUNCTIONS_SQL = Stmt(
    "SELECT function_namespace, function_name FROM iceview_functions WHERE catalog_name = ? AND "
    "function_namespace = ?"
)
DROP_FUNCTION_SQL = Stmt("DELETE FROM iceview_functions WHERE " + _WHERE + " AND metadata_location = ?")
"""A drop deletes the row only while it holds the pointer the drop read (a commit that lands in
between is not orphaned: the drop reads again)."""
RENAME_FUNCTION_SQL = Stmt(
    "UPDATE iceview_functions SET function_namespace = ?, function_name = ? WHERE " + _WHERE
)
ALL_FUNCTION_POINTERS_SQL = Stmt(
    "SELECT metadata_location, previous_metadata_location FROM iceview_functions"
)

log = logging.getLogger(__name__)

FUNCTION_POINTERS = PointerTable(GET_FUNCTION_SQL, SWAP_FUNCTION_SQL, INSERT_FUNCTION_SQL)


class FunctionHost(Protocol):
    """What the function half needs of the SQL catalog."""

    name: str
    engine: Engine

    def outcome_unknown(self, e: DBAPIError) -> bool: ...

    def is_busy(self, e: DBAPIError) -> bool: ...

    def namespace_exists(self, namespace: Sequence[str]) -> bool: ...

    def _namespace_exists(self, conn: Connection, namespace: Sequence[str]) -> bool: ...

    def _query(self, what: str, stmt: Stmt, *args: str | int) -> list[Any]: ...

    def _execute(self, what: str, stmt: Stmt, *args: str | None) -> int: ...


class SqlFunctions:
    """The functions of one SQL catalog: their table, pointers and listings."""

    def __init__(self, host: FunctionHost) -> None:
        self.host = host
        self._ready = False

    # -- the table -------------------------------------------------------------------------------
    def ready(self) -> bool:
        """Whether ``iceview_functions`` exists (asked again until it does)."""
        if not self._ready:
            with self.host.engine.connect() as conn:
                self._ready = FUNCTIONS_TABLE in {n.lower() for n in inspect(conn).get_table_names()}
        return self._ready

    def create_table(self) -> None:
        """Create ``iceview_functions`` if it does not exist (another process may race us)."""
        if self.ready():
            return
        try:
            with transaction(self.host.engine) as conn:
                conn.exec_driver_sql(CREATE_FUNCTIONS_TABLE_SQL)
        except DBAPIError:
            self._ready = False
            if not self.ready():
                raise
        self._ready = True

    def _require_table(self, ident: ViewIdentifier) -> None:
        if not self.ready():
            raise CatalogError(
                f"Cannot create function {ident} in catalog {self.host.name}: the database has no "
                f"{FUNCTIONS_TABLE} table (set jdbc.init-catalog-tables=true to create it)"
            )

    # -- pointers --------------------------------------------------------------------------------
    def read(self, ident: ViewIdentifier) -> str | None:
        if not self.ready():
            return None
        return read_pointer(self.host, FUNCTION_POINTERS, FUNCTION, ident)

    def swap(
        self, ident: ViewIdentifier, base_location: str | None, new_location: str, *, creating: bool
    ) -> None:
        host = self.host
        if creating:
            self._require_table(ident)

        def before_insert(conn: Connection) -> None:
            # the namespace may not be dropped between this check and the insert
            lock_namespace(conn, host.name, ident.namespace_string)
            if not host._namespace_exists(conn, ident.namespace):
                raise NoSuchNamespaceError(
                    f"Cannot create function {ident} in catalog {host.name}. "
                    f"Namespace {namespace_to_string(ident.namespace)} does not exist"
                )

        swap_pointer(
            host,
            FUNCTION_POINTERS,
            FUNCTION,
            ident,
            base_location,
            new_location,
            creating=creating,
            before_insert=before_insert,
        )

    def pointers(self) -> set[str]:
        """Every current and previous metadata location of every function in the database."""
        if not self.ready():
            return set()
        rows = self.host._query("list function pointers", ALL_FUNCTION_POINTERS_SQL)
        return {
            location
            for row in rows
            for location in (row["metadata_location"], row["previous_metadata_location"])
            if location
        }

    # -- names -----------------------------------------------------------------------------------
    def exists(self, ident: ViewIdentifier) -> bool:
        return self.read_row(ident) is not None

    def read_row(self, ident: ViewIdentifier) -> Any:
        if not self.ready():
            return None
        rows = self.host._query(
            f"load function {ident}", GET_FUNCTION_SQL, self.host.name, ident.namespace_string, ident.name
        )
        return rows[0] if rows else None

    def names(self, namespace: Sequence[str]) -> list[tuple[str, ...]]:
        """The functions of ``namespace``, sorted (the namespace's existence is the caller's)."""
        if not self.ready():
            return []
        rows = self.host._query(
            "list functions", LIST_FUNCTIONS_SQL, self.host.name, namespace_to_string(namespace)
        )
        return sorted((*string_to_namespace(r["function_namespace"]), r["function_name"]) for r in rows)

    def delete(self, ident: ViewIdentifier, location: str) -> bool:
        """Delete the function's row if it still points at ``location``; False if it does not
        (gone, or moved on by a commit)."""
        if not self.ready():
            return False
        deleted = self.host._execute(
            f"drop function {ident}",
            DROP_FUNCTION_SQL,
            self.host.name,
            ident.namespace_string,
            ident.name,
            location,
        )
        return deleted > 0

    def check_create(self, identifier: ViewIdentifier) -> None:
        """A function is created only in an existing namespace (checked again in the insert's
        transaction), never in the root namespace."""
        host = self.host
        if not identifier.namespace:
            raise NoSuchNamespaceError(
                f"Cannot create function {identifier} in catalog {host.name}: a function must be in a namespace"
            )
        if not host.namespace_exists(identifier.namespace):
            raise NoSuchNamespaceError(
                f"Cannot create function {identifier} in catalog {host.name}. "
                f"Namespace {namespace_to_string(identifier.namespace)} does not exist"
            )

    @staticmethod
    def default_location(identifier: ViewIdentifier, warehouse: str | None) -> str:
        """``<warehouse>/<namespace levels>/functions/<name>``: beside the namespace's views, in a
        folder of their own (a function may share its name with a view)."""
        if not warehouse:
            raise InvalidArgumentError(
                f"Cannot choose a location for function {identifier}: the catalog has no 'warehouse' "
                "property (set it, or pass location=...)"
            )
        return "/".join((warehouse, *identifier.namespace, "functions", identifier.name))

    def list_in(self, namespace: tuple[str, ...]) -> list[tuple[str, ...]]:
        """:meth:`names`, with a namespace that does not exist refused (the root always exists)."""
        if namespace and not self.host.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(namespace)}")
        return self.names(namespace)

    def drop(self, ident: ViewIdentifier, catalog: MetastoreViewCatalog) -> bool:
        """Drop the function: its row while it holds the pointer read, then its current metadata
        file (``gc.enabled``; :meth:`MetastoreViewCatalog._drop_while_current`)."""
        return catalog._drop_while_current(
            lambda: SqlFunctionOperations(catalog, self, ident),
            lambda: self.read(ident),
            lambda location: self.delete(ident, location),
        )

    def rename(self, src: ViewIdentifier, dst: ViewIdentifier) -> None:
        host = self.host
        if not host.namespace_exists(dst.namespace):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(dst.namespace)}")
        if not self.exists(src):
            raise NoSuchFunctionError(f"Function does not exist: {src}")
        if self.exists(dst):
            raise FunctionAlreadyExistsError(f"Cannot rename {src} to {dst}. Function already exists")
        try:
            with transaction(host.engine) as conn:
                # the destination namespace may not be dropped between this check and the move
                lock_namespace(conn, host.name, dst.namespace_string)
                if not host._namespace_exists(conn, dst.namespace):
                    raise NoSuchNamespaceError(
                        f"Namespace does not exist: {namespace_to_string(dst.namespace)}"
                    )
                updated = conn.execute(
                    RENAME_FUNCTION_SQL.clause,
                    RENAME_FUNCTION_SQL.params(
                        dst.namespace_string, dst.name, host.name, src.namespace_string, src.name
                    ),
                ).rowcount
        except DBAPIError as e:
            if is_constraint_violation(e):
                raise FunctionAlreadyExistsError(
                    f"Cannot rename {src} to {dst}. Function already exists"
                ) from e
            raise CatalogError(
                f"Failed to rename function {src}: {java_sql_message(e)}: {describe(e)}"
            ) from e
        if updated == 0:
            raise NoSuchFunctionError(f"Function does not exist: {src}")

    def drop_namespace_if_empty(self, ns: tuple[str, ...], delete: Stmt) -> int:
        """Run ``delete`` (the namespace's property rows) unless the namespace holds a function,
        both under the namespace's lock: a create or rename racing the drop waits, then finds the
        namespace gone; the drop that waits for one finds its function. Returns the rows deleted."""
        host = self.host
        shown = namespace_to_string(ns)
        try:
            with transaction(host.engine) as conn:
                lock_namespace(conn, host.name, shown)
                if self.ready():
                    held = conn.execute(
                        LIST_FUNCTIONS_SQL.clause, LIST_FUNCTIONS_SQL.params(host.name, shown)
                    ).all()
                    if held:
                        raise NamespaceNotEmptyError(
                            f"Namespace {shown} is not empty. Contains {len(held)} function(s)."
                        )
                return int(conn.execute(delete.clause, delete.params(host.name, shown)).rowcount)
        except DBAPIError as e:
            raise CatalogError(f"Failed to drop namespace: {java_sql_message(e)}: {describe(e)}") from e


class SqlFunctionOperations(MetastoreFunctionOperations):
    """The pointer of one function in ``iceview_functions``."""

    def __init__(
        self, catalog: MetastoreViewCatalog, functions: SqlFunctions, identifier: ViewIdentifier
    ) -> None:
        super().__init__(catalog, identifier)
        self.functions = functions

    def do_refresh(self) -> str | None:
        return self.functions.read(self.identifier)

    def do_commit(self, base: FunctionMetadata | None, new_location: str) -> None:
        self.functions.swap(
            self.identifier,
            None if base is None else base.metadata_file_location,
            new_location,
            creating=base is None,
        )
