"""iceview's REST catalog client against a real Iceberg REST server: Iceberg Java 1.10.2's own
``CatalogHandlers`` over a ``JdbcCatalog`` (``fixtures.rest_java``). Views: create, replace,
rollback, properties, rename, drop, register, paging, conflicts; PyIceberg reads what iceview writes.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from catalog_support import CATALOG_NAME, SCHEMA, Fault, RestProxy, error_body

from iceview.catalog import load_catalog
from iceview.catalog.rest import RestCatalog
from iceview.errors import (
    CommitFailedError,
    NoSuchNamespaceError,
    NoSuchViewError,
    UnsupportedOperationError,
    ViewAlreadyExistsError,
)
from iceview.spec import AssertCurrentViewVersion, SetProperties

SPARK_SQL = "select * from ns.tbl"


def create(catalog: RestCatalog, ident: str, sql: str = SPARK_SQL, **kw: Any) -> Any:
    kw.setdefault("schema", SCHEMA)
    kw.setdefault("default_namespace", (ident.split(".")[0],))
    return catalog.create_view(ident, queries={"spark": sql}, **kw)


def test_create_load_exists(rest_catalog: RestCatalog, rest_ns: str) -> None:
    ident = f"{rest_ns}.v"
    assert not rest_catalog.view_exists(ident)
    view = create(rest_catalog, ident, properties={"prop1": "val1"})
    assert view.name == f"{CATALOG_NAME}.{ident}"
    assert view.metadata_location is not None and view.metadata_location.endswith(".metadata.json")
    assert rest_catalog.view_exists(ident)
    loaded = rest_catalog.load_view(ident)
    assert loaded.metadata_location == view.metadata_location
    assert loaded.uuid == view.uuid
    assert loaded.current_version.version_id == 1
    assert loaded.sql_for("spark") is not None
    assert loaded.sql_for("spark").sql == SPARK_SQL  # type: ignore[union-attr]
    # view-default.* lose to the definition's, view-override.* win (Java's RESTViewBuilder)
    assert dict(loaded.properties) == {
        "prop1": "val1",
        "key1": "catalog-default-key1",
        "key2": "catalog-default-key2",
        "key3": "catalog-override-key3",
        "key4": "catalog-override-key4",
    }
    assert [f.name for f in loaded.schema.fields] == ["id", "data"]
    with pytest.raises(ViewAlreadyExistsError, match=f"already exists: {rest_ns}.v"):
        create(rest_catalog, ident)
    with pytest.raises(NoSuchViewError, match=f"^View does not exist: {rest_ns}.missing$"):
        rest_catalog.load_view(f"{rest_ns}.missing")
    with pytest.raises(NoSuchNamespaceError, match="Namespace does not exist: no_such_ns"):
        rest_catalog.list_views("no_such_ns")


def test_replace_rollback_properties(rest_catalog: RestCatalog, rest_ns: str) -> None:
    ident = f"{rest_ns}.v"
    first = create(rest_catalog, ident)
    replaced = rest_catalog.replace_view(
        ident, queries={"spark": "select 2 as id, 'x' as data"}, schema=SCHEMA, default_namespace=(rest_ns,)
    )
    assert replaced.current_version.version_id == 2
    assert replaced.metadata_location != first.metadata_location
    # the summary iceview writes survives the server (an update, applied as sent)
    assert replaced.current_version.summary["engine-name"] == "iceview"
    assert [e.version_id for e in rest_catalog.load_view(ident).history] == [1, 2]

    replaced.set_current_version(1)
    again = rest_catalog.load_view(ident)
    assert again.current_version.version_id == 1
    assert again.sql_for("spark").sql == SPARK_SQL  # type: ignore[union-attr]
    assert [e.version_id for e in again.history] == [1, 2, 1]

    again.update_properties().set("comment", "hello").remove("key1").commit()
    props = rest_catalog.load_view(ident).properties
    assert props["comment"] == "hello" and "key1" not in props
    assert again.properties["comment"] == "hello"  # the handle shows the committed metadata

    # an empty change commits nothing: the metadata file stays
    before = rest_catalog.load_view(ident).metadata_location
    rest_catalog.commit_view(ident, [], [])
    assert rest_catalog.load_view(ident).metadata_location == before


def test_requirement_checked_before_sending(rest_catalog: RestCatalog, rest_ns: str) -> None:
    ident = f"{rest_ns}.v"
    create(rest_catalog, ident)
    with pytest.raises(CommitFailedError, match="current view version changed: expected 7 != 1"):
        rest_catalog.commit_view(ident, [AssertCurrentViewVersion(7)], [SetProperties({"a": "b"})])
    assert "a" not in rest_catalog.load_view(ident).properties


def test_rename_drop(rest_catalog: RestCatalog, rest_ns: str) -> None:
    src, dst = f"{rest_ns}.a", f"{rest_ns}.b"
    view = create(rest_catalog, src)
    rest_catalog.rename_view(src, dst)
    assert not rest_catalog.view_exists(src)
    assert rest_catalog.load_view(dst).uuid == view.uuid
    with pytest.raises(NoSuchViewError):
        rest_catalog.rename_view(src, f"{rest_ns}.c")
    create(rest_catalog, src)
    with pytest.raises(ViewAlreadyExistsError, match="View already exists"):
        rest_catalog.rename_view(src, dst)
    assert rest_catalog.drop_view(dst) is True
    assert rest_catalog.drop_view(dst) is False
    assert rest_catalog.list_views(rest_ns) == [(rest_ns, "a")]


def test_register_not_advertised(rest_catalog: RestCatalog, rest_ns: str) -> None:
    view = create(rest_catalog, f"{rest_ns}.v")
    with pytest.raises(UnsupportedOperationError, match="does not support registering views"):
        rest_catalog.register_view(f"{rest_ns}.r", view.metadata_location)
    assert not rest_catalog.view_exists(f"{rest_ns}.r")


def test_functions_not_advertised(rest_catalog: RestCatalog, rest_ns: str) -> None:
    """Iceberg 1.10.2's server keeps no SQL UDFs: the client says so, and sends nothing."""
    from iceview.function import NewDefinition

    assert not rest_catalog.supports_functions()
    with pytest.raises(UnsupportedOperationError, match="does not keep SQL UDFs"):
        rest_catalog.list_functions(rest_ns)
    with pytest.raises(UnsupportedOperationError, match="does not keep SQL UDFs"):
        rest_catalog.load_function(f"{rest_ns}.f")
    with pytest.raises(UnsupportedOperationError, match="does not keep SQL UDFs"):
        rest_catalog.create_function(f"{rest_ns}.f", NewDefinition([("x", "int")], "int", {"spark": "x"}))


