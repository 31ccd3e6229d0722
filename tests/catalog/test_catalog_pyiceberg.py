"""PyIceberg 0.12's SqlCatalog on the same database: it keeps listing and loading its tables, and
never sees our views as tables (the table side of ViewCatalogTests: cases 3, 12, 24, 47)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from catalog_support import SCHEMA, TABLE_SCHEMA, CatalogEnv
from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.exceptions import TableAlreadyExistsError as PyIcebergTableAlreadyExistsError

from iceview.catalog.sql import SqlCatalog


def _view(catalog: SqlCatalog, ident: str = "ns.view") -> Any:
    return catalog.create_view(
        ident, schema=SCHEMA, queries={"spark": "SELECT * FROM ns.t"}, default_namespace="ns"
    )


def test_pyiceberg_tables_next_to_our_views(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    table = tables.create_table("ns.t", schema=TABLE_SCHEMA)
    table.append(pa.table({"id": pa.array([1, 2, 3], pa.int32())}))
    view = _view(catalog)
    view.replace_version(schema=SCHEMA, queries={"spark": "SELECT id FROM ns.t"}, default_namespace="ns")
    view.update_properties().set("comment", "c").commit()
    catalog.rename_view("ns.view", "ns.view2")

    # PyIceberg lists and loads its table, and reads its data
    assert tables.list_tables("ns") == [("ns", "t")]
    loaded = tables.load_table("ns.t")
    assert loaded.scan().to_arrow().num_rows == 3
    assert tables.table_exists("ns.t")
    # and never sees the view as a table (3: loadTableThatAlreadyExistsAsView)
    assert not tables.table_exists("ns.view2")
    with pytest.raises(NoSuchTableError):
        tables.load_table("ns.view2")
    # ours lists the view and the table apart
    assert catalog.list_views("ns") == [("ns", "view2")]
    assert catalog.list_tables("ns") == [("ns", "t")]
    assert tables.list_namespaces() == [("ns",)]


def test_pyiceberg_cannot_take_a_views_name(catalog: SqlCatalog, tables: Any) -> None:
    catalog.create_namespace("ns")
    view = _view(catalog)
    location = str(view.metadata_location)
    # 12: creating a table with a view's name
    with pytest.raises(PyIcebergTableAlreadyExistsError):
        tables.create_table("ns.view", schema=TABLE_SCHEMA)
    # 47: registering a table under a view's name
    t = tables.create_table("ns.t", schema=TABLE_SCHEMA)
    with pytest.raises(PyIcebergTableAlreadyExistsError):
        tables.register_table("ns.view", t.metadata_location)
    # 24: renaming a table onto a view's name
    with pytest.raises(PyIcebergTableAlreadyExistsError):
        tables.rename_table("ns.t", "ns.view")
    # dropping "the table" named like the view drops nothing (PyIceberg filters on iceberg_type)
    with pytest.raises(NoSuchTableError):
        tables.drop_table("ns.view")
    assert catalog.load_view("ns.view").metadata_location == location
    assert tables.load_table("ns.t") is not None


def test_pyiceberg_made_the_database_first(env: CatalogEnv) -> None:
    """A database that PyIceberg created (its own V1 layout) takes views."""
    tables = env.pyiceberg()
    tables.create_namespace("ns")
    tables.create_table("ns.t", schema=TABLE_SCHEMA)
    catalog = env.catalog()
    assert catalog.schema_version == "V1"
    _view(catalog)
    assert catalog.list_views("ns") == [("ns", "view")]
    assert tables.list_tables("ns") == [("ns", "t")]
    catalog.close()
    tables.engine.dispose()


def test_namespaces_are_shared(catalog: SqlCatalog, tables: Any) -> None:
    tables.create_namespace("made_by_pyiceberg", {"owner": "py"})
    catalog.create_namespace("made_by_iceview", {"owner": "ice"})
    assert catalog.load_namespace_properties("made_by_pyiceberg")["owner"] == "py"
    assert tables.load_namespace_properties("made_by_iceview")["owner"] == "ice"
    assert sorted(tables.list_namespaces()) == [("made_by_iceview",), ("made_by_pyiceberg",)]
    assert catalog.list_namespaces() == [("made_by_iceview",), ("made_by_pyiceberg",)]
    _view(catalog, "made_by_pyiceberg.v")
    assert catalog.list_views("made_by_pyiceberg") == [("made_by_pyiceberg", "v")]
