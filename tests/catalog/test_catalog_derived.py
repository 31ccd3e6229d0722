"""Derived dialects (view property ``iceview.derive-dialects``, ``docs/translation.md``): every new
version committed through ``Catalog.commit_view`` carries them, translated from its own SQL in the
same commit; refusals are recorded, never block; hand-written dialects stay guarded.

Runs on SQLite and PostgreSQL, over REST against Iceberg Java's reference server (the client
derives) and against ``iceview serve`` (client and server both derive)."""

from __future__ import annotations

from typing import Any

import pytest
from catalog_support import SCHEMA

from iceview.errors import DialectDropError, InvalidArgumentError, InvalidStateError
from iceview.spec import AddViewVersion, SetCurrentViewVersion, SQLRepresentation

DERIVE = {"iceview.derive-dialects": "trino,duckdb"}
FIRST = "SELECT id, data FROM ns.t WHERE id > 1"
SECOND = "SELECT id, data FROM ns.t WHERE id > 2 AND data <> 'x'"
REFUSED = "SELECT id, CAST(hash(data) AS STRING) AS data FROM ns.t"  # Spark's Murmur3: no equivalent


def sql_of(view: Any) -> dict[str, str]:
    return {r.dialect: r.sql for r in view.current_version.representations}


def namespace(catalog: Any) -> None:
    """Namespace ``ns`` and the relation the views read, ``ns.t`` (a view: its schema types the
    translations; a relation of no known schema is refused wherever a type matters)."""
    catalog.create_namespace("ns")
    catalog.create_view(
        "ns.t", schema=SCHEMA, queries={"spark": "SELECT 1 AS id, 'a' AS data"}, default_namespace="ns"
    )


def make(catalog: Any, sql: str = FIRST, **properties: str) -> Any:
    namespace(catalog)
    return catalog.create_view(
        "ns.v",
        schema=SCHEMA,
        queries={"spark": sql},
        default_namespace="ns",
        properties={**DERIVE, **properties},
    )


def test_every_new_version_derives_from_its_own_sql(catalog: Any) -> None:
    view = make(catalog)
    first = sql_of(view)
    assert list(first) == ["spark", "trino", "duckdb"]
    assert "id > 1" in first["duckdb"] and "id > 1" in first["trino"]
    # Java's client-side guard must let native replaces through (docs/translation.md)
    assert view.properties["replace.drop-dialect.allowed"] == "true"

    # a replace from Spark SQL alone: derived again from the new SQL, nothing stale, no guard failure
    replaced = catalog.replace_view("ns.v", schema=SCHEMA, queries={"spark": SECOND}, default_namespace="ns")
    second = sql_of(replaced)
    assert list(second) == ["spark", "trino", "duckdb"]
    assert "id > 2" in second["duckdb"] and "'x'" in second["duckdb"]
    assert "id > 1" not in second["duckdb"] and "id > 1" not in second["trino"]
    loaded = catalog.load_view("ns.v")
    assert sql_of(loaded) == second
    assert loaded.current_version.version_id == 2
    summary = loaded.current_version.summary
    assert summary["iceview.derived-dialects"] == "trino,duckdb"
    assert summary["iceview.translated-from"] == "spark"


def test_a_refused_dialect_is_left_out_with_its_reasons(catalog: Any) -> None:
    make(catalog)
    view = catalog.replace_view("ns.v", schema=SCHEMA, queries={"spark": REFUSED}, default_namespace="ns")
    assert list(sql_of(view)) == ["spark"]
    summary = view.current_version.summary
    assert "hash" in summary["iceview.derive-refused.trino"].split(",")
    assert "hash" in summary["iceview.derive-refused.duckdb"].split(",")
    assert "iceview.derived-dialects" not in summary
    # and a later translatable replace derives both again
    again = catalog.replace_view("ns.v", schema=SCHEMA, queries={"spark": SECOND}, default_namespace="ns")
    assert list(sql_of(again)) == ["spark", "trino", "duckdb"]
    assert not any(k.startswith("iceview.derive-refused.") for k in again.current_version.summary)


def test_stale_derived_sql_in_an_incoming_version_is_derived_again(catalog: Any) -> None:
    view = make(catalog)
    base = view.metadata
    current = base.current_version
    stale = current.replace(
        version_id=current.version_id + 1,
        representations=(
            SQLRepresentation(SECOND, "spark"),
            SQLRepresentation("SELECT 999 AS id, 'stale' AS data", "duckdb"),
        ),
        summary={**current.summary, "iceview.derived-dialects": "duckdb"},
    )
    committed = catalog.commit_view("ns.v", [], [AddViewVersion(stale), SetCurrentViewVersion(-1)])
    sql = sql_of(committed)
    assert "999" not in sql["duckdb"] and "id > 2" in sql["duckdb"]
    assert "id > 2" in sql["trino"]


