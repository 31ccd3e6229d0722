"""Commit locks on a Hive Metastore, as Iceberg Java's ``MetastoreLock`` and ``NoLock`` take them.

With locks (``iceberg.engine.hive.lock-enabled``, true by default) a commit holds an EXCLUSIVE
table lock from the metastore's lock API while it re-reads the view and swaps the pointer:

* a lock in this process first (Java's per-table JVM lock), so threads of one process queue here
  rather than in the metastore;
* ``lock`` with an ``agentInfo`` of ``Iceberg-<uuid>``; while the answer is WAITING, ``check_lock``
  with waits from ``iceberg.hive.lock-check-min-wait-ms`` (50) growing 1.5 times to
  ``iceberg.hive.lock-check-max-wait-ms`` (5,000), for at most ``iceberg.hive.lock-timeout-ms``
  (180,000); then the commit fails, and the lock request is withdrawn;
* if the ``lock`` call's answer is lost, the lock is looked for by its ``agentInfo`` and released;
* while held, a heartbeat every ``iceberg.hive.lock-heartbeat-interval-ms`` (240,000) keeps it
  alive; the metastore expires a lock whose heartbeats stop (``hive.txn.timeout``, 300 s by
  default, when its housekeeping runs), so a killed writer does not block the view for ever. A
  failed heartbeat makes :meth:`MetastoreLock.ensure_active` raise :class:`LockLostError`; after the
  swap was sent that is an unknown outcome, as in Java.

Without locks (``iceberg.engine.hive.lock-enabled=false``) the swap is an ``alter_table`` whose
environment context asks the metastore itself to compare ``metadata_location`` with the base
(HIVE-26882). A metastore that ignores the request would lose commits: Hive 2.3.9 does, 2.3.10
and 4.x compare. :func:`check_compare_and_swap` asks the metastore once per catalog, on a scratch
table of its own, before the first commit without locks, and refuses them if it does not compare.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
import uuid as uuidlib
from collections.abc import Mapping
from operator import methodcaller
from typing import TYPE_CHECKING, Any

from iceview.catalog.hive_client import (
    MetastoreClients,
    MetastoreUnreachableError,
    current_user,
    describe_thrift_error,
)
from iceview.catalog.hive_layout import check_name
from iceview.catalog.properties import property_as_int
from iceview.errors import CatalogError, CommitFailedError, InvalidArgumentError, UnsupportedOperationError

if TYPE_CHECKING:
    pass

__all__ = [
    "LOCK_ENABLED",
    "CommitLock",
    "LockLostError",
    "LockSettings",
    "MetastoreLock",
    "NoLock",
    "check_compare_and_swap",
]

log = logging.getLogger(__name__)

LOCK_ENABLED = "iceberg.engine.hive.lock-enabled"
LOCK_TIMEOUT = "iceberg.hive.lock-timeout-ms"
LOCK_CHECK_MIN_WAIT = "iceberg.hive.lock-check-min-wait-ms"
LOCK_CHECK_MAX_WAIT = "iceberg.hive.lock-check-max-wait-ms"
LOCK_HEARTBEAT_INTERVAL = "iceberg.hive.lock-heartbeat-interval-ms"
EXPECTED_KEY = "expected_parameter_key"
EXPECTED_VALUE = "expected_parameter_value"


class LockLostError(CatalogError):
    """The commit lock could not be kept alive (a heartbeat failed, or the metastore expired it)."""


class LockSettings:
    """The lock timings of a catalog's properties (Java's names and defaults, in milliseconds)."""

    def __init__(self, properties: Mapping[str, str]) -> None:
        def millis(key: str, default: int) -> float:
            value = property_as_int(properties, key, default)
            if value <= 0:
                raise InvalidArgumentError(f"Invalid {key} {value}: must be positive")
            return value / 1000

        self.timeout_s = millis(LOCK_TIMEOUT, 180_000)
        self.min_wait_s = millis(LOCK_CHECK_MIN_WAIT, 50)
        self.max_wait_s = millis(LOCK_CHECK_MAX_WAIT, 250)
        self.heartbeat_s = millis(LOCK_HEARTBEAT_INTERVAL, 240_000)


class CommitLock:
    """What a commit holds while it swaps a pointer: :class:`MetastoreLock` or :class:`NoLock`."""

    def lock(self) -> None:
        """Take the lock; ``CommitFailedError`` if it cannot be had in time."""

    def ensure_active(self) -> None:
        """``LockLostError`` if the lock may have been lost since it was taken."""

    def unlock(self) -> None:
        """Release the lock (quietly: a lock that cannot be released expires)."""


class NoLock(CommitLock):
    """No lock: the metastore compares and swaps (``iceberg.engine.hive.lock-enabled=false``)."""


_process_locks: dict[tuple[str, str, str], threading.Lock] = {}
_process_locks_guard = threading.Lock()


def _process_lock(key: tuple[str, str, str]) -> threading.Lock:
    with _process_locks_guard:
        found = _process_locks.get(key)
        if found is None:
            found = _process_locks[key] = threading.Lock()
        return found


class MetastoreLock(CommitLock):
    """An EXCLUSIVE table lock from the metastore's lock API (see the module's docstring)."""

    def __init__(
        self, clients: MetastoreClients, settings: LockSettings, catalog: str, database: str, table: str
    ) -> None:
        self.clients = clients
        self.settings = settings
        self.database = check_name("database", database)
        self.table = check_name("table", table)
        self.agent_info = f"Iceberg-{uuidlib.uuid4()}"
        self.lock_id: int | None = None
        self._process_lock = _process_lock((catalog, database.lower(), table.lower()))
        self._holds_process_lock = False
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None
        self._lost: str | None = None

    @property
    def _name(self) -> str:
        return f"{self.database}.{self.table}"

    def lock(self) -> None:
        deadline = time.monotonic() + self.settings.timeout_s
        if not self._process_lock.acquire(timeout=self.settings.timeout_s):
            raise CommitFailedError(
                f"Timed out after {int(self.settings.timeout_s * 1000)} ms waiting for lock on {self._name}"
            )
        self._holds_process_lock = True
        try:
            self._acquire(deadline)
        except BaseException:
            self.unlock()
            raise
        self._start_heartbeat()

    def _request(self) -> Any:
        from hive_metastore.ttypes import LockComponent, LockLevel, LockRequest, LockType

        # the names as the metastore stores them: its lock manager compares them case-sensitively, so
        # a lock on "DB.V" would not exclude one on "db.v"
        component = LockComponent(
            type=LockType.EXCLUSIVE,
            level=LockLevel.TABLE,
            dbname=self.database.lower(),
            tablename=self.table.lower(),
        )
        return LockRequest(
            component=[component],
            user=current_user(),
            hostname=socket.gethostname(),
            agentInfo=self.agent_info,
        )

    def _acquire(self, deadline: float) -> None:
        from hive_metastore.ttypes import (
            CheckLockRequest,
            LockState,
            NoSuchLockException,
            TxnAbortedException,
        )

        request = self._request()
        try:
            response = self.clients.run(f"lock {self._name}", lambda c: c.lock(request), idempotent=False)
        except MetastoreUnreachableError as e:
            if e.sent:
                self._release_lost_request()
            raise
        self.lock_id = response.lockid
        state = response.state
        wait = self.settings.min_wait_s
        while state == LockState.WAITING:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CommitFailedError(
                    f"Timed out after {int(self.settings.timeout_s * 1000)} ms waiting for lock on {self._name}"
                )
            time.sleep(min(wait, remaining))
            wait = min(wait * 1.5, self.settings.max_wait_s)
            lock_id = self.lock_id
            try:
                state = self.clients.run(
                    f"check the lock on {self._name}",
                    methodcaller("check_lock", CheckLockRequest(lockid=lock_id)),
                    expected=(NoSuchLockException, TxnAbortedException),
                ).state
            except (NoSuchLockException, TxnAbortedException) as e:  # the metastore expired the request
                raise CommitFailedError(
                    f"Failed to check the lock on {self._name}: {describe_thrift_error(e)}"
                ) from e

        if state != LockState.ACQUIRED:
            raise CommitFailedError(
                f"Could not acquire the lock on {self._name}, lock request ended in state "
                f"{LockState._VALUES_TO_NAMES.get(state, state)}"
            )

    def _release_lost_request(self) -> None:
        """The ``lock`` call's answer was lost: find the lock by its agentInfo and release it."""
        from hive_metastore.ttypes import ShowLocksRequest, UnlockRequest

        try:
            shown = self.clients.run(
                f"show the locks on {self._name}",
                lambda c: c.show_locks(
                    ShowLocksRequest(dbname=self.database.lower(), tablename=self.table.lower())
                ),
            )
            for element in shown.locks or ():
                if element.agentInfo == self.agent_info:
                    lock_id = element.lockid
                    self.clients.run("unlock", methodcaller("unlock", UnlockRequest(lockid=lock_id)))
        except Exception as e:  # it expires on its own without heartbeats
            log.warning("Cannot release a lost lock request on %s: %s", self._name, e)

    # -- heartbeat -------------------------------------------------------------------------------
    def _start_heartbeat(self) -> None:
        self._heartbeat = threading.Thread(
            target=self._beat, name=f"iceview-hms-heartbeat-{self._name}", daemon=True
        )
        self._heartbeat.start()

    def _beat(self) -> None:
        from hive_metastore.ttypes import HeartbeatRequest

        # its own connection: the committing thread may be inside a call on its own
        clients = self.clients.fresh()
        try:
            while not self._stop.wait(self.settings.heartbeat_s):
                lock_id = self.lock_id
                try:
                    clients.run("heartbeat", methodcaller("heartbeat", HeartbeatRequest(lockid=lock_id)))
                except Exception as e:
                    self._lost = describe_thrift_error(e)
                    log.warning("Failed to heartbeat the lock on %s: %s", self._name, self._lost)
                    return
        finally:
            clients.close()

    def ensure_active(self) -> None:
        if self._lost is not None:
            raise LockLostError(f"Lost the lock on {self._name}: heartbeat failed ({self._lost})")

    def unlock(self) -> None:
        from hive_metastore.ttypes import UnlockRequest

        self._stop.set()
        if self._heartbeat is not None:
            self._heartbeat.join(timeout=5)
            self._heartbeat = None
        lock_id, self.lock_id = self.lock_id, None
        try:
            if lock_id is not None:
                try:
                    self.clients.run(
                        f"unlock {self._name}", lambda c: c.unlock(UnlockRequest(lockid=lock_id))
                    )
                except Exception as e:  # it expires once its heartbeats stop
                    log.warning("Failed to unlock %s (lock %s): %s", self._name, lock_id, e)
        finally:
            if self._holds_process_lock:
                self._holds_process_lock = False
                self._process_lock.release()


