"""iceview's ``RestCatalog`` and Iceberg-Spark 1.10.2 (``type=rest``) on one REST reference server.

* views Iceberg-Spark creates natively (``CREATE VIEW`` with Iceberg's SQL extensions): iceview
  loads them, replaces them and rolls them back, and Spark reads each result;
* views iceview creates over REST: Iceberg-Spark and PyIceberg's ``RestCatalog`` load them;
* ``SparkViews`` in a session without Iceberg's extensions, whose catalog for tables is
  Iceberg-Spark's REST catalog on the same server (the configuration docs/spark.md shows).

Everything runs in the test process's one Spark JVM (``java_spark``); the session without
extensions shares its ``SparkContext``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from fixtures.java_session import JavaSpark, plain_session
from fixtures.rest_java import JavaRestServer

pytestmark = pytest.mark.java

CATALOG = "rest_iv"  # the Spark catalog and the iceview catalog have the same name
ROWS = [
    (1, "12.50", "Zoë"),
    (2, None, "東京"),
    (3, "-0.01", None),
    (4, "99999999.99", "naïve café"),
]


def _sql_value(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


@pytest.fixture(scope="module")
def rest_spark(java_spark: JavaSpark, java_rest_server: JavaRestServer) -> JavaSpark:
    """The session's Spark (with Iceberg's extensions) and catalog ``rest_iv``: Iceberg's
    ``RESTCatalog`` on the reference server."""
    java_spark.add_rest_catalog(CATALOG, java_rest_server.uri)
    return java_spark


@pytest.fixture(scope="module")
def iceview_rest(java_rest_server: JavaRestServer) -> Iterator[Any]:
    """iceview's ``RestCatalog`` named ``rest_iv`` on the same server."""
    import iceview

    catalog = iceview.load_catalog(CATALOG, type="rest", uri=java_rest_server.uri)
    try:
        yield catalog
    finally:
        catalog.close()


@pytest.fixture
def ns(rest_spark: JavaSpark) -> str:
    """A new namespace holding table ``t`` (id INT, amount DECIMAL(10,2), name STRING), made by
    Iceberg-Spark, with NULLs, decimals and non-ASCII text."""
    name = "iv_" + uuid.uuid4().hex[:8]
    rest_spark.sql(f"CREATE NAMESPACE {CATALOG}.{name}")
    rest_spark.sql(
        f"CREATE TABLE {CATALOG}.{name}.t (id INT, amount DECIMAL(10,2), name STRING) USING iceberg"
    )
    values = ", ".join(
        f"({r[0]}, CAST({_sql_value(r[1])} AS DECIMAL(10,2)), {_sql_value(r[2])})" for r in ROWS
    )
    rest_spark.sql(f"INSERT INTO {CATALOG}.{name}.t VALUES {values}")
    return name


def expected(rows: list[tuple[int, str | None, str | None]]) -> list[dict[str, Any]]:
    return [{"id": i, "amount": None if a is None else Decimal(a), "name": n} for i, a, n in rows]


def rest_metadata_location(server: JavaRestServer, ns: str, view: str) -> str:
    with urllib.request.urlopen(f"{server.uri}v1/namespaces/{ns}/views/{view}", timeout=30) as r:
        return str(json.loads(r.read())["metadata-location"])


# ----------------------------------------------------------------------------- Spark -> iceview


def test_iceview_loads_replaces_and_rolls_back_a_view_spark_created(
    rest_spark: JavaSpark, iceview_rest: Any, java_rest_server: JavaRestServer, ns: str
) -> None:
    from pyiceberg.types import DecimalType, IntegerType, StringType

    rest_spark.sql(
        f"CREATE VIEW {CATALOG}.{ns}.v COMMENT 'rows with an amount' "
        f"AS SELECT id, amount, name FROM {CATALOG}.{ns}.t WHERE amount IS NOT NULL"
    )
    with_amount = [r for r in ROWS if r[1] is not None]
    assert rest_spark.sql(f"SELECT * FROM {CATALOG}.{ns}.v ORDER BY id") == expected(with_amount)

    view = iceview_rest.load_view((ns, "v"))
    assert view.metadata_location == rest_metadata_location(java_rest_server, ns, "v")
    assert [(f.name, f.field_type) for f in view.schema.fields] == [
        ("id", IntegerType()),
        ("amount", DecimalType(10, 2)),
        ("name", StringType()),
    ]
    spark_sql = view.sql_for("spark")
    assert spark_sql is not None and spark_sql.dialect == "spark"
    assert spark_sql.sql == f"SELECT id, amount, name FROM {CATALOG}.{ns}.t WHERE amount IS NOT NULL"
    assert view.properties["comment"] == "rows with an amount"
    assert view.current_version.version_id == 1

    # replace through iceview (same schema, other rows and text), then Spark reads the new version
    replaced = iceview_rest.replace_view(
        (ns, "v"),
        schema=view.schema,
        queries={"spark": f"SELECT id, amount, upper(name) AS name FROM {CATALOG}.{ns}.t WHERE id >= 2"},
        default_namespace=(ns,),
    )
    assert replaced.current_version.version_id == 2
    assert replaced.properties["comment"] == "rows with an amount"  # merged, not dropped
    assert replaced.metadata_location == rest_metadata_location(java_rest_server, ns, "v")
    upper = [(i, a, None if n is None else n.upper()) for i, a, n in ROWS if i >= 2]
    assert rest_spark.sql(f"SELECT * FROM {CATALOG}.{ns}.v ORDER BY id") == expected(upper)
    info = rest_spark.view_info(CATALOG, f"{ns}.v")
    assert info["current_version"]["version_id"] == 2

    # roll back to Spark's version: Spark reads the first rows again; the log keeps every step
    rolled = replaced.set_current_version(1)
    assert rolled.current_version.version_id == 1
    assert rest_spark.sql(f"SELECT * FROM {CATALOG}.{ns}.v ORDER BY id") == expected(with_amount)
    reloaded = iceview_rest.load_view((ns, "v"))
    assert [v.version_id for v in reloaded.versions] == [1, 2]
    assert [h.version_id for h in reloaded.history] == [1, 2, 1]
    assert reloaded.sql_for("spark").sql == spark_sql.sql


