"""Namespaces of the Hive catalog: Hive databases, one level, as Iceberg Java's ``HiveCatalog``
keeps them (``location`` is the database's ``locationUri``, ``comment`` its description,
``hive.metastore.database.owner``/``owner-type`` its owner; other properties are its parameters)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from iceview.catalog.hive_client import current_user, describe_thrift_error
from iceview.catalog.hive_layout import check_name
from iceview.catalog.interface import NamespacePropertiesUpdate
from iceview.catalog.properties import namespace_property_changes
from iceview.errors import (
    CatalogError,
    InvalidArgumentError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
)
from iceview.identifiers import NamespaceLike, namespace_to_string, to_namespace

if TYPE_CHECKING:
    from hive_metastore.ThriftHiveMetastore import Client

__all__ = ["HMS_DB_OWNER", "HMS_DB_OWNER_TYPE", "HiveNamespaces"]

HMS_DB_OWNER = "hive.metastore.database.owner"
HMS_DB_OWNER_TYPE = "hive.metastore.database.owner-type"


class HiveNamespaces:
    """The namespace half of :class:`iceview.catalog.hive.HiveCatalog`."""

    warehouse: str | None
    warehouse_root: str | None

    @abstractmethod
    def _run(
        self,
        what: str,
        call: Callable[[Client], Any],
        *,
        idempotent: bool = True,
        expected: tuple[type[BaseException], ...] = (),
    ) -> Any: ...

    @staticmethod
    def _database(namespace: Sequence[str], error: type[Exception] = NoSuchNamespaceError) -> str:
        if len(namespace) != 1:
            raise error(
                f"Namespace does not exist: {namespace_to_string(namespace)}"
                if error is NoSuchNamespaceError
                else f"Cannot support multi part namespace in Hive Metastore: {namespace_to_string(namespace)}"
            )
        return namespace[0]

    # -- namespaces (Hive databases) -------------------------------------------------------------
    def namespace_exists(self, namespace: NamespaceLike) -> bool:
        from hive_metastore.ttypes import NoSuchObjectException

        ns = to_namespace(namespace)
        if len(ns) != 1:
            return not ns  # the root always exists; nothing below a database does
        database = ns[0]
        try:
            self._run(
                f"get database {database}",
                lambda c: c.get_database(database),
                expected=(NoSuchObjectException,),
            )
        except NoSuchObjectException:
            return False
        return True

    def create_namespace(self, namespace: NamespaceLike, properties: Mapping[str, str] | None = None) -> None:
        from hive_metastore.ttypes import (
            AlreadyExistsException,
            Database,
            InvalidObjectException,
            PrincipalType,
        )

        from iceview import identifiers as _ids

        ns = _ids.to_new_namespace(namespace)
        if not ns:
            raise InvalidArgumentError("Cannot create namespace with invalid name: ")
        database = check_name("database", self._database(ns, InvalidArgumentError))
        meta = dict(properties or {})
        if meta.get(HMS_DB_OWNER_TYPE) is not None and meta.get(HMS_DB_OWNER) is None:
            raise InvalidArgumentError(
                f"Create namespace setting {HMS_DB_OWNER_TYPE} without setting {HMS_DB_OWNER} is not allowed"
            )
        location = meta.pop("location", None) or (
            f"{self.warehouse}/{database}.db" if self.warehouse else None
        )
        if location is not None:
            from iceview import files

            files.check_in_warehouse(location, self.warehouse_root, "namespace location")
        owner_type = meta.pop(HMS_DB_OWNER_TYPE, None)
        db = Database(
            name=database,
            description=meta.pop("comment", None),
            locationUri=location,
            ownerName=meta.pop(HMS_DB_OWNER, None) or current_user(),
            ownerType=PrincipalType._NAMES_TO_VALUES[(owner_type or "USER").upper()],
            parameters=meta,
        )
        try:
            self._run(
                f"create database {database}",
                lambda c: c.create_database(db),
                idempotent=False,
                expected=(AlreadyExistsException, InvalidObjectException),
            )
        except AlreadyExistsException as e:
            raise NamespaceAlreadyExistsError(f"Namespace already exists: {database}") from e
        except InvalidObjectException as e:
            raise InvalidArgumentError(f"Invalid namespace {database}: {describe_thrift_error(e)}") from e

    def list_namespaces(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        if ns:
            if not self.namespace_exists(ns):
                raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(ns)}")
            return []
        return sorted((d,) for d in self._run("list databases", lambda c: c.get_all_databases()))

    def _get_database(self, ns: tuple[str, ...]) -> Any:
        from hive_metastore.ttypes import NoSuchObjectException

        database = self._database(ns)
        try:
            return self._run(
                f"get database {database}",
                lambda c: c.get_database(database),
                expected=(NoSuchObjectException,),
            )
        except NoSuchObjectException as e:
            raise NoSuchNamespaceError(f"Namespace does not exist: {database}") from e

    def load_namespace_properties(self, namespace: NamespaceLike) -> dict[str, str]:
        from hive_metastore.ttypes import PrincipalType

        db = self._get_database(to_namespace(namespace))
        props = dict(db.parameters or {})
        if db.locationUri:
            props["location"] = db.locationUri
        if db.description is not None:
            props["comment"] = db.description
        if db.ownerName is not None:
            props[HMS_DB_OWNER] = db.ownerName
            if db.ownerType is not None:
                props[HMS_DB_OWNER_TYPE] = PrincipalType._VALUES_TO_NAMES.get(db.ownerType, str(db.ownerType))
        return props

    def update_namespace_properties(
        self,
        namespace: NamespaceLike,
        removals: Iterable[str] | None = None,
        updates: Mapping[str, str] | None = None,
    ) -> NamespacePropertiesUpdate:
        from hive_metastore.ttypes import PrincipalType

        ns = to_namespace(namespace)
        removal_set, update_map = namespace_property_changes(removals, updates)
        if "location" in removal_set:
            raise InvalidArgumentError("Cannot remove the location of a Hive database")
        db = self._get_database(ns)
        current = self.load_namespace_properties(ns)
        removed = [k for k in removal_set if k in current]
        missing = [k for k in removal_set if k not in current]
        params = dict(db.parameters or {})
        for key in removed:
            params.pop(key, None)
            if key == "comment":
                db.description = None
            elif key == HMS_DB_OWNER:
                db.ownerName = None
                db.ownerType = None
        for key, value in update_map.items():
            if key == "location":
                from iceview import files

                files.check_in_warehouse(value, self.warehouse_root, "namespace location")
                db.locationUri = value
            elif key == "comment":
                db.description = value
            elif key == HMS_DB_OWNER:
                db.ownerName = value
            elif key == HMS_DB_OWNER_TYPE:
                db.ownerType = PrincipalType._NAMES_TO_VALUES.get(value.upper())
                if db.ownerType is None:
                    raise InvalidArgumentError(f"Invalid {HMS_DB_OWNER_TYPE}: {value}")
            else:
                params[key] = value
        db.parameters = params
        self._run(f"alter database {db.name}", lambda c: c.alter_database(db.name, db), idempotent=False)
        return NamespacePropertiesUpdate(removed=removed, updated=list(update_map), missing=missing)

    def drop_namespace(self, namespace: NamespaceLike) -> bool:
        from hive_metastore.ttypes import InvalidOperationException, MetaException, NoSuchObjectException

        ns = to_namespace(namespace)
        if len(ns) != 1:
            return False
        database = ns[0]
        if not self.namespace_exists(ns):  # Hive 2.3 answers a MetaException for a missing database
            return False
        try:
            self._run(
                f"drop database {database}",
                lambda c: c.drop_database(database, False, False),
                idempotent=False,
                expected=(NoSuchObjectException, InvalidOperationException, MetaException),
            )
        except NoSuchObjectException:
            return False
        except InvalidOperationException as e:
            raise NamespaceNotEmptyError(
                f"Namespace {database} is not empty. One or more tables exist."
            ) from e
        except MetaException as e:
            if not self.namespace_exists(ns):  # dropped meanwhile
                return False
            raise CatalogError(f"Failed to drop namespace {database}: {describe_thrift_error(e)}") from e
        return True
