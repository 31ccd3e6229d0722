"""An iceview writer process for tests/interop/test_hive_java.py's mixed-writer races.

python hive_writer.py <uri> <warehouse> <ident> <writer> <count> <lock-enabled> <out.jsonl> <go-file>

Opens iceview's Hive catalog (``iceberg.engine.hive.lock-enabled`` = <lock-enabled>), loads the view,
writes ``<out.jsonl>.ready``, waits for <go-file>, then makes <count> ``view.replace_version``
commits, commit ``i`` with the SQL ``SELECT 'py<writer>' AS w, <i> AS i``. The view's own
``commit.retry.*`` properties make a conflicting commit retry. Each commit is a JSON line in
<out.jsonl>: ``{"writer", "i", "location", "attempts"}`` (``location``: the metadata file this
commit made the pointer hold; ``attempts``: how many metadata files it wrote, retries included) or
``{"writer", "i", "error"}``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

import iceview
from iceview.catalog.hive import HiveViewOperations

# the schema Spark gives ``SELECT '<text>' AS w, <int> AS i`` (literals are not null; ids from 0)
SCHEMA = Schema(
    NestedField(0, "w", StringType(), required=True),
    NestedField(1, "i", IntegerType(), required=True),
    schema_id=0,
)


ATTEMPTS = [0]
_commit = HiveViewOperations.commit


def _counted(self: HiveViewOperations, base: Any, metadata: Any) -> Any:
    ATTEMPTS[0] += 1
    return _commit(self, base, metadata)


HiveViewOperations.commit = _counted  # type: ignore[method-assign]


def main(uri: str, warehouse: str, ident: str, writer: str, count: str, lock: str, out: str, go: str) -> None:
    catalog = iceview.load_catalog(
        f"py{writer}",
        type="hive",
        uri=uri,
        warehouse=warehouse,
        **{
            "iceberg.engine.hive.lock-enabled": lock,
            # Java's defaults check a waiting lock after 50 ms, backing off to 5 s: the race is short
            "iceberg.hive.lock-check-min-wait-ms": "10",
            "iceberg.hive.lock-check-max-wait-ms": "200",
        },
    )
    view = catalog.load_view(ident)
    namespace = tuple(ident.split(".")[:-1])
    with open(out + ".ready", "w"):
        pass
    deadline = time.monotonic() + 120
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            raise SystemExit("no go signal")
        time.sleep(0.005)
    with open(out, "w") as f:
        for i in range(int(count)):
            record: dict[str, Any] = {"writer": f"py{writer}", "i": i}
            ATTEMPTS[0] = 0
            try:
                view.replace_version(
                    schema=SCHEMA,
                    queries={"spark": f"SELECT 'py{writer}' AS w, {i} AS i"},
                    default_namespace=namespace,
                )
                # the pointer this commit set (metadata_location would ask the metastore again)
                record["location"] = view.operations.current_metadata_location
                record["attempts"] = ATTEMPTS[0]
            except Exception as e:
                record["error"] = f"{type(e).__name__}: {e}"
            f.write(json.dumps(record) + "\n")
            f.flush()
    catalog.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
