#!/usr/bin/env python3
"""Benchmark: view commits on a SQLite catalog and on a Hive Metastore (not a test).

    .venv/bin/python bench/bench_catalog.py [--n 200] [--seconds 5] [--no-java] [--no-hms] [--json out.json]

Measures, on SQLite files in a temporary folder:

* commit latency, p50 and p95, of ``create_view``, ``View.replace_version`` and
  ``update_properties().set(...).commit()``;
* throughput (commits/s) with 1, 4 and 8 writer processes replacing one view;
* the floor: what any catalog must do per commit, a bare write of the same gzip metadata bytes to a
  new file plus one ``UPDATE ... WHERE metadata_location = ?`` committed with Python's sqlite3;
* Iceberg Java 1.10.2's ``JdbcCatalog`` doing the same creates, replaces and property updates on the
  same kind of SQLite file, timed inside the JVM (``System.nanoTime`` around each call, in a small
  Java class compiled here and run in the oracle's Spark session, see ``tests/fixtures``).

On a Hive Metastore (Hive 2.3.10 from PySpark 4's jars on Derby, ``tests/fixtures/hms_server.py``),
the same three operations by iceview's ``HiveCatalog`` (with the metastore's locks, and without:
its compare-and-swap) and by Iceberg Java's ``HiveCatalog`` on the same metastore, in the same run.

It prints the figures and the ratios iceview/floor and iceview/Java.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing as mp
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.types import IntegerType, NestedField  # noqa: E402

from iceview.catalog.sql import SqlCatalog  # noqa: E402

SCHEMA = Schema(NestedField(1, "id", IntegerType(), required=False), schema_id=0)
THROUGHPUT_PROPS = {
    "commit.retry.num-retries": "1000",
    "commit.retry.min-wait-ms": "5",
    "commit.retry.max-wait-ms": "200",
}


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(ms: list[float]) -> dict[str, float]:
    return {"p50": pct(ms, 0.5), "p95": pct(ms, 0.95), "mean": statistics.fmean(ms), "n": len(ms)}


def timed(fn: Callable[[int], Any], n: int, warmup: int) -> list[float]:
    for i in range(warmup):
        fn(-1 - i)
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t) * 1000)
    return out


def new_catalog(folder: Path, **props: str) -> SqlCatalog:
    folder.mkdir(parents=True, exist_ok=True)
    return SqlCatalog(
        "prod", uri=f"sqlite:///{folder}/catalog.db", warehouse=f"file://{folder}/warehouse", **props
    )


# ----------------------------------------------------------------------------- iceview latency


def bench_iceview(
    base: Path, n: int, warmup: int, catalog: Any = None, ns: str = "ns"
) -> dict[str, dict[str, float]]:
    catalog = catalog if catalog is not None else new_catalog(base / "iceview")
    catalog.create_namespace(ns)
    results: dict[str, dict[str, float]] = {}

    def create(i: int) -> None:
        catalog.create_view(
            f"{ns}.c{i + warmup}", schema=SCHEMA, queries={"spark": "SELECT 1 AS id"}, default_namespace=ns
        )

    results["create"] = summary(timed(create, n, warmup))
    view = catalog.create_view(
        f"{ns}.v", schema=SCHEMA, queries={"spark": "SELECT 0 AS id"}, default_namespace=ns
    )

    def replace(i: int) -> None:
        view.replace_version(schema=SCHEMA, queries={"spark": f"SELECT {i} AS id"}, default_namespace=ns)

    results["replace"] = summary(timed(replace, n, warmup))

    def set_properties(i: int) -> None:
        view.update_properties().set("k", f"v{i}").commit()

    results["set-properties"] = summary(timed(set_properties, n, warmup))
    catalog.close()
    return results


# ----------------------------------------------------------------------------- floor


def bench_floor(base: Path, n: int, warmup: int) -> dict[str, float]:
    """A bare write of the same metadata bytes (gzip) to a new file + one CAS UPDATE (sqlite3)."""
    catalog = new_catalog(base / "floor")
    catalog.create_namespace("ns")
    view = catalog.create_view(
        "ns.v", schema=SCHEMA, queries={"spark": "SELECT 0 AS id"}, default_namespace="ns"
    )
    for i in range(12):  # the same size as the replaced view above (10 versions retained)
        view.replace_version(schema=SCHEMA, queries={"spark": f"SELECT {i} AS id"}, default_namespace="ns")
    data = gzip.compress(view.metadata.to_json().encode(), mtime=0)
    location = str(view.metadata_location)
    catalog.close()
    folder = base / "floor" / "warehouse" / "ns" / "v" / "metadata"
    conn = sqlite3.connect(base / "floor" / "catalog.db")
    sql = (
        "UPDATE iceberg_tables SET metadata_location = ? , previous_metadata_location = ? WHERE catalog_name = ? "
        "AND table_namespace = ? AND table_name = ? AND metadata_location = ? AND iceberg_type = 'VIEW'"
    )
    state = {"loc": location}

    def commit(i: int) -> None:
        new = f"file://{folder}/{i + 100000:05d}-{uuid.uuid4()}.gz.metadata.json"
        with open(new[len("file://") :], "wb") as f:
            f.write(data)
        cur = conn.execute(sql, (new, state["loc"], "prod", "ns", "v", state["loc"]))
        conn.commit()
        assert cur.rowcount == 1
        state["loc"] = new

    out = summary(timed(commit, n, warmup))
    out["bytes"] = len(data)
    conn.close()
    return out


# ----------------------------------------------------------------------------- throughput


def _writer(uri: str, warehouse: str, writer: int, seconds: float, start_at: float, queue: Any) -> None:
    catalog = SqlCatalog("prod", uri=uri, warehouse=warehouse)
    view = catalog.load_view("ns.v")
    while time.time() < start_at:
        time.sleep(0.001)
    done = 0
    failed = 0
    end = start_at + seconds
    while time.time() < end:
        try:
            view.replace_version(
                schema=SCHEMA,
                queries={"spark": f"SELECT {writer * 1_000_000 + done} AS id"},
                default_namespace="ns",
            )
            done += 1
        except Exception:
            failed += 1
    queue.put((done, failed))
    catalog.close()


def bench_throughput(base: Path, writers: int, seconds: float) -> dict[str, float]:
    folder = base / f"throughput-{writers}"
    catalog = new_catalog(folder)
    catalog.create_namespace("ns")
    catalog.create_view(
        "ns.v",
        schema=SCHEMA,
        queries={"spark": "SELECT -1 AS id"},
        default_namespace="ns",
        properties=THROUGHPUT_PROPS,
    )
    uri, warehouse = catalog.properties["uri"], catalog.properties["warehouse"]
    catalog.close()
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    start_at = time.time() + 3.0
    procs = [
        ctx.Process(target=_writer, args=(uri, warehouse, w, seconds, start_at, queue))
        for w in range(writers)
    ]
    for p in procs:
        p.start()
    results = [queue.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    done = sum(r[0] for r in results)
    failed = sum(r[1] for r in results)
    return {"writers": writers, "commits": done, "failed": failed, "commits_per_s": done / seconds}


# ----------------------------------------------------------------------------- Iceberg Java

JAVA_SOURCE = r"""
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.View;

