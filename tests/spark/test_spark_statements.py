"""Every view statement through SparkViews, side by side with Iceberg-Spark 1.10.2 running the same
statement (Spark 3.5.9 + Iceberg's SQL extensions, same PostgreSQL catalog).

Each step runs the statement twice: through ``SparkViews.sql`` with the session in ``sv.db``, and
through ``spark.sql`` (Iceberg-Spark) with the session in ``sv.other``, where the same tables exist.
Rows, error classes and messages must be the same once ``other`` is read as ``db``; the metadata
both sides write must match field for field (apart from uuids, timestamps and Java's own summary
keys). Differences that are on purpose are asserted explicitly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import CATALOG, TYPES_DDL, TYPES_ROW, Lake
from iceview.spark import SparkViewsAnalysisError

pytestmark = [pytest.mark.java, pytest.mark.postgres]

OURS, THEIRS = "db", "other"


def _norm(text: str) -> str:
    return re.sub(rf"\b{THEIRS}\b", OURS, text)


def _message(e: BaseException) -> str:
    """The message without the plan, and without Spark's position: for a CREATE, iceview has Spark
    analyse the query alone, so positions count from the query's start (a known difference)."""
    return re.sub(r"; line \d+ pos \d+$", "", str(e).split(";\n")[0].rstrip(";").strip()).strip()


def _java_message(e: BaseException) -> str:
    text = str(e)
    if "AlreadyExistsException: " in text:  # a raw Java exception through py4j
        return text.split("AlreadyExistsException: ", 1)[1].splitlines()[0]
    return _message(e)


def _error_class(e: BaseException) -> str | None:
    get = getattr(e, "getErrorClass", None)
    return get() if get is not None else None


class Side:
    def __init__(self, lake: Lake) -> None:
        self.lake = lake

    def ours(self, sql: str) -> tuple[str, Any]:
        self.lake.views.sql(f"USE {CATALOG}.{OURS}")
        try:
            return "rows", [r.asDict(recursive=True) for r in self.lake.views.sql(sql).collect()]
        except Exception as e:
            return "error", (_error_class(e), _message(e))

    def theirs(self, sql: str) -> tuple[str, Any]:
        self.lake.spark.sql(f"USE {CATALOG}.{THEIRS}")
        try:
            rows = [r.asDict(recursive=True) for r in self.lake.spark.sql(sql).collect()]
            return "rows", [
                {k: (OURS if v == THEIRS else _norm(v)) if isinstance(v, str) else v for k, v in r.items()}
                for r in rows
            ]
        except Exception as e:
            return "error", (_error_class(e), _norm(_java_message(e)))

    def both(self, sql: str) -> tuple[tuple[str, Any], tuple[str, Any]]:
        return self.ours(sql), self.theirs(sql)

    def same(self, sql: str) -> tuple[str, Any]:
        ours, theirs = self.both(sql)
        assert ours == theirs, f"{sql}\nours:   {ours}\ntheirs: {theirs}"
        return ours

    def metadata(self, name: str) -> tuple[Any, Any]:
        cat = self.lake.catalog
        return cat.load_view(f"{OURS}.{name}").metadata, cat.load_view(f"{THEIRS}.{name}").metadata


def assert_same_metadata(ours: Any, theirs: Any) -> None:
    assert [ours.schema_json(i) for i in range(len(ours.schemas))] == [
        theirs.schema_json(i) for i in range(len(theirs.schemas))
    ]
    assert dict(ours.properties) == dict(theirs.properties)
    assert _norm(theirs.location) == ours.location
    assert ours.version_ids == theirs.version_ids
    assert ours.current_version_id == theirs.current_version_id
    assert [e.version_id for e in ours.version_log] == [e.version_id for e in theirs.version_log]
    for a, b in zip(ours.versions, theirs.versions, strict=True):
        assert a.version_id == b.version_id
        assert a.schema_id == b.schema_id
        assert a.default_catalog == b.default_catalog
        assert tuple(a.default_namespace) == tuple(OURS if x == THEIRS else x for x in b.default_namespace)
        assert a.representations == b.representations
        assert a.summary["engine-name"] == b.summary["engine-name"] == "spark"
        assert a.summary["engine-version"] == b.summary["engine-version"] == "3.5.9"
        assert a.summary["iceview-version"]


