#!/usr/bin/env python3
"""Latency of loading and replacing a view over REST: iceview's ``RestCatalog`` against Iceberg
Java 1.10.2's own REST client, ``org.apache.iceberg.rest.RESTCatalog``, on the same server in the
same run (not a test).

The server is the reference REST server of the tests (``tests/fixtures/rest_java.py``: Iceberg
Java 1.10.2's ``CatalogHandlers`` over a ``JdbcCatalog`` on SQLite), on this machine. Java's client
runs in one warm JVM (``bench/java/RestClientBench.java``, compiled with ``javac`` on first use into
``.cache/rest-bench/<hash>``) that times each call with ``System.nanoTime`` and answers over a pipe,
so the two clients are interleaved call by call, in a new random order each round, after a warm-up.
Both clients keep their HTTP connections alive (``requests.Session`` / HttpClient5's pool).

* ``load``: ``catalog.load_view(ident)`` against ``RESTCatalog.loadView`` (one ``GET``);
* ``replace``: ``catalog.replace_view(ident, queries={"spark": sql}, schema=..., default_namespace=...)``
  against ``buildView(ident).withSchema(...).withDefaultNamespace(...).withQuery("spark", sql).replace()``,
  a new SQL text each call (both: ``HEAD`` table, ``GET`` view, ``POST`` commit).

It prints the median and p90 of each, and the ratio iceview/Java of the medians (goal: <= 1.0).
The server logs how long it spent on each request. ``server`` is its time for the call's main
request (the ``GET`` of a load, the commit ``POST`` of a replace), the same work for both clients;
``rest`` is the call's time minus that: the client's own work and the other round trips, the part
a client can change (iceview sends a replace's table check and view load at once).

With ``--delay-ms N`` the server waits N ms before serving each of these requests (the fixture's
``delay`` fault), as a catalog across a network would: then a replace's overlapped table check and
view load show.

    .venv/bin/python bench/bench_rest.py [--runs 200] [--warmup 100] [--delay-ms 0] [--profile load|replace]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from timing import interleaved, nearest_rank

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.types import IntegerType, NestedField, StringType  # noqa: E402

from iceview.catalog import load_catalog  # noqa: E402
from iceview.catalog.rest import RestCatalog  # noqa: E402

JAVA_SOURCE = ROOT / "bench" / "java" / "RestClientBench.java"
MAIN_CLASS = "RestClientBench"
CACHE = ROOT / ".cache" / "rest-bench"
# the same as RestClientBench.SCHEMA
SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False),
    NestedField(2, "data", StringType(), required=False),
    schema_id=0,
)
NAMESPACE = "bench"
# each call's main request, one per call: a load's GET of the view, a replace's commit POST
MAIN_REQUEST = {"load": "GET", "replace": "POST"}
# the reference server's request log line: "GET /v1/namespaces/bench/views/v -> 200 (1.2 ms)"
LOG_LINE = re.compile(r"^([A-Z]+) (\S+) -> \d+ \(([0-9.]+) ms\)$")


class JavaClient:
    """Iceberg Java's ``RESTCatalog`` in a warm JVM, one timed call per command."""

    def __init__(self, uri: str) -> None:
        from fixtures.rest_java import compile_java, server_classpath

        classpath = server_classpath()
        classes = compile_java([JAVA_SOURCE], classpath, CACHE, MAIN_CLASS)
        java = shutil.which("java")
        if java is None:
            raise SystemExit(
                "no `java` on PATH (a Java 17 JDK is needed): run `bash scripts/setup.sh --tests`"
            )
        self._process = subprocess.Popen(
            [java, "-Xmx256m", "-cp", os.pathsep.join([str(classes), *classpath]), MAIN_CLASS, uri],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        ready = self._line()
        if ready != "READY":
            raise SystemExit(f"Java's REST client did not start: {ready!r}")

    def _line(self) -> str:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise SystemExit(f"Java's REST client exited ({self._process.poll()})")
        return line.rstrip("\n")

    def call(self, command: str) -> float:
        """Run one command; the seconds Java's catalog call took (timed inside the JVM)."""
        assert self._process.stdin is not None
        self._process.stdin.write(command + "\n")
        answer = self._line()
        if not answer.startswith("ok "):
            raise SystemExit(f"Java's REST client failed on {command!r}: {answer}")
        return int(answer[3:]) / 1e9

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write("quit\n")
        self._process.stdin.close()
        try:
            self._process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def server_times(log: str, method: str, view: str, calls: int) -> list[float] | None:
    """The server's time (s) on ``method`` ``.../views/{view}`` in each of the last ``calls`` calls,
    from its request log; None when the log does not hold at least that many."""
    spent = [
        float(m.group(3)) / 1000
        for m in map(LOG_LINE.match, log.splitlines())
        if m is not None and m.group(1) == method and m.group(2).endswith("/views/" + view)
    ]
    return spent[len(spent) - calls :] if len(spent) >= calls else None


def profile(name: str, fn: Callable[[], object], calls: int) -> None:
    """cProfile of ``calls`` iceview calls: the top functions by cumulative and own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    for sort in ("cumulative", "tottime"):
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats(sort).print_stats(25)
        print(f"\n--- cProfile of {calls} iceview {name} calls, by {sort} ---")
        print(text.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--delay-ms", type=int, default=0, help="server-side wait before each request")
    parser.add_argument("--profile", choices=("load", "replace"), help="also cProfile iceview's calls")
    args = parser.parse_args()

    from fixtures.rest_java import start_java_rest_server

    base = Path(tempfile.mkdtemp(prefix="iceview-bench-rest-"))
    server = start_java_rest_server(base / "server")
    java: JavaClient | None = None
    catalog: RestCatalog | None = None
    try:
        opened = load_catalog("bench", type="rest", uri=server.uri)
        assert isinstance(opened, RestCatalog)
        catalog = opened
        catalog.create_namespace(NAMESPACE)
        views = {"load": ("v_load_iceview", "v_load_java"), "replace": ("v_iceview", "v_java")}
        for name in (*views["load"], *views["replace"]):
            catalog.create_view(
                f"{NAMESPACE}.{name}",
                queries={"spark": "select 1 as id, 'x' as data"},
                schema=SCHEMA,
                default_namespace=(NAMESPACE,),
            )
        if args.delay_ms:
            for name in (*views["load"], *views["replace"]):
                for method, kind in (("HEAD", "tables"), ("GET", "views"), ("POST", "views")):
                    path = f"v1/namespaces/{NAMESPACE}/{kind}/{name}"
                    server.inject_fault(method, path, "delay", delay_ms=args.delay_ms, times=1 << 30)
        java = JavaClient(server.uri)
        counter = iter(range(1, 1 << 62))

        def sql() -> str:
            return f"select {next(counter)} as id, 'x' as data"

        cat = catalog
        jv = java
        ops: dict[str, dict[str, Callable[[], float | None]]] = {
            "load": {
                "iceview": lambda: cat.load_view(f"{NAMESPACE}.v_load_iceview") and None,
                "java": lambda: jv.call(f"load {NAMESPACE} v_load_java"),
            },
            "replace": {
                "iceview": lambda: (
                    cat.replace_view(
                        f"{NAMESPACE}.v_iceview",
                        queries={"spark": sql()},
                        schema=SCHEMA,
                        default_namespace=(NAMESPACE,),
                    )
                    and None
                ),
                "java": lambda: jv.call(f"replace {NAMESPACE} v_java {sql()}"),
            },
        }
        print(
            f"iceview RestCatalog vs Iceberg Java 1.10.2 RESTCatalog; server: Iceberg 1.10.2 CatalogHandlers "
            f"+ JdbcCatalog (SQLite) at {server.uri}, keep-alive in both clients; "
            f"{args.runs} interleaved rounds after {args.warmup} warm-up rounds; "
            f"server delay {args.delay_ms} ms per request (ms)\n"
        )
        header = f"{'op':<8} {'client':<8} {'p50':>7} {'p90':>7} {'server p50':>10} {'rest p50':>10}"
        print(header)
        summary: list[str] = []
        for op, fns in ops.items():
            time.sleep(0.2)  # let the server's log catch up
            log_start = server.log_path.stat().st_size
            times = interleaved(fns, args.runs, args.warmup)
            time.sleep(0.2)
            with open(server.log_path, "rb") as f:
                f.seek(log_start)
                log = f.read().decode("utf-8", errors="replace")
            p50: dict[str, float] = {}
            rest: dict[str, float] = {}
            for who, view in zip(("iceview", "java"), views[op], strict=True):
                total = times[who]
                p50[who] = statistics.median(total) * 1000
                server_part = server_times(log, MAIN_REQUEST[op], view, args.runs)
                if server_part is None:
                    split = f"{'-':>10} {'-':>10}"
                else:
                    rest[who] = (
                        statistics.median(t - s for t, s in zip(total, server_part, strict=True)) * 1000
                    )
                    split = f"{statistics.median(server_part) * 1000:>10.2f} {rest[who]:>10.2f}"
                print(f"{op:<8} {who:<8} {p50[who]:>7.2f} {nearest_rank(total, 0.9) * 1000:>7.2f} {split}")
            ratio = p50["iceview"] / p50["java"]
            verdict = "goal met" if ratio <= 1.0 else "goal NOT met"
            line = f"{op:<8} iceview/java = {ratio:.2f}x ({verdict}: <= 1.0)"
            if len(rest) == 2:
                line += f"; rest iceview/java = {rest['iceview'] / rest['java']:.2f}x"
            summary.append(line)
        print("\n" + "\n".join(summary))
        if args.profile:
            profile(args.profile, ops[args.profile]["iceview"], max(args.runs, 50))
    finally:
        if java is not None:
            java.close()
        if catalog is not None:
            catalog.close()
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