/** Times JdbcCatalog view commits inside the JVM (nanoseconds per call). */
public class IceviewBenchJdbc {
  static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.IntegerType.get()));

  public static long[] creates(ViewCatalog catalog, String ns, int n, int warmup) {
    long[] out = new long[n];
    for (int i = -warmup; i < n; i++) {
      TableIdentifier id = TableIdentifier.of(Namespace.of(ns), "c" + (i + warmup));
      long t = System.nanoTime();
      catalog.buildView(id).withSchema(SCHEMA).withQuery("spark", "SELECT 1 AS id")
          .withDefaultNamespace(Namespace.of(ns)).create();
      if (i >= 0) out[i] = System.nanoTime() - t;
    }
    return out;
  }

  public static long[] replaces(ViewCatalog catalog, String ns, String name, int n, int warmup) {
    View view = catalog.loadView(TableIdentifier.of(Namespace.of(ns), name));
    long[] out = new long[n];
    for (int i = -warmup; i < n; i++) {
      long t = System.nanoTime();
      view.replaceVersion().withQuery("spark", "SELECT " + i + " AS id").withSchema(SCHEMA)
          .withDefaultNamespace(Namespace.of(ns)).commit();
      if (i >= 0) out[i] = System.nanoTime() - t;
    }
    return out;
  }

  public static long[] setProperties(ViewCatalog catalog, String ns, String name, int n, int warmup) {
    View view = catalog.loadView(TableIdentifier.of(Namespace.of(ns), name));
    long[] out = new long[n];
    for (int i = -warmup; i < n; i++) {
      long t = System.nanoTime();
      view.updateProperties().set("k", "v" + i).commit();
      if (i >= 0) out[i] = System.nanoTime() - t;
    }
    return out;
  }
}
"""

JAVA_SCRIPT = r"""
import sys
from fixtures.java_session import emit, java_catalog, script_spark

