"""Iceberg-Spark with ``type=rest`` against the REST reference server fixture.

Spark's views are made by Iceberg's SQL extensions through Java's ``RESTCatalog`` (the HttpClient5 that
Maven's runtime jar carries, relocated); the server writes them with its ``JdbcCatalog``. The
metadata file they leave must be valid to iceview's reader, and PyIceberg must see the view.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from fixtures.java_session import JavaSpark
from fixtures.rest_java import JavaRestServer
from iceview.files import read_metadata
from iceview.spec import SQLRepresentation

pytestmark = pytest.mark.java

CATALOG = "rest_ref"


@pytest.fixture(scope="module")
def rest_spark(java_spark: JavaSpark, java_rest_server: JavaRestServer) -> JavaSpark:
    """The session's Spark with catalog ``rest_ref``: Iceberg's ``RESTCatalog`` on the server."""
    java_spark.add_rest_catalog(CATALOG, java_rest_server.uri)
    return java_spark


def load_view_response(server: JavaRestServer, namespace: str, view: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{server.uri}v1/namespaces/{namespace}/views/{view}", timeout=30) as r:
        loaded: dict[str, object] = json.loads(r.read())
    return loaded


def test_spark_creates_and_reads_a_view_over_rest(
    rest_spark: JavaSpark, java_rest_server: JavaRestServer
) -> None:
    ns = "sp_" + uuid.uuid4().hex[:8]
    rest_spark.sql(f"CREATE NAMESPACE {CATALOG}.{ns}")
    rest_spark.sql(f"CREATE TABLE {CATALOG}.{ns}.t (x BIGINT, s STRING) USING iceberg")
    rest_spark.sql(f"INSERT INTO {CATALOG}.{ns}.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    rest_spark.sql(
        f"CREATE VIEW {CATALOG}.{ns}.v (doubled COMMENT 'x times 2', s) "
        f"TBLPROPERTIES ('owner' = 'spark') AS SELECT x * 2, s FROM {CATALOG}.{ns}.t WHERE x > 1"
    )
    rows = rest_spark.sql(f"SELECT * FROM {CATALOG}.{ns}.v ORDER BY doubled")
    assert rows == [{"doubled": 4, "s": "b"}, {"doubled": 6, "s": "c"}]
    assert [r["viewName"] for r in rest_spark.sql(f"SHOW VIEWS IN {CATALOG}.{ns}")] == ["v"]

    # what the server stored: the REST response and the metadata file agree, and iceview reads it
    loaded = load_view_response(java_rest_server, ns, "v")
    location = str(loaded["metadata-location"])
    assert location.startswith("file:" + java_rest_server.warehouse)
    assert Path(urllib.parse.urlparse(location).path).is_file()
    metadata = read_metadata(location)  # gzip: Iceberg-Spark compresses view metadata
    assert metadata.metadata_file_location == location
    assert metadata.properties["owner"] == "spark"
    version = metadata.current_version
    sql = version.sql_for("spark")
    assert isinstance(sql, SQLRepresentation)
    assert f"{CATALOG}.{ns}.t" in sql.sql
    assert list(version.default_namespace) == ["default"]  # the session's current namespace
    assert version.summary["iceberg-version"].startswith("Apache Iceberg 1.10.2")
    assert json.loads(json.dumps(loaded["metadata"]))["view-uuid"] == metadata.uuid

    # Java's own view of it, through the same RESTCatalog Spark uses
    info = rest_spark.view_info(CATALOG, f"{ns}.v")
    assert info["metadata_file"] == location
    assert info["current_version"]["representations"][0]["sql"] == sql.sql

    # and PyIceberg's RestCatalog loads it too
    from pyiceberg.catalog.rest import RestCatalog

    catalog = RestCatalog("py", uri=java_rest_server.uri)
    assert catalog.load_view((ns, "v")).metadata.current_version_id == metadata.current_version_id


def test_spark_replaces_and_drops_a_view_over_rest(
    rest_spark: JavaSpark, java_rest_server: JavaRestServer
) -> None:
    ns = "sp_" + uuid.uuid4().hex[:8]
    rest_spark.sql(f"CREATE NAMESPACE {CATALOG}.{ns}")
    rest_spark.sql(f"CREATE VIEW {CATALOG}.{ns}.v AS SELECT 1 AS a")
    first = load_view_response(java_rest_server, ns, "v")["metadata-location"]
    rest_spark.sql(f"CREATE OR REPLACE VIEW {CATALOG}.{ns}.v AS SELECT 2 AS a, 'z' AS b")
    assert rest_spark.sql(f"SELECT * FROM {CATALOG}.{ns}.v") == [{"a": 2, "b": "z"}]
    loaded = load_view_response(java_rest_server, ns, "v")
    location = str(loaded["metadata-location"])
    assert location != first
    metadata = read_metadata(location)
    assert [v.version_id for v in metadata.versions] == [1, 2]
    assert metadata.current_version_id == 2
    rest_spark.sql(f"DROP VIEW {CATALOG}.{ns}.v")
    assert rest_spark.sql(f"SHOW VIEWS IN {CATALOG}.{ns}") == []


def test_spark_rest_catalog_with_oauth2(
    java_spark: JavaSpark, java_rest_server_factory: Callable[..., JavaRestServer]
) -> None:
    server = java_rest_server_factory(auth="oauth2")
    assert server.credential is not None
    name = "rest_oauth_" + uuid.uuid4().hex[:6]
    java_spark.add_rest_catalog(
        name,
        server.uri,
        credential=server.credential,
        **{"oauth2-server-uri": server.uri + "v1/oauth/tokens"},
    )
    java_spark.sql(f"CREATE NAMESPACE {name}.secured")
    java_spark.sql(f"CREATE VIEW {name}.secured.v AS SELECT 42 AS answer")
    assert java_spark.sql(f"SELECT * FROM {name}.secured.v") == [{"answer": 42}]
    log = server.log_text(lines=10_000)
    assert "POST /v1/oauth/tokens -> 200" in log
    assert server.credential.split(":", 1)[1] not in log