def test_hand_written_dialects_keep_the_guard(catalog: Any) -> None:
    namespace(catalog)
    catalog.create_view(
        "ns.v",
        schema=SCHEMA,
        queries={"spark": FIRST, "trino": "SELECT id, data FROM ns.t WHERE id > 1 -- by hand"},
        default_namespace="ns",
        properties={"iceview.derive-dialects": "duckdb"},
    )
    view = catalog.load_view("ns.v")
    assert sql_of(view)["trino"].endswith("-- by hand")  # hand-written SQL is not derived over
    assert view.current_version.summary["iceview.derived-dialects"] == "duckdb"
    with pytest.raises(DialectDropError, match="loss of hand-written view dialects \\(trino\\)"):
        catalog.replace_view("ns.v", schema=SCHEMA, queries={"spark": SECOND}, default_namespace="ns")
    assert catalog.load_view("ns.v").current_version.version_id == 1  # nothing was committed
    kept = catalog.replace_view(
        "ns.v",
        schema=SCHEMA,
        queries={"spark": SECOND, "trino": "SELECT 2 -- by hand"},
        default_namespace="ns",
    )
    assert list(sql_of(kept)) == ["spark", "trino", "duckdb"]


def test_setting_the_property_then_sync(catalog: Any) -> None:
    namespace(catalog)
    view = catalog.create_view("ns.v", schema=SCHEMA, queries={"spark": FIRST}, default_namespace="ns")
    with pytest.raises(InvalidStateError, match="derives no dialects"):
        view.sync_dialects()
    view = view.update_properties().set("iceview.derive-dialects", "duckdb").commit()
    assert view.properties["replace.drop-dialect.allowed"] == "true"
    assert list(sql_of(view)) == ["spark"]  # a property change adds no version
    synced = view.sync_dialects()
    assert synced.current_version.version_id == 2
    assert list(sql_of(synced)) == ["spark", "duckdb"]
    # in step: nothing more is committed
    assert synced.sync_dialects().current_version.version_id == 2
    assert catalog.load_view("ns.v").current_version.version_id == 2
    with pytest.raises(InvalidArgumentError, match="unknown dialect snowflake"):
        synced.update_properties().set("iceview.derive-dialects", "duckdb,snowflake").commit()


def test_sync_after_a_writer_that_does_not_derive(catalog: Any) -> None:
    """A writer outside iceview's change path (Iceberg Java on the shared JDBC tables) writes only
    its own SQL; ``sync_dialects`` derives the rest in a new version."""
    from iceview.spec import apply

    view = make(catalog)
    ops = catalog.new_view_ops(view.identifier)
    base = ops.current()
    current = base.current_version
    native = current.replace(
        version_id=2,
        representations=(SQLRepresentation(SECOND, "spark"),),
        summary={"engine-name": "spark", "engine-version": "3.5.9"},
    )
    ops.commit(base, apply(base, [AddViewVersion(native), SetCurrentViewVersion(-1)]))
    written = catalog.load_view("ns.v")
    assert list(sql_of(written)) == ["spark"]
    synced = written.sync_dialects()
    assert synced.current_version.version_id == 3
    sql = sql_of(synced)
    assert list(sql) == ["spark", "trino", "duckdb"] and "id > 2" in sql["duckdb"]
    assert synced.current_version.summary["engine-name"] == "spark"  # the SQL's own engine is kept


def test_a_relation_named_by_a_catalog_alias_is_typed(tmp_path: Any) -> None:
    """SQL an engine wrote with its own name for the catalog (``iceview.catalog-aliases``: a Spark
    session's name for an ``iceview serve`` catalog) reads relations of this catalog: their schemas
    type the derived dialects, which a relation of no known schema would not get."""
    from iceview.catalog.sql import SqlCatalog

    sql = "SELECT id, data FROM sparks_name.ns.t WHERE id > 1"
    where = {"uri": f"sqlite:///{tmp_path}/c.db", "warehouse": (tmp_path / "w").as_uri()}
    plain = SqlCatalog("cat", **where)
    try:
        namespace(plain)
        assert plain.relation_schemas(sql, "spark", default_catalog=None, default_namespace=("ns",)) == {}
        refused = plain.create_view(
            "ns.v", schema=SCHEMA, queries={"spark": sql}, default_namespace="ns", properties=DERIVE
        )
        assert list(sql_of(refused)) == ["spark"]  # id > 1 of an unknown type: not proven
    finally:
        plain.close()
    aliased = SqlCatalog("cat", **where, **{"iceview.catalog-aliases": "sparks_name"})
    try:
        found = aliased.relation_schemas(sql, "spark", default_catalog=None, default_namespace=("ns",))
        assert [f.name for f in found[("sparks_name", "ns", "t")].fields] == ["id", "data"]
        view = aliased.replace_view("ns.v", schema=SCHEMA, queries={"spark": sql}, default_namespace="ns")
        assert list(sql_of(view)) == ["spark", "trino", "duckdb"]
    finally:
        aliased.close()
