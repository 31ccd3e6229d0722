"""Interop with Iceberg Java 1.10.2's ``HiveCatalog`` (Iceberg-Spark ``type=hive`` in the session's
PySpark 3.5.9) on the session's Hive 2.3.10 metastore, with Java as the reference.

Two Spark catalogs, ``hive_java_lock`` (HMS locks, Java's default) and ``hive_java_nolock``
(``spark.sql.catalog.<name>.hadoop.iceberg.engine.hive.lock-enabled=false``: Iceberg-Spark 1.10.2
hands each catalog the Hadoop settings under its own ``hadoop.`` prefix), face two iceview catalogs
with ``iceberg.engine.hive.lock-enabled`` true and false. Each test works in databases of its own,
dropped when the module ends.

* :func:`test_views_written_by_either_side_are_the_same` (each lock mode): a view Java creates,
  replaces and changes the properties of, through its ``ViewCatalog`` API, and one iceview treats
  the same way, each read and changed by the other side, give the same metadata on both sides and
  the same raw HMS entry (all of ``get_table``, names, locations, uuids and times aside); Spark SQL
  creates, replaces, selects from and lists views iceview replaces, rolls back and creates; the
  other side renames and drops them. The one difference: Java's ``lastAccessTime``.
* :func:`test_lock_modes_are_what_each_side_was_told`: the Java catalogs' Hadoop settings; while
  the test holds the view's HMS lock, both lock-free writers commit and both locking ones wait.
* :func:`test_mixed_writers_race` (each lock mode): 3 iceview processes x 10 ``replace_version``
  commits (retrying) and 2 Spark threads x 10 ``CREATE OR REPLACE VIEW`` commits (retried by the
  test: Java's view replace does not retry) on one view; nothing acknowledged is lost or doubled,
  the pointer only ever holds files that parse (iceview and Java), one per commit in a chain, and
  the orphans (files no acknowledged commit holds) are counted per side.
* :func:`test_names_the_metastore_would_mangle`: upper case, dots and dashes, 129 characters.
* :func:`test_plain_hive_view_is_left_alone`: a Hive view that is not Iceberg's.
* :func:`test_lock_is_taken_on_the_name_the_metastore_stores`: the HMS lock manager compares names
  case-sensitively, so iceview locks the name the metastore stores (lower case); writers spelling
  one view differently (``NS.MyView``, ``ns.myview``) exclude each other. Java 1.10.2 locks the name
  as spelled, and such Java writers lose commits.

Run with ``-s`` to see the race figures.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

import iceview
from fixtures.hive_entries import create_plain_hive_view
from fixtures.hms_server import HmsServer
from fixtures.java_session import JavaError, JavaOracle, JavaSpark, as_java_error, disable_nagle
from iceview import files
from iceview.errors import (
    CatalogError,
    IceviewError,
    InvalidIdentifierError,
    InvalidNameError,
    NoSuchIcebergViewError,
    TableAlreadyExistsError,
)
from iceview.spec.schema import schema_to_json

# not marked ``hive``: it needs the session's Spark, so it runs in the main pytest (which starts a
# metastore for it), not in the Hive-only pytest beside it (scripts/test.sh)
pytestmark = pytest.mark.java

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("hive_writer.py")
LOCK_ENABLED = "iceberg.engine.hive.lock-enabled"
MODES = ("lock", "nolock")

# Both sides poll a waiting lock from 10 ms up to 200 ms (Java's defaults: 50 ms up to 5 s) and
# heartbeat every 4 s (the session's metastore expires a lock after 15 s without one). Java retries
# a failed `lock` call for iceberg.hive.lock-creation-timeout-ms (3 minutes by default; see the
# 129-character name): 1 s here.
JAVA_TUNING = {
    "hadoop.iceberg.hive.lock-check-min-wait-ms": "10",
    "hadoop.iceberg.hive.lock-check-max-wait-ms": "200",
    "hadoop.iceberg.hive.lock-heartbeat-interval-ms": "4000",
    "hadoop.iceberg.hive.lock-creation-timeout-ms": "1000",
}
ICEVIEW_TUNING = {
    "iceberg.hive.lock-check-min-wait-ms": "10",
    "iceberg.hive.lock-check-max-wait-ms": "200",
    "iceberg.hive.lock-heartbeat-interval-ms": "4000",
}

# every type Java's HiveSchemaUtil converts, docs at two levels (they become column comments)
WIDE = Schema(
    NestedField(1, "b", BooleanType(), required=False, doc="a bool"),
    NestedField(2, "i", IntegerType(), required=True),
    NestedField(3, "l", LongType()),
    NestedField(4, "f", FloatType()),
    NestedField(5, "d", DoubleType()),
    NestedField(6, "dt", DateType()),
    NestedField(7, "t", TimeType()),
    NestedField(8, "ts", TimestampType()),
    NestedField(9, "tstz", TimestamptzType(), doc="with zone"),
    NestedField(10, "s", StringType()),
    NestedField(11, "u", UUIDType()),
    NestedField(12, "fx", FixedType(16)),
    NestedField(13, "bin", BinaryType()),
    NestedField(14, "dec", DecimalType(10, 2)),
    NestedField(
        15,
        "st",
        StructType(NestedField(16, "x", IntegerType(), doc="inner"), NestedField(17, "y", StringType())),
    ),
    NestedField(18, "li", ListType(19, StringType())),
    NestedField(20, "m", MapType(21, StringType(), 22, IntegerType())),
    schema_id=0,
)
NARROW = Schema(
    NestedField(1, "b", BooleanType(), required=False, doc="a bool"),
    NestedField(23, "extra", StringType(), doc="added"),
    schema_id=0,
)
# what Spark makes of `SELECT <int> AS id, '<text>' AS data` (literals are not null)
ID_DATA = Schema(
    NestedField(0, "id", IntegerType(), required=True), NestedField(1, "data", StringType(), required=True)
)
ONE = Schema(NestedField(0, "a", IntegerType(), required=True))
RACE = Schema(
    NestedField(0, "w", StringType(), required=True), NestedField(1, "i", IntegerType(), required=True)
)
RACE_PROPERTIES = {
    "version.history.num-entries": "1000",
    "commit.retry.num-retries": "1000",
    "commit.retry.min-wait-ms": "5",
    "commit.retry.max-wait-ms": "100",
}


# ----------------------------------------------------------------------------- the two sides


@dataclass
class Side:
    """One lock mode: the Spark catalog (Java) and iceview's catalog."""

    mode: str
    lock: bool
    spark_name: str
    java: Any  # org.apache.iceberg.hive.HiveCatalog, a ViewCatalog
    ice: Any  # iceview.catalog.hive.HiveCatalog


