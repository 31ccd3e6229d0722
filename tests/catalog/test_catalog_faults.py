"""Faults: a writer killed mid-commit, metadata files deleted or corrupted, the database going away.

No mocks: the writers are real processes killed with SIGKILL, the PostgreSQL server is a real
server that is stopped or whose backends are terminated, the SQLite file is really damaged.
"""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from catalog_support import SCHEMA, CatalogEnv, file_path, metadata_files
from catalog_worker import SCHEMA as WORKER_SCHEMA

from fixtures.postgres import PostgresServer, start_postgres_server
from iceview.catalog.sql import SqlCatalog, SqlViewOperations
from iceview.errors import (
    CatalogError,
    CommitFailedError,
    CommitStateUnknownError,
    InvalidMetadataError,
    NotFoundError,
    ViewUUIDMismatchError,
)
from iceview.spec import ViewMetadata

WORKER = Path(__file__).with_name("catalog_worker.py")


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    tests_dir = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (tests_dir, env.get("PYTHONPATH")) if p)
    return env


def _wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            raise AssertionError(f"worker exited early ({proc.returncode}): {out}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("worker did not get there in time")
        time.sleep(0.01)
    return path.read_text()


def _make_view(catalog: SqlCatalog) -> ViewMetadata:
    catalog.create_namespace("ns")
    view = catalog.create_view(
        "ns.v", schema=WORKER_SCHEMA, queries={"spark": "SELECT 1"}, default_namespace="ns"
    )
    view.update_properties().set("k", "v").commit()
    return catalog.load_view("ns.v").metadata


# ----------------------------------------------------------------------------- SIGKILL


def test_sigkill_between_file_write_and_swap(env: CatalogEnv, catalog: SqlCatalog, tmp_path: Path) -> None:
    before = _make_view(catalog)
    ready = tmp_path / "ready"
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), "stall-before-swap", env.url, env.warehouse_uri, "ns.v", str(ready)],
        env=_child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        orphan = _wait_for(ready, proc)
        assert os.path.exists(file_path(orphan))  # the new file was written...
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    # ... but the pointer was never swapped: the view is at its previous version
    after = catalog.load_view("ns.v")
    assert after.metadata_location == before.metadata_file_location
    assert after.metadata == before
    assert after.sql_for("spark").sql == "SELECT 1"  # type: ignore[union-attr]
    # and it still takes commits (the next file number is free again)
    after.update_properties().set("k", "w").commit()
    assert catalog.load_view("ns.v").properties["k"] == "w"