n, warmup = int(sys.argv[1]), int(sys.argv[2])
spark = script_spark()
spark.sql("CREATE NAMESPACE prod.ns")
spark.sql("CREATE VIEW prod.ns.v AS SELECT 0 AS id")
catalog = java_catalog(spark, "prod")
bench = spark._jvm.IceviewBenchJdbc
out = {}
out["create"] = [x / 1e6 for x in bench.creates(catalog, "ns", n, warmup)]
out["replace"] = [x / 1e6 for x in bench.replaces(catalog, "ns", "v", n, warmup)]
out["set-properties"] = [x / 1e6 for x in bench.setProperties(catalog, "ns", "v", n, warmup)]
emit(out)
"""


def bench_java(
    base: Path, n: int, warmup: int, conf: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    """Iceberg Java's creates, replaces and property updates on Spark catalog ``prod``: a
    ``JdbcCatalog`` on a new SQLite file, or the catalog ``conf`` configures."""
    from fixtures.java_session import catalog_conf, run_java_script, spark_jars, sqlite_uri

    classes = base / "java-classes"
    classes.mkdir(exist_ok=True)
    source = classes / "IceviewBenchJdbc.java"
    source.write_text(JAVA_SOURCE)
    jars = spark_jars()
    subprocess.run(
        ["javac", "-nowarn", "-d", str(classes), "-cp", os.pathsep.join(jars), str(source)],
        check=True,
        capture_output=True,
    )
    bench_jar = base / "iceview-bench-jdbc.jar"
    with zipfile.ZipFile(bench_jar, "w") as jar:
        jar.write(classes / "IceviewBenchJdbc.class", "IceviewBenchJdbc.class")
    if conf is None:
        folder = base / "java"
        folder.mkdir()
        conf = catalog_conf("prod", sqlite_uri(folder / "catalog.db"), folder / "warehouse")
    conf = {**conf, "spark.jars": str(bench_jar)}  # Iceberg's runtime comes through spark.jars.packages
    raw = run_java_script(JAVA_SCRIPT, str(n), str(warmup), conf=conf, timeout=900)
    return {op: summary(ms) for op, ms in raw.items()}


# ----------------------------------------------------------------------------- Hive Metastore


def bench_hms(base: Path, n: int, warmup: int, java: bool) -> dict[str, Any]:
    """iceview's HiveCatalog (locks, and lock-free) and Java's HiveCatalog on one metastore."""
    from fixtures.hms_server import HIVE_VERSION, start_hms
    from iceview.catalog.hive import HiveCatalog

    server = start_hms(base / "hms")
    out: dict[str, Any] = {"hive": HIVE_VERSION}
    try:
        warehouse = (base / "hms-warehouse").as_uri()
        with HiveCatalog("prod", uri=server.uri, warehouse=warehouse) as catalog:
            out["iceview"] = bench_iceview(base, n, warmup, catalog, "ice")
        lock_free = {"iceberg.engine.hive.lock-enabled": "false"}
        with HiveCatalog("prod", uri=server.uri, warehouse=warehouse, **lock_free) as catalog:
            out["iceview lock-free"] = bench_iceview(base, n, warmup, catalog, "icefree")
        if java:
            prefix = "spark.sql.catalog.prod"
            conf = {
                prefix: "org.apache.iceberg.spark.SparkCatalog",
                f"{prefix}.type": "hive",
                f"{prefix}.uri": server.uri,
                f"{prefix}.warehouse": warehouse,
                f"{prefix}.cache-enabled": "false",
            }
            try:
                out["java"] = bench_java(base, n, warmup, conf)
            except Exception as e:  # the oracle is optional for the benchmark
                out["java_error"] = f"{type(e).__name__}: {e}"
    finally:
        server.stop()
    return out


def print_hms(hms: dict[str, Any]) -> None:
    print(f"on a Hive {hms['hive']} metastore (Derby), iceview's HiveCatalog against Java's, same run:")
    print(
        f"{'operation':<16}{'mode':<11}{'iceview p50':>13}{'p95':>9}{'java p50':>11}{'p95':>9}{'ratio p50':>11}"
    )
    java = hms.get("java", {})
    for mode, key in (("locks", "iceview"), ("lock-free", "iceview lock-free")):
        for op in ("create", "replace", "set-properties"):
            ours = hms[key][op]
            line = f"{op:<16}{mode:<11}{ours['p50']:>10.2f} ms{ours['p95']:>6.2f} ms"
            if op in java and mode == "locks":
                j = java[op]
                line += f"{j['p50']:>8.2f} ms{j['p95']:>6.2f} ms{ours['p50'] / j['p50']:>10.2f}x"
            print(line)
    if "java_error" in hms:
        print(f"Iceberg Java anchor not measured: {hms['java_error']}")


# ----------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=200, help="timed commits per operation")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each throughput run")
    parser.add_argument("--no-java", action="store_true", help="skip the Iceberg Java anchor")
    parser.add_argument("--no-hms", action="store_true", help="skip the Hive Metastore")
    parser.add_argument("--only-hms", action="store_true", help="only the Hive Metastore part")
    parser.add_argument("--json", help="also write the results as JSON to this file")
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="iceview-bench-"))
    results: dict[str, Any] = {
        "n": args.n,
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
    }
    try:
        if args.only_hms:
            results["hms"] = bench_hms(base, args.n, args.warmup, not args.no_java)
            print_hms(results["hms"])
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=2))
            return
        results["iceview"] = bench_iceview(base, args.n, args.warmup)
        results["floor"] = bench_floor(base, args.n, args.warmup)
        results["throughput"] = [bench_throughput(base, w, args.seconds) for w in (1, 4, 8)]
        if not args.no_java:
            try:
                results["java"] = bench_java(base, args.n, args.warmup)
            except Exception as e:  # the oracle is optional for the benchmark
                results["java_error"] = f"{type(e).__name__}: {e}"
        if not args.no_hms:
            results["hms"] = bench_hms(base, args.n, args.warmup, not args.no_java)
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print(f"iceview catalog benchmark on SQLite {results['sqlite']} (Python {results['python']}), n={args.n}")
    print()
    print(
        f"{'operation':<16}{'iceview p50':>13}{'p95':>9}{'java p50':>11}{'p95':>9}{'ratio p50':>11}{'ratio p95':>11}"
    )
    java = results.get("java", {})
    for op in ("create", "replace", "set-properties"):
        ours = results["iceview"][op]
        line = f"{op:<16}{ours['p50']:>10.2f} ms{ours['p95']:>6.2f} ms"
        if op in java:
            j = java[op]
            line += f"{j['p50']:>8.2f} ms{j['p95']:>6.2f} ms{ours['p50'] / j['p50']:>10.2f}x{ours['p95'] / j['p95']:>10.2f}x"
        print(line)
    floor = results["floor"]
    print(
        f"{'floor':<16}{floor['p50']:>10.2f} ms{floor['p95']:>6.2f} ms   "
        f"(bare write of {floor['bytes']} gzip bytes + one UPDATE)"
    )
    replace = results["iceview"]["replace"]
    print(
        f"replace / floor: p50 {replace['p50'] / floor['p50']:.2f}x, p95 {replace['p95'] / floor['p95']:.2f}x"
    )
    if "java_error" in results:
        print(f"Iceberg Java anchor not measured: {results['java_error']}")
    print()
    print("throughput, writers replacing one view (retry min-wait 5 ms):")
    for t in results["throughput"]:
        print(
            f"  {t['writers']} writer(s): {t['commits_per_s']:7.1f} commits/s ({t['commits']} commits, {t['failed']} gave up)"
        )
    if "hms" in results:
        print()
        print_hms(results["hms"])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