@dataclass
class HiveJava:
    spark: JavaSpark
    metastore: HmsServer
    warehouse: Path
    sides: dict[str, Side]
    databases: list[str] = field(default_factory=list)

    def database(self, name: str) -> str:
        """A new database (made by iceview), dropped when the module ends."""
        self.sides["lock"].ice.create_namespace(name)
        self.databases.append(name.lower())
        return name

    def hms(self, database: str, name: str) -> Any | None:
        """The raw Thrift ``get_table``, or None."""
        from hive_metastore.ttypes import NoSuchObjectException

        with self.metastore.client() as client:
            try:
                return client.get_table(database, name)
            except NoSuchObjectException:
                return None

    def jschema(self, schema: Schema) -> Any:
        return self.spark.jvm.org.apache.iceberg.SchemaParser.fromJson(json.dumps(schema_to_json(schema)))

    def sql(self, statement: str) -> list[dict[str, Any]]:
        disable_nagle(self.spark.spark)
        return self.spark.sql(statement)


@pytest.fixture(scope="module")
def env(
    java_spark: JavaSpark, hive_metastore: HmsServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HiveJava]:
    warehouse = tmp_path_factory.mktemp("hive-java-warehouse")
    sides: dict[str, Side] = {}
    for mode in MODES:
        lock = mode == "lock"
        spark_name = f"hive_java_{mode}"
        java_spark.add_hive_catalog(
            spark_name, hive_metastore.uri, warehouse, lock_enabled=lock, **JAVA_TUNING
        )
        ice = iceview.load_catalog(
            f"hive_ice_{mode}",
            type="hive",
            uri=hive_metastore.uri,
            warehouse=warehouse.as_uri(),
            **{LOCK_ENABLED: str(lock).lower(), **ICEVIEW_TUNING},
        )
        sides[mode] = Side(mode, lock, spark_name, java_spark.catalog(spark_name), ice)
    hive = HiveJava(java_spark, hive_metastore, warehouse, sides)
    yield hive
    for side in sides.values():
        side.ice.close()
    with hive_metastore.client() as client:
        for database in hive.databases:
            with contextlib.suppress(Exception):
                client.drop_database(database, False, True)


@pytest.fixture(params=MODES)
def side(request: pytest.FixtureRequest, env: HiveJava) -> Side:
    return env.sides[request.param]


# ----------------------------------------------------------------------------- helpers


def jcall(fn: Any, *args: Any) -> Any:
    """Call Java; a Java exception becomes :class:`JavaError`."""
    try:
        return fn(*args)
    except Exception as e:
        err = as_java_error(e)
        if err is None:
            raise
        raise err from None


def java_fails(fn: Callable[[], Any]) -> JavaError:
    """The Java exception ``fn`` raises (through py4j or Spark)."""
    try:
        fn()
    except Exception as e:
        err = as_java_error(e)
        if err is None:
            raise
        return err
    raise AssertionError("Java did not fail")


def java_view(
    env: HiveJava,
    side: Side,
    ident: str | Sequence[str],
    schema: Schema,
    queries: Sequence[tuple[str, str]],
    properties: dict[str, str] | None = None,
) -> Any:
    """``buildView(ident)...create()`` through Java's ``ViewCatalog`` API."""
    levels = ident.split(".") if isinstance(ident, str) else list(ident)
    builder = (
        side.java.buildView(env.spark.identifier(levels))
        .withSchema(env.jschema(schema))
        .withDefaultNamespace(env.spark.namespace(levels[:-1]))
    )
    for dialect, sql in queries:
        builder = builder.withQuery(dialect, sql)
    for key, value in (properties or {}).items():
        builder = builder.withProperty(key, value)
    return jcall(builder.create)


def java_replace_version(
    env: HiveJava, side: Side, ident: str, schema: Schema, queries: Sequence[tuple[str, str]]
) -> None:
    view = jcall(side.java.loadView, env.spark.identifier(ident))
    replace = view.replaceVersion().withSchema(env.jschema(schema))
    replace = replace.withDefaultNamespace(env.spark.namespace(ident.split(".")[:-1]))
    for dialect, sql in queries:
        replace = replace.withQuery(dialect, sql)
    jcall(replace.commit)


def same_on_both_sides(env: HiveJava, side: Side, ident: str) -> dict[str, Any]:
    """Java and iceview load the view from the same file and read the same metadata (as JSON)."""
    java = env.spark.view_info(side.java, ident)
    ice = side.ice.load_view(ident)
    assert java["metadata_file"] == ice.metadata_location
    metadata: dict[str, Any] = json.loads(java["metadata_json"])
    assert metadata == json.loads(ice.metadata.to_json()), ident
    return metadata


