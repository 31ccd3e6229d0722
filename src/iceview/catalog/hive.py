"""A view catalog on a Hive Metastore (HMS), storing views as Iceberg Java's ``HiveCatalog`` does,
so that Iceberg-Spark (``type=hive``), Iceberg Java and iceview share them.

A view is an HMS table of ``tableType=VIRTUAL_VIEW`` (Java's ``HiveViewOperations``):

* parameters: ``table_type=ICEBERG-VIEW``, ``metadata_location``, ``previous_metadata_location``
  (not on create), ``uuid``, every view property but ``hive.metastore.table.owner`` (a property
  removed from the view is removed here), and ``current-schema`` (the schema's compact JSON, while it
  fits in ``iceberg.hive.table-property-max-size``, 32,672 characters);
* the owner: the view's ``hive.metastore.table.owner`` property, else the operating-system user;
* the storage descriptor: the schema's columns in Hive types (docs as comments), the view's
  location, ``FileInputFormat``/``FileOutputFormat``/``LazySimpleSerDe``;
* ``viewOriginalText`` = ``viewExpandedText``: the ``hive`` SQL, else the first SQL, written when
  the view is created (Java leaves them alone on replace).

Only ``ICEBERG-VIEW`` entries are views: a plain Hive view (``VIRTUAL_VIEW`` without
``table_type``) is never listed, loaded, replaced or dropped (``NoSuchIcebergViewError``), and
nothing is created over it. Hive keeps tables and views in one name space, so a table and a view
never share a name. Namespaces are Hive databases: one level.

Commits go through the one commit loop (:meth:`MetastoreViewCatalog.commit_view`); each swap takes
the lock of :mod:`iceview.catalog.hive_lock`, re-reads the HMS table, checks its
``metadata_location`` against the base, and ``alter_table``\\s it. An unclear outcome is checked as
Java checks it (the pointer is read again, up to ``commit.status-check.num-retries`` times) and
becomes :class:`CommitStateUnknownError` if it still cannot tell.

Catalog properties: PyIceberg's (``uri``, ``warehouse``, ``ugi``, ``hive.kerberos-authentication``,
``hive.hive2-compatible``) and Java's (``iceberg.engine.hive.lock-enabled``,
``iceberg.hive.lock-*``, ``iceberg.hive.table-property-max-size``,
``hive.metastore.client.socket.timeout``); tables go through PyIceberg's ``HiveCatalog``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from iceview.catalog.hive_client import MetastoreClients, MetastoreUnreachableError, describe_thrift_error
from iceview.catalog.hive_layout import (
    HIVE2_COMPATIBLE,
    METADATA_LOCATION,
    PREVIOUS_METADATA_LOCATION,
    PROPERTY_MAX_SIZE,
    PROPERTY_MAX_SIZE_DEFAULT,
    VIRTUAL_VIEW,
    check_name,
    is_iceberg_table,
    is_view,
    not_a_view,
    view_table,
)
from iceview.catalog.hive_listing import HiveListing
from iceview.catalog.hive_lock import (
    LOCK_ENABLED,
    CommitLock,
    LockLostError,
    LockSettings,
    MetastoreLock,
    NoLock,
    check_compare_and_swap,
    expected_context,
)
from iceview.catalog.hive_namespaces import HiveNamespaces
from iceview.catalog.interface import ViewPage
from iceview.catalog.metastore import MetastoreViewCatalog, MetastoreViewOperations
from iceview.catalog.properties import property_as_bool, property_as_int
from iceview.errors import (
    CatalogError,
    CommitFailedError,
    CommitStateUnknownError,
    InvalidArgumentError,
    InvalidIdentifierError,
    NoSuchNamespaceError,
    NoSuchViewError,
    TableAlreadyExistsError,
    ValidationError,
    ViewAlreadyExistsError,
)
from iceview.identifiers import (
    IdentifierLike,
    NamespaceLike,
    ViewIdentifier,
    namespace_to_string,
    to_identifier,
    to_namespace,
)

if TYPE_CHECKING:
    from hive_metastore.ThriftHiveMetastore import Client

    from iceview.spec import ViewMetadata, ViewRequirement, ViewUpdate
    from iceview.view import View

__all__ = ["HiveCatalog", "HiveViewOperations"]

log = logging.getLogger(__name__)

STATUS_CHECKS = "commit.status-check.num-retries"
STATUS_CHECK_MIN_WAIT = "commit.status-check.min-wait-ms"
STATUS_CHECK_MAX_WAIT = "commit.status-check.max-wait-ms"
# the metastore's answer when an expected parameter does not hold (Hive's HiveAlterHandler)
_MODIFIED = "has been modified"


# ----------------------------------------------------------------------------- operations


class HiveViewOperations(MetastoreViewOperations):
    """The pointer of one view in its HMS table: Java's ``HiveViewOperations``."""

    def __init__(self, catalog: HiveCatalog, identifier: ViewIdentifier) -> None:
        super().__init__(catalog, identifier)
        self.catalog = catalog
        self.database = identifier.namespace[0]
        self.table = identifier.name
        self.held_lock: CommitLock | None = None
        """The lock :meth:`HiveCatalog.commit_view` holds around the whole commit loop, if any."""
        self._read_under_lock: Any | None = None

    def _load(self) -> Any | None:
        return self.catalog._get_table(self.database, self.table)

    def do_refresh(self) -> str | None:
        table = self._load()
        self._read_under_lock = table if self.held_lock is not None else None
        if table is None:
            return None
        if not is_view(table):
            raise not_a_view(self.full_name, table)
        return (table.parameters or {}).get(METADATA_LOCATION)

    def do_commit(self, base: ViewMetadata | None, new_location: str) -> None:
        catalog = self.catalog
        metadata = self._committing
        held = self.held_lock
        lock = held or catalog._commit_lock(self.database, self.table, swap=base is not None)
        base_location = base.metadata_file_location if base is not None else None
        sent = False
        try:
            if held is None:
                lock.lock()
            # under a lock held since the last refresh, the entry it read is still the metastore's
            table = self._read_under_lock if held is not None and self._read_under_lock else self._load()
            self._read_under_lock = None
            if table is not None:
                if base is None:
                    if is_view(table):
                        raise ViewAlreadyExistsError(f"View already exists: {self.identifier}")
                    if is_iceberg_table(table):
                        raise TableAlreadyExistsError(
                            f"Table with same name already exists: {self.identifier}"
                        )
                    raise CommitFailedError(
                        f"Cannot create view {self.identifier}: the Hive Metastore holds a "
                        f"{table.tableType} of that name that is not an Iceberg view"
                    )
                if not is_view(table):
                    raise not_a_view(self.full_name, table)
            elif base is not None:
                raise NoSuchViewError(f"View does not exist: {self.identifier}")
            current = (table.parameters or {}).get(METADATA_LOCATION) if table is not None else None
            if current != base_location:
                raise CommitFailedError(
                    f"Cannot commit: Base metadata location '{base_location}' is not same as the current "
                    f"view metadata location '{current}' for {self.database}.{self.table}"
                )
            new_table = view_table(
                self.database,
                self.table,
                table,
                base,
                metadata,
                new_location,
                self.current_metadata_location,
                property_max_size=catalog.property_max_size,
                hive2_compatible=catalog.hive2_compatible,
            )
            lock.ensure_active()
            sent = True
            catalog._persist(new_table, update=table is not None, base_location=base_location)
            lock.ensure_active()
        except LockLostError as e:
            if not sent:
                raise CommitFailedError(str(e)) from e
            raise CommitStateUnknownError(
                f"Failed to heartbeat for hive lock while committing changes to {self.identifier}. This can "
                "lead to a concurrent commit attempt be able to overwrite this commit. Please check the "
                "commit history. If you are running into this issue, try reducing "
                "iceberg.hive.lock-heartbeat-interval-ms."
            ) from e
        except MetastoreUnreachableError as e:
            if not sent or not e.sent:
                raise  # nothing reached the metastore: a definite failure, not a conflict to retry
            self._check_commit_status(new_location, e)
        finally:
            if held is None:
                lock.unlock()

    def _check_commit_status(self, new_location: str, cause: Exception) -> None:
        """Java's ``checkCommitStatus``: read the pointer again (with waits) until it answers."""
        props = self._committing.properties
        checks = _int(props, STATUS_CHECKS, 3)
        wait = _int(props, STATUS_CHECK_MIN_WAIT, 1000) / 1000
        max_wait = _int(props, STATUS_CHECK_MAX_WAIT, 60000) / 1000
        log.error(
            "Cannot tell if commit to %s succeeded, attempting to reconnect and check: %s",
            self.identifier,
            cause,
        )
        for attempt in range(checks + 1):
            try:
                table = self._load()
            except CatalogError as e:
                log.warning("Cannot check the commit status of %s: %s", self.identifier, e)
                if attempt < checks:
                    time.sleep(wait)
                    wait = min(wait * 2, max_wait)
                continue
            if table is not None and (table.parameters or {}).get(METADATA_LOCATION) == new_location:
                log.info("Commit status check: commit to %s of %s succeeded", self.identifier, new_location)
                return
            log.info("Commit status check: commit to %s of %s failed", self.identifier, new_location)
            raise CommitFailedError(f"Cannot commit {self.identifier}: {cause}") from cause
        raise CommitStateUnknownError(
            f"Commit state unknown for view {self.identifier}: the Hive Metastore failed after the swap to "
            f"{new_location} was sent, and it could not be asked afterwards ({cause}); the new metadata file "
            "is kept"
        ) from cause

    def commit(self, base: ViewMetadata | None, metadata: ViewMetadata) -> ViewMetadata:
        # the HMS entry mirrors the metadata (schema, properties, SQL), not only its location
        self._committing = metadata
        return super().commit(base, metadata)


