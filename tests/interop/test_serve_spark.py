"""Iceberg-Spark 1.10.2 with ``type=rest`` against ``iceview serve`` (a real process,
``fixtures.iceview_serve``), on SQLite and on PostgreSQL (there with two worker processes).

Spark creates a namespace and a table, writes rows (the server's table endpoints, PyIceberg's
catalog behind them), and runs the view spec's Appendix A natively through Iceberg's SQL
extensions and Java's ``RESTCatalog``: ``CREATE OR REPLACE VIEW`` in ``default``, then again from
``other_db`` with the table's qualified name. It queries the view, runs ``SHOW VIEWS``,
``DESCRIBE`` and ``ALTER VIEW ... SET TBLPROPERTIES``, and drops it. PyIceberg's ``RestCatalog``
and iceview's REST client load what Spark wrote, and Spark reads a view iceview's client made.

Everything runs in the test process's one Spark JVM (``java_spark``).
"""

from __future__ import annotations

import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from fixtures.iceview_serve import (
    IceviewServer,
    serving,
    write_auth_file,
)
from fixtures.java_session import JavaSpark
from iceview.catalog import Catalog, load_catalog
from iceview.files import read_metadata
from iceview.spec import SQLRepresentation

pytestmark = pytest.mark.java

# the view spec's Appendix A, word for word (the catalog is ours instead of ``prod``)
FIRST_SQL = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM events\nGROUP BY 2"
SECOND_SQL = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM {catalog}.default.events\nGROUP BY 2"
COLUMNS = "(\n    event_count COMMENT 'Count of events',\n    event_date)\nCOMMENT 'Daily event counts'\nAS\n"
EVENTS = [
    (1, "2024-03-01 09:00:00"),
    (2, "2024-03-01 17:30:00"),
    (3, "2024-03-02 08:15:00"),
    (4, "2024-03-01 23:59:59"),
]
EXPECTED = [
    {"event_count": 3, "event_date": date(2024, 3, 1)},
    {"event_count": 1, "event_date": date(2024, 3, 2)},
]


def ensure_events(java_spark: JavaSpark, cat: str, client: Catalog) -> None:
    """The table Appendix A reads, when a test runs without the Appendix A test before it."""
    if client.table_exists("default.events"):
        return
    java_spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {cat}.`default`")
    java_spark.sql(f"CREATE TABLE {cat}.`default`.events (event_id BIGINT, event_ts TIMESTAMP) USING iceberg")
    values = ", ".join(f"({i}, TIMESTAMP '{ts}')" for i, ts in EVENTS)
    java_spark.sql(f"INSERT INTO {cat}.`default`.events VALUES {values}")