def test_paging_with_a_small_page_size(java_rest_server: Any, rest_ns: str) -> None:
    proxy = RestProxy(java_rest_server.uri)
    try:
        cat = RestCatalog("paged", uri=proxy.uri, **{"rest-page-size": "2"})
        cat.create_namespace(rest_ns)
        names = [f"v{i}" for i in range(5)]
        for name in names:
            create(cat, f"{rest_ns}.{name}")
        proxy.requests.clear()
        assert cat.list_views(rest_ns) == [(rest_ns, n) for n in names]
        pages = [p for m, p in proxy.requests if m == "GET" and p.split("?")[0].endswith("/views")]
        assert len(pages) == 3, pages
        assert all("pageSize=2" in p for p in pages) and "pageToken=" in pages[1]
        cat.close()
    finally:
        proxy.close()


def test_conflict_409_is_retried_with_the_same_updates(java_rest_server: Any, rest_ns: str) -> None:
    proxy = RestProxy(java_rest_server.uri)
    try:
        cat = RestCatalog("conflicts", uri=proxy.uri)
        cat.create_namespace(rest_ns)
        ident = f"{rest_ns}.v"
        view = create(cat, ident, properties={"commit.retry.min-wait-ms": "10"})
        conflict = error_body(409, "CommitFailedException", "Commit failed: metadata location changed")
        proxy.inject("POST", "/views/v", Fault(status=409, body=conflict, forward=False), times=2)
        view.update_properties().set("a", "1").commit()
        commits = [p for m, p in proxy.requests if m == "POST" and p.endswith("/views/v")]
        loads = [p for m, p in proxy.requests if m == "GET" and p.endswith("/views/v")]
        assert len(commits) == 3 and len(loads) >= 2  # reloaded before each new attempt
        assert cat.load_view(ident).properties["a"] == "1"
        # the retries run out: CommitFailedError, nothing changed
        proxy.inject("POST", "/views/v", Fault(status=409, body=conflict, forward=False), times=10)
        with pytest.raises(CommitFailedError, match="Commit failed"):
            cat.load_view(ident).update_properties().set("b", "2").commit()
        assert "b" not in cat.load_view(ident).properties
        cat.close()
    finally:
        proxy.close()


