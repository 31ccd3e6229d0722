"""A separate process that writes to a view catalog, for the concurrency and fault tests.

python catalog_worker.py replace <uri> <warehouse> <ident> <writer> <count> <out.jsonl> <go-file>
    wait for <go-file>, then make <count> replace_version commits; each acknowledged commit is
    a JSON line {"writer", "i", "location"} in <out.jsonl> (errors as {"error": ...}).

python catalog_worker.py replace-new-schema <uri> <warehouse> <ident> <writer> <count> <out.jsonl> <go-file>
    as replace, but every replace carries NEW_SCHEMA (the same for every writer, not the view's
    first schema), so all but the first writer re-apply an add-schema the base already has.

python catalog_worker.py race <uri> <warehouse> <ident> <kind> <writer> <count> <out.jsonl> <go-file>
    as replace, each commit one change of <kind>: schema (a replace with a schema of its own
    writer), properties, location, dialects (add_dialects duckdb after a replace) or rollback.
    A record is {"writer", "i", "kind"} or {"error": "<class>: <message>"}.

<uri> is a database URL (SQL catalog) or an http:// REST catalog URI (iceview's REST client).

python catalog_worker.py function-race <uri> <warehouse> <ident> <writer> <count> <out.jsonl> <go-file>
    as replace, on a SQL UDF: a definition of the writer's own signature, then new bodies of its
    ``int`` definition and properties (:func:`function_race`).

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
from pyiceberg.types import IntegerType, LongType, NestedField

from iceview.catalog.sql import SqlCatalog, SqlViewOperations

SCHEMA = Schema(
    NestedField(1, "w", IntegerType(), required=False), NestedField(2, "i", IntegerType()), schema_id=0
)

NEW_SCHEMA = Schema(
    NestedField(1, "w", LongType(), required=False, doc="writer"),
    NestedField(2, "i", LongType(), required=False, doc="commit"),
    schema_id=0,
)


def _catalog(uri: str, warehouse: str) -> Any:
    if uri.startswith("http"):
        from iceview.catalog.rest import RestCatalog

        return RestCatalog("testCatalog", uri=uri)
    if uri.startswith("thrift://"):
        from urllib.parse import parse_qsl

        from iceview.catalog.hive import HiveCatalog

        # catalog properties ride after a '#': thrift://host:port#iceberg.engine.hive.lock-enabled=false
        base, _, extra = uri.partition("#")
        return HiveCatalog("testCatalog", uri=base, warehouse=warehouse, **dict(parse_qsl(extra)))
    return SqlCatalog("testCatalog", uri=uri, warehouse=warehouse)


def _wait_for(go: str) -> None:
    deadline = time.monotonic() + 120
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            raise SystemExit("no go signal")
        time.sleep(0.005)


def _error(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def replace(
    uri: str, warehouse: str, ident: str, writer: str, count: str, out: str, go: str, schema: Schema = SCHEMA
) -> None:
    catalog = _catalog(uri, warehouse)
    view = catalog.load_view(ident)
    _wait_for(go)
    with open(out, "w") as f:
        for i in range(int(count)):
            try:
                view.replace_version(
                    schema=schema,
                    queries={"spark": f"SELECT {writer} AS w, {i} AS i"},
                    default_namespace=("ns",),
                )
                record: dict[str, Any] = {
                    "writer": int(writer),
                    "i": i,
                    # the pointer this commit set (the SQL catalog's; metadata_location may re-read a newer one)
                    "location": getattr(view.operations, "current_metadata_location", None),
                }
            except Exception as e:
                record = {"writer": int(writer), "i": i, "error": _error(e)}
            f.write(json.dumps(record) + "\n")
            f.flush()
    catalog.close()


def replace_new_schema(
    uri: str, warehouse: str, ident: str, writer: str, count: str, out: str, go: str
) -> None:
    replace(uri, warehouse, ident, writer, count, out, go, schema=NEW_SCHEMA)


def _race_step(view: Any, kind: str, writer: int, i: int) -> None:
    if kind == "schema":
        # a schema of this writer's own (its doc), so that writers add different schemas in turn
        schema = Schema(*(f.model_copy(update={"doc": f"w{writer}"}) for f in NEW_SCHEMA.fields), schema_id=0)
        view.replace_version(
            schema=schema, queries={"spark": f"SELECT {writer} AS w, {i} AS i"}, default_namespace=("ns",)
        )
    elif kind == "properties":
        view.update_properties().set(f"w{writer}", str(i)).commit()
    elif kind == "location":
        view.update_location(view.location.rsplit("/moved-", 1)[0] + f"/moved-{writer}-{i}")
    elif kind == "dialects":
        view.replace_version(
            schema=SCHEMA, queries={"spark": f"SELECT {writer} AS w, {i} AS i"}, default_namespace=("ns",)
        )
        view.add_dialects(["duckdb"], schemas={})
    elif kind == "rollback":
        view.set_current_version(min(v.version_id for v in view.refresh().versions))
    else:
        raise SystemExit(f"unknown kind {kind}")


def race(uri: str, warehouse: str, ident: str, kind: str, writer: str, count: str, out: str, go: str) -> None:
    catalog = _catalog(uri, warehouse)
    view = catalog.load_view(ident)
    _wait_for(go)
    with open(out, "w") as f:
        for i in range(int(count)):
            record: dict[str, Any] = {"writer": int(writer), "i": i, "kind": kind}
            try:
                _race_step(view, kind, int(writer), i)
            except Exception as e:
                record["error"] = _error(e)
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


def function_race(uri: str, warehouse: str, ident: str, writer: str, count: str, out: str, go: str) -> None:
    """Commits to one SQL UDF: first a definition of this writer's own signature (``writer + 2``
    ints), then new bodies of the ``int`` definition, every third commit a property instead. A
    record is {"writer", "i", "kind", "body" | "key"} or with {"error"}."""
    from iceview.function import NewDefinition

    catalog = _catalog(uri, warehouse)
    function = catalog.load_function(ident)
    w = int(writer)
    _wait_for(go)
    with open(out, "w") as f:
        for i in range(int(count)):
            record: dict[str, Any] = {"writer": w, "i": i}
            try:
                if i == 0:
                    record["kind"] = "definition"
                    params = [(f"p{n}", "int") for n in range(w + 2)]
                    function.add_definition(NewDefinition(params, "int", {"spark": f"p0 + {w}"}))
                elif i % 3 == 0:
                    record["kind"], record["key"] = "property", f"w{w}.{i}"
                    function.update_properties({f"w{w}.{i}": "x"})
                else:
                    record["kind"], record["body"] = "body", f"x + {(w + 1) * 1000 + i}"
                    function.replace_definition("int", {"spark": record["body"]})
            except Exception as e:
                record["error"] = _error(e)
            f.write(json.dumps(record) + "\n")
            f.flush()
    catalog.close()


COMMANDS = {
    "function-race": function_race,
    "replace": replace,
    "replace-new-schema": replace_new_schema,
    "race": race,
    "stall-before-swap": stall_before_swap,
    "stall-in-update": stall_in_update,
}

if __name__ == "__main__":
    try:
        COMMANDS[sys.argv[1]](*sys.argv[2:])
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.exit(1)
