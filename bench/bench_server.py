#!/usr/bin/env python3
"""``iceview serve`` against Iceberg Java 1.10.2's REST server, the same client driving both (not a
test).

Both servers run on this machine, each on its own SQLite file holding the same view:

* iceview: ``iceview serve`` (``tests/fixtures/iceview_serve.py``), a SQL catalog on SQLite,
  ``--workers`` worker processes (default 1);
* Java: the reference REST server of the tests (``tests/fixtures/rest_java.py``: Iceberg Java
  1.10.2's ``CatalogHandlers`` over a ``JdbcCatalog`` on SQLite, 8 request threads).

The client is plain HTTP with keep-alive, sending the same bodies to both: the latencies go through
one ``http.client.HTTPConnection`` per server (a thin client: ``requests`` alone costs about 1 ms a
call, which would hide the servers' difference), set-up and throughput through ``requests``:

* ``load``: ``GET .../views/{view}``, both servers interleaved call by call in a new random order
  each round, after a warm-up;
* ``replace``: ``POST .../views/{view}`` with the ``CommitViewRequest`` Java's ``RESTCatalog``
  sends for a replace that changes the schema (``assert-view-uuid``; ``add-schema``;
  ``add-view-version`` numbered max+1 with ``schema-id`` -1; ``set-current-view-version`` -1), a
  new column name and SQL text each call (so each view gains one schema per call, on both servers
  alike), interleaved too;
* ``throughput``: ``--clients`` client processes (default 8) commit ``set-properties`` with a
  unique key each, as fast as they can, to one view (a 409 is retried with the same key); commits
  per second over the wall time, then every acknowledged key is checked in the final view (lost
  must be 0). The servers are measured one after the other, ``--rounds`` times, alternating.

It prints p50 and p90 (ms) of each latency, commits/s, and the ratios iceview/Java (anchor: Java,
measured in the same run): goals ``load`` p50 <= 0.5, ``replace`` p50 <= 1.0, throughput >= 1.0
with 0 lost. The load average before and after is printed, since the machine may be shared.

    .venv/bin/python bench/bench_server.py [--runs 300] [--warmup 100] [--clients 8]
        [--commits 25] [--rounds 2] [--workers 1]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests
from timing import interleaved, nearest_rank

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

NAMESPACE = "bench"
SCHEMA: dict[str, Any] = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": False, "type": "int"},
        {"id": 2, "name": "data", "required": False, "type": "string"},
    ],
}
CLIENT_RETRIES = 200


def create_view_request(name: str) -> dict[str, Any]:
    """A ``CreateViewRequest`` (what Java's ``buildView(...).create()`` sends)."""
    return {
        "name": name,
        "schema": SCHEMA,
        "view-version": {
            "version-id": 1,
            "schema-id": 0,
            "timestamp-ms": int(time.time() * 1000),
            "summary": {"engine-name": "bench"},
            "representations": [{"type": "sql", "sql": "select 1 as id, 'x' as data", "dialect": "spark"}],
            "default-namespace": [NAMESPACE],
        },
        "properties": {},
    }


def replace_request(uuid: str, n: int, version_id: int) -> dict[str, Any]:
    """The ``CommitViewRequest`` of a replace that changes the schema, as Iceberg Java's
    ``RESTCatalog`` sends it: ``add-schema``, then the version with ``schema-id`` -1 (the last added
    schema). Java sends the pair only for a new schema (an identical one is reused, and then -1 names
    no added schema), so call ``n`` renames the second column to ``data_<n>``. ``version_id`` is the
    view's highest version id + 1, as Java's ``RESTViewBuilder`` numbers the new version."""
    schema = {
        "type": "struct",
        "schema-id": 0,
        "fields": [
            {"id": 1, "name": "id", "required": False, "type": "int"},
            {"id": 2, "name": f"data_{n}", "required": False, "type": "string"},
        ],
    }
    sql = f"select {n} as id, 'x' as data_{n}"
    return {
        "requirements": [{"type": "assert-view-uuid", "uuid": uuid}],
        "updates": [
            {"action": "add-schema", "schema": schema, "last-column-id": 2},
            {
                "action": "add-view-version",
                "view-version": {
                    "version-id": version_id,
                    "schema-id": -1,
                    "timestamp-ms": int(time.time() * 1000),
                    "summary": {"engine-name": "bench"},
                    "representations": [{"type": "sql", "sql": sql, "dialect": "spark"}],
                    "default-namespace": [NAMESPACE],
                },
            },
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }


def properties_request(uuid: str, key: str) -> dict[str, Any]:
    return {
        "requirements": [{"type": "assert-view-uuid", "uuid": uuid}],
        "updates": [{"action": "set-properties", "updates": {key: "1"}}],
    }


class Target:
    """One server under test, its view URLs and the view's UUID."""

    def __init__(self, name: str, base: str, session: requests.Session) -> None:
        self.name = name
        self.base = base
        self.session = session
        self.connection: http.client.HTTPConnection | None = None
        self._check(session.post(base + "v1/namespaces", json={"namespace": [NAMESPACE]}, timeout=30))
        self.uuid: dict[str, str] = {}
        self.next_version = 2
        for view in ("v_load", "v_replace", "v_throughput"):
            answer = session.post(
                f"{base}v1/namespaces/{NAMESPACE}/views", json=create_view_request(view), timeout=30
            )
            self._check(answer)
            self.uuid[view] = answer.json()["metadata"]["view-uuid"]

    def url(self, view: str) -> str:
        return f"{self.base}v1/namespaces/{NAMESPACE}/views/{view}"

    def _check(self, answer: requests.Response) -> None:
        if answer.status_code != 200:
            raise SystemExit(f"{self.name} answered {answer.status_code}: {answer.text[:500]}")

    def _raw(self, method: str, view: str, body: bytes | None = None) -> bytes:
        if self.connection is None:
            parsed = urllib.parse.urlsplit(self.base)
            self.connection = http.client.HTTPConnection(
                parsed.hostname or "127.0.0.1", parsed.port, timeout=30
            )
        path = urllib.parse.urlsplit(self.url(view)).path
        headers = {"Content-Type": "application/json"} if body is not None else {}
        self.connection.request(method, path, body=body, headers=headers)
        answer = self.connection.getresponse()
        data = answer.read()
        if answer.status != 200:
            raise SystemExit(f"{self.name} answered {answer.status}: {data[:500]!r}")
        return data

    def load(self) -> None:
        self._raw("GET", "v_load")

    def replace(self, n: int) -> None:
        body = replace_request(self.uuid["v_replace"], n, self.next_version)
        data = self._raw("POST", "v_replace", json.dumps(body).encode())
        self.next_version = 1 + max(v["version-id"] for v in json.loads(data)["metadata"]["versions"])

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()


def _client(url: str, uuid: str, writer: int, commits: int, tag: str, go: Any, results: Any) -> None:
    """One throughput client process: ``commits`` set-properties commits; reports its keys."""
    acked: list[str] = []
    conflicts = 0
    errors: list[str] = []
    with requests.Session() as session:
        go.wait(120)
        for i in range(commits):
            key = f"{tag}-w{writer}-{i}"
            for attempt in range(CLIENT_RETRIES):
                answer = session.post(url, json=properties_request(uuid, key), timeout=120)
                if answer.status_code == 200:
                    acked.append(key)
                    break
                if answer.status_code == 409:
                    conflicts += 1
                    time.sleep(0.002 * min(attempt + 1, 20))
                    continue
                errors.append(f"{key}: {answer.status_code} {answer.text[:200]}")
                break
            else:
                errors.append(f"{key}: still conflicting after {CLIENT_RETRIES} tries")
    results.put({"acked": acked, "conflicts": conflicts, "errors": errors})


def throughput(target: Target, clients: int, commits: int, tag: str) -> dict[str, Any]:
    """Commits per second of ``clients`` processes on one view, and how many acknowledged keys
    the view lacks afterwards."""
    context = mp.get_context("spawn")
    go = context.Event()
    results = context.Queue()
    url = target.url("v_throughput")
    uuid = target.uuid["v_throughput"]
    processes = [
        context.Process(target=_client, args=(url, uuid, w, commits, tag, go, results))
        for w in range(clients)
    ]
    for process in processes:
        process.start()
    time.sleep(1.0)  # let every client import and connect before the start
    started = time.perf_counter()
    go.set()
    reports = [results.get(timeout=900) for _ in processes]
    elapsed = time.perf_counter() - started
    for process in processes:
        process.join(timeout=60)
    acked = [k for r in reports for k in r["acked"]]
    final = target.session.get(url, timeout=30).json()["metadata"]["properties"]
    return {
        "commits_per_s": len(acked) / elapsed,
        "acked": len(acked),
        "lost": sum(1 for k in acked if k not in final),
        "conflicts": sum(r["conflicts"] for r in reports),
        "errors": [e for r in reports for e in r["errors"]],
        "seconds": elapsed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--commits", type=int, default=25, help="commits per throughput client")
    parser.add_argument("--rounds", type=int, default=2, help="throughput rounds per server")
    parser.add_argument("--workers", type=int, default=1, help="iceview serve --workers")
    args = parser.parse_args()

    from fixtures.iceview_serve import start_iceview_server
    from fixtures.rest_java import start_java_rest_server

    load_before = os.getloadavg()
    started_at = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    base = Path(tempfile.mkdtemp(prefix="iceview-bench-server-"))
    java_server = start_java_rest_server(base / "java")
    iceview_server = start_iceview_server(base / "iceview", args=("--workers", str(args.workers)))
    sessions = [requests.Session(), requests.Session()]
    targets: dict[str, Target] = {}
    try:
        targets = {
            "iceview": Target("iceview", iceview_server.uri, sessions[0]),
            "java": Target("java", java_server.uri, sessions[1]),
        }
        counter = iter(range(1, 1 << 62))
        print(
            f"iceview serve (SQLite, --workers {args.workers}) vs Iceberg Java 1.10.2 REST server "
            f"(CatalogHandlers + JdbcCatalog on SQLite); one keep-alive HTTP connection per server; "
            f"started {started_at}; load average {load_before[0]:.2f} {load_before[1]:.2f} "
            f"{load_before[2]:.2f} on {os.cpu_count()} CPUs\n"
        )
        print(f"{'op':<8} {'server':<8} {'p50 ms':>8} {'p90 ms':>8}")
        summary: list[str] = []
        goals = {"load": 0.5, "replace": 1.0}

        def replacer(target: Target) -> Callable[[], None]:
            return lambda: target.replace(next(counter))

        ops: dict[str, dict[str, Callable[[], None]]] = {
            "load": {name: t.load for name, t in targets.items()},
            "replace": {name: replacer(t) for name, t in targets.items()},
        }
        for op, fns in ops.items():
            times = interleaved(fns, args.runs, args.warmup)
            p50 = {who: statistics.median(ts) * 1000 for who, ts in times.items()}
            for who, ts in times.items():
                print(f"{op:<8} {who:<8} {p50[who]:>8.2f} {nearest_rank(ts, 0.9) * 1000:>8.2f}")
            ratio = p50["iceview"] / p50["java"]
            met = "met" if ratio <= goals[op] else "NOT met"
            summary.append(f"{op:<10} p50 iceview/java = {ratio:.2f}x (goal <= {goals[op]}: {met})")

        print(
            f"\nthroughput: {args.clients} client processes x {args.commits} set-properties commits, one view"
        )
        rates: dict[str, list[float]] = {"iceview": [], "java": []}
        lost = 0
        for round_ in range(args.rounds):
            order = ["iceview", "java"] if round_ % 2 == 0 else ["java", "iceview"]
            for who in order:
                result = throughput(targets[who], args.clients, args.commits, f"r{round_}")
                rates[who].append(result["commits_per_s"])
                lost += result["lost"]
                print(
                    f"  round {round_ + 1} {who:<8} {result['commits_per_s']:>7.1f} commits/s "
                    f"({result['acked']} in {result['seconds']:.1f} s; {result['conflicts']} 409s retried; "
                    f"lost {result['lost']}; errors {len(result['errors'])})"
                )
                for error in result["errors"][:5]:
                    print(f"    {error}")
        ratio = statistics.median(rates["iceview"]) / statistics.median(rates["java"])
        met = "met" if ratio >= 1.0 and lost == 0 else "NOT met"
        summary.append(
            f"throughput commits/s iceview/java = {ratio:.2f}x, lost {lost} (goal >= 1.0, 0 lost: {met})"
        )
        load_after = os.getloadavg()
        print("\n" + "\n".join(summary))
        print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    finally:
        for session in sessions:
            session.close()
        for target in targets.values():
            target.close()
        iceview_server.stop()
        java_server.stop()
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