@pytest.fixture(scope="module")
def side(lake: Lake) -> Iterator[Side]:
    spark = lake.spark
    spark.sql(
        f"CREATE TABLE {CATALOG}.{THEIRS}.events USING iceberg AS SELECT * FROM {CATALOG}.{OURS}.events"
    )
    spark.sql(TYPES_DDL.replace(f"{CATALOG}.{OURS}.", f"{CATALOG}.{THEIRS}."))
    spark.sql(TYPES_ROW.replace(f"{CATALOG}.{OURS}.", f"{CATALOG}.{THEIRS}."))
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW tv AS SELECT 1 AS x")
    spark.sql("CREATE OR REPLACE GLOBAL TEMPORARY VIEW gv AS SELECT 1 AS x")
    spark.sql(
        "CREATE OR REPLACE TEMPORARY FUNCTION f1 AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'"
    )
    try:
        yield Side(lake)
    finally:
        spark.sql("DROP VIEW IF EXISTS tv")
        spark.sql("DROP VIEW IF EXISTS global_temp.gv")
        spark.sql("DROP TEMPORARY FUNCTION IF EXISTS f1")
        spark.sql("USE spark_catalog.default")


SPEC_CREATE = (
    "CREATE VIEW st_basic (\n    event_count COMMENT 'Count of events',\n    event_date)\n"
    "COMMENT 'Daily event counts'\nTBLPROPERTIES ('k1' = 'v1', 'provider' = 'parquet', 'owner' = 'me', "
    "'comment' = 'ignored', 'format-version' = '1', 'spark.query-column-names' = 'zz')\nAS\n"
    "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM events\nGROUP BY 2"
)


def test_create_records_what_iceberg_spark_records(side: Side) -> None:
    assert side.same(SPEC_CREATE) == ("rows", [])
    assert_same_metadata(*side.metadata("st_basic"))
    ours, _ = side.metadata("st_basic")
    assert ours.current_version.default_catalog is None  # the session's catalog is the view's
    assert ours.current_version.sql_for("spark").sql.startswith("SELECT\n    COUNT(1)")
    props = dict(ours.properties)
    assert props["spark.query-column-names"] == "count(1),event_ts"
    assert props["engine_version"] == props["create_engine_version"] == "Spark 3.5.9"
    assert (
        props["write.format.default"] == "parquet"
        and props["owner"] == "me"
        and props["comment"] == "Daily event counts"
    )
    # every Spark type: ids, optionality, docs and types as SparkSchemaUtil.convert makes them
    side.same("CREATE VIEW st_types AS SELECT * FROM types")
    side.same("CREATE VIEW st_types2 (a COMMENT 'x', b) AS SELECT st, m FROM types")
    assert_same_metadata(*side.metadata("st_types"))
    assert_same_metadata(*side.metadata("st_types2"))


def test_create_errors(side: Side) -> None:
    side.same("CREATE VIEW st_e AS SELECT id FROM events")
    for sql in (
        "CREATE VIEW st_e AS SELECT 1 AS x",  # VIEW_ALREADY_EXISTS
        "CREATE VIEW IF NOT EXISTS st_e AS SELECT 1 AS x",  # no-op
        "CREATE VIEW st_cnt (a, b, c) AS SELECT id, event_ts FROM events",
        "CREATE VIEW st_cnt (a) AS SELECT id, event_ts FROM events",
        "CREATE VIEW st_dup AS SELECT id, event_ts AS id FROM events",
        "CREATE VIEW st_dup (a, A) AS SELECT id, event_ts FROM events",
        "CREATE VIEW st_tmp AS SELECT * FROM tv",
        "CREATE VIEW st_tmp AS SELECT * FROM events JOIN global_temp.gv ON true",
        "CREATE VIEW st_fn AS SELECT f1(id) AS a FROM events",
        "CREATE VIEW st_prov TBLPROPERTIES ('provider' = 'csv') AS SELECT 1 AS x",
        "CREATE VIEW events AS SELECT 1 AS x",  # a table of that name
        "CREATE VIEW IF NOT EXISTS events AS SELECT 1 AS x",
        "CREATE VIEW st_bad AS SELECT nocol FROM events",
    ):
        side.same(sql)
    # the names are listed in the order of the SQL text; Iceberg lists them in plan order
    ours, theirs = side.both(
        "CREATE VIEW st_tmp AS SELECT * FROM events JOIN global_temp.gv ON true WHERE id IN (SELECT x FROM tv)"
    )
    assert (
        ours[1][1] == "Cannot create view sv.db.st_tmp that references temporary view: [global_temp.gv, tv]"
    )
    assert (
        theirs[1][1] == "Cannot create view sv.db.st_tmp that references temporary view: [tv, global_temp.gv]"
    )
    ours, theirs = side.both("CREATE OR REPLACE VIEW events AS SELECT 1 AS x")
    assert ours[0] == theirs[0] == "error"
    assert ours[1][1] == theirs[1][1] == f"Table with same name already exists: {OURS}.events"
    assert_same_metadata(*side.metadata("st_e"))


