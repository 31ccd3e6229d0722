#!/usr/bin/env python3
"""Start-up of the ``iceview`` command against PyIceberg's ``pyiceberg`` command (not a test).

Both list the namespace of one embedded SQLite catalog (a fresh one, with a few views and tables,
configured for both through ``PYICEBERG_CATALOG__BENCH__*``), as whole processes through their
installed scripts; the anchor, ``pyiceberg list``, runs in the same rounds, interleaved with
iceview's commands in a new random order each round:

* ``iceview --version``: goal under 0.1 s;
* ``iceview -c bench list default`` and ``iceview -c bench show default.v0``: goal under 0.25 s;
* ``pyiceberg --catalog bench list default``: the anchor;
* the floor: a Python that only imports the libraries ``list`` is built on (:data:`FLOOR`).

It prints the median and the spread of each command's wall time and its ratio to the anchor, with
the load average before and after (the machine may be shared).

    .venv/bin/python bench/bench_startup.py [--rounds 15] [--before OLD_CHECKOUT/src]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _catalog(root: Path) -> dict[str, str]:
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    from iceview.catalog.sql import SqlCatalog

    uri = f"sqlite:///{root}/catalog.db"
    warehouse = f"file://{root}/warehouse"
    catalog = SqlCatalog("bench", uri=uri, warehouse=warehouse)
    catalog.create_namespace("default")
    schema = Schema(
        NestedField(1, "id", LongType(), required=False), NestedField(2, "s", StringType(), required=False)
    )
    for k in range(5):
        catalog.create_view(
            f"default.v{k}",
            schema=schema,
            queries={"spark": f"SELECT id, s FROM t{k}"},
            default_namespace="default",
        )
    catalog.close()
    return {
        "PYICEBERG_CATALOG__BENCH__TYPE": "sql",
        "PYICEBERG_CATALOG__BENCH__URI": uri,
        "PYICEBERG_CATALOG__BENCH__WAREHOUSE": warehouse,
    }


FLOOR = "import sqlalchemy, pyiceberg.utils.config, click, rich.console, rich.table"
"""The libraries ``iceview list`` on a SQL catalog needs: SQLAlchemy (the catalog), PyIceberg's
configuration reader (which loads pydantic), click and rich (the command line)."""


def _time(command: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also run iceview's commands from another source tree (e.g. a git worktree of an older "
        "commit, its src/ folder) in the same rounds, as 'before: ...'",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # .pyc files as an installed package has them (pip compiles at install): the warm-up
        # writes them, which PYTHONDONTWRITEBYTECODE (set on some machines) would prevent
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("PYICEBERG_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env = {**env, **_catalog(root), "HOME": str(root)}
        commands = {
            "iceview --version": [str(BIN / "iceview"), "--version"],
            "iceview list": [str(BIN / "iceview"), "-c", "bench", "list", "default"],
            "iceview show": [str(BIN / "iceview"), "-c", "bench", "show", "default.v0"],
            "pyiceberg list (anchor)": [str(BIN / "pyiceberg"), "--catalog", "bench", "list", "default"],
            # what list cannot do without: Python importing the libraries it is built on
            "floor: the imports of list": [sys.executable, "-c", FLOOR],
        }
        environments = {name: env for name in commands}
        if args.before:
            for name in [n for n in commands if n.startswith("iceview")]:
                commands[f"before: {name}"] = commands[name]
                environments[f"before: {name}"] = {**env, "PYTHONPATH": str(Path(args.before).resolve())}
        print(f"load average before: {os.getloadavg()}")
        times: dict[str, list[float]] = {name: [] for name in commands}
        for name, command in commands.items():  # warm-up: page cache, .pyc files
            _time(command, environments[name], root)
        for _ in range(args.rounds):
            order = list(commands)
            random.shuffle(order)
            for name in order:
                times[name].append(_time(commands[name], environments[name], root))
        anchor = statistics.median(times["pyiceberg list (anchor)"])
        print(f"{'command':36} {'median s':>9} {'min s':>7} {'max s':>7} {'ratio':>7}")
        for name, values in times.items():
            median = statistics.median(values)
            print(f"{name:36} {median:9.3f} {min(values):7.3f} {max(values):7.3f} {median / anchor:7.2f}")
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
