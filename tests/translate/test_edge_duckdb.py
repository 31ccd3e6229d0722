"""The differential edge suite from DuckDB into Spark: every construct the rules table keeps, checks
or rewrites from DuckDB into Spark (``edge_queries_duckdb.py``) is executed in DuckDB (the view's
source) on the edge table, and its translation in Spark 3.5.9 under ``spark.sql.ansi.enabled=false``
and ``=true`` (the mode of the Spark that reads the view).

Rows are compared the way a Spark reader sees a view that DuckDB's SQL defines: the view's schema is
DuckDB's result, so Spark's result is cast to those types (``HUGEINT`` is stored as
``DECIMAL(38, 0)``), then compared with ``test_edge.py``'s comparator (decimals at that scale,
doubles exactly with NaN equal to NaN, timestamps to the microsecond, arrays in order). A
translation that gives other rows, or raises in Spark where DuckDB returns rows, is *wrong*. Where
DuckDB raises (integer overflow on the edge data), the view has no rows to compare.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from translate.edge_data import (
    CATALOG,
    DST_ZONE,
    EDGE,
    GAP_NAME,
    GAP_TABLE,
    NAME,
    NAMESPACE,
    duckdb_connection,
    gap_duckdb,
    gap_frame,
    spark_frame,
)
from translate.edge_queries_duckdb import EVIDENCE_FROM_DUCKDB
from translate.test_edge import REPORT_LINES, Outcome, Probe, _key, _norm, _same, probes
from translate.typed_rows import DuckdbNotAViewType as NotAViewType
from translate.typed_rows import spark_type_of

# --------------------------------------------------------------------------------------------------


@dataclass
class Source:
    """DuckDB's result of a probe: the Spark types of its columns and its rows (None: it raised)."""

    types: list[str]
    rows: list[tuple[Any, ...]] | None
    error: str = ""


def duckdb_source(con: Any, sql: str) -> Source:
    try:
        rel = con.sql(sql)
        types = [spark_type_of(str(t)) for t in rel.types]
        table = rel.arrow()
        if hasattr(table, "read_all"):
            table = table.read_all()
        columns = [c.to_pylist() for c in table.columns]
        return Source(types, list(zip(*columns, strict=True)))
    except NotAViewType as e:
        return Source([], None, f"not a view: {e}")
    except Exception as e:  # DuckDB raised: the view has no rows
        return Source([], None, str(e).splitlines()[0][:200])


def to_spark(sql: str, spark_ansi: bool | None, source: str = "duckdb") -> tuple[str | None, str]:
    """The probe's Spark translation, with the edge table named as the Spark session has it."""
    try:
        out = translate(
            sql,
            source,
            "spark",
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: EDGE},
            spark_ansi=spark_ansi,
        ).sql
    except UnsafeTranslationError as e:
        return None, ",".join(e.codes)
    except TranslationError as e:
        return None, f"error: {e}"
    return spark_sql_of(out), ""


@dataclass
class Leg:
    """A translated probe to run in Spark in ``modes``."""

    probe: Probe
    spark_sql: str
    source: Source
    modes: tuple[str, ...]


def _cast(node: exp.Expr, spark_type: str, alias: str) -> exp.Expr:
    value = node.this if isinstance(node, exp.Alias) else node
    return exp.alias_(exp.Cast(this=value.copy(), to=exp.DataType.build(spark_type, dialect="spark")), alias)


def spark_batches(legs: list[Leg]) -> dict[str, tuple[str, list[tuple[Leg, tuple[int, ...]]]]]:
    """Spark queries that run many legs at once: the legs of one shape (the same query around their
    last column) become the columns of one query, every column cast to the view's type."""
    batches: dict[str, tuple[exp.Select, list[tuple[Leg, tuple[int, ...]]]]] = {}
    singles: dict[str, tuple[str, list[tuple[Leg, tuple[int, ...]]]]] = {}
    for leg in legs:
        tree = sqlglot.parse_one(leg.spark_sql, read="spark")
        width = len(leg.source.types)
        if not leg.probe.columns or not isinstance(tree, exp.Select) or len(tree.expressions) != width:
            wrapped = sqlglot.parse_one(
                "SELECT "
                + ", ".join(f"CAST(__c{k} AS {t}) AS __c{k}" for k, t in enumerate(leg.source.types))
                + f" FROM ({leg.spark_sql}) AS __v("
                + ", ".join(f"__c{k}" for k in range(width))
                + ")",
                read="spark",
            )
            singles[f"{leg.modes}:{id(leg)}:{leg.spark_sql}"] = (  # the same SQL may be two legs
                wrapped.sql(dialect="spark"),
                [(leg, tuple(range(width)))],
            )
            continue
        frame = tree.copy()
        last = frame.expressions[-1]
        frame.set("expressions", frame.expressions[:-1])
        key = f"{leg.modes}:{frame.sql(dialect='spark')}"
        if key not in batches:
            leading = [
                _cast(e, t, f"__l{k}")
                for k, (e, t) in enumerate(zip(frame.expressions, leg.source.types, strict=False))
            ]
            frame.set("expressions", leading)
            batches[key] = (frame, [])
        batch, members = batches[key]
        lead = width - 1
        column = len(batch.expressions)
        batch.set("expressions", [*batch.expressions, _cast(last, leg.source.types[-1], f"__c{column}")])
        members.append((leg, (*range(lead), column)))
    out = {k: (b.sql(dialect="spark"), m) for k, (b, m) in batches.items()}
    return {**out, **singles}


