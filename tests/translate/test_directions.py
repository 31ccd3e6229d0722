"""How well ``iceview.sql.translate`` carries view SQL in all six directions between ``spark``,
``trino`` and ``duckdb``, measured on a corpus per source dialect (``corpus_spark.py``,
``corpus_duckdb.py``, ``corpus_trino.py``) over ``customers``, ``orders`` and ``edge_events``
(``corpus_sources.py``), and kept measured: every case asserts the outcome it records per target.

* Spark <-> DuckDB: the source runs in its own engine, the translation in the other, on the same
  tables (Spark 3.5.9 with Iceberg 1.10.2 on the PostgreSQL JDBC catalog of ``corpus_env``; DuckDB
  on the tables' PyIceberg scans). Spark runs with ``spark.sql.ansi.enabled`` false and true, and
  each translation is made for the mode it is run under (``spark_ansi``).
* Trino -> Spark and Trino -> DuckDB (no Trino server here): both translations run, and must give
  the same rows (Spark in both modes); when one of them is refused neither can be checked.
* Spark -> Trino and DuckDB -> Trino: the output must parse in sqlglot's ``trino`` dialect and call
  only Trino functions (``translate``'s own check, run again on the re-parsed output).

Rows are compared as a view's reader sees them: the target's result is cast to the types of the
source's result (the view's schema; from Trino, to DuckDB's types), then compared with the corpus
test's comparator (``test_corpus.py``: decimals and doubles with a tolerance, order ignored unless
the query orders). A translation that gives other rows, or raises where the source does not, is
*wrong*. Where the source raises (the view fails in its own engine) there are no rows to compare.

Outcomes: ``equal``; the first refusal code; ``"<legacy>|ansi:<ansi>"`` where the two Spark modes
differ; ``"<code> (in <dialect>)"`` from Trino when the other translation was refused; ``wrong``.
The direction x translated/refused/wrong table is printed in pytest's terminal summary.
Set ``ICEVIEW_DIRECTIONS_RECORD=<file>`` to write every outcome to a JSON file.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlglot
from sqlglot.errors import SqlglotError

from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate.compare import compare
from translate.conftest import CATALOG, CorpusEnv
from translate.corpus import CASES, CUSTOMERS, EQUAL, NAMESPACE, ORDERS
from translate.corpus_duckdb import DUCKDB_CASES
from translate.corpus_sources import EDGE_EVENTS, SourceCase
from translate.corpus_spark import READS_A_VIEW, SPARK_CASES
from translate.corpus_trino import TRINO_CASES
from translate.test_corpus import _fetch, _rows, _same
from translate.test_directions_doc import DIRECTIONS, SOURCES
from translate.test_edge import _NotAViewType, _spark_type_to_duckdb
from translate.test_edge_duckdb import NotAViewType, spark_type_of

pytestmark = [pytest.mark.java, pytest.mark.postgres]

TABLES = {"customers": CUSTOMERS, "orders": ORDERS, "edge_events": EDGE_EVENTS}
SCHEMAS = {(CATALOG, NAMESPACE, name): schema for name, schema in TABLES.items()}
MODES = (False, True)  # spark.sql.ansi.enabled
WRONG = "wrong"
_QUALIFIER = f"{CATALOG}.{NAMESPACE}."  # how translations name the tables

DIRECTION_LINES: list[str] = []
"""The direction table, for the terminal summary (conftest.py)."""

Rows = list[tuple[Any, ...]]


# --------------------------------------------------------------------------------------------------
# translation


@dataclass
class Tr:
    """One translation: the SQL, or the refusal code (``sql`` None)."""

    sql: str | None
    code: str = ""
    message: str = ""


def _translate(sql: str, source: str, target: str, spark_ansi: bool | None) -> Tr:
    try:
        out = translate(
            sql,
            source,
            target,
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas=SCHEMAS,
            spark_ansi=spark_ansi,
        )
    except UnsafeTranslationError as e:
        return Tr(None, e.codes[0], str(e))
    except TranslationError as e:  # no code: the SQL does not parse, or the output does not
        return Tr(None, "translation-error", str(e))
    return Tr(out.sql)


def _trino_problems(sql: str) -> str:
    """Why a ``trino`` output is not Trino SQL: it does not parse in sqlglot's trino dialect, or calls
    a function Trino does not have."""
    try:
        tree = sqlglot.parse_one(sql, read="trino")
    except SqlglotError as e:
        return f"does not parse in trino: {e}"
    unknown = [i.reason for i in compare(tree, tree, "trino", "trino") if i.code == "unknown-function"]
    return "; ".join(unknown)


# --------------------------------------------------------------------------------------------------
# engines


@dataclass
class Result:
    """An engine's result: the column types (Spark's fields or DuckDB's type names) and rows, or the
    error (``rows`` None)."""

    types: list[Any]
    rows: Rows | None
    error: str = ""


def _duckdb_connection(env: CorpusEnv) -> Any:
    """An in-memory DuckDB holding the corpus tables (their PyIceberg scans) as ``tcorpus.corpus.*``."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"ATTACH ':memory:' AS {CATALOG}")
    con.execute(f"CREATE SCHEMA {CATALOG}.{NAMESPACE}")
    for name in TABLES:
        data = env.tables.load_table(f"{NAMESPACE}.{name}").scan().to_arrow()  # noqa: F841
        con.execute(f"CREATE TABLE {CATALOG}.{NAMESPACE}.{name} AS SELECT * FROM data")
    con.execute(f"USE {CATALOG}.{NAMESPACE}")
    return con


