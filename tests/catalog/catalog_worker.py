"""A separate process that writes to a view catalog, for the concurrency and fault tests.

python catalog_worker.py replace <uri> <warehouse> <ident> <writer> <count> <out.jsonl> <go-file>
    wait for <go-file>, then make <count> replace_version commits; each acknowledged commit is
    a JSON line {"writer", "i", "location"} in <out.jsonl> (errors as {"error": ...}).

python catalog_worker.py stall-before-swap <uri> <warehouse> <ident> <ready-file>
    start a replace; after the new metadata file is written and before the pointer is swapped,
    write the file's location to <ready-file> and sleep (for the parent to SIGKILL).

python catalog_worker.py stall-in-update <uri> <warehouse> <ident> <ready-file>
    start a replace and announce (<ready-file>) just before the UPDATE is sent; the parent holds
    the row lock, so the UPDATE blocks until the parent kills this process.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField

from iceview.catalog.sql import SqlCatalog, SqlViewOperations

SCHEMA = Schema(
    NestedField(1, "w", IntegerType(), required=False), NestedField(2, "i", IntegerType()), schema_id=0
)


def _catalog(uri: str, warehouse: str) -> SqlCatalog:
    return SqlCatalog("testCatalog", uri=uri, warehouse=warehouse)


def replace(uri: str, warehouse: str, ident: str, writer: str, count: str, out: str, go: str) -> None:
    catalog = _catalog(uri, warehouse)
    view = catalog.load_view(ident)
    deadline = time.monotonic() + 120
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            raise SystemExit("no go signal")
        time.sleep(0.005)
    with open(out, "w") as f:
        for i in range(int(count)):
            try:
                view.replace_version(
                    schema=SCHEMA,
                    queries={"spark": f"SELECT {writer} AS w, {i} AS i"},
                    default_namespace=("ns",),
                )
                record: dict[str, Any] = {
                    "writer": int(writer),
                    "i": i,
                    "location": view.operations.current_metadata_location,
                }
            except Exception as e:
                record = {"writer": int(writer), "i": i, "error": f"{type(e).__name__}: {e}"}
            f.write(json.dumps(record) + "\n")
            f.flush()
    catalog.close()


def _announce(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def stall_before_swap(uri: str, warehouse: str, ident: str, ready: str) -> None:
    catalog = _catalog(uri, warehouse)
    view = catalog.load_view(ident)

    def stalled(self: SqlViewOperations, base: Any, new_location: str) -> None:
        _announce(ready, new_location)
        time.sleep(600)

    SqlViewOperations.do_commit = stalled  # type: ignore[method-assign]
    view.replace_version(
        schema=SCHEMA, queries={"spark": "SELECT 'never committed'"}, default_namespace=("ns",)
    )


def stall_in_update(uri: str, warehouse: str, ident: str, ready: str) -> None:
    catalog = _catalog(uri, warehouse)
    view = catalog.load_view(ident)
    original = SqlViewOperations.do_commit

    def announced(self: SqlViewOperations, base: Any, new_location: str) -> None:
        _announce(ready, new_location)
        original(self, base, new_location)

    SqlViewOperations.do_commit = announced  # type: ignore[method-assign]
    view.replace_version(
        schema=SCHEMA, queries={"spark": "SELECT 'killed in update'"}, default_namespace=("ns",)
    )


COMMANDS = {"replace": replace, "stall-before-swap": stall_before_swap, "stall-in-update": stall_in_update}

if __name__ == "__main__":
    try:
        COMMANDS[sys.argv[1]](*sys.argv[2:])
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.exit(1)
