"""Iceberg Java's ViewCatalogTests (core/src/test/java/org/apache/iceberg/view/ViewCatalogTests.java),
the cases that apply to a SQL catalog, on SQLite and on PostgreSQL.

The numbers in the test names are the case numbers of the reference's §6.1. Cases about *tables*
(3, 12-15, 24, 47) are PyIceberg's side of the shared database: see test_catalog_pyiceberg.py.
Tables here are real tables made by PyIceberg's SqlCatalog on the same database.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from catalog_support import (
    CATALOG_NAME,
    OTHER_SCHEMA,
    SCHEMA,
    TABLE_SCHEMA,
    CatalogEnv,
    file_path,
    metadata_files,
)

from iceview.catalog.sql import SqlCatalog
from iceview.errors import (
    CommitFailedError,
    InvalidArgumentError,
    InvalidStateError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchViewError,
    TableAlreadyExistsError,
    ViewAlreadyExistsError,
)
from iceview.spec import SQLRepresentation, ViewMetadata, ViewVersion

SPARK_SQL = "select * from ns.tbl"
TRINO_SQL = "select * from ns.tbl using X"


def make_table(tables: Any, ident: str) -> None:
    tables.create_table(ident, schema=TABLE_SCHEMA)


def create_basic(catalog: SqlCatalog, ident: str = "ns.view", **kw: Any) -> Any:
    kw.setdefault("schema", SCHEMA)
    kw.setdefault("queries", {"spark": SPARK_SQL})
    kw.setdefault("default_namespace", ("ns",))
    return catalog.create_view(ident, **kw)


# 1
def test_01_load_view_with_non_existing_namespace(catalog: SqlCatalog) -> None:
    assert not catalog.view_exists("non-existing.view")
    with pytest.raises(NoSuchViewError, match=r"^View does not exist: non-existing\.view$"):
        catalog.load_view("non-existing.view")


# 2
def test_02_load_view_that_already_exists_as_table(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    make_table(tables, "ns.table")
    assert catalog.table_exists("ns.table")
    assert not catalog.view_exists("ns.table")
    # Java's HiveCatalog names what the entry is (NoSuchIcebergViewException, a NoSuchViewException)
    message = (
        r"^Not an iceberg view: testCatalog\.ns\.table \(type=ICEBERG\) \(tableType=EXTERNAL_TABLE\)$"
        if catalog.catalog_type == "hive"
        else r"^View does not exist: ns\.table$"
    )
    with pytest.raises(NoSuchViewError, match=message):
        catalog.load_view("ns.table")


# 4
def test_04_basic_create_view(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    assert not catalog.view_exists("ns.view")
    view = create_basic(catalog)
    assert view.metadata_location is not None
    assert catalog.view_exists("ns.view")
    assert view.name == f"{CATALOG_NAME}.ns.view"
    assert [e.version_id for e in view.history] == [1]
    assert view.schema.schema_id == 0
    assert view.schema.as_struct() == SCHEMA.as_struct()
    assert view.current_version.operation == "create"
    assert set(view.schemas) == {0}
    expected = ViewVersion(
        version_id=1,
        timestamp_ms=view.current_version.timestamp_ms,
        schema_id=0,
        summary=view.current_version.summary,
        representations=(SQLRepresentation(SPARK_SQL, "spark"),),
        default_namespace=("ns",),
    )
    assert view.versions == (expected,)
    assert view.current_version.default_catalog is None

    assert catalog.drop_view("ns.view")
    assert not catalog.view_exists("ns.view")


# 5
def test_05_default_view_properties(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog, properties={"key2": "catalog-overridden-key2", "prop1": "val1"})
    assert view.properties["key1"] == "catalog-default-key1"
    assert view.properties["key2"] == "catalog-overridden-key2"
    assert view.properties["prop1"] == "val1"


# 6
def test_06_override_view_properties(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog, properties={"key4": "catalog-overridden-key4", "prop1": "val1"})
    assert view.properties["key1"] == "catalog-default-key1"
    assert view.properties["key2"] == "catalog-default-key2"
    assert view.properties["key3"] == "catalog-override-key3"
    assert view.properties["key4"] == "catalog-override-key4"
    assert view.properties["prop1"] == "val1"


# 7
def test_07_complete_create_view(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    location = env.warehouse_uri + "/custom-location"
    view = catalog.create_view(
        "ns.view",
        schema=SCHEMA,
        queries=[("spark", SPARK_SQL), ("trino", TRINO_SQL)],
        default_namespace=("ns",),
        default_catalog=catalog.name,
        properties={"prop1": "val1", "prop2": "val2"},
        location=location,
    )
    assert view.location == location
    assert view.properties["prop1"] == "val1" and view.properties["prop2"] == "val2"
    assert str(view.uuid) == view.metadata.uuid
    assert view.current_version.default_catalog == catalog.name
    assert view.current_version.representations == (
        SQLRepresentation(SPARK_SQL, "spark"),
        SQLRepresentation(TRINO_SQL, "trino"),
    )
    assert view.metadata_location is not None
    assert view.metadata_location.startswith(location + "/metadata/00000-")


# 8
def test_08_create_view_with_custom_metadata_location(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    custom = env.warehouse_uri + "/custom/metadata/location/"
    view = create_basic(catalog, properties={"write.metadata.path": custom})
    assert view.properties["write.metadata.path"] == custom
    assert view.metadata_location is not None
    assert view.metadata_location.startswith(custom.rstrip("/") + "/00000-")
    assert view.metadata_location.endswith(".gz.metadata.json")
    assert os.path.exists(file_path(view.metadata_location))


# 9
def test_09_create_view_error_cases(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    with pytest.raises(InvalidStateError, match=r"^Cannot create view without specifying a query$"):
        catalog.create_view("ns.view")
    with pytest.raises(InvalidStateError, match=r"^Cannot create view without specifying schema$"):
        catalog.create_view("ns.view", queries={"trino": TRINO_SQL})
    with pytest.raises(
        InvalidStateError, match=r"^Cannot create view without specifying a default namespace$"
    ):
        catalog.create_view("ns.view", queries={"trino": TRINO_SQL}, schema=SCHEMA)
    with pytest.raises(
        InvalidArgumentError, match="Invalid view version: Cannot add multiple queries for dialect trino"
    ):
        catalog.create_view(
            "ns.view",
            schema=SCHEMA,
            queries=[("trino", TRINO_SQL), ("trino", TRINO_SQL)],
            default_namespace=("ns",),
        )
    # a definition that is not a ViewDefinition (a mapping of queries, say) is refused by name
    with pytest.raises(InvalidArgumentError, match=r"^A view definition must be a ViewDefinition, not dict"):
        catalog.create_view("ns.view", {"trino": TRINO_SQL}, schema=SCHEMA)  # type: ignore[arg-type]
    assert not catalog.view_exists("ns.view")


# 10
def test_10_create_view_that_already_exists(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    create_basic(catalog)
    with pytest.raises(ViewAlreadyExistsError, match=r"^View already exists: ns\.view$"):
        create_basic(catalog, queries={"spark": "select 1"})
    # nothing was left behind by the failed attempt
    assert len(metadata_files(env.view_dir("ns", "view") / "metadata")) == 1


# 11
def test_11_create_view_that_already_exists_as_table(
    catalog: SqlCatalog, tables: Any, env: CatalogEnv
) -> None:
    catalog.create_namespace("ns")
    make_table(tables, "ns.table")
    with pytest.raises(TableAlreadyExistsError, match=r"^Table with same name already exists: ns\.table$"):
        create_basic(catalog, "ns.table")
    # the metadata file written before the insert failed was deleted (Java keeps it)
    view_metadata = env.view_dir("ns", "table") / "metadata"
    assert not [n for n in metadata_files(view_metadata) if ".gz.metadata.json" in n]


# 16
def test_16_replace_view_that_already_exists_as_table(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    make_table(tables, "ns.table")
    with pytest.raises(TableAlreadyExistsError, match=r"Table with same name already exists: ns\.table"):
        catalog.replace_view(
            "ns.table", schema=OTHER_SCHEMA, queries={"spark": "select 1"}, default_namespace="ns"
        )


# 17
def test_17_create_or_replace_view_that_already_exists_as_table(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    make_table(tables, "ns.table")
    with pytest.raises(TableAlreadyExistsError, match=r"^Table with same name already exists: ns\.table"):
        catalog.create_or_replace_view(
            "ns.table", schema=OTHER_SCHEMA, queries={"spark": "select 1"}, default_namespace="ns"
        )


def _comparable(metadata: ViewMetadata) -> dict[str, Any]:
    out = metadata.to_dict()
    out.pop("schemas")
    return out


# 18, 19
@pytest.mark.parametrize("target", ["ns.rename", "other_ns.rename"])
def test_18_19_rename_view(catalog: SqlCatalog, target: str) -> None:
    catalog.create_namespace("ns")
    catalog.create_namespace("other_ns")
    view = create_basic(catalog)
    original = view.metadata
    catalog.rename_view("ns.view", target)
    assert not catalog.view_exists("ns.view")
    assert catalog.view_exists(target)
    renamed = catalog.load_view(target)
    assert _comparable(renamed.metadata) == _comparable(original)
    assert renamed.metadata_location == original.metadata_file_location
    assert renamed.name == f"{CATALOG_NAME}.{target}"
    assert not catalog.drop_view("ns.view")
    assert catalog.drop_view(target)
    assert not catalog.view_exists(target)


# 20
def test_20_rename_view_namespace_missing(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    create_basic(catalog)
    with pytest.raises(NoSuchNamespaceError, match="Namespace does not exist: non_existing"):
        catalog.rename_view("ns.view", "non_existing.view")


# 21
def test_21_rename_view_source_missing(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    # Java's HiveCatalog names the view
    message = (
        r"^View does not exist: ns\.non_existing$"
        if catalog.catalog_type == "hive"
        else r"^View does not exist$"
    )
    with pytest.raises(NoSuchViewError, match=message):
        catalog.rename_view("ns.non_existing", "ns.target")


# 22
def test_22_rename_view_target_already_exists_as_view(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    create_basic(catalog, "ns.viewOne")
    create_basic(catalog, "ns.viewTwo")
    with pytest.raises(
        ViewAlreadyExistsError, match=r"Cannot rename ns\.viewOne to ns\.viewTwo\. View already exists"
    ):
        catalog.rename_view("ns.viewOne", "ns.viewTwo")


# 23
def test_23_rename_view_target_already_exists_as_table(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    make_table(tables, "ns.table")
    create_basic(catalog)
    with pytest.raises(
        TableAlreadyExistsError, match=r"Cannot rename ns\.view to ns\.table\. Table already exists"
    ):
        catalog.rename_view("ns.view", "ns.table")


# 25
def test_25_list_views(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns1")
    catalog.create_namespace("ns2")
    assert catalog.list_views("ns1") == []
    assert catalog.list_views("ns2") == []
    create_basic(catalog, "ns1.view1")
    assert catalog.list_views("ns1") == [("ns1", "view1")]
    assert catalog.list_views("ns2") == []
    create_basic(catalog, "ns2.view2")
    create_basic(catalog, "ns2.view3")
    assert catalog.list_views("ns1") == [("ns1", "view1")]
    assert sorted(catalog.list_views("ns2")) == [("ns2", "view2"), ("ns2", "view3")]
    catalog.drop_view("ns2.view2")
    assert catalog.list_views("ns2") == [("ns2", "view3")]
    catalog.drop_view("ns2.view3")
    assert catalog.list_views("ns2") == []
    catalog.drop_view("ns1.view1")
    assert catalog.list_views("ns1") == []


# 26
def test_26_list_views_in_empty_namespace(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    create_basic(catalog, "ns.view")
    create_basic(catalog, ("view",))
    assert catalog.view_exists(("view",))
    assert catalog.list_views(()) == [("view",)]
    assert catalog.list_views("ns") == [("ns", "view")]
    assert catalog.load_view("view").name == f"{CATALOG_NAME}.view"


# 27
def test_27_list_views_and_tables(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    make_table(tables, "ns.tbl")
    create_basic(catalog, "ns.view")
    assert catalog.list_views("ns") == [("ns", "view")]
    assert catalog.list_tables("ns") == [("ns", "tbl")]
    assert tables.list_tables("ns") == [("ns", "tbl")]


# 28
@pytest.mark.parametrize("use_create_or_replace", [False, True])
def test_28_create_or_replace_view(catalog: SqlCatalog, use_create_or_replace: bool) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog, properties={"prop1": "val1", "prop2": "val2"})
    v1 = view.current_version
    replace = catalog.create_or_replace_view if use_create_or_replace else catalog.replace_view
    replaced = replace(
        "ns.view",
        schema=OTHER_SCHEMA,
        queries={"trino": "select count(*) from ns.tbl"},
        default_namespace=("ns",),
        properties={"replace.drop-dialect.allowed": "true", "prop1": "new-val1", "prop3": "val3"},
    )
    props = replaced.properties
    assert props["prop1"] == "new-val1" and props["prop2"] == "val2" and props["prop3"] == "val3"
    assert props["key1"] == "catalog-default-key1"
    assert [e.version_id for e in replaced.history] == [1, 2]
    assert replaced.schema.schema_id == 1
    assert replaced.schema.as_struct() == OTHER_SCHEMA.as_struct()
    assert set(replaced.schemas) == {0, 1}
    assert [v.version_id for v in replaced.versions] == [1, 2]
    assert replaced.version(1) == v1
    v2 = replaced.current_version
    assert v2.version_id == 2 and v2.schema_id == 1 and v2.operation == "replace"
    assert v2.representations == (SQLRepresentation("select count(*) from ns.tbl", "trino"),)


def test_28b_create_or_replace_creates(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_or_replace_view(
        "ns.view", schema=SCHEMA, queries={"spark": SPARK_SQL}, default_namespace="ns"
    )
    assert view.current_version.version_id == 1


# 29
def test_29_replace_view_error_cases(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    create_basic(catalog)
    with pytest.raises(InvalidStateError, match=r"^Cannot replace view without specifying a query$"):
        catalog.replace_view("ns.view")
    with pytest.raises(InvalidStateError, match=r"^Cannot replace view without specifying schema$"):
        catalog.replace_view("ns.view", queries={"trino": TRINO_SQL})
    with pytest.raises(
        InvalidStateError, match=r"^Cannot replace view without specifying a default namespace$"
    ):
        catalog.replace_view("ns.view", queries={"trino": TRINO_SQL}, schema=SCHEMA)
    with pytest.raises(NoSuchViewError, match=r"^View does not exist: ns\.non_existing$"):
        catalog.replace_view(
            "ns.non_existing", queries={"trino": TRINO_SQL}, schema=SCHEMA, default_namespace="ns"
        )
    with pytest.raises(
        InvalidArgumentError, match=r"^Invalid view version: Cannot add multiple queries for dialect trino$"
    ):
        catalog.replace_view(
            "ns.view",
            schema=OTHER_SCHEMA,
            queries=[("trino", TRINO_SQL), ("trino", TRINO_SQL)],
            default_namespace="ns",
        )


# 30
def test_30_update_view_properties(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    history = view.history
    versions = view.versions
    first = view.metadata_location
    view.update_properties().set("key1", "val1").set("key2", "val2").remove("non-existing").commit()
    updated = catalog.load_view("ns.view")
    assert updated.properties["key1"] == "val1"
    assert updated.properties["key2"] == "val2"
    assert updated.history == history
    assert updated.versions == versions
    assert updated.metadata_location != first
    assert view.metadata_location == updated.metadata_location
    assert updated.metadata_location is not None and "/00001-" in updated.metadata_location
    # removing and an unchanged set still write a new file, as Java does
    updated.update_properties().remove("key1").commit()
    assert "key1" not in catalog.load_view("ns.view").properties
    updated.update_properties().set("key2", "val2").commit()
    assert "/00003-" in str(catalog.load_view("ns.view").metadata_location)
    # an empty change is no update at all: nothing is written (Java's CatalogHandlers skips it too)
    updated.update_properties().commit()
    assert "/00003-" in str(catalog.load_view("ns.view").metadata_location)


# 31
def test_31_update_view_properties_error_cases(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    with pytest.raises(InvalidArgumentError, match=r"^Invalid key: null$"):
        view.update_properties().set(None, "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^Invalid value: null$"):
        view.update_properties().set("key1", None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^Invalid key: null$"):
        view.update_properties().remove(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^Cannot remove and update the same key: key2$"):
        view.update_properties().set("key1", "a").set("key2", "b").remove("key2")
    with pytest.raises(InvalidArgumentError, match=r"^Cannot remove and update the same key: key2$"):
        view.update_properties().remove("key2").set("key2", "b")


# 32
def test_32_replace_view_version(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view(
        "ns.view",
        schema=SCHEMA,
        queries=[("trino", TRINO_SQL), ("spark", SPARK_SQL)],
        default_namespace=("ns",),
        properties={"replace.drop-dialect.allowed": "true"},
    )
    v1 = view.current_version
    view.replace_version(
        schema=OTHER_SCHEMA,
        queries={"trino": TRINO_SQL},
        default_catalog="default",
        default_namespace=("ns",),
    )
    updated = catalog.load_view("ns.view")
    assert [e.version_id for e in updated.history] == [1, 2]
    assert set(updated.schemas) == {0, 1}
    assert [v.version_id for v in updated.versions] == [1, 2]
    assert updated.version(1) == v1
    v2 = updated.current_version
    assert v2.version_id == v1.version_id + 1
    assert v2.operation == "replace"
    assert v2.schema_id == 1
    assert v2.default_catalog == "default"
    assert v2.representations == (SQLRepresentation(TRINO_SQL, "trino"),)


# 33
def test_33_replace_view_version_by_updating_sql_for_dialect(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    view.replace_version(
        schema=SCHEMA, queries={"spark": "select count(*) from ns.tbl"}, default_namespace="ns"
    )
    updated = catalog.load_view("ns.view")
    assert len(updated.history) == 2
    assert updated.current_version.version_id == 2
    assert updated.current_version.schema_id == 0
    assert updated.current_version.representations == (
        SQLRepresentation("select count(*) from ns.tbl", "spark"),
    )


# 34
def test_34_replace_view_version_error_cases(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    with pytest.raises(InvalidStateError, match=r"^Cannot replace view without specifying a query$"):
        view.replace_version()
    with pytest.raises(InvalidStateError, match=r"^Cannot replace view without specifying schema$"):
        view.replace_version(queries={"trino": TRINO_SQL})
    with pytest.raises(
        InvalidStateError, match=r"^Cannot replace view without specifying a default namespace$"
    ):
        view.replace_version(queries={"trino": TRINO_SQL}, schema=SCHEMA)
    with pytest.raises(
        InvalidArgumentError, match=r"^Invalid view version: Cannot add multiple queries for dialect trino$"
    ):
        view.replace_version(
            queries=[("trino", TRINO_SQL), ("trino", TRINO_SQL)], schema=SCHEMA, default_namespace="ns"
        )


# 35
def test_35_update_view_properties_conflict(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    update = view.update_properties().set("key1", "val1")
    assert catalog.drop_view("ns.view")
    with pytest.raises(NoSuchViewError, match=r"View does not exist: ns\.view"):
        update.commit()


# 36
def test_36_replace_view_version_conflict(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    assert catalog.drop_view("ns.view")
    with pytest.raises(NoSuchViewError, match=r"View does not exist: ns\.view"):
        view.replace_version(schema=SCHEMA, queries={"trino": TRINO_SQL}, default_namespace="ns")


# 37
def test_37_create_view_conflict(catalog: SqlCatalog, env: CatalogEnv) -> None:
    """A create that began (and saw no view) before another writer created the view."""
    catalog.create_namespace("ns")
    from iceview.catalog.identifiers import to_identifier

    ops = catalog.new_view_ops(to_identifier("ns.view"))
    assert ops.current() is None
    other = env.catalog()
    try:
        create_basic(other)
    finally:
        other.close()
    metadata = (
        ViewMetadata.builder()
        .set_location(env.warehouse_uri + "/ns/view")
        .set_current_version(
            ViewVersion(1, 0, 0, {}, (SQLRepresentation("select 2", "spark"),), ("ns",)), SCHEMA
        )
        .build()
    )
    with pytest.raises(ViewAlreadyExistsError, match=r"^View already exists: ns\.view$"):
        ops.commit(None, metadata)
    assert len(metadata_files(env.view_dir("ns", "view") / "metadata")) == 1


# 38
def test_38_replace_view_conflict(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    create_basic(catalog)
    assert catalog.drop_view("ns.view")
    with pytest.raises(NoSuchViewError, match=r"^View does not exist: ns\.view"):
        catalog.replace_view("ns.view", schema=SCHEMA, queries={"trino": TRINO_SQL}, default_namespace="ns")


# 39
def test_39_create_and_replace_view_with_location(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    location = env.warehouse_uri + "/location-1"
    view = create_basic(catalog, location=location)
    assert view.location == location
    new_location = env.warehouse_uri + "/location-2"
    view = catalog.replace_view(
        "ns.view", schema=SCHEMA, queries={"spark": "select 2"}, default_namespace="ns", location=new_location
    )
    assert view.location == new_location
    # the new metadata file goes under the new location
    assert str(view.metadata_location).startswith(new_location + "/metadata/00001-")


# 40
def test_40_update_view_location(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    history, versions = view.history, view.versions
    new_location = env.warehouse_uri + "/new_location"
    view.update_location(new_location)
    updated = catalog.load_view("ns.view")
    assert updated.location == new_location
    assert updated.history == history
    assert updated.versions == versions


# 41
def test_41_update_view_location_conflict(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    with pytest.raises(InvalidStateError, match=r"^Invalid view location: null$"):
        view.update_location(None)
    assert catalog.drop_view("ns.view")
    with pytest.raises(NoSuchViewError, match=r"^View does not exist: ns\.view$"):
        view.update_location(env.warehouse_uri + "/new_location")


# 42
def test_42_concurrent_replace_view_version(catalog: SqlCatalog, env: CatalogEnv) -> None:
    catalog.create_namespace("ns")
    create_basic(catalog)
    one = catalog.load_view("ns.view")
    two = catalog.load_view("ns.view")
    base_one = one.metadata
    base_two = two.metadata

    def replaced(base: ViewMetadata, schema: Any, sql: str, dialect: str) -> ViewMetadata:
        version = ViewVersion(2, 1, schema.schema_id, {}, (SQLRepresentation(sql, dialect),), ("ns",))
        return (
            ViewMetadata.build_from(base)
            .set_properties({"replace.drop-dialect.allowed": "true"})
            .set_current_version(version, schema)
            .build()
        )

    # without retries (Java's ops.commit): the second commit fails
    one.operations.commit(base_one, replaced(base_one, SCHEMA, "select count(id) from ns.tbl", "trino"))
    with pytest.raises(CommitFailedError, match="Cannot commit"):
        two.operations.commit(
            base_two, replaced(base_two, OTHER_SCHEMA, "select count(some_id) from ns.tbl", "spark")
        )
    view = catalog.load_view("ns.view")
    assert {v.version_id: v.representations[0].dialect for v in view.versions} == {  # type: ignore[union-attr]
        1: "spark",
        2: "trino",
    }
    # iceview's replace_version retries on a refreshed base (as Java's REST server does)
    three = catalog.load_view("ns.view")
    four = catalog.load_view("ns.view")
    three.replace_version(schema=OTHER_SCHEMA, queries={"spark": "select 3"}, default_namespace="ns")
    four.replace_version(
        schema=SCHEMA, queries={"trino": "select count(id) from ns.tbl"}, default_namespace="ns"
    )
    final = catalog.load_view("ns.view")
    assert [v.version_id for v in final.versions] == [1, 2, 3, 4]
    assert final.current_version.version_id == 4
    assert final.current_version.schema_id == 0  # the schema was reused
    # the failed commit's file was removed: one file per successful commit
    assert len(metadata_files(env.view_dir("ns", "view") / "metadata")) == 4


# 43-45
def test_43_45_sql_for(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = catalog.create_view(
        "ns.view",
        schema=SCHEMA,
        queries=[("spark", SPARK_SQL), ("trino", TRINO_SQL)],
        default_namespace="ns",
    )
    assert view.sql_for("spark") == SQLRepresentation(SPARK_SQL, "spark")
    assert view.sql_for("trino") == SQLRepresentation(TRINO_SQL, "trino")
    assert view.sql_for("SPARK") == SQLRepresentation(SPARK_SQL, "spark")
    assert view.sql_for("TRINO") == SQLRepresentation(TRINO_SQL, "trino")
    # Java falls back to the first representation; iceview does with fallback=True
    assert view.sql_for("unknown-dialect") is None
    assert view.sql_for("unknown-dialect", fallback=True) == SQLRepresentation(SPARK_SQL, "spark")
    with pytest.raises(InvalidArgumentError, match=r"^Invalid dialect: null$"):
        view.sql_for(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^Invalid dialect: \(empty string\)$"):
        view.sql_for("")


# 46
def test_46_drop_non_empty_namespace(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    make_table(tables, "ns.table")
    create_basic(catalog)
    hive = catalog.catalog_type == "hive"  # Java's HiveCatalog does not count
    with pytest.raises(
        NamespaceNotEmptyError,
        match=r"^Namespace ns is not empty\. "
        + (r"One or more tables exist\.$" if hive else r"Contains 1 table\(s\)\.$"),
    ):
        catalog.drop_namespace("ns")
    tables.drop_table("ns.table")
    with pytest.raises(
        NamespaceNotEmptyError,
        match=r"^Namespace ns is not empty\. "
        + (r"One or more tables exist\.$" if hive else r"Contains 1 view\(s\)\.$"),
    ):
        catalog.drop_namespace("ns")
    assert catalog.drop_view("ns.view")
    assert catalog.drop_namespace("ns")
    assert not catalog.namespace_exists("ns")
    assert not catalog.drop_namespace("ns")


# 48
def test_48_register_view(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog, properties={"gc.enabled": "false"})
    original = view.metadata
    location = view.metadata_location
    assert location is not None
    assert catalog.drop_view("ns.view")
    assert os.path.exists(file_path(location))
    registered = catalog.register_view("ns.view", location)
    assert registered.name == f"{CATALOG_NAME}.ns.view"
    assert [e.version_id for e in registered.history] == [1]
    assert set(registered.schemas) == {0}
    assert registered.current_version.operation == "create"
    assert registered.versions == original.versions
    assert registered.metadata_location == location
    assert catalog.load_view("ns.view").metadata == original
    # the next commit numbers on from the registered file
    registered.update_properties().set("k", "v").commit()
    assert "/00001-" in str(registered.metadata_location)


def test_48b_register_view_errors(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    with pytest.raises(
        InvalidArgumentError, match=r"^Cannot register an empty metadata file location as a view$"
    ):
        catalog.register_view("ns.view", "")


# 49
def test_49_register_existing_view(catalog: SqlCatalog) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog)
    with pytest.raises(ViewAlreadyExistsError, match=r"^View already exists: ns\.view"):
        catalog.register_view("ns.view", str(view.metadata_location))


# 50
def test_50_register_view_that_already_exists_as_table(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    view = create_basic(catalog, "ns.v", properties={"gc.enabled": "false"})
    location = str(view.metadata_location)
    make_table(tables, "ns.view")
    with pytest.raises(TableAlreadyExistsError, match=r"^Table with same name already exists: ns\.view"):
        catalog.register_view("ns.view", location)


# TestJdbcViewCatalog: drop honours gc.enabled
@pytest.mark.parametrize("gc_enabled", [None, "true", "false", "FALSE", "TRUE"])
def test_drop_honours_gc_enabled(catalog: SqlCatalog, gc_enabled: str | None) -> None:
    catalog.create_namespace("ns")
    props = {} if gc_enabled is None else {"gc.enabled": gc_enabled}
    view = create_basic(catalog, properties=props)
    view.update_properties().set("a", "b").commit()
    first_dir = Path(file_path(str(view.metadata_location))).parent
    current = file_path(str(view.metadata_location))
    assert catalog.drop_view("ns.view")
    kept = gc_enabled is not None and gc_enabled.lower() == "false"
    assert os.path.exists(current) == kept
    # as Java, only the current metadata file is deleted
    assert len(metadata_files(first_dir)) == (2 if kept else 1)


def test_list_views_in_an_empty_root_namespace_is_empty(tmp_path: Path) -> None:
    from iceview.catalog.sql import SqlCatalog

    catalog = SqlCatalog("empty", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file:{tmp_path}/w")
    assert catalog.list_views(()) == []
