"""The Trino demo: Spark and Trino share Iceberg views through one catalog.

What it does, on an embedded SQLite catalog that it creates fresh each run:

1. starts ``iceview serve`` on it, and Trino 476 on the server (``scripts/trino.sh run --rest``, in
   the background while Spark starts). The catalog has one name everywhere, ``iceview_rest``: Trino's
   name for it, Spark's and iceview's; the catalog property ``iceview.trino.catalog-name`` tells
   iceview's translations what Trino calls it (``docs/translation.md``, "Catalog names");
2. Spark, with Iceberg's own REST catalog, creates the table ``iceview_rest.default.events`` and runs
   the view spec's Appendix A (``CREATE OR REPLACE VIEW event_agg``, then the replace), as in
   ``examples/serve_demo.py``;
3. ``iceview add-dialect default.event_agg trino`` gives the view Trino SQL translated from its Spark
   SQL; Trino runs the view, and the demo compares Trino's rows with Spark's;
4. Trino runs ``CREATE VIEW kinds`` (an aggregate, NULL-safe ``coalesce`` and ``IS DISTINCT FROM``,
   non-ASCII text); ``iceview add-dialect default.kinds spark`` translates it; Spark reads the view,
   and the demo compares the rows again;
5. stops Trino and the server, also when something failed.

It exits with 1 when the engines disagree.

Run: ``bash scripts/demo.sh --trino`` (sets everything up and fetches Trino first), or ``.venv/bin/python
examples/trino_demo.py [--warehouse DIR]`` after ``bash scripts/setup.sh`` and ``bash scripts/trino.sh
fetch``. Trino 476 needs Java 24 or newer (``docs/trino.md``).

:class:`IceviewServe` and :class:`TrinoRun` start the two servers; ``bench/bench_trino.py`` uses them too.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pipeline import CREATE, REPLACE, say, step  # the same Appendix A
from serve_demo import free_port

ROOT = Path(__file__).resolve().parents[1]
CATALOG = "iceview_rest"
"""The catalog's name in Trino (``scripts/trino.sh run --rest`` gives the REST catalog this name), and
so also in Spark and iceview: the SQL that one engine writes names a catalog the other one knows."""
TRINO_CATALOG_NAME = "iceview.trino.catalog-name"
TRINO_START_TIMEOUT = 900.0
"""Seconds to wait for Trino's ready line: the wrapper fetches Trino first when it is missing (a
515 MiB download) and gives up on a start after 240 s itself."""
_READY = re.compile(r"Trino (\d+) on (http://\S+) .*started in ([\d.]+) s")

EVENTS = (
    "INSERT INTO iceview_rest.default.events VALUES "
    "(1, TIMESTAMP_NTZ '2026-11-20 08:00:00', 'view'), (2, TIMESTAMP_NTZ '2026-11-20 09:30:00', 'click'), "
    "(3, TIMESTAMP_NTZ '2026-11-21 10:00:00', 'view'), (4, TIMESTAMP_NTZ '2026-11-21 11:00:00', NULL), "
    "(5, TIMESTAMP_NTZ '2026-11-21 12:15:00', 'café ☕'), (6, TIMESTAMP_NTZ '2026-11-22 07:45:00', 'view')"
)
AGG_QUERY = "SELECT event_date, event_count FROM iceview_rest.default.event_agg ORDER BY event_date"
KINDS_VIEW = """CREATE VIEW kinds COMMENT 'Événements par type' AS
SELECT
    coalesce(kind, 'sans catégorie') AS kind,
    count(*) AS events,
    count(DISTINCT CAST(event_ts AS DATE)) AS days,
    sum(CASE WHEN kind IS DISTINCT FROM 'view' THEN 1 ELSE 0 END) AS not_views
FROM events
GROUP BY coalesce(kind, 'sans catégorie')"""
KINDS_QUERY = "SELECT kind, events, days, not_views FROM iceview_rest.default.kinds ORDER BY kind"


def die_with_parent() -> None:
    """In a child before exec: SIGTERM when this process dies (Linux ``prctl(PR_SET_PDEATHSIG)``),
    so that no server outlives the demo, even when the demo is killed."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def _yaml_catalogs(catalogs: Mapping[str, Mapping[str, str]]) -> str:
    lines = ["catalog:"]
    for name, properties in catalogs.items():
        lines.append(f"  {name}:")
        # a JSON string is a double-quoted YAML scalar
        lines.extend(f"    {key}: {json.dumps(value)}" for key, value in properties.items())
    return "\n".join(lines) + "\n"