def _duckdb(con: Any, sql: str) -> Result:
    try:
        rel = con.sql(sql)
        return Result([str(t) for t in rel.types], _fetch(rel))
    except Exception as e:  # DuckDB raised
        return Result([], None, str(e).splitlines()[0][:300])


def _spark(spark: Any, sql: str) -> Result:
    try:
        df = spark.sql(sql.replace(_QUALIFIER, ""))
        return Result(list(df.schema.fields), [tuple(r) for r in df.collect()])
    except Exception as e:  # Spark raised
        return Result([], None, str(e).splitlines()[0][:300])


def _wrap(sql: str, types: list[str]) -> str:
    """``sql`` with its columns cast to ``types`` (the view's schema)."""
    cols = [f"__c{k}" for k in range(len(types))]
    casts = ", ".join(f"CAST({c} AS {t}) AS {c}" for c, t in zip(cols, types, strict=True))
    return f"SELECT {casts} FROM ({sql}) AS __v({', '.join(cols)})"


def _duckdb_types_of(result: Result) -> list[str] | None:
    try:
        return [_spark_type_to_duckdb(f.dataType) for f in result.types]
    except _NotAViewType:
        return None


def _spark_type(duckdb_type: str) -> str:
    if duckdb_type == "TIMESTAMP":  # sqlglot reads it as TIMESTAMPNTZ, which spark_type_of lacks
        return "TIMESTAMP_NTZ"
    return spark_type_of(duckdb_type)


def _spark_types_of(result: Result) -> list[str] | None:
    try:
        return [_spark_type(t) for t in result.types]
    except NotAViewType:
        return None


# --------------------------------------------------------------------------------------------------
# outcomes


@dataclass
class Wrong:
    direction: str
    case: str
    mode: str
    source_sql: str
    translation: str
    detail: str
    rows: tuple[Any, Any] = (None, None)


@dataclass
class Measured:
    outcomes: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)  # source -> case -> target
    wrong: list[Wrong] = field(default_factory=list)
    seconds: float = 0.0
    spark_seconds: float = 0.0


def _ordered(sql: str, dialect: str) -> bool:
    return sqlglot.parse_one(sql, read=dialect).args.get("order") is not None


def _same_rows(case: SourceCase, dialect: str, a: Result, b: Result) -> tuple[bool, str]:
    """Whether ``b`` (a translation's result) gives the rows of ``a`` (the reference)."""
    if a.rows is None:
        return True, f"the reference raises: {a.error}"
    if b.rows is None:
        return False, f"raises: {b.error}"
    ordered = _ordered(case.sql, dialect)
    x = _rows([list(r) for r in a.rows], case.unordered_lists, ordered)
    y = _rows([list(r) for r in b.rows], case.unordered_lists, ordered)
    if len(x) == len(y) and all(_same(p, q) for p, q in zip(x, y, strict=True)):
        return True, ""
    diff = next(((p, q) for p, q in zip(x, y, strict=False) if not _same(p, q)), None)
    return False, f"{len(x)} rows against {len(y)}; first difference {diff}"