@pytest.mark.postgres
def test_sigkill_while_update_waits_for_row_lock(
    postgres_server: PostgresServer, postgres_database: Any, tmp_path: Path
) -> None:
    import psycopg

    env = CatalogEnv("postgres", postgres_database.url, tmp_path / "wh")
    catalog = env.catalog()
    before = _make_view(catalog)
    ready = tmp_path / "ready"
    with psycopg.connect(
        host=postgres_server.host, port=postgres_server.port, user="postgres", dbname=postgres_database.name
    ) as locker:
        locker.execute("SELECT * FROM iceberg_tables WHERE table_name = 'v' FOR UPDATE")
        proc = subprocess.Popen(
            [sys.executable, str(WORKER), "stall-in-update", env.url, env.warehouse_uri, "ns.v", str(ready)],
            env=_child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            _wait_for(ready, proc)
            _wait_for_lock_wait(locker, timeout=30)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        locker.rollback()
    after = catalog.load_view("ns.v")
    assert after.metadata_location == before.metadata_file_location
    assert after.metadata == before
    catalog.close()


def _wait_for_lock_wait(conn: Any, timeout: float) -> int:
    """The pid of a backend whose UPDATE waits for a lock."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        conn.execute("SELECT pg_stat_clear_snapshot()")  # stats views are cached per transaction
        row = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE iceberg_tables%'"
        ).fetchone()
        if row:
            return int(row[0])
        time.sleep(0.02)
    raise AssertionError("no UPDATE waiting for the row lock")


# ----------------------------------------------------------------------------- metadata files


def test_deleted_metadata_file_names_the_file(catalog: SqlCatalog) -> None:
    before = _make_view(catalog)
    location = str(before.metadata_file_location)
    os.remove(file_path(location))
    with pytest.raises(NotFoundError) as info:
        catalog.load_view("ns.v")
    assert location in str(info.value)
    # the entry can still be dropped (as in Java, a missing file does not block the drop)
    assert catalog.drop_view("ns.v")


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated-gzip", "bad-json", "not-view-metadata"],
)
def test_corrupted_metadata_file_names_the_file(catalog: SqlCatalog, damage: str) -> None:
    before = _make_view(catalog)
    location = str(before.metadata_file_location)
    path = file_path(location)
    data = Path(path).read_bytes()
    if damage == "garbage":
        Path(path).write_bytes(b"\x00\x01not gzip at all")
    elif damage == "truncated-gzip":
        Path(path).write_bytes(data[: len(data) // 2])
    elif damage == "bad-json":
        Path(path).write_bytes(gzip.compress(b'{"view-uuid": "x", '))
    else:
        Path(path).write_bytes(gzip.compress(b'{"format-version": 1}'))
    with pytest.raises(InvalidMetadataError) as info:
        catalog.load_view("ns.v")
    assert location in str(info.value)
    assert info.value.location == location
    # iceview can still drop the entry (Java cannot: its drop loads the metadata first)
    assert catalog.drop_view("ns.v")
    assert os.path.exists(path)  # the unreadable file is left alone


def test_refresh_finding_another_view_raises(catalog: SqlCatalog, env: CatalogEnv) -> None:
    _make_view(catalog)
    handle = catalog.load_view("ns.v")
    assert catalog.drop_view("ns.v")
    catalog.create_view("ns.v", schema=SCHEMA, queries={"spark": "SELECT 2"}, default_namespace="ns")
    with pytest.raises(ViewUUIDMismatchError, match="View UUID does not match"):
        handle.refresh()
    # a commit through the stale handle refuses as well, and writes nothing that stays
    with pytest.raises(ViewUUIDMismatchError):
        handle.update_properties().set("x", "y").commit()
    assert "x" not in catalog.load_view("ns.v").properties


# ----------------------------------------------------------------------------- the database goes away


@pytest.fixture(scope="module")
def private_postgres() -> Iterator[PostgresServer]:
    """A server of our own, which the tests stop and start."""
    from fixtures.postgres import find_postgres_bin

    if find_postgres_bin() is None:
        if os.environ.get("ICEVIEW_REQUIRE_POSTGRES") == "1":
            pytest.fail("PostgreSQL server binaries not found")
        pytest.skip("PostgreSQL server binaries not found")
    server = start_postgres_server()
    try:
        yield server
    finally:
        server.destroy()


def _break_sqlite(path: Path) -> None:
    """Overwrite the database header in place (open connections see it on their next statement)."""
    with open(path, "r+b") as f:
        f.write(b"this is no longer a database" * 4)


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_database_goes_away_before_the_swap(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend == "sqlite":
        db_path = tmp_path / "catalog.db"
        env = CatalogEnv("sqlite", f"sqlite:///{db_path}", tmp_path / "wh")
        server = None
    else:
        server = request.getfixturevalue("private_postgres")
        if not server.is_running():
            server.start()
        db = server.create_database()
        env = CatalogEnv("postgres", db.url, tmp_path / "wh")
    catalog = env.catalog()
    before = _make_view(catalog)
    view = catalog.load_view("ns.v")
    written: list[str] = []
    original = SqlViewOperations.do_commit

    def going_away(self: SqlViewOperations, base: Any, new_location: str) -> None:
        written.append(new_location)
        if server is not None:
            server.stop("immediate")
        else:
            _break_sqlite(db_path)
        original(self, base, new_location)

    monkeypatch.setattr(SqlViewOperations, "do_commit", going_away)
    with pytest.raises(CatalogError) as info:
        view.update_properties().set("k", "lost").commit()
    assert "Database" in str(info.value) or "database" in str(info.value)
    # a definite failure: the orphan file was deleted
    assert written and not os.path.exists(file_path(written[0]))
    # reads fail with the same typed error while the database is away
    with pytest.raises(CatalogError):
        catalog.load_view("ns.v")
    with pytest.raises(CatalogError):
        catalog.list_views("ns")
    catalog.close()
    if server is not None:
        server.start()
        again = env.catalog()
        assert again.load_view("ns.v").metadata == before
        again.close()


@pytest.mark.postgres
def test_connection_dropped_after_update_sent_is_unknown(
    private_postgres: PostgresServer, tmp_path: Path
) -> None:
    """The UPDATE was sent (it waits for a row lock) when its connection is terminated: the outcome
    is unknown to the writer, which says so and keeps its file."""
    import psycopg

    server = private_postgres
    if not server.is_running():
        server.start()
    db = server.create_database()
    env = CatalogEnv("postgres", db.url, tmp_path / "wh")
    catalog = env.catalog()
    before = _make_view(catalog)
    view = catalog.load_view("ns.v")
    outcome: dict[str, BaseException | None] = {}
    written: list[str] = []
    original = SqlViewOperations.do_commit

    def recording(self: SqlViewOperations, base: Any, new_location: str) -> None:
        written.append(new_location)
        original(self, base, new_location)

    SqlViewOperations.do_commit = recording  # type: ignore[method-assign]
    try:
        with psycopg.connect(host=server.host, port=server.port, user="postgres", dbname=db.name) as locker:
            locker.execute("SELECT * FROM iceberg_tables WHERE table_name = 'v' FOR UPDATE")

            def commit() -> None:
                try:
                    view.update_properties().set("k", "unknown").commit()
                    outcome["error"] = None
                except BaseException as e:
                    outcome["error"] = e

            thread = threading.Thread(target=commit)
            thread.start()
            pid = _wait_for_lock_wait(locker, timeout=30)
            locker.execute("SELECT pg_terminate_backend(%s)", (pid,))
            thread.join(timeout=60)
            locker.rollback()
    finally:
        SqlViewOperations.do_commit = original  # type: ignore[method-assign]
    assert isinstance(outcome.get("error"), CommitStateUnknownError), outcome
    assert "unknown" in str(outcome["error"]).lower()
    # the file is kept: the catalog might have pointed at it
    assert written and os.path.exists(file_path(written[0]))
    # here the transaction died with its connection: the view is at its previous version
    assert catalog.load_view("ns.v").metadata == before
    assert file_path(written[0]).rsplit("/", 1)[1] in metadata_files(Path(file_path(written[0])).parent)
    catalog.close()


@pytest.mark.postgres
def test_server_down_at_startup_is_a_catalog_error(private_postgres: PostgresServer, tmp_path: Path) -> None:
    server = private_postgres
    if not server.is_running():
        server.start()
    db = server.create_database()
    server.stop("fast")
    try:
        with pytest.raises(CatalogError, match="Cannot initialize JDBC catalog"):
            SqlCatalog("c", uri=db.url, warehouse="file://" + str(tmp_path))
    finally:
        server.start()


def test_failed_sqlite_commit_leaves_no_half_written_change(tmp_path: Path) -> None:
    """SQLite's COMMIT fails with "database is locked" while another connection holds a read lock
    (as Iceberg 1.10.2's leaked JDBC statement does). The failed write must be discarded: before the
    fix the pooled connection kept the uncommitted INSERT/UPDATE, so the same catalog saw a view
    whose file had been deleted as an orphan."""
    import sqlite3

    catalog = SqlCatalog(
        "c", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file:{tmp_path}/w", **{"sqlite.timeout": "1"}
    )
    catalog.create_namespace("ns")
    catalog.create_view("ns.a", schema=SCHEMA, queries={"spark": "select 1 x"}, default_namespace="ns")
    before = catalog.load_view("ns.a").metadata_location
    reader = sqlite3.connect(f"{tmp_path}/c.db", isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT * FROM iceberg_tables").fetchone()  # holds a SHARED lock
        with pytest.raises(CatalogError, match="database is locked"):
            catalog.create_view(
                "ns.v", schema=SCHEMA, queries={"spark": "select 2 x"}, default_namespace="ns"
            )
        assert not catalog.view_exists("ns.v")
        view = catalog.load_view("ns.a")
        with pytest.raises(CommitFailedError, match="database is locked"):
            view.replace_version(schema=SCHEMA, queries={"spark": "select 3 x"}, default_namespace="ns")
        assert catalog.load_view("ns.a").metadata_location == before
    finally:
        reader.execute("ROLLBACK")
        reader.close()
    assert not catalog.view_exists("ns.v")
    assert catalog.load_view("ns.a").metadata_location == before
    assert metadata_files(tmp_path / "w" / "ns" / "v" / "metadata") == []  # the orphan was deleted
    assert len(metadata_files(tmp_path / "w" / "ns" / "a" / "metadata")) == 1
    catalog.create_view("ns.v", schema=SCHEMA, queries={"spark": "select 2 x"}, default_namespace="ns")
    assert catalog.view_exists("ns.v")