class IceviewServe:
    """``iceview serve`` on a fresh embedded SQLite catalog in ``warehouse``, on a free loopback port.

    The configuration is ``warehouse/.pyiceberg.yaml`` (:attr:`env` points ``PYICEBERG_HOME`` at it),
    because a catalog property with dots in its name cannot be written as an environment variable.
    Catalog ``store`` is the SQL catalog the server serves; catalog :data:`CATALOG` is the same
    catalog through the server, as its clients see it. Both get ``properties``. ``args`` are more
    options of ``iceview serve`` (``--access-log``), ``stderr`` where its log goes (default: here)."""

    def __init__(
        self,
        warehouse: Path,
        properties: Mapping[str, str] | None = None,
        *,
        args: Sequence[str] = (),
        stderr: Any = None,
    ) -> None:
        self.warehouse = warehouse
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        self.properties = dict(properties or {})
        served = {
            "type": "sql",
            "uri": f"sqlite:///{warehouse}/catalog.db",
            "warehouse": f"file://{warehouse}",
        }
        client = {"type": "rest", "uri": self.url}
        (warehouse / ".pyiceberg.yaml").write_text(
            _yaml_catalogs({"store": {**served, **self.properties}, CATALOG: {**client, **self.properties}}),
            encoding="utf-8",
        )
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PYICEBERG_")}
        self.env["PYICEBERG_HOME"] = str(warehouse)
        self.command = ["iceview", "--catalog", "store", "serve", "--port", str(port), *args]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "iceview.cli", *self.command[1:]],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            preexec_fn=die_with_parent,
        )
        assert self.process.stdout is not None
        self.banner = self.process.stdout.readline().strip()  # once it answers: "listening on URL"
        if not self.banner:
            self.stop()
            raise RuntimeError(f"iceview serve did not start (exit code {self.process.returncode})")

    def catalog(self) -> Any:
        """iceview's REST client catalog :data:`CATALOG` on the server."""
        import iceview

        return iceview.load_catalog(CATALOG, type="rest", uri=self.url, **self.properties)

    def stop(self) -> int:
        """SIGTERM (a clean stop), SIGKILL after 30 s; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


class TrinoRun:
    """Trino on a REST catalog: ``bash scripts/trino.sh run --rest URI --workdir DIR`` as a child
    process, with its one catalog :data:`CATALOG`. :meth:`wait` waits for the line the script prints
    once Trino runs ``SELECT 1``; :meth:`stop` stops it as Ctrl-C does."""

    def __init__(self, rest_uri: str, workdir: Path) -> None:
        self.command = ["bash", "scripts/trino.sh", "run", "--rest", rest_uri, "--workdir", str(workdir)]
        self.lines: list[str] = []
        self.uri = ""
        self.version = ""
        self.start_seconds = 0.0
        self._ready = threading.Event()
        self.process = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "trino.sh"), *self.command[2:]],
            env={**os.environ, "PYTHON": sys.executable},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=die_with_parent,
        )
        # the script reports on stderr; read it all along, so that it never blocks on a full pipe
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip())
            m = _READY.search(line)
            if m and not self._ready.is_set():
                self.version, self.uri, self.start_seconds = m.group(1), m.group(2), float(m.group(3))
                self._ready.set()
        self._ready.set()  # the script ended: wait() sees it did not start

    def wait(self, timeout: float = TRINO_START_TIMEOUT) -> TrinoRun:
        """Block until Trino runs queries; raise with the script's output if it cannot start."""
        if not self._ready.wait(timeout) or not self.uri:
            self.stop()
            output = "\n".join(self.lines[-40:])
            raise RuntimeError(f"Trino did not start ({' '.join(self.command)}):\n{output}")
        return self

    def connect(self) -> Any:
        """A DB-API connection (the ``trino`` package) to catalog :data:`CATALOG`, schema ``default``."""
        import trino.dbapi

        host, port = self.uri.removeprefix("http://").rsplit(":", 1)
        return trino.dbapi.connect(
            host=host, port=int(port), user="iceview", catalog=CATALOG, schema="default"
        )

    def stop(self) -> int:
        """SIGINT, as Ctrl-C: the script stops Trino (SIGTERM, SIGKILL after 20 s) and exits; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.terminate()  # Trino gets SIGTERM from its parent's death (PR_SET_PDEATHSIG)
                self.process.wait()
        return self.process.returncode


def query(connection: Any, sql: str) -> list[tuple[Any, ...]]:
    """One Trino statement's rows, as tuples. Just after start-up Trino may answer
    NO_NODES_AVAILABLE while its one node registers; that is retried for up to 30 s."""
    deadline = time.monotonic() + 30
    while True:
        cursor = connection.cursor()
        try:
            cursor.execute(sql)
            return [tuple(r) for r in cursor.fetchall()]
        except Exception as e:
            if "NO_NODES_AVAILABLE" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def run_cli(env: dict[str, str], *args: str) -> str:
    """Run the ``iceview`` command on catalog :data:`CATALOG` as a user would, and show what it printed."""
    command = [sys.executable, "-m", "iceview.cli", "--catalog", CATALOG, *args]
    say(f"$ iceview --catalog {CATALOG} {' '.join(args)}")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    output = (done.stdout + done.stderr).rstrip()
    for line in output.splitlines():
        print(f"     {line}")
    if done.returncode != 0:
        raise SystemExit(f"iceview {args[0]} failed with exit code {done.returncode}")
    return output


def show_sql(view: Any) -> None:
    """Each SQL representation of the view's current version, on one line."""
    view.refresh()
    for rep in view.current_version.representations:
        say(f"{rep.dialect:6s} {' '.join(rep.sql.split())}")


