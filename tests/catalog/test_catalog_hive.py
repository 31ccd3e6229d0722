"""The Hive catalog's own behaviour on real metastores: the HMS entry it writes (Java's
``HiveViewOperations`` layout), commits whose answer is lost, a metastore that is down, abandoned
locks, and the refusal of lock-free commits on a metastore that does not compare and swap (Hive 2.3.9,
PySpark 3.5's; the session's is 2.3.10). Iceberg's view-catalog cases run on this catalog in
test_catalog_views.py (backend ``hive``); Iceberg Java's HiveCatalog on the same metastore in
tests/interop/test_hive_java.py."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from catalog_support import file_path, metadata_files
from hive_support import ThriftProxy, empty_metastore
from pyiceberg.schema import Schema
from pyiceberg.types import DecimalType, IntegerType, NestedField, StringType, TimestamptzType

from fixtures.hive_entries import create_plain_hive_view
from iceview.catalog.hive import HiveCatalog
from iceview.errors import (
    CatalogError,
    CommitFailedError,
    CommitStateUnknownError,
    NoSuchNamespaceError,
    UnsupportedOperationError,
)

pytestmark = pytest.mark.hive

SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False, doc="the id"),
    NestedField(2, "name", StringType(), required=False),
    schema_id=0,
)
WIDE = Schema(
    NestedField(1, "id", IntegerType(), required=False, doc="the id"),
    NestedField(2, "amount", DecimalType(12, 2), required=False),
    NestedField(3, "at", TimestamptzType(), required=False),
    schema_id=0,
)
FAST_LOCKS = {"iceberg.hive.lock-heartbeat-interval-ms": "1000"}
QUICK_STATUS_CHECKS = {"commit.status-check.num-retries": "1", "commit.status-check.min-wait-ms": "50"}


@pytest.fixture
def metastore(hive_metastore: Any) -> Any:
    empty_metastore(hive_metastore)
    return hive_metastore


def _catalog(uri: str, warehouse: Path, **props: str) -> HiveCatalog:
    return HiveCatalog("hive", uri=uri, warehouse=warehouse.as_uri(), **{**FAST_LOCKS, **props})


def _raw(metastore: Any, database: str, name: str) -> Any:
    with metastore.client() as client:
        return client.get_table(database, name)


def test_the_hms_entry_is_javas_layout(metastore: Any, tmp_path: Path) -> None:
    catalog = _catalog(metastore.uri, tmp_path)
    catalog.create_namespace("db")
    view = catalog.create_view(
        "db.v",
        schema=WIDE,
        queries={
            "spark": "SELECT 1 AS id, 2.5 AS amount, now() AS at",
            "hive": "SELECT 1, 2.5, current_timestamp",
        },
        default_namespace="db",
        properties={"hive.metastore.table.owner": "alice", "keep": "1", "gone": "2", "comment": "für"},
    )
    table = _raw(metastore, "db", "v")
    assert table.tableType == "VIRTUAL_VIEW"
    assert table.owner == "alice"
    assert table.retention == 2147483647
    assert table.viewOriginalText == table.viewExpandedText == "SELECT 1, 2.5, current_timestamp"
    params = dict(table.parameters)
    assert params.pop("transient_lastDdlTime")
    current_schema = json.loads(params.pop("current-schema"))
    assert current_schema["fields"][0] == {
        "id": 1,
        "name": "id",
        "required": False,
        "type": "int",
        "doc": "the id",
    }
    assert params == {
        "table_type": "ICEBERG-VIEW",
        "metadata_location": view.metadata_location,
        "uuid": str(view.uuid),
        "keep": "1",
        "gone": "2",
        "comment": "für",
    }  # the owner property is not a parameter; no previous location on create
    sd = table.sd
    assert [(c.name, c.type, c.comment) for c in sd.cols] == [
        ("id", "int", "the id"),
        ("amount", "decimal(12,2)", None),
        ("at", "timestamp", None),  # Hive 2's type for timestamptz, as Java on Spark writes it
    ]
    assert sd.location == view.location
    assert (sd.inputFormat, sd.outputFormat, sd.serdeInfo.serializationLib) == (
        "org.apache.hadoop.mapred.FileInputFormat",
        "org.apache.hadoop.mapred.FileOutputFormat",
        "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
    )

    first = view.metadata_location
    view = catalog.load_view("db.v")
    view.update_properties().remove("gone").set("keep", "3").commit()
    view.replace_version(
        schema=SCHEMA,
        queries={"spark": "SELECT 2 AS id, 'x' AS name", "hive": "SELECT 2, 'x'"},
        default_namespace="db",
    )
    table = _raw(metastore, "db", "v")
    assert "gone" not in table.parameters and table.parameters["keep"] == "3"
    assert table.parameters["metadata_location"] == catalog.load_view("db.v").metadata_location
    assert table.parameters["previous_metadata_location"] != first  # the one before the replace
    assert json.loads(table.parameters["current-schema"])["fields"][1]["name"] == "name"
    assert [(c.name, c.type) for c in table.sd.cols] == [("id", "int"), ("name", "string")]
    # Java leaves the view text of the create alone
    assert table.viewOriginalText == "SELECT 1, 2.5, current_timestamp"

    small = _catalog(metastore.uri, tmp_path, **{"iceberg.hive.table-property-max-size": "10"})
    small.create_view(
        "db.small", schema=SCHEMA, queries={"spark": "SELECT 1 AS id, 'a' AS name"}, default_namespace="db"
    )
    assert "current-schema" not in _raw(metastore, "db", "small").parameters
    assert (
        _raw(metastore, "db", "small").viewOriginalText == "SELECT 1 AS id, 'a' AS name"
    )  # no hive SQL: the first
    catalog.close()
    small.close()


def _one_view(catalog: HiveCatalog, name: str = "db.v", **props: str) -> Any:
    if not catalog.namespace_exists("db"):
        catalog.create_namespace("db")
    return catalog.create_view(
        name,
        schema=SCHEMA,
        queries={"spark": "SELECT 1 AS id, 'a' AS name"},
        default_namespace="db",
        properties=props,
    )


def _replace(view: Any, n: int) -> Any:
    return view.replace_version(
        schema=SCHEMA, queries={"spark": f"SELECT {n} AS id, 'a' AS name"}, default_namespace="db"
    )


def test_a_lost_answer_is_checked_then_known(metastore: Any, tmp_path: Path) -> None:
    """The alter reaches the metastore but its answer is lost: the commit reads the pointer again
    (Java's checkCommitStatus) and finds its own file: a success. If it cannot ask, the outcome is
    unknown: CommitStateUnknownError, and the new file is kept (the metastore points at it)."""
    proxy = ThriftProxy(metastore.uri)
    try:
        for props in ({}, {"iceberg.engine.hive.lock-enabled": "false"}):
            empty_metastore(metastore)
            catalog = _catalog(proxy.uri, tmp_path, **props)
            view = _replace(_one_view(catalog, **QUICK_STATUS_CHECKS), 2)  # (without locks: probed once)
            proxy.lose("alter_table_with_environment_context")
            view = _replace(view, 3)
            assert proxy.lost.is_set()
            assert view.current_version.version_id == 3
            assert _raw(metastore, "db", "v").parameters["metadata_location"] == view.metadata_location

            proxy.refuse_after_loss = True
            proxy.lose("alter_table_with_environment_context")
            with pytest.raises(
                CommitStateUnknownError, match=r"^Commit state unknown for view db\.v: .*kept"
            ):
                _replace(catalog.load_view("db.v"), 4)
            proxy.refuse = proxy.refuse_after_loss = False
            held = _raw(metastore, "db", "v").parameters["metadata_location"]
            assert Path(file_path(held)).exists()  # the metastore holds the new file, which was kept
            assert catalog.load_view("db.v").current_version.version_id == 4
            catalog.close()
    finally:
        proxy.close()


def test_a_metastore_that_is_down(metastore: Any, tmp_path: Path) -> None:
    proxy = ThriftProxy(metastore.uri)
    catalog = _catalog(proxy.uri, tmp_path)
    try:
        view = _one_view(catalog, "db.down")
        folder = Path(file_path(view.metadata_location)).parent
        proxy.refuse = True
        proxy.cut_all()
        with pytest.raises(CatalogError, match=rf"Hive Metastore at {proxy.uri}"):
            catalog.load_view("db.down")
        with pytest.raises(CatalogError, match=r"Hive Metastore"):
            _replace(view, 2)
        assert len(metadata_files(folder)) == 1  # nothing half-written
        proxy.refuse = False
        assert _replace(catalog.load_view("db.down"), 2).current_version.version_id == 2  # connects again
        assert len(metadata_files(folder)) == 2
    finally:
        catalog.close()
        proxy.close()


@pytest.fixture(scope="module")
def old_metastore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Hive 2.3.9 (PySpark 3.5's), which ignores expected_parameter_*; locks expire after 5 s."""
    from fixtures.hms_server import OLD_HIVE_VERSION, start_hms

    server = start_hms(tmp_path_factory.mktemp("hms-2.3.9"), txn_timeout_s=5, version=OLD_HIVE_VERSION)
    try:
        yield server
    finally:
        server.stop()


def test_lock_free_commits_are_refused_where_the_metastore_does_not_compare(
    old_metastore: Any, tmp_path: Path
) -> None:
    empty_metastore(old_metastore)
    lock_free = _catalog(old_metastore.uri, tmp_path, **{"iceberg.engine.hive.lock-enabled": "false"})
    view = _one_view(lock_free)  # a create needs no compare-and-swap
    folder = Path(file_path(view.metadata_location)).parent
    with pytest.raises(
        UnsupportedOperationError, match=r"does not compare and swap on alter_table .*lock-enabled=true"
    ):
        _replace(view, 2)
    assert len(metadata_files(folder)) == 1
    assert _raw(old_metastore, "db", "v").parameters["metadata_location"] == view.metadata_location
    with old_metastore.client() as client:  # the probe's scratch table is gone
        assert client.get_all_tables("db") == ["v"]
    with_locks = _catalog(old_metastore.uri, tmp_path)
    assert _replace(with_locks.load_view("db.v"), 2).current_version.version_id == 2
    lock_free.close()
    with_locks.close()


def _abandoned_lock(metastore: Any, database: str, table: str) -> int:
    """An EXCLUSIVE lock nobody heartbeats or releases: what a killed writer leaves."""
    from hive_metastore.ttypes import LockComponent, LockLevel, LockRequest, LockState, LockType

    with metastore.client() as client:
        component = LockComponent(
            type=LockType.EXCLUSIVE, level=LockLevel.TABLE, dbname=database, tablename=table
        )
        response = client.lock(LockRequest(component=[component], user="killed", hostname="gone"))
        assert response.state == LockState.ACQUIRED
        return int(response.lockid)


def test_an_abandoned_lock_delays_but_does_not_block(old_metastore: Any, tmp_path: Path) -> None:
    """A writer killed while holding the lock: a commit gives up after iceberg.hive.lock-timeout-ms
    (nothing written, its own lock request withdrawn), and goes through once the metastore expires
    the lock (hive.txn.timeout, 5 s here)."""
    from hive_metastore.ttypes import ShowLocksRequest

    empty_metastore(old_metastore)
    catalog = _catalog(old_metastore.uri, tmp_path)
    view = _one_view(catalog)
    folder = Path(file_path(view.metadata_location)).parent
    _abandoned_lock(old_metastore, "db", "v")
    impatient = _catalog(old_metastore.uri, tmp_path, **{"iceberg.hive.lock-timeout-ms": "1000"})
    with pytest.raises(CommitFailedError, match=r"^Timed out after 1000 ms waiting for lock on db\.v$"):
        _replace(impatient.load_view("db.v"), 2)
    assert len(metadata_files(folder)) == 1
    with old_metastore.client() as client:
        assert [
            lock.user for lock in client.show_locks(ShowLocksRequest(dbname="db", tablename="v")).locks
        ] == ["killed"]
    start = time.monotonic()
    assert _replace(catalog.load_view("db.v"), 2).current_version.version_id == 2
    assert time.monotonic() - start < 5 + 6  # the timeout, then the reaper's 2 s runs
    catalog.close()
    impatient.close()


def test_the_metastore_dies_while_a_commit_waits_for_its_lock(old_metastore: Any, tmp_path: Path) -> None:
    """Killed (SIGKILL) mid-commit and restarted: the commit fails with a typed error, nothing is
    half-written, and the view is whole afterwards."""
    empty_metastore(old_metastore)
    catalog = _catalog(old_metastore.uri, tmp_path, **{"hive.metastore.client.socket.timeout": "5s"})
    view = _one_view(catalog)
    folder = Path(file_path(view.metadata_location)).parent
    _abandoned_lock(old_metastore, "db", "v")
    failure: list[BaseException] = []

    def commit() -> None:
        try:
            _replace(catalog.load_view("db.v"), 2)
        except BaseException as e:
            failure.append(e)

    writer = threading.Thread(target=commit)
    writer.start()
    time.sleep(1.0)  # it waits for the lock
    old_metastore.kill()
    writer.join(timeout=60)
    assert not writer.is_alive()
    assert failure and isinstance(failure[0], CatalogError | CommitFailedError), failure
    assert "Hive Metastore" in str(failure[0])
    old_metastore.restart()
    assert len(metadata_files(folder)) == 1
    reopened = _catalog(old_metastore.uri, tmp_path)
    assert reopened.load_view("db.v").metadata_location == view.metadata_location
    assert _replace(reopened.load_view("db.v"), 3).current_version.version_id == 2
    catalog.close()
    reopened.close()
    assert os.path.isdir(folder)


def test_a_held_lock_is_kept_alive_by_its_heartbeat(old_metastore: Any) -> None:
    """A commit that holds its lock longer than the metastore's hive.txn.timeout (5 s here) keeps it:
    the heartbeat (every iceberg.hive.lock-heartbeat-interval-ms) stops the metastore expiring it, so
    another writer keeps waiting until it is released."""
    from hive_metastore.ttypes import (
        CheckLockRequest,
        LockComponent,
        LockLevel,
        LockRequest,
        LockState,
        LockType,
    )

    from iceview.catalog.hive_client import MetastoreClients
    from iceview.catalog.hive_lock import LockSettings, MetastoreLock

    clients = MetastoreClients({"uri": old_metastore.uri})
    settings = LockSettings({"iceberg.hive.lock-heartbeat-interval-ms": "1000"})
    held = MetastoreLock(clients, settings, old_metastore.uri, "Beat", "V")  # locked as beat.v
    held.lock()
    try:
        with old_metastore.client() as client:
            component = LockComponent(
                type=LockType.EXCLUSIVE, level=LockLevel.TABLE, dbname="beat", tablename="v"
            )
            other = client.lock(LockRequest(component=[component], user="other", hostname="here"))
            assert other.state == LockState.WAITING
            deadline = time.monotonic() + 9  # the timeout, and the reaper's 2 s runs, with room
            while time.monotonic() < deadline:
                assert client.check_lock(CheckLockRequest(lockid=other.lockid)).state == LockState.WAITING
                time.sleep(1)
            held.ensure_active()
            held.unlock()
            assert client.check_lock(CheckLockRequest(lockid=other.lockid)).state == LockState.ACQUIRED
    finally:
        held.unlock()
        clients.close()


def test_names_reach_no_lock_unless_the_metastore_keeps_them(metastore: Any, tmp_path: Path) -> None:
    """Hive 2.3 builds the SQL of its lock table from the names in a lock request: a quote in a view
    name injected a lock row of the attacker's choosing (an exclusive lock on any view, never
    expiring). Names the metastore would not keep are refused before anything is sent or written."""
    from hive_metastore.ttypes import ShowLocksRequest

    from iceview.errors import InvalidIdentifierError

    injection = (
        "x', null, 'w', 'e', 0, 'u', 'h', 'i'), (0, 1, 0, 'db', 'victim', null, 'a', 'e', 1, 'u', 'h', 'i')--"
    )
    for n, props in enumerate(({}, {"iceberg.engine.hive.lock-enabled": "false"})):
        catalog = _catalog(metastore.uri, tmp_path, **props)
        view = _one_view(catalog, f"db.ok{n}")
        for name in (injection, "v'q", "a.b", "a-b", "é"):
            with pytest.raises(InvalidIdentifierError, match="is not a valid object name"):
                catalog.create_view(
                    ("db", name),
                    schema=SCHEMA,
                    queries={"spark": "SELECT 1 AS id, 'a' AS name"},
                    default_namespace="db",
                )
            with pytest.raises(InvalidIdentifierError, match="is not a valid object name"):
                catalog.rename_view(f"db.ok{n}", ("db", name))
            with pytest.raises(InvalidIdentifierError, match="is not a valid object name"):
                catalog.register_view(("db", name), view.metadata_location)
        with pytest.raises(InvalidIdentifierError, match="is not a valid object name"):
            catalog.create_namespace("d'b")
        catalog.close()
    with metastore.client() as client:
        assert not client.show_locks(ShowLocksRequest()).locks  # no lock row, forged or not
        assert sorted(client.get_all_tables("db")) == ["ok0", "ok1"]
    for n in range(2):
        assert len(metadata_files(tmp_path / "db.db" / f"ok{n}" / "metadata")) == 1  # no strays


def test_pages_fetch_only_the_entries_they_may_show(metastore: Any, tmp_path: Path) -> None:
    """A page lists the view names, then fetches the entries of just enough of them; plain Hive
    views among them are skipped, and the walk gives what ``list_views`` gives, in order."""
    catalog = _catalog(metastore.uri, tmp_path)
    catalog.create_namespace("db")
    views = [f"v{i:02d}" for i in range(9)]
    for name in views:
        catalog.create_view(
            f"db.{name}",
            schema=SCHEMA,
            queries={"spark": "SELECT 1 AS id, 'a' AS name"},
            default_namespace="db",
        )
    with metastore.client() as client:
        for name in ("v015", "v05a", "zz"):  # plain Hive views between and after them
            create_plain_hive_view(client, "db", name)
    fetched: list[int] = []
    entries = catalog._listing.entries

    def counting(database: str, names: Any) -> Any:
        fetched.append(len(names))
        return entries(database, names)

    catalog._listing.entries = counting  # type: ignore[method-assign]
    expected = [("db", n) for n in views]
    assert catalog.list_views("db") == expected
    for size in (1, 2, 4, 9, 100):
        walked: list[tuple[str, ...]] = []
        after = None
        fetched.clear()
        pages = 0
        while True:
            page = catalog.list_views_page("db", after=after, limit=size)
            pages += 1
            assert len(page.identifiers) <= size
            walked += page.identifiers
            if not page.more:
                break
            after = page.identifiers[-1][-1]
        assert walked == expected, size
        # each page fetches its names and one more (to tell whether more follow), plus the plain
        # views it meets (a plain view can be met by two pages: one looks ahead, the next starts
        # there); never the whole namespace (12 entries) per page
        assert max(fetched) <= size + 1 and sum(fetched) <= pages * (size + 1) + 2 * 3, (size, fetched)
    first = catalog.list_views_page("db", after=None, limit=2)
    assert first.identifiers == expected[:2] and first.more
    assert catalog.list_views_page("db", after="v08", limit=5).identifiers == []
    assert catalog.list_views_page("db", after="v015", limit=1).identifiers == [("db", "v02")]
    assert catalog.list_views_page((), after=None, limit=3).identifiers == []
    with pytest.raises(NoSuchNamespaceError):
        catalog.list_views_page("nope", after=None, limit=3)
    with pytest.raises(ValueError, match="at least 1"):
        catalog.list_views_page("db", after=None, limit=0)