# ----------------------------------------------------------------------------- compare and swap

_cas_checked: dict[str, bool] = {}
_cas_guard = threading.Lock()


def check_compare_and_swap(clients: MetastoreClients, database: str, committing: str = "") -> None:
    """Refuse commits without locks unless the metastore compares ``expected_parameter_*`` (see the
    module's docstring). Asked once per metastore uri and process: a scratch table of iceview's
    own (``iceview_cas_probe_<uuid>``, made and dropped in ``database``) is altered with an
    expectation that cannot hold."""
    with _cas_guard:
        known = _cas_checked.get(clients.display_uri)
        if known is None:
            try:
                known = _probe(clients, database)
            except CatalogError as e:
                raise CatalogError(
                    f"Cannot commit {committing or database} without locks: asking the Hive Metastore "
                    f"whether it compares and swaps failed ({e})"
                ) from e
            _cas_checked[clients.display_uri] = known
    if not known:
        raise UnsupportedOperationError(
            f"The Hive Metastore at {clients.display_uri} does not compare and swap on alter_table "
            f"(it ignores {EXPECTED_KEY}; HIVE-26882 is in Hive 2.3.10, 3.x and 4.x), so commits "
            f"without locks would lose updates: set {LOCK_ENABLED}=true"
        )


PROBE_PREFIX = "iceview_cas_probe_"
PROBE_MAX_AGE_S = 3600


