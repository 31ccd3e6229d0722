"""``iceview serve`` on a Hive Metastore catalog (``type=hive``), a real process on the session's
metastore (``fixtures.hms_server``), configured as a user would (``PYICEBERG_CATALOG__SERVED__TYPE=hive``,
``__URI=thrift://...``, ``__WAREHOUSE``; ``fixtures.iceview_serve``).

* :func:`test_rest_clients_write_views_into_the_metastore`: iceview's and PyIceberg's REST clients
  create, load, list, replace, rename and drop views (and a table) through the server; each step is
  checked in the metastore with the raw Thrift client (``tableType=VIRTUAL_VIEW``,
  ``table_type=ICEBERG-VIEW``, the metadata pointers), and concurrent table and view loads all
  answer.
* :func:`test_hive_table_catalog_is_one_per_thread`: the server gives each request thread its own
  PyIceberg ``HiveCatalog`` (PyIceberg 0.12's keeps one Thrift transport that two threads' calls
  break: ~2% of concurrent table loads failed with ``TTransportException`` before), and shares a
  SQL catalog's.
"""

from __future__ import annotations

import json
import threading
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

from fixtures.hms_server import HmsServer
from fixtures.iceview_serve import IceviewServer, start_iceview_server
from iceview.catalog import load_catalog

SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False),
    NestedField(2, "name", StringType(), required=False, doc="a name"),
)
# the session's metastore expires a lock after 15 s without a heartbeat (tests/catalog/catalog_support.py)
HEARTBEAT = {"iceberg.hive.lock-heartbeat-interval-ms": "4000"}


