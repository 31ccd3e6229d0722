"""Trino 476 reads views of a Hive Metastore catalog through ``iceview serve`` (``docs/trino.md``).

Trino's catalog ``iceview_hive`` is ``iceberg.catalog.type=rest`` on an ``iceview serve`` whose
catalog is ``type=hive`` on the session's metastore (``fixtures.trino_server``: the session's Trino
has it when a test marked ``trino`` and ``hive`` runs). iceview's ``HiveCatalog`` of the same name
writes the views straight into the metastore; PyIceberg's ``HiveCatalog`` writes the table, which
Trino loads through the server's table endpoints (PyIceberg's ``HiveCatalog`` behind them).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from decimal import Decimal

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import DecimalType, IntegerType, NestedField, StringType

from fixtures.hms_server import HmsServer
from fixtures.trino_server import HIVE_CATALOG, TrinoCatalogs

pytestmark = [pytest.mark.trino, pytest.mark.postgres, pytest.mark.hive]

SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "amount", DecimalType(10, 2), required=False),
)
ROWS = [[1, "Zoë", Decimal("12.50")], [2, None, Decimal("-0.01")], [3, "東京 ☃", None]]
DERIVE = "iceview.derive-dialects"


@pytest.fixture
def database(trino: TrinoCatalogs, hive_metastore: HmsServer) -> Iterator[str]:
    """A database of the test's own holding table ``items`` (:data:`ROWS`), written by PyIceberg's
    ``HiveCatalog`` straight into the metastore; dropped with what it holds afterwards."""
    import pyarrow as pa

    name = "tr_" + uuid.uuid4().hex[:8]
    catalog = trino.iceview_hive()
    catalog.create_namespace(name)
    tables = catalog.table_catalog()
    table = tables.create_table((name, "items"), SCHEMA)
    table.append(
        pa.Table.from_pylist(
            [dict(zip(("id", "name", "amount"), r, strict=True)) for r in ROWS], table.schema().as_arrow()
        )
    )
    catalog.close()
    yield name
    with hive_metastore.client() as client:
        client.drop_database(name, False, True)


def test_trino_reads_hive_views_through_iceview_serve(
    trino: TrinoCatalogs, hive_metastore: HmsServer, database: str
) -> None:
    from pyiceberg.types import LongType

    db = database
    hive = trino.iceview_hive()
    # Spark SQL with the trino dialect derived in the same commit (iceview's catalog has Trino's
    # name, so the derived SQL names the table as Trino does)
    derived = hive.create_view(
        (db, "named"),
        schema=Schema(
            NestedField(1, "id", IntegerType(), required=False),
            NestedField(2, "name", StringType(), required=False),
        ),
        queries={"spark": "SELECT id, coalesce(name, '-') AS name FROM items WHERE amount IS NOT NULL"},
        default_namespace=(db,),
        properties={DERIVE: "trino"},
    )
    assert f"{HIVE_CATALOG}.{db}.items" in derived.sql_for("trino").sql
    # Trino SQL given by hand: unqualified names through default-catalog (Trino's name)
    hive.create_view(
        (db, "by_hand"),
        schema=SCHEMA,
        queries={"trino": "SELECT id, name, amount FROM items"},
        default_namespace=(db,),
        default_catalog=HIVE_CATALOG,
    )
    # a view over a view, derived too
    nested = hive.create_view(
        (db, "nested"),
        schema=Schema(NestedField(1, "n", LongType(), required=True)),
        queries={"spark": "SELECT count(*) AS n FROM named WHERE name <> '-'"},
        default_namespace=(db,),
        properties={DERIVE: "trino"},
    )
    assert f"{HIVE_CATALOG}.{db}.named" in nested.sql_for("trino").sql

    catalog = f"{HIVE_CATALOG}.{db}"
    assert {r[0] for r in trino.query(f"SHOW TABLES FROM {catalog}")} == {
        "items",
        "named",
        "by_hand",
        "nested",
    }
    assert sorted(trino.query(f"SELECT * FROM {catalog}.items")) == sorted(ROWS, key=lambda r: r[0])
    assert sorted(trino.query(f"SELECT * FROM {catalog}.named")) == [[1, "Zoë"], [2, "-"]]
    assert sorted(trino.query(f"SELECT * FROM {catalog}.by_hand"), key=lambda r: r[0]) == ROWS
    assert trino.query(f"SELECT * FROM {catalog}.nested") == [[1]]
    shown = trino.query(
        f"SELECT table_name FROM {HIVE_CATALOG}.information_schema.views WHERE table_schema = '{db}' ORDER BY 1"
    )
    assert shown == [["by_hand"], ["named"], ["nested"]]

    # a replace in the metastore is what Trino reads next (no cache between them), its trino SQL
    # derived again
    hive.replace_view(
        (db, "named"),
        schema=derived.schema,
        queries={"spark": "SELECT id, coalesce(name, '?') AS name FROM items WHERE id >= 2"},
        default_namespace=(db,),
    )
    assert sorted(trino.query(f"SELECT * FROM {catalog}.named"), key=lambda r: r[0]) == [
        [2, "?"],
        [3, "東京 ☃"],
    ]

    # and a view Trino creates through the server lands in the metastore as an Iceberg view
    trino.query(f"CREATE VIEW {catalog}.from_trino AS SELECT id * 2 AS twice FROM {catalog}.items")
    with hive_metastore.client() as client:
        entry = client.get_table(db, "from_trino")
    assert entry.tableType == "VIRTUAL_VIEW" and entry.parameters["table_type"] == "ICEBERG-VIEW"
    made = hive.load_view((db, "from_trino"))
    assert made.metadata_location == entry.parameters["metadata_location"]
    assert made.sql_for("trino") is not None
    assert sorted(trino.query(f"SELECT * FROM {catalog}.from_trino")) == [[2], [4], [6]]
    hive.close()