@dataclass
class Served:
    """``iceview serve`` and its Spark catalog name."""

    server: IceviewServer
    catalog: str


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(
    request: pytest.FixtureRequest, java_spark: JavaSpark, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """A private ``iceview serve`` per backend (Appendix A needs the namespace ``default`` to
    itself; on PostgreSQL with two workers), configured in the session's Spark as Iceberg
    ``RESTCatalog`` ``ivserve_<backend>``."""
    # PostgreSQL as in production: two worker processes share the database (and the idempotency keys)
    args = ("--workers", "2") if request.param == "postgres" else ()
    workdir = tmp_path_factory.mktemp(f"serve-spark-{request.param}")
    name = f"ivserve_{request.param}"
    # Spark writes view SQL with its own name for the catalog: the server knows it as an alias
    aliases = {"iceview.catalog-aliases": name}
    with serving(request, request.param, workdir, args=args, properties=aliases) as server:
        java_spark.add_rest_catalog(name, server.uri)
        yield Served(server, name)


@pytest.fixture
def client(served: Served) -> Iterator[Catalog]:
    """iceview's REST client on the server, by the Spark catalog's name (views' default catalog)."""
    catalog = load_catalog(served.catalog, type="rest", uri=served.server.uri)
    try:
        yield catalog
    finally:
        catalog.close()


def test_spark_runs_appendix_a_against_iceview_serve(
    java_spark: JavaSpark, served: Served, client: Catalog
) -> None:
    cat = served.catalog
    spark = java_spark
    spark.sql(f"CREATE NAMESPACE {cat}.`default`")
    spark.sql(f"CREATE NAMESPACE {cat}.other_db")
    spark.sql(f"CREATE TABLE {cat}.`default`.events (event_id BIGINT, event_ts TIMESTAMP) USING iceberg")
    values = ", ".join(f"({i}, TIMESTAMP '{ts}')" for i, ts in EVENTS)
    spark.sql(f"INSERT INTO {cat}.`default`.events VALUES {values}")
    assert spark.sql(f"SELECT COUNT(*) AS n FROM {cat}.`default`.events") == [{"n": len(EVENTS)}]
    assert client.table_exists("default.events")

    try:
        spark.sql(f"USE {cat}.`default`")
        spark.sql("CREATE OR REPLACE VIEW event_agg " + COLUMNS + FIRST_SQL)
        first = client.load_view("default.event_agg")
        spark.sql(f"USE {cat}.other_db")
        spark.sql("CREATE OR REPLACE VIEW default.event_agg " + COLUMNS + SECOND_SQL.format(catalog=cat))
    finally:
        spark.sql("USE spark_catalog.`default`")

    # the first version, as Appendix A's first file
    md1 = first.metadata
    assert md1.current_version_id == 1
    assert md1.properties["comment"] == "Daily event counts"
    v1 = md1.current_version
    assert v1.default_catalog is None  # Iceberg-Spark leaves it out when it is the view's own catalog
    assert list(v1.default_namespace) == ["default"]
    assert v1.summary["engine-name"].lower() == "spark"
    assert v1.representations == (SQLRepresentation(FIRST_SQL, "spark"),)
    fields = md1.schemas_by_id[v1.schema_id].fields
    assert [(f.name, str(f.field_type), f.required, f.doc) for f in fields] == [
        ("event_count", "long", True, "Count of events"),  # Spark: COUNT is a BIGINT NOT NULL
        ("event_date", "date", False, None),
    ]

    # the second: same view, a new version with the qualified name, one schema for both
    view = client.load_view("default.event_agg")
    md2 = view.metadata
    assert md2.uuid == md1.uuid
    assert [v.version_id for v in md2.versions] == [1, 2]
    assert [e.version_id for e in md2.version_log] == [1, 2]
    assert md2.current_version_id == 2
    v2 = md2.current_version
    assert v2.representations == (SQLRepresentation(SECOND_SQL.format(catalog=cat), "spark"),)
    assert list(v2.default_namespace) == ["other_db"]  # Spark records the session's namespace
    assert v2.schema_id == v1.schema_id
    assert md2.location == md1.location
    location = str(view.metadata_location)
    assert location != str(first.metadata_location)
    assert location.startswith(served.server.warehouse_uri + "/")
    assert Path(urllib.parse.urlparse(location).path).is_file()
    assert read_metadata(location) == md2

    # Spark queries it, lists it, describes it, sets a property
    qualified = f"{cat}.`default`.event_agg"
    assert spark.sql(f"SELECT * FROM {qualified} ORDER BY event_date") == EXPECTED
    assert [r["viewName"] for r in spark.sql(f"SHOW VIEWS IN {cat}.`default`")] == ["event_agg"]
    described = {r["col_name"]: r for r in spark.sql(f"DESCRIBE {qualified}")}
    assert described["event_count"]["data_type"] == "bigint"
    assert described["event_count"]["comment"] == "Count of events"
    assert described["event_date"]["data_type"] == "date"
    extended = {r["col_name"]: r["data_type"] for r in spark.sql(f"DESCRIBE EXTENDED {qualified}")}
    assert extended["Comment"] == "Daily event counts"
    assert extended["View Catalog and Namespace"] == f"{cat}.default"
    assert f"'location' = '{md2.location}'" in extended["View Properties"]
    assert md2.location == served.server.warehouse_uri + "/default/event_agg"
    spark.sql(f"ALTER VIEW {qualified} SET TBLPROPERTIES ('steward' = 'spark', 'team' = 'events')")
    altered = client.load_view("default.event_agg")
    assert altered.properties["steward"] == "spark" and altered.properties["team"] == "events"
    assert altered.current_version.version_id == 2  # a property change adds no version
    assert str(altered.metadata_location) != location

    # PyIceberg's RestCatalog loads the same view
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog

    py = PyIcebergRestCatalog("py", uri=served.server.uri)
    loaded = py.load_view(("default", "event_agg")).metadata
    assert loaded.view_uuid == md1.uuid
    assert loaded.current_version_id == 2
    assert loaded.properties["steward"] == "spark"
    assert [r.root.sql for r in loaded.versions[-1].representations] == [SECOND_SQL.format(catalog=cat)]
    assert py.list_views("default") == [("default", "event_agg")]

    # iceview's client rolls back and Spark reads the older version, then Spark drops the view
    altered.set_current_version(1)
    assert spark.sql(f"SELECT * FROM {qualified} ORDER BY event_date") == EXPECTED
    assert spark.view_info(cat, "default.event_agg")["current_version"]["version_id"] == 1
    spark.sql(f"DROP VIEW {qualified}")
    assert spark.sql(f"SHOW VIEWS IN {cat}.`default`") == []
    assert not client.view_exists("default.event_agg")
    assert not py.view_exists(("default", "event_agg"))


def test_spark_reads_a_view_iceview_made_over_serve(
    java_spark: JavaSpark, served: Served, client: Catalog
) -> None:
    cat = served.catalog
    ensure_events(java_spark, cat, client)
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    client.create_view(
        "default.late",
        schema=Schema(NestedField(1, "event_id", LongType(), required=False)),
        queries={
            "spark": f"SELECT event_id FROM {cat}.default.events WHERE event_ts >= TIMESTAMP '2024-03-01 17:00:00'"
        },
        default_namespace=("default",),
        default_catalog=cat,
    )
    rows = java_spark.sql(f"SELECT * FROM {cat}.`default`.late ORDER BY event_id")
    assert rows == [{"event_id": 2}, {"event_id": 3}, {"event_id": 4}]
    info = java_spark.view_info(cat, "default.late")
    assert info["metadata_file"] == str(client.load_view("default.late").metadata_location)
    java_spark.sql(f"DROP VIEW {cat}.`default`.late")
    assert not client.view_exists("default.late")


def _secured_spark_round_trip(java_spark: JavaSpark, writer: str, reader: str) -> None:
    """Spark catalog ``writer`` (read-write) makes a namespace, a table and a view and reads them;
    ``reader`` (read-only) reads the view and is refused a change."""
    java_spark.sql(f"CREATE NAMESPACE {writer}.secured")
    java_spark.sql(f"CREATE TABLE {writer}.secured.t (x BIGINT) USING iceberg")
    java_spark.sql(f"INSERT INTO {writer}.secured.t VALUES (1), (2)")
    java_spark.sql(f"CREATE VIEW {writer}.secured.v AS SELECT SUM(x) AS total FROM {writer}.secured.t")
    assert java_spark.sql(f"SELECT * FROM {writer}.secured.v") == [{"total": 3}]
    assert java_spark.sql(f"SELECT * FROM {reader}.secured.v") == [{"total": 3}]
    with pytest.raises(Exception, match="ForbiddenException"):
        java_spark.sql(f"ALTER VIEW {reader}.secured.v SET TBLPROPERTIES ('k' = 'v')")
    with pytest.raises(Exception, match="ForbiddenException"):
        java_spark.sql(f"DROP VIEW {reader}.secured.v")
    java_spark.sql(f"DROP VIEW {writer}.secured.v")
    assert java_spark.sql(f"SHOW VIEWS IN {writer}.secured") == []


def test_spark_with_static_tokens(
    java_spark: JavaSpark,
    iceview_server_factory: Callable[..., IceviewServer],
    tmp_path: Path,
) -> None:
    auth = write_auth_file(tmp_path, {}, {"etl": "read-write", "dashboards": "read-only"})
    server = iceview_server_factory(args=("--auth-file", str(auth.path)))
    suffix = uuid.uuid4().hex[:6]
    writer, reader = f"ivtok_w_{suffix}", f"ivtok_r_{suffix}"
    java_spark.add_rest_catalog(writer, server.uri, token=auth.tokens["etl"])
    java_spark.add_rest_catalog(reader, server.uri, token=auth.tokens["dashboards"])
    _secured_spark_round_trip(java_spark, writer, reader)
    server.stop()
    log = server.log_text(lines=100_000)
    assert not [t for t in auth.tokens.values() if t in log]


def test_spark_with_oauth2_credentials(
    java_spark: JavaSpark,
    iceview_server_factory: Callable[..., IceviewServer],
    tmp_path: Path,
) -> None:
    auth = write_auth_file(tmp_path, {"etl": "read-write", "viewer": "read-only"})
    server = iceview_server_factory(args=("--auth-file", str(auth.path)))
    suffix = uuid.uuid4().hex[:6]
    writer, reader = f"ivoauth_w_{suffix}", f"ivoauth_r_{suffix}"
    oauth = {"oauth2-server-uri": server.uri + "v1/oauth/tokens"}
    java_spark.add_rest_catalog(writer, server.uri, credential=auth.credentials["etl"], **oauth)
    java_spark.add_rest_catalog(reader, server.uri, credential=auth.credentials["viewer"], **oauth)
    _secured_spark_round_trip(java_spark, writer, reader)
    server.stop()
    log = server.log_text(lines=100_000)
    assert not [c.split(":", 1)[1] for c in auth.credentials.values() if c.split(":", 1)[1] in log]


def test_native_spark_replace_keeps_derived_dialects_over_serve(
    java_spark: JavaSpark, served: Served, client: Catalog
) -> None:
    """Iceberg-Spark's own CREATE OR REPLACE VIEW (Java's client-side drop-dialect guard included)
    on a view with ``iceview.derive-dialects``: it succeeds, the server derives the duckdb SQL from
    the new Spark SQL in the same commit, and DuckDB gives the new rows."""
    from iceview.duckdb import DuckDBViews

    cat = served.catalog
    ensure_events(java_spark, cat, client)
    qualified = f"{cat}.`default`.derived_ids"
    java_spark.sql(
        f"CREATE VIEW {qualified} TBLPROPERTIES ('iceview.derive-dialects' = 'duckdb') AS "
        f"SELECT event_id FROM {cat}.`default`.events WHERE event_id > 1"
    )
    created = client.load_view("default.derived_ids")
    assert created.current_version.dialects == ("spark", "duckdb"), created.current_version.summary
    assert created.properties["replace.drop-dialect.allowed"] == "true"

    java_spark.sql(
        f"CREATE OR REPLACE VIEW {qualified} TBLPROPERTIES ('iceview.derive-dialects' = 'duckdb') AS "
        f"SELECT event_id FROM {cat}.`default`.events WHERE event_id > 2"
    )
    replaced = client.load_view("default.derived_ids")
    version = replaced.current_version
    assert version.version_id == 2
    assert version.dialects == ("spark", "duckdb")
    assert version.summary["iceview.derived-dialects"] == "duckdb"
    duckdb_sql = version.sql_for("duckdb")
    assert duckdb_sql is not None and "> 2" in duckdb_sql.sql
    assert java_spark.sql(f"SELECT * FROM {qualified} ORDER BY event_id") == [
        {"event_id": 3},
        {"event_id": 4},
    ]
    duck = DuckDBViews(client, namespace="default")
    try:
        rows = duck.sql(f"SELECT event_id FROM {cat}.default.derived_ids ORDER BY event_id").fetchall()
    finally:
        duck.close()
    assert rows == [(3,), (4,)]
    java_spark.sql(f"DROP VIEW {qualified}")
