"""A view catalog on a SQL database, sharing its tables with Iceberg Java's ``JdbcCatalog`` and
PyIceberg's ``SqlCatalog`` (SQLAlchemy; SQLite and PostgreSQL).

The layout is Java's JDBC schema V1, byte for byte:

* ``iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
  previous_metadata_location, iceberg_type)``, primary key ``(catalog_name, table_namespace,
  table_name)``; view rows have ``iceberg_type = 'VIEW'``, table rows ``'TABLE'`` or NULL;
* ``iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)``.

Every statement is the text Java's ``JdbcUtil`` sends, with bound parameters; view statements are
filtered by ``iceberg_type = 'VIEW'`` and table look-ups by ``(iceberg_type = 'TABLE' OR iceberg_type
IS NULL)``. A commit is a compare-and-swap: ``UPDATE ... SET metadata_location = <new>,
previous_metadata_location = <old> WHERE ... AND metadata_location = <old> AND iceberg_type = 'VIEW'``
that must change exactly one row.

Catalog properties (Java's spelling first; PyIceberg's where it has one):

* ``uri``: a SQLAlchemy URL (``sqlite:///path``, ``postgresql+psycopg://...``) or a JDBC URL
  (``jdbc:sqlite:/path``, ``jdbc:postgresql://host:port/db`` with ``jdbc.user``/``jdbc.password``);
* ``warehouse``: the root of default view locations (``<warehouse>/<ns levels>/<name>``);
* ``jdbc.schema-version`` / ``schema_version``: ``V1`` upgrades a V0 database (adds ``iceberg_type``);
* ``jdbc.init-catalog-tables`` / ``init_catalog_tables`` (default true): create the tables if absent;
* ``jdbc.strict-mode`` (default false): creating a view needs an existing namespace;
* ``unique-table-location`` (default false): default locations end in ``<name>-<uuid>``;
* ``view-default.*`` / ``view-override.*``: properties given to every view created
  (defaults lose to the caller's, overrides win);
* ``echo``, ``pool_pre_ping`` (PyIceberg's), ``sqlite.timeout`` (seconds to wait for a locked
  SQLite file, default 30).
"""

from __future__ import annotations

import logging
import uuid as uuidlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, inspect
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError

from iceview import identifiers as _ids
from iceview.catalog.interface import NamespacePropertiesUpdate, ViewPage
from iceview.catalog.kinds import VIEW
from iceview.catalog.metastore import MetastoreViewCatalog, MetastoreViewOperations
from iceview.catalog.properties import namespace_property_changes, property_as_bool
from iceview.catalog.sql_db import (
    ALL_POINTERS_SQL,
    CREATE_NAMESPACE_PROPERTIES_TABLE_SQL,
    DELETE_ALL_NAMESPACE_PROPERTIES_SQL,
    DROP_VIEW_SQL,
    GET_NAMESPACE_PROPERTIES_SQL,
    GET_NAMESPACE_SQL,
    GET_VIEW_SQL,
    LIST_ALL_NAMESPACES_SQL,
    LIST_ALL_PROPERTY_NAMESPACES_SQL,
    LIST_NAMESPACES_SQL,
    LIST_PROPERTY_NAMESPACES_SQL,
    LIST_VIEW_PAGE_SQL,
    LIST_VIEW_SQL,
    RENAME_VIEW_SQL,
    V0_CREATE_CATALOG_SQL,
    V0_GET_TABLE_SQL,
    V0_LIST_TABLE_SQL,
    V1_DO_COMMIT_CREATE_SQL,
    V1_DO_COMMIT_VIEW_SQL,
    V1_GET_TABLE_SQL,
    V1_LIST_TABLE_SQL,
    V1_UPDATE_CATALOG_SQL,
    Stmt,
    describe,
    is_constraint_violation,
    is_sqlite,
    java_sql_message,
    like_escape,
    make_engine,
    reading,
    to_sqlalchemy_url,
    transaction,
)
from iceview.catalog.sql_functions import SqlFunctionOperations, SqlFunctions
from iceview.catalog.sql_namespaces import fetch_properties, insert_properties, write_properties
from iceview.catalog.sql_pointers import PointerTable, read_pointer, swap_pointer
from iceview.catalog.sqlite_nowait import WOULD_WAIT, NoWaitReader
from iceview.errors import (
    CatalogError,
    InvalidArgumentError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchViewError,
    TableAlreadyExistsError,
    UnsupportedOperationError,
    ViewAlreadyExistsError,
)
from iceview.identifiers import (
    IdentifierLike,
    NamespaceLike,
    ViewIdentifier,
    namespace_to_string,
    string_to_namespace,
    to_identifier,
    to_namespace,
)