def _spark_rows(spark: Any, sql: str) -> tuple[list[tuple[Any, ...]] | None, str]:
    try:
        return [tuple(r) for r in spark.sql(sql).collect()], ""
    except Exception as e:
        return None, str(e).splitlines()[0][:300]


def run_in_spark(
    spark: Any, legs: list[Leg], mode: str
) -> dict[int, tuple[list[tuple[Any, ...]] | None, str]]:
    """Each leg's Spark rows (by ``id(leg)``) in the session's mode: from its batch, or on its own
    when the batch raised."""
    results: dict[int, tuple[list[tuple[Any, ...]] | None, str]] = {}
    for batch_sql, members in spark_batches([leg for leg in legs if mode in leg.modes]).values():
        rows, error = _spark_rows(spark, batch_sql)
        if rows is None and len(members) > 1:
            for leg, _ in members:
                alone_sql, alone = next(iter(spark_batches([leg]).values()))
                alone_rows, alone_error = _spark_rows(spark, alone_sql)
                cols = alone[0][1]
                results[id(leg)] = (
                    None if alone_rows is None else [tuple(r[c] for c in cols) for r in alone_rows],
                    alone_error,
                )
            continue
        for leg, cols in members:
            results[id(leg)] = (None if rows is None else [tuple(r[c] for c in cols) for r in rows], error)
    return results


def compare(
    leg: Leg, by_mode: dict[str, dict[int, tuple[list[tuple[Any, ...]] | None, str]]], source: str = "duckdb"
) -> Outcome:
    probe = leg.probe
    ordered = sqlglot.parse_one(probe.sql, read=source).args.get("order") is not None
    outcome = Outcome(probe.construct, probe.sql, "translated" if len(leg.modes) == 2 else "translated-ansi")
    for mode in leg.modes:
        if leg.source.rows is None:
            outcome.modes[mode] = f"{source} raises: {leg.source.error}"
            continue
        rows, error = by_mode[mode][id(leg)]
        if rows is None:
            return Outcome(
                probe.construct, probe.sql, "wrong", f"ansi={mode}: {leg.spark_sql}\n  spark raises: {error}"
            )
        a = [tuple(_norm(v) for v in r) for r in leg.source.rows]
        b = [tuple(_norm(v) for v in r) for r in rows]
        if not ordered:
            a.sort(key=_key)
            b.sort(key=_key)
        if len(a) != len(b) or not all(_same(x, y) for x, y in zip(a, b, strict=False)):
            diff = next(((x, y) for x, y in zip(a, b, strict=False) if not _same(x, y)), (len(a), len(b)))
            return Outcome(
                probe.construct,
                probe.sql,
                "wrong",
                f"ansi={mode}: {leg.spark_sql}\n  {source}, spark: {diff}",
            )
        outcome.modes[mode] = "equal"
    return outcome


@contextlib.contextmanager
def spark_in_zone(spark: Any) -> Iterator[None]:
    """Spark's session in :data:`DST_ZONE` (its time zone and ANSI mode restored afterwards)."""
    zone, ansi = spark.conf.get("spark.sql.session.timeZone"), spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.session.timeZone", DST_ZONE)
    try:
        yield
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
        spark.conf.set("spark.sql.ansi.enabled", ansi)


def duckdb_in_zone() -> Any:
    """The edge table's DuckDB, in :data:`DST_ZONE`, with ``g`` (the time in the gap) beside ``t``."""
    con = duckdb_connection()
    con.execute(f"SET TimeZone = '{DST_ZONE}'")
    con.execute(f"USE {CATALOG}.{NAMESPACE}")
    gap_duckdb(con)
    return con


def spark_sql_of(out: str) -> str:
    """A Spark translation with the edge tables named as the Spark session has them (temp views)."""
    tree = sqlglot.parse_one(out, read="spark")
    for table in tree.find_all(exp.Table):
        if table.catalog == CATALOG:
            table.set("catalog", None)
            table.set("db", None)
    return tree.sql(dialect="spark")


