"""iceview.spark.probes: every level's up-cast check in one Spark analysis, and guards that let a
view read again cost no analysis of its own; counted on a real Spark session (Spark 3.5.9, Iceberg
1.10.2), with the cache proven to follow ALTER TABLE and CREATE OR REPLACE VIEW."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
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
)
from pyspark.sql import types as st

from conftest import Lake
from iceview.spark import SparkViews
from iceview.spark.errors import SparkViewsExpansionError
from iceview.spark.probes import MAX_GUARDED, ProbeCache, combined_probe, guard_type, nullable
from iceview.sql import ResolvedView

NS = "probes"


def _view(*fields: tuple[str, Any]) -> ResolvedView:
    schema = Schema(*(NestedField(i + 1, n, t, required=False) for i, (n, t) in enumerate(fields)))
    return ResolvedView(("sv", NS, "v"), "SELECT 1", "spark", "sv", (NS,), schema)


def _out(*types: st.DataType) -> st.StructType:
    return st.StructType([st.StructField(f"c{i}", t, True) for i, t in enumerate(types)])


# ------------------------------------------------------------------ without Spark


def test_combined_probe_puts_each_probe_in_a_struct_of_its_own() -> None:
    sql = combined_probe(["SELECT a FROM t", "WITH x AS (SELECT 1) SELECT * FROM x -- note"])
    assert sql == (
        "SELECT struct(`__p0`.*) AS `__p0`, struct(`__p1`.*) AS `__p1` FROM (\nSELECT a FROM t\n) AS `__p0` "
        "CROSS JOIN (\nWITH x AS (SELECT 1) SELECT * FROM x -- note\n) AS `__p1`"
    )
    with pytest.raises(ValueError):
        combined_probe([])


def test_guard_types_name_exactly_the_type_or_nothing() -> None:
    assert guard_type(st.TimestampType()) == "TIMESTAMP_LTZ"  # whatever spark.sql.timestampType says
    assert guard_type(st.DecimalType(7, 2)) == "DECIMAL(7,2)"
    nested = st.StructType(
        [
            st.StructField("a`b", st.ArrayType(st.LongType())),
            st.StructField("m", st.MapType(st.StringType(), st.DateType())),
        ]
    )
    assert guard_type(nested) == "STRUCT<`a``b`: ARRAY<BIGINT>, `m`: MAP<STRING, DATE>>"
    for untrusted in (
        st.CharType(3),
        st.VarcharType(3),
        st.NullType(),
        st.DayTimeIntervalType(),
        st.StructType([]),
    ):
        assert guard_type(untrusted) is None
    assert guard_type(st.ArrayType(st.CharType(2))) is None


def test_nullable_sets_every_nested_flag() -> None:
    t = st.StructType([st.StructField("a", st.ArrayType(st.IntegerType(), False), False)])
    assert nullable(t) == st.StructType([st.StructField("a", st.ArrayType(st.IntegerType(), True), True)])


def test_cache_guards_only_what_it_has_seen_pass() -> None:
    cache = ProbeCache()
    view = _view(("id", LongType()), ("name", StringType()))
    cols = ["`__c0`", "`__c1`"]
    assert cache.guard(view, "SELECT ...", 2, cols) is None  # never seen
    cache.remember(view, "SELECT ...", _out(st.IntegerType(), st.StringType()))
    guard = cache.guard(view, "SELECT ...", 2, cols)
    assert guard == (
        "TRUE OR aggregate(array(0), CAST(NULL AS STRUCT<`c0`: INT, `c1`: STRING>), (`__a`, `__x`) -> "
        "(`__c0`, `__c1`)) IS NULL"
    )
    assert cache.guard(view, "SELECT other", 2, cols) is None  # another probe text
    assert cache.guard(view, "SELECT ...", 3, [*cols, "`__c2`"]) is None  # another width
    cache.refused([(view.name, "SELECT ...")])
    assert cache.guard(view, "SELECT ...", 2, cols) is None
    cache.remember(view, "SELECT ...", _out(st.IntegerType(), st.StringType()))  # the same again
    assert cache.guard(view, "SELECT ...", 2, cols) is None
    cache.remember(view, "SELECT ...", _out(st.LongType(), st.StringType()))  # changed: usable
    assert cache.guard(view, "SELECT ...", 2, cols) is not None
    cache.refused([(view.name, "SELECT ...")])
    cache.clear_refusal([(view.name, "SELECT ...")])
    assert cache.guard(view, "SELECT ...", 2, cols) is not None


def test_no_guard_when_nullability_could_change_the_answer() -> None:
    cache = ProbeCache()
    schema = Schema(NestedField(1, "a", ListType(2, IntegerType(), element_required=True), required=False))
    view = ResolvedView(("sv", NS, "v"), "SELECT 1", "spark", "sv", (NS,), schema)
    cache.remember(view, "p", _out(st.ArrayType(st.IntegerType(), False)))
    # it passed as it was, but would not with a nullable element, which the guard cannot tell apart
    assert cache.guard(view, "p", 1, ["`__c0`"]) is None
    cache.remember(view, "q", _out(st.ArrayType(st.ShortType(), True)))
    assert cache.guard(_view(("a", ListType(2, IntegerType(), element_required=False))), "q", 1, ["`__c0`"])


# ------------------------------------------------------------------ with Spark


# (the type as CAST writes it, the Spark type, an Iceberg type the Spark type up-casts to)
GUARDED_TYPES: list[tuple[str, st.DataType, Any]] = [
    ("SMALLINT", st.ShortType(), IntegerType()),
    ("INT", st.IntegerType(), IntegerType()),
    ("BIGINT", st.LongType(), LongType()),
    ("FLOAT", st.FloatType(), FloatType()),
    ("DOUBLE", st.DoubleType(), DoubleType()),
    ("DECIMAL(10,2)", st.DecimalType(10, 2), DecimalType(10, 2)),
    ("DECIMAL(12,2)", st.DecimalType(12, 2), DecimalType(12, 2)),
    ("STRING", st.StringType(), StringType()),
    ("BINARY", st.BinaryType(), BinaryType()),
    ("BOOLEAN", st.BooleanType(), BooleanType()),
    ("DATE", st.DateType(), DateType()),
    ("TIMESTAMP_LTZ", st.TimestampType(), TimestamptzType()),
    ("TIMESTAMP_NTZ", st.TimestampNTZType(), TimestampType()),
    ("ARRAY<INT>", st.ArrayType(st.IntegerType()), ListType(90, IntegerType(), element_required=False)),
    ("ARRAY<BIGINT>", st.ArrayType(st.LongType()), ListType(90, LongType(), element_required=False)),
    (
        "STRUCT<a: INT>",
        st.StructType([st.StructField("a", st.IntegerType())]),
        StructType(NestedField(91, "a", IntegerType(), required=False)),
    ),
    (
        "MAP<STRING, INT>",
        st.MapType(st.StringType(), st.IntegerType()),
        MapType(92, StringType(), 93, IntegerType(), value_required=False),
    ),
]


def _passes(spark: Any, guard: str, actual: list[str]) -> bool:
    columns = ", ".join(f"CAST(NULL AS {t}) AS x{i}" for i, t in enumerate(actual))
    aliases = ", ".join(f"`__c{i}`" for i in range(len(actual)))
    try:
        spark.sql(f"SELECT * FROM (SELECT {columns}) AS `__v`({aliases}) WHERE {guard}")
    except Exception as e:  # only Spark's analysis may refuse it
        assert type(e).__name__ == "AnalysisException", e
        return False
    return True


def test_a_guard_passes_exactly_the_remembered_types(lake: Lake) -> None:
    """Every remembered type against every actual type, as the one column of a view and as either
    column of two: Spark's analysis of the guarded query passes if and only if the types are the
    remembered ones (struct field names aside). Types widen in every other Spark construct; the
    guard must not."""
    spark = lake.spark
    names = [sql for sql, _, _ in GUARDED_TYPES]
    wrong: list[str] = []
    for remembered, spark_type, iceberg_type in GUARDED_TYPES:
        one = ProbeCache()
        view = _view(("a", iceberg_type))
        one.remember(view, "p", _out(spark_type))
        guard = one.guard(view, "p", 1, ["`__c0`"])
        assert guard is not None and "STRUCT<`c0`" not in guard
        two = ProbeCache()
        pair = _view(("a", iceberg_type), ("b", StringType()))
        two.remember(pair, "p", _out(spark_type, st.StringType()))
        paired = two.guard(pair, "p", 2, ["`__c0`", "`__c1`"])
        assert paired is not None and "(`__c0`, `__c1`)" in paired
        for actual in names:
            same = actual.replace(" ", "") == remembered.replace(" ", "")
            cases = (
                ([actual], guard, same),
                ([actual, "STRING"], paired, same),
                ([remembered, actual], paired, actual == "STRING"),  # the second column: STRING remembered
            )
            for cols, g, expected in cases:
                if _passes(spark, g, cols) != expected:
                    wrong.append(f"remembered {remembered}, actual {cols}")
    assert not wrong


class CountingSpark:
    """The lake's real session, counting the statements SparkViews hands to ``spark.sql``."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.statements: list[str] = []

    def sql(self, text: str, *args: Any, **kwargs: Any) -> Any:
        self.statements.append(text)
        return self.spark.sql(text, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.spark, name)

    def reads(self, views: SparkViews, query: str) -> tuple[int, list[Any]]:
        self.statements.clear()
        frame = views.sql(query)
        count = len(self.statements)
        return count, sorted(tuple(r) for r in frame.collect())


