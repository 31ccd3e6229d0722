"""The Hive metastore fixture itself (``fixtures.hms_server``): Hive 2.3.10 from PySpark 4's jars.

What the Hive catalog's tests rely on, checked on the session's metastore through PyIceberg's Thrift
bindings: it listens on loopback only; databases and tables round-trip; ``alter_table`` with an
``expected_parameter_value`` environment context is a compare-and-swap (Hive 2.3.10, not 2.3.9); a
lock abandoned by a dead writer expires after ``hive.txn.timeout`` while a heartbeaten one stays; it
survives SIGKILL and a restart with its data. About 30 s, most of it waiting for a lock to expire.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hive_metastore.ttypes import (
    CheckLockRequest,
    ConfigValSecurityException,
    Database,
    EnvironmentContext,
    FieldSchema,
    HeartbeatRequest,
    LockComponent,
    LockLevel,
    LockRequest,
    LockState,
    LockType,
    MetaException,
    NoSuchLockException,
    SerDeInfo,
    StorageDescriptor,
    Table,
    UnlockRequest,
)

from fixtures.hms_server import (
    OLD_HIVE_VERSION,
    REAPER_INTERVAL_S,
    SESSION_TXN_TIMEOUT_S,
    HmsServer,
    find_java,
    hive_jars,
    hms_classes,
)

pytestmark = pytest.mark.hive

METADATA_LOCATION = "metadata_location"


# --------------------------------------------------------------------------------------- helpers
def listening_addresses(port: int) -> list[str]:
    """The local addresses of the TCP sockets listening on ``port`` (``/proc/net/tcp``, ``tcp6``)."""
    found = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        with contextlib.suppress(FileNotFoundError), open(table, encoding="ascii") as f:
            for line in f.read().splitlines()[1:]:
                fields = line.split()
                address, port_hex = fields[1].split(":")
                if fields[3] != "0A" or int(port_hex, 16) != port:  # 0A: LISTEN
                    continue
                raw = bytes.fromhex(address)
                # the kernel prints each 32-bit word of the address in host (little-endian) order
                packed = b"".join(raw[i : i + 4][::-1] for i in range(0, width // 2, 4))
                found.append(str(ipaddress.ip_address(packed)))
    return found


def primary_address() -> str | None:
    """This machine's address on its default route, if it has one (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the route
        except OSError:
            return None
        address: str = s.getsockname()[0]
    return None if ipaddress.ip_address(address).is_loopback else address


def new_table(database: str, name: str, location: str, parameters: dict[str, str]) -> Table:
    """An external table as Iceberg's HiveCatalog would describe one (minus its schema's details)."""
    return Table(
        tableName=name,
        dbName=database,
        owner="iceview",
        tableType="EXTERNAL_TABLE",
        # without EXTERNAL=TRUE (which Iceberg writes), Hive 2.3 stores the table as MANAGED_TABLE
        parameters={"EXTERNAL": "TRUE", **parameters},
        partitionKeys=[],
        sd=StorageDescriptor(
            cols=[FieldSchema(name="id", type="bigint", comment="the key")],
            location=location,
            inputFormat="org.apache.hadoop.mapred.FileInputFormat",
            outputFormat="org.apache.hadoop.mapred.FileOutputFormat",
            serdeInfo=SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"),
        ),
    )


def table_lock(database: str, table: str) -> LockRequest:
    """An EXCLUSIVE table lock outside a transaction, as Iceberg's HiveCatalog takes on commit."""
    component = LockComponent(
        type=LockType.EXCLUSIVE, level=LockLevel.TABLE, dbname=database, tablename=table
    )
    return LockRequest(component=[component], user="iceview", hostname=socket.gethostname())


@pytest.fixture(scope="module")
def database(hive_metastore: HmsServer) -> Iterator[str]:
    """A database of this module's own in the session's metastore."""
    name = f"hms_fixture_{uuid.uuid4().hex[:8]}"
    with hive_metastore.client() as client:
        client.create_database(
            Database(name=name, description="tests/hms", locationUri=f"{hive_metastore.warehouse}/{name}.db")
        )
    yield name


def create_table(server: HmsServer, database: str, name: str, parameters: dict[str, str]) -> Table:
    table = new_table(database, name, f"{server.warehouse}/{database}.db/{name}", parameters)
    with server.client() as client:
        client.create_table(table)
    return table


# ----------------------------------------------------------------------------------------- tests
def test_listens_on_loopback_only(hive_metastore: HmsServer) -> None:
    assert hive_metastore.uri == f"thrift://127.0.0.1:{hive_metastore.port}"
    assert listening_addresses(hive_metastore.port) == ["127.0.0.1"]
    other = primary_address()
    if other is not None:  # reachable on loopback, refused on the machine's own address
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((other, hive_metastore.port), timeout=5).close()


def test_database_and_table_round_trip(hive_metastore: HmsServer, database: str) -> None:
    create_table(hive_metastore, database, "events", {METADATA_LOCATION: "s3://b/m/00000.json", "k": "v"})
    with hive_metastore.client() as client:
        assert database in client.get_all_databases()
        db = client.get_database(database)
        assert (db.name, db.description) == (database, "tests/hms")
        assert db.locationUri.endswith(f"/{database}.db")
        assert client.get_all_tables(database) == ["events"]
        table = client.get_table(database, "events")
    assert (table.dbName, table.tableName, table.tableType) == (database, "events", "EXTERNAL_TABLE")
    assert table.parameters[METADATA_LOCATION] == "s3://b/m/00000.json"
    assert table.parameters["k"] == "v"
    assert "transient_lastDdlTime" in table.parameters  # the metastore's own
    assert [(c.name, c.type, c.comment) for c in table.sd.cols] == [("id", "bigint", "the key")]


