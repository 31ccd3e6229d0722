#!/usr/bin/env python3
"""Benchmark: what calling the catalog's SQL UDFs costs a DuckDB statement (not a test).

    .venv/bin/python bench/bench_inline.py [--runs 200] [--json out.json]

On a SQLite catalog holding the edge table, functions and views of ``tests/udf/engine_cases.py``,
each statement is expanded (``DuckDBViews.expand``: views expanded, tables mapped, calls inlined;
DuckDB does not run it) by two ``DuckDBViews`` on the same catalog, interleaved:

* **with functions**: as shipped;
* **anchor**: the same, with the catalog's functions turned off (``supports_functions`` False),
  what the expansion cost before SQL UDFs.

Statements: a query calling nothing; one calling DuckDB functions sqlglot does not know (each such
one-part name might be a catalog function); a view calling nothing; a query calling two catalog
functions (no anchor: it needs them). It prints medians and the ratio against the anchor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.types import LongType, NestedField, StringType  # noqa: E402
from timing import interleaved  # noqa: E402

from iceview.catalog.sql import SqlCatalog  # noqa: E402
from iceview.duckdb import DuckDBViews  # noqa: E402
from udf.engine_cases import NS, sqlite_lake  # noqa: E402

STATEMENTS = {
    "no calls": "SELECT id, upper(s) AS u FROM edge WHERE i > 0 ORDER BY id",
    "unknown names": "SELECT id, hash(s) AS h, md5_number(s) AS m, list_value(i, i) AS l FROM edge",
    "plain view": "SELECT * FROM plain WHERE id > 1",
    "two functions": "SELECT fn.add_one(i) AS a, label(s, 7) AS b FROM edge",
}


def _lake(base: str) -> SqlCatalog:
    catalog: SqlCatalog = sqlite_lake(base)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False), NestedField(2, "s", StringType(), required=False)
    )
    catalog.create_view(
        (NS, "plain"), schema=schema, queries={"duckdb": "SELECT id, s FROM edge"}, default_namespace=(NS,)
    )
    return catalog


def _timed(views: DuckDBViews, sql: str) -> None:
    views.expand(sql)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--json")
    args = ap.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as base:
        catalog = _lake(base)
        off = SqlCatalog("lake", uri=f"sqlite:///{base}/c.db", warehouse=f"file://{base}/wh")
        off.supports_functions = lambda: False  # type: ignore[method-assign]
        with DuckDBViews(catalog, namespace=NS) as on_views, DuckDBViews(off, namespace=NS) as off_views:
            for name, sql in STATEMENTS.items():
                fns = {"with functions": lambda sql=sql: _timed(on_views, sql)}
                if name != "two functions":
                    fns["anchor"] = lambda sql=sql: _timed(off_views, sql)
                times = interleaved(fns, runs=args.runs, warmup=10)
                medians = {k: statistics.median(v) * 1e3 for k, v in times.items()}
                results[name] = medians
                line = f"{name:15} with functions {medians['with functions']:7.3f} ms"
                if "anchor" in medians:
                    ratio = medians["with functions"] / medians["anchor"]
                    results[name]["ratio"] = ratio
                    line += f"   anchor {medians['anchor']:7.3f} ms   ratio {ratio:5.2f}x"
                print(line)
        off.close()
        catalog.close()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
