"""Load (issue 13): 8 client processes commit at once to one view and to one table through
``iceview serve --workers 2`` on PostgreSQL. Every acknowledged commit must appear exactly once,
nothing may be lost, and no pointer may refer to a missing file.

Each client sends raw ``CommitViewRequest`` / ``CommitTableRequest`` bodies (``requests``,
keep-alive) that set a property with a key unique to the commit; a 409 ``CommitFailedException``
(the server's own retries ran out: nothing was committed) is retried with the same key, a
``CommitStateUnknownException`` is recorded as unknown and not retried. Afterwards:

* views: each commit also adds a view version whose SQL names its key (the view keeps every version:
  ``version.history.num-entries`` is raised), so a commit applied twice would show twice;
* tables: the metadata log lists every metadata file; walking it, each file adds exactly one key;
* every key acknowledged is there, every key there was sent, and every pointer in the store (and
  every file the table's metadata log names) exists.

``ICEVIEW_LOAD_CLIENTS`` (default 8) and ``ICEVIEW_LOAD_COMMITS`` (per client, default 10) scale it.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import sqlalchemy
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

from fixtures.iceview_serve import IceviewServer, start_iceview_server
from fixtures.postgres import PostgresDatabase
from iceview.catalog import Catalog, load_catalog

CLIENTS = int(os.environ.get("ICEVIEW_LOAD_CLIENTS", "8"))
COMMITS = int(os.environ.get("ICEVIEW_LOAD_COMMITS", "10"))
NAMESPACE = "load"
VIEW = "v"
TABLE = "t"
CLIENT_RETRIES = 60
KEY_PREFIX = "load-w"
"""Commit keys are ``load-w<writer>-<i>``."""
SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False),
    NestedField(2, "data", StringType(), required=False),
    schema_id=0,
)


# -- the clients (separate processes) ------------------------------------------------------------
def _view_change(uuid: str, key: str) -> dict[str, Any]:
    return {
        "requirements": [{"type": "assert-view-uuid", "uuid": uuid}],
        "updates": [
            {"action": "set-properties", "updates": {key: "1"}},
            {
                "action": "add-view-version",
                "view-version": {
                    "version-id": 1,
                    "schema-id": 0,
                    "timestamp-ms": int(time.time() * 1000),
                    "summary": {"engine-name": "load-test"},
                    "representations": [
                        {"type": "sql", "sql": f"select 1 as id, '{key}' as data", "dialect": "spark"}
                    ],
                    "default-namespace": [NAMESPACE],
                },
            },
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }


def _table_change(uuid: str, key: str) -> dict[str, Any]:
    return {
        "requirements": [{"type": "assert-table-uuid", "uuid": uuid}],
        "updates": [{"action": "set-properties", "updates": {key: "1"}}],
    }


def commit_client(kind: str, url: str, uuid: str, writer: int, commits: int, go: Any, results: Any) -> None:
    """One client process: wait for ``go``, then commit ``commits`` keys ``load-w<writer>-<i>`` to the
    view or table; put ``{"writer", "acked", "unknown", "conflicts", "errors"}`` on ``results``."""
    path = f"v1/namespaces/{NAMESPACE}/" + (f"views/{VIEW}" if kind == "view" else f"tables/{TABLE}")
    make = _view_change if kind == "view" else _table_change
    report: dict[str, Any] = {"writer": writer, "acked": [], "unknown": [], "conflicts": 0, "errors": []}
    try:
        with requests.Session() as session:
            go.wait(60)
            for i in range(commits):
                key = f"{KEY_PREFIX}{writer}-{i}"
                for attempt in range(CLIENT_RETRIES):
                    answer = session.post(url + path, json=make(uuid, key), timeout=120)
                    if answer.status_code == 200:
                        report["acked"].append(key)
                        break
                    error = answer.json().get("error", {}) if answer.content else {}
                    if answer.status_code == 409 and error.get("type") == "CommitFailedException":
                        report["conflicts"] += 1
                        time.sleep(0.01 * (attempt + 1))
                        continue
                    if error.get("type") == "CommitStateUnknownException":
                        report["unknown"].append(key)
                        break
                    report["errors"].append(f"{key}: {answer.status_code} {answer.text[:300]}")
                    break
                else:
                    report["errors"].append(f"{key}: still conflicting after {CLIENT_RETRIES} tries")
    except Exception as e:  # reported, so that the parent does not wait for a result forever
        report["errors"].append(f"{type(e).__name__}: {e}")
    results.put(report)


def run_clients(kind: str, server: IceviewServer, uuid: str) -> list[dict[str, Any]]:
    """:data:`CLIENTS` client processes started together; their reports."""
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    results = context.Queue()
    processes = [
        context.Process(target=commit_client, args=(kind, server.uri, uuid, w, COMMITS, go, results))
        for w in range(CLIENTS)
    ]
    for process in processes:
        process.start()
    started = time.perf_counter()
    go.set()
    reports = [results.get(timeout=600) for _ in processes]
    elapsed = time.perf_counter() - started
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0, f"a client exited with {process.exitcode}"
    acked = sum(len(r["acked"]) for r in reports)
    conflicts = sum(r["conflicts"] for r in reports)
    print(
        f"{kind}: {acked} commits acknowledged in {elapsed:.1f} s by {CLIENTS} clients; {conflicts} 409s retried"
    )
    return reports


# -- the check -----------------------------------------------------------------------------------
def _path(location: str) -> Path:
    return Path(location.removeprefix("file://").removeprefix("file:"))


def check_pointers(database_url: str) -> None:
    """Every pointer (current and previous) in the store names a file that exists."""
    engine = sqlalchemy.create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sqlalchemy.text(
                    "SELECT table_namespace, table_name, metadata_location, previous_metadata_location "
                    "FROM iceberg_tables"
                )
            ).all()
    finally:
        engine.dispose()
    assert rows
    for namespace, name, location, previous in rows:
        assert _path(location).is_file(), f"{namespace}.{name} points at a missing file: {location}"
        if previous:
            assert _path(previous).is_file(), f"{namespace}.{name}'s previous pointer is missing: {previous}"


def summarize(reports: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """The acknowledged and the unknown keys; fails on any client error or duplicate key."""
    errors = [e for r in reports for e in r["errors"]]
    assert not errors, "clients failed:\n" + "\n".join(errors[:20])
    acked = [k for r in reports for k in r["acked"]]
    unknown = {k for r in reports for k in r["unknown"]}
    assert len(acked) == len(set(acked)), "a key was acknowledged twice"
    return set(acked), unknown


def check_applied(applied: list[str], acked: set[str], unknown: set[str]) -> None:
    """``applied`` (each applied commit's key, in commit order) holds each key at most once, every
    acknowledged key, and nothing that was not sent."""
    duplicates = sorted({k for k in applied if applied.count(k) > 1})
    assert not duplicates, f"commits applied more than once: {duplicates[:10]}"
    lost = sorted(acked - set(applied))
    assert not lost, f"acknowledged commits lost: {lost[:10]}"
    phantom = sorted(set(applied) - acked - unknown)
    assert not phantom, f"commits applied that no client sent: {phantom[:10]}"


# -- the tests ------------------------------------------------------------------------------------
@contextlib.contextmanager
def two_workers(workdir: Path, db_url: str | None = None) -> Iterator[IceviewServer]:
    """``iceview serve --workers 2``; stopped with SIGTERM afterwards, which must end it (status 0)."""
    server = start_iceview_server(workdir, db_url=db_url, args=("--workers", "2"))
    try:
        yield server
    except BaseException:
        server.stop()  # the body's failure is the one to report
        raise
    status = server.stop()
    assert status == 0, (
        f"iceview serve exited with {status} after SIGTERM\n--- {server.log_path} ---\n{server.log_text()}"
    )


@pytest.fixture
def served(postgres_database: PostgresDatabase, tmp_path: Path) -> Iterator[tuple[IceviewServer, Catalog]]:
    """``iceview serve --workers 2`` on a fresh PostgreSQL database with a namespace, a view that
    keeps all its versions, and a table."""
    # the catalog the server will serve (start_iceview_server: the warehouse is <workdir>/warehouse)
    catalog = load_catalog(
        "served", type="sql", uri=postgres_database.url, warehouse=f"file://{tmp_path}/warehouse"
    )
    catalog.create_namespace(NAMESPACE)
    catalog.create_view(
        f"{NAMESPACE}.{VIEW}",
        queries={"spark": "select 1 as id, 'x' as data"},
        schema=SCHEMA,
        default_namespace=(NAMESPACE,),
        properties={"version.history.num-entries": "100000"},
    )
    catalog.table_catalog().create_table(
        (NAMESPACE, TABLE), SCHEMA, properties={"write.metadata.previous-versions-max": "100000"}
    )
    try:
        with two_workers(tmp_path, postgres_database.url) as server:
            yield server, catalog
    finally:
        catalog.close()


@pytest.mark.postgres
def test_concurrent_view_commits_each_appear_exactly_once(
    served: tuple[IceviewServer, Catalog], postgres_database: PostgresDatabase
) -> None:
    server, catalog = served
    uuid = requests.get(server.uri + f"v1/namespaces/{NAMESPACE}/views/{VIEW}", timeout=30).json()[
        "metadata"
    ]["view-uuid"]
    reports = run_clients("view", server, uuid)
    acked, unknown = summarize(reports)
    assert len(acked) + len(unknown) == CLIENTS * COMMITS

    answer = requests.get(server.uri + f"v1/namespaces/{NAMESPACE}/views/{VIEW}", timeout=30)
    assert answer.status_code == 200, answer.text
    metadata = answer.json()["metadata"]
    applied = [
        rep["sql"].split("'")[1]
        for version in metadata["versions"]
        for rep in version["representations"]
        if f"'{KEY_PREFIX}" in rep["sql"]
    ]
    check_applied(applied, acked, unknown)
    keys = {k for k in metadata["properties"] if k.startswith(KEY_PREFIX)}
    assert keys == set(applied), "the properties and the versions disagree on what was committed"
    assert len(metadata["versions"]) == 1 + len(applied)
    assert len(metadata["version-log"]) == 1 + len(applied)
    assert catalog.load_view(f"{NAMESPACE}.{VIEW}").metadata_location == answer.json()["metadata-location"]
    check_pointers(postgres_database.url)


@pytest.mark.postgres
def test_concurrent_table_commits_each_appear_exactly_once(
    served: tuple[IceviewServer, Catalog], postgres_database: PostgresDatabase
) -> None:
    server, _ = served
    loaded = requests.get(server.uri + f"v1/namespaces/{NAMESPACE}/tables/{TABLE}", timeout=30)
    assert loaded.status_code == 200, f"the table endpoints do not answer yet: {loaded.text}"
    reports = run_clients("table", server, loaded.json()["metadata"]["table-uuid"])
    acked, unknown = summarize(reports)
    assert len(acked) + len(unknown) == CLIENTS * COMMITS

    answer = requests.get(server.uri + f"v1/namespaces/{NAMESPACE}/tables/{TABLE}", timeout=30)
    assert answer.status_code == 200, answer.text
    current = answer.json()["metadata-location"]
    chain = [entry["metadata-file"] for entry in answer.json()["metadata"]["metadata-log"]] + [current]
    applied: list[str] = []
    seen: set[str] = set()
    for location in chain:
        assert _path(location).is_file(), f"the metadata log names a missing file: {location}"
        properties = json.loads(_path(location).read_text(encoding="utf-8")).get("properties", {})
        keys = {k for k in properties if k.startswith(KEY_PREFIX)}
        added = keys - seen
        assert seen <= keys, f"{location} lost keys: {sorted(seen - keys)[:10]}"
        assert len(added) <= 1, f"{location} adds more than one commit's key: {sorted(added)}"
        applied += sorted(added)
        seen = keys
    check_applied(applied, acked, unknown)
    assert len(chain) == 1 + len(applied), "a metadata file in the log adds no commit"
    check_pointers(postgres_database.url)


def test_keep_alive_answers_are_not_delayed_with_two_workers(tmp_path: Path) -> None:
    """Several workers must not slow each answer on a kept-alive connection (Nagle's algorithm
    against delayed ACKs adds ~40 ms per answer when TCP_NODELAY is off: uvicorn #3149, which
    iceview.server.run works around by binding the shared socket as IPPROTO_TCP)."""
    times = []
    with two_workers(tmp_path) as server, requests.Session() as session:
        for _ in range(30):
            started = time.perf_counter()
            assert session.get(server.uri + "v1/config", timeout=30).status_code == 200
            times.append(time.perf_counter() - started)
    median = sorted(times[5:])[len(times[5:]) // 2]
    assert median < 0.025, f"GET /v1/config takes {median * 1000:.1f} ms (median) on a kept-alive connection"
