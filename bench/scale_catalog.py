"""The cost curves of a catalog's contents (see ``bench/bench_scale.py``): ``views`` (views per
namespace, SQL catalog and ``iceview serve``) and ``versions`` (retained versions per view)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from scale_common import Operation, Settings, median_time, report

PAGE = 100


SEEK = (
    f"a page is one seek in the primary key's index and {PAGE} + 1 rows: the seek is logarithmic in the "
    "namespace's size (a B-tree), the rows constant"
)


def views(settings: Settings) -> list[str]:
    """The ``views`` curve: 10 to 100,000 views per namespace."""
    sizes = [10, 100] if settings.quick else [10, 100, 1000, 10_000, 100_000]
    return views_curve(sizes, 2 if settings.quick else 5, settings.postgres, settings.base)


def versions(settings: Settings) -> list[str]:
    """The ``versions`` curve: 1 to 10,000 retained versions per view."""
    sizes = [1, 10, 30] if settings.quick else [1, 10, 100, 1000, 10_000]
    return versions_curve(sizes, 2 if settings.quick else 5, settings.base)


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
    from fixtures.iceview_serve import SERVED, start_iceview_server  # tests/ is on the path: scale_common
    from iceview.catalog.sql import SqlCatalog

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
            "first page": Operation("first page", "logarithmic", from_size=PAGE, note=SEEK),
            "walk": Operation("walk", "linear"),
            "load": Operation("load", "constant"),
            "commit": Operation("commit", "constant"),
        }
        rest_ops: dict[str, Operation] = {}
        if server is not None:
            rest_ops = {
                "serve list": Operation("serve list", "linear", anchor_name="PyIceberg list"),
                "serve first page": Operation("serve first page", "logarithmic", from_size=PAGE, note=SEEK),
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
