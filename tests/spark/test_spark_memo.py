"""iceview.spark.memo: a statement read again is replayed, not expanded again, only while every
answer its expansion was built on still holds; proven against a replaced view, a temporary view
that appears, another current namespace and a dropped view, on a real Spark session."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from conftest import Lake
from iceview.spark import SparkViews
from iceview.spark.memo import ExpansionMemo, Recorder
from iceview.sql import ResolvedView, ViewExpander

NS = "memo"


def _view(sql: str = "SELECT 1 AS a") -> ResolvedView:
    schema = Schema(NestedField(1, "a", LongType(), required=False))
    return ResolvedView(("sv", NS, "v"), sql, "spark", "sv", (NS,), schema)


class FakeCall:
    """Answers a recorder's questions from dictionaries the test changes."""

    def __init__(self) -> None:
        self.views: dict[tuple[str, ...], ResolvedView | None] = {("sv", NS, "v"): _view()}
        self.catalogs = {"sv": True}
        self.shadowed: dict[tuple[str, ...], bool] = {}
        self.guards: list[tuple[Any, ...]] = []

    def resolve(self, q: tuple[str, ...]) -> ResolvedView | None:
        return self.views.get(q)

    def is_catalog(self, name: str) -> bool:
        return self.catalogs.get(name, False)

    def is_shadowed(self, written: tuple[str, ...]) -> bool:
        return self.shadowed.get(written, False)

    def check_output(self, view: ResolvedView, sql: str) -> int | None:
        return 1

    def check_later(self, view: ResolvedView, sql: str, width: int, columns: Any) -> str | None:
        self.guards.append((view.name, sql))
        return "TRUE"


def _record(call: FakeCall) -> Recorder:
    recorder = Recorder(call)  # type: ignore[arg-type]
    assert recorder.is_catalog("sv") is True
    view = recorder.resolve(("sv", NS, "v"))
    assert view is not None
    assert recorder.is_shadowed(("v",)) is False
    assert recorder.check_later(view, "probe", 1, ["`__c0`"]) == "TRUE"
    return recorder


def test_replay_returns_the_text_while_every_answer_is_the_same() -> None:
    call, memo = FakeCall(), ExpansionMemo()
    memo.remember(("k",), _record(call), "expanded")
    call.guards.clear()
    assert memo.replay(("k",), call) == "expanded"  # type: ignore[arg-type]
    assert call.guards == [(("sv", NS, "v"), "probe")]  # the deferred check is asked again
    assert memo.replay(("other",), call) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c.views.update({("sv", NS, "v"): _view("SELECT 2 AS a")}),  # replaced
        lambda c: c.views.update({("sv", NS, "v"): None}),  # dropped
        lambda c: c.catalogs.update({"sv": False}),
        lambda c: c.shadowed.update({("v",): True}),  # a temporary view appeared
        lambda c: setattr(c, "check_later", lambda *a: None),  # no guard any more
    ],
)
def test_replay_stops_at_the_first_changed_answer(change: Any) -> None:
    call, memo = FakeCall(), ExpansionMemo()
    memo.remember(("k",), _record(call), "expanded")
    change(call)
    assert memo.replay(("k",), call) is None  # type: ignore[arg-type]


def test_an_expansion_that_checked_in_line_is_not_remembered() -> None:
    call, memo = FakeCall(), ExpansionMemo()
    recorder = _record(call)
    assert recorder.check_output(_view(), "probe") == 1
    memo.remember(("k",), recorder, "expanded")
    assert len(memo) == 0 and memo.replay(("k",), call) is None  # type: ignore[arg-type]


# ------------------------------------------------------------------ with Spark


class CountingExpansions:
    """Counts full expansions (``ViewExpander.expand``) while it is entered."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = ViewExpander.expand

        def expand(expander: ViewExpander, *args: Any, **kwargs: Any) -> str:
            self.count += 1
            return original(expander, *args, **kwargs)

        monkeypatch.setattr(ViewExpander, "expand", expand)


@pytest.fixture
def memo_lake(lake: Lake) -> Iterator[Lake]:
    spark = lake.spark
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS sv.{NS}")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS sv.{NS}2")
    spark.sql(f"CREATE TABLE sv.{NS}.t (id int, data string) USING iceberg")
    spark.sql(f"INSERT INTO sv.{NS}.t VALUES (1, 'a'), (2, NULL), (3, 'ü')")
    lake.views.sql(f"CREATE VIEW sv.{NS}.v AS SELECT id, data FROM sv.{NS}.t WHERE id > 1")
    lake.views.sql(f"CREATE VIEW sv.{NS}2.v AS SELECT id, 'other' AS data FROM sv.{NS}.t")
    try:
        yield lake
    finally:
        spark.sql("DROP VIEW IF EXISTS v")  # a temporary view
        spark.sql("USE sv.db")
        for name in (f"{NS}.v", f"{NS}2.v"):
            lake.views.sql(f"DROP VIEW IF EXISTS sv.{name}")
        spark.sql(f"DROP TABLE IF EXISTS sv.{NS}.t")
        spark.sql(f"DROP NAMESPACE IF EXISTS sv.{NS}2")
        spark.sql(f"DROP NAMESPACE IF EXISTS sv.{NS}")


def _rows(views: SparkViews, query: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in views.sql(query).collect()), key=repr)


def test_a_read_again_is_replayed_until_something_it_depends_on_changes(
    memo_lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    spark = memo_lake.spark
    views = SparkViews(spark, memo_lake.catalog)
    spark.sql(f"USE sv.{NS}")
    query = "SELECT id, data FROM v"
    counted = CountingExpansions(monkeypatch)
    # the first read probes the view, the second is expanded again with the probe's guard
    for _ in range(2):
        assert _rows(views, query) == [(2, None), (3, "ü")]
    first = counted.count
    assert first == 2
    for _ in range(2):
        assert _rows(views, query) == [(2, None), (3, "ü")]
    assert counted.count == first  # replayed: no expansion

    # the view is replaced (through another handle): its pointer moved, the next read expands
    memo_lake.views.sql(f"CREATE OR REPLACE VIEW sv.{NS}.v AS SELECT id, data FROM sv.{NS}.t WHERE id < 3")
    assert _rows(views, query) == [(1, "a"), (2, None)] == _rows(memo_lake.views, query)
    assert counted.count > first
    assert _rows(views, query) == [(1, "a"), (2, None)]  # guarded again
    replaced = counted.count
    assert _rows(views, query) == [(1, "a"), (2, None)]
    assert counted.count == replaced

    # a temporary view appears and shadows the view: the replay is refused, Spark's answer stands
    spark.sql("CREATE TEMPORARY VIEW v AS SELECT 42 AS id, 'temp' AS data")
    assert _rows(views, query) == [(42, "temp")] == sorted(tuple(r) for r in spark.sql(query).collect())
    spark.sql("DROP VIEW v")
    assert _rows(views, query) == [(1, "a"), (2, None)]

    # another current namespace: the same text means another view
    spark.sql(f"USE sv.{NS}2")
    assert _rows(views, query) == [(1, "other"), (2, "other"), (3, "other")]
    spark.sql(f"USE sv.{NS}")
    assert _rows(views, query) == [(1, "a"), (2, None)]

    # the view is dropped: the name is no view any more, and Spark says the relation is missing
    memo_lake.views.sql(f"DROP VIEW sv.{NS}.v")
    with pytest.raises(Exception, match=r"TABLE_OR_VIEW_NOT_FOUND|cannot be found"):
        views.sql(query).collect()