def edge_suite(
    spark: Any,
    evidence: dict[str, tuple[str, ...]],
    source: str,
    duckdb_sql: Callable[[str], tuple[str | None, str]] = lambda sql: (sql, ""),
) -> tuple[list[Outcome], str]:
    """Every probe of ``evidence`` (``source`` SQL) run in DuckDB (``duckdb_sql`` gives the DuckDB
    SQL, or None and the codes when it is refused) and its Spark translation in Spark with ANSI off
    and on, both in :data:`DST_ZONE`; the outcomes and a summary (asserting that none is wrong)."""
    started = time.monotonic()
    con = duckdb_in_zone()
    legs: list[Leg] = []
    results: list[Outcome] = []
    for probe in probes(evidence):
        duck_sql, codes = duckdb_sql(probe.sql)
        out, spark_codes = to_spark(probe.sql, None, source)
        modes: tuple[str, ...] = ("false", "true")
        if out is None and spark_codes != "does-not-bind":
            out, _ = to_spark(probe.sql, True, source)
            modes = ("true",)
        if duck_sql is None or out is None:
            results.append(Outcome(probe.construct, probe.sql, "refused", codes or spark_codes))
            continue
        rows = duckdb_source(con, duck_sql)
        if rows.error.startswith("not a view"):
            results.append(Outcome(probe.construct, probe.sql, "not-a-view", rows.error))
        else:
            legs.append(Leg(probe, out, rows, modes))
    con.close()
    with spark_in_zone(spark):
        frame = spark_frame(spark).cache()
        frame.count()
        frame.createOrReplaceTempView("t")
        try:
            by_mode = {}
            for mode in ("false", "true"):
                spark.conf.set("spark.sql.ansi.enabled", mode)
                by_mode[mode] = run_in_spark(
                    spark, [leg for leg in legs if leg.source.rows is not None], mode
                )
        finally:
            spark.catalog.dropTempView("t")
            frame.unpersist()
    results += [compare(leg, by_mode, source) for leg in legs]
    counts = Counter(r.status for r in results)
    refusals = Counter(code for r in results if r.status == "refused" for code in r.detail.split(","))
    into = "spark" if source == "duckdb" else "spark and duckdb"
    summary = (
        f"edge suite ({source} -> {into}, ANSI off and on, {DST_ZONE}): {len(results)} queries; "
        f"{counts['translated']} translated, {counts['refused']} refused, {counts['wrong']} wrong, "
        f"{counts['translated-ansi']} more translated for ANSI Spark (spark_ansi=True), "
        f"{counts['not-a-view']} not a view type; {time.monotonic() - started:.1f} s\n"
        f"refusals: {dict(sorted(refusals.items()))}"
    )
    print(summary)
    REPORT_LINES.append(summary)
    bad = [f"[{r.status}] {r.construct}: {r.sql}\n  {r.detail}" for r in results if r.status == "wrong"]
    assert not bad, summary + "\n" + "\n".join(bad)
    return results, summary


@pytest.mark.java
def test_edge_suite_from_duckdb(java_spark: Any) -> None:
    started = time.monotonic()
    results, summary = edge_suite(java_spark.spark, EVIDENCE_FROM_DUCKDB, "duckdb")
    assert sum(1 for r in results if r.status == "translated") > 50, summary
    assert time.monotonic() - started < 90, summary


IN_THE_GAP = (
    "date_trunc('hour', ts)",
    "date_trunc('minute', ts)",
    "date_trunc('second', ts)",
    "date_trunc('day', ts)",
    "date_trunc('week', ts)",
    "date_trunc('month', ts)",
    "date_trunc('quarter', ts)",
    "hour(ts)",
    "minute(ts)",
    "extract(hour FROM ts)",
    "day(ts)",
)
"""DuckDB expressions over ``g``'s time in the daylight-saving gap of :data:`DST_ZONE`."""


@pytest.mark.java
def test_times_in_a_daylight_saving_gap_translate_into_spark_unchanged(java_spark: Any) -> None:
    # Spark's date_trunc goes through the session time zone: 02:30 in the gap would become 03:00
    spark = java_spark.spark
    con = duckdb_in_zone()
    failures = []
    with spark_in_zone(spark):
        gap_frame(spark).createOrReplaceTempView("g")
        try:
            for expression in IN_THE_GAP:
                sql = f"SELECT {expression} AS c FROM g"
                want = con.sql(sql).fetchall()[0][0]
                out = translate(
                    sql,
                    "duckdb",
                    "spark",
                    default_catalog=CATALOG,
                    default_namespace=[NAMESPACE],
                    schemas={GAP_NAME: GAP_TABLE},
                ).sql
                got = spark.sql(spark_sql_of(out)).collect()[0][0]
                if type(got) is not type(want) or got != want:
                    failures.append(f"{expression}: DuckDB {want!r}, Spark {got!r} ({out})")
        finally:
            spark.catalog.dropTempView("g")
            con.close()
    assert not failures, "\n".join(failures)
