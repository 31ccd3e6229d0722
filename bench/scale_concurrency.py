"""The concurrency cost curves (see ``bench/bench_scale.py``): ``clients`` and ``servers``.

* ``clients``: 1 to 64 client processes commit through the SQL catalog on one SQLite file (and on
  PostgreSQL with ``--postgres URL``, in a fresh database created on its server), first all on one
  view, then each on a view of its own.
* ``servers``: 1 to 4 ``iceview serve`` processes (separate servers, not workers of one), all on
  one PostgreSQL database and one warehouse, take the commits of a fixed pool of client processes
  (client ``w`` on server ``w % N``, through iceview's REST client), on one view and on many. The
  database is a fresh one on ``--postgres URL``'s server, else on a throwaway server started here
  (Debian's binaries, as ``tests/fixtures/postgres.py`` does).

Each client process makes a fixed number of commits (so the work grows with the clients), each a
replace that adds a version of its own (``SELECT w AS w, i AS i``), and times each call. A call
includes the catalog's retries of a conflict (``Catalog.commit_view``; over REST, the server's):
every view is made with the retries of ``tests/catalog/test_catalog_concurrency.py`` (10,000 of
them, backoff 2 to 64 ms), so that none gives up. Figures: commits per second (all the timed
commits over the time from the first start to the last end), the p99 of the calls' latencies, and
the retries per commit (counted in each client from the retry policy's log; over REST the servers
retry, and those are not counted). Each row says the shape its work calls for, and why.

Clients are a pool of processes (multiprocessing, spawn: each a fresh interpreter) that import
iceview once, then take a task per run. Each client opens its catalog, loads its view and makes
one commit that is not timed (``i = -1``; the first commit of a process, or of a server, costs
more than the next), then waits; the run starts when every client is ready, all at once (one
event), so that neither imports nor connections are measured.

Sizes and commits per client are chosen so that the full curves take about 2 minutes each on 2
cores (most of ``clients`` is 64 processes importing iceview, and one view at 32 and 64 clients).

Lost commits: after each run, each view's metadata folder must hold the file chain the commits
made, as ``tests/catalog/test_catalog_concurrency.py`` checks it: files numbered 0 (the create) to
N (the commits acknowledged) with no gap or repeat (failed attempts deleted theirs), each file's
current version one more than its predecessor's (each commit was made on top of the one before),
and each acknowledged commit the current version of exactly one file; in the SQL catalog, the very
file its commit set. (A REST commit's answer is the view as loaded after it, which may already
hold a later commit: there only the chain is checked.) Anything else is a :class:`Fatal` defect.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import multiprocessing
import queue
import re
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from scale_common import (
    SERVED,
    Fatal,
    Operation,
    Settings,
    die_with_parent,
    fresh_database,
    percentile,
    report,
    start_servers,
    stop_servers,
    throwaway_postgres,
)

CLIENTS = [1, 2, 4, 8, 16, 32, 64]
QUICK_CLIENTS = [1, 2]
CLIENT_COMMITS = 10
"""Commits per client process in the ``clients`` curve (``--quick``: :data:`QUICK_COMMITS`)."""
SERVERS = [1, 2, 3, 4]
QUICK_SERVERS = [1, 2]
SERVER_CLIENTS = 8
"""The fixed pool of client processes of the ``servers`` curve (``--quick``: 4)."""
SERVER_COMMITS = 25
QUICK_COMMITS = 5
MODES = ("one view", "many views")
CATALOG = SERVED  # the name iceview serve gives the catalog (tests/fixtures/iceview_serve.py)
"""The catalog's name, in the SQL catalog's rows: the servers serve it under this name."""
RETRY_FOREVER = {
    "commit.retry.num-retries": "10000",
    "commit.retry.min-wait-ms": "2",
    "commit.retry.max-wait-ms": "64",
}
CREATED_SQL = "SELECT -1 AS w, -1 AS i"
_SQL = re.compile(r"SELECT (-?\d+) AS w, (-?\d+) AS i")


def _schema() -> Any:
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField

    return Schema(
        NestedField(1, "w", IntegerType(), required=False),
        NestedField(2, "i", IntegerType(), required=False),
        schema_id=0,
    )


# ------------------------------------------------------------------------------------- the curves
def clients(settings: Settings) -> list[str]:
    """The ``clients`` curve."""
    sizes = QUICK_CLIENTS if settings.quick else CLIENTS
    commits = QUICK_COMMITS if settings.quick else CLIENT_COMMITS
    defects: list[str] = []
    with contextlib.ExitStack() as stack:
        stores = {"SQLite": f"sqlite:///{settings.base}/sqlite/catalog.db"}
        if settings.postgres:
            stores["PostgreSQL"] = stack.enter_context(fresh_database(settings.postgres))
        pool = stack.enter_context(Pool())
        for store, url in stores.items():
            warehouse = settings.base / store.lower() / "warehouse"
            ops = _client_rows(store)
            for n in sizes:
                targets = [url] * n
                defects += _measure(ops, pool, url, warehouse, n, targets, commits, exact=True)
            defects += report(
                f"concurrent clients ({commits} commits each): SQL catalog on {store}", sizes, ops
            )
    return defects


def servers(settings: Settings) -> list[str]:
    """The ``servers`` curve."""
    sizes = QUICK_SERVERS if settings.quick else SERVERS
    pool_size = 4 if settings.quick else SERVER_CLIENTS
    commits = QUICK_COMMITS if settings.quick else SERVER_COMMITS
    defects: list[str] = []
    with contextlib.ExitStack() as stack:
        server = settings.postgres or stack.enter_context(throwaway_postgres())
        url = stack.enter_context(fresh_database(server))
        pool = stack.enter_context(Pool())
        warehouse = settings.base / "warehouse"
        ops = _server_rows()
        for n in sizes:
            running = start_servers(n, url, warehouse, settings.base / f"servers-{n}")
            try:
                targets = [running[w % n].uri for w in range(pool_size)]
                defects += _measure(ops, pool, url, warehouse, n, targets, commits, exact=False)
            finally:
                stop_servers(running)
        defects += report(
            f"iceview serve processes on one PostgreSQL ({pool_size} clients, {commits} commits each)",
            sizes,
            ops,
        )
    return defects


def _client_rows(store: str) -> list[Operation]:
    """The rows of the ``clients`` curve on ``store``, each with the shape its work calls for."""
    sqlite = store == "SQLite"
    return [
        Operation(
            "one view: commits",
            "constant",
            unit="/s",
            judged=False,
            note="capped by contention, not a defect: each commit of one view swaps its one pointer "
            "from the file it was made on, so commits land one at a time however many clients; "
            "each loser of a race has written a whole file for nothing and retries on the new one, "
            "and those lost attempts (retries) grow with the clients and take the cores and the "
            "disk from the winners: past a few clients the rate falls",
        ),
        Operation(
            "one view: p99",
            "super-linear",
            note="N clients queue for one pointer (N x a commit), and each commit takes more "
            "attempts as N grows (retries), each after a longer backoff: faster than N",
        ),
        Operation("one view: retries", "linear", unit="/commit", judged=False),
        Operation("one view: lost", "constant", unit="commits", judged=False),
        Operation(
            "many views: commits",
            "linear",
            unit="/s",
            judged=False,
            note="no conflicts: scales with the clients until the 2 cores and the disk"
            + (" (and SQLite's one writer at a time)" if sqlite else "")
            + " saturate, then flat",
        ),
        Operation(
            "many views: p99",
            "linear",
            judged=not sqlite,  # the reason is the note's: SQLite's lock is polled, not queued
            note="a closed loop: each of N clients waits for the others' commits, N / throughput: "
            "linear once the throughput is flat"
            + (
                ". SQLite has no queue for its one writer: a writer that finds the file locked sleeps "
                "and polls (the busy timeout), so the rate is erratic past a few writers and the "
                "tail long: that waiting, not more work per commit (no retries), so it is not judged; "
                "PostgreSQL queues its writers, and its row is judged"
                if sqlite
                else ""
            ),
        ),
        Operation("many views: retries", "linear", unit="/commit", judged=False),
        Operation("many views: lost", "constant", unit="commits", judged=False),
    ]


def _server_rows() -> list[Operation]:
    """The rows of the ``servers`` curve. Latency is not judged: 1 to 4 is too short a range for
    the slope of a noisy p99 (one point decides it); what it should do is said."""
    return [
        Operation(
            "one view: commits",
            "constant",
            unit="/s",
            judged=False,
            note="capped by contention, not a defect: one view's commits land one at a time "
            "(one row, one pointer) whatever serves them; servers add no parallelism to that chain",
        ),
        Operation(
            "one view: p99",
            "constant",
            judged=False,
            note="a fixed pool of clients: p99 follows clients / throughput, so flat as long as "
            "the throughput is",
        ),
        Operation("one view: lost", "constant", unit="commits", judged=False),
        Operation(
            "many views: commits",
            "linear",
            unit="/s",
            judged=False,
            note="one server is one process, one core at most: a second server may add the second "
            "core; past 2, the servers, the clients and PostgreSQL share 2 cores: flat",
        ),
        Operation("many views: p99", "constant", judged=False),
        Operation("many views: lost", "constant", unit="commits", judged=False),
    ]


def _measure(
    ops: list[Operation],
    pool: Pool,
    url: str,
    warehouse: Path,
    size: int,
    targets: Sequence[str],
    commits: int,
    *,
    exact: bool,
) -> list[str]:
    """One size of a curve: both modes, each client ``w`` committing through ``targets[w]`` (the
    database URL, or a server's URI); the figures into ``ops``; the lost commits as defects."""
    from iceview.catalog.sql import SqlCatalog

    by_name = {op.name: op for op in ops}
    defects: list[str] = []
    catalog = SqlCatalog(CATALOG, uri=url, warehouse=warehouse.as_uri())
    try:
        for mode in MODES:
            namespace = f"{mode.split()[0]}_{size}_{uuid.uuid4().hex[:6]}"
            catalog.create_namespace(namespace)
            views = (
                [f"{namespace}.v"]
                if mode == "one view"
                else [f"{namespace}.v{w}" for w in range(len(targets))]
            )
            created = {
                view: catalog.create_view(
                    view,
                    schema=_schema(),
                    queries={"spark": CREATED_SQL},
                    default_namespace=(namespace,),
                    properties=RETRY_FOREVER,
                ).metadata_location
                for view in views
            }
            tasks = [
                Task(target, warehouse.as_uri(), views[w % len(views)], w, commits)
                for w, target in enumerate(targets)
            ]
            results, wall = pool.run(tasks)
            done = sum(len(r.latencies) for r in results)
            by_name[f"{mode}: commits"].values[size] = done / wall
            by_name[f"{mode}: p99"].values[size] = percentile([t for r in results for t in r.latencies], 99)
            if f"{mode}: retries" in by_name:
                by_name[f"{mode}: retries"].values[size] = sum(r.retries for r in results) / max(1, done)
            problems = [f"client {r.writer}: {e}" for r in results for e in r.errors]
            lost = 0
            for view, location in created.items():
                assert location is not None
                acknowledged = {
                    (r.writer, i): at for r in results if r.view == view for i, at in r.acknowledged
                }
                view_lost, view_problems = check_chain(catalog, view, location, acknowledged, exact=exact)
                lost += view_lost
                problems += view_problems
            by_name[f"{mode}: lost"].values[size] = lost
            defects += [Fatal(f"{size} {mode}: {p}") for p in problems]
    finally:
        catalog.close()
    return defects


def check_chain(
    catalog: Any, view: str, created: str, acknowledged: dict[tuple[int, int], str | None], *, exact: bool
) -> tuple[int, list[str]]:
    """The commits of ``acknowledged`` ((writer, i) -> the file its commit set, or None) that are
    not in ``view``'s file chain, and every way the chain is not what those commits make (see the
    module's docstring)."""
    folder = Path(_path(created)).parent
    names = sorted(p.name for p in folder.glob("*.metadata.json"))
    number = {name: int(name.split("-", 1)[0]) for name in names}
    problems = []
    if sorted(number.values()) != list(range(len(acknowledged) + 1)):
        problems.append(
            f"{view}: {len(names)} files numbered {sorted(number.values())[:3]}.., "
            f"not 0..{len(acknowledged)} (the create and one per acknowledged commit)"
        )
    landed: Counter[tuple[int, int]] = Counter()
    file_of: dict[tuple[int, int], str] = {}
    previous = None
    for name in sorted(names, key=number.__getitem__):
        raw = (folder / name).read_bytes()
        doc = orjson.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)  # gzip by default
        current = doc["current-version-id"]
        version = next(v for v in doc["versions"] if v["version-id"] == current)
        match = _SQL.fullmatch(version["representations"][0]["sql"])
        if match is None:
            problems.append(f"{view}: {name} holds a version no client made")
            continue
        key = (int(match[1]), int(match[2]))
        if previous is not None and current != previous + 1:
            problems.append(f"{view}: {name}'s version {current} is not made on {previous}")
        previous = current
        landed[key] += 1
        file_of[key] = name
    lost = [key for key in acknowledged if not landed[key]]
    problems += [f"{view}: acknowledged commit {key} is in no file (lost)" for key in lost]
    problems += [f"{view}: commit {key} is in {n} files" for key, n in landed.items() if n > 1]
    problems += [
        f"{view}: commit {key} landed but was not acknowledged"
        for key in landed
        if key not in acknowledged and key != (-1, -1)
    ]
    if exact:
        problems += [
            f"{view}: commit {key} set {Path(_path(at)).name}, but its version is in {file_of.get(key)}"
            for key, at in acknowledged.items()
            if at is not None and Path(_path(at)).name != file_of.get(key)
        ]
    pointer = catalog.load_view(view).metadata_location
    if names and Path(_path(pointer)).name != max(names, key=number.__getitem__):
        problems.append(f"{view}: the catalog points at {pointer}, not the chain's last file")
    return len(lost), problems


