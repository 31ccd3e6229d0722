"""Interop with Iceberg Java 1.10.2 (in PySpark 3.5.9) on the same JDBC catalog database.

* SQLite: Java runs in its own process, after the Python writes (Iceberg 1.10.2 keeps a SQLite
  catalog file locked while its JVM lives).
* PostgreSQL: the test session's JVM (``java_spark``) shares the live database with iceview.

Iceberg-Spark lists, DESCRIBEs and SELECTs the views iceview creates, replaces, rolls back and
renames, and its ``ViewMetadataParser`` reads every metadata file iceview wrote; iceview loads,
validates and replaces the views Spark creates.
"""

from __future__ import annotations

import glob
import uuid
from pathlib import Path
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

from fixtures.java_session import JavaOracle, JavaSpark, catalog_conf, run_java_script, sqlite_uri
from iceview.catalog.sql import SqlCatalog
from iceview.spec.validate import validate

pytestmark = pytest.mark.java

SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False, doc="the id"),
    NestedField(2, "data", StringType(), required=False),
    schema_id=0,
)

JAVA_READS = r"""
import glob, sys
from fixtures.java_session import JavaOracle, emit, java_error_text, script_spark, view_info

spark = script_spark()
warehouse, catalog = sys.argv[1], sys.argv[2]
out = {"views": {}}
for ns in sys.argv[3].split(","):
    out.setdefault("show", {})[ns] = [list(r) for r in spark.sql(f"SHOW VIEWS IN {catalog}.{ns}").collect()]
for ident in sys.argv[4].split(","):
    entry = {}
    for key, fn in (
        ("info", lambda: view_info(spark, catalog, ident)),
        ("describe", lambda: [r.asDict() for r in spark.sql(f"DESCRIBE {catalog}.{ident}").collect()]),
        ("rows", lambda: [r.asDict() for r in spark.sql(f"SELECT * FROM {catalog}.{ident}").collect()]),
    ):
        try:
            entry[key] = fn()
        except Exception as e:
            entry[key + "_error"] = java_error_text(e)
    out["views"][ident] = entry
oracle = JavaOracle(spark)
out["parse"] = {p: oracle.read_error(p) for p in glob.glob(warehouse + "/**/*.metadata.json", recursive=True)}
emit(out)
"""

JAVA_WRITES = r"""
import sys
from fixtures.java_session import emit, script_spark, view_info

spark = script_spark()
c = sys.argv[1]
for statement in [
    f"CREATE NAMESPACE IF NOT EXISTS {c}.ns",
    f"CREATE VIEW {c}.ns.jv (id COMMENT 'the id', data) COMMENT 'view comment' "
    f"TBLPROPERTIES ('k1' = 'v1', 'k3' = 'v3') AS SELECT 1 AS a, 'x' AS b",
    f"ALTER VIEW {c}.ns.jv SET TBLPROPERTIES ('k2' = 'v2')",
    f"ALTER VIEW {c}.ns.jv UNSET TBLPROPERTIES ('k1')",
    f"CREATE VIEW {c}.ns.nested AS SELECT id FROM {c}.ns.jv",
]:
    spark.sql(statement)
emit({"jv": view_info(spark, c, "ns.jv"), "nested": view_info(spark, c, "ns.nested")})
"""


def _java_reads(db: Path, warehouse: Path, catalog: str, namespaces: str, views: str) -> dict[str, Any]:
    conf = catalog_conf(catalog, sqlite_uri(db), warehouse)
    return run_java_script(JAVA_READS, str(warehouse), catalog, namespaces, views, conf=conf)


