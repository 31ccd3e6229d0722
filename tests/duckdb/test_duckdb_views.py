"""iceview.duckdb over a SQLite catalog with PyIceberg tables, and the dialects= parameter of the
catalog's create/replace calls (no Spark here)."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import DateType, DoubleType, LongType, NestedField, StringType

from iceview.catalog.sql import SqlCatalog
from iceview.errors import (
    InvalidArgumentError,
    MissingDialectError,
    ViewCycleError,
    ViewTranslationRefusedError,
)
from iceview.sql import UnsafeTranslationError
from iceview.sql.translate import PROVENANCE_KEY

duckdb = pytest.importorskip("duckdb")
from iceview.duckdb import DuckDBViews  # noqa: E402

EVENTS = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "amount", DoubleType(), required=False),
    NestedField(4, "day", DateType(), required=False),
)
OUT = Schema(
    NestedField(1, "name", StringType(), required=False),
    NestedField(2, "total", LongType(), required=False),
)
HASHED = Schema(
    NestedField(1, "name", StringType(), required=False),
    NestedField(2, "total", DoubleType(), required=False),
)


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    cat = SqlCatalog("prod", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/wh")
    cat.create_namespace("db")
    tables = cat.table_catalog()
    t = tables.create_table("db.events", schema=EVENTS)
    t.append(
        pa.table(
            {
                "id": pa.array([1, 2, 3, 4], pa.int64()),
                "name": ["a", "b", "a", None],
                "amount": [1.5, 2.5, 4.0, None],
                "day": [datetime.date(2024, 1, d) for d in (1, 2, 3, 4)],
            }
        )
    )
    tables.engine.dispose()
    try:
        yield cat
    finally:
        cat.close()


# max of a BIGINT: a floating-point sum is refused (its value depends on the order of addition)
SPARK_SQL = "SELECT name, max(id) AS total FROM events GROUP BY name"


def test_create_with_dialects_writes_every_representation(catalog: SqlCatalog) -> None:
    view = catalog.create_view(
        "db.totals",
        schema=OUT,
        queries={"spark": SPARK_SQL},
        default_namespace="db",
        dialects=["trino", "duckdb"],
    )
    version = view.current_version
    assert version.version_id == 1
    assert version.dialects == ("spark", "trino", "duckdb")
    assert version.summary[PROVENANCE_KEY] == "spark"
    assert "prod.db.events" in version.sql_for("duckdb").sql  # type: ignore[union-attr]
    with DuckDBViews(catalog, namespace="db") as engine:
        assert sorted(engine.execute("SELECT * FROM totals"), key=repr) == sorted(
            [("a", 3), ("b", 2), (None, 4)], key=repr
        )


def test_dialects_already_given_are_kept_and_unsafe_sql_creates_nothing(catalog: SqlCatalog) -> None:
    view = catalog.create_view(
        "db.v",
        schema=OUT,
        queries={"spark": SPARK_SQL, "duckdb": "SELECT name, 1 FROM events"},
        default_namespace="db",
        dialects=["duckdb"],
    )
    assert view.current_version.dialects == ("spark", "duckdb")
    assert PROVENANCE_KEY not in view.current_version.summary
    with pytest.raises(UnsafeTranslationError, match="hash"):
        catalog.create_view(
            "db.h",
            schema=OUT,
            queries={"spark": "SELECT name, hash(name) FROM events"},
            default_namespace="db",
            dialects=["duckdb"],
        )
    assert not catalog.view_exists("db.h")


def test_replace_and_create_or_replace_take_dialects(catalog: SqlCatalog) -> None:
    catalog.create_view(
        "db.v", schema=OUT, queries={"spark": SPARK_SQL}, default_namespace="db", dialects=["duckdb"]
    )
    # replacing with spark only would lose duckdb: the drop-dialect guard refuses
    with pytest.raises(Exception, match="loss of view dialects"):
        catalog.replace_view("db.v", schema=OUT, queries={"spark": SPARK_SQL}, default_namespace="db")
    view = catalog.replace_view(
        "db.v",
        schema=OUT,
        queries={"spark": SPARK_SQL + " HAVING count(*) > 1"},
        default_namespace="db",
        dialects=["duckdb"],
    )
    assert view.current_version.dialects == ("spark", "duckdb")
    assert "HAVING" in view.current_version.sql_for("duckdb").sql  # type: ignore[union-attr]
    view = catalog.create_or_replace_view(
        "db.w", schema=OUT, queries={"spark": SPARK_SQL}, default_namespace="db", dialects=["trino"]
    )
    assert view.current_version.dialects == ("spark", "trino")
    # without dialects= the behaviour is unchanged
    plain = catalog.create_view("db.p", schema=OUT, queries={"spark": SPARK_SQL}, default_namespace="db")
    assert plain.current_version.dialects == ("spark",)


def test_add_dialects_commits_one_version(catalog: SqlCatalog) -> None:
    view = catalog.create_view("db.v", schema=OUT, queries={"spark": SPARK_SQL}, default_namespace="db")
    view.add_dialects(["TRINO", "duckdb", "trino"])
    assert view.current_version.version_id == 2
    assert view.current_version.dialects == ("spark", "trino", "duckdb")
    assert len(view.history) == 2
    view.add_dialects(["duckdb"])  # nothing missing: no commit
    assert view.refresh().current_version.version_id == 2
    with pytest.raises(InvalidArgumentError, match="no SQL for it"):
        view.add_dialects(["spark"], source="hive")
    bad = catalog.create_view(
        "db.b",
        schema=OUT,
        queries={"spark": "SELECT name, xxhash64(name) FROM events"},
        default_namespace="db",
    )
    with pytest.raises(UnsafeTranslationError):
        bad.add_dialects(["duckdb"])
    assert bad.refresh().current_version.version_id == 1


def test_duckdb_reads_other_dialects_by_translating_them(catalog: SqlCatalog) -> None:
    catalog.create_view("db.v", schema=OUT, queries={"spark": SPARK_SQL}, default_namespace="db")
    with DuckDBViews(catalog, namespace="db") as engine:
        assert len(engine.execute("SELECT * FROM v")) == 3
    with (
        DuckDBViews(catalog, namespace="db", translate=False) as engine,
        pytest.raises(
            MissingDialectError,
            match=r"View prod\.db\.v has no SQL for dialect duckdb \(its dialects: spark\); reading it by translation is turned off \(translate=False\)",
        ),
    ):
        engine.execute("SELECT * FROM v")
    unsafe = catalog.create_view(
        "db.u",
        schema=HASHED,
        queries={"spark": "SELECT name, hash(name) FROM events"},
        default_namespace="db",
    )
    assert unsafe is not None
    with (
        DuckDBViews(catalog, namespace="db") as engine,
        pytest.raises(ViewTranslationRefusedError) as refused,
    ):
        engine.execute("SELECT * FROM u")
    # the refusal names the view, the dialects it has and the construct
    assert refused.value.codes[0] == "hash"
    assert str(refused.value).startswith(
        "View prod.db.u has no SQL for dialect duckdb (its dialects: spark); translating its spark SQL "
        "was refused: Cannot translate spark SQL to duckdb: HASH("
    )
    with DuckDBViews(catalog, namespace="db", strict=False) as engine:
        # it runs (DuckDB has a HASH, with other values): the caller asked for it and gets warnings
        engine.view_query("db.u")
        assert len(engine.execute("SELECT * FROM u")) == 4
        assert len(engine.warnings) == 1  # once, though the view was read twice
        assert engine.warnings[0].warnings[0].code == "hash"


def test_nesting_ordinal_binding_and_cycles(catalog: SqlCatalog) -> None:
    catalog.create_view(
        "db.base",
        schema=Schema(
            NestedField(1, "label", StringType(), required=False),
            NestedField(2, "n", LongType(), required=False),
        ),
        queries={"duckdb": "SELECT name, id FROM events WHERE id > 1"},
        default_namespace="db",
    )
    catalog.create_view(
        "db.top",
        schema=Schema(NestedField(1, "n", LongType(), required=False)),
        queries={"duckdb": "SELECT n * 10 FROM base"},
        default_namespace="db",
    )
    with DuckDBViews(catalog, namespace="db") as engine:
        assert sorted(engine.execute("SELECT * FROM top")) == [(20,), (30,), (40,)]
        assert engine.sql("SELECT * FROM base").columns == ["label", "n"]
        # tables are registered once per snapshot
        engine.execute("SELECT count(*) FROM events")
        assert len(engine._registered) == 1
    catalog.create_view(
        "db.c1",
        schema=Schema(NestedField(1, "x", LongType(), required=False)),
        queries={"duckdb": "SELECT x FROM c2"},
        default_namespace="db",
    )
    catalog.create_view(
        "db.c2",
        schema=Schema(NestedField(1, "x", LongType(), required=False)),
        queries={"duckdb": "SELECT x FROM c1"},
        default_namespace="db",
    )
    with (
        DuckDBViews(catalog, namespace="db") as engine,
        pytest.raises(ViewCycleError, match="Recursive cycle"),
    ):
        engine.execute("SELECT * FROM c1")


def test_new_snapshots_are_seen(catalog: SqlCatalog) -> None:
    catalog.create_view(
        "db.v", schema=OUT, queries={"spark": SPARK_SQL}, default_namespace="db", dialects=["duckdb"]
    )
    with DuckDBViews(catalog, namespace="db") as engine:
        assert len(engine.execute("SELECT * FROM v")) == 3
        tables: Any = catalog.table_catalog()
        tables.load_table("db.events").append(
            pa.table(
                {
                    "id": pa.array([9], pa.int64()),
                    "name": ["z"],
                    "amount": [1.0],
                    "day": [datetime.date(2024, 2, 1)],
                }
            )
        )
        tables.engine.dispose()
        assert len(engine.execute("SELECT * FROM v")) == 4


@pytest.mark.parametrize(
    ("summary", "translates"),
    [
        ({"engine-name": "spark", "engine-version": "4.0.1"}, True),  # Spark 4: ANSI by default
        ({"engine-name": "spark", "engine-version": "3.5.9"}, False),  # Spark 3: legacy wraps around
        ({"engine-name": "spark", "engine-version": "3.5.9", "iceview.spark-ansi": "true"}, True),
        ({}, False),  # not known: what the two modes disagree on is refused
    ],
)
def test_translation_follows_the_spark_semantics_the_version_records(
    catalog: SqlCatalog, summary: dict[str, str], translates: bool
) -> None:
    out = Schema(NestedField(1, "x", LongType(), required=False))
    catalog.create_view(
        "db.plus",
        schema=out,
        queries={"spark": "SELECT id + 1 AS x FROM events"},
        default_namespace="db",
        summary=summary,
    )
    with DuckDBViews(catalog, namespace="db", translate=True) as engine:
        if translates:
            assert sorted(r[0] for r in engine.execute("SELECT x FROM plus")) == [2, 3, 4, 5]
        else:
            with pytest.raises(ViewTranslationRefusedError) as caught:
                engine.execute("SELECT x FROM plus")
            assert caught.value.codes == ("integer-overflow",)