if TYPE_CHECKING:
    from iceview.spec import ViewMetadata
    from iceview.view import View

__all__ = ["VIEW_WARNING_LOG_MESSAGE", "SqlCatalog", "SqlViewOperations", "to_sqlalchemy_url"]

log = logging.getLogger(__name__)

VIEW_WARNING_LOG_MESSAGE = (
    "JDBC catalog is initialized without view support. To auto-migrate the database's schema and "
    "enable view support, set jdbc.schema-version=V1"
)
NAMESPACE_EXISTS_PROPERTY = "exists"


# ----------------------------------------------------------------------------- operations


class SqlViewOperations(MetastoreViewOperations):
    """The pointer of one view in ``iceberg_tables``: Java's ``JdbcViewOperations``."""

    def __init__(self, catalog: SqlCatalog, identifier: ViewIdentifier) -> None:
        super().__init__(catalog, identifier)
        self.catalog = catalog

    def do_refresh(self) -> str | None:
        return read_pointer(self.catalog, VIEW_POINTERS, VIEW, self.identifier)

    def do_commit(self, base: ViewMetadata | None, new_location: str) -> None:
        catalog = self.catalog
        ident = self.identifier

        def before_insert(conn: Connection) -> None:
            if property_as_bool(
                catalog.properties, "jdbc.strict-mode", False
            ) and not catalog._namespace_exists(conn, ident.namespace):
                raise NoSuchNamespaceError(
                    f"Cannot create view {ident} in catalog {catalog.name}. "
                    f"Namespace {namespace_to_string(ident.namespace)} does not exist"
                )
            if catalog._table_exists(conn, ident):
                raise TableAlreadyExistsError(f"Table with same name already exists: {ident}")

        swap_pointer(
            catalog,
            VIEW_POINTERS,
            VIEW,
            ident,
            None if base is None else base.metadata_file_location,
            new_location,
            creating=base is None,
            before_insert=before_insert,
        )


VIEW_POINTERS = PointerTable(GET_VIEW_SQL, V1_DO_COMMIT_VIEW_SQL, V1_DO_COMMIT_CREATE_SQL, ("VIEW",))
"""Views' pointers: their rows in ``iceberg_tables``, in Java's statements."""


# ----------------------------------------------------------------------------- catalog


def _identifiers(rows: list[Any]) -> list[tuple[str, ...]]:
    """The identifiers of ``iceberg_tables`` rows (views or tables)."""
    return [(*string_to_namespace(r["table_namespace"]), r["table_name"]) for r in rows]


