#!/usr/bin/env python3
"""Spark 4's native SQL functions against iceview's inlined UDF text, on PySpark 4.0 (classic, local).

iceview runs a catalog SQL UDF in Spark 3.5 by inlining its body into the query text: a call
``add_one(i)`` of ``add_one(x int) returns int = x + 1`` becomes
``CAST((CAST((i) AS INT) + 1) AS INT)``; with ``on-null-input: return-null`` the body is wrapped in
``CASE WHEN (i) IS NULL THEN NULL ELSE (<body>) END``. Spark 4 has SQL functions of its own
(``CREATE [TEMPORARY] FUNCTION f(x INT) RETURNS INT RETURN x + 1``). In one Spark session, on a
cached temporary view ``t`` of N rows (``id bigint, i int, x double, d decimal(10,2), s string``, with
NULLs), this measures for each function, three ways interleaved in a new random order each round:

* ``anchor``: the plain expression, no function at all (``i + 1``);
* ``inline``: iceview's inlined text (built here the way ``iceview.sql.inline`` writes it);
* ``native``: the same function made with ``CREATE TEMPORARY FUNCTION ... RETURN ...``;

(a) planning: ``spark.sql(q)`` (classic Spark analyses eagerly) and the executed plan
    (``df._jdf.queryExecution().executedPlan()``: optimisation and physical planning), no job runs;
(b) execution: ``SELECT sum(hash(<expr>)) FROM t`` (one row out), the plan made before the clock starts.

The functions: int ``x + 1``; string, two parameters, ``concat(coalesce(s, '∅'), ':', CAST(n AS STRING))``;
decimal with return-null (Spark 4.0 refuses ``RETURNS NULL ON NULL INPUT``, so the native body carries the
same ``CASE WHEN``); a nested one (``add_two`` calls ``add_one`` twice); and twenty calls in one query.
Then it prints the semantic checks (argument casts, overflow with ANSI on and off, the SQL settings a
function keeps from its creation), which forms of SQL functions Spark 4 accepts, and where persistent
ones are stored: in a child process, the Hive Metastore (embedded Derby) across two JVMs, and with
``--iceberg-version`` (needs Maven Central) an Iceberg catalog and Iceberg's SQL extensions.

It does not import iceview and needs PySpark 4 in an environment of its own, and Java 17 or 21
(``JAVA_HOME``; if unset, a JDK 17 or 21 under /usr/lib/jvm is taken)::

    python3 -m venv /tmp/spark4venv && /tmp/spark4venv/bin/pip install 'pyspark>=4.0,<4.1'
    /tmp/spark4venv/bin/python bench/bench_spark4_functions.py [--rows 1000000] [--runs 7] [--warmup 2]
        [--plan-runs 40] [--plan-warmup 10] [--iceberg-version 1.10.2] [--skip-catalogs]
"""

from __future__ import annotations

import argparse
import glob
import logging
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# --------------------------------------------------------------------------- the functions


@dataclass(frozen=True)
class Fn:
    """A SQL UDF: ``body(call, *params)`` writes the body, calling other functions through ``call``."""

    name: str
    params: tuple[tuple[str, str], ...]
    returns: str
    body: Callable[..., str]
    return_null: bool = False

    def create(self, *, temporary: bool = True) -> str:
        """``CREATE TEMPORARY FUNCTION`` of the function (return-null as a ``CASE WHEN`` in the body)."""
        names = [p for p, _ in self.params]
        body = self.body(native_call, *names)
        if self.return_null:
            body = f"CASE WHEN {' OR '.join(f'{p} IS NULL' for p in names)} THEN NULL ELSE ({body}) END"
        params = ", ".join(f"{p} {t}" for p, t in self.params)
        kind = "TEMPORARY FUNCTION" if temporary else "FUNCTION"
        return f"CREATE OR REPLACE {kind} {self.name}({params}) RETURNS {self.returns} RETURN {body}"


def native_call(fn: Fn, *args: str) -> str:
    return f"{fn.name}({', '.join(args)})"