def test_cycles_at_create_or_replace(side: Side) -> None:
    side.same("CREATE VIEW st_c1 AS SELECT id FROM events")
    side.same("CREATE VIEW st_c2 AS SELECT id FROM st_c1")
    kind, (_cls, message) = side.same("CREATE OR REPLACE VIEW st_c1 AS SELECT id FROM st_c2")
    assert kind == "error" and message == (
        "Recursive cycle in view detected: sv.db.st_c1 (cycle: sv.db.st_c1 -> st_c2 -> sv.db.st_c1)"
    )
    # Iceberg-Spark misses a view that reads itself (and then overflows its stack); iceview refuses it
    ours = side.ours("CREATE OR REPLACE VIEW st_c1 AS SELECT id FROM st_c1")
    assert ours == (
        "error",
        (None, "Recursive cycle in view detected: sv.db.st_c1 (cycle: sv.db.st_c1 -> st_c1)"),
    )


def test_replace_alter_properties_show_describe(side: Side, lake: Lake) -> None:
    side.same(
        "CREATE VIEW st_p (c COMMENT 'the count') COMMENT 'first' AS SELECT count(*) FROM events GROUP BY id"
    )
    side.same("CREATE OR REPLACE VIEW st_p COMMENT 'second' AS SELECT id, event_ts FROM events WHERE id > 2")
    side.same("CREATE OR REPLACE VIEW st_p COMMENT 'second' AS SELECT id, event_ts FROM events WHERE id > 2")
    for sql in (
        "ALTER VIEW st_p SET TBLPROPERTIES ('owner-team' = 'analytics', 'sla' = 'daily', 'a\\'q' = 'it\\'s')",
        "ALTER VIEW st_p UNSET TBLPROPERTIES ('sla')",
        "ALTER VIEW st_p UNSET TBLPROPERTIES ('nokey')",
        "ALTER VIEW st_p UNSET TBLPROPERTIES IF EXISTS ('nokey')",
        "ALTER VIEW st_p SET TBLPROPERTIES ('format-version' = '2')",
        "ALTER VIEW st_p SET TBLPROPERTIES ('spark.query-column-names' = 'x')",
        "ALTER VIEW st_p UNSET TBLPROPERTIES ('format-version')",
        "ALTER VIEW st_p SET TBLPROPERTIES ('comment' = 'third', 'password' = 'hunter2')",
        "SHOW TBLPROPERTIES st_p",
        "SHOW TBLPROPERTIES st_p ('owner-team')",
        "SHOW TBLPROPERTIES st_p ('nokey')",
        "DESCRIBE st_p",
        "DESCRIBE EXTENDED st_p",
        "DESC FORMATTED st_p",
        "DESCRIBE TABLE st_p",
        "SHOW CREATE TABLE st_p",
        "DESCRIBE st_p id",
        "DESCRIBE nope",
        "SHOW CREATE TABLE nope",
        "SHOW TBLPROPERTIES nope",
        "SELECT * FROM nope",
        "SELECT * FROM st_p ORDER BY id",
        "DESCRIBE events",
    ):
        side.same(sql)
    assert_same_metadata(*side.metadata("st_p"))
    # Spark's parser refuses provider and location in ALTER ... SET TBLPROPERTIES (a ParseException)
    for key in ("provider", "location"):
        ours = side.ours(f"ALTER VIEW st_p SET TBLPROPERTIES ('{key}' = 'x')")
        assert ours[0] == "error" and ours[1][0] == "UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY"
        assert f"{key} is a reserved table property" in ours[1][1]