class SqlCatalog(MetastoreViewCatalog):
    """Views (and read-only table look-ups) in Java's JDBC catalog tables, through SQLAlchemy."""

    catalog_type = "sql"

    def __init__(self, name: str = "default", **properties: str) -> None:
        super().__init__(name, {k: str(v) for k, v in properties.items()})
        uri = self.properties.get("uri")
        if not uri:
            raise InvalidArgumentError("JDBC connection URI is required")
        self.url = to_sqlalchemy_url(uri, self.properties)
        self.engine = make_engine(self.url, self.properties)
        database = self.url.database or ""
        self._nowait = (
            NoWaitReader(database) if is_sqlite(self.url) and database not in ("", ":memory:") else None
        )
        self._dialect = self.engine.dialect.name
        warehouse = self.properties.get("warehouse")
        self.warehouse = warehouse.rstrip("/") if warehouse else None
        self.schema_version = "V0"
        self.functions = SqlFunctions(self)
        """The catalog's SQL UDFs (``iceview_functions``)."""
        self._initialize()

    # -- setup -----------------------------------------------------------------------------------
    def _prop(self, java_key: str, pyiceberg_key: str, default: str) -> str:
        value = self.properties.get(java_key)
        if value is None:
            value = self.properties.get(pyiceberg_key)
        return default if value is None else value

    def _initialize(self) -> None:
        init_tables = self._prop("jdbc.init-catalog-tables", "init_catalog_tables", "true").lower() == "true"
        requested = self._prop("jdbc.schema-version", "schema_version", "V0")
        if requested.upper() not in ("V0", "V1"):
            raise InvalidArgumentError(f"Invalid schema version: {requested} (must be V0 or V1)")
        try:
            created = False
            if init_tables:
                created = self._atomic_create_table("iceberg_tables", V0_CREATE_CATALOG_SQL)
                self._atomic_create_table(
                    "iceberg_namespace_properties", CREATE_NAMESPACE_PROPERTIES_TABLE_SQL
                )
                self.functions.create_table()
            if self._has_type_column():
                self.schema_version = "V1"
            elif created or requested.upper() == "V1":
                # a database iceview created is V1 from the start, as PyIceberg's are
                self._add_type_column()
                self.schema_version = "V1"
            else:
                log.warning(VIEW_WARNING_LOG_MESSAGE)
        except DBAPIError as e:
            raise CatalogError(f"Cannot initialize JDBC catalog: {java_sql_message(e)}: {describe(e)}") from e

    def _table_names(self) -> set[str]:
        with self.engine.connect() as conn:
            return {n.lower() for n in inspect(conn).get_table_names()}

    def _atomic_create_table(self, table: str, ddl: str) -> bool:
        if table in self._table_names():
            return False
        try:
            with transaction(self.engine) as conn:
                conn.exec_driver_sql(ddl)
        except DBAPIError:
            if table in self._table_names():  # created by another process meanwhile
                return False
            raise
        return True

    def _has_type_column(self) -> bool:
        with self.engine.connect() as conn:
            try:
                columns = inspect(conn).get_columns("iceberg_tables")
            except SQLAlchemyError:
                return False
        return any(c["name"].lower() == "iceberg_type" for c in columns)

    def _add_type_column(self) -> None:
        try:
            with transaction(self.engine) as conn:
                conn.exec_driver_sql(V1_UPDATE_CATALOG_SQL)
        except DBAPIError:
            if not self._has_type_column():
                raise

    def close(self) -> None:
        if self._nowait is not None:
            self._nowait.close()
        self.engine.dispose()

    # -- helpers ---------------------------------------------------------------------------------
    def outcome_unknown(self, e: DBAPIError) -> bool:
        if self._dialect == "sqlite":
            return "disk i/o error" in str(e.orig).lower()
        return bool(e.connection_invalidated) or isinstance(e, OperationalError)

    def is_busy(self, e: DBAPIError) -> bool:
        return self._dialect == "sqlite" and "locked" in str(e.orig).lower()

    def _require_views(self) -> None:
        if self.schema_version != "V1":
            raise UnsupportedOperationError(VIEW_WARNING_LOG_MESSAGE)

    def _query(self, what: str, stmt: Stmt, *args: str | int) -> list[Any]:
        try:
            with reading(self.engine) as conn:
                return list(conn.execute(stmt.clause, stmt.params(*args)).mappings())
        except DBAPIError as e:
            raise CatalogError(f"Failed to {what}: {java_sql_message(e)}: {describe(e)}") from e

    def _execute(self, what: str, stmt: Stmt, *args: str | None) -> int:
        try:
            with transaction(self.engine) as conn:
                return int(conn.execute(stmt.clause, stmt.params(*args)).rowcount)
        except DBAPIError as e:
            raise CatalogError(f"Failed to {what}: {java_sql_message(e)}: {describe(e)}") from e

    def _table_exists(self, conn: Connection, ident: ViewIdentifier) -> bool:
        stmt = V1_GET_TABLE_SQL if self.schema_version == "V1" else V0_GET_TABLE_SQL
        return (
            conn.execute(stmt.clause, stmt.params(self.name, ident.namespace_string, ident.name)).first()
            is not None
        )

    def _namespace_exists(self, conn: Connection, namespace: Sequence[str]) -> bool:
        equals = namespace_to_string(namespace)
        starts_with = like_escape(equals) + ".%"
        for stmt in (GET_NAMESPACE_SQL, GET_NAMESPACE_PROPERTIES_SQL):
            if conn.execute(stmt.clause, stmt.params(self.name, equals, starts_with)).first() is not None:
                return True
        return False

    def default_view_location(self, identifier: ViewIdentifier) -> str:
        if not self.warehouse:
            raise InvalidArgumentError(
                f"Cannot choose a location for view {identifier}: the catalog has no 'warehouse' property "
                "(set it, or pass location=...)"
            )
        name = identifier.name
        if property_as_bool(self.properties, "unique-table-location", False):
            name = f"{name}-{uuidlib.uuid4().hex}"
        return "/".join((self.warehouse, *identifier.namespace, name))

    def new_view_ops(self, identifier: ViewIdentifier) -> SqlViewOperations:
        self._require_views()
        return SqlViewOperations(self, identifier)

    # -- views -----------------------------------------------------------------------------------
    def load_view_nowait(self, identifier: IdentifierLike) -> View | None:
        """On an embedded SQLite file with a metadata cache: the pointer is read on a read-only
        connection that does not wait for locks, and the file it names must be in the cache
        (:mod:`iceview.catalog.sqlite_nowait`). Anything else answers None."""
        if self._nowait is None or self.metadata_cache is None or self.schema_version != "V1":
            return None
        ident = to_identifier(identifier)
        row = self._nowait.first_row(GET_VIEW_SQL.sql, (self.name, ident.namespace_string, ident.name))
        if row is WOULD_WAIT:
            return None
        if row is None:
            raise NoSuchViewError(f"View does not exist: {ident}")
        assert isinstance(row, dict)
        location = row["metadata_location"]
        if location is None or self.metadata_cache.get(location) is None:
            return None  # the ordinary load reports a null pointer, or reads the file
        ops = self.new_view_ops(ident)
        ops.refresh_from_location(location)
        return self._view(ops)

    def view_exists(self, identifier: IdentifierLike) -> bool:
        ident = to_identifier(identifier)
        self._require_views()
        return bool(
            self._query(f"load view {ident}", GET_VIEW_SQL, self.name, ident.namespace_string, ident.name)
        )

    def list_views(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        self._require_views()
        ns = to_namespace(namespace)
        # the root namespace always exists (Java: supportsEmptyNamespace), even with nothing in it
        if ns and not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(ns)}")
        rows = self._query("list views", LIST_VIEW_SQL, self.name, namespace_to_string(ns))
        return sorted(_identifiers(rows))

    def list_views_page(self, namespace: NamespaceLike, *, after: str | None, limit: int) -> ViewPage:
        """One page straight from the database (its order of names: a PostgreSQL database's
        collation may order them otherwise than :meth:`list_views`, which sorts in Python)."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1: {limit}")
        self._require_views()
        ns = to_namespace(namespace)
        rows = self._query(
            "list views", LIST_VIEW_PAGE_SQL, self.name, namespace_to_string(ns), after or "", limit + 1
        )
        # a view in it means the namespace exists: only an empty page asks (once per walk, not per page)
        if not rows and ns and not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(ns)}")
        return ViewPage(_identifiers(rows[:limit]), len(rows) > limit)

    def drop_view(self, identifier: IdentifierLike) -> bool:
        self._require_views()
        ident = to_identifier(identifier)
        return self._drop_while_current(
            lambda: self.new_view_ops(ident),
            lambda: read_pointer(self, VIEW_POINTERS, VIEW, ident),
            lambda location: (
                self._execute(
                    f"drop view {ident}",
                    DROP_VIEW_SQL,
                    self.name,
                    ident.namespace_string,
                    ident.name,
                    location,
                )
                > 0
            ),
        )

    def rename_view(self, from_identifier: IdentifierLike, to_identifier: IdentifierLike) -> None:
        self._require_views()
        src = _ids.to_identifier(from_identifier)
        dst = _ids.to_new_identifier(to_identifier)
        if src == dst:
            return
        if not self.namespace_exists(dst.namespace):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(dst.namespace)}")
        if not self.view_exists(src):
            raise NoSuchViewError("View does not exist")
        if self.table_exists(dst):
            raise TableAlreadyExistsError(f"Cannot rename {src} to {dst}. Table already exists")
        if self.view_exists(dst):
            raise ViewAlreadyExistsError(f"Cannot rename {src} to {dst}. View already exists")
        try:
            with transaction(self.engine) as conn:
                updated = conn.execute(
                    RENAME_VIEW_SQL.clause,
                    RENAME_VIEW_SQL.params(
                        dst.namespace_string, dst.name, self.name, src.namespace_string, src.name
                    ),
                ).rowcount
        except DBAPIError as e:
            if is_constraint_violation(e):
                raise ViewAlreadyExistsError(f"Cannot rename {src} to {dst}. View already exists") from e
            raise CatalogError(f"Failed to rename view {src}: {java_sql_message(e)}: {describe(e)}") from e
        if updated == 0:
            raise NoSuchViewError(f"View does not exist: {src}")
        log.info("Renamed view from %s, to %s", src, dst)

    # -- functions (iceview.catalog.sql_functions) -----------------------------------------------
    def supports_functions(self) -> bool:
        return True

    def _before_function_create(self, identifier: ViewIdentifier) -> None:
        self.functions.check_create(identifier)

    def new_function_ops(self, identifier: ViewIdentifier) -> SqlFunctionOperations:
        return SqlFunctionOperations(self, self.functions, identifier)

    def default_function_location(self, identifier: ViewIdentifier) -> str:
        return self.functions.default_location(identifier, self.warehouse)

    def function_exists(self, identifier: IdentifierLike) -> bool:
        return self.functions.exists(to_identifier(identifier))

    def list_functions(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        return self.functions.list_in(to_namespace(namespace))

    def drop_function(self, identifier: IdentifierLike) -> bool:
        return self.functions.drop(to_identifier(identifier), self)

    def rename_function(self, from_identifier: IdentifierLike, to_identifier: IdentifierLike) -> None:
        src = _ids.to_identifier(from_identifier)
        dst = _ids.to_new_identifier(to_identifier)
        if src != dst:
            self.functions.rename(src, dst)
            log.info("Renamed function from %s, to %s", src, dst)

    def metadata_pointers(self) -> set[str]:
        """Every ``metadata_location`` and ``previous_metadata_location`` in ``iceberg_tables``,
        views and tables, of every catalog name sharing the database: one query."""
        rows = self._query("list metadata pointers", ALL_POINTERS_SQL)
        return {
            location
            for row in rows
            for location in (row["metadata_location"], row["previous_metadata_location"])
            if location
        } | self.functions.pointers()

    # -- tables (look-ups only) ------------------------------------------------------------------
    def table_catalog(self) -> Any:
        """PyIceberg's ``SqlCatalog`` on the same database and warehouse (it shares the
        ``iceberg_tables`` rows with Iceberg Java's ``JdbcCatalog``)."""
        from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog

        props = {k: v for k, v in self.properties.items() if not k.startswith(("jdbc.", "view-"))}
        props["uri"] = self.url.render_as_string(hide_password=False)
        if self.properties.get("warehouse"):
            props["warehouse"] = self.properties["warehouse"]
        props.pop("type", None)
        return PyIcebergSqlCatalog(self.name, **props)

    def display_uri(self) -> str:
        secret = ("password", "secret", "token", "credential")
        query = {
            k: ("***" if any(word in k.lower() for word in secret) else v) for k, v in self.url.query.items()
        }
        return self.url.set(query=query).render_as_string(hide_password=True)

    def has_catalog_tables(self) -> bool:
        """Whether the database holds an Iceberg JDBC catalog (an ``iceberg_tables`` table)."""
        return "iceberg_tables" in {name.lower() for name in self._table_names()}

    def table_exists(self, identifier: IdentifierLike) -> bool:
        ident = to_identifier(identifier)
        try:
            with reading(self.engine) as conn:
                return self._table_exists(conn, ident)
        except DBAPIError as e:
            raise CatalogError(f"Failed to load table {ident}: {java_sql_message(e)}: {describe(e)}") from e

    def list_tables(self, namespace: NamespaceLike) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        if not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(ns)}")
        stmt = V1_LIST_TABLE_SQL if self.schema_version == "V1" else V0_LIST_TABLE_SQL
        rows = self._query("list tables", stmt, self.name, namespace_to_string(ns))
        return sorted(_identifiers(rows))

    # -- namespaces ------------------------------------------------------------------------------
    def namespace_exists(self, namespace: NamespaceLike) -> bool:
        ns = to_namespace(namespace)
        try:
            with reading(self.engine) as conn:
                return self._namespace_exists(conn, ns)
        except DBAPIError as e:
            raise CatalogError(f"Failed to execute exists query: {java_sql_message(e)}: {describe(e)}") from e

    def create_namespace(self, namespace: NamespaceLike, properties: Mapping[str, str] | None = None) -> None:
        ns = _ids.to_new_namespace(namespace)
        if not ns:
            raise InvalidArgumentError("Cannot create the empty namespace")
        if self.namespace_exists(ns):
            raise NamespaceAlreadyExistsError(f"Namespace already exists: {namespace_to_string(ns)}")
        props = dict(properties or {})
        props[NAMESPACE_EXISTS_PROPERTY] = "true"
        try:
            self._insert_properties(ns, props)
        except CatalogError as e:
            if self.namespace_exists(ns):
                raise NamespaceAlreadyExistsError(
                    f"Namespace already exists: {namespace_to_string(ns)}"
                ) from e
            raise

    def list_namespaces(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        found: list[tuple[str, ...]] = []
        if not ns:
            for stmt, column in (
                (LIST_ALL_NAMESPACES_SQL, "table_namespace"),
                (LIST_ALL_PROPERTY_NAMESPACES_SQL, "namespace"),
            ):
                found += [
                    string_to_namespace(r[column]) for r in self._query("list namespaces", stmt, self.name)
                ]
            return sorted({n[:1] for n in found if len(n) >= 1})
        if not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(ns)}")
        pattern = like_escape(namespace_to_string(ns)) + ".%"
        for stmt, column in (
            (LIST_NAMESPACES_SQL, "table_namespace"),
            (LIST_PROPERTY_NAMESPACES_SQL, "namespace"),
        ):
            found += [
                string_to_namespace(r[column])
                for r in self._query("list namespaces", stmt, self.name, pattern)
            ]
        depth = len(ns) + 1
        return sorted({n[:depth] for n in found if len(n) >= depth and n[: len(ns)] == ns})

    def _fetch_properties(self, ns: tuple[str, ...]) -> dict[str, str]:
        return fetch_properties(self, ns)

    def load_namespace_properties(self, namespace: NamespaceLike) -> dict[str, str]:
        ns = to_namespace(namespace)
        if not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(ns)}")
        props = self._fetch_properties(ns)
        if "location" not in props and self.warehouse:
            props["location"] = "/".join((self.warehouse, *ns))
        props.pop(NAMESPACE_EXISTS_PROPERTY, None)
        return props

    def update_namespace_properties(
        self,
        namespace: NamespaceLike,
        removals: Iterable[str] | None = None,
        updates: Mapping[str, str] | None = None,
    ) -> NamespacePropertiesUpdate:
        ns = to_namespace(namespace)
        if not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(ns)}")
        removal_set, update_map = namespace_property_changes(removals, updates)
        if NAMESPACE_EXISTS_PROPERTY in update_map:
            raise InvalidArgumentError(f"Cannot set reserved property: {NAMESPACE_EXISTS_PROPERTY}")
        if NAMESPACE_EXISTS_PROPERTY in removal_set:
            raise InvalidArgumentError(f"Cannot remove reserved property: {NAMESPACE_EXISTS_PROPERTY}")
        return write_properties(self, ns, removal_set, update_map)

    def _insert_properties(self, ns: tuple[str, ...], properties: Mapping[str, str]) -> None:
        insert_properties(self, ns, properties)

    def drop_namespace(self, namespace: NamespaceLike) -> bool:
        ns = to_namespace(namespace)
        shown = namespace_to_string(ns)
        if not self.namespace_exists(ns):
            return False
        children = self.list_namespaces(ns) if ns else []
        if children:
            raise NamespaceNotEmptyError(
                f"Namespace {shown} is not empty. Contains {len(children)} child namespace(s)."
            )
        tables = self.list_tables(ns)
        if tables:
            raise NamespaceNotEmptyError(f"Namespace {shown} is not empty. Contains {len(tables)} table(s).")
        if self.schema_version != "V0":
            views = self.list_views(ns)
            if views:
                raise NamespaceNotEmptyError(
                    f"Namespace {shown} is not empty. Contains {len(views)} view(s)."
                )
        # the functions are checked, and the namespace dropped, under the namespace's lock
        return self.functions.drop_namespace_if_empty(ns, DELETE_ALL_NAMESPACE_PROPERTIES_SQL) > 0