def _combine(by_mode: dict[bool, str]) -> str:
    legacy, ansi = by_mode[False], by_mode[True]
    return legacy if legacy == ansi else f"{legacy}|ansi:{ansi}"


def _mode(ansi: bool | None) -> str:
    return "-" if ansi is None else f"ansi={str(ansi).lower()}"


def measure(env: CorpusEnv) -> Measured:
    started = time.monotonic()
    spark = env.spark
    m = Measured()
    out = m.outcomes = {source: {c.name: {} for c in cases} for source, cases in SOURCES.items()}

    def wrong(direction: str, c: SourceCase, ansi: bool | None, tr: str, detail: str, a: Any, b: Any) -> str:
        m.wrong.append(Wrong(direction, c.name, _mode(ansi), c.sql, tr, detail, (a, b)))
        return WRONG

    # 1. every translation (no engine)
    tr: dict[tuple[str, str, str, bool | None], Tr] = {}
    for source, cases in SOURCES.items():
        for c in cases:
            for target in ("spark", "trino", "duckdb"):
                if target == source:
                    continue
                spark_side = "spark" in (source, target)
                for ansi in MODES if spark_side else (None,):
                    tr[(source, c.name, target, ansi)] = _translate(c.sql, source, target, ansi)

    # 2. into Trino: parse and function checks
    for source in ("spark", "duckdb"):
        for c in SOURCES[source]:
            by_mode: dict[bool, str] = {}
            for ansi in MODES if source == "spark" else (None,):
                t = tr[(source, c.name, "trino", ansi)]
                if t.sql is None:
                    verdict = t.code
                else:
                    problems = _trino_problems(t.sql)
                    verdict = (
                        wrong(f"{source}->trino", c, ansi, t.sql, problems, None, None) if problems else EQUAL
                    )
                by_mode[bool(ansi)] = verdict
            out[source][c.name]["trino"] = _combine(by_mode) if source == "spark" else by_mode[False]

    # 3. DuckDB: the DuckDB sources and the translations from Trino
    con = _duckdb_connection(env)
    duck_src = {c.name: _duckdb(con, c.sql) for c in DUCKDB_CASES}
    trino_duck = {
        c.name: _duckdb(con, t.sql)
        for c in TRINO_CASES
        if (t := tr[("trino", c.name, "duckdb", None)]).sql is not None
    }

    # 4. Spark in each mode: the Spark sources and the translations into Spark (cast to the view's types)
    spark_src: dict[tuple[str, bool], Result] = {}
    duck_spark: dict[tuple[str, bool], Result] = {}
    trino_spark: dict[tuple[str, bool], Result] = {}
    previous = (spark.catalog.currentCatalog(), spark.catalog.currentDatabase())
    previous_ansi = spark.conf.get("spark.sql.ansi.enabled")
    spark.sql(f"USE {CATALOG}.{NAMESPACE}")
    spark_started = time.monotonic()
    # the tables, read once through Iceberg and cached, as temporary views of the same names: the
    # source SQL resolves them first, and the translations' qualified names are cut to them
    frames = {name: spark.table(f"{CATALOG}.{NAMESPACE}.{name}").cache() for name in TABLES}
    for name, frame in frames.items():
        frame.count()
        frame.createOrReplaceTempView(name)
    try:
        for ansi in MODES:
            spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
            for c in SPARK_CASES:
                spark_src[(c.name, ansi)] = _spark(spark, c.sql)
            for source, sources, results in (
                ("duckdb", duck_src, duck_spark),
                ("trino", trino_duck, trino_spark),
            ):
                for c in SOURCES[source]:
                    t = tr[(source, c.name, "spark", ansi)]
                    ref = sources.get(c.name)
                    if t.sql is None or ref is None:
                        continue
                    if ref.rows is None:  # the reference raises: does the translation too?
                        results[(c.name, ansi)] = _spark(spark, t.sql)
                        continue
                    types = _spark_types_of(ref)
                    if types is not None:
                        results[(c.name, ansi)] = _spark(spark, _wrap(t.sql, types))
    finally:
        spark.conf.set("spark.sql.ansi.enabled", previous_ansi)
        spark.sql(f"USE {previous[0]}.{previous[1]}")
        for name, frame in frames.items():
            spark.catalog.dropTempView(name)
            frame.unpersist()
        m.spark_seconds = time.monotonic() - spark_started

    # 5. spark -> duckdb
    for c in SPARK_CASES:
        by_mode = {}
        for ansi in MODES:
            t = tr[("spark", c.name, "duckdb", ansi)]
            src = spark_src[(c.name, ansi)]
            if t.sql is None:
                by_mode[ansi] = t.code
                continue
            if src.rows is None:
                by_mode[ansi] = EQUAL  # the view fails in Spark: nothing to compare
                continue
            types = _duckdb_types_of(src)
            if types is None:
                by_mode[ansi] = "not-a-view"
                continue
            got = _duckdb(con, _wrap(t.sql, types))
            same, detail = _same_rows(c, "spark", src, got)
            by_mode[ansi] = (
                EQUAL if same else wrong("spark->duckdb", c, ansi, t.sql, detail, src.rows, got.rows)
            )
        out["spark"][c.name]["duckdb"] = _combine(by_mode)
    con.close()

    # 6. duckdb -> spark
    for c in DUCKDB_CASES:
        by_mode = {}
        src = duck_src[c.name]
        for ansi in MODES:
            t = tr[("duckdb", c.name, "spark", ansi)]
            if t.sql is None:
                by_mode[ansi] = t.code
            elif src.rows is None:
                by_mode[ansi] = EQUAL  # the view fails in DuckDB: nothing to compare
            elif (c.name, ansi) not in duck_spark:
                by_mode[ansi] = "not-a-view"
            else:
                got = duck_spark[(c.name, ansi)]
                same, detail = _same_rows(c, "duckdb", src, got)
                by_mode[ansi] = (
                    EQUAL if same else wrong("duckdb->spark", c, ansi, t.sql, detail, src.rows, got.rows)
                )
        out["duckdb"][c.name]["spark"] = _combine(by_mode)

    # 7. trino -> spark and trino -> duckdb: each against the other
    for c in TRINO_CASES:
        td = tr[("trino", c.name, "duckdb", None)]
        duck = trino_duck.get(c.name)
        spark_modes: dict[bool, str] = {}
        duck_verdicts: list[str] = []
        for ansi in MODES:
            ts = tr[("trino", c.name, "spark", ansi)]
            if ts.sql is None:
                spark_modes[ansi] = ts.code
                continue
            if td.sql is None or duck is None:
                spark_modes[ansi] = f"{td.code} (in duckdb)"
                continue
            if (c.name, ansi) not in trino_spark:
                spark_modes[ansi] = "not-a-view"
                continue
            got = trino_spark[(c.name, ansi)]
            if duck.rows is None:  # both must raise
                same, detail = got.rows is None, f"duckdb raises ({duck.error}), spark does not"
            else:
                same, detail = _same_rows(c, "trino", duck, got)
            if same:
                spark_modes[ansi] = EQUAL
                duck_verdicts.append(EQUAL)
            else:
                text = f"spark: {ts.sql}\n  duckdb: {td.sql}"
                spark_modes[ansi] = wrong("trino->spark", c, ansi, text, detail, duck.rows, got.rows)
                duck_verdicts.append(WRONG)
        out["trino"][c.name]["spark"] = _combine(spark_modes)
        if td.sql is None:
            out["trino"][c.name]["duckdb"] = td.code
        elif not duck_verdicts:
            codes = [v for v in spark_modes.values() if v != "not-a-view"]
            out["trino"][c.name]["duckdb"] = f"{codes[0]} (in spark)" if codes else "not-a-view"
        else:
            out["trino"][c.name]["duckdb"] = WRONG if WRONG in duck_verdicts else EQUAL
    m.seconds = time.monotonic() - started
    return m