def inline_call(fn: Fn, *args: str) -> str:
    """The text iceview writes for ``fn(args)``: each parameter replaced by ``CAST((arg) AS type)``,
    calls in the body inlined too, return-null as ``CASE WHEN``, the whole cast to the return type."""
    casts = [f"CAST(({a}) AS {t})" for a, (_, t) in zip(args, fn.params, strict=True)]
    body = fn.body(inline_call, *casts)
    if fn.return_null and args:
        body = f"CASE WHEN {' OR '.join(f'({a}) IS NULL' for a in args)} THEN NULL ELSE ({body}) END"
    return f"CAST(({body}) AS {fn.returns})"


ADD_ONE = Fn("add_one", (("x", "INT"),), "INT", lambda call, x: f"{x} + 1")
LABEL = Fn(
    "label",
    (("n", "INT"), ("s", "STRING")),
    "STRING",
    lambda call, n, s: f"concat(coalesce({s}, '∅'), ':', CAST({n} AS STRING))",
)
SCALE = Fn(
    "scale",
    (("v", "DECIMAL(10,2)"),),
    "DECIMAL(10,2)",
    lambda call, v: f"coalesce({v}, 0.00) * 2 + 1",
    return_null=True,
)
ADD_TWO = Fn("add_two", (("x", "INT"),), "INT", lambda call, x: call(ADD_ONE, call(ADD_ONE, x)))
FUNCTIONS = (ADD_ONE, LABEL, SCALE, ADD_TWO)


@dataclass(frozen=True)
class Case:
    label: str
    anchor: str
    inline: str
    native: str


def cases() -> list[Case]:
    many = range(20)
    return [
        Case("int x + 1", "i + 1", inline_call(ADD_ONE, "i"), native_call(ADD_ONE, "i")),
        Case(
            "string, 2 params",
            "concat(coalesce(s, '∅'), ':', CAST(i AS STRING))",
            inline_call(LABEL, "i", "s"),
            native_call(LABEL, "i", "s"),
        ),
        Case("decimal return-null", "d * 2 + 1", inline_call(SCALE, "d"), native_call(SCALE, "d")),
        Case("nested add_two", "i + 2", inline_call(ADD_TWO, "i"), native_call(ADD_TWO, "i")),
        Case(
            "20 calls add_one",
            ", ".join(f"i + {k} + 1" for k in many),
            ", ".join(inline_call(ADD_ONE, f"i + {k}") for k in many),
            ", ".join(native_call(ADD_ONE, f"i + {k}") for k in many),
        ),
    ]


WAYS = ("anchor", "inline", "native")

# --------------------------------------------------------------------------- session


def java_home() -> str:
    """``JAVA_HOME``, or a JDK 17 or 21 under /usr/lib/jvm (Spark 4 needs one of them)."""
    if os.environ.get("JAVA_HOME"):
        return os.environ["JAVA_HOME"]
    for version in ("17", "21"):
        for path in sorted(glob.glob(f"/usr/lib/jvm/*{version}*")):
            if os.path.exists(os.path.join(path, "bin", "java")):
                os.environ["JAVA_HOME"] = path
                return path
    raise SystemExit("no JDK 17 or 21 found: set JAVA_HOME")


def session(base: str, conf: dict[str, str] | None = None, *, hive: bool = False) -> Any:
    from pyspark.sql import SparkSession

    java_home()
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("bench_spark4_functions")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", os.path.join(base, "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={base}")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    if hive:
        builder = builder.config(
            "javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={base}/metastore_db;create=true"
        ).enableHiveSupport()
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):  # expected errors, logged again
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)
    return spark


def attempt(spark: Any, sql: str, limit: int = 4) -> str:
    """The rows of ``sql`` (at most ``limit``) or the error's class and first line, shortly."""
    try:
        rows = spark.sql(sql).collect()
    except Exception as e:  # the error is the result
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        return f"ERROR {type(e).__name__}: {first[:150]}"
    shown = [row[0] if len(row) == 1 else tuple(row) for row in rows[:limit]]
    return repr(shown[0]) if len(shown) == 1 else repr(shown)


