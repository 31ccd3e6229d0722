"""A temporary view hides a view of the same name, as in Iceberg-Spark, however SparkViews asks.

For a plain query, SparkViews expands as if nothing were shadowed and asks Spark about temporary
views in a second thread while Spark analyses the expansion (the question costs about as much as
loading the view); other statements ask first. These tests hold both paths to Iceberg-Spark's
answers, including a query whose unshadowed expansion fails analysis.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import CATALOG, Lake

pytestmark = [pytest.mark.java, pytest.mark.postgres]


def rows(df: Any) -> list[dict[str, Any]]:
    return [r.asDict(recursive=True) for r in df.collect()]


class Delegate:
    """Stands in for ``target``: what a subclass does not define comes from it."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


@pytest.fixture
def shadowed(lake: Lake) -> Iterator[Lake]:
    """Views ``sh_v`` (the events' ids) and ``sh_outer`` (over ``sh_v``) in ``sv.db``, the session
    in ``sv.db``, and a temporary view ``sh_v`` with one column ``x`` = 42."""
    views, spark = lake.views, lake.spark
    spark.sql(f"USE {CATALOG}.db")
    views.sql("CREATE OR REPLACE VIEW sh_v AS SELECT id FROM events")
    views.sql("CREATE OR REPLACE VIEW sh_outer AS SELECT id FROM sh_v")
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW sh_v AS SELECT 42 AS x")
    try:
        yield lake
    finally:
        spark.sql("DROP VIEW IF EXISTS sh_v")  # the temporary view
        spark.sql(f"USE {CATALOG}.db")
        views.sql("DROP VIEW IF EXISTS sh_outer")
        views.sql("DROP VIEW IF EXISTS sh_v")
        spark.sql(f"DROP TABLE IF EXISTS {CATALOG}.db.sh_sink")


def test_a_temporary_view_shadows_a_view_in_a_query(shadowed: Lake) -> None:
    views, spark = shadowed.views, shadowed.spark
    # the expansion of the view has no column x: the speculative analysis fails, the answer stands
    assert rows(views.sql("SELECT x FROM sh_v")) == [{"x": 42}] == rows(spark.sql("SELECT x FROM sh_v"))
    # the expansion of the view analyses fine, but is not what the query means
    assert rows(views.sql("SELECT * FROM sh_v")) == [{"x": 42}] == rows(spark.sql("SELECT * FROM sh_v"))
    assert rows(views.sql("SELECT count(*) AS n FROM sh_v JOIN events ON x > id")) == [{"n": 5}]
    # inside views temporary views are invisible; a qualified name is never a temporary view
    assert (
        len(rows(views.sql("SELECT * FROM sh_outer"))) == 5 == len(rows(spark.sql("SELECT * FROM sh_outer")))
    )
    assert len(rows(views.sql("SELECT * FROM db.sh_v"))) == 5 == len(rows(spark.sql("SELECT * FROM db.sh_v")))
    # an error that is not about shadowing is still raised
    with pytest.raises(Exception, match="nope"):
        views.sql("SELECT nope FROM sh_v")
    spark.sql("DROP VIEW sh_v")
    assert len(rows(views.sql("SELECT id FROM sh_v"))) == 5


def test_a_statement_that_is_not_a_query_asks_before_spark_runs_it(shadowed: Lake) -> None:
    views, spark = shadowed.views, shadowed.spark
    spark.sql(f"CREATE TABLE {CATALOG}.db.sh_sink (x bigint) USING iceberg")
    calls: list[str] = []
    original = views._temp_view_answer

    def check(written: Any) -> bool | None:
        calls.append("check")
        return original(written)  # type: ignore[no-any-return]

    class Session(Delegate):
        def sql(self, text: str, *args: Any, **kwargs: Any) -> Any:
            calls.append(text.split()[0].upper())
            return spark.sql(text, *args, **kwargs)

    views._temp_view_answer, views.spark = check, Session(spark)
    try:
        views.sql(f"INSERT INTO {CATALOG}.db.sh_sink SELECT x FROM sh_v")
    finally:
        del views._temp_view_answer
        views.spark = spark
    assert calls.index("check") < calls.index("INSERT")
    assert rows(spark.sql(f"SELECT * FROM {CATALOG}.db.sh_sink")) == [{"x": 42}]


def test_a_query_asks_while_spark_analyses(shadowed: Lake) -> None:
    """The check waits until Spark has started on the expansion: were they one after the other,
    the check would time out and the test fail."""
    views, spark = shadowed.views, shadowed.spark
    spark.sql("DROP VIEW sh_v")  # no temporary view: the speculative analysis is the answer
    analysing = threading.Event()
    threads: list[str] = []
    original = views._temp_view_answer

    def check(written: Any) -> bool | None:
        threads.append(threading.current_thread().name)
        if not analysing.wait(30):
            raise AssertionError("the temporary-view check did not overlap Spark's analysis")
        return original(written)  # type: ignore[no-any-return]

    class Session(Delegate):
        def sql(self, *args: Any, **kwargs: Any) -> Any:
            analysing.set()
            return spark.sql(*args, **kwargs)

    views._temp_view_answer, views.spark = check, Session(spark)
    try:
        df = views.sql("SELECT count(*) AS n FROM sh_v")
    finally:
        del views._temp_view_answer
        views.spark = spark
    assert threads and threads[0] != threading.current_thread().name
    assert rows(df) == [{"n": 5}]