def _int(props: Mapping[str, str], key: str, default: int) -> int:
    """A view's ``commit.status-check.*`` property, or ``default`` if it is not an integer: not
    :func:`property_as_int`, whose error would end an unknown outcome as a definite failure, and a
    definite failure deletes the new file the metastore may point at."""
    raw = props.get(key)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        return default


# ----------------------------------------------------------------------------- catalog


class HiveCatalog(HiveNamespaces, MetastoreViewCatalog):
    """Views (and read-only table look-ups) in a Hive Metastore; see the module's docstring."""

    catalog_type = "hive"

    def __init__(self, name: str = "default", **properties: str) -> None:
        super().__init__(name, {k: str(v) for k, v in properties.items()})
        self.clients = MetastoreClients(self.properties)
        self._listing = HiveListing(self.clients)
        warehouse = self.properties.get("warehouse")
        self.warehouse = warehouse.rstrip("/") if warehouse else None
        self.lock_enabled = property_as_bool(self.properties, LOCK_ENABLED, True)
        self.lock_settings = LockSettings(self.properties)
        self.property_max_size = property_as_int(
            self.properties, PROPERTY_MAX_SIZE, PROPERTY_MAX_SIZE_DEFAULT
        )
        self.hive2_compatible = property_as_bool(self.properties, HIVE2_COMPATIBLE, True)

    def close(self) -> None:
        self.clients.close()

    def display_uri(self) -> str:
        return self.clients.display_uri

    # -- metastore calls -------------------------------------------------------------------------
    def _run(
        self,
        what: str,
        call: Callable[[Client], Any],
        *,
        idempotent: bool = True,
        expected: tuple[type[BaseException], ...] = (),
    ) -> Any:
        return self.clients.run(what, call, idempotent=idempotent, expected=expected)

    def _get_table(self, database: str, table: str) -> Any | None:
        from hive_metastore.ttypes import NoSuchObjectException

        try:
            return self._run(
                f"get table {database}.{table}",
                lambda c: c.get_table(database, table),
                expected=(NoSuchObjectException,),
            )
        except NoSuchObjectException:
            return None

    def commit_view(
        self,
        identifier: IdentifierLike | View,
        requirements: Sequence[ViewRequirement],
        updates: Sequence[ViewUpdate],
    ) -> View:
        """The one commit loop, inside the view's lock when locks are on: the lock is taken before
        the view is refreshed, so a commit that waited for it starts from the latest version and
        does not fail its base check (Java takes the lock after writing the new file, so that
        under contention most of its commits fail)."""
        from iceview.spec import AssertCreate

        ident, handle_ops = self._handle_operations(identifier)
        self._check_names(ident)
        if not self.lock_enabled or any(isinstance(r, AssertCreate) for r in requirements):
            return super().commit_view(identifier, requirements, updates)
        ops = handle_ops if isinstance(handle_ops, HiveViewOperations) else self.new_view_ops(ident)
        lock = self._commit_lock(ops.database, ops.table)
        lock.lock()
        ops.held_lock = lock
        try:
            ops.refresh()
            return super().commit_view(self._view(ops), requirements, updates)
        finally:
            ops.held_lock = None
            lock.unlock()

    def _commit_lock(self, database: str, table: str, *, swap: bool = True) -> CommitLock:
        """The lock a commit takes; without locks, a ``swap`` of an existing pointer needs a
        metastore that compares and swaps (a create needs none: ``create_table`` fails if the name
        is taken)."""
        if self.lock_enabled:
            return MetastoreLock(self.clients, self.lock_settings, self.clients.display_uri, database, table)
        if swap:
            check_compare_and_swap(self.clients, database, f"{database}.{table}")
        return NoLock()

    def _persist(self, table: Any, *, update: bool, base_location: str | None) -> None:
        from hive_metastore.ttypes import (
            AlreadyExistsException,
            InvalidObjectException,
            InvalidOperationException,
            MetaException,
            NoSuchObjectException,
        )

        name = f"{table.dbName}.{table.tableName}"
        answers = (
            AlreadyExistsException,
            InvalidObjectException,
            InvalidOperationException,
            MetaException,
            NoSuchObjectException,
        )
        try:
            if update:
                # the metastore compares even with locks held (Hive 2.3.10+; older ones ignore it): a
                # writer configured without locks cannot then have its swap overwritten by this one
                context = expected_context(base_location)
                self._run(
                    f"alter {name}",
                    lambda c: c.alter_table_with_environment_context(
                        table.dbName, table.tableName, table, context
                    ),
                    idempotent=False,
                    expected=answers,
                )
            else:
                self._run(
                    f"create {name}", lambda c: c.create_table(table), idempotent=False, expected=answers
                )
        except AlreadyExistsException as e:
            raise ViewAlreadyExistsError(f"View already exists: {name}") from e
        except NoSuchObjectException as e:
            raise NoSuchNamespaceError(f"Namespace does not exist: {table.dbName}") from e
        except (InvalidObjectException, InvalidOperationException) as e:
            raise ValidationError(f"Invalid Hive object for {name}: {describe_thrift_error(e)}") from e
        except MetaException as e:
            if _MODIFIED in (e.message or ""):
                raise CommitFailedError(f"The view {name} has been modified concurrently") from e
            raise CatalogError(f"Metastore operation failed for {name}: {describe_thrift_error(e)}") from e

    # -- identifiers -----------------------------------------------------------------------------
    def _view_ident(self, identifier: IdentifierLike) -> ViewIdentifier:
        ident = to_identifier(identifier)
        if len(ident.namespace) != 1:
            raise NoSuchViewError(f"Invalid view identifier: {ident}")
        return ident

    def new_view_ops(self, identifier: ViewIdentifier) -> HiveViewOperations:
        if len(identifier.namespace) != 1:
            raise InvalidIdentifierError(
                f"Invalid view identifier {identifier}: a Hive Metastore view is <database>.<name>"
            )
        return HiveViewOperations(self, identifier)

    def default_view_location(self, identifier: ViewIdentifier) -> str:
        """Java's ``defaultWarehouseLocation``: ``<database location>/<name>``."""
        from hive_metastore.ttypes import NoSuchObjectException

        database = self._database(identifier.namespace)
        try:
            db = self._run(
                f"get database {database}",
                lambda c: c.get_database(database),
                expected=(NoSuchObjectException,),
            )
        except NoSuchObjectException as e:
            raise NoSuchNamespaceError(f"Namespace does not exist: {database}") from e
        if db.locationUri:
            return f"{db.locationUri.rstrip('/')}/{identifier.name}"
        if not self.warehouse:
            raise InvalidArgumentError(
                f"Cannot choose a location for view {identifier}: database {database} has no location and "
                "the catalog has no 'warehouse' property (set it, or pass location=...)"
            )
        return f"{self.warehouse}/{database}.db/{identifier.name}"

    # -- views -----------------------------------------------------------------------------------
    def register_view(self, identifier: IdentifierLike, metadata_location: str) -> View:
        self._check_names(to_identifier(identifier))
        return super().register_view(identifier, metadata_location)

    def _check_names(self, identifier: ViewIdentifier) -> None:
        if len(identifier.namespace) != 1:
            raise InvalidIdentifierError(
                f"Invalid view identifier {identifier}: a Hive Metastore view is <database>.<name>"
            )
        check_name("database", identifier.namespace[0])
        check_name("view", identifier.name)

    def _create_view(self, identifier: ViewIdentifier, definition: Any) -> Any:
        self._check_names(identifier)
        if len(identifier.namespace) == 1 and not self.namespace_exists(identifier.namespace):
            raise NoSuchNamespaceError(f"Namespace does not exist: {identifier.namespace[0]}")
        table = (
            self._get_table(identifier.namespace[0], identifier.name)
            if len(identifier.namespace) == 1
            else None
        )
        if table is not None and not is_view(table):
            if is_iceberg_table(table):
                raise TableAlreadyExistsError(f"Table with same name already exists: {identifier}")
            raise not_a_view(self.full_view_name(identifier), table)
        return super()._create_view(identifier, definition)

    def view_exists(self, identifier: IdentifierLike) -> bool:
        ident = to_identifier(identifier)
        if len(ident.namespace) != 1:
            return False
        table = self._get_table(ident.namespace[0], ident.name)
        return table is not None and is_view(table)

    def load_view(
        self, identifier: IdentifierLike, *, referenced_by: Sequence[IdentifierLike] | None = None
    ) -> Any:
        return super().load_view(self._view_ident(identifier), referenced_by=referenced_by)

    def list_views(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        if not ns:
            return []  # no views outside a database (Java: "Missing database in namespace")
        database = self._database(ns)
        if not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {database}")
        return [(database, t.tableName) for t in self._listing.of_type(database, is_view, VIRTUAL_VIEW)]

    def list_views_page(self, namespace: NamespaceLike, *, after: str | None, limit: int) -> ViewPage:
        """A page of views: the view names are listed, and only the entries of the names the
        page may show are fetched (:meth:`HiveListing.page`)."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1: {limit}")
        ns = to_namespace(namespace)
        if not ns:
            return ViewPage([], False)
        database = self._database(ns)
        if not self.namespace_exists(ns):
            raise NoSuchNamespaceError(f"Namespace does not exist: {database}")
        names, more = self._listing.page(database, is_view, VIRTUAL_VIEW, after=after, limit=limit)
        return ViewPage([(database, n) for n in names], more)

    def drop_view(self, identifier: IdentifierLike) -> bool:
        from hive_metastore.ttypes import NoSuchObjectException

        ident = to_identifier(identifier)
        if len(ident.namespace) != 1:
            return False
        last = self._last_metadata_for_drop(self.new_view_ops(ident))
        database, name = ident.namespace[0], ident.name
        try:
            self._run(
                f"drop {ident}",
                lambda c: c.drop_table(database, name, False),
                idempotent=False,
                expected=(NoSuchObjectException,),
            )
        except NoSuchObjectException:
            log.info("Skipping drop, view does not exist: %s", ident)
            return False
        self._delete_dropped_metadata(ident, last)
        log.info("Dropped view: %s", ident)
        return True

    def rename_view(self, from_identifier: IdentifierLike, to_identifier: IdentifierLike) -> None:
        from hive_metastore.ttypes import InvalidOperationException, MetaException, NoSuchObjectException

        from iceview import identifiers as _ids

        src = _ids.to_identifier(from_identifier)
        dst = _ids.to_new_identifier(to_identifier)
        self._check_names(dst)
        if len(src.namespace) != 1:
            raise NoSuchViewError(f"Invalid identifier: {src}")
        if len(dst.namespace) != 1 or not self.namespace_exists(dst.namespace):
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(dst.namespace)}")
        # Java's HiveCatalog order: the target first (so renaming onto itself is "already exists")
        target = self._get_table(dst.namespace[0], dst.name)
        if target is not None:
            if is_view(target):
                raise ViewAlreadyExistsError(f"Cannot rename {src} to {dst}. View already exists")
            raise TableAlreadyExistsError(f"Cannot rename {src} to {dst}. Table already exists")
        table = self._get_table(src.namespace[0], src.name)
        if table is None:
            raise NoSuchViewError(f"View does not exist: {src}")
        if not is_view(table):
            raise not_a_view(self.full_view_name(src), table)
        table.dbName, table.tableName = dst.namespace[0], dst.name
        try:
            self._run(
                f"rename {src}",
                lambda c: c.alter_table(src.namespace[0], src.name, table),
                idempotent=False,
                expected=(NoSuchObjectException, InvalidOperationException, MetaException),
            )
        except NoSuchObjectException as e:
            raise NoSuchViewError(f"View does not exist: {src}") from e
        except (InvalidOperationException, MetaException) as e:
            if "already exists" in (e.message or ""):
                raise TableAlreadyExistsError(f"Table already exists: {dst}") from e
            raise CatalogError(f"Failed to rename {src} to {dst}: {describe_thrift_error(e)}") from e
        log.info("Renamed view from %s, to %s", src, dst)

    def metadata_pointers(self) -> set[str]:
        """Every ``metadata_location`` and ``previous_metadata_location`` of every table and view of
        every database."""
        out: set[str] = set()
        for (database,) in self.list_namespaces():
            for table in self._listing.of_type(database, lambda _: True, None):
                params = table.parameters or {}
                for key in (METADATA_LOCATION, PREVIOUS_METADATA_LOCATION):
                    if params.get(key):
                        out.add(params[key])
        return out

    # -- tables (look-ups only) ------------------------------------------------------------------
    def table_catalog(self) -> Any:
        """PyIceberg's ``HiveCatalog`` on the same metastore."""
        from pyiceberg.catalog.hive import HiveCatalog as PyIcebergHiveCatalog

        props = {
            k: v
            for k, v in self.properties.items()
            if not k.startswith(("view-", "iceberg.", "iceview.")) and k != "type"
        }
        return PyIcebergHiveCatalog(self.name, **props)

    def table_exists(self, identifier: IdentifierLike) -> bool:
        ident = to_identifier(identifier)
        if len(ident.namespace) != 1:
            return False
        table = self._get_table(ident.namespace[0], ident.name)
        return table is not None and is_iceberg_table(table)

    def list_tables(self, namespace: NamespaceLike) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        database = self._database(ns)
        return [(database, t.tableName) for t in self._listing.of_type(database, is_iceberg_table, None)]
