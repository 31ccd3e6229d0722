"""The SQL side of the SQL catalog: Java's ``JdbcUtil`` statements (bound parameters only), the
SQLAlchemy URL and engine, transactions, and how database errors are classified."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, TextClause, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.pool import StaticPool

from iceview.catalog.properties import property_as_bool

# ----------------------------------------------------------------------------- statements


class Stmt:
    """A statement in Java's text, with JDBC ``?`` placeholders turned into SQLAlchemy binds."""

    __slots__ = ("clause", "sql")

    def __init__(self, sql: str) -> None:
        self.sql = sql
        parts = sql.split("?")
        bound = parts[0]
        for i, part in enumerate(parts[1:]):
            bound += f":p{i}" + part
        self.clause: TextClause = text(bound)

    def params(self, *args: str | int | None) -> dict[str, str | int | None]:
        return {f"p{i}": a for i, a in enumerate(args)}


_VIEW = "iceberg_type = 'VIEW'"
_TABLE = "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)"

V0_CREATE_CATALOG_SQL = (
    "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,"
    "table_namespace VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL,"
    "metadata_location VARCHAR(1000),previous_metadata_location VARCHAR(1000),"
    "PRIMARY KEY (catalog_name, table_namespace, table_name))"
)
V1_UPDATE_CATALOG_SQL = "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)"
CREATE_NAMESPACE_PROPERTIES_TABLE_SQL = (
    "CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL,"
    "namespace VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value VARCHAR(1000),"
    "PRIMARY KEY (catalog_name, namespace, property_key))"
)

_COMMIT = (
    "UPDATE iceberg_tables SET metadata_location = ? , previous_metadata_location = ? WHERE catalog_name = ? "
    "AND table_namespace = ? AND table_name = ? AND metadata_location = ?"
)
V1_DO_COMMIT_VIEW_SQL = Stmt(_COMMIT + " AND " + _VIEW)
_GET = "SELECT * FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
GET_VIEW_SQL = Stmt(_GET + " AND " + _VIEW)
V1_GET_TABLE_SQL = Stmt(_GET + " AND " + _TABLE)
V0_GET_TABLE_SQL = Stmt(_GET)
_LIST = "SELECT * FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ?"
LIST_VIEW_SQL = Stmt(_LIST + " AND " + _VIEW)
LIST_VIEW_PAGE_SQL = Stmt(
    "SELECT table_namespace, table_name FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
    "AND " + _VIEW + " AND table_name > ? ORDER BY table_name LIMIT ?"
)
"""One page of a namespace's views after a name (iceview's own query: keyset paging on the primary
key, in the database's order of names)."""
V1_LIST_TABLE_SQL = Stmt(_LIST + " AND " + _TABLE)
V0_LIST_TABLE_SQL = Stmt(_LIST)
ALL_POINTERS_SQL = Stmt("SELECT metadata_location, previous_metadata_location FROM iceberg_tables")
"""Every pointer of every catalog in the database (iceview's own query: what orphan removal keeps)."""
RENAME_VIEW_SQL = Stmt(
    "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE catalog_name = ? "
    "AND table_namespace = ? AND table_name = ? AND " + _VIEW
)
DROP_VIEW_SQL = Stmt(
    "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace  = ? AND table_name = ? AND "
    + _VIEW
    + " AND metadata_location = ?"
)
"""Java's drop, deleting the row only while it holds the pointer the drop read (a commit landing
in between is read again, not orphaned: docs/compatibility.md)."""
GET_NAMESPACE_SQL = Stmt(
    "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ? AND  (table_namespace = ? OR "
    "table_namespace LIKE ? ESCAPE '!') LIMIT 1"
)
# Java sends these LIKEs without ESCAPE and filters the fuzzy matches afterwards; iceview escapes
# the pattern (and still filters)
LIST_NAMESPACES_SQL = Stmt(
    "SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = ? AND table_namespace LIKE ? "
    "ESCAPE '!'"
)
LIST_ALL_NAMESPACES_SQL = Stmt("SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = ?")
V1_DO_COMMIT_CREATE_SQL = Stmt(
    "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
    "previous_metadata_location, iceberg_type)  VALUES (?,?,?,?,null,?)"
)
GET_NAMESPACE_PROPERTIES_SQL = Stmt(
    "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ? AND  ( namespace = ? OR "
    "namespace LIKE ? ESCAPE '!'  ) "
)
_INSERT_NAMESPACE_PROPERTIES_SQL = (
    "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) VALUES "
)
GET_ALL_NAMESPACE_PROPERTIES_SQL = Stmt(
    "SELECT *  FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? "
)
_DELETE_NAMESPACE_PROPERTIES_SQL = (
    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? AND property_key IN "
)
DELETE_ALL_NAMESPACE_PROPERTIES_SQL = Stmt(
    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?"
)
LIST_PROPERTY_NAMESPACES_SQL = Stmt(
    "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace LIKE ? "
    "ESCAPE '!'"
)
LIST_ALL_PROPERTY_NAMESPACES_SQL = Stmt(
    "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?"
)