@pytest.fixture(scope="module")
def probes(lake: Lake) -> Iterator[Lake]:
    spark = lake.spark
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS sv.{NS}")
    spark.sql(f"CREATE TABLE sv.{NS}.t (id int, data string) USING iceberg")
    spark.sql(f"INSERT INTO sv.{NS}.t VALUES (1, 'a'), (2, 'b')")
    lake.views.sql(f"CREATE VIEW sv.{NS}.l1 AS SELECT id, data FROM sv.{NS}.t WHERE id > 0")
    lake.views.sql(f"CREATE VIEW sv.{NS}.l2 AS SELECT id, upper(data) AS data FROM sv.{NS}.l1")
    lake.views.sql(f"CREATE VIEW sv.{NS}.l3 AS SELECT id + 0 AS id, data FROM sv.{NS}.l2 WHERE id < 9")
    try:
        yield lake
    finally:
        for name in ("l3", "l2", "l1", "w", "x"):
            lake.views.sql(f"DROP VIEW IF EXISTS sv.{NS}.{name}")
        for table in ("t", "u"):
            spark.sql(f"DROP TABLE IF EXISTS sv.{NS}.{table}")
        spark.sql(f"DROP NAMESPACE IF EXISTS sv.{NS}")


def test_all_levels_in_one_analysis_then_guards_for_short_chains(probes: Lake) -> None:
    spy = CountingSpark(probes.spark)
    views = SparkViews(spy, probes.catalog)  # type: ignore[arg-type]
    query = f"SELECT id, data FROM sv.{NS}.l3"
    expected = sorted(tuple(r) for r in probes.spark.sql(query).collect())
    assert expected == [(1, "A"), (2, "B")]
    assert spy.reads(views, query) == (2, expected)
    # the three levels' probes (in a thread of their own: either may come first) and the query
    combined = [
        q for q in spy.statements if q.startswith("SELECT struct(`__p0`.*) AS `__p0`, struct(`__p1`.*)")
    ]
    assert len(combined) == 1 and "struct(`__p2`.*) AS `__p2` FROM" in combined[0]
    assert not any("aggregate" in q for q in spy.statements)
    for _ in range(2):  # read again: every level guarded, Spark analyses the query only
        assert spy.reads(views, query) == (1, expected)
        assert spy.statements[0].count("aggregate(array(0), CAST(NULL AS STRUCT<`c0`: INT") == 3
    assert "aggregate" not in views.expand(query)  # what expand() shows carries no guards


