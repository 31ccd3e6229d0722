"""Cost curves: how each cost grows as a catalog grows (issue 30).

Each curve measures some operations at sizes of one kind of growth, and prints for every operation
its median time at each size, the ratio to its own smallest size, where one exists the ratio to an
anchor measured in the same run, and the shape of the growth: ``constant``, ``logarithmic``
(grows, but much slower than the size), ``linear`` or ``super-linear`` (see :func:`growth`). Each
operation also has the shape its work calls for; one that grows faster than that is a defect, and
the line says so (``OVER``).

Curves (this file; the others of issue 30 follow):

* ``views``: views per namespace, 10 to 100,000, in a SQL catalog on SQLite (and on PostgreSQL
  with ``--postgres URL``) and through ``iceview serve`` on the same SQLite file. The views that
  are loaded and committed are made through the catalog; the rest of the namespace is filled with
  pointer rows inserted straight into the catalog's table (bound parameters), each naming the
  metadata file of a real view, so that the size is the number of views the catalog holds, not the
  time it takes to make them. Operations: ``list`` (the whole namespace, one call), ``first page``
  (100 names), ``walk`` (every page of 100), ``load`` and ``commit`` (a property set on one view).
  Anchor: PyIceberg's ``RestCatalog.list_views`` through the same server.
* ``versions``: retained versions per view, 1 to 10,000 (``version.history.num-entries`` raised).
  The view's file is written as a writer that keeps that many versions writes it, then registered.
  Operations: ``file size``, ``parse`` (``ViewMetadata.from_json`` of the file's bytes; anchor:
  ``orjson.loads`` of them), ``load`` (through the catalog, no cache), ``replace`` and
  ``rollback``.

Run: .venv/bin/python bench/bench_scale.py [--quick] [--curve views|versions] [--postgres URL]
``--quick`` uses small sizes and few repetitions (under a minute; CI runs it as a smoke test); its
sizes are too small to judge shapes by, so only the full run exits 1 when an operation is ``OVER``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
PAGE = 100


# ----------------------------------------------------------------------------------------- shapes
def growth(sizes: Sequence[float], times: Sequence[float]) -> str:
    """The shape of ``times`` as ``sizes`` grow: the slope ``k`` of log(time) against log(size)
    over the larger half of the sizes (where fixed costs weigh least), and the overall ratio.

    * ``constant``: the largest size costs at most 1.5x the smallest;
    * ``linear``: 0.7 <= k <= 1.3; ``super-linear``: k > 1.3;
    * ``logarithmic``: anything between (grows, much slower than the size).
    """
    if len(sizes) != len(times) or len(sizes) < 2:
        raise ValueError("growth needs two sizes or more, with a time for each")
    if max(times[-1], times[0]) <= 1.5 * min(times[0], times[-1]) or times[-1] <= times[0]:
        return "constant"
    half = max(2, (len(sizes) + 1) // 2)
    xs = [math.log(s) for s in sizes[-half:]]
    ys = [math.log(max(t, 1e-12)) for t in times[-half:]]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    if k > 1.3:
        return "super-linear"
    if k >= 0.7:
        return "linear"
    return "logarithmic"


ORDER = ["constant", "logarithmic", "linear", "super-linear"]


def over(shape: str, expected: str) -> bool:
    """Whether ``shape`` grows faster than ``expected``."""
    return ORDER.index(shape) > ORDER.index(expected)


@dataclass
class Operation:
    """One operation of a curve: its times (s) by size, the shape its work calls for, an anchor."""

    name: str
    expected: str
    unit: str = "ms"
    values: dict[int, float] = field(default_factory=dict)
    anchor: dict[int, float] = field(default_factory=dict)
    anchor_name: str = ""
    from_size: int = 0
    """The shape is judged from this size on (a page of 100 names is not full below 100 views)."""


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def report(title: str, sizes: Sequence[int], operations: Sequence[Operation]) -> list[str]:
    """Print a curve's table; the operations that grow faster than their work."""
    print(f"\n## {title}")
    print(f"{'operation':<22}" + "".join(f"{n:>11,}" for n in sizes) + "   x smallest  shape (expected)")
    defects = []
    for op in operations:
        measured = [n for n in sizes if n in op.values]
        values = [op.values[n] for n in measured]
        scale = 1000.0 if op.unit == "ms" else 1.0
        cells = "".join(f"{op.values[n] * scale:>11.2f}" if n in op.values else f"{'-':>11}" for n in sizes)
        judged = [n for n in measured if n >= op.from_size]
        shape = growth(judged, [op.values[n] for n in judged]) if len(judged) >= 2 else "-"
        flag = ""
        if shape != "-" and over(shape, op.expected):
            flag = "  OVER"
            defects.append(f"{title}: {op.name} grows {shape}, its work {op.expected}")
        ratio = values[-1] / values[0] if values and values[0] else float("nan")
        print(f"{op.name + ' (' + op.unit + ')':<22}{cells}   {ratio:>9.1f}x  {shape} ({op.expected}){flag}")
        if op.anchor:
            ratios = "".join(
                f"{op.values[n] / op.anchor[n]:>11.2f}" if n in op.anchor else f"{'-':>11}" for n in sizes
            )
            print(f"{'  / ' + op.anchor_name:<22}{ratios}")
    return defects