def test_two_clients_racing(java_rest_server: Any, rest_ns: str) -> None:
    """Two catalogs replace the same view at once: every replace lands as its own version."""
    clients = [RestCatalog(f"c{i}", uri=java_rest_server.uri) for i in range(2)]
    clients[0].create_namespace(rest_ns)
    ident = f"{rest_ns}.v"
    create(clients[0], ident)
    errors: list[BaseException] = []
    per_client = 4

    def work(cat: RestCatalog, who: int) -> None:
        try:
            for i in range(per_client):
                cat.replace_view(
                    ident,
                    queries={"spark": f"select {who * 100 + i} as id, 'x' as data"},
                    schema=SCHEMA,
                    default_namespace=(rest_ns,),
                )
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(c, i)) for i, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    view = clients[0].load_view(ident)
    assert len(view.versions) == 1 + 2 * per_client
    assert len({v.version_id for v in view.versions}) == len(view.versions)
    for c in clients:
        c.close()


def test_load_catalog_and_pyiceberg_reads_what_iceview_writes(java_rest_server: Any, rest_ns: str) -> None:
    cat = load_catalog("prod", uri=java_rest_server.uri)  # http(s) uri: type rest
    assert isinstance(cat, RestCatalog) and cat.catalog_type == "rest"
    cat.create_namespace(rest_ns)
    view = create(cat, f"{rest_ns}.v")
    view.replace_version(
        queries={"spark": "select 5 as id, 'y' as data"}, schema=SCHEMA, default_namespace=(rest_ns,)
    )

    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog

    theirs = PyIcebergRestCatalog("py", uri=java_rest_server.uri, **{"view-endpoints-supported": "true"})
    loaded = theirs.load_view((rest_ns, "v"))
    assert str(loaded.metadata.view_uuid) == str(view.uuid)
    assert loaded.metadata.current_version_id == 2
    assert [r.root.sql for r in loaded.metadata.versions[-1].representations] == [
        "select 5 as id, 'y' as data"
    ]
    assert (rest_ns, "v") in theirs.list_views(rest_ns)
    theirs.close()
    cat.close()


def test_namespaces_and_tables_through_pyiceberg(rest_catalog: RestCatalog, rest_ns: str) -> None:
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField

    assert rest_catalog.namespace_exists(rest_ns)
    assert (rest_ns,) in rest_catalog.list_namespaces()
    rest_catalog.update_namespace_properties(rest_ns, updates={"owner": "me"})
    assert rest_catalog.load_namespace_properties(rest_ns)["owner"] == "me"
    tables = rest_catalog.table_catalog()
    tables.create_table((rest_ns, "t"), schema=Schema(NestedField(1, "id", IntegerType(), required=False)))
    assert rest_catalog.table_exists(f"{rest_ns}.t")
    assert not rest_catalog.view_exists(f"{rest_ns}.t")
    assert rest_catalog.list_tables(rest_ns) == [(rest_ns, "t")]
    from iceview.errors import NamespaceNotEmptyError, TableAlreadyExistsError

    with pytest.raises(TableAlreadyExistsError):
        rest_catalog.replace_view(f"{rest_ns}.t", queries={"spark": "select 1"}, schema=SCHEMA)
    with pytest.raises(NamespaceNotEmptyError):
        rest_catalog.drop_namespace(rest_ns)
    tables.drop_table((rest_ns, "t"))
    assert rest_catalog.drop_namespace(rest_ns) is True
    assert rest_catalog.drop_namespace(rest_ns) is False


