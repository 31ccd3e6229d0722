"""The iceview REST catalog server demo: one catalog, every client.

What it does, on an embedded SQLite catalog that it creates fresh each run:

1. starts ``iceview serve`` on it (loopback, a free port) and waits for its one line;
2. starts local Spark 3.5 with Iceberg's own REST catalog (``type=rest``) pointing at the server,
   and Iceberg's SQL extensions, so Spark makes views natively (no iceview code in Spark);
3. creates the Iceberg table ``rest.default.events`` and fills it, through the server;
4. runs the view spec's Appendix A natively in Spark: ``CREATE OR REPLACE VIEW event_agg``, then the
   replace from ``USE rest.other_db`` with the fully qualified table name; queries the view,
   ``SHOW VIEWS``, ``ALTER VIEW ... SET TBLPROPERTIES``;
5. reads the view Spark wrote with PyIceberg's ``RestCatalog`` and with the ``iceview`` command
   (``show`` and ``history``, through iceview's REST client);
6. stops the server with SIGTERM.

Run: ``bash scripts/demo.sh --serve`` (sets everything up first), or ``.venv/bin/python
examples/serve_demo.py [--warehouse DIR]`` after ``bash scripts/setup.sh``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import iceview
from iceview.spark import local_session

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pipeline import CREATE, REPLACE, run_cli, say, step  # the same Appendix A


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--warehouse", default="demo-serve", help="where the served catalog lives (reset each run)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    warehouse = Path(args.warehouse).resolve()
    shutil.rmtree(warehouse, ignore_errors=True)
    warehouse.mkdir(parents=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    served = {"type": "sql", "uri": f"sqlite:///{warehouse}/catalog.db", "warehouse": f"file://{warehouse}"}
    # "store": the SQL catalog the server serves; "prod": the same catalog as its clients see it
    env = {
        **os.environ,
        **{f"PYICEBERG_CATALOG__STORE__{k.upper()}": v for k, v in served.items()},
        "PYICEBERG_CATALOG__PROD__TYPE": "rest",
        "PYICEBERG_CATALOG__PROD__URI": url,
    }

    step("1. iceview serve on an embedded SQLite catalog")
    server = subprocess.Popen(
        [sys.executable, "-m", "iceview.cli", "--catalog", "store", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        say(f"$ iceview --catalog store serve --port {port}")
        say(f"  {server.stdout.readline().strip()}")

        step("2. Spark with Iceberg's REST catalog on it (Iceberg-Spark's own views)")
        catalog = iceview.load_catalog("prod", type="rest", uri=url)
        spark = local_session(catalog, name="rest")
        spark.sparkContext.setLogLevel("ERROR")
        say(f"Spark {spark.version}; catalog 'rest' = Iceberg RESTCatalog at {url}")

        step("3. An Iceberg table of events, through the server")
        spark.sql("CREATE NAMESPACE IF NOT EXISTS rest.default")
        spark.sql("CREATE NAMESPACE IF NOT EXISTS rest.other_db")
        spark.sql(
            "CREATE TABLE rest.default.events (event_id BIGINT, event_ts TIMESTAMP_NTZ, kind STRING) USING iceberg"
        )
        spark.sql(
            "INSERT INTO rest.default.events VALUES "
            "(1, TIMESTAMP_NTZ '2026-11-20 08:00:00', 'view'), (2, TIMESTAMP_NTZ '2026-11-20 09:30:00', 'click'), "
            "(3, TIMESTAMP_NTZ '2026-11-21 10:00:00', 'view'), (4, TIMESTAMP_NTZ '2026-11-21 23:59:59', 'view'), "
            "(5, TIMESTAMP_NTZ '2026-11-22 00:00:00', 'click')"
        )
        say("rest.default.events: 5 events over 3 days")

        step("4. The spec's Appendix A, natively in Spark")
        spark.sql("USE rest.default")
        spark.sql(CREATE)
        spark.sql("USE rest.other_db")
        spark.sql(REPLACE.replace("prod.default.events", "rest.default.events"))
        rows = spark.sql(
            "SELECT event_date, event_count FROM rest.default.event_agg ORDER BY event_date"
        ).collect()
        say("rows: " + ", ".join(f"{r[0]}: {r[1]}" for r in rows))
        say(
            "SHOW VIEWS IN rest.default: "
            + ", ".join(r[1] for r in spark.sql("SHOW VIEWS IN rest.default").collect())
        )
        spark.sql("ALTER VIEW rest.default.event_agg SET TBLPROPERTIES ('team' = 'data-eng')")
        say("ALTER VIEW rest.default.event_agg SET TBLPROPERTIES ('team' = 'data-eng')")

        step("5. The same view, read by PyIceberg and by the iceview command")
        from pyiceberg.catalog.rest import RestCatalog

        pyiceberg = RestCatalog("prod", uri=url)
        pv = pyiceberg.load_view("default.event_agg")
        current = next(v for v in pv.metadata.versions if v.version_id == pv.metadata.current_version_id)
        sql = current.representations[0].root.sql  # PyIceberg's representations are root models
        say(
            f"PyIceberg: version {current.version_id}, namespace {current.default_namespace}, {sql.split()[-4:]}"
        )
        run_cli(env, "show", "default.event_agg")
        run_cli(env, "history", "default.event_agg")
        spark.stop()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    step(f"Done in {time.monotonic() - started:.0f} s; the server stopped (exit code {server.returncode})")
    return 0 if server.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