def test_long_chains_are_probed_together_every_time(probes: Lake) -> None:
    top = MAX_GUARDED + 1
    for k in range(4, top + 1):
        probes.views.sql(f"CREATE VIEW sv.{NS}.l{k} AS SELECT id, data FROM sv.{NS}.l{k - 1}")
    try:
        spy = CountingSpark(probes.spark)
        views = SparkViews(spy, probes.catalog)  # type: ignore[arg-type]
        query = f"SELECT data FROM sv.{NS}.l{top}"
        for _ in range(3):  # more levels than MAX_GUARDED: guards would cost more than the probe
            assert spy.reads(views, query) == (2, [("A",), ("B",)])
            assert not any("aggregate" in q for q in spy.statements)
            assert sum(f"struct(`__p{top - 1}`.*)" in q for q in spy.statements) == 1
    finally:
        for k in range(top, 3, -1):
            probes.views.sql(f"DROP VIEW sv.{NS}.l{k}")


def test_a_failing_level_still_fails_first_when_probed_together(probes: Lake) -> None:
    probes.catalog.create_view(
        (NS, "x"),
        schema=Schema(NestedField(1, "id", IntegerType(), required=False)),
        queries={"spark": f"SELECT CAST(id AS BIGINT) AS id FROM {NS}.l2"},
        default_namespace=(NS,),
    )
    views = SparkViews(CountingSpark(probes.spark), probes.catalog)  # type: ignore[arg-type]
    for _ in range(2):  # the failure is never remembered as a guard
        with pytest.raises(SparkViewsExpansionError) as info:
            views.sql(f"SELECT * FROM sv.{NS}.x WHERE id > 0")
        assert info.value.error_class == "CANNOT_UP_CAST_DATATYPE"
        assert f"of view sv.{NS}.x" in str(info.value)
    probes.catalog.drop_view((NS, "x"))


