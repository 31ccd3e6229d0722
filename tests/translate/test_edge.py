"""The differential edge suite: every construct the rules table keeps, checks or rewrites from Spark
into DuckDB is executed on the edge table (``edge_data.py``) in Spark 3.5.9, under
``spark.sql.ansi.enabled=false`` and ``=true`` (one session, the conf toggled), and its translation
in DuckDB. A translated query must give equal rows, compared by type, in both modes (or Spark must
raise); otherwise the translator must refuse it.

Rows are compared the way a reader sees a view: the DuckDB result is cast to the types of Spark's
result (the view's schema), then decimals compare as decimals at that scale, doubles exactly with
NaN equal to NaN, timestamps to the microsecond, arrays in order. A translation that gives other
rows, or fails in DuckDB where Spark returns rows, is *wrong*; the suite ends at 0 wrong.

The evidence (``edge_queries.py``) is driven from the rules table: every construct with a keep,
check or rewrite rule for Spark -> DuckDB, and every function class on DuckDB's allow-list, needs
queries here (``test_every_kept_construct_has_evidence``).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate import RULES, allowed_functions
from iceview.sql.translate.policy import Refuse
from translate.edge_data import CATALOG, EDGE, NAME, NAMESPACE, duckdb_connection, spark_frame
from translate.edge_queries import EVIDENCE, UNREACHABLE_FROM_SPARK
from translate.edge_queries_duckdb import EVIDENCE_FROM_DUCKDB
from translate.typed_rows import SparkNotAViewType as _NotAViewType
from translate.typed_rows import key as _key
from translate.typed_rows import norm as _norm
from translate.typed_rows import same as _same
from translate.typed_rows import spark_type_to_duckdb as _spark_type_to_duckdb

UNREACHABLE: dict[tuple[str, str], dict[str, str]] = {("spark", "duckdb"): UNREACHABLE_FROM_SPARK}
"""Per direction, the allow-listed classes no source SQL parses into."""


def required_constructs(source: str = "spark", target: str = "duckdb") -> set[str]:
    """What needs evidence in a direction: the target's allow-list and every rule that lets a
    construct through from ``source`` into ``target``: a call of given classes per class (for a
    call narrowed to the allow-list, only the classes on it: the others are refused as functions),
    a named construct by its name."""
    allowed = set(allowed_functions(target))
    names = set(allowed)
    for rule in RULES:
        if rule.applies_to(source, target) and not isinstance(rule.policy, Refuse):
            # a call of given classes needs evidence per class; a named construct by its name
            exact = set(rule.construct.exact_names)
            if exact and rule.construct.tests:  # call(): only on the allow-list
                exact &= allowed
            names |= exact if rule.construct.exact_names else {rule.construct.name}
    # the generic "function call on the allow-list" is covered by the allow-list's classes
    names.discard("function call on the allow-list")
    return names - set(UNREACHABLE.get((source, target), {}))


@dataclass(frozen=True)
class Probe:
    """One query of the evidence: ``sql`` is translated and run in DuckDB; in Spark it runs as part
    of ``batch`` (the construct's queries of one shape as columns of one query), whose columns
    ``columns`` are its result."""

    construct: str
    sql: str
    batch: str
    columns: tuple[int, ...]


def probes(evidence: dict[str, tuple[str, ...]] | None = None) -> list[Probe]:
    """Every piece of evidence (default: Spark's); aggregates per group and over no rows."""
    out: list[Probe] = []
    for name, items in (EVIDENCE if evidence is None else evidence).items():
        shapes: dict[str, list[str]] = {"e": [], "a": []}
        for item in items:
            kind, _, text = item.partition(":")
            if kind == "q":
                out.append(Probe(name, text, text, ()))
            else:
                assert kind in shapes, item
                shapes[kind].append(text)
        cols = lambda xs: ", ".join(f"{x} AS c{k}" for k, x in enumerate(xs))  # noqa: E731
        if shapes["e"]:
            batch = f"SELECT id, {cols(shapes['e'])} FROM t"
            for k, x in enumerate(shapes["e"]):
                out.append(Probe(name, f"SELECT id, {x} AS c FROM t", batch, (0, k + 1)))
        if shapes["a"]:
            grouped = f"SELECT grp, {cols(shapes['a'])} FROM t GROUP BY grp"
            empty = f"SELECT {cols(shapes['a'])} FROM t WHERE id < 0"
            for k, x in enumerate(shapes["a"]):
                out.append(Probe(name, f"SELECT grp, {x} AS c FROM t GROUP BY grp", grouped, (0, k + 1)))
                out.append(Probe(name, f"SELECT {x} AS c FROM t WHERE id < 0", empty, (k,)))
    return out


def test_unreachable_classes_are_not_parsed_from_spark() -> None:
    for spelling in ("to_timestamp(s)", "timestamp(s)", "CAST(s AS TIMESTAMP)", "TIMESTAMP '2024-01-01'"):
        tree = sqlglot.parse_one(spelling, read="spark")
        assert not any(type(n).__name__ in UNREACHABLE_FROM_SPARK for n in tree.walk()), spelling


EDGE_EVIDENCE: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {
    ("spark", "duckdb"): EVIDENCE,
    ("duckdb", "spark"): EVIDENCE_FROM_DUCKDB,
}
"""The edge suite's evidence per direction it runs (Trino's directions have their own tests)."""


@pytest.mark.parametrize("direction", sorted(EDGE_EVIDENCE), ids="->".join)
def test_every_kept_construct_has_evidence(direction: tuple[str, str]) -> None:
    missing = required_constructs(*direction) - set(EDGE_EVIDENCE[direction])
    assert not missing, f"constructs translated {direction} without edge evidence: {sorted(missing)}"


@pytest.mark.parametrize(
    ("direction", "name"),
    sorted((d, n) for d, evidence in EDGE_EVIDENCE.items() for n in evidence if hasattr(exp, n)),
    ids=lambda x: "->".join(x) if isinstance(x, tuple) else x,
)
def test_evidence_exercises_its_construct(direction: tuple[str, str], name: str) -> None:
    cls = getattr(exp, name)
    for item in EDGE_EVIDENCE[direction][name]:
        tree = sqlglot.parse_one(item.partition(":")[2], read=direction[0])
        assert any(type(n) is cls or isinstance(n, cls) for n in tree.walk()), (name, item)


# --------------------------------------------------------------------------------------------------
# comparison by type


@dataclass
class Outcome:
    construct: str
    sql: str
    status: str  # translated | translated-ansi | refused | wrong | does-not-bind
    detail: str = ""
    modes: dict[str, str] = field(default_factory=dict)


REPORT_LINES: list[str] = []
"""The suite's summary, for the terminal summary (conftest.py)."""

_BIND = re.compile(r"^(Binder|Parser|Catalog|Not implemented) Error", re.M)


def _translate(sql: str, spark_ansi: bool | None = None) -> tuple[str | None, str]:
    try:
        out = translate(
            sql,
            "spark",
            "duckdb",
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: EDGE},
            spark_ansi=spark_ansi,
        )
    except UnsafeTranslationError as e:
        return None, ",".join(e.codes)
    except TranslationError as e:
        return None, f"error: {e}"
    return out.sql, ""


SparkResult = tuple[Any, list[tuple[Any, ...]] | None, str]
"""Spark's result: the schema's fields, the rows (None when Spark raised) and the error."""


def _spark_rows(spark: Any, sql: str) -> SparkResult:
    try:
        df = spark.sql(sql)
        rows = [tuple(r) for r in df.collect()]
        return df.schema.fields, rows, ""
    except Exception as e:  # Spark raised: the view fails in Spark too
        return None, None, str(e).splitlines()[0][:200]


def spark_results(spark: Any, all_probes: list[Probe]) -> dict[str, SparkResult]:
    """Each probe's Spark result (by its SQL) in the session's current mode: from its batch, or on
    its own when the batch raised."""
    results: dict[str, SparkResult] = {}
    batches: dict[str, list[Probe]] = {}
    for probe in all_probes:
        batches.setdefault(probe.batch, []).append(probe)
    for batch, members in batches.items():
        fields, rows, error = _spark_rows(spark, batch)
        for probe in members:
            if not probe.columns:
                results[probe.sql] = (fields, rows, error)
            elif rows is None:
                results[probe.sql] = _spark_rows(spark, probe.sql)
            else:
                cols = probe.columns
                results[probe.sql] = (
                    [fields[c] for c in cols],
                    [tuple(r[c] for c in cols) for r in rows],
                    "",
                )
    return results


def _duck_rows(con: Any, sql: str, fields: Any) -> tuple[list[tuple[Any, ...]] | None, str]:
    cols = [f"__c{k}" for k in range(len(fields))]
    casts = ", ".join(
        f"CAST({c} AS {_spark_type_to_duckdb(f.dataType)})" for c, f in zip(cols, fields, strict=True)
    )
    wrapped = f"SELECT {casts} FROM ({sql}) AS __v({', '.join(cols)})"
    try:
        table = con.sql(wrapped).arrow()
        if hasattr(table, "read_all"):
            table = table.read_all()
        columns = [c.to_pylist() for c in table.columns]
        return list(zip(*columns, strict=True)), ""
    except Exception as e:
        return None, str(e)


def run(con: Any, construct: str, sql: str, spark: dict[str, dict[str, SparkResult]]) -> Outcome:
    """The query's outcome; a query refused for lack of the mode is also translated for ANSI Spark
    (``spark_ansi=True``) and compared under ANSI only ("translated-ansi")."""
    out, codes = _translate(sql)
    if out is not None:
        return _compare(con, construct, sql, out, spark, ("false", "true"))
    if codes == "does-not-bind":
        return Outcome(construct, sql, "does-not-bind", codes)
    ansi_out, _ = _translate(sql, spark_ansi=True)
    if ansi_out is None:
        return Outcome(construct, sql, "refused", codes)
    outcome = _compare(con, construct, sql, ansi_out, spark, ("true",))
    if outcome.status == "translated":
        outcome.status = "translated-ansi"
    return outcome


def _compare(
    con: Any,
    construct: str,
    sql: str,
    out: str,
    spark: dict[str, dict[str, SparkResult]],
    modes: tuple[str, ...],
) -> Outcome:
    ordered = sqlglot.parse_one(sql, read="spark").args.get("order") is not None
    outcome = Outcome(construct, sql, "translated")
    for ansi in modes:
        schema, spark_rows, spark_error = spark[ansi][sql]
        if spark_rows is None:
            outcome.modes[ansi] = f"spark raises: {spark_error}"
            continue
        try:
            duck_rows, duck_error = _duck_rows(con, out, schema)
        except _NotAViewType as e:
            outcome.modes[ansi] = f"not a view: {e}"
            continue
        if duck_rows is None:
            # a binder error here means the translator's own binding check missed it
            kind = "binder error" if _BIND.search(duck_error) else "error"
            return Outcome(
                construct, sql, "wrong", f"ansi={ansi}: {out}\n  duckdb {kind}: {duck_error[:300]}"
            )
        a = [tuple(_norm(v) for v in r) for r in spark_rows]
        b = [tuple(_norm(v) for v in r) for r in duck_rows]
        if not ordered:
            a.sort(key=_key)
            b.sort(key=_key)
        if len(a) != len(b) or not all(_same(x, y) for x, y in zip(a, b, strict=False)):
            diff = next(((x, y) for x, y in zip(a, b, strict=False) if not _same(x, y)), (len(a), len(b)))
            return Outcome(construct, sql, "wrong", f"ansi={ansi}: {out}\n  spark, duckdb: {diff}")
        outcome.modes[ansi] = "equal"
    return outcome


@pytest.mark.java
def test_edge_suite(java_spark: Any) -> None:
    spark = java_spark.spark
    started = time.monotonic()
    frame = spark_frame(spark).cache()  # in the JVM: no Python worker per query
    frame.count()
    frame.createOrReplaceTempView("t")
    con = duckdb_connection()
    previous = spark.conf.get("spark.sql.ansi.enabled")
    all_probes = probes()
    results: list[Outcome] = []
    try:
        by_mode = {}
        for ansi in ("false", "true"):
            spark.conf.set("spark.sql.ansi.enabled", ansi)
            by_mode[ansi] = spark_results(spark, all_probes)
        spark_seconds = time.monotonic() - started
        results = [run(con, p.construct, p.sql, by_mode) for p in all_probes]
    finally:
        spark.conf.set("spark.sql.ansi.enabled", previous)
        spark.catalog.dropTempView("t")
        frame.unpersist()
        con.close()
    counts = Counter(r.status for r in results)
    refusals = Counter(code for r in results if r.status == "refused" for code in r.detail.split(","))
    summary = (
        f"edge suite (spark -> duckdb, ANSI off and on): {len(results)} queries; "
        f"{counts['translated']} translated, {counts['refused']} refused, {counts['wrong']} wrong, "
        f"{counts['translated-ansi']} more translated for ANSI Spark (spark_ansi=True), "
        f"{counts['does-not-bind']} does-not-bind; {time.monotonic() - started:.1f} s "
        f"(Spark {spark_seconds:.1f} s)\n"
        f"refusals: {dict(sorted(refusals.items()))}"
    )
    print(summary)
    REPORT_LINES.append(summary)
    bad = [f"[{r.status}] {r.construct}: {r.sql}\n  {r.detail}" for r in results if r.status == "wrong"]
    assert not bad, summary + "\n" + "\n".join(bad)
    assert counts["translated"] > 200, summary  # the suite proves something