def test_java_reads_what_iceview_writes_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "catalog.db"
    warehouse = tmp_path / "warehouse"
    catalog = SqlCatalog("prod", uri=f"sqlite:///{db}", warehouse=f"file://{warehouse}")
    catalog.create_namespace("ns")
    catalog.create_namespace("other")
    v = catalog.create_view(
        "ns.v",
        schema=SCHEMA,
        queries={"spark": "SELECT 1 AS id, 'a' AS data"},
        default_namespace="ns",
        properties={"comment": "made by iceview"},
    )
    v.replace_version(schema=SCHEMA, queries={"spark": "SELECT 2 AS id, 'b' AS data"}, default_namespace="ns")
    v.update_properties().set("k", "v").commit()
    v.set_current_version(1)  # roll back
    catalog.rename_view("ns.v", "other.renamed")
    catalog.create_view(
        "ns.both",
        schema=SCHEMA,
        queries=[("trino", "SELECT 3 AS id, 'c' AS data"), ("spark", "SELECT 3 AS id, 'c' AS data")],
        default_namespace="ns",
        properties={"write.metadata.compression-codec": "none"},
    )
    catalog.create_view(
        "ns.nested",
        schema=Schema(NestedField(1, "id", IntegerType(), required=False), schema_id=0),
        queries={"spark": "SELECT id FROM other.renamed"},
        default_namespace="ns",
    )
    catalog.close()

    out = _java_reads(db, warehouse, "prod", "ns,other", "other.renamed,ns.both,ns.nested")
    assert sorted(tuple(r[:2]) for r in out["show"]["ns"]) == [("ns", "both"), ("ns", "nested")]
    assert [tuple(r[:2]) for r in out["show"]["other"]] == [("other", "renamed")]
    renamed = out["views"]["other.renamed"]
    assert renamed["rows"] == [{"id": 1, "data": "a"}]  # the rolled-back version
    assert [(d["col_name"], d["data_type"], d["comment"]) for d in renamed["describe"]] == [
        ("id", "int", "the id"),
        ("data", "string", ""),
    ]
    info = renamed["info"]
    assert info["name"] == "prod.other.renamed"
    assert info["current_version_id"] == 1
    assert [h[1] for h in info["history"]] == [1, 2, 1]
    assert info["properties"]["comment"] == "made by iceview"
    assert info["properties"]["k"] == "v"
    assert info["metadata_file"].endswith(".gz.metadata.json") and "/00003-" in info["metadata_file"]
    assert out["views"]["ns.both"]["rows"] == [{"id": 3, "data": "c"}]
    assert "/00000-" in out["views"]["ns.both"]["info"]["metadata_file"]
    assert not out["views"]["ns.both"]["info"]["metadata_file"].endswith(".gz.metadata.json")
    assert out["views"]["ns.nested"]["rows"] == [{"id": 1}]
    # Java's ViewMetadataParser reads every file iceview wrote
    written = glob.glob(str(warehouse) + "/**/*.metadata.json", recursive=True)
    assert len(written) == 6
    assert out["parse"] and all(err is None for err in out["parse"].values()), out["parse"]


def test_iceview_reads_and_replaces_what_java_writes_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "catalog.db"
    warehouse = tmp_path / "warehouse"
    java = run_java_script(JAVA_WRITES, "prod", conf=catalog_conf("prod", sqlite_uri(db), warehouse))

    catalog = SqlCatalog("prod", uri=f"jdbc:sqlite:{db}", warehouse=f"file:{warehouse}")
    assert catalog.list_views("ns") == [("ns", "jv"), ("ns", "nested")]
    jv = catalog.load_view("ns.jv")
    assert jv.metadata_location == java["jv"]["metadata_file"]
    assert not validate(jv.metadata)
    assert jv.metadata.to_json() == java["jv"]["metadata_json"]  # byte-identical re-serialisation
    assert jv.properties["comment"] == "view comment"
    assert jv.properties["k2"] == "v2" and jv.properties["k3"] == "v3" and "k1" not in jv.properties
    assert [(f.name, f.doc) for f in jv.schema.fields] == [("id", "the id"), ("data", None)]
    assert jv.sql_for("spark").sql == "SELECT 1 AS a, 'x' AS b"  # type: ignore[union-attr]
    nested = catalog.load_view("ns.nested")
    assert not validate(nested.metadata)

    jv.replace_version(schema=jv.schema, queries={"spark": "SELECT 2 AS a, 'y' AS b"}, default_namespace="ns")
    jv.update_properties().set("by", "iceview").commit()
    assert "/00004-" in str(jv.metadata_location)  # Java wrote 00000..00002, we 00003 and 00004
    catalog.close()

    out = _java_reads(db, warehouse, "prod", "ns", "ns.jv,ns.nested")
    assert out["views"]["ns.jv"]["rows"] == [{"id": 2, "data": "y"}]
    assert out["views"]["ns.nested"]["rows"] == [{"id": 2}]
    info = out["views"]["ns.jv"]["info"]
    assert info["version_ids"] == [1, 2]
    assert info["properties"]["by"] == "iceview"
    assert info["current_version"]["summary"]["engine-name"] == "iceview"
    assert all(err is None for err in out["parse"].values()), out["parse"]