# --------------------------------------------------------------------------------------------------
# the table


def _parts(outcome: str) -> list[str]:
    legacy, _, ansi = outcome.partition("|ansi:")
    return [legacy, ansi] if ansi else [legacy]


def table(m: Measured) -> list[str]:
    lines = [
        f"{'direction':<16} {'cases':>5} {'translated':>10} {'refused':>7} {'(ansi only)':>11} {'wrong':>5}"
        "  most frequent refusals"
    ]
    for source, target in DIRECTIONS:
        outcomes = [m.outcomes[source][c.name][target] for c in SOURCES[source]]
        translated = sum(1 for o in outcomes if o == EQUAL)
        wrong = sum(1 for o in outcomes if WRONG in _parts(o))
        refused = len(outcomes) - translated - wrong
        ansi_only = sum(1 for o in outcomes if len(_parts(o)) == 2 and _parts(o)[1] == EQUAL)
        codes = Counter(
            next(p for p in _parts(o) if p != EQUAL)
            for o in outcomes
            if o != EQUAL and WRONG not in _parts(o)
        )
        top = ", ".join(f"{code} {n}" for code, n in codes.most_common(6))
        lines.append(
            f"{source + ' -> ' + target:<16} {len(outcomes):>5} {translated:>10} {refused:>7} "
            f"{ansi_only:>11} {wrong:>5}  {top}"
        )
    lines.append(
        f"(refused includes 'ansi only': translated and equal for ANSI Spark only); "
        f"{m.seconds:.1f} s, of which Spark {m.spark_seconds:.1f} s"
    )
    return lines