def _path(location: str) -> str:
    return location.removeprefix("file://").removeprefix("file:")


# ---------------------------------------------------------------------------------- the clients
@dataclass(frozen=True)
class Task:
    """One client's part of a run: ``commits`` replaces of ``view`` through ``catalog`` (a
    SQLAlchemy URL: the SQL catalog; an ``http://`` URI: iceview's REST client)."""

    catalog: str
    warehouse: str
    view: str
    writer: int
    commits: int


@dataclass
class Result:
    """What a client did: its acknowledged commits (``i``, the file it set when known), errors,
    each call's latency (s), its start and end (``time.monotonic``, one clock for all processes),
    and the retries the catalog made."""

    writer: int
    view: str
    acknowledged: list[tuple[int, str | None]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    start: float = 0.0
    end: float = 0.0
    retries: int = 0


class _Retries(logging.Handler):
    """Counts the retry policy's ``Retrying commit after failure`` records."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if str(record.msg).startswith("Retrying"):
            self.count += 1


def _work(index: int, tasks: Any, results: Any, go: Any) -> None:
    """A client process: import iceview, say so, then run the tasks it is given until None."""
    die_with_parent()
    from iceview.catalog.rest import RestCatalog
    from iceview.catalog.sql import SqlCatalog

    retries = _Retries()
    logger = logging.getLogger("iceview.catalog.properties")
    logger.addHandler(retries)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    schema = _schema()
    results.put(("up", index, None))
    while (task := tasks.get()) is not None:
        try:
            if task.catalog.startswith("http"):
                catalog: Any = RestCatalog(CATALOG, uri=task.catalog)
            else:
                catalog = SqlCatalog(CATALOG, uri=task.catalog, warehouse=task.warehouse)
            namespace = task.view.split(".")[0]
            view = catalog.load_view(task.view)
            result = Result(task.writer, task.view)
            # one commit first, not timed (i = -1: it is checked with the others): the first commit
            # of a process, and of a server, costs more than the next
            view.replace_version(
                schema=schema,
                queries={"spark": f"SELECT {task.writer} AS w, -1 AS i"},
                default_namespace=(namespace,),
            )
            result.acknowledged.append((-1, getattr(view.operations, "current_metadata_location", None)))
            results.put(("ready", index, None))
            go.wait()
            retries.count = 0
            result.start = time.monotonic()
            for i in range(task.commits):
                at = time.perf_counter()
                try:
                    view.replace_version(
                        schema=schema,
                        queries={"spark": f"SELECT {task.writer} AS w, {i} AS i"},
                        default_namespace=(namespace,),
                    )
                except Exception as e:
                    result.errors.append(f"commit {i}: {type(e).__name__}: {e}")
                    continue
                result.latencies.append(time.perf_counter() - at)
                # the pointer this commit set (the SQL catalog's); over REST, not known
                result.acknowledged.append((i, getattr(view.operations, "current_metadata_location", None)))
            result.end = time.monotonic()
            result.retries = retries.count
            catalog.close()
            results.put(("done", index, result))
        except BaseException:
            results.put(("error", index, traceback.format_exc()))


class Pool:
    """Client processes (spawn), started as a run needs more, each waiting for its tasks; a run
    goes when all its clients are ready (:meth:`run`). A context manager: ends them on exit."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._go = self._context.Event()
        self._results: Any = self._context.Queue()
        self._tasks: list[Any] = []
        self._processes: list[Any] = []

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._go.set()  # a client stopped between ready and go (a run that failed) goes on to None
        for tasks in self._tasks:
            tasks.put(None)
        deadline = time.monotonic() + 10
        for process in self._processes:
            process.join(timeout=max(0.0, deadline - time.monotonic()))
        for process in self._processes:
            if process.is_alive():
                process.terminate()
                process.join()

    def grow(self, size: int) -> None:
        """Start processes until there are ``size``; return once each has imported iceview (so
        that no import competes with a run)."""
        started = len(self._processes)
        while len(self._processes) < size:
            tasks = self._context.Queue()
            process = self._context.Process(
                target=_work, args=(len(self._processes), tasks, self._results, self._go), daemon=True
            )
            process.start()
            self._tasks.append(tasks)
            self._processes.append(process)
        self._collect(size - started, "up", timeout=600)

    def run(self, tasks: Sequence[Task]) -> tuple[list[Result], float]:
        """Task ``k`` to client ``k``, all let go at once when all are ready; their results, and
        the seconds from the first start to the last end."""
        self.grow(len(tasks))
        self._go.clear()
        for k, task in enumerate(tasks):
            self._tasks[k].put(task)
        ready = self._collect(len(tasks), "ready", timeout=300, errors_too=True)
        self._go.set()  # also when some failed: the others wait for it
        results = self._collect(sum(1 for kind, _ in ready if kind == "ready"), "done", errors_too=True)
        self._go.clear()
        failed = [message for kind, message in ready + results if kind == "error"]
        if failed:
            raise RuntimeError(f"{len(failed)} client(s) failed; the first:\n{failed[0]}")
        done: list[Result] = [message for _, message in results]
        return done, max(r.end for r in done) - min(r.start for r in done)

    def _collect(
        self, count: int, kind: str, timeout: float = 900, errors_too: bool = False
    ) -> list[tuple[str, Any]]:
        got: list[tuple[str, Any]] = []
        deadline = time.monotonic() + timeout
        while len(got) < count:
            try:
                message_kind, _, message = self._results.get(timeout=5)
            except queue.Empty:
                dead = [p.pid for p in self._processes if not p.is_alive()]
                if dead or time.monotonic() > deadline:
                    raise RuntimeError(f"clients stopped answering (dead: {dead})") from None
                continue
            if message_kind != kind and not (errors_too and message_kind == "error"):
                raise RuntimeError(f"a client said {message_kind!r} when {kind!r} was due: {message}")
            got.append((message_kind, message))
        return got
