"""Cost curves: how each cost grows as a catalog grows (issue 30).

Each curve measures some operations at sizes of one kind of growth, and prints for every operation
its median time at each size, the ratio to its own smallest size, where one exists the ratio to an
anchor measured in the same run, and the shape of the growth: ``constant``, ``logarithmic``
(grows, but much slower than the size), ``linear`` or ``super-linear`` (see :func:`growth`). Each
operation also has the shape its work calls for; one that grows faster than that is a defect, and
the line says so (``OVER``).

Curves (``CURVES``: each in a module of its own, sharing ``scale_common``):

* ``views`` (``scale_catalog``): views per namespace, 10 to 100,000, in a SQL catalog on SQLite
  (and on PostgreSQL with ``--postgres URL``) and through ``iceview serve`` on the same SQLite
  file. The views that are loaded and committed are made through the catalog; the rest of the
  namespace is filled with pointer rows inserted straight into the catalog's table (bound
  parameters), each naming the metadata file of a real view, so that the size is the number of
  views the catalog holds, not the time it takes to make them. Operations: ``list`` (the whole namespace, one call), ``first page``
  (100 names), ``walk`` (every page of 100), ``load`` and ``commit`` (a property set on one view).
  Anchor: PyIceberg's ``RestCatalog.list_views`` through the same server.
* ``versions`` (``scale_catalog``): retained versions per view, 1 to 10,000
  (``version.history.num-entries`` raised). The view's file is written as a writer that keeps
  that many versions writes it, then registered.
  Operations: ``file size``, ``parse`` (``ViewMetadata.from_json`` of the file's bytes; anchor:
  ``orjson.loads`` of them), ``load`` (through the catalog, no cache), ``replace`` and
  ``rollback``.
* ``clients`` (``scale_concurrency``): concurrent clients, 1 to 64 processes, each committing
  through the SQL catalog on one SQLite file (and on PostgreSQL with ``--postgres URL``), all on
  one view and each on a view of its own: commits per second, p99 commit latency, and none lost.
* ``servers`` (``scale_concurrency``): ``iceview serve`` processes, 1 to 4, on one PostgreSQL
  database (a fresh one on ``--postgres URL``'s server, else on a throwaway server), driven by a
  fixed pool of client processes over HTTP: the same figures as ``clients``.
* ``depth`` (``scale_depth``): views nested 1 to 50 deep: planning a query through the chain with
  SparkViews, against Iceberg-Spark's own resolution (the anchor) and the expanded query inline
  (Spark 3.5 classic with Iceberg's runtime, on a SQLite catalog).

A new curve is a module with a function ``curve(settings: Settings) -> list[str]`` (see
``scale_common``) and one line in ``CURVES``.

Run: .venv/bin/python bench/bench_scale.py [--quick] [--curve NAME]... [--postgres URL]
``--quick`` uses small sizes and few repetitions (under a minute; CI runs it as a smoke test); its
sizes are too small to judge shapes by, so only the full run exits 1 when an operation is ``OVER``.
A lost commit (``clients``, ``servers``) makes any run exit 1.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

# run as a script, this folder is sys.path[0]; loaded by path (tests/bench), it is not yet
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale_catalog
import scale_concurrency
import scale_depth
from scale_common import ORDER, Curve, Fatal, Operation, Settings, growth, median_time, over, report

__all__ = ["CURVES", "ORDER", "Operation", "growth", "main", "median_time", "over", "report"]

CURVES: dict[str, Curve] = {
    "views": scale_catalog.views,
    "versions": scale_catalog.versions,
    "clients": scale_concurrency.clients,
    "servers": scale_concurrency.servers,
    "depth": scale_depth.depth,
}
"""Every curve, in the order a full run measures them. Each client process of the concurrency
curves runs this script's imports again (multiprocessing's spawn): a curve module keeps its heavy
imports (Spark, iceview) inside its functions."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repetitions (smoke test)")
    parser.add_argument("--curve", choices=list(CURVES), action="append", help="only these curves")
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="also measure views and clients on this PostgreSQL (SQLAlchemy URL); clients and servers "
        "run in fresh databases created on its server (and dropped after)",
    )
    args = parser.parse_args(argv)
    curves = [name for name in CURVES if name in (args.curve or CURVES)]
    # a SIGTERM unwinds like an error: the servers and PostgreSQL a curve started are stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    started = time.monotonic()
    print(
        f"# bench_scale {'--quick ' if args.quick else ''}{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.2f}"
    )
    defects: list[str] = []
    with tempfile.TemporaryDirectory(prefix="iceview-bench-scale-") as tmp:
        for name in curves:
            at = time.monotonic()
            defects += CURVES[name](Settings(quick=args.quick, postgres=args.postgres, base=Path(tmp) / name))
            print(f"({name}: {time.monotonic() - at:.0f} s)")
    print(f"\n{len(defects)} defect(s)" + (":" if defects else "."))
    for line in defects:
        print(f"  {line}")
    print(f"done in {time.monotonic() - started:.0f} s")
    # --quick's sizes are too small to judge a shape by: it only shows that every curve runs; a lost
    # commit is a defect at any size
    fatal = any(isinstance(line, Fatal) for line in defects)
    return 1 if fatal or (defects and not args.quick) else 0


if __name__ == "__main__":
    sys.exit(main())