@pytest.fixture(scope="module")
def hive_served(
    hive_metastore: HmsServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[IceviewServer]:
    """``iceview serve`` of a Hive catalog on the session's metastore."""
    server = start_iceview_server(
        tmp_path_factory.mktemp("hive-serve"), hive_uri=hive_metastore.uri, properties=HEARTBEAT
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def database(hive_metastore: HmsServer) -> Iterator[str]:
    """A database name of the test's own, dropped (with what it holds) afterwards."""
    name = "srv_" + uuid.uuid4().hex[:8]
    yield name
    with hive_metastore.client() as client:
        if name in client.get_all_databases():
            client.drop_database(name, False, True)


def hms_table(metastore: HmsServer, database: str, name: str) -> Any:
    """The metastore's entry of ``database.name`` (Thrift's ``Table``), or None."""
    from hive_metastore.ttypes import NoSuchObjectException

    with metastore.client() as client:
        try:
            return client.get_table(database, name)
        except NoSuchObjectException:
            return None


def get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=60) as response:
        loaded: dict[str, Any] = json.loads(response.read())
    return loaded


@pytest.mark.hive
def test_rest_clients_write_views_into_the_metastore(
    hive_served: IceviewServer, hive_metastore: HmsServer, database: str
) -> None:
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog
    from pyiceberg.view.metadata import SQLViewRepresentation, ViewVersion

    ours = load_catalog("hive_rest", type="rest", uri=hive_served.uri)
    py = PyIcebergRestCatalog("py", uri=hive_served.uri)
    db = database

    # a namespace is a Hive database, in the served catalog's warehouse
    ours.create_namespace(db, {"comment": "made over REST"})
    with hive_metastore.client() as client:
        made = client.get_database(db)
    assert made.description == "made over REST"
    assert made.locationUri.rstrip("/").endswith(f"{hive_served.warehouse}/{db}.db")
    assert (db,) in py.list_namespaces()

    # a table through the server's table endpoints (PyIceberg's HiveCatalog behind them)
    table = py.create_table((db, "t"), SCHEMA)
    table.append(
        pa.table(
            {"id": pa.array([1, 2, 3], pa.int32()), "name": ["Zoë", None, "東京"]},
            schema=table.schema().as_arrow(),
        )
    )
    entry = hms_table(hive_metastore, db, "t")
    assert entry.tableType == "EXTERNAL_TABLE" and entry.parameters["table_type"] == "ICEBERG"
    rows = py.load_table((db, "t")).scan().to_arrow().sort_by("id").to_pylist()
    assert rows == [{"id": 1, "name": "Zoë"}, {"id": 2, "name": None}, {"id": 3, "name": "東京"}]

    # create (iceview's client): a VIRTUAL_VIEW of table_type ICEBERG-VIEW pointing at the file
    spark_sql = f"SELECT id, name FROM {db}.t WHERE id > 1"
    view = ours.create_view(
        (db, "v"), schema=SCHEMA, queries={"spark": spark_sql}, default_namespace=(db,), properties={"k": "1"}
    )
    assert str(view.metadata_location).startswith(f"file:{hive_served.warehouse}/{db}.db/v/metadata/00000-")
    entry = hms_table(hive_metastore, db, "v")
    assert entry.tableType == "VIRTUAL_VIEW"
    assert entry.parameters["table_type"] == "ICEBERG-VIEW"
    assert entry.parameters["metadata_location"] == view.metadata_location
    assert entry.parameters["uuid"] == str(view.uuid)
    assert entry.parameters["k"] == "1"
    assert "previous_metadata_location" not in entry.parameters
    assert entry.viewOriginalText == entry.viewExpandedText == spark_sql
    assert [(c.name, c.type, c.comment) for c in entry.sd.cols] == [
        ("id", "int", None),
        ("name", "string", "a name"),
    ]

    # create (PyIceberg's client)
    py.create_view(
        (db, "w"),
        SCHEMA,
        ViewVersion(
            version_id=1,
            schema_id=0,
            timestamp_ms=1_700_000_000_000,
            summary={"engine-name": "pyiceberg"},
            representations=[
                SQLViewRepresentation(type="sql", sql="SELECT 1 AS id, 'x' AS name", dialect="spark")
            ],
            default_namespace=[db],
        ),
    )
    assert hms_table(hive_metastore, db, "w").parameters["table_type"] == "ICEBERG-VIEW"

    # load and list: both clients, views apart from tables
    loaded = py.load_view((db, "v")).metadata
    assert loaded.view_uuid == str(view.uuid) and loaded.current_version_id == 1
    assert ours.load_view((db, "w")).sql_for("spark").sql == "SELECT 1 AS id, 'x' AS name"
    assert py.list_views(db) == [(db, "v"), (db, "w")] == ours.list_views(db)
    assert py.list_tables(db) == [(db, "t")] == ours.table_catalog().list_tables(db)
    assert py.view_exists((db, "v")) and not py.view_exists((db, "t"))

    # replace: the pointer moves, the previous one is kept, the properties merge
    replaced = ours.replace_view(
        (db, "v"),
        schema=SCHEMA,
        queries={"spark": f"SELECT id, upper(name) AS name FROM {db}.t"},
        default_namespace=(db,),
    )
    assert replaced.current_version.version_id == 2
    entry = hms_table(hive_metastore, db, "v")
    assert entry.parameters["metadata_location"] == replaced.metadata_location
    assert entry.parameters["previous_metadata_location"] == view.metadata_location
    assert entry.parameters["k"] == "1"
    assert py.load_view((db, "v")).metadata.current_version_id == 2

    # concurrent loads through the server: every answer is a 200 with the same pointer
    base = hive_served.uri + f"v1/namespaces/{db}"

    def load(i: int) -> str:
        kind = "tables/t" if i % 2 else "views/v"
        return str(get_json(f"{base}/{kind}")["metadata-location"])

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(load, range(96)))
    assert set(answers) == {replaced.metadata_location, py.load_table((db, "t")).metadata_location}

    # rename and drop: the entries go from the metastore
    ours.rename_view((db, "w"), (db, "w2"))
    assert hms_table(hive_metastore, db, "w") is None
    assert hms_table(hive_metastore, db, "w2").parameters["table_type"] == "ICEBERG-VIEW"
    py.drop_view((db, "w2"))
    assert ours.drop_view((db, "v"))
    assert hms_table(hive_metastore, db, "v") is None and hms_table(hive_metastore, db, "w2") is None
    with hive_metastore.client() as client:
        assert client.get_all_tables(db) == ["t"]
    # as Java's CatalogUtil.dropViewMetadata: the current metadata file goes, earlier ones stay
    metadata = Path(hive_served.warehouse, f"{db}.db", "v", "metadata")
    assert [p.name for p in metadata.iterdir()] == [str(view.metadata_location).rsplit("/", 1)[1]]
    ours.close()


def test_hive_table_catalog_is_one_per_thread(tmp_path: Path) -> None:
    from iceview.server.context import ServedCatalog

    # no metastore is needed: creating PyIceberg's HiveCatalog opens no connection
    hive = ServedCatalog(
        "h", load_catalog("h", type="hive", uri="thrift://127.0.0.1:1", warehouse=f"file://{tmp_path}/h")
    )
    sql = ServedCatalog(
        "s", load_catalog("s", type="sql", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/s")
    )
    here = (hive.tables(), sql.tables())
    assert hive.tables() is here[0] and sql.tables() is here[1]
    there: list[Any] = []
    worker = threading.Thread(target=lambda: there.extend((hive.tables(), hive.tables(), sql.tables())))
    worker.start()
    worker.join()
    assert there[0] is there[1] and there[0] is not here[0]  # the Hive catalog's: one per thread
    assert there[2] is here[1]  # the SQL catalog's: one, shared
    hive.close()
    sql.close()
