"""iceview.spark.classic: the classic session's one-round-trip ``spark.sql`` gives what
``spark.sql`` gives (rows, schema, lazy commands, Spark's own exception types), and SparkViews
hands its expansions to Spark through it."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from conftest import Lake
from iceview.spark import classic

pytestmark = pytest.mark.java


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def test_run_sql_gives_what_spark_sql_gives(lake: Lake) -> None:
    spark = lake.spark
    query = (
        "SELECT id, CAST(x AS DECIMAL(10, 2)) AS d, s FROM VALUES "
        "(1, 1.5D, 'ü'), (2, CAST('NaN' AS DOUBLE), NULL), (3, NULL, '') AS t(id, x, s)"
    )
    ours, theirs = classic.run_sql(spark, query), spark.sql(query)
    assert ours.schema == theirs.schema
    assert _rows(ours) == _rows(theirs)
    assert classic.is_classic(spark)
    assert classic.session_catalog(spark) is not None


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("SELECT no_such_column FROM VALUES (1) AS t(a)", AnalysisException),
        ("SELECT * FROM sv.db.no_such_table_anywhere", AnalysisException),
        ("SELEC 1", ParseException),
    ],
)
def test_run_sql_raises_sparks_own_exceptions(lake: Lake, text: str, error: type[Exception]) -> None:
    with pytest.raises(error) as ours:
        classic.run_sql(lake.spark, text)
    with pytest.raises(error) as theirs:
        lake.spark.sql(text)
    assert ours.value.getErrorClass() == theirs.value.getErrorClass()


def test_sparkviews_hands_its_expansion_to_run_sql(lake: Lake, monkeypatch: pytest.MonkeyPatch) -> None:
    """The read path goes through the shortcut (else the 0.5 ms it saves is not saved)."""
    import iceview.spark.views as views_module

    seen: list[str] = []
    real = views_module.run_sql

    def spy(spark: Any, text: str) -> Any:
        seen.append(text)
        return real(spark, text)

    monkeypatch.setattr(views_module, "run_sql", spy)
    lake.views.sql("CREATE OR REPLACE VIEW sv.db.classic_v AS SELECT 1 AS a, 'x' AS b")
    try:
        assert _rows(lake.views.sql("SELECT * FROM sv.db.classic_v")) == [(1, "x")]
        assert seen and "`classic_v`" in seen[-1]
    finally:
        lake.views.sql("DROP VIEW sv.db.classic_v")