@pytest.mark.postgres
def test_live_postgres_catalog_shared_with_java(
    java_spark: JavaSpark, postgres_database: Any, tmp_path: Path
) -> None:
    name = f"pg{uuid.uuid4().hex[:8]}"
    warehouse = tmp_path / "warehouse"
    catalog = SqlCatalog(name, uri=postgres_database.url, warehouse=f"file://{warehouse}")
    java_spark.add_catalog(name, postgres_database.jdbc_url, warehouse, user=postgres_database.user)
    jcat = java_spark.catalog(name)
    assert jcat is not None

    catalog.create_namespace("ns")
    view = catalog.create_view(
        "ns.pv", schema=SCHEMA, queries={"spark": "SELECT 1 AS id, 'a' AS data"}, default_namespace="ns"
    )
    assert [r["viewName"] for r in java_spark.sql(f"SHOW VIEWS IN {name}.ns")] == ["pv"]
    assert java_spark.sql(f"SELECT * FROM {name}.ns.pv") == [{"id": 1, "data": "a"}]

    # Java changes iceview's view; iceview sees it
    java_spark.sql(f"ALTER VIEW {name}.ns.pv SET TBLPROPERTIES ('jk' = 'jv')")
    java_spark.sql(f"CREATE OR REPLACE VIEW {name}.ns.pv AS SELECT 2 AS id, 'b' AS data")
    view.refresh()
    assert view.properties["jk"] == "jv"
    assert [v.version_id for v in view.versions] == [1, 2]
    assert view.current_version.version_id == 2
    assert not validate(view.metadata)

    # iceview rolls it back and moves it; Java sees that
    view.set_current_version(1)
    assert java_spark.sql(f"SELECT * FROM {name}.ns.pv") == [{"id": 1, "data": "a"}]
    info = java_spark.view_info(name, "ns.pv")
    assert [h[1] for h in info["history"]] == [1, 2, 1]
    catalog.create_namespace("ns2")
    catalog.rename_view("ns.pv", "ns2.moved")
    assert java_spark.sql(f"SHOW VIEWS IN {name}.ns") == []
    assert [r["viewName"] for r in java_spark.sql(f"SHOW VIEWS IN {name}.ns2")] == ["moved"]
    assert java_spark.sql(f"SELECT * FROM {name}.ns2.moved") == [{"id": 1, "data": "a"}]

    # a view Java creates with aliases and comments, replaced by iceview
    java_spark.sql(
        f"CREATE VIEW {name}.ns.jv (x COMMENT 'ex') COMMENT 'cv' TBLPROPERTIES ('p' = '1') AS SELECT 5 AS five"
    )
    jv = catalog.load_view("ns.jv")
    assert not validate(jv.metadata)
    assert jv.properties["comment"] == "cv" and jv.properties["p"] == "1"
    jv.replace_version(schema=jv.schema, queries={"spark": "SELECT 6 AS five"}, default_namespace="ns")
    assert java_spark.sql(f"SELECT * FROM {name}.ns.jv") == [{"x": 6}]

    assert catalog.drop_view("ns2.moved")
    assert java_spark.sql(f"SHOW VIEWS IN {name}.ns2") == []
    oracle = JavaOracle(java_spark.spark)
    for path in glob.glob(str(warehouse) + "/**/*.metadata.json", recursive=True):
        assert oracle.read_error(path) is None, path
    catalog.close()
