"""The equivalence corpus: each Spark SQL view is created by Iceberg-Spark (PySpark 3.5.9, Iceberg
1.10.2) over PyIceberg tables, then either translated by iceview (``view.add_dialects``) and read
in DuckDB with the same rows as Spark, or refused with the named reason the corpus expects.

The figures are printed in the terminal summary; "failed" must be 0."""

from __future__ import annotations

import datetime
import math
import time
from decimal import Decimal
from typing import Any

import pytest
import sqlglot

from iceview.duckdb import DuckDBViews
from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from translate.conftest import CATALOG, REPORT, CorpusEnv
from translate.corpus import CASES, EQUAL, NAMESPACE, Case

pytestmark = [pytest.mark.java, pytest.mark.postgres]


def _norm(value: Any, unordered: bool) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (list, tuple)):
        items = [_norm(v, unordered) for v in value]
        if unordered:
            items.sort(key=_key)
        return tuple(items)
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        # Spark returns TIMESTAMP (with local time zone) as a naive datetime in the session's zone (UTC)
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(value, dict):
        return tuple(sorted((k, _norm(v, unordered)) for k, v in value.items()))
    return value


def _key(value: Any) -> Any:
    if value is None:
        return (0, "")
    if isinstance(value, float):
        return (1, f"{value:.6g}")
    if isinstance(value, (datetime.date, datetime.datetime)):
        return (1, value.isoformat())
    if isinstance(value, tuple):
        return (1, tuple(_key(v) for v in value))
    return (1, repr(value))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    return bool(a == b)


def _rows(rows: list[Any], unordered_lists: bool, ordered: bool) -> list[tuple[Any, ...]]:
    out = [tuple(_norm(v, unordered_lists) for v in row) for row in rows]
    return out if ordered else sorted(out, key=lambda r: tuple(_key(v) for v in r))


def _fetch(relation: Any) -> list[tuple[Any, ...]]:
    """Rows through Arrow (DuckDB's own fetch of TIMESTAMPTZ needs pytz)."""
    table = relation.arrow()
    if hasattr(table, "read_all"):
        table = table.read_all()
    columns = [c.to_pylist() for c in table.columns]
    return list(zip(*columns, strict=False)) if columns else []


def _ordered(sql: str) -> bool:
    tree = sqlglot.parse_one(sql, read="spark")
    return tree.args.get("order") is not None


def _outcome(env: CorpusEnv, engine: DuckDBViews, case: Case) -> tuple[str, str]:
    """('equal' | 'refused' | 'failed', detail)."""
    cat = env.catalog
    schemas = cat.relation_schemas(case.sql, "spark", default_catalog=CATALOG, default_namespace=(NAMESPACE,))
    outcomes: dict[str, str] = {}
    for target in ("duckdb", "trino"):
        try:
            result = translate(
                case.sql,
                "spark",
                target,
                default_catalog=CATALOG,
                default_namespace=[NAMESPACE],
                schemas=schemas,
            )
            if target == "trino":
                sqlglot.parse_one(result.sql, read="trino")  # every Trino statement parses
            outcomes[target] = EQUAL
        except UnsafeTranslationError as e:
            outcomes[target] = e.codes[0] if case.expect not in e.codes else case.expect
            if target == "trino" and (case.trino or case.expect) in e.codes:
                outcomes[target] = case.trino or case.expect
        except TranslationError as e:
            return "failed", f"{target}: {e}"
    want_trino = case.trino or case.expect
    if outcomes["trino"] != want_trino:
        return "failed", f"trino: expected {want_trino}, got {outcomes['trino']}"
    if outcomes["trino"] == EQUAL:
        REPORT.trino_ok += 1
    else:
        REPORT.trino_refused += 1
    if outcomes["duckdb"] != EQUAL:
        if outcomes["duckdb"] == case.expect:
            return "refused", outcomes["duckdb"]
        return "failed", f"duckdb: expected {case.expect}, got {outcomes['duckdb']}"
    if case.expect != EQUAL:
        return "failed", f"duckdb: expected refusal {case.expect}, but it was translated"

    # Iceberg-Spark creates the view and reads it
    name = f"{CATALOG}.{NAMESPACE}.{case.name}"
    env.spark.sql(f"CREATE VIEW {name} AS {case.sql}")
    spark_rows = env.spark.sql(f"SELECT * FROM {name}").collect()
    # iceview adds the translations (one new version) and DuckDB reads the duckdb representation
    view = cat.load_view((NAMESPACE, case.name))
    targets = ["duckdb"] + (["trino"] if outcomes["trino"] == EQUAL else [])
    view.add_dialects(targets)
    if sorted(view.current_version.dialects) != sorted(["spark", *targets]):
        return "failed", f"dialects after add_dialects: {view.current_version.dialects}"
    duck_rows = _fetch(engine.read_view((NAMESPACE, case.name)))
    ordered = _ordered(case.sql)
    a = _rows([list(r) for r in spark_rows], case.unordered_lists, ordered)
    b = _rows(duck_rows, case.unordered_lists, ordered)
    if len(a) != len(b) or not all(_same(x, y) for x, y in zip(a, b, strict=False)):
        diff = next(((x, y) for x, y in zip(a, b, strict=False) if not _same(x, y)), None)
        return "failed", f"rows differ: spark {len(a)} rows, duckdb {len(b)} rows; first difference {diff}"
    return "equal", f"{len(a)} rows"


def test_equivalence_corpus(corpus_env: CorpusEnv) -> None:
    env = corpus_env
    spark = env.spark
    assert len(CASES) >= 50
    started = time.monotonic()
    previous = (spark.catalog.currentCatalog(), spark.catalog.currentDatabase())
    spark.sql(f"USE {CATALOG}.{NAMESPACE}")
    engine = DuckDBViews(env.catalog, namespace=NAMESPACE, tables=env.tables)
    results: list[tuple[Case, str, str]] = []
    try:
        for case in CASES:
            try:
                status, detail = _outcome(env, engine, case)
            except Exception as e:  # an engine error is a failure of the corpus, reported below
                status, detail = "failed", f"{type(e).__name__}: {e}"
            results.append((case, status, detail))
    finally:
        engine.close()
        spark.sql(f"USE {previous[0]}.{previous[1]}")
    REPORT.ran = True
    REPORT.seconds = time.monotonic() - started
    for case, status, detail in results:
        getattr(REPORT, status).append(f"{case.name}: {detail}")
    print(REPORT.line())
    failures = [f"{c.name}: {d}" for c, s, d in results if s == "failed"]
    assert not failures, "\n".join(failures)