# --------------------------------------------------------------------------------------------------
# the tests


@pytest.fixture(scope="module")
def measured(corpus_env: CorpusEnv) -> Iterator[Measured]:
    m = measure(corpus_env)
    DIRECTION_LINES[:] = table(m)
    for w in m.wrong:
        DIRECTION_LINES.append(f"  WRONG {w.direction} {w.case} ({w.mode}): {w.detail}")
    print("\n".join(DIRECTION_LINES))
    path = os.environ.get("ICEVIEW_DIRECTIONS_RECORD")
    if path:
        wrong = [w.__dict__ | {"rows": [repr(w.rows[0]), repr(w.rows[1])]} for w in m.wrong]
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"outcomes": m.outcomes, "wrong": wrong, "seconds": m.seconds}, f, indent=1)
    yield m


def test_corpora() -> None:
    for source, cases in SOURCES.items():
        assert len(cases) >= 80, source
        assert len({c.name for c in cases}) == len(cases), source
        assert sum("edge_events" in c.sql for c in cases) >= 20, source
        targets = {"spark", "trino", "duckdb"} - {source}
        for c in cases:
            sqlglot.parse_one(c.sql, read=source)
            assert set(k for k, v in c.expect.items() if v is not None) <= targets, c.name
    # the Spark corpus carries the equivalence corpus's SQL
    spark = {c.name: c.sql for c in SPARK_CASES}
    assert all(spark.get(c.name) == c.sql for c in CASES if c.name not in READS_A_VIEW)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_direction_outcomes(measured: Measured, source: str) -> None:
    """Every case comes to the outcome it records (a wrong translation fails the next test)."""
    mismatches = []
    for c in SOURCES[source]:
        for target, got in measured.outcomes[source][c.name].items():
            want = c.expect.get(target)
            if got != want and WRONG not in _parts(got):
                mismatches.append(f"{source}->{target} {c.name}: expected {want}, got {got}")
    assert not mismatches, "\n".join(mismatches)


def _head(rows: Rows | None) -> str:
    if rows is None:
        return "(raises)"
    more = f" ... ({len(rows)} rows)" if len(rows) > 12 else ""
    return repr(rows[:12]) + more


def test_no_wrong_translation(measured: Measured) -> None:
    """No translation gives other rows than its source, raises where its source does not, or (into
    Trino) is not Trino SQL."""
    wrong = [
        f"{w.direction} {w.case} ({w.mode}): {w.detail}\n  source: {w.source_sql}\n  translation: "
        f"{w.translation}\n  rows: {_head(w.rows[0])}\n  against: {_head(w.rows[1])}"
        for w in measured.wrong
    ]
    assert not wrong, "\n".join(wrong)