# --------------------------------------------------------------------------- timing


def interleaved(
    fns: dict[tuple[str, str], Callable[[], float]], runs: int, warmup: int
) -> dict[tuple[str, str], float]:
    """Median (ms) of each function's own time, after ``warmup`` rounds, all functions interleaved
    in a new random order each round (JIT warm-up and load drift touch every way alike)."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times: dict[tuple[str, str], list[float]] = {k: [] for k in fns}
    order = list(fns)
    rng = random.Random(42)
    for _ in range(runs):
        rng.shuffle(order)
        for k in order:
            times[k].append(fns[k]())
    return {k: statistics.median(v) * 1000 for k, v in times.items()}


def plan_timer(spark: Any, sql: str) -> Callable[[], float]:
    def run() -> float:
        t = time.perf_counter()
        spark.sql(sql)._jdf.queryExecution().executedPlan()
        return time.perf_counter() - t

    return run


def exec_timer(spark: Any, sql: str, results: dict[str, Any]) -> Callable[[], float]:
    def run() -> float:
        df = spark.sql(sql)
        df._jdf.queryExecution().executedPlan()
        t = time.perf_counter()
        rows = df.collect()
        elapsed = time.perf_counter() - t
        results[sql] = rows[0][0]
        return elapsed

    return run


def make_table(spark: Any, rows: int) -> None:
    df = spark.range(0, rows, 1, 2).selectExpr(
        "id",
        "CAST(IF(id % 17 = 0, NULL, id % 100000) AS INT) AS i",
        "IF(id % 19 = 0, NULL, id * 0.5D) AS x",
        "CAST(IF(id % 13 = 0, NULL, (id % 1000000) / 100) AS DECIMAL(10,2)) AS d",
        "IF(id % 11 = 0, NULL, concat('s', CAST(id % 1000 AS STRING))) AS s",
    )
    df.cache()
    df.count()
    df.createOrReplaceTempView("t")


def benchmark(spark: Any, args: argparse.Namespace) -> None:
    all_cases = cases()
    plan_q = {(c.label, w): f"SELECT {getattr(c, w)} FROM t" for c in all_cases for w in WAYS}
    exec_q = {(c.label, w): f"SELECT sum(hash({getattr(c, w)})) FROM t" for c in all_cases for w in WAYS}
    plan = interleaved({k: plan_timer(spark, q) for k, q in plan_q.items()}, args.plan_runs, args.plan_warmup)
    results: dict[str, Any] = {}
    run = interleaved({k: exec_timer(spark, q, results) for k, q in exec_q.items()}, args.runs, args.warmup)

    print(
        f"\n== timing: median ms; planning of {args.plan_runs} runs after {args.plan_warmup}, "
        f"execution of {args.runs} runs after {args.warmup}; x = ratio to the anchor"
    )
    print(
        f"{'function':<21} {'way':<7} {'plan ms':>8} {'x':>6} {'exec ms':>8} {'x':>6}  same result as inline"
    )
    for c in all_cases:
        p0, e0 = plan[(c.label, "anchor")], run[(c.label, "anchor")]
        inline_result = results[exec_q[(c.label, "inline")]]
        for w in WAYS:
            p, e = plan[(c.label, w)], run[(c.label, w)]
            same = "yes" if results[exec_q[(c.label, w)]] == inline_result else "NO"
            name = c.label if w == "anchor" else ""
            print(f"{name:<21} {w:<7} {p:>8.2f} {p / p0:>5.2f}x {e:>8.1f} {e / e0:>5.2f}x  {same}")
        ratio_p = plan[(c.label, "native")] / plan[(c.label, "inline")]
        ratio_e = run[(c.label, "native")] / run[(c.label, "inline")]
        print(f"{'':<21} {'nat/inl':<7} {ratio_p:>14.2f}x {ratio_e:>14.2f}x")

    print("\n== optimized plans of the nested call (native, then inline)")
    for w in ("native", "inline"):
        q = exec_q[("nested add_two", w)]
        print(spark.sql(q)._jdf.queryExecution().optimizedPlan().toString().rstrip())


# --------------------------------------------------------------------------- semantics


SEMANTIC_PROBES: list[tuple[str, Fn, tuple[str, ...], str]] = [
    # what, function, argument texts, FROM clause
    ("BIGINT 7 -> INT param", ADD_ONE, ("a",), "VALUES (7L) AS v(a)"),
    ("BIGINT 5000000000 -> INT param", ADD_ONE, ("a",), "VALUES (5000000000L) AS v(a)"),
    ("INT 2147483647 (x + 1 overflows)", ADD_ONE, ("a",), "VALUES (2147483647) AS v(a)"),
    ("decimal literal 2.7 -> INT", ADD_ONE, ("2.7",), ""),
    ("decimal literal -2.7 -> INT", ADD_ONE, ("-2.7",), ""),
    ("DOUBLE 1e10 -> INT", ADD_ONE, ("1e10",), ""),
    ("STRING '12' -> INT", ADD_ONE, ("'12'",), ""),
    ("STRING 'abc' -> INT", ADD_ONE, ("'abc'",), ""),
    ("BOOLEAN TRUE -> INT", ADD_ONE, ("TRUE",), ""),
    ("DATE -> INT", ADD_ONE, ("DATE'2020-01-01'",), ""),
    ("label(1.5, 2): INT, STRING params", LABEL, ("1.5", "2"), ""),
    ("label(i, NULL)", LABEL, ("3", "NULL"), ""),
    ("scale(1.005): rounding to (10,2)", SCALE, ("1.005",), ""),
    ("scale(99999999.99): return overflows", SCALE, ("99999999.99",), ""),
    ("scale(5000.00): return fits", SCALE, ("5000.00",), ""),
    ("scale(123456789012.5): arg overflows", SCALE, ("123456789012.5",), ""),
    ("scale(NULL): return-null", SCALE, ("CAST(NULL AS DECIMAL(10,2))",), ""),
]


def outcome(result: str) -> str:
    """A result, or of an error its class and condition only (the messages quote different texts)."""
    return result.split("]")[0] if result.startswith("ERROR") else result


def semantics(spark: Any) -> None:
    print("\n== semantics: native function (created with ANSI on, the Spark 4 default) vs inlined text")
    for ansi in ("true", "false"):
        spark.conf.set("spark.sql.ansi.enabled", ansi)
        print(f"-- session spark.sql.ansi.enabled={ansi}")
        for what, fn, args, source in SEMANTIC_PROBES:
            tail = f" FROM {source}" if source else ""
            native = attempt(spark, f"SELECT {native_call(fn, *args)}{tail}")
            inline = attempt(spark, f"SELECT {inline_call(fn, *args)}{tail}")
            mark = "  " if outcome(native) == outcome(inline) else "!="
            print(f"{mark} {what:<38} native: {native}\n{'':<41} inline: {inline}")
    spark.conf.set("spark.sql.ansi.enabled", "true")

    print("\n-- a function keeps the SQL settings of its creation:")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    spark.sql("CREATE OR REPLACE TEMPORARY FUNCTION lax_one(x INT) RETURNS INT RETURN x + 1")
    spark.sql(SCALE.create().replace(" scale(", " lax_scale("))
    # ANSI off on both sides: the native NULL check sees the cast argument, the inlined one the raw text
    for sql in (
        "SELECT lax_scale(123456789012.5)",
        f"SELECT {inline_call(SCALE, '123456789012.5')}",
    ):
        print(f"   (made and run with ANSI off) {sql}\n      -> {attempt(spark, sql)}")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    for sql in (
        "SELECT lax_one(a) FROM VALUES (2147483647) AS v(a)",
        "SELECT lax_one(a) FROM VALUES (5000000000L) AS v(a)",
        "SELECT CAST((CAST((a) AS INT) + 1) AS INT) FROM VALUES (5000000000L) AS v(a)",
    ):
        print(f"   (made with ANSI off, run with ANSI on) {sql}\n      -> {attempt(spark, sql)}")
    spark.sql(ADD_ONE.create(temporary=False))
    usage = [r[0] for r in spark.sql("DESCRIBE FUNCTION EXTENDED spark_catalog.default.add_one").collect()]
    kept = [u for u in usage if "sqlConfig" in u]
    print(f"   DESCRIBE FUNCTION EXTENDED (persistent add_one): {kept[0][:400] if kept else usage}")
    spark.sql("DROP FUNCTION spark_catalog.default.add_one")


FORMS = [
    "CREATE TEMPORARY FUNCTION f_scalar(x INT) RETURNS INT RETURN x + 1",
    "SELECT f_scalar(1)",
    "CREATE FUNCTION f_persistent(x INT) RETURNS INT RETURN x + 1",
    "SELECT f_persistent(1), spark_catalog.default.f_persistent(2)",
    "CREATE TEMPORARY FUNCTION f_noreturns(x INT) RETURN x * 2.5",
    "SELECT f_noreturns(2)",
    "CREATE TEMPORARY FUNCTION f_dflt(x INT, y INT DEFAULT 10) RETURNS INT RETURN x + y",
    "SELECT f_dflt(1), f_dflt(1, 2), f_dflt(y => 3, x => 1)",
    "CREATE TEMPORARY FUNCTION f_char(x INT) RETURNS INT LANGUAGE SQL DETERMINISTIC CONTAINS SQL "
    "COMMENT 'c' RETURN x + 1",
    "CREATE TEMPORARY FUNCTION f_nd(x INT) RETURNS DOUBLE NOT DETERMINISTIC RETURN x + rand()",
    "CREATE TEMPORARY FUNCTION f_rnn(x INT) RETURNS INT RETURNS NULL ON NULL INPUT RETURN x + 1",
    "CREATE TEMPORARY FUNCTION f_py(x INT) RETURNS INT LANGUAGE PYTHON AS $$ return x $$",
    "CREATE TEMPORARY FUNCTION f_scalar(x BIGINT) RETURNS BIGINT RETURN x + 2",
    "CREATE TEMPORARY FUNCTION default.f_q(x INT) RETURNS INT RETURN x",
    "CREATE TEMPORARY FUNCTION f_subq(x INT) RETURNS BIGINT RETURN (SELECT max(id) FROM t) + x",
    "SELECT f_subq(1)",
    "CREATE FUNCTION f_p_temp(x INT) RETURNS INT RETURN f_scalar(x)",
    "CREATE TEMPORARY FUNCTION f_tvf(n INT) RETURNS TABLE (a INT, b STRING) RETURN SELECT n + 1, 'x'",
    "SELECT * FROM f_tvf(3)",
    "SELECT v.k, f.* FROM VALUES (1), (2) AS v(k), LATERAL f_tvf(v.k) f",
    "CREATE TEMPORARY FUNCTION f_tvf_nocols(n INT) RETURNS TABLE RETURN SELECT n AS z",
    "SELECT * FROM f_tvf_nocols(3)",
    "CREATE FUNCTION f_tvf_p(n INT) RETURNS TABLE (a INT) RETURN SELECT n * 10",
    "SELECT * FROM f_tvf_p(3)",
    "SHOW USER FUNCTIONS",
]


def forms(spark: Any) -> None:
    print(f"\n== forms (spark_catalog is {spark.conf.get('spark.sql.catalogImplementation')})")
    for sql in FORMS:
        print(f"   {sql}\n      -> {attempt(spark, sql, 20)}")
    for name in ("f_persistent", "f_tvf_p"):
        spark.sql(f"DROP FUNCTION IF EXISTS spark_catalog.default.{name}")


# --------------------------------------------------------------------------- child processes


def child(args: list[str]) -> int:
    """A separate JVM: ``hive-create DIR``, ``hive-read DIR`` or ``iceberg VERSION EXT DIR``; prints ``> `` lines."""
    mode, base = args[0], args[-1]
    if mode in ("hive-create", "hive-read"):
        spark = session(base, hive=True)
        print(f"> catalogImplementation={spark.conf.get('spark.sql.catalogImplementation')}")
        steps = (
            ["CREATE FUNCTION default.h_add(x INT) RETURNS INT RETURN x + 1"]
            if mode == "hive-create"
            else ["SELECT default.h_add(41)", "SHOW USER FUNCTIONS"]
        )
    else:
        version, ext = args[1], args[2] == "1"
        conf = {
            "spark.jars.packages": f"org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:{version}",
            "spark.jars.ivy": os.path.join(base, "ivy"),
            "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.ice.type": "hadoop",
            "spark.sql.catalog.ice.warehouse": os.path.join(base, "ice"),
        }
        if ext:
            conf["spark.sql.extensions"] = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
        spark = session(base, conf)
        print(f"> Iceberg {version}, IcebergSparkSessionExtensions {'on' if ext else 'off'}")
        steps = [
            "CREATE NAMESPACE IF NOT EXISTS ice.db",
            "CREATE FUNCTION ice.db.f(x INT) RETURNS INT RETURN x + 1",
            "CREATE TEMPORARY FUNCTION tf(x INT) RETURNS INT RETURN x + 1",
            "SELECT tf(1)",
            "CREATE FUNCTION spark_catalog.default.pf(x INT) RETURNS INT RETURN x + 1",
            "SELECT spark_catalog.default.pf(1)",
        ]
    for sql in steps:
        print(f">    {sql}\n>       -> {attempt(spark, sql)}")
    spark.stop()
    return 0


def run_child(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    lines = [line[2:] for line in done.stdout.splitlines() if line.startswith("> ")]
    for line in lines:
        print(f"   {line}")
    if done.returncode != 0 or not lines:
        print(f"   (child exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]})")


def catalogs(base: str, iceberg_version: str | None) -> None:
    print("\n== persistent functions: Hive Metastore (embedded Derby), created in one JVM, read in another")
    hive = os.path.join(base, "hive")
    os.makedirs(hive, exist_ok=True)
    run_child("hive-create", hive)
    run_child("hive-read", hive)
    if iceberg_version:
        for ext in ("0", "1"):
            print(f"\n== Iceberg catalog (type hadoop), extensions {'on' if ext == '1' else 'off'}")
            ice = os.path.join(base, f"ice{ext}")
            os.makedirs(ice, exist_ok=True)
            run_child("iceberg", iceberg_version, ext, ice)


# --------------------------------------------------------------------------- main


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7, help="execution runs per way (median)")
    parser.add_argument("--warmup", type=int, default=2, help="execution warm-up rounds")
    parser.add_argument("--plan-runs", type=int, default=40, help="planning runs per way (median)")
    parser.add_argument("--plan-warmup", type=int, default=10)
    parser.add_argument(
        "--iceberg-version",
        help="also try an Iceberg catalog with iceberg-spark-runtime-4.0_2.13:<version> (from Maven)",
    )
    parser.add_argument("--skip-catalogs", action="store_true", help="no child JVMs (Hive, Iceberg)")
    args = parser.parse_args()

    base = tempfile.mkdtemp(prefix="bench-spark4-functions-")
    started = time.perf_counter()
    spark = session(base)
    jvm = spark.sparkContext._jvm
    print(
        f"PySpark {spark.version}, Java {jvm.System.getProperty('java.version')} "
        f"({java_home()}), Python {platform.python_version()}, local[2], "
        f"ANSI {spark.conf.get('spark.sql.ansi.enabled')}, {args.rows:,} rows cached"
    )
    make_table(spark, args.rows)
    for fn in FUNCTIONS:
        spark.sql(fn.create())
    print("\n== functions (native DDL; the inlined text of one call)")
    for fn in FUNCTIONS:
        print(f"   {fn.create()}")
    for c in cases()[:4]:
        print(f"   {c.label}: {c.native} => {c.inline}")

    benchmark(spark, args)
    semantics(spark)
    forms(spark)
    spark.stop()
    if not args.skip_catalogs:
        catalogs(base, args.iceberg_version)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
