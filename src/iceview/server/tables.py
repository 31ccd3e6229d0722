"""The table endpoints, through PyIceberg (Java's ``CatalogHandlers`` for tables).

Tables belong to PyIceberg: every change is a ``CommitTableRequest`` handed, parsed with
PyIceberg's models, to its catalog's ``commit_table`` (``served.tables()``, for the SQL store
``pyiceberg.catalog.sql.SqlCatalog`` on the same ``iceberg_tables`` rows), which checks the
requirements and applies the updates with ``pyiceberg.table.update``. What is checked here is only
what Java's ``JdbcCatalog`` and ``CatalogHandlers`` check beyond PyIceberg: one identifier space
for tables and views, Java's answers for missing namespaces and tables, names and locations that
stay in the warehouse. Two things bridge PyIceberg 0.12 and Java's clients: a failed requirement
is answered with Java's text, and a schema, spec or sort order a request re-adds under its existing
id is not appended twice (:mod:`iceview.server.table_requests`).

Not served: multi-table transactions (PyIceberg's catalogs commit one table at a time, so they
could not be atomic: 406), and format version 3 (PyIceberg 0.12 does not write it).
"""

from __future__ import annotations

from typing import Any, cast

from pyiceberg.catalog import Catalog as TableCatalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.exceptions import NoSuchTableError as PyNoSuchTableError
from pyiceberg.exceptions import TableAlreadyExistsError as PyTableAlreadyExistsError
from pyiceberg.io import load_file_io
from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC
from pyiceberg.schema import Schema
from pyiceberg.table import CommitTableRequest, StagedTable
from pyiceberg.table.metadata import new_table_metadata
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER
from pyiceberg.table.update import AssertCreate, SetLocationUpdate

from iceview.catalog.properties import RetryPolicy
from iceview.catalog.tables import purge_table
from iceview.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
)
from iceview.files import check_in_warehouse
from iceview.identifiers import ViewIdentifier
from iceview.server.context import Reply, ServedCatalog, ServerSettings
from iceview.server.errors import bad_request
from iceview.server.protocol import check_new_identifier, identifier_json, page
from iceview.server.table_requests import (
    check_table_locations,
    commit_result,
    java_commit_message,
    load_result,
    metadata_json,
    parse_commit,
    parse_create,
    parse_metrics_report,
    parse_register,
    parse_rename,
    read_table_metadata,
    without_repeated_additions,
)

__all__ = [
    "commit_table",
    "create_table",
    "drop_table",
    "list_tables",
    "load_table",
    "register_table",
    "rename_table",
    "report_metrics",
    "table_exists",
]


def _tables(served: ServedCatalog) -> TableCatalog:
    return cast(TableCatalog, served.tables())


def _namespace_string(namespace: tuple[str, ...]) -> str:
    return ".".join(namespace)


def _require_namespace(served: ServedCatalog, namespace: tuple[str, ...]) -> None:
    if not served.catalog.namespace_exists(namespace):
        raise NoSuchNamespaceError(f"Namespace does not exist: {_namespace_string(namespace)}")


def _check_free(served: ServedCatalog, ident: ViewIdentifier) -> None:
    """A new table's name: its namespace exists, and no table or view has the name (Java's
    ``JdbcCatalog`` texts)."""
    _require_namespace(served, ident.namespace)
    if served.catalog.table_exists(ident):
        raise AlreadyExistsError(f"Table already exists: {ident}")
    if served.catalog.view_exists(ident):
        raise AlreadyExistsError(f"View with same name already exists: {ident}")


def list_tables(
    served: ServedCatalog, namespace: tuple[str, ...], query: dict[str, str], settings: ServerSettings
) -> Reply:
    names = _tables(served).list_tables(namespace)
    chunk = page(
        [tuple(n) for n in names],
        lambda n: n,
        query.get("pageToken"),
        query.get("pageSize"),
        settings.max_page_size,
    )
    body: dict[str, Any] = {"identifiers": [identifier_json(n[:-1], n[-1]) for n in chunk.items]}
    if chunk.next_token:
        body["next-page-token"] = chunk.next_token
    return Reply(200, body)