# ------------------------------------------------------------------------------ views per namespace
SCHEMA_JSON = {
    "type": "struct",
    "schema-id": 0,
    "fields": [{"id": 1, "name": "id", "required": False, "type": "int"}],
}


def _schema() -> Any:
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField

    return Schema(NestedField(1, "id", IntegerType(), required=False), schema_id=0)


def fill(engine: Any, catalog_name: str, namespace: str, start: int, stop: int, location: str) -> None:
    """Pointer rows ``f{i:07d}`` for ``start <= i < stop``, each naming ``location``."""
    from sqlalchemy import text

    insert = text(
        "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
        "previous_metadata_location, iceberg_type) VALUES (:c, :n, :t, :m, NULL, 'VIEW')"
    )
    rows = [{"c": catalog_name, "n": namespace, "t": f"f{i:07d}", "m": location} for i in range(start, stop)]
    with engine.begin() as conn:
        for at in range(0, len(rows), 10_000):
            conn.execute(insert, rows[at : at + 10_000])


def views_curve(sizes: Sequence[int], repeat: int, postgres: str | None, base: Path) -> list[str]:
    from iceview.catalog.sql import SqlCatalog

    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures.iceview_serve import SERVED, start_iceview_server

    defects: list[str] = []
    stores = {"SQLite": f"sqlite:///{base}/views/catalog.db"}
    if postgres:
        stores["PostgreSQL"] = postgres
    (base / "views").mkdir(parents=True)
    for store, url in stores.items():
        name = SERVED  # the name iceview serve gives the catalog: the rows it reads
        warehouse = base / "views" / "warehouse"
        catalog = SqlCatalog(name, uri=url, warehouse=warehouse.as_uri())
        ns = "ns_" + uuid.uuid4().hex[:6]
        catalog.create_namespace(ns)
        real = [
            catalog.create_view(
                (ns, f"r{i}"), schema=_schema(), queries={"spark": "SELECT 1 AS id"}, default_namespace=(ns,)
            )
            for i in range(3)
        ]
        location = real[0].metadata_location
        assert location is not None
        engine = catalog.engine  # type: ignore[attr-defined]
        server = None
        if store == "SQLite":
            server = start_iceview_server(base / "views", db_url=url)
        ops = {
            "list": Operation("list", "linear"),
            "first page": Operation("first page", "constant", from_size=PAGE),
            "walk": Operation("walk", "linear"),
            "load": Operation("load", "constant"),
            "commit": Operation("commit", "constant"),
        }
        rest_ops: dict[str, Operation] = {}
        if server is not None:
            rest_ops = {
                "serve list": Operation("serve list", "linear", anchor_name="PyIceberg list"),
                "serve first page": Operation("serve first page", "constant", from_size=PAGE),
                "serve walk": Operation("serve walk", "linear"),
            }
        filled = len(real)
        try:
            for size in sizes:
                fill(engine, name, ns, filled, size, location)
                filled = max(filled, size)
                sql_ops_measure(ops, catalog, ns, size, repeat)
                if server is not None:
                    rest_ops_measure(rest_ops, server, ns, size, repeat)
        finally:
            if server is not None:
                server.stop()
            catalog.close()
        defects += report(f"views per namespace: SQL catalog on {store}", sizes, list(ops.values()))
        if rest_ops:
            defects += report(
                f"views per namespace: iceview serve on {store}", sizes, list(rest_ops.values())
            )
    return defects


