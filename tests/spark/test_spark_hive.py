"""SparkViews on a Hive Metastore catalog: iceview's ``HiveCatalog`` for the views and Iceberg-Spark's
``type=hive`` catalog for the tables, on the session's metastore (``fixtures.hms_server``) and one
warehouse, as docs/spark.md shows ("SparkViews on a Hive Metastore").

Spark's catalog ``hive_sv`` is configured with ``iceview.spark.iceberg_catalog_conf(catalog)``, in a
session without Iceberg's SQL extensions that shares the test process's Spark (``java_spark``), so
the views can only be read through SparkViews; the session with the extensions reads them natively
as well. Spark Connect: ``tests/spark/test_spark_remote.py::test_spark4_connect_hive``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from fixtures.hms_server import HmsServer
from fixtures.java_session import JavaSpark, plain_session

CATALOG = "hive_sv"  # Spark's catalog and iceview's have the same name
LOCKS = "iceberg.engine.hive.lock-enabled"
# the session's metastore expires a lock after 15 s without a heartbeat (tests/catalog/catalog_support.py)
HEARTBEAT = {"iceberg.hive.lock-heartbeat-interval-ms": "4000"}
ROWS = [(1, "12.50", "Zoë"), (2, None, "東京"), (3, "-0.01", None), (4, "7.00", "naïve")]


@dataclass
class HiveSpark:
    catalog: Any  # iceview's HiveCatalog
    plain: Any  # a SparkSession without Iceberg's extensions, catalog `hive_sv` registered
    native: Any  # the session's Spark with Iceberg's extensions, the same catalog registered
    views: Any  # SparkViews(plain, catalog)

    def ours(self, sql: str) -> list[dict[str, Any]]:
        return [r.asDict(recursive=True) for r in self.views.sql(sql).collect()]

    def java(self, sql: str) -> list[dict[str, Any]]:
        return [r.asDict(recursive=True) for r in self.native.sql(sql).collect()]


@pytest.fixture(scope="module")
def hive_spark(
    java_spark: JavaSpark, hive_metastore: HmsServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HiveSpark]:
    import iceview
    from iceview.spark import SparkViews, iceberg_catalog_conf

    warehouse = "file://" + str(tmp_path_factory.mktemp("spark-hive") / "warehouse")
    catalog = iceview.load_catalog(
        CATALOG, type="hive", uri=hive_metastore.uri, warehouse=warehouse, **HEARTBEAT
    )
    conf = iceberg_catalog_conf(catalog)
    native = java_spark.spark
    assert native.conf.get(f"spark.sql.catalog.{CATALOG}", None) is None
    for key, value in conf.items():
        native.conf.set(key, value)
    plain = plain_session(native, conf)
    try:
        yield HiveSpark(catalog, plain, native, SparkViews(plain, catalog))
    finally:
        catalog.close()


@pytest.fixture
def database(hive_spark: HiveSpark, hive_metastore: HmsServer) -> Iterator[str]:
    """A database with table ``t`` (id INT, amount DECIMAL(10,2), name STRING) made by Iceberg-Spark
    (:data:`ROWS`); dropped with what it holds afterwards."""
    name = "sv_" + uuid.uuid4().hex[:8]
    spark = hive_spark.plain
    spark.sql(f"CREATE NAMESPACE {CATALOG}.{name}")
    spark.sql(f"CREATE TABLE {CATALOG}.{name}.t (id INT, amount DECIMAL(10,2), name STRING) USING iceberg")
    values = ", ".join(
        f"({i}, {'NULL' if a is None else f'{a}BD'}, {'NULL' if n is None else repr(n)})" for i, a, n in ROWS
    )
    spark.sql(f"INSERT INTO {CATALOG}.{name}.t VALUES {values}")
    yield name
    with hive_metastore.client() as client:
        client.drop_database(name, False, True)


def test_iceberg_catalog_conf_of_a_hive_catalog(tmp_path: Path) -> None:
    """Iceberg's ``HiveCatalog`` on the same metastore and warehouse; Java reads the lock mode and
    the ``iceberg.hive.*`` settings from the catalog's Hadoop configuration (``hadoop.`` keys)."""
    import iceview
    from iceview.spark import iceberg_catalog_conf

    uri, warehouse = "thrift://127.0.0.1:1,thrift://127.0.0.1:2", f"file://{tmp_path}/wh"
    catalog = iceview.load_catalog("hms", type="hive", uri=uri, warehouse=warehouse)  # connects to nothing
    prefix = "spark.sql.catalog.lake"
    assert iceberg_catalog_conf(catalog, "lake") == {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "hive",
        f"{prefix}.cache-enabled": "false",
        f"{prefix}.uri": uri,
        f"{prefix}.warehouse": warehouse,
        f"{prefix}.hadoop.{LOCKS}": "true",
    }
    tuned = iceview.load_catalog(
        "hms",
        type="hive",
        uri=uri,
        **{
            LOCKS: "False",
            "iceberg.hive.lock-timeout-ms": "5000",
            "hive.metastore.client.socket.timeout": "30",
        },
    )
    conf = iceberg_catalog_conf(tuned)
    assert "spark.sql.catalog.hms.warehouse" not in conf
    assert {k: v for k, v in conf.items() if ".hadoop." in k} == {
        f"spark.sql.catalog.hms.hadoop.{LOCKS}": "false",
        "spark.sql.catalog.hms.hadoop.iceberg.hive.lock-timeout-ms": "5000",
        "spark.sql.catalog.hms.hadoop.hive.metastore.client.socket.timeout": "30",
    }


