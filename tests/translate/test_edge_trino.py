"""The differential edge suite from Trino (no Trino runs here): every function class a Trino view's SQL
may keep, and every Trino rule's construct (``edge_queries_trino.py``), is translated into DuckDB and
into Spark, and both run on the edge table: DuckDB's rows (the view's reader in DuckDB) and Spark's,
under ``spark.sql.ansi.enabled=false`` and ``=true``, must be equal. Spark and DuckDB run in
``America/Los_Angeles``, a time zone with daylight saving, so that a translation which reads the
session time zone shows it.

Agreeing with each other is not agreeing with Trino: :data:`TRINO_DOCUMENTED` holds what Trino's
documentation says a call returns where Spark or DuckDB would say otherwise (greatest of a NULL,
ISO days, a DATE that stays a DATE, a time inside the daylight-saving gap), and both translations
must return exactly that.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
import sqlglot
from pyiceberg.schema import Schema
from sqlglot import exp

from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate.allowlists import allowed_functions
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
from translate.edge_queries_trino import EVIDENCE_FROM_TRINO, TRINO_DOCUMENTED
from translate.test_edge import REPORT_LINES, Outcome, probes
from translate.test_edge_duckdb import Leg, compare, duckdb_source, run_in_spark, to_spark

ZONE = DST_ZONE


def _duckdb_sql(sql: str, schemas: dict[tuple[str, str, str], Schema]) -> tuple[str | None, str]:
    try:
        out = translate(
            sql, "trino", "duckdb", default_catalog=CATALOG, default_namespace=[NAMESPACE], schemas=schemas
        )
    except UnsafeTranslationError as e:
        return None, ",".join(e.codes)
    except TranslationError as e:
        return None, f"error: {e}"
    return out.sql, ""


def _spark_sql(sql: str, spark_ansi: bool | None, schemas: dict[tuple[str, str, str], Schema]) -> str:
    out = translate(
        sql,
        "trino",
        "spark",
        default_catalog=CATALOG,
        default_namespace=[NAMESPACE],
        schemas=schemas,
        spark_ansi=spark_ansi,
    ).sql
    tree = sqlglot.parse_one(out, read="spark")
    for table in tree.find_all(exp.Table):
        table.set("catalog", None)
        table.set("db", None)
    return tree.sql(dialect="spark")


def _in_zone(spark: Any) -> tuple[str, str]:
    previous = (spark.conf.get("spark.sql.session.timeZone"), spark.conf.get("spark.sql.ansi.enabled"))
    spark.conf.set("spark.sql.session.timeZone", ZONE)
    return previous


def test_every_class_kept_from_trino_has_evidence() -> None:
    kept = allowed_functions("spark", "trino") | allowed_functions("duckdb", "trino")
    missing = sorted(kept - set(EVIDENCE_FROM_TRINO))
    assert not missing, f"kept from Trino without edge evidence: {missing}"


@pytest.mark.java
def test_edge_suite_from_trino(java_spark: Any) -> None:
    spark = java_spark.spark
    started = time.monotonic()
    con = duckdb_connection()
    con.execute(f"SET TimeZone = '{ZONE}'")
    con.execute(f"USE {CATALOG}.{NAMESPACE}")
    legs: list[Leg] = []
    results: list[Outcome] = []
    for probe in probes(EVIDENCE_FROM_TRINO):
        duck_sql, codes = _duckdb_sql(probe.sql, {NAME: EDGE})
        spark_sql, spark_codes = to_spark(probe.sql, None, source="trino")
        modes: tuple[str, ...] = ("false", "true")
        if spark_sql is None and spark_codes != "does-not-bind":
            spark_sql, _ = to_spark(probe.sql, True, source="trino")
            modes = ("true",)
        if duck_sql is None or spark_sql is None:
            results.append(Outcome(probe.construct, probe.sql, "refused", codes or spark_codes))
            continue
        source = duckdb_source(con, duck_sql)
        if source.error.startswith("not a view"):
            results.append(Outcome(probe.construct, probe.sql, "not-a-view", source.error))
        else:
            legs.append(Leg(probe, spark_sql, source, modes))
    con.close()
    previous = _in_zone(spark)
    frame = spark_frame(spark).cache()
    frame.count()
    frame.createOrReplaceTempView("t")
    try:
        by_mode = {}
        for mode in ("false", "true"):
            spark.conf.set("spark.sql.ansi.enabled", mode)
            by_mode[mode] = run_in_spark(spark, [leg for leg in legs if leg.source.rows is not None], mode)
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous[0])
        spark.conf.set("spark.sql.ansi.enabled", previous[1])
        spark.catalog.dropTempView("t")
        frame.unpersist()
    results += [compare(leg, by_mode, source="trino") for leg in legs]
    counts = Counter(r.status for r in results)
    refusals = Counter(code for r in results if r.status == "refused" for code in r.detail.split(","))
    summary = (
        f"edge suite (trino -> spark and duckdb, ANSI off and on, {ZONE}): {len(results)} queries; "
        f"{counts['translated']} translated, {counts['refused']} refused, {counts['wrong']} wrong, "
        f"{counts['translated-ansi']} more translated for ANSI Spark (spark_ansi=True), "
        f"{counts['not-a-view']} not a view type; {time.monotonic() - started:.1f} s\n"
        f"refusals: {dict(sorted(refusals.items()))}"
    )
    print(summary)
    REPORT_LINES.append(summary)
    bad = [f"[{r.status}] {r.construct}: {r.sql}\n  {r.detail}" for r in results if r.status == "wrong"]
    assert not bad, summary + "\n" + "\n".join(bad)
    # every construct kept from Trino is translated somewhere in its evidence
    translated = {r.construct for r in results if r.status.startswith("translated")}
    untranslated = sorted(set(EVIDENCE_FROM_TRINO) - translated)
    assert not untranslated, f"{summary}\nnever translated: {untranslated}"


def _same_value(got: Any, want: Any) -> bool:
    if want is None or got is None:
        return got is want
    if isinstance(want, (int, Decimal)) and not isinstance(want, bool):
        return isinstance(got, (int, float, Decimal)) and Decimal(str(got)) == Decimal(want)
    if isinstance(want, dt.datetime):
        return isinstance(got, dt.datetime) and got.replace(tzinfo=None) == want
    if isinstance(want, dt.date):
        # a DATE stays a DATE: a datetime here would be a TIMESTAMP column
        return type(got) is dt.date and got == want
    return bool(got == want)


@pytest.mark.java
def test_translations_from_trino_return_what_trino_documents(java_spark: Any) -> None:
    spark = java_spark.spark
    schemas = {GAP_NAME: GAP_TABLE}
    con = duckdb_connection()
    con.execute(f"SET TimeZone = '{ZONE}'")
    con.execute(f"USE {CATALOG}.{NAMESPACE}")
    gap_duckdb(con)
    previous = _in_zone(spark)
    gap_frame(spark).createOrReplaceTempView("g")
    failures = []
    try:
        for expression, want, why in TRINO_DOCUMENTED:
            sql = f"SELECT {expression} AS c FROM g"
            duck_sql, codes = _duckdb_sql(sql, schemas)
            if duck_sql is None:
                failures.append(f"{expression}: refused into DuckDB ({codes})")
                continue
            got = {"duckdb": con.sql(duck_sql).fetchall()[0][0]}
            for mode in ("false", "true"):
                spark.conf.set("spark.sql.ansi.enabled", mode)
                spark_sql = _spark_sql(sql, mode == "true", schemas)
                got[f"spark ansi={mode}"] = spark.sql(spark_sql).collect()[0][0]
            for engine, value in got.items():
                if not _same_value(value, want):
                    failures.append(f"{expression} in {engine}: {value!r}, Trino documents {want!r} ({why})")
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous[0])
        spark.conf.set("spark.sql.ansi.enabled", previous[1])
        spark.catalog.dropTempView("g")
        con.close()
    assert not failures, "\n".join(failures)