def test_alter_table_compares_and_swaps_a_parameter(hive_metastore: HmsServer, database: str) -> None:
    """HIVE-26882, which Hive 2.3.10 has: a lock-free commit's guard."""
    create_table(hive_metastore, database, "cas", {METADATA_LOCATION: "m1"})

    def swap(client: Any, table: Table, expected: str) -> None:
        context = EnvironmentContext(
            properties={"expected_parameter_key": METADATA_LOCATION, "expected_parameter_value": expected}
        )
        client.alter_table_with_environment_context(database, "cas", table, context)

    with hive_metastore.client() as client:
        table = client.get_table(database, "cas")
        table.parameters[METADATA_LOCATION] = "m2"
        with pytest.raises(MetaException, match="has been modified"):
            swap(client, table, "m0")  # a writer whose base is stale
        assert client.get_table(database, "cas").parameters[METADATA_LOCATION] == "m1"
        swap(client, table, "m1")
        assert client.get_table(database, "cas").parameters[METADATA_LOCATION] == "m2"
        table.parameters[METADATA_LOCATION] = "m3"
        with pytest.raises(MetaException, match="has been modified"):
            swap(client, table, "m1")  # the same base again: the second of two racing writers
        assert client.get_table(database, "cas").parameters[METADATA_LOCATION] == "m2"


def test_get_config_value(hive_metastore: HmsServer) -> None:
    """Hive answers for ``hive.*`` keys only; the timeout comes back as written, with its unit."""
    with hive_metastore.client() as client:
        assert client.get_config_value("hive.txn.timeout", "") == f"{SESSION_TXN_TIMEOUT_S}s"
        with pytest.raises(ConfigValSecurityException):
            client.get_config_value("javax.jdo.option.ConnectionURL", "")


def test_abandoned_lock_expires_and_a_heartbeaten_one_stays(hive_metastore: HmsServer, database: str) -> None:
    create_table(hive_metastore, database, "locked", {})
    create_table(hive_metastore, database, "kept", {})
    with hive_metastore.client() as client:
        abandoned = client.lock(table_lock(database, "locked"))
        taken = time.monotonic()
        kept = client.lock(table_lock(database, "kept"))
        assert (abandoned.state, kept.state) == (LockState.ACQUIRED, LockState.ACQUIRED)
        waiting = client.lock(table_lock(database, "locked"))
        assert waiting.state == LockState.WAITING
        # the first writer is gone: nothing heartbeats or releases its lock. The second polls
        # (check_lock heartbeats its waiting lock); a third keeps its own lock alive.
        deadline = taken + SESSION_TXN_TIMEOUT_S + REAPER_INTERVAL_S + 10
        beat = taken
        while client.check_lock(CheckLockRequest(lockid=waiting.lockid)).state != LockState.ACQUIRED:
            assert time.monotonic() < deadline, "the abandoned lock did not expire"
            if time.monotonic() - beat > 2:
                client.heartbeat(HeartbeatRequest(lockid=kept.lockid))
                beat = time.monotonic()
            time.sleep(0.25)
        waited = time.monotonic() - taken
        assert waited >= SESSION_TXN_TIMEOUT_S - 1, f"expired after {waited:.1f} s"
        with pytest.raises(NoSuchLockException):
            client.check_lock(CheckLockRequest(lockid=abandoned.lockid))
        assert client.check_lock(CheckLockRequest(lockid=kept.lockid)).state == LockState.ACQUIRED
        for lock in (waiting, kept):
            client.unlock(UnlockRequest(lockid=lock.lockid))
        again = client.lock(table_lock(database, "locked"))
        assert again.state == LockState.ACQUIRED  # free again
        client.unlock(UnlockRequest(lockid=again.lockid))
    print(
        f"abandoned lock gone {waited:.1f} s after it was taken (hive.txn.timeout {SESSION_TXN_TIMEOUT_S} s)"
    )


def test_survives_sigkill_and_restart(hive_metastore: HmsServer, database: str) -> None:
    """Last: it restarts the session's metastore, as a 'metastore restarted mid-commit' test would."""
    create_table(hive_metastore, database, "durable", {METADATA_LOCATION: "v1"})
    port = hive_metastore.port
    hive_metastore.kill()
    assert not hive_metastore.running
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    hive_metastore.restart()
    assert (hive_metastore.running, hive_metastore.port) == (True, port)
    with hive_metastore.client() as client:
        assert client.get_table(database, "durable").parameters[METADATA_LOCATION] == "v1"
        lock = client.lock(table_lock(database, "durable"))  # the lock tables are still there
        assert lock.state == LockState.ACQUIRED
        client.unlock(UnlockRequest(lockid=lock.lockid))
    print(f"restarted after SIGKILL in {hive_metastore.start_seconds:.1f} s")


def test_launcher_builds_of_both_hive_versions_are_kept(
    hive_metastore: HmsServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The two metastores (2.3.10 and 2.3.9: other jars, another build) run in one session; building
    one kept the other's launcher, and a long-unused build goes."""
    monkeypatch.setenv("ICEVIEW_HMS_CACHE", str(tmp_path))
    java = find_java()
    unused = tmp_path / "0123456789abcdef"
    (unused / "classes").mkdir(parents=True)
    os.utime(unused, (0, 0))
    new = hms_classes(java, hive_jars())
    old = hms_classes(java, hive_jars(OLD_HIVE_VERSION))
    assert new != old
    assert hms_classes(java, hive_jars()) == new
    assert (new / "iceview-hms.jar").is_file() and (old / "iceview-hms.jar").is_file()
    assert not unused.exists()