def create_table(
    served: ServedCatalog, namespace: tuple[str, ...], body: dict[str, Any], settings: ServerSettings
) -> Reply:
    request = parse_create(namespace, body)
    ident = ViewIdentifier(namespace, request.name)
    allowed = served.warehouse_root(settings.allow_external_locations)
    check_table_locations(request.location, request.properties, (), allowed)
    _check_free(served, ident)
    tables = _tables(served)
    spec = request.partition_spec or UNPARTITIONED_PARTITION_SPEC
    order = request.write_order or UNSORTED_SORT_ORDER
    location = request.location
    if location is None:
        # PyIceberg's default (the namespace's location property, else under the warehouse):
        # checked too, as a namespace's location is a client's word as well
        default = tables.create_table_transaction(
            ident.levels, request.table_schema, None, spec, order, dict(request.properties)
        )
        location = default.table_metadata.location
        check_in_warehouse(location, allowed, "table location")
    if request.stage_create:
        # Java's stageTableCreate: the metadata a create would write, with no file and no entry;
        # the client creates the table later with a commit that asserts create.
        # (new_table_metadata takes format-version out of the properties it is given.)
        metadata = new_table_metadata(request.table_schema, spec, order, location, dict(request.properties))
        return Reply(200, {"metadata": metadata_json(metadata), "config": {}})
    try:
        table = tables.create_table(
            ident.levels, request.table_schema, location, spec, order, request.properties
        )
    except PyTableAlreadyExistsError:
        raise AlreadyExistsError(f"Table already exists: {ident}") from None
    return Reply(200, load_result(table))


def register_table(
    served: ServedCatalog, namespace: tuple[str, ...], body: dict[str, Any], settings: ServerSettings
) -> Reply:
    request = parse_register(namespace, body)
    ident = ViewIdentifier(namespace, request.name)
    location = request.metadata_location
    allowed = served.warehouse_root(settings.allow_external_locations)
    check_in_warehouse(location, allowed, "registered metadata file")
    if request.overwrite and served.catalog.table_exists(ident):
        # PyIceberg's catalogs register new entries only: over an existing table it is a conflict
        raise AlreadyExistsError(
            f"Table already exists: {ident} (registering with overwrite is not supported)"
        )
    _check_free(served, ident)
    tables = _tables(served)
    # read it first: PyIceberg inserts the entry before it reads the file
    metadata = read_table_metadata(tables.properties, location)
    # later commits write where the metadata points
    check_table_locations(metadata.location, metadata.properties, (), allowed)
    try:
        table = tables.register_table(ident.levels, location)
    except PyTableAlreadyExistsError:
        raise AlreadyExistsError(f"Table already exists: {ident}") from None
    return Reply(200, load_result(table))


def load_table(served: ServedCatalog, ident: ViewIdentifier, query: dict[str, str]) -> Reply:
    snapshots = query.get("snapshots", "all")
    if snapshots not in ("all", "refs"):
        raise bad_request(f"Invalid snapshots {snapshots!r}: expected all or refs")
    # every snapshot is answered, which a client asking for refs only also accepts
    return Reply(200, load_result(_load(served, ident)))


def _load(served: ServedCatalog, ident: ViewIdentifier) -> Any:
    try:
        return _tables(served).load_table(ident.levels)
    except PyNoSuchTableError:
        raise NoSuchTableError(f"Table does not exist: {ident}") from None


def table_exists(served: ServedCatalog, ident: ViewIdentifier) -> Reply:
    if not served.catalog.table_exists(ident):
        raise NoSuchTableError(f"Table does not exist: {ident}")
    return Reply(204)


def commit_table(
    served: ServedCatalog, ident: ViewIdentifier, body: dict[str, Any], settings: ServerSettings
) -> Reply:
    request = parse_commit(ident, body)
    check_table_locations(None, {}, request.updates, served.warehouse_root(settings.allow_external_locations))
    tables = _tables(served)
    creating = any(isinstance(r, AssertCreate) for r in request.requirements)
    first = _create_target(served, ident, request) if creating else _load(served, ident)
    loaded = [first]

    def attempt() -> Any:
        # the first attempt commits on what was just loaded, a retry on a fresh load
        table = loaded.pop() if loaded else _load(served, ident)
        current = None if creating else table.metadata
        try:
            # PyIceberg checks them again on the state it commits on; checked first here too,
            # so a stale request fails on its requirements before its updates are looked at
            for requirement in request.requirements:
                requirement.validate(current)
        except CommitFailedException as e:
            raise _RequirementFailed(e) from e
        updates = without_repeated_additions(current, request.updates)
        return tables.commit_table(table, request.requirements, updates)

    # as Java's CatalogHandlers: a conflict with a concurrent commit is retried on the fresh table
    # while the requirements still hold (the table's commit.retry.* properties); a failed
    # requirement is final. A create is tried once.
    policy = (
        RetryPolicy(num_retries=0) if creating else RetryPolicy.from_properties(first.metadata.properties)
    )
    try:
        response = policy.run(attempt, retry_on=(CommitFailedException,))
    except StopIteration:
        # PyIceberg looks up the default spec, sort order or schema while it applies the updates,
        # before anything is written: a create without them has none to find
        raise bad_request(
            "Invalid CommitTableRequest: the table would have no current schema, partition spec or "
            "sort order (a create needs add-schema, add-spec and add-sort-order with their set-default)"
        ) from None
    except _RequirementFailed as e:
        raise CommitFailedException(java_commit_message(str(e.error))) from None
    except CommitFailedException as e:
        raise CommitFailedException(java_commit_message(str(e))) from None
    except PyTableAlreadyExistsError:
        raise AlreadyExistsError(f"Table already exists: {ident}") from None
    except (KeyError, IndexError, TypeError):
        # an update that names what the metadata does not have (a snapshot, a schema id); PyIceberg
        # says no more than a bare key or its own internals
        raise bad_request(
            "Invalid CommitTableRequest: cannot apply the updates: one names a snapshot, schema, "
            "spec or sort order the table does not have, or does not fit the table",
            "$.updates",
        ) from None
    return Reply(200, commit_result(response.metadata_location, response.metadata))