def data(obj: Any) -> Any:
    """A Thrift struct as plain data (for readable differences)."""
    if type(obj).__module__.startswith("hive_metastore"):
        return {k: data(v) for k, v in vars(obj).items()}
    if isinstance(obj, list):
        return [data(v) for v in obj]
    if isinstance(obj, dict):
        return {k: data(v) for k, v in sorted(obj.items())}
    return obj


def differences(a: Any, b: Any, path: str = "") -> dict[str, tuple[Any, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: dict[str, tuple[Any, Any]] = {}
        for key in sorted(set(a) | set(b)):
            out.update(differences(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{path}.{key}"))
        return out
    return {} if a == b else {path: (a, b)}


# what necessarily differs between two views: their names, locations, uuids, files and times
PER_VIEW_PARAMETERS = ("metadata_location", "previous_metadata_location", "uuid", "transient_lastDdlTime")


def shape(table: Any) -> dict[str, Any]:
    """An HMS entry with what necessarily differs between two views blanked (present or not is kept)."""
    t = copy.deepcopy(table)
    t.tableName = "<name>"
    t.dbName = "<database>"
    t.sd.location = "<location>"
    t.createTime = t.lastAccessTime = 0
    for key in PER_VIEW_PARAMETERS:
        if key in t.parameters:
            t.parameters[key] = "<set>"
    return data(t)


def local_path(location: str) -> str:
    """The path of a ``file:`` location (``file:/x`` as Java writes it, ``file:///x`` as iceview)."""
    from urllib.parse import urlparse

    return urlparse(location).path


def java_int_seconds(millis: int) -> int:
    """Java's ``(int) currentTimeMillis / 1000``: the cast binds first, the millis wrap to 32 bits."""
    wrapped = (millis + 2**31) % 2**32 - 2**31
    return int(wrapped / 1000)  # Java's division truncates toward zero


@dataclass
class Window:
    """When something ran, in wall-clock milliseconds."""

    start_ms: int = 0
    end_ms: int = 0

    @contextlib.contextmanager
    def measure(self) -> Iterator[Window]:
        self.start_ms = int(time.time() * 1000)
        yield self
        self.end_ms = int(time.time() * 1000)

    def seconds(self, value: int) -> bool:
        return self.start_ms // 1000 - 1 <= value <= self.end_ms // 1000 + 1


def assert_same_entries(env: HiveJava, database: str, java_made: str, ice_made: str) -> tuple[Any, Any]:
    """The HMS entries of two views made (and changed) the same way, one by each side, are the same
    but for the names, locations, uuids, files and times; the per-view values are each view's own."""
    jt, it = env.hms(database, java_made), env.hms(database, ice_made)
    assert jt is not None and it is not None
    assert differences(shape(jt), shape(it)) == {}
    for table, name in ((jt, java_made), (it, ice_made)):
        ident = f"{database}.{name}"
        metadata = env.sides["lock"].ice.load_view(ident).metadata
        params = table.parameters
        assert table.tableType == "VIRTUAL_VIEW" and params["table_type"] == "ICEBERG-VIEW"
        assert table.tableName == name.lower()
        assert table.sd.location == metadata.location
        assert params["metadata_location"] == metadata.metadata_file_location
        assert params["uuid"] == metadata.uuid
        assert params["transient_lastDdlTime"].isdigit()
    return jt, it


# ----------------------------------------------------------------------------- 1. the same views


def test_views_written_by_either_side_are_the_same(env: HiveJava, side: Side) -> None:
    db = env.database(f"hj_same_{side.mode}")
    queries = [("spark", f"SELECT * FROM {db}.t"), ("hive", f"SELECT * FROM {db}.t -- for hive")]
    properties = {"comment": "made the same way", "k": "v", "hive.metastore.table.owner": "alice"}

    # -- create: Java through its ViewCatalog API, iceview the same way
    with Window().measure() as java_made:
        java_view(env, side, f"{db}.jv", WIDE, queries, properties)
    with Window().measure() as ice_made:
        side.ice.create_view(
            f"{db}.iv", schema=WIDE, queries=queries, default_namespace=(db,), properties=properties
        )
    for name in ("jv", "iv"):
        metadata = same_on_both_sides(env, side, f"{db}.{name}")
        assert [v["version-id"] for v in metadata["versions"]] == [1]
    jt, it = assert_same_entries(env, db, "jv", "iv")
    assert "previous_metadata_location" not in jt.parameters
    assert set(jt.parameters) == {
        "table_type",
        "metadata_location",
        "uuid",
        "current-schema",
        "transient_lastDdlTime",
        "comment",
        "k",
    }
    assert jt.owner == "alice"  # the owner property, which is not a parameter
    assert jt.viewOriginalText == jt.viewExpandedText == f"SELECT * FROM {db}.t -- for hive"
    assert json.loads(jt.parameters["current-schema"]) == schema_to_json(WIDE)
    assert [(c.name, c.type, c.comment) for c in jt.sd.cols] == [
        ("b", "boolean", "a bool"),
        ("i", "int", None),
        ("l", "bigint", None),
        ("f", "float", None),
        ("d", "double", None),
        ("dt", "date", None),
        ("t", "string", None),
        ("ts", "timestamp", None),
        ("tstz", "timestamp", "with zone"),  # Hive 2's classes: no "timestamp with local time zone"
        ("s", "string", None),
        ("u", "string", None),
        ("fx", "binary", None),
        ("bin", "binary", None),
        ("dec", "decimal(10,2)", None),
        ("st", "struct<x:int,y:string>", None),
        ("li", "array<string>", None),
        ("m", "map<string,int>", None),
    ]
    # the metastore sets createTime itself; lastAccessTime is what the writer sent: iceview sends
    # the time in seconds, Java's newHMSView sends `(int) currentTimeMillis / 1000` (a wrapped int)
    assert java_made.seconds(jt.createTime) and ice_made.seconds(it.createTime)
    assert ice_made.seconds(it.lastAccessTime)
    assert jt.lastAccessTime in {
        java_int_seconds(ms) for ms in range(java_made.start_ms, java_made.end_ms + 1)
    }, jt.lastAccessTime

    # -- each side replaces the other's view: a new schema and SQL (the hive SQL kept)
    new_queries = [("spark", f"SELECT b, 'x' AS extra FROM {db}.t"), ("hive", f"SELECT b, 'x' FROM {db}.t")]
    java_replace_version(env, side, f"{db}.iv", NARROW, new_queries)
    side.ice.load_view(f"{db}.jv").replace_version(
        schema=NARROW, queries=new_queries, default_namespace=(db,)
    )
    for name in ("jv", "iv"):
        metadata = same_on_both_sides(env, side, f"{db}.{name}")
        assert [v["version-id"] for v in metadata["versions"]] == [1, 2]
        assert metadata["current-version-id"] == 2
    jt2, _ = assert_same_entries(env, db, "jv", "iv")
    assert jt2.parameters["previous_metadata_location"] == jt.parameters["metadata_location"]
    assert jt2.viewOriginalText == jt.viewOriginalText  # not updated on replace
    assert [c.name for c in jt2.sd.cols] == ["b", "extra"]
    assert json.loads(jt2.parameters["current-schema"])["fields"] == schema_to_json(NARROW)["fields"]
    assert jt2.owner == "alice"

    # -- and changes its properties: a removed property leaves the parameters
    jview = jcall(side.java.loadView, env.spark.identifier(f"{db}.iv"))
    jcall(jview.updateProperties().remove("k").set("k2", "v2").commit)
    side.ice.load_view(f"{db}.jv").update_properties().remove("k").set("k2", "v2").commit()
    for name in ("jv", "iv"):
        assert same_on_both_sides(env, side, f"{db}.{name}")["properties"] == {
            "comment": "made the same way",
            "hive.metastore.table.owner": "alice",
            "k2": "v2",
        }
    jt3, _ = assert_same_entries(env, db, "jv", "iv")
    assert "k" not in jt3.parameters and jt3.parameters["k2"] == "v2"

    # -- Spark SQL: a view Spark creates, iceview replaces and rolls back; one iceview creates
    catalog = side.spark_name
    env.sql(f"CREATE VIEW {catalog}.{db}.sv COMMENT 'by spark' AS SELECT 1 AS id, 'a' AS data")
    spark_view = side.ice.load_view(f"{db}.sv")
    same_on_both_sides(env, side, f"{db}.sv")
    version = spark_view.current_version
    side.ice.create_view(
        f"{db}.sv_ice",
        schema=spark_view.schema,
        queries=[(r.dialect, r.sql) for r in version.representations],
        default_namespace=version.default_namespace,
        default_catalog=version.default_catalog,
        properties=dict(spark_view.properties),
    )
    assert_same_entries(env, db, "sv", "sv_ice")
    side.ice.replace_view(
        f"{db}.sv", schema=ID_DATA, queries={"spark": "SELECT 2 AS id, 'b' AS data"}, default_namespace=(db,)
    )
    assert env.sql(f"SELECT * FROM {catalog}.{db}.sv") == [{"id": 2, "data": "b"}]
    env.sql(f"CREATE OR REPLACE VIEW {catalog}.{db}.sv AS SELECT 3 AS id, 'c' AS data")
    assert side.ice.load_view(f"{db}.sv").sql_for("spark").sql == "SELECT 3 AS id, 'c' AS data"
    side.ice.load_view(f"{db}.sv").set_current_version(1)  # roll back
    assert env.sql(f"SELECT * FROM {catalog}.{db}.sv") == [{"id": 1, "data": "a"}]
    metadata = same_on_both_sides(env, side, f"{db}.sv")
    assert [e["version-id"] for e in metadata["version-log"]] == [1, 2, 3, 1]
    assert env.sql(f"SELECT * FROM {catalog}.{db}.sv_ice") == [{"id": 1, "data": "a"}]
    shown = sorted(r["viewName"] for r in env.sql(f"SHOW VIEWS IN {catalog}.{db}"))
    assert shown == [name for _, name in side.ice.list_views(db)] == ["iv", "jv", "sv", "sv_ice"]

    # -- the other side renames and drops them; a drop deletes the current metadata file only
    old_uuid = side.ice.load_view(f"{db}.jv").metadata.uuid
    side.ice.rename_view(f"{db}.jv", f"{db}.jv_renamed")
    assert env.spark.view_info(side.java, f"{db}.jv_renamed")["uuid"] == old_uuid
    assert not side.java.viewExists(env.spark.identifier(f"{db}.jv"))
    assert jcall(side.java.dropView, env.spark.identifier(f"{db}.iv")) is True
    assert side.ice.drop_view(f"{db}.jv_renamed") is True
    assert env.hms(db, "iv") is None and env.hms(db, "jv_renamed") is None
    for name in ("jv", "iv"):
        folder = env.warehouse / f"{db}.db" / name / "metadata"
        left = sorted(files.parse_version(n) for n in os.listdir(folder) if n.endswith(".metadata.json"))
        assert left == [0, 1], (name, left)


# ----------------------------------------------------------------------------- 2. lock modes


@contextlib.contextmanager
def hms_lock(env: HiveJava, database: str, table: str) -> Iterator[None]:
    """An EXCLUSIVE table lock from the metastore's lock API, held by the test."""
    from hive_metastore.ttypes import (
        LockComponent,
        LockLevel,
        LockRequest,
        LockState,
        LockType,
        UnlockRequest,
    )

    with env.metastore.client() as client:
        component = LockComponent(
            type=LockType.EXCLUSIVE, level=LockLevel.TABLE, dbname=database, tablename=table
        )
        response = client.lock(
            LockRequest(component=[component], user="test", hostname="test", agentInfo="test")
        )
        assert response.state == LockState.ACQUIRED
        try:
            yield
        finally:
            client.unlock(UnlockRequest(lockid=response.lockid))


def waits_for_lock(env: HiveJava, database: str, table: str, commit: Callable[[], Any]) -> None:
    """``commit`` waits while the test holds the view's HMS lock, and completes once it is released."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            commit()
        except BaseException as e:
            errors.append(e)

    with hms_lock(env, database, table):
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(0.8)
        assert thread.is_alive(), f"committed while the lock was held: {errors}"
    thread.join(30)
    assert not thread.is_alive() and not errors, errors


def test_lock_modes_are_what_each_side_was_told(env: HiveJava) -> None:
    lock, nolock = env.sides["lock"], env.sides["nolock"]
    # the per-catalog prefix reaches each Java catalog's Hadoop configuration, and nothing else's
    assert lock.java.getConf().get(LOCK_ENABLED) == "true"
    assert nolock.java.getConf().get(LOCK_ENABLED) == "false"
    assert nolock.java.getConf().get("iceberg.hive.lock-check-max-wait-ms") == "200"
    assert env.spark.spark._jsc.hadoopConfiguration().get(LOCK_ENABLED) is None
    assert (lock.ice.lock_enabled, nolock.ice.lock_enabled) == (True, False)

    db = env.database("hj_modes")
    lock.ice.create_view(
        f"{db}.v",
        schema=ONE,
        queries={"spark": "SELECT 0 AS a"},
        default_namespace=(db,),
        properties=RACE_PROPERTIES,
    )
    with hms_lock(env, db, "v"):  # the lock-free writers do not ask for it
        env.sql(f"CREATE OR REPLACE VIEW {nolock.spark_name}.{db}.v AS SELECT 1 AS a")
        nolock.ice.load_view(f"{db}.v").replace_version(
            schema=ONE, queries={"spark": "SELECT 2 AS a"}, default_namespace=(db,)
        )
    waits_for_lock(
        env, db, "v", lambda: env.sql(f"CREATE OR REPLACE VIEW {lock.spark_name}.{db}.v AS SELECT 3 AS a")
    )
    waits_for_lock(
        env,
        db,
        "v",
        lambda: lock.ice.load_view(f"{db}.v").replace_version(
            schema=ONE, queries={"spark": "SELECT 4 AS a"}, default_namespace=(db,)
        ),
    )
    metadata = same_on_both_sides(env, lock, f"{db}.v")
    sqls = [v["representations"][0]["sql"] for v in metadata["versions"]]
    assert sqls == [f"SELECT {n} AS a" for n in range(5)]


# ----------------------------------------------------------------------------- 3. the race

PY_WRITERS, PY_COMMITS = 3, 10
JAVA_THREADS, JAVA_COMMITS = 2, 10
JAVA_ATTEMPTS = 100


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _sql(writer: str, i: int) -> str:
    return f"SELECT '{writer}' AS w, {i} AS i"


@dataclass
class Race:
    iceview: list[dict[str, Any]]
    java: list[dict[str, Any]]  # one record per attempt
    observed: set[tuple[str | None, str | None]]  # (metadata_location, previous_metadata_location) polled
    seconds: float


def run_race(env: HiveJava, side: Side, db: str, tmp_path: Path) -> Race:
    go = tmp_path / "go"
    outs = [tmp_path / f"writer-{w}.jsonl" for w in range(PY_WRITERS)]
    procs = [
        subprocess.Popen(
            [
                _python(),
                str(WRITER),
                env.metastore.uri,
                env.warehouse.as_uri(),
                f"{db}.v",
                str(w),
                str(PY_COMMITS),
                str(side.lock).lower(),
                str(outs[w]),
                str(go),
            ],
            env={
                **os.environ,
                "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for w in range(PY_WRITERS)
    ]
    java: list[dict[str, Any]] = []
    observed: set[tuple[str | None, str | None]] = set()
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def java_writer(t: int) -> None:
        disable_nagle(env.spark.spark)
        while not go.exists():
            if stop.is_set():
                return
            time.sleep(0.005)
        for i in range(JAVA_COMMITS):
            for attempt in range(JAVA_ATTEMPTS):
                record: dict[str, Any] = {"writer": f"java{t}", "i": i, "attempt": attempt}
                try:
                    env.spark.spark.sql(
                        f"CREATE OR REPLACE VIEW {side.spark_name}.{db}.v AS {_sql(f'java{t}', i)}"
                    ).collect()
                except Exception as e:
                    err = as_java_error(e)
                    record["error"] = err.text if err is not None else f"{type(e).__name__}: {e}"
                java.append(record)
                if "error" not in record:
                    break

    def poll() -> None:
        with env.metastore.client() as client:
            while not stop.is_set():
                params = client.get_table(db, "v").parameters
                observed.add((params.get("metadata_location"), params.get("previous_metadata_location")))

    try:
        deadline = time.monotonic() + 60
        while not all(Path(f"{out}.ready").exists() for out in outs):
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs), [
                p.communicate()[0] for p in procs if p.poll() is not None
            ]
            time.sleep(0.02)
        threads += [threading.Thread(target=java_writer, args=(t,)) for t in range(JAVA_THREADS)]
        threads.append(threading.Thread(target=poll))
        for thread in threads:
            thread.start()
        started = time.monotonic()
        go.touch()
        for p in procs:
            output, _ = p.communicate(timeout=240)
            assert p.returncode == 0, output
        for thread in threads[:-1]:
            thread.join(240)
        seconds = time.monotonic() - started
    finally:
        stop.set()
        for p in procs:
            if p.poll() is None:
                p.kill()
    for thread in threads:
        thread.join(10)
    records = [json.loads(line) for out in outs for line in out.read_text().splitlines()]
    return Race(records, java, observed, seconds)


def test_mixed_writers_race(env: HiveJava, side: Side, java_oracle: JavaOracle, tmp_path: Path) -> None:
    db = env.database(f"hj_race_{side.mode}")
    first = _sql("init", -1)
    if side.lock:  # iceview makes the view in one mode, Spark in the other
        side.ice.create_view(
            f"{db}.v",
            schema=RACE,
            queries={"spark": first},
            default_namespace=(db,),
            properties=RACE_PROPERTIES,
        )
    else:
        props = ", ".join(f"'{k}' = '{v}'" for k, v in RACE_PROPERTIES.items())
        env.sql(f"CREATE VIEW {side.spark_name}.{db}.v TBLPROPERTIES ({props}) AS {first}")
    race = run_race(env, side, db, tmp_path)

    py_errors = [r for r in race.iceview if "error" in r]
    assert not py_errors, py_errors[:3]
    py_acked = {_sql(r["writer"], r["i"]): r["location"] for r in race.iceview}
    assert len(py_acked) == PY_WRITERS * PY_COMMITS
    java_acked = {_sql(r["writer"], r["i"]) for r in race.java if "error" not in r}
    assert len(java_acked) == JAVA_THREADS * JAVA_COMMITS, "a Java commit failed every attempt"
    java_failed = Counter(r["error"].split(":")[0] for r in race.java if "error" in r)
    # Java's replace makes one attempt; a conflict is "View was updated concurrently"
    assert set(java_failed) <= {"org.apache.iceberg.exceptions.AlreadyExistsException"}, java_failed

    # every acknowledged commit is in the final versions and version log exactly once
    final = side.ice.load_view(f"{db}.v").metadata
    by_sql: dict[str, int] = {}
    for version in final.versions:
        sql = version.representations[0].sql
        assert sql not in by_sql, f"duplicated: {sql}"
        by_sql[sql] = version.version_id
    acked = set(py_acked) | java_acked
    lost = acked - set(by_sql)
    assert not lost, sorted(lost)
    assert set(by_sql) == acked | {first}, "a version no acknowledged commit made"
    log = [e.version_id for e in final.version_log]
    assert sorted(log) == sorted(by_sql.values()) and len(set(log)) == len(log) == len(acked) + 1

    # the files the pointer held: a chain, one per commit, each on top of the one before
    folder = Path(local_path(final.metadata_file_location)).parent
    found = {
        f"{final.metadata_file_location.rsplit('/', 1)[0]}/{n}": None
        for n in os.listdir(folder)
        if n.endswith(".metadata.json") and not n.startswith(".")
    }
    parsed = {location: files.read_metadata(location) for location in found}

    def versions(m: Any) -> set[tuple[int, str]]:
        return {(v.version_id, v.representations[0].sql) for v in m.versions}

    chain = [final.metadata_file_location]
    while len(parsed[chain[-1]].versions) > 1:
        m = parsed[chain[-1]]
        before = versions(m) - {(m.current_version_id, m.current_version.representations[0].sql)}
        predecessors = [loc for loc, p in parsed.items() if versions(p) == before]
        assert len(predecessors) == 1, (chain[-1], predecessors)
        chain.append(predecessors[0])
    chain.reverse()
    assert [files.parse_version(loc) for loc in chain] == list(range(len(acked) + 1))
    assert {parsed[loc].current_version.representations[0].sql for loc in chain} == acked | {first}
    assert set(py_acked.values()) <= set(chain)  # what each iceview commit said the pointer held
    for location in chain:
        assert java_oracle.read_error(location) is None, location

    # what the pointer was seen to hold: files of the chain, each after the one before. Hive 2.3 on
    # Derby may answer a get_table that runs while an alter_table commits with parameters of both
    # states (e.g. previous_metadata_location already the next commit's: the pointer's own file);
    # such torn reads are counted
    position = {loc: n for n, loc in enumerate(chain)}
    torn = 0
    for current, previous in race.observed:
        assert current in position, current
        n = position[current]
        if n == 0:
            assert previous is None
        elif previous != chain[n - 1]:
            assert previous in position and position[previous] <= n, (current, previous)
            torn += 1
    final_entry = env.hms(db, "v")
    assert final_entry is not None
    assert final_entry.parameters["previous_metadata_location"] == chain[-2]

    # orphans: files in the folder that no acknowledged commit made the pointer hold
    orphans = Counter(
        "iceview" if parsed[loc].current_version.representations[0].sql.startswith("SELECT 'py") else "java"
        for loc in parsed
        if loc not in position
    )
    attempts = sum(r.get("attempts", 1) for r in race.iceview)
    print(
        f"\n[hive race, {side.mode}] {race.seconds:.1f} s: iceview {len(py_acked)} acknowledged in {attempts} "
        f"attempts; Java {len(java_acked)} acknowledged, {sum(java_failed.values())} failed attempts "
        f"({dict(java_failed)}); lost 0, duplicated 0; pointer seen {len(race.observed)} times, "
        f"{torn} torn reads; orphan files: iceview {orphans['iceview']}, Java {orphans['java']}"
    )
    assert not orphans, orphans


# ----------------------------------------------------------------------------- 4. names


def test_names_the_metastore_would_mangle(env: HiveJava) -> None:
    lock, nolock = env.sides["lock"], env.sides["nolock"]
    spark_ns = env.spark.namespace

    # -- upper case: both sides keep the spelling in the location, the metastore stores lower case
    jcall(lock.java.createNamespace, spark_ns("NamesJava"))
    env.databases.append("namesjava")
    env.database("NamesIce")
    java_view(env, lock, "NamesJava.MyView", ONE, [("spark", "SELECT 1 AS a")])
    lock.ice.create_view(
        "NamesIce.MyView", schema=ONE, queries={"spark": "SELECT 1 AS a"}, default_namespace=("NamesIce",)
    )
    with env.metastore.client() as client:
        assert {"namesjava", "namesice"} <= set(client.get_all_databases())
        assert client.get_database("namesjava").locationUri.endswith("/NamesJava.db")
        assert client.get_database("namesice").locationUri.endswith("/NamesIce.db")
        assert client.get_all_tables("namesjava") == client.get_all_tables("namesice") == ["myview"]
    jt, it = env.hms("namesjava", "myview"), env.hms("namesice", "myview")
    assert jt.sd.location.endswith("/NamesJava.db/MyView") and it.sd.location.endswith("/NamesIce.db/MyView")
    assert differences(shape(jt), shape(it)) == {}
    # listed in lower case, under the namespace as asked for, by both
    for ns in ("NamesJava", "NamesIce", "namesjava", "NAMESICE"):
        java_listed = [str(i) for i in lock.java.listViews(spark_ns(ns))]
        assert java_listed == [f"{ns}.myview"]
        assert lock.ice.list_views(ns) == [(ns, "myview")]
    # loaded, and replaced, under any spelling
    assert lock.ice.load_view("NAMESJAVA.myview").metadata_location == jt.parameters["metadata_location"]
    assert (
        env.spark.view_info(lock.java, "namesice.MYVIEW")["metadata_file"]
        == it.parameters["metadata_location"]
    )
    lock.ice.load_view("namesjava.myview").replace_version(
        schema=ONE, queries={"spark": "SELECT 2 AS a"}, default_namespace=("NamesJava",)
    )
    java_replace_version(env, lock, "NAMESICE.MYVIEW", ONE, [("spark", "SELECT 2 AS a")])
    for ident in ("NamesJava.MyView", "NamesIce.MyView"):
        metadata = same_on_both_sides(env, lock, ident)
        assert metadata["versions"][-1]["representations"][0]["sql"] == "SELECT 2 AS a"
        assert "/MyView/metadata/00001-" in env.sides["lock"].ice.load_view(ident).metadata_location

    # -- a dot or a dash: the metastore refuses the name; both sides say so and leave no file
    db = env.database("hj_names")
    for side in (lock, nolock):
        for name in ("a.b", "a-b"):
            err = java_fails(lambda: java_view(env, side, [db, name], ONE, [("spark", "SELECT 1 AS a")]))  # noqa: B023
            assert (
                err.text
                == f"org.apache.iceberg.exceptions.ValidationException: Invalid Hive object for {db}.{name}"
            )
            with pytest.raises(InvalidIdentifierError, match="is not a valid object name") as caught:
                side.ice.create_view(
                    (db, name), schema=ONE, queries={"spark": "SELECT 1 AS a"}, default_namespace=(db,)
                )
            assert isinstance(caught.value, IceviewError)  # not the metastore's InvalidObjectException
            assert env.hms(db, name) is None
            assert not list((env.warehouse / f"{db}.db" / name / "metadata").glob("*.metadata.json"))
    err = java_fails(lambda: env.sql(f"CREATE VIEW {lock.spark_name}.{db}.`a.b` AS SELECT 1 AS a"))
    assert err.java_class == "org.apache.iceberg.exceptions.ValidationException"

    # -- 129 characters: the metastore's lock table holds 128 (HIVE_LOCKS.HL_TABLE), its table
    # names 256. Java with locks cannot take the lock (its `lock` call fails until
    # lock-creation-timeout-ms): "View was created concurrently". Java without locks stores the
    # name. iceview refuses a new name over 128 characters in both modes, before writing anything;
    # it lists, loads, replaces (without locks), renames and drops the one Java made.
    long = "x" * 129
    err = java_fails(lambda: java_view(env, lock, [db, long], ONE, [("spark", "SELECT 1 AS a")]))
    assert (
        err.text
        == f"org.apache.iceberg.exceptions.AlreadyExistsException: View was created concurrently: {db}.{long}"
    )
    assert env.hms(db, long) is None
    assert not list((env.warehouse / f"{db}.db" / long / "metadata").glob("*.metadata.json"))
    for side in (lock, nolock):
        with pytest.raises(InvalidNameError, match="129 characters, more than the 128 allowed"):
            side.ice.create_view(
                (db, long), schema=ONE, queries={"spark": "SELECT 1 AS a"}, default_namespace=(db,)
            )
    java_view(env, nolock, [db, long], ONE, [("spark", "SELECT 1 AS a")])
    assert env.hms(db, long).tableName == long
    assert (db, long) in lock.ice.list_views(db)
    same_on_both_sides(env, lock, f"{db}.{long}")
    with pytest.raises(CatalogError, match="Hive Metastore cannot lock"):  # its lock call fails too
        lock.ice.load_view((db, long)).replace_version(
            schema=ONE, queries={"spark": "SELECT 2 AS a"}, default_namespace=(db,)
        )
    nolock.ice.load_view((db, long)).replace_version(
        schema=ONE, queries={"spark": "SELECT 2 AS a"}, default_namespace=(db,)
    )
    assert [v["version-id"] for v in same_on_both_sides(env, nolock, f"{db}.{long}")["versions"]] == [1, 2]
    lock.ice.rename_view((db, long), (db, "short"))
    assert env.spark.view_info(lock.java, f"{db}.short")["version_ids"] == [1, 2]
    assert lock.ice.drop_view((db, "short")) is True
    assert env.hms(db, long) is None and env.hms(db, "short") is None


# ----------------------------------------------------------------------------- 5. a plain Hive view


def test_plain_hive_view_is_left_alone(env: HiveJava) -> None:
    db = env.database("hj_plain")
    lock = env.sides["lock"]
    # what Spark's own Hive catalog makes for CREATE VIEW: no table_type parameter
    with env.metastore.client() as client:
        create_plain_hive_view(client, db, "pv", {"comment": "a Hive view"})
    lock.ice.create_view(
        f"{db}.other", schema=ONE, queries={"spark": "SELECT 1 AS a"}, default_namespace=(db,)
    )
    before = env.hms(db, "pv")
    refused = f"Not an iceberg view: {{}}.{db}.pv (type=null) (tableType=VIRTUAL_VIEW)"  # Java's words

    # Java: never listed; load, drop, create, replace and rename refuse it
    pv = env.spark.identifier(f"{db}.pv")
    java_refused = "org.apache.iceberg.exceptions.NoSuchIcebergViewException: " + refused.format(
        lock.spark_name
    )
    for side in env.sides.values():
        assert [str(i) for i in side.java.listViews(env.spark.namespace(db))] == [f"{db}.other"]
        assert side.java.viewExists(pv) is False
        builder = (
            side.java.buildView(pv)
            .withSchema(env.jschema(ONE))
            .withQuery("spark", "SELECT 2 AS a")
            .withDefaultNamespace(env.spark.namespace(db))
        )
        for call in (
            lambda: side.java.loadView(pv),  # noqa: B023
            lambda: side.java.dropView(pv),  # noqa: B023
            builder.create,
            builder.replace,
            builder.createOrReplace,
            lambda: side.java.renameView(pv, env.spark.identifier(f"{db}.pv2")),  # noqa: B023
        ):
            assert java_fails(call).text == java_refused.replace(lock.spark_name, side.spark_name)
    spark = lock.spark_name
    assert [r["viewName"] for r in env.sql(f"SHOW VIEWS IN {spark}.{db}")] == ["other"]
    for statement in (f"CREATE VIEW {spark}.{db}.pv AS SELECT 2 AS a", f"DROP VIEW {spark}.{db}.pv"):
        assert java_fails(lambda: env.sql(statement)).text == java_refused  # noqa: B023
    err = java_fails(lambda: env.sql(f"CREATE OR REPLACE VIEW {spark}.{db}.pv AS SELECT 2 AS a"))
    assert err.java_class == "org.apache.spark.sql.catalyst.analysis.NoSuchViewException"
    err = java_fails(lambda: jcall(lock.java.renameView, env.spark.identifier(f"{db}.other"), pv))
    assert err.text == f"org.apache.iceberg.exceptions.AlreadyExistsException: Table already exists: {db}.pv"

    # iceview, in both modes: the same, as typed iceview errors
    definition = {"schema": ONE, "queries": {"spark": "SELECT 2 AS a"}, "default_namespace": (db,)}
    for side in env.sides.values():
        ice = side.ice
        assert ice.list_views(db) == [(db, "other")]
        assert ice.view_exists(f"{db}.pv") is False
        assert ice.table_exists(f"{db}.pv") is False
        for call in (
            lambda: ice.load_view(f"{db}.pv"),  # noqa: B023
            lambda: ice.drop_view(f"{db}.pv"),  # noqa: B023
            lambda: ice.create_view(f"{db}.pv", **definition),  # noqa: B023
            lambda: ice.replace_view(f"{db}.pv", **definition),  # noqa: B023
            lambda: ice.create_or_replace_view(f"{db}.pv", **definition),  # noqa: B023
            lambda: ice.rename_view(f"{db}.pv", f"{db}.pv2"),  # noqa: B023
            lambda: ice.register_view(f"{db}.pv", ice.load_view(f"{db}.other").metadata_location),  # noqa: B023
        ):
            with pytest.raises(NoSuchIcebergViewError) as caught:
                call()
            assert str(caught.value) == refused.format(ice.name)
        with pytest.raises(TableAlreadyExistsError, match="Table already exists"):
            ice.rename_view(f"{db}.other", f"{db}.pv")
    assert env.hms(db, "pv") == before  # untouched
    assert not (env.warehouse / f"{db}.db" / "pv").exists()


# ----------------------------------------------------------------------------- 6. lock names


def test_lock_is_taken_on_the_name_the_metastore_stores(env: HiveJava) -> None:
    lock = env.sides["lock"]
    db = env.database("hj_case")
    lock.ice.create_view(f"{db}.v", schema=ONE, queries={"spark": "SELECT 0 AS a"}, default_namespace=(db,))
    # the test holds the lock on the stored (lower-case) name; a commit to HJ_CASE.V must wait
    waits_for_lock(
        env,
        db,
        "v",
        lambda: lock.ice.load_view(f"{db.upper()}.V").replace_version(
            schema=ONE, queries={"spark": "SELECT 1 AS a"}, default_namespace=(db,)
        ),
    )