def insert_properties_stmt(size: int) -> Stmt:
    return Stmt(_INSERT_NAMESPACE_PROPERTIES_SQL + ", ".join(["(?,?,?,?)"] * size))


def update_properties_stmt(size: int) -> Stmt:
    cases = "".join(" WHEN property_key = ? THEN ?" for _ in range(size))
    return Stmt(
        "UPDATE iceberg_namespace_properties SET property_value = CASE"
        + cases
        + " END WHERE catalog_name = ? AND namespace = ? AND property_key IN ("
        + ",".join(["?"] * size)
        + ")"
    )


def delete_properties_stmt(size: int) -> Stmt:
    return Stmt(_DELETE_NAMESPACE_PROPERTIES_SQL + "(" + ",".join(["?"] * size) + ")")


def like_escape(value: str) -> str:
    """Java's escaping for ``LIKE ... ESCAPE '!'``."""
    return value.replace("!", "!!").replace("_", "!_").replace("%", "!%")


NAMESPACE_LOCK_SQL = Stmt("SELECT pg_advisory_xact_lock(hashtext(?))")
"""PostgreSQL: the transaction-scoped advisory lock of one namespace of one catalog (iceview's own)."""


def lock_namespace(conn: Connection, catalog: str, namespace: str) -> None:
    """Serialise the transactions that check a namespace and change what it holds: a function
    created in or renamed into it, and its drop, so that a drop racing a create cannot both win.
    Call it first in the transaction. SQLite takes the database's write lock (``BEGIN IMMEDIATE``:
    the one lock it has); PostgreSQL an advisory lock on the namespace until the transaction ends.
    Other databases take none."""
    name = conn.dialect.name
    if name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif name == "postgresql":
        conn.execute(NAMESPACE_LOCK_SQL.clause, NAMESPACE_LOCK_SQL.params(f"{catalog}\x1f{namespace}"))


# ----------------------------------------------------------------------------- connections


def to_sqlalchemy_url(uri: str, properties: Mapping[str, str] | None = None) -> URL:
    """A SQLAlchemy URL from a SQLAlchemy or JDBC URL.

    ``jdbc:sqlite:/p`` becomes ``sqlite:////p``; ``jdbc:postgresql://h:p/db`` and
    ``postgresql://...`` use psycopg 3. ``jdbc.user`` / ``jdbc.password`` fill in missing
    credentials."""
    props = properties or {}
    if uri.startswith("jdbc:sqlite:"):
        path = uri[len("jdbc:sqlite:") :]
        if path.startswith("file:"):
            path = path[len("file:") :]
        url = make_url("sqlite://") if path in ("", ":memory:") else make_url("sqlite:///" + path)
    else:
        if uri.startswith("jdbc:"):
            uri = uri[len("jdbc:") :]
        url = make_url(uri)
    driver = url.drivername
    if driver in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    user = props.get("jdbc.user")
    password = props.get("jdbc.password")
    if url.username is None and user:
        url = url.set(username=user)
    if url.password is None and password:
        url = url.set(password=password)
    return url


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """``engine.begin()`` that never hands a connection back to the pool after a failed write.

    A COMMIT can fail and leave the uncommitted change on the driver's connection (SQLite's
    "database is locked" does: the transaction stays open). Returned to the pool, that connection
    would show the change to its next user, or commit it with theirs, and the catalog could end up
    pointing at a metadata file that was deleted as an orphan. So on any error the connection is
    invalidated: closed, which discards the transaction, and replaced in the pool.
    """
    conn = engine.connect()
    try:
        yield conn
        conn.commit()
    except BaseException:
        with contextlib.suppress(Exception):
            conn.invalidate()
        raise
    finally:
        conn.close()


