"""Result equality: 55 views (tests/spark/corpus.py: joins, aggregates, windows, CTEs, subqueries,
set operations, views 3 deep, the 22 TPC-H queries) created through SparkViews, read back through
SparkViews.sql and through Iceberg-Spark's own view resolution, over the same PostgreSQL catalog.

For the 33 hand-written views Iceberg-Spark also creates a twin (``<name>_j``) from the same
statement: the metadata of both must match, and SparkViews must read the twin with the same rows.

The rows are kept (``corpus_expected``) for the Spark 4 and Spark Connect runs
(test_spark_remote.py), which must return them too.
"""

from __future__ import annotations

import pytest
from corpus import CORPUS, CUSTOM, TPCH

from conftest import CATALOG, NS, CorpusRun, Lake

pytestmark = [pytest.mark.java, pytest.mark.postgres]


@pytest.mark.parametrize("name", [name for name, _, _ in CORPUS])
def test_rows_equal_iceberg_spark(corpus_run: CorpusRun, name: str) -> None:
    assert name not in corpus_run.errors, corpus_run.errors[name]
    assert corpus_run.ours[name] == corpus_run.native[name]


def test_corpus_is_big_enough(corpus_run: CorpusRun) -> None:
    assert len(CUSTOM) >= 30 and len(TPCH) == 22
    # most views return rows (an empty result proves little)
    empty = [n for n, rows in corpus_run.native.items() if not rows]
    assert len(empty) <= 1, empty


@pytest.mark.parametrize("name", [name for name, _, _ in CUSTOM])
def test_iceberg_spark_twin(lake: Lake, corpus_run: CorpusRun, name: str) -> None:
    """Iceberg-Spark's CREATE of the same statement records the same metadata, and SparkViews reads
    the view Iceberg-Spark wrote with the same rows."""
    assert name not in corpus_run.errors, corpus_run.errors[name]
    assert corpus_run.twin[name] == corpus_run.native[name]
    ours = lake.catalog.load_view(f"{NS}.{name}").metadata
    theirs = lake.catalog.load_view(f"{NS}.{name}_j").metadata
    assert ours.schema_json(0) == theirs.schema_json(0)
    assert dict(ours.properties) == dict(theirs.properties)
    a, b = ours.current_version, theirs.current_version
    assert (a.default_catalog, tuple(a.default_namespace)) == (b.default_catalog, tuple(b.default_namespace))
    assert a.representations == b.representations


def test_nesting_three_deep(lake: Lake, corpus_run: CorpusRun) -> None:
    expanded = lake.views.expand(f"SELECT * FROM {CATALOG}.{NS}.lvl3")
    assert expanded.count("AS `__v`") == 3  # lvl3 -> lvl2 -> lvl1, each a subquery
    assert corpus_run.native["lvl3"], "lvl3 should return rows"