# ----------------------------------------------------------------------------- iceview -> Spark, PyIceberg


def test_spark_and_pyiceberg_load_a_view_iceview_created(
    rest_spark: JavaSpark, iceview_rest: Any, java_rest_server: JavaRestServer, ns: str
) -> None:
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import DecimalType, IntegerType, NestedField, StringType

    schema = Schema(
        NestedField(1, "id", IntegerType(), required=False),
        NestedField(2, "label", StringType(), required=False, doc="name or a dash"),
        NestedField(3, "amount", DecimalType(10, 2), required=False),
    )
    # an unqualified table: Iceberg-Spark resolves it in the view's catalog and default namespace
    sql = "SELECT id, coalesce(name, '—') AS label, amount FROM t WHERE id <> 1"
    created = iceview_rest.create_view(
        (ns, "w"),
        schema=schema,
        queries={"spark": sql},
        default_namespace=(ns,),
        properties={"owner": "iceview"},
    )
    assert created.metadata_location == rest_metadata_location(java_rest_server, ns, "w")

    rows = rest_spark.sql(f"SELECT * FROM {CATALOG}.{ns}.w ORDER BY id")
    assert rows == [
        {"id": i, "label": "—" if n is None else n, "amount": None if a is None else Decimal(a)}
        for i, a, n in ROWS
        if i != 1
    ]
    described = {r["col_name"]: r["data_type"] for r in rest_spark.sql(f"DESCRIBE {CATALOG}.{ns}.w")}
    assert described["amount"] == "decimal(10,2)"
    info = rest_spark.view_info(CATALOG, f"{ns}.w")
    assert info["metadata_file"] == created.metadata_location
    assert info["current_version"]["representations"][0]["sql"] == sql

    py = RestCatalog("py", uri=java_rest_server.uri)
    loaded = py.load_view((ns, "w")).metadata
    assert str(loaded.view_uuid) == str(created.uuid)
    version = next(v for v in loaded.versions if v.version_id == loaded.current_version_id)
    assert [(r.root.dialect, r.root.sql) for r in version.representations] == [("spark", sql)]
    assert list(version.default_namespace) == [ns]
    assert [f.name for f in loaded.schemas[-1].fields] == ["id", "label", "amount"]
    assert loaded.properties["owner"] == "iceview"


# ----------------------------------------------------------------------------- SparkViews over REST


def test_spark_views_over_rest_without_iceberg_extensions(
    rest_spark: JavaSpark, iceview_rest: Any, ns: str
) -> None:
    from pyspark.errors import AnalysisException

    from iceview.spark import SparkViews

    rest_spark.sql(
        f"CREATE VIEW {CATALOG}.{ns}.native AS SELECT id, amount, name FROM {CATALOG}.{ns}.t WHERE id <= 3"
    )
    # what docs/spark.md shows: Spark's catalog `rest_iv` is Iceberg-Spark's REST catalog (for the
    # tables), iceview's catalog of the same name is its RestCatalog on the same server
    plain = plain_session(rest_spark.spark, rest_spark.catalogs[CATALOG])
    views = SparkViews(plain, iceview_rest)

    def ours(sql: str) -> list[dict[str, Any]]:
        return [r.asDict(recursive=True) for r in views.sql(sql).collect()]

    query = f"SELECT * FROM {CATALOG}.{ns}.native ORDER BY id"
    with pytest.raises(AnalysisException):  # this session alone cannot read an Iceberg view
        plain.sql(query).collect()
    assert ours(query) == rest_spark.sql(query) == expected([r for r in ROWS if r[0] <= 3])

    # a view made through SparkViews, over the Spark-made one; Iceberg-Spark reads it too
    views.sql(
        f"CREATE VIEW {CATALOG}.{ns}.nested AS "
        f"SELECT name, amount * 2 AS doubled FROM {CATALOG}.{ns}.native WHERE amount IS NOT NULL"
    )
    query = f"SELECT * FROM {CATALOG}.{ns}.nested ORDER BY name"
    want = sorted(
        ({"name": n, "doubled": Decimal(a) * 2} for i, a, n in ROWS if i <= 3 and a is not None),
        key=lambda r: (r["name"] is not None, r["name"]),
    )
    assert ours(query) == rest_spark.sql(query) == want
    assert iceview_rest.load_view((ns, "nested")).sql_for("spark") is not None

    # a view iceview replaced is read by both the same way
    iceview_rest.replace_view(
        (ns, "native"),
        schema=iceview_rest.load_view((ns, "native")).schema,
        queries={"spark": f"SELECT id, amount, name FROM {CATALOG}.{ns}.t WHERE id >= 3"},
        default_namespace=(ns,),
    )
    query = f"SELECT * FROM {CATALOG}.{ns}.native ORDER BY id"
    assert ours(query) == rest_spark.sql(query) == expected([r for r in ROWS if r[0] >= 3])