def test_idempotency_key_only_where_advertised(java_rest_server: Any, rest_ns: str) -> None:
    import json

    def advertise(body: bytes) -> bytes:
        config = json.loads(body)
        config["idempotency-key-lifetime"] = "PT30M"
        return json.dumps(config).encode()

    for advertised in (False, True):
        proxy = RestProxy(java_rest_server.uri)
        try:
            if advertised:
                proxy.inject("GET", "/v1/config", Fault(rewrite=advertise))
            cat = RestCatalog("idem", uri=proxy.uri)
            ns = f"{rest_ns}_{int(advertised)}"
            cat.create_namespace(ns)
            proxy.headers.clear()
            proxy.requests.clear()
            view = create(cat, f"{ns}.v")
            view.update_properties().set("a", "b").commit()
            assert cat.drop_view(f"{ns}.v")
            writes = [
                h for (m, _), h in zip(proxy.requests, proxy.headers, strict=True) if m in ("POST", "DELETE")
            ]
            keys = [h.get("Idempotency-Key") for h in writes]
            assert len(keys) == 3
            if advertised:
                assert all(keys) and len(set(keys)) == 3
            else:
                assert keys == [None, None, None]
            cat.close()
        finally:
            proxy.close()


def test_a_representation_the_server_cannot_keep_fails_whole(rest_catalog: RestCatalog, rest_ns: str) -> None:
    import dataclasses
    import time

    from iceview.spec import AddViewVersion, SetCurrentViewVersion
    from iceview.spec.version import UnknownRepresentation

    view = create(rest_catalog, f"{rest_ns}.v")
    current = view.current_version
    plan = UnknownRepresentation("substrait", {"type": "substrait", "plan": "AAEC"})
    version = dataclasses.replace(
        current,
        version_id=2,
        timestamp_ms=int(time.time() * 1000),
        representations=(*current.representations, plan),
    )
    with pytest.raises(UnsupportedOperationError, match="unsupported view representation: substrait"):
        rest_catalog.commit_view(view, [], [AddViewVersion(version), SetCurrentViewVersion(-1)])
    again = rest_catalog.load_view(f"{rest_ns}.v")
    assert again.metadata_location == view.metadata_location and len(again.versions) == 1


def test_translations_read_table_schemas_through_pyiceberg(rest_catalog: RestCatalog, rest_ns: str) -> None:
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField, StringType

    schema = Schema(
        NestedField(1, "id", IntegerType(), required=False), NestedField(2, "s", StringType(), required=False)
    )
    tables = rest_catalog.table_catalog()
    tables.create_table((rest_ns, "tbl"), schema=schema)
    found = rest_catalog.relation_schemas(
        f"select * from {rest_ns}.tbl", "spark", default_catalog=None, default_namespace=(rest_ns,)
    )
    assert list(found) == [(CATALOG_NAME, rest_ns, "tbl")]
    assert [f.name for f in found[(CATALOG_NAME, rest_ns, "tbl")].fields] == ["id", "s"]
    view = rest_catalog.create_view(
        f"{rest_ns}.v",
        queries={"spark": f"select id, substring(s, 1, 2) as s from {rest_ns}.tbl"},
        schema=schema,
        default_namespace=(rest_ns,),
        dialects=["trino"],
    )
    assert [r.dialect for r in view.current_version.representations] == ["spark", "trino"]
    tables.close()