def test_without_a_clear_answer_from_get_table_the_temporary_views_are_listed(shadowed: Lake) -> None:
    views, spark = shadowed.views, shadowed.spark

    class Catalog(Delegate):
        def getTable(self, name: str) -> Any:
            raise RuntimeError("no answer")

    class Session(Delegate):
        catalog = Catalog(spark.catalog)

    views.spark = Session(spark)
    try:
        assert views._temp_view_answer(["sh_v"]) is None
        assert rows(views.sql("SELECT x FROM sh_v")) == [{"x": 42}]
        assert len(rows(views.sql("SELECT * FROM sh_outer"))) == 5
        spark.sql("DROP VIEW sh_v")
        assert len(rows(views.sql("SELECT id FROM sh_v"))) == 5
    finally:
        views.spark = spark


def test_up_cast_checks_run_beside_sparks_analysis_and_win(
    lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view whose column count its SQL shows is checked in the worker thread while Spark analyses
    the expansion; a ``SELECT *`` view and a statement that is no query are checked first. A failed
    check is raised even when Spark would have analysed the (CAST) expansion without complaint."""
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField

    from iceview.spark.call import Call
    from iceview.spark.errors import SparkViewsExpansionError

    views, spark = lake.views, lake.spark
    spark.sql(f"USE {CATALOG}.db")
    views.sql("CREATE OR REPLACE VIEW uc_static AS SELECT id FROM events")
    views.sql("CREATE OR REPLACE VIEW uc_star AS SELECT * FROM events")
    threads: list[tuple[str, str]] = []
    original = Call.check_output

    def recording(self: Call, view: Any, sql: str) -> int | None:
        threads.append((view.name[-1], threading.current_thread().name))
        return original(self, view, sql)

    monkeypatch.setattr(Call, "check_output", recording)
    try:
        assert len(rows(views.sql("SELECT * FROM uc_static"))) == 5
        assert len(rows(views.sql("SELECT * FROM uc_star"))) == 5
        assert [name for name, _ in threads] == ["uc_static", "uc_star"]
        assert threads[0][1].startswith("iceview-spark")
        assert threads[1][1] == threading.current_thread().name

        # version 2 reads a bigint into the int column: Spark would CAST it, Iceberg-Spark refuses
        lake.catalog.replace_view(
            "db.uc_static",
            schema=Schema(NestedField(1, "id", IntegerType(), required=False)),
            queries={"spark": "SELECT id FROM sv.db.events"},
            default_namespace="db",
            default_catalog=CATALOG,
        )
        threads.clear()
        with pytest.raises(SparkViewsExpansionError, match="CANNOT_UP_CAST_DATATYPE"):
            views.sql("SELECT * FROM uc_static")
        assert threads[0][1].startswith("iceview-spark")
    finally:
        views.sql("DROP VIEW IF EXISTS uc_static")
        views.sql("DROP VIEW IF EXISTS uc_star")


def test_a_classic_session_asks_its_session_catalog_not_the_catalogs(
    shadowed: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A classic session's temporary views are asked of its ``SessionCatalog`` (~0.25 ms, in line):
    ``spark.catalog.tableExists`` would look a name that is no temporary view up in the catalog."""
    from pyspark.sql.catalog import Catalog as PySparkCatalog

    views, spark = shadowed.views, shadowed.spark

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("tableExists was asked")

    monkeypatch.setattr(PySparkCatalog, "tableExists", refuse)
    spark.sql("CREATE OR REPLACE GLOBAL TEMPORARY VIEW sh_g AS SELECT 1 AS x")
    try:
        assert views._temp_view_answer(("sh_v",)) is True
        assert views._temp_view_answer(("SH_V",)) is True  # Spark's case-insensitive default
        assert views._temp_view_answer(("sh_outer",)) is False
        assert views._temp_view_answer(("global_temp", "sh_g")) is True
        assert views._temp_view_answer(("GLOBAL_TEMP", "SH_G")) is True
        assert views._temp_view_answer(("global_temp", "sh_v")) is False  # local, not global
        assert rows(views.sql("SELECT x FROM sh_v")) == [{"x": 42}]
        assert rows(views.sql("SELECT x FROM global_temp.sh_g")) == [{"x": 1}]
    finally:
        spark.sql("DROP VIEW IF EXISTS global_temp.sh_g")
