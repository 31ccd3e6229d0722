"""The catalog side of the oracle: runtime JDBC catalogs in the test JVM, and Java in a subprocess."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.java_session import (
    JavaOracle,
    JavaScriptError,
    JavaSpark,
    catalog_conf,
    run_java_script,
    sqlite_uri,
)
from iceview.spark.jars import iceberg_version

pytestmark = pytest.mark.java


def test_spark_session_is_configured(java_spark: JavaSpark) -> None:
    conf = java_spark.spark.conf
    assert java_spark.spark.version == "3.5.9"
    assert conf.get("spark.sql.session.timeZone") == "UTC"
    assert conf.get("spark.ui.enabled") == "false"
    assert "IcebergSparkSessionExtensions" in (conf.get("spark.sql.extensions") or "")
    version = java_spark.jvm.org.apache.iceberg.IcebergBuild.version()
    assert version == iceberg_version(), version  # 1.10.2 unless ICEVIEW_ICEBERG_VERSION says otherwise


def test_add_sqlite_catalog_at_runtime(
    java_spark: JavaSpark, java_oracle: JavaOracle, tmp_path: Path
) -> None:
    # a file only this JVM uses: Iceberg 1.10.2 keeps it locked until the JVM exits
    java_spark.add_catalog("rt_sqlite", sqlite_uri(tmp_path / "catalog.db"), tmp_path / "warehouse")
    java_spark.sql("CREATE NAMESPACE rt_sqlite.ns")
    java_spark.sql("CREATE VIEW rt_sqlite.ns.v COMMENT 'c' AS SELECT 1 AS one, 'x' AS two")
    assert java_spark.sql("SELECT * FROM rt_sqlite.ns.v") == [{"one": 1, "two": "x"}]

    info = java_spark.view_info("rt_sqlite", "ns.v")
    assert info["name"] == "rt_sqlite.ns.v"
    assert info["current_version_id"] == 1
    assert info["current_version"]["representations"] == [
        {"type": "sql", "dialect": "spark", "sql": "SELECT 1 AS one, 'x' AS two"}
    ]
    assert info["properties"]["comment"] == "c"
    assert info["metadata_file"].endswith(".gz.metadata.json")
    # the oracle reads the gzip file Java wrote, and gets the same metadata back
    assert java_oracle.read_file(info["metadata_file"]) == info["metadata_json"]

    # configuring the same catalog again is a no-op; pointing the name elsewhere is refused
    java_spark.add_catalog("rt_sqlite", sqlite_uri(tmp_path / "catalog.db"), tmp_path / "warehouse")
    with pytest.raises(ValueError, match="already configured"):
        java_spark.add_catalog("rt_sqlite", sqlite_uri(tmp_path / "other.db"), tmp_path / "warehouse")


@pytest.fixture
def jdbc_postgres(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(JDBC URL, user) of an empty PostgreSQL database: the ``postgres_database`` fixture when its
    plugin is loaded, else a private server from ``fixtures.postgres``."""
    try:
        db = request.getfixturevalue("postgres_database")
    except pytest.FixtureLookupError:
        db = None
    if db is not None:
        yield db.jdbc_url, db.user
        return
    postgres = pytest.importorskip("fixtures.postgres")
    if postgres.find_postgres_bin() is None:
        pytest.skip("PostgreSQL server binaries not found (Debian package 'postgresql')")
    server = postgres.start_postgres_server()
    try:
        yield f"jdbc:postgresql://{server.host}:{server.port}/postgres", server.user
    finally:
        server.destroy()


@pytest.mark.postgres
def test_postgres_catalog_shared_with_python_while_jvm_lives(
    java_spark: JavaSpark, jdbc_postgres: tuple[str, str], tmp_path: Path
) -> None:
    psycopg = pytest.importorskip("psycopg")
    uri, user = jdbc_postgres
    java_spark.add_catalog("rt_pg", uri, tmp_path / "warehouse", user=user)
    java_spark.sql("CREATE NAMESPACE rt_pg.ns")
    java_spark.sql("CREATE VIEW rt_pg.ns.v AS SELECT 42 AS answer")
    info = java_spark.view_info("rt_pg", "ns.v")
    assert info["version_ids"] == [1]

    # while this JVM holds its connection, Python writes to the same catalog tables...
    host_port, dbname = uri.removeprefix("jdbc:postgresql://").split("/", 1)
    host, port = host_port.split(":")
    with psycopg.connect(host=host, port=int(port), user=user, dbname=dbname, autocommit=True) as conn:
        (row,) = conn.execute(
            "SELECT metadata_location, iceberg_type FROM iceberg_tables "
            "WHERE catalog_name = 'rt_pg' AND table_namespace = 'ns' AND table_name = 'v'"
        ).fetchall()
        assert row == (info["metadata_file"], "VIEW")
        conn.execute(
            "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) "
            "VALUES ('rt_pg', 'from_python', 'exists', 'true')"
        )
    # ...and Java sees the change at once (cache-enabled=false)
    assert java_spark.catalog("rt_pg").namespaceExists(java_spark.namespace("from_python"))


SUBPROCESS_SCRIPT = """
import sys
from fixtures.java_session import emit, java_catalog, script_spark, view_info
from iceview.spark.jars import iceberg_version

view = sys.argv[1]
spark = script_spark()
spark.sql("CREATE NAMESPACE IF NOT EXISTS lite.ns")
spark.sql(f"CREATE OR REPLACE VIEW lite.ns.{view} AS SELECT 7 AS seven")
rows = [r.asDict() for r in spark.sql(f"SELECT * FROM lite.ns.{view}").collect()]
emit({"rows": rows, "view": view_info(spark, java_catalog(spark, "lite"), "ns." + view)})
"""


def test_run_java_script_on_sqlite_catalog(tmp_path: Path) -> None:
    db = tmp_path / "catalog.db"
    conf = catalog_conf("lite", sqlite_uri(db), tmp_path / "warehouse")
    result = run_java_script(SUBPROCESS_SCRIPT, "seven", conf=conf, timeout=240)
    assert result["rows"] == [{"seven": 7}]
    info = result["view"]
    assert info["current_version"]["representations"][0]["sql"] == "SELECT 7 AS seven"
    assert json.loads(info["metadata_json"])["view-uuid"] == info["uuid"]

    # the JVM has exited, so the SQLite file is free again: Python can write to it now
    with contextlib.closing(sqlite3.connect(db, timeout=1)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        row = conn.execute(
            "SELECT metadata_location, iceberg_type FROM iceberg_tables "
            "WHERE catalog_name = 'lite' AND table_namespace = 'ns' AND table_name = 'seven'"
        ).fetchone()
        conn.execute(
            "UPDATE iceberg_tables SET previous_metadata_location = metadata_location WHERE table_name = 'seven'"
        )
        conn.rollback()
    assert row == (info["metadata_file"], "VIEW")


def test_run_java_script_reports_failures(tmp_path: Path) -> None:
    script = tmp_path / "fails.py"
    script.write_text("import sys\nprint('to stderr', file=sys.stderr)\nsys.exit(3)\n", encoding="utf-8")
    with pytest.raises(JavaScriptError, match=r"(?s)exited with 3.*to stderr"):
        run_java_script(script, timeout=60)
    with pytest.raises(JavaScriptError, match="emitted no result"):
        run_java_script("print('no marker')\n", timeout=60)
    assert run_java_script(
        "import sys\nfrom fixtures.java_session import emit\nemit({'args': sys.argv[1:]})\n", "a", "b c"
    ) == {"args": ["a", "b c"]}