class _RequirementFailed(Exception):
    """Carries a failed requirement out of the retry loop, which would otherwise retry it."""

    def __init__(self, error: CommitFailedException) -> None:
        self.error = error


def _create_target(served: ServedCatalog, ident: ViewIdentifier, request: CommitTableRequest) -> StagedTable:
    """The table a commit that asserts create is made on. PyIceberg's ``commit_table`` reads
    only its identifier (it reloads the current state, and a table that is absent is created
    from the updates); the rest is a placeholder."""
    check_new_identifier(ident.namespace, ident.name, "table")
    _require_namespace(served, ident.namespace)
    if served.catalog.view_exists(ident):
        raise AlreadyExistsError(f"View with same name already exists: {ident}")
    tables = _tables(served)
    location = next((u.location for u in request.updates if isinstance(u, SetLocationUpdate)), "")
    if not location:
        # PyIceberg would write the metadata relative to the server's working directory
        raise bad_request(
            "Invalid CommitTableRequest: a commit that creates a table must set its location", "$.updates"
        )
    placeholder = new_table_metadata(
        Schema(), UNPARTITIONED_PARTITION_SPEC, UNSORTED_SORT_ORDER, location, {}
    )
    return StagedTable(
        identifier=ident.levels,
        metadata=placeholder,
        metadata_location="",
        io=load_file_io(tables.properties),
        catalog=tables,
    )


def drop_table(
    served: ServedCatalog, ident: ViewIdentifier, query: dict[str, str], settings: ServerSettings
) -> Reply:
    purge = query.get("purgeRequested", "false").lower()
    if purge not in ("true", "false"):
        raise bad_request(f"Invalid purgeRequested {purge!r}: expected true or false")
    tables = _tables(served)
    try:
        if purge == "true":
            # iceview's purge: a file outside the warehouse is left alone (and logged)
            purge_table(tables, ident.levels, served.warehouse_root(settings.allow_external_locations))
        else:
            tables.drop_table(ident.levels)
    except PyNoSuchTableError:
        raise NoSuchTableError(f"Table does not exist: {ident}") from None
    return Reply(204)


def report_metrics(served: ServedCatalog, ident: ViewIdentifier, body: dict[str, Any]) -> Reply:
    parse_metrics_report(body)
    return Reply(204)


def rename_table(served: ServedCatalog, body: dict[str, Any]) -> Reply:
    source, destination = parse_rename(body)
    if source == destination:
        return Reply(204)
    # Java's JdbcCatalog.renameTable, in its order and with its texts
    if not served.catalog.table_exists(source):
        raise NoSuchTableError(f"Table does not exist: {source}")
    if not served.catalog.namespace_exists(destination.namespace):
        raise NoSuchNamespaceError(f"Namespace does not exist: {_namespace_string(destination.namespace)}")
    if served.catalog.view_exists(destination):
        raise AlreadyExistsError(f"Cannot rename {source} to {destination}. View already exists")
    try:
        _tables(served).rename_table(source.levels, destination.levels)
    except PyTableAlreadyExistsError:
        raise AlreadyExistsError(f"Table already exists: {destination}") from None
    except PyNoSuchTableError:
        raise NoSuchTableError(f"Table does not exist: {source}") from None
    return Reply(204)
