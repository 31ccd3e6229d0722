"""View expansion executed: the expanded DuckDB SQL runs over real tables in an in-memory DuckDB."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pyiceberg.types import DecimalType, IntegerType, LongType, NestedField, StringType, StructType

from iceview.errors import ViewCycleError, ViewExpansionError
from iceview.sql import ViewExpander
from sql.views_support import Views

duckdb = pytest.importorskip("duckdb")

KNOWN = {"cat", "memory", "temp", "system"}


@pytest.fixture
def con() -> Iterator[Any]:
    c = duckdb.connect()
    c.execute("ATTACH ':memory:' AS cat")
    for ns in ("db", "other"):
        c.execute(f"CREATE SCHEMA cat.{ns}")
    c.execute("CREATE TABLE cat.db.events (id INTEGER, data VARCHAR, amount DECIMAL(10, 2))")
    c.execute(
        "INSERT INTO cat.db.events VALUES (1, 'a', 1.50), (2, 'b', 2.25), (3, 'c', 10.00), (4, 'd', NULL)"
    )
    c.execute("CREATE TABLE cat.other.events (id INTEGER, data VARCHAR, amount DECIMAL(10, 2))")
    c.execute("INSERT INTO cat.other.events VALUES (100, 'other', 0)")
    c.execute("USE cat.db")
    yield c
    c.close()


@pytest.fixture
def views() -> Views:
    v = Views(dialect="duckdb")
    # ordinal binding: the query's (data, id) become (label, ident); id is INTEGER, the schema says long
    v.add(
        "cat.db.v1",
        "SELECT data, id FROM events WHERE id > 1",
        [("label", StringType()), ("ident", LongType())],
    )
    v.add("cat.db.v2", "SELECT ident * 10, label FROM v1", [("big", LongType()), ("lbl", StringType())])
    v.add(
        "cat.other.v3",
        "SELECT lbl, big, (SELECT count(*) FROM events) AS n_other FROM db.v2",
        [("name", StringType()), ("value", LongType()), ("n_other", LongType())],
    )
    return v


def rows(con: Any, views: Views, sql: str, **kw: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
    out = ViewExpander(views.resolve, known_catalogs=KNOWN, dialect="duckdb", **kw).expand(
        sql, current_catalog="cat", current_namespace=("db",)
    )
    rel = con.sql(out)
    return rel.columns, rel.fetchall()


def types(con: Any, views: Views, sql: str) -> list[str]:
    out = ViewExpander(views.resolve, known_catalogs=KNOWN, dialect="duckdb").expand(
        sql, current_catalog="cat", current_namespace=("db",)
    )
    return [str(t) for t in con.sql(out).types]


def test_ordinal_binding_renames_and_casts(con: Any, views: Views) -> None:
    cols, data = rows(con, views, "SELECT * FROM v1 ORDER BY ident")
    assert cols == ["label", "ident"]
    assert data == [("b", 2), ("c", 3), ("d", 4)]
    assert types(con, views, "SELECT * FROM v1") == ["VARCHAR", "BIGINT"]


def test_decimal_cast(con: Any) -> None:
    v = Views(dialect="duckdb")
    v.add(
        "cat.db.money",
        "SELECT amount, id FROM events",
        [("amount", DecimalType(18, 4)), ("id", IntegerType())],
    )
    assert types(con, v, "SELECT * FROM money") == ["DECIMAL(18,4)", "INTEGER"]
    _, data = rows(con, v, "SELECT sum(amount) FROM money")
    assert str(data[0][0]) == "13.7500"


def test_three_deep_with_own_defaults(con: Any, views: Views) -> None:
    # v3 lives in cat.other: its `events` is cat.other.events (1 row); v1's is cat.db.events
    cols, data = rows(con, views, "SELECT * FROM cat.other.v3 ORDER BY value")
    assert cols == ["name", "value", "n_other"]
    assert data == [("b", 20, 1), ("c", 30, 1), ("d", 40, 1)]
    # the session's namespace does not matter to what the views read
    con.execute("USE cat.other")
    out = ViewExpander(views.resolve, known_catalogs=KNOWN, dialect="duckdb").expand(
        "SELECT value FROM v3 ORDER BY 1", current_catalog="cat", current_namespace=("other",)
    )
    assert con.sql(out).fetchall() == [(20,), (30,), (40,)]


def test_outer_column_references(con: Any, views: Views) -> None:
    _, data = rows(
        con,
        views,
        "SELECT v1.label, db.v1.ident, x.lbl FROM db.v1 JOIN v2 AS x ON x.big = v1.ident * 10 ORDER BY 2",
    )
    assert data == [("b", 2, "b"), ("c", 3, "c"), ("d", 4, "d")]
    cols, data = rows(con, views, "SELECT * FROM v1 AS t(a, b) WHERE t.b = 3")
    assert (cols, data) == (["a", "b"], [("c", 3)])


def test_self_join_uses_one_expansion_twice(con: Any, views: Views) -> None:
    _, data = rows(
        con, views, "SELECT a.ident, b.ident FROM v1 a JOIN v1 b ON a.ident + 1 = b.ident ORDER BY 1"
    )
    assert data == [(2, 3), (3, 4)]


def test_cte_shadows_a_view(con: Any, views: Views) -> None:
    _, data = rows(con, views, "WITH v1 AS (SELECT 42 AS x) SELECT * FROM v1")
    assert data == [(42,)]
    views.add("cat.db.vc", "WITH v1 AS (SELECT 7 AS id) SELECT id FROM v1", [("id", LongType())])
    _, data = rows(con, views, "SELECT * FROM vc")
    assert data == [(7,)]
    # in a nested scope only
    _, data = rows(con, views, "SELECT (WITH v1 AS (SELECT 0 AS n) SELECT n FROM v1), count(*) FROM v1")
    assert data == [(0, 3)]


def test_temp_view_shadows_in_the_outer_query_only(con: Any, views: Views) -> None:
    con.execute("CREATE TEMP VIEW v1 AS SELECT 'temp' AS label, -1 AS ident")
    shadow = {("v1",)}
    _, data = rows(con, views, "SELECT * FROM v1", is_shadowed=lambda p: p in shadow)
    assert data == [("temp", -1)]
    # v2 reads the Iceberg view v1, not the temp view
    _, data = rows(con, views, "SELECT big FROM v2 ORDER BY 1", is_shadowed=lambda p: p in shadow)
    assert data == [(20,), (30,), (40,)]


def test_extra_columns_are_ignored_and_missing_ones_fail(con: Any) -> None:
    v = Views(dialect="duckdb")
    v.add("cat.db.wide", "SELECT id, data, amount FROM events", [("id", LongType())])
    assert rows(con, v, "SELECT * FROM wide ORDER BY 1") == (["id"], [(1,), (2,), (3,), (4,)])
    # SELECT * whose table gained a column: DuckDB binds the first columns by position, like Iceberg
    v.add("cat.db.star", "SELECT * FROM events", [("i", LongType()), ("d", StringType())])
    assert rows(con, v, "SELECT * FROM star WHERE i = 1") == (["i", "d"], [(1, "a")])
    v.add("cat.db.narrow", "SELECT id FROM events", [("a", LongType()), ("b", LongType())])
    with pytest.raises(ViewExpansionError, match="returns 1 column but its schema has 2"):
        rows(con, v, "SELECT * FROM narrow")


def test_struct_cast(con: Any) -> None:
    v = Views(dialect="duckdb")
    struct = StructType(NestedField(1, "k", LongType()), NestedField(2, "v", StringType()))
    v.add("cat.db.s", "SELECT {'k': id, 'v': data} AS s FROM events WHERE id = 1", [("s", struct)])
    assert rows(con, v, "SELECT s.k, s.v FROM s") == (["k", "v"], [(1, "a")])
    assert types(con, v, "SELECT * FROM s") == ["STRUCT(k BIGINT, v VARCHAR)"]


def test_cycle_detected_before_running(con: Any) -> None:
    v = Views(dialect="duckdb")
    v.add("cat.db.a", "SELECT * FROM b", [("x", LongType())])
    v.add("cat.db.b", "SELECT * FROM other.c", [("x", LongType())])
    v.add("cat.other.c", "SELECT * FROM db.a", [("x", LongType())])
    with pytest.raises(ViewCycleError) as info:
        rows(con, v, "SELECT * FROM a")
    assert str(info.value) == (
        "Recursive cycle in view detected: cat.db.a (cycle: cat.db.a -> cat.db.b -> cat.other.c -> cat.db.a)"
    )


def test_write_statements_read_views(con: Any, views: Views) -> None:
    con.execute("CREATE TABLE cat.db.copy (label VARCHAR, ident BIGINT)")
    out = ViewExpander(views.resolve, known_catalogs=KNOWN, dialect="duckdb").expand(
        "INSERT INTO copy SELECT * FROM v1", current_catalog="cat", current_namespace=("db",)
    )
    con.execute(out)
    assert con.sql("SELECT count(*) FROM cat.db.copy").fetchall() == [(3,)]