def sql_ops_measure(ops: dict[str, Operation], catalog: Any, ns: str, size: int, repeat: int) -> None:
    def walk() -> int:
        count, after = 0, None
        while True:
            page = catalog.list_views_page(ns, after=after, limit=PAGE)
            count += len(page.identifiers)
            if not page.more:
                return count
            after = page.identifiers[-1][-1]

    assert walk() == size
    n = iter(range(10**9))
    ops["list"].values[size] = median_time(lambda: catalog.list_views(ns), repeat)
    ops["first page"].values[size] = median_time(
        lambda: catalog.list_views_page(ns, after=None, limit=PAGE), repeat
    )
    ops["walk"].values[size] = median_time(walk, repeat)
    ops["load"].values[size] = median_time(lambda: catalog.load_view((ns, "r1")), repeat)
    ops["commit"].values[size] = median_time(
        lambda: catalog.load_view((ns, "r2")).update_properties().set("k", str(next(n))).commit(), repeat
    )


def rest_ops_measure(ops: dict[str, Operation], server: Any, ns: str, size: int, repeat: int) -> None:
    import requests
    from pyiceberg.catalog.rest import RestCatalog

    session = requests.Session()
    url = f"{server.uri}v1/namespaces/{ns}/views"

    def get(params: dict[str, str]) -> dict[str, Any]:
        answer = session.get(url, params=params, timeout=120)
        answer.raise_for_status()
        return answer.json()  # type: ignore[no-any-return]

    def walk() -> int:
        count, token = 0, ""
        while True:
            doc = get({"pageToken": token, "pageSize": str(PAGE)})
            count += len(doc["identifiers"])
            token = doc.get("next-page-token", "")
            if not token:
                return count

    assert walk() == size
    pyiceberg = RestCatalog("anchor", uri=server.uri)
    assert len(pyiceberg.list_views(ns)) == size
    ops["serve list"].values[size] = median_time(lambda: get({}), repeat)
    ops["serve list"].anchor[size] = median_time(lambda: pyiceberg.list_views(ns), repeat)
    ops["serve first page"].values[size] = median_time(
        lambda: get({"pageToken": "", "pageSize": str(PAGE)}), repeat
    )
    ops["serve walk"].values[size] = median_time(walk, max(1, repeat // 2))
    session.close()


# --------------------------------------------------------------------------- versions per view
def metadata_with_versions(n: int, location: str) -> dict[str, Any]:
    """A view's metadata with ``n`` retained versions (and its log), as a writer that keeps ``n``
    (``version.history.num-entries``) leaves it after ``n`` replaces."""
    ts = 1_700_000_000_000
    versions = [
        {
            "version-id": i,
            "timestamp-ms": ts + i,
            "schema-id": 0,
            "summary": {"engine-name": "spark", "engine-version": "3.5.9"},
            "representations": [{"type": "sql", "sql": f"SELECT {i} AS id", "dialect": "spark"}],
            "default-namespace": ["ns"],
        }
        for i in range(1, n + 1)
    ]
    return {
        "view-uuid": str(uuid.uuid4()),
        "format-version": 1,
        "location": location,
        "properties": {"version.history.num-entries": str(n + 1000)},
        "schemas": [SCHEMA_JSON],
        "current-version-id": n,
        "versions": versions,
        "version-log": [{"timestamp-ms": ts + i, "version-id": i} for i in range(1, n + 1)],
    }


def versions_curve(sizes: Sequence[int], repeat: int, base: Path) -> list[str]:
    from iceview.catalog.sql import SqlCatalog

    root = base / "versions"
    root.mkdir(parents=True)
    catalog = SqlCatalog(
        "versions", uri=f"sqlite:///{root}/catalog.db", warehouse=(root / "warehouse").as_uri()
    )
    catalog.create_namespace("ns")
    ops = {
        "file size": Operation("file size", "linear", unit="KiB"),
        "parse": Operation("parse", "linear", anchor_name="orjson.loads"),
        "load": Operation("load", "linear"),
        "replace": Operation("replace", "linear"),
        "rollback": Operation("rollback", "linear"),
    }
    try:
        for size in sizes:
            versions_measure(ops, catalog, root, size, repeat)
    finally:
        catalog.close()
    return report("retained versions per view: SQL catalog on SQLite", sizes, list(ops.values()))


def versions_measure(ops: dict[str, Operation], catalog: Any, root: Path, size: int, repeat: int) -> None:
    from iceview.spec import ViewMetadata

    view_location = (root / "warehouse" / "ns" / f"v{size}").as_uri()
    folder = root / "warehouse" / "ns" / f"v{size}" / "metadata"
    folder.mkdir(parents=True)
    data = orjson.dumps(metadata_with_versions(size, view_location))
    path = folder / f"00000-{uuid.uuid4()}.metadata.json"
    path.write_bytes(data)
    ident = ("ns", f"v{size}")
    catalog.register_view(ident, path.as_uri())
    ops["file size"].values[size] = len(data) / 1024
    ops["parse"].values[size] = median_time(lambda: ViewMetadata.from_json(data), repeat)
    ops["parse"].anchor[size] = median_time(lambda: orjson.loads(data), repeat)
    ops["load"].values[size] = median_time(lambda: catalog.load_view(ident).metadata.current_version, repeat)
    n = iter(range(1, 10**9))
    schema = _schema()
    ops["replace"].values[size] = median_time(
        lambda: catalog.replace_view(
            ident, schema=schema, queries={"spark": f"SELECT {-next(n)} AS id"}, default_namespace=("ns",)
        ),
        repeat,
    )
    ops["rollback"].values[size] = median_time(
        lambda: catalog.load_view(ident).set_current_version(1 + next(n) % size), repeat
    )


# ----------------------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repetitions (smoke test)")
    parser.add_argument("--curve", choices=["views", "versions"], action="append", help="only these curves")
    parser.add_argument(
        "--postgres", metavar="URL", help="also the views curve on this PostgreSQL (SQLAlchemy URL)"
    )
    args = parser.parse_args(argv)
    curves = args.curve or ["views", "versions"]
    started = time.monotonic()
    print(
        f"# bench_scale {'--quick ' if args.quick else ''}{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.2f}"
    )
    defects: list[str] = []
    with tempfile.TemporaryDirectory(prefix="iceview-bench-scale-") as tmp:
        base = Path(tmp)
        if "views" in curves:
            sizes = [10, 100, 1000] if args.quick else [10, 100, 1000, 10_000, 100_000]
            defects += views_curve(sizes, 3 if args.quick else 5, args.postgres, base)
        if "versions" in curves:
            sizes = [1, 10, 100] if args.quick else [1, 10, 100, 1000, 10_000]
            defects += versions_curve(sizes, 3 if args.quick else 5, base)
    print(f"\n{len(defects)} operation(s) grow faster than their work" + (":" if defects else "."))
    for line in defects:
        print(f"  {line}")
    print(f"done in {time.monotonic() - started:.0f} s")
    # --quick's sizes are too small to judge a shape by: it only shows that every curve runs
    return 1 if defects and not args.quick else 0


if __name__ == "__main__":
    sys.exit(main())