# ----------------------------------------------------------------------------- iceview's own session

# run in a subprocess: iceview.spark.local_session (what `iceview sql --engine spark` uses) starts
# its own JVM, and this process keeps one
OWN_SESSION_SCRIPT = """
import json, sys
import iceview
from iceview.spark import SparkViews, local_session

uri, ns = sys.argv[1], sys.argv[2]
conf = {
    "spark.sql.catalog.prod": "org.apache.iceberg.spark.SparkCatalog",
    "spark.sql.catalog.prod.type": "rest",
    "spark.sql.catalog.prod.uri": uri,
    "spark.sql.catalog.prod.cache-enabled": "false",
}
spark = local_session(None, iceberg=True, extensions=False, conf=conf)
try:
    catalog = iceview.load_catalog("prod", type="rest", uri=uri)
    views = SparkViews(spark, catalog)
    spark.sql(f"CREATE NAMESPACE prod.{ns}")
    spark.sql(f"CREATE TABLE prod.{ns}.t (id INT, s STRING) USING iceberg")
    spark.sql(f"INSERT INTO prod.{ns}.t VALUES (1, 'ä'), (2, NULL)")
    views.sql(f"CREATE VIEW prod.{ns}.v AS SELECT id, coalesce(s, '-') AS s FROM prod.{ns}.t")
    rows = [r.asDict() for r in views.sql(f"SELECT * FROM prod.{ns}.v ORDER BY id").collect()]
    sql = catalog.load_view((ns, "v")).sql_for("spark").sql
    print(json.dumps({"packages": spark.conf.get("spark.jars.packages"), "rows": rows, "sql": sql}))
finally:
    spark.stop()
"""


def test_iceviews_own_spark_session_uses_a_rest_catalog(java_rest_server: JavaRestServer) -> None:
    """``local_session`` puts Maven's Iceberg runtime on ``spark.jars.packages``; it carries the
    relocated HttpClient 5 of Iceberg's REST client, so Iceberg-Spark's ``type=rest`` catalog works
    there (a runtime jar without it failed with ``NoClassDefFoundError``
    ``org/apache/iceberg/shaded/org/apache/hc/...``), and ``SparkViews`` on it writes and reads."""
    ns = "own_" + uuid.uuid4().hex[:8]
    done = subprocess.run(
        [sys.executable, "-c", OWN_SESSION_SCRIPT, java_rest_server.uri, ns],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:" in out["packages"]
    assert out["rows"] == [{"id": 1, "s": "ä"}, {"id": 2, "s": "-"}]
    assert out["sql"] == f"SELECT id, coalesce(s, '-') AS s FROM prod.{ns}.t"


# ----------------------------------------------------------------------------- the jars


def test_runtime_jars_carry_iceberg_rest_client_and_need_no_spark_layer() -> None:
    """``runtime_jars`` (the jar files of what ``iceview.spark.session`` puts on
    ``spark.jars.packages``) gives Maven's runtime jar, which carries Iceberg's relocated
    HttpClient 5 and Jackson; importing ``iceview.spark.jars`` loads neither pyspark nor the SQL
    layer."""
    code = (
        "import sys, json\n"
        "from iceview.spark.jars import runtime_jars\n"
        "jars = runtime_jars()\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('pyspark', 'iceview.spark.', 'iceview.sql')))\n"
        "print(json.dumps({'jars': jars, 'loaded': loaded}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(Path(j).is_file() for j in out["jars"])
    runtime = [j for j in out["jars"] if Path(j).name.startswith("iceberg-spark-runtime-3.5_2.12-")]
    assert len(runtime) == 1, out["jars"]
    with zipfile.ZipFile(runtime[0]) as jar:
        names = set(jar.namelist())
    assert "org/apache/iceberg/shaded/org/apache/hc/client5/http/impl/classic/HttpClients.class" in names
    assert "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class" in names
    assert any(Path(j).name.startswith("sqlite-jdbc-") for j in out["jars"])
    assert any(Path(j).name.startswith("postgresql-") for j in out["jars"])
    assert out["loaded"] == ["iceview.spark.jars"]