def test_show_views_rename_drop(side: Side) -> None:
    for name in ("st_r1", "st_r2", "st_rx"):
        side.same(f"CREATE VIEW {name} AS SELECT id FROM events")
    for sql in (
        "SHOW VIEWS LIKE 'st_r*'",
        "SHOW VIEWS IN sv.NS LIKE 'st_r1|st_r2'",
        "SHOW VIEWS LIKE 'ST_R*'",
        "SHOW VIEWS IN global_temp",
        "ALTER VIEW st_r1 RENAME TO st_r1b",
        "SELECT * FROM st_r1b ORDER BY id",
        "ALTER VIEW st_r1b RENAME TO st_r2",
        "ALTER VIEW st_r1b RENAME TO events",
        "ALTER VIEW st_r1b RENAME TO spark_catalog.default.x",
        "DROP VIEW st_r1b",
        "DROP VIEW st_r1b",
        "DROP VIEW IF EXISTS st_r1b",
        "DROP VIEW sv.NS.st_rx",
        "SHOW VIEWS LIKE 'st_r*'",
    ):
        ours = side.ours(sql.replace("NS", OURS))
        theirs = side.theirs(sql.replace("NS", THEIRS))
        if sql.startswith("SHOW VIEWS") and ours[0] == theirs[0] == "rows":
            # Java lists views with a query that has no ORDER BY, so its order follows the
            # database's row layout; iceview lists its views sorted (temporary views come in
            # Spark's order on both sides). The rows must be the same.
            catalog_rows = [r for r in ours[1] if not r["isTemporary"]]
            assert catalog_rows == sorted(catalog_rows, key=lambda r: (r["namespace"], r["viewName"])), sql
            key = _row_key
            ours, theirs = ("rows", sorted(ours[1], key=key)), ("rows", sorted(theirs[1], key=key))
        assert ours == theirs, f"{sql}\nours:   {ours}\ntheirs: {theirs}"


def _row_key(row: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in row.values())


def test_global_aggregate_nullability(side: Side) -> None:
    """A known difference: Iceberg-Spark takes the schema from the optimized plan, where Iceberg's
    aggregate push-down makes a global COUNT/MIN/MAX nullable; iceview records Spark's analyzed
    schema (COUNT is never null). Both read the view the same way."""
    side.same("CREATE VIEW st_g (c) AS SELECT count(*) FROM events")
    ours, theirs = side.metadata("st_g")
    assert ours.schema_json(0)["fields"][0]["required"] is True
    assert theirs.schema_json(0)["fields"][0]["required"] is False
    assert side.same("SELECT * FROM st_g") == ("rows", [{"c": 5}])


def test_alter_view_as_is_a_replace(side: Side, lake: Lake) -> None:
    side.same(
        "CREATE VIEW st_a (n COMMENT 'an id') COMMENT 'kept' TBLPROPERTIES ('k' = 'v') AS SELECT id FROM events"
    )
    ours, theirs = side.both("ALTER VIEW st_a AS SELECT id, event_ts FROM events WHERE id < 3")
    assert theirs == (
        "error",
        (None, "ALTER VIEW <viewName> AS is not supported. Use CREATE OR REPLACE VIEW instead"),
    )
    assert ours == ("rows", [])
    view = lake.catalog.load_view(f"{OURS}.st_a")
    assert view.current_version.version_id == 2
    assert [f.name for f in view.schema.fields] == ["id", "event_ts"]
    assert view.properties["comment"] == "kept" and view.properties["k"] == "v"
    assert view.properties["spark.query-column-names"] == "id,event_ts"
    # Iceberg-Spark reads the new version
    lake.spark.sql("USE spark_catalog.default")
    assert [r.id for r in lake.spark.sql(f"SELECT * FROM {CATALOG}.{OURS}.st_a ORDER BY id").collect()] == [
        1,
        2,
    ]