def _sweep_probes(clients: MetastoreClients, database: str) -> None:
    """Drop scratch tables a probe left behind (its connection failed before it could drop its
    own), once they are an hour old: a younger one may be another process's probe under way."""
    try:
        names = clients.run("list probes", lambda c: c.get_tables(database, f"{PROBE_PREFIX}*"))
        if not names:
            return
        tables = clients.run("list probes", lambda c: c.get_table_objects_by_name(database, names))
        now = time.time()
        for table in tables:
            if table.tableName.startswith(PROBE_PREFIX) and now - (table.createTime or 0) > PROBE_MAX_AGE_S:
                old = table.tableName
                clients.run(f"drop {database}.{old}", methodcaller("drop_table", database, old, False))
                log.info("Dropped the scratch table %s.%s an earlier probe left", database, old)
    except CatalogError as e:
        log.warning("Cannot sweep old probe tables in %s: %s", database, e)


def _probe(clients: MetastoreClients, database: str) -> bool:
    from hive_metastore.ttypes import (
        EnvironmentContext,
        MetaException,
        SerDeInfo,
        StorageDescriptor,
        Table,
    )

    _sweep_probes(clients, database)
    name = f"{PROBE_PREFIX}{uuidlib.uuid4().hex}"
    table = Table(
        tableName=name,
        dbName=database,
        owner=current_user(),
        tableType="VIRTUAL_VIEW",
        sd=StorageDescriptor(
            cols=[],
            serdeInfo=SerDeInfo(
                serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}
            ),
        ),
        parameters={"probe": "0"},
        partitionKeys=[],
        viewOriginalText="SELECT 1",
        viewExpandedText="SELECT 1",
    )
    clients.run(f"create {database}.{name}", lambda c: c.create_table(table), idempotent=False)
    try:
        changed = Table(**{**table.__dict__, "parameters": {"probe": "1"}})
        context = EnvironmentContext(properties={EXPECTED_KEY: "probe", EXPECTED_VALUE: "not-the-value"})
        try:
            clients.run(
                f"alter {database}.{name}",
                lambda c: c.alter_table_with_environment_context(database, name, changed, context),
                idempotent=False,
                expected=(MetaException,),
            )
        except MetaException:
            return True
        log.warning("The Hive Metastore at %s ignores %s", clients.display_uri, EXPECTED_KEY)
        return False
    finally:
        try:
            clients.run(f"drop {database}.{name}", lambda c: c.drop_table(database, name, False))
        except Exception as e:
            log.warning("Cannot drop the probe table %s.%s: %s", database, name, e)


def expected_context(base_location: str | None) -> Any:
    """The environment context of a swap without locks (Java's ``hmsEnvContext``)."""
    from hive_metastore.ttypes import EnvironmentContext

    if base_location is None:
        return EnvironmentContext(properties={})
    return EnvironmentContext(properties={EXPECTED_KEY: "metadata_location", EXPECTED_VALUE: base_location})
