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
from decimal import Decimal
from typing import Any

import pytest
from pyiceberg.schema import Schema

from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate.allowlists import allowed_functions
from translate.edge_data import CATALOG, EDGE, GAP_NAME, GAP_TABLE, NAME, NAMESPACE, gap_frame
from translate.edge_queries_trino import EVIDENCE_FROM_TRINO, TRINO_DOCUMENTED
from translate.test_edge_duckdb import duckdb_in_zone, edge_suite, spark_in_zone, spark_sql_of


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


def test_every_class_kept_from_trino_has_evidence() -> None:
    kept = allowed_functions("spark", "trino") | allowed_functions("duckdb", "trino")
    missing = sorted(kept - set(EVIDENCE_FROM_TRINO))
    assert not missing, f"kept from Trino without edge evidence: {missing}"


@pytest.mark.java
def test_edge_suite_from_trino(java_spark: Any) -> None:
    results, summary = edge_suite(
        java_spark.spark, EVIDENCE_FROM_TRINO, "trino", lambda sql: _duckdb_sql(sql, {NAME: EDGE})
    )
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
    con = duckdb_in_zone()
    failures = []
    with spark_in_zone(spark):
        gap_frame(spark).createOrReplaceTempView("g")
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
                    out = translate(
                        sql,
                        "trino",
                        "spark",
                        default_catalog=CATALOG,
                        default_namespace=[NAMESPACE],
                        schemas=schemas,
                        spark_ansi=mode == "true",
                    ).sql
                    got[f"spark ansi={mode}"] = spark.sql(spark_sql_of(out)).collect()[0][0]
                for engine, value in got.items():
                    if not _same_value(value, want):
                        failures.append(
                            f"{expression} in {engine}: {value!r}, Trino documents {want!r} ({why})"
                        )
        finally:
            spark.catalog.dropTempView("g")
            con.close()
    assert not failures, "\n".join(failures)