def test_python_methods(lake: Lake) -> None:
    v = lake.views
    name = f"{CATALOG}.{OURS}.st_py"
    view = v.create_view(
        name,
        "SELECT id, event_ts FROM sv.db.events",
        columns=[("i", "the id"), "t"],
        comment="c",
        properties={"x": "1"},
    )
    assert view is not None and view.properties["comment"] == "c"
    assert v.create_view(name, "SELECT 1 AS a", if_not_exists=True) is None
    v.create_or_replace_view(name, "SELECT id AS i, event_ts AS t FROM sv.db.events WHERE id > 1")
    v.alter_view_as(name, "SELECT id FROM sv.db.events")
    v.set_properties(name, {"a": "b"})
    v.unset_properties(name, ["a", "zz"], if_exists=True)
    assert sorted(r.key for r in v.show_tblproperties(name).collect()) == [
        "format-version",
        "location",
        "provider",
        "x",
    ]
    assert v.describe(name).collect()[0].col_name == "id"
    assert len(v.describe(name, extended=True).collect()) == 8
    assert v.show_create_table(name).collect()[0].createtab_stmt.startswith(f"CREATE VIEW {name} (\n  id)")
    assert [r.viewName for r in v.show_views(f"{CATALOG}.{OURS}", "st_py*").collect()] == ["st_py"]
    v.rename_view(name, f"{CATALOG}.{OURS}.st_py2")
    assert v.table(f"{CATALOG}.{OURS}.st_py2").count() == 5
    assert v.table(["sv", "db", "events"]).count() == 5
    v.drop_view(f"{CATALOG}.{OURS}.st_py2")
    v.drop_view(f"{CATALOG}.{OURS}.st_py2", if_exists=True)
    with pytest.raises(SparkViewsAnalysisError, match="VIEW_NOT_FOUND"):
        v.drop_view(f"{CATALOG}.{OURS}.st_py2")


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE VIEW sv.db.v$ AS SELECT 1",
        "CREATE VIEW sv.db.a$b AS SELECT 1",
        "CREATE VIEW sv.db.vé AS SELECT 1",
        "CREATE VIEW sv.db.123 AS SELECT 1",
        "CREATE VIEW 1e3 AS SELECT 1",
        "CREATE VIEW sv.db.1L AS SELECT 1",
        "CREATE VIEW sv.db.v-w AS SELECT 1",
        "CREATE VIEW sv.db.x (a,\n  b$) AS SELECT 1, 2",
        "DROP VIEW sv.db.v$",
        "ALTER VIEW sv.db.v$ RENAME TO sv.db.w",
        "ALTER VIEW sv.db.v RENAME TO sv.db.1.5",
        "CREATE VIEW sv.db.x TBLPROPERTIES ('a') AS SELECT 1",
        "CREATE VIEW sv.db.x TBLPROPERTIES ('a' = '1', 'a' = '2') AS SELECT 1",
        "CREATE VIEW sv.db.x COMMENT 'a' COMMENT 'b' AS SELECT 1",
        "CREATE OR REPLACE VIEW IF NOT EXISTS sv.db.x AS SELECT 1",
    ],
)
def test_parse_errors_are_sparks_parse_exception(lake: Lake, sql: str) -> None:
    """A view statement Spark's parser refuses gives PySpark's ParseException with Spark's error
    class and Spark's whole message (position and the ``== SQL ==`` pointer included)."""
    from pyspark.errors import ParseException

    from iceview.spark import SparkViewsParseError
    from iceview.spark.ddl import parse_view_statement

    with pytest.raises(ParseException) as theirs:
        lake.spark.sql(sql)
    with pytest.raises(SparkViewsParseError) as ours:
        parse_view_statement(sql)
    assert isinstance(ours.value, ParseException)
    assert ours.value.getErrorClass() == theirs.value.getErrorClass()
    assert str(ours.value) == str(theirs.value).lstrip("\n")
    with pytest.raises(ParseException) as through_sql:  # SparkViews.sql raises the same exception
        lake.views.sql(sql)
    assert through_sql.value.getErrorClass() == theirs.value.getErrorClass()


def test_digit_first_names_are_views(side: Side) -> None:
    """``1v`` is a name for Spark's lexer (``123``, ``1e3``, ``1d`` are numbers)."""
    for sql in (
        "CREATE VIEW 1v AS SELECT id FROM events",
        "CREATE VIEW st_1 (1c) AS SELECT * FROM 1v",
        "SELECT * FROM 1v ORDER BY id",
        "SELECT 1c FROM st_1 ORDER BY 1c",
        "SHOW CREATE TABLE st_1",
        "ALTER VIEW 1v RENAME TO 2e3x",
        "SELECT count(*) FROM 2e3x, st_1",
        "DROP VIEW 2e3x",
        "DROP VIEW st_1",
    ):
        side.same(sql)