def first_row(engine: Engine, stmt: Stmt, *args: str | int | None) -> dict[str, Any] | None:
    """The first row of a one-statement read (by column name), or ``None``.

    On SQLite the statement runs on the pool's DBAPI connection in Java's own text (its ``?``
    placeholders are ``sqlite3``'s): ~20 us, where SQLAlchemy's ``execute`` and result machinery
    take ~70 us (2026-11-29). A view's pointer is read this way on every load, so a Spark read of a
    view pays it once per view. Errors are SQLAlchemy's ``DBAPIError`` classes, as from
    :func:`reading`, and the connection is dropped from the pool after one. Elsewhere the read goes
    through :func:`reading`."""
    if engine.dialect.name != "sqlite":
        with reading(engine) as conn:
            found = conn.execute(stmt.clause, stmt.params(*args)).mappings().first()
            return None if found is None else dict(found)
    dbapi_error: type[Exception] = engine.dialect.loaded_dbapi.Error
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        try:
            cursor.execute(stmt.sql, args)
            found = cursor.fetchone()
            names = [d[0] for d in cursor.description] if found is not None else []
        finally:
            cursor.close()
    except dbapi_error as e:
        raw.invalidate()
        raise DBAPIError.instance(stmt.sql, args, e, dbapi_error, dialect=engine.dialect) from e
    finally:
        raw.close()
    return None if found is None else dict(zip(names, found, strict=True))


@contextlib.contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A connection for reads that are each one statement: no transaction is opened around them
    (autocommit), so on PostgreSQL a pointer read is one round trip instead of three (``BEGIN``,
    the ``SELECT``, ``ROLLBACK``): ~200 us instead of ~300 us on this machine. Every read of a view
    goes through it. SQLite's driver opens no transaction for a ``SELECT`` anyway, and switching
    it to autocommit and back costs ~30 us, so SQLite connections are left as they are."""
    conn = engine.connect()
    if engine.dialect.name != "sqlite":
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
    with conn:
        yield conn


def make_engine(url: URL, properties: Mapping[str, str]) -> Engine:
    echo_prop = str(properties.get("echo", "false")).lower()
    echo: bool | str = "debug" if echo_prop == "debug" else echo_prop == "true"
    kwargs: dict[str, Any] = {"echo": echo}
    if is_sqlite(url):
        database = url.database or ""
        timeout = float(properties.get("sqlite.timeout", "30"))
        connect_args: dict[str, Any] = {"timeout": timeout, "check_same_thread": False}
        if database in ("", ":memory:"):
            kwargs["poolclass"] = StaticPool
        else:
            parent = os.path.dirname(os.path.abspath(database))
            os.makedirs(parent, exist_ok=True)
        kwargs["connect_args"] = connect_args
    else:
        kwargs["pool_pre_ping"] = property_as_bool(properties, "pool_pre_ping", False)
    engine = create_engine(url, **kwargs)
    if is_sqlite(url):

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
            # LIKE is case-insensitive in SQLite unless told otherwise; namespaces are not
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA case_sensitive_like = ON")
            cursor.close()

    return engine


def describe(e: BaseException) -> str:
    orig = getattr(e, "orig", None) or e
    return f"{type(orig).__name__}: {str(orig).strip().splitlines()[0] if str(orig).strip() else ''}"


def java_sql_message(e: DBAPIError) -> str:
    """Java's wording for an ``SQLException`` that is not a constraint violation."""
    text_ = str(e.orig).lower()
    if "timeout" in text_ or "timed out" in text_:
        return "Database Connection timeout"
    if e.connection_invalidated or (isinstance(e, OperationalError) and is_connection_problem(text_)):
        return "Database Connection failed"
    return "Unknown failure"


def is_connection_problem(message: str) -> bool:
    return any(
        s in message
        for s in (
            "connection",
            "terminating",
            "server closed",
            "could not connect",
            "unable to open database",
            "no such host",
            "consuming input failed",
        )
    )


def is_constraint_violation(e: DBAPIError) -> bool:
    """Java's ``JdbcUtil.isConstraintViolation``."""
    if isinstance(e, IntegrityError):
        return True
    sqlstate = getattr(e.orig, "sqlstate", None) or getattr(e.orig, "pgcode", None)
    return sqlstate == "23505" or "constraint failed" in str(e.orig)