def rows_text(rows: Sequence[Sequence[Any]]) -> str:
    return "; ".join(", ".join(str(v) for v in row) for row in rows)


def compare(spark_rows: Sequence[Sequence[Any]], trino_rows: Sequence[Sequence[Any]]) -> bool:
    """Print both row sets; whether they are equal (as sets of rows: the order is not compared)."""
    say(f"Spark: {rows_text(spark_rows)}")
    say(f"Trino: {rows_text(trino_rows)}")
    same = sorted(map(tuple, spark_rows), key=repr) == sorted(map(tuple, trino_rows), key=repr)
    say("Spark and Trino agree." if same else "Spark and Trino DISAGREE.")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--warehouse", default="demo-trino", help="where the served catalog lives (reset each run)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    warehouse = Path(args.warehouse).resolve()
    shutil.rmtree(warehouse, ignore_errors=True)
    warehouse.mkdir(parents=True)

    step("1. iceview serve on an embedded SQLite catalog, and Trino 476 on the server")
    serve = IceviewServe(warehouse, {TRINO_CATALOG_NAME: CATALOG})
    trino: TrinoRun | None = None
    spark: Any = None
    try:
        say(f"$ {' '.join(serve.command)}")
        say(f"  {serve.banner}")
        trino = TrinoRun(serve.url.rstrip("/"), warehouse / "trino")
        say(f"$ {' '.join(trino.command)}   (starting in the background)")
        say(f"catalog {CATALOG!r} in Trino, Spark and iceview; {TRINO_CATALOG_NAME}={CATALOG}")

        step("2. Spark: the events table and the spec's Appendix A view")
        from iceview.spark import local_session

        # packages=False: the jars from iceview's cache, without Ivy's report on every start
        spark = local_session(serve.catalog(), name=CATALOG, packages=False)
        spark.sparkContext.setLogLevel("ERROR")
        say(f"Spark {spark.version}; catalog {CATALOG!r} = Iceberg RESTCatalog at {serve.url}")
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.default")
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.other_db")
        spark.sql(
            f"CREATE TABLE {CATALOG}.default.events (event_id BIGINT, event_ts TIMESTAMP_NTZ, kind STRING) "
            "USING iceberg"
        )
        spark.sql(EVENTS)
        say(f"{CATALOG}.default.events: 6 events over 3 days, one kind NULL, one 'café ☕'")
        spark.sql(f"USE {CATALOG}.default")
        spark.sql(CREATE)
        spark.sql(f"USE {CATALOG}.other_db")
        spark.sql(REPLACE.replace("prod.default.events", f"{CATALOG}.default.events"))
        say(f"CREATE OR REPLACE VIEW event_agg ..., then from USE {CATALOG}.other_db the replace")
        spark_agg = [tuple(r) for r in spark.sql(AGG_QUERY).collect()]

        step("3. iceview translates the view for Trino, and Trino runs it")
        run_cli(serve.env, "add-dialect", "default.event_agg", "trino")
        show_sql(serve.catalog().load_view("default.event_agg"))
        trino.wait()
        say(f"Trino {trino.version} on {trino.uri}, started in {trino.start_seconds:.0f} s")
        connection = trino.connect()
        say(AGG_QUERY)
        same = compare(spark_agg, query(connection, AGG_QUERY))

        step("4. Trino creates a view; iceview translates it for Spark, and Spark runs it")
        query(connection, KINDS_VIEW)
        say(" ".join(KINDS_VIEW.split()))
        run_cli(serve.env, "add-dialect", "default.kinds", "spark")
        show_sql(serve.catalog().load_view("default.kinds"))
        say(KINDS_QUERY)
        spark_kinds = [tuple(r) for r in spark.sql(KINDS_QUERY).collect()]
        same = compare(spark_kinds, query(connection, KINDS_QUERY)) and same
        connection.close()
    finally:
        if spark is not None:
            spark.stop()
        trino_code = trino.stop() if trino is not None else None
        serve_code = serve.stop()
    step(
        f"Done in {time.monotonic() - started:.0f} s; Trino stopped (exit code {trino_code}), "
        f"the server stopped (exit code {serve_code})"
    )
    say(f"The catalog is in {warehouse}; its configuration in {warehouse / '.pyiceberg.yaml'}")
    return 0 if same and trino_code == 0 and serve_code == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