def test_alter_table_invalidates_a_guard_and_the_check_decides(probes: Lake) -> None:
    spark = probes.spark
    spark.sql(f"CREATE TABLE sv.{NS}.u (n int) USING iceberg")
    spark.sql(f"INSERT INTO sv.{NS}.u VALUES (5)")
    # stored type bigint, query type int: readable by up-cast
    probes.catalog.create_view(
        (NS, "w"),
        schema=Schema(NestedField(1, "n", LongType(), required=False)),
        queries={"spark": f"SELECT n FROM {NS}.u"},
        default_namespace=(NS,),
    )
    spy = CountingSpark(spark)
    views = SparkViews(spy, probes.catalog)  # type: ignore[arg-type]
    query = f"SELECT n FROM sv.{NS}.w"
    assert spy.reads(views, query) == (2, [(5,)])
    assert spy.reads(views, query) == (1, [(5,)])  # guarded: int remembered
    spark.sql(f"ALTER TABLE sv.{NS}.u ALTER COLUMN n TYPE bigint")
    # the guard (int) fails Spark's analysis; the check of bigint into bigint passes
    count, rows = spy.reads(views, query)
    assert rows == [(5,)] and count == 3  # guarded query refused, probe, query
    assert spy.reads(views, query) == (1, [(5,)])  # bigint remembered now


def test_alter_table_narrowing_the_view_fails_after_it_was_guarded(probes: Lake) -> None:
    spark = probes.spark
    spy = CountingSpark(spark)
    views = SparkViews(spy, probes.catalog)  # type: ignore[arg-type]
    query = f"SELECT id FROM sv.{NS}.l1"
    spy.reads(views, query)
    assert spy.reads(views, query)[0] == 1
    spark.sql(f"ALTER TABLE sv.{NS}.t ALTER COLUMN id TYPE bigint")
    try:
        with pytest.raises(SparkViewsExpansionError) as info:
            views.sql(query)
        assert info.value.error_class == "CANNOT_UP_CAST_DATATYPE"
        assert str(info.value).startswith(
            '[CANNOT_UP_CAST_DATATYPE] Cannot up cast id from "BIGINT" to "INT" reading column id (position 1) '
            f"of view sv.{NS}.l1."
        )
        with pytest.raises(Exception, match=r"(?i)up cast"):
            spark.sql(query)  # Iceberg-Spark refuses it too
    finally:
        probes.views.sql(
            f"CREATE OR REPLACE VIEW sv.{NS}.l1 AS SELECT CAST(id AS INT) AS id, data FROM sv.{NS}.t WHERE id > 0"
        )


def test_create_or_replace_changes_the_probe_so_it_is_asked_again(probes: Lake) -> None:
    spy = CountingSpark(probes.spark)
    views = SparkViews(spy, probes.catalog)  # type: ignore[arg-type]
    query = f"SELECT id, data FROM sv.{NS}.l2"
    spy.reads(views, query)
    assert spy.reads(views, query)[0] == 1
    probes.views.sql(
        f"CREATE OR REPLACE VIEW sv.{NS}.l1 AS SELECT CAST(id AS BIGINT) AS id, data FROM sv.{NS}.t"
    )
    # l1's stored type is now bigint: l2's probe has a bigint stand-in, and l2 stores int
    with pytest.raises(SparkViewsExpansionError) as info:
        views.sql(query)
    assert (
        f'Cannot up cast id from "BIGINT" to "INT" reading column id (position 1) of view sv.{NS}.l2'
        in str(info.value)
    )
    probes.views.sql(
        f"CREATE OR REPLACE VIEW sv.{NS}.l1 AS SELECT CAST(id AS INT) AS id, data FROM sv.{NS}.t WHERE id > 0"
    )
    assert spy.reads(views, query)[1] == [(1, "A"), (2, "B")]