@pytest.mark.java
@pytest.mark.hive
def test_spark_views_on_a_hive_catalog(
    hive_spark: HiveSpark, hive_metastore: HmsServer, database: str
) -> None:
    from pyspark.errors import AnalysisException

    db = f"{CATALOG}.{database}"
    env = hive_spark
    assert env.views.registered  # `hive_sv` is a Spark catalog: names resolve as Spark resolves them

    env.views.sql(
        f"CREATE VIEW {db}.v COMMENT 'rows with a name' AS SELECT id, amount, name FROM {db}.t WHERE name IS NOT NULL"
    )
    with_name = [
        {"id": i, "amount": None if a is None else Decimal(a), "name": n} for i, a, n in ROWS if n is not None
    ]
    query = f"SELECT * FROM {db}.v ORDER BY id"
    with pytest.raises(AnalysisException):  # this session alone cannot read an Iceberg view
        env.plain.sql(query).collect()
    assert env.ours(query) == env.java(query) == with_name

    # in the metastore: an Iceberg view beside Spark's Iceberg table
    with hive_metastore.client() as client:
        view, table = client.get_table(database, "v"), client.get_table(database, "t")
    assert view.tableType == "VIRTUAL_VIEW" and view.parameters["table_type"] == "ICEBERG-VIEW"
    assert view.parameters["metadata_location"] == env.catalog.load_view((database, "v")).metadata_location
    assert table.parameters["table_type"] == "ICEBERG"

    # a view over the view (unqualified names, in the view's catalog and namespace after USE)
    env.plain.sql(f"USE {db}")
    try:
        env.views.sql(
            "CREATE VIEW nested AS SELECT name, amount * 2 AS doubled FROM v WHERE amount IS NOT NULL"
        )
    finally:
        env.plain.sql("USE spark_catalog.default")
    nested = env.catalog.load_view((database, "nested"))
    assert tuple(nested.metadata.current_version.default_namespace) == (database,)
    query = f"SELECT * FROM {db}.nested ORDER BY name"
    doubled = [{"name": "Zoë", "doubled": Decimal("25.00")}, {"name": "naïve", "doubled": Decimal("14.00")}]
    assert env.ours(query) == env.java(query) == doubled

    # a replace through iceview's catalog is what both read next, through the nested view too
    env.catalog.replace_view(
        (database, "v"),
        schema=env.catalog.load_view((database, "v")).schema,
        queries={"spark": f"SELECT id, amount, upper(name) AS name FROM {db}.t WHERE id >= 3"},
        default_namespace=(database,),
    )
    assert (
        env.ours(query)
        == env.java(query)
        == [{"name": None, "doubled": Decimal("-0.02")}, {"name": "NAÏVE", "doubled": Decimal("14.00")}]
    )
    assert [r["viewName"] for r in env.ours(f"SHOW VIEWS IN {db}")] == ["nested", "v"]
