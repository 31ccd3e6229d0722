"""Runs generated queries differentially: the query in its source engine, its translation
(``iceview.sql.translate``, ``strict=True``) in the target, the rows compared by type
(``translate/typed_rows.py``). A *leg* is one direction in one Spark mode: Spark -> DuckDB with
``spark.sql.ansi.enabled`` false and true (Spark is the source), DuckDB -> Spark with the mode of the
Spark that reads the view false and true. Both engines run in ``America/Los_Angeles``.

A query the source engine rejects is skipped (counted). A translation that is refused is counted by
its codes. When the mode-free translation (``spark_ansi=None``) is refused, the translation for the
leg's mode is tried (as ``test_edge.py`` does). A translation that gives other rows, or fails where
the source returned rows, is a *mismatch*: it is shrunk (:func:`shrink`, a greedy delta-reduction
over the sqlglot tree that keeps the query failing the same way) and recorded.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from translate.generated.data import CATALOG, GEN, NAME, NAMESPACE, ZONE, duckdb_connection, spark_frame
from translate.generated.grammar import Gen
from translate.generated.trino_engine import TYPE_NAMES, NotAViewType, iceberg_type, spark_iceberg_type
from translate.typed_rows import (
    DuckdbNotAViewType,
    SparkNotAViewType,
    map_entries,
    rows_differ,
    spark_type_of,
    spark_type_to_duckdb,
)

LEGS: tuple[tuple[str, str, str], ...] = (
    ("spark", "duckdb", "false"),
    ("spark", "duckdb", "true"),
    ("duckdb", "spark", "false"),
    ("duckdb", "spark", "true"),
)
"""(source, target, spark.sql.ansi.enabled)."""

TRINO_LEGS: tuple[tuple[str, str, str], ...] = (
    ("spark", "trino", "false"),
    ("spark", "trino", "true"),
    ("trino", "spark", "false"),
    ("trino", "spark", "true"),
    ("duckdb", "trino", "none"),
    ("trino", "duckdb", "none"),
)
"""The legs with Trino (``trino_engine.py``); between DuckDB and Trino no Spark mode applies. A
Trino query is a generated Spark or DuckDB query translated into Trino (``Gen`` writes no Trino)."""


def leg_name(leg: tuple[str, str, str]) -> str:
    return f"{leg[0]}->{leg[1]} ansi={leg[2]}"


@dataclass
class Verdict:
    status: str  # source-error | not-a-view | refused | equal | mismatch
    sql: str
    translation: str = ""
    spark_ansi: bool | None = None
    codes: tuple[str, ...] = ()
    source_rows: list[Any] | None = None
    target_rows: list[Any] | None = None
    detail: str = ""

    @property
    def kind(self) -> str:
        """How a mismatch shows: other rows, or an error in the target."""
        return "target-error" if self.target_rows is None else "rows"

    @property
    def signature(self) -> str:
        """What shrinking keeps: the kind, and for an error its class (Spark's error class,
        DuckDB's error type), so that a query is not shrunk into another bug."""
        if self.target_rows is not None:
            return "rows"
        found = re.search(r"\[([A-Z_.]+)\]|raises: (\w+ Error)", self.detail)
        return "target-error:" + (next(g for g in found.groups() if g) if found else self.detail[:40])


@dataclass
class Mismatch:
    leg: str
    query: str
    translation: str
    spark_ansi: bool | None
    kind: str
    detail: str
    source_rows: str
    target_rows: str
    constructs: list[str]
    shape: str
    seed: int
    original: str
    shrunk: bool


@dataclass
class Stats:
    generated: int = 0
    ran_in_source: int = 0
    source_errors: int = 0
    not_a_view: int = 0
    translated: int = 0
    refused: int = 0
    equal: int = 0
    mismatched: int = 0
    no_trino_text: int = 0
    """Generated for a Trino leg, but not translatable into Trino (so no Trino query)."""
    refusals: Counter[str] = field(default_factory=Counter)

    def line(self, name: str) -> str:
        codes = ", ".join(f"{c} {n}" for c, n in self.refusals.most_common())
        trino = f" (no Trino text {self.no_trino_text})" if self.no_trino_text else ""
        return (
            f"{name}: generated {self.generated}{trino}, ran in source {self.ran_in_source} "
            f"(source errors {self.source_errors}, not a view type {self.not_a_view}), "
            f"translated {self.translated}, refused {self.refused}, equal {self.equal}, "
            f"mismatched {self.mismatched}; refusals: {codes}"
        )


_SETTINGS = {
    "spark.sql.session.timeZone": ZONE,
    # the cached frame's batch statistics ignore NaN, so a filter such as d >= 1e3 prunes a batch
    # whose only match is NaN: a wrong row of the test's cache, not of Spark on an Iceberg table
    "spark.sql.inMemoryColumnarStorage.partitionPruning": "false",
}


class Engines:
    """The Spark session (the table as temp view ``t``, session zone :data:`ZONE`) and a DuckDB
    connection (the table as ``edge.db.t``, zone :data:`ZONE`)."""

    def __init__(self, spark: Any, trino: Any = None) -> None:
        self.spark = spark
        self.trino = trino  # a trino_engine.Trino, for TRINO_LEGS
        self._saved = {k: spark.conf.get(k) for k in (*_SETTINGS, "spark.sql.ansi.enabled")}
        for k, v in _SETTINGS.items():
            spark.conf.set(k, v)
        self.frame = spark_frame(spark).cache()
        self.frame.count()
        self.frame.createOrReplaceTempView("t")
        self.con = duckdb_connection()

    def close(self) -> None:
        self.spark.catalog.dropTempView("t")
        self.frame.unpersist()
        for k, v in self._saved.items():
            self.spark.conf.set(k, v)
        self.con.close()

    def mode(self, ansi: str) -> None:
        if ansi in ("true", "false"):
            self.spark.conf.set("spark.sql.ansi.enabled", ansi)

    # ------------------------------------------------------------------------------------------

    def spark_rows(self, sql: str) -> tuple[Any, list[tuple[Any, ...]]]:
        df = self.spark.sql(sql)
        return df.schema.fields, [tuple(r) for r in df.collect()]

    def duck_rows(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        rel = self.con.sql(sql)
        types = [str(t) for t in rel.types]
        table = rel.arrow()
        if hasattr(table, "read_all"):
            table = table.read_all()
        return types, list(zip(*[c.to_pylist() for c in table.columns], strict=True))


def _translate(sql: str, source: str, target: str, ansi: bool | None) -> str:
    return translate(
        sql,
        source,
        target,
        default_catalog=CATALOG,
        default_namespace=[NAMESPACE],
        schemas={NAME: GEN},
        spark_ansi=ansi,
        strict=True,
    ).sql


def trino_text(sql: str, source: str) -> str | None:
    """A generated ``source`` query as a Trino query (its translation), or None when refused."""
    try:
        return _translate(sql, source, "trino", None)
    except TranslationError:
        return None


def translation_of(
    sql: str, source: str, target: str, ansi: str
) -> tuple[str | None, bool | None, tuple[str, ...]]:
    """The translation (mode-free, else for the leg's mode), the ``spark_ansi`` it was made with,
    and the refusal codes when there is none."""
    codes: tuple[str, ...] = ()
    for mode in (None, ansi == "true") if ansi in ("true", "false") else (None,):
        try:
            return _translate(sql, source, target, mode), mode, ()
        except UnsafeTranslationError as e:
            codes = tuple(sorted(set(e.codes)))
            if codes == ("does-not-bind",):
                break
        except TranslationError as e:
            codes = (f"error: {str(e)[:80]}",)
            break
    return None, None, codes


def _spark_of(out: str) -> str:
    from translate.test_edge_duckdb import spark_sql_of

    return spark_sql_of(out)


def _error(e: Exception) -> str:
    """An engine's error in a line: Spark's error class and message where py4j wraps them."""
    text = str(e)
    found = re.search(r"\[[A-Z_.]+\][^\n]*", text)
    line = found.group(0) if found else (text.splitlines() or [type(e).__name__])[0]
    return line[:300] or type(e).__name__


def _cast_projections(sql: str, types: list[str]) -> str:
    """A Trino query with each projection cast to the view's type, keeping its name (an ORDER BY
    of a name then orders by the cast value: the same order for these types)."""
    tree = sqlglot.parse_one(sql, read="trino")
    if not isinstance(tree, exp.Select) or len(tree.expressions) != len(types):
        return sql
    cast = []
    for k, projection in enumerate(tree.expressions):
        value = projection.this if isinstance(projection, exp.Alias) else projection
        to = exp.DataType.build(types[k], dialect="trino")
        cast.append(exp.alias_(exp.Cast(this=value.copy(), to=to), projection.alias_or_name or f"_c{k}"))
    tree.set("expressions", cast)
    return tree.sql(dialect="trino")


def _ordered(sql: str, dialect: str) -> bool:
    tree = sqlglot.parse_one(sql, read=dialect)
    return isinstance(tree, exp.Select) and tree.args.get("order") is not None


def _source_rows(
    engines: Engines, source: str, target: str, sql: str
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The query's rows in ``source``, and the types of its columns in ``target``'s names (the
    view's column types, which the translation's columns are cast to)."""
    if source == "spark":
        fields, rows = engines.spark_rows(sql)
        if target == "duckdb":
            return [spark_type_to_duckdb(f.dataType) for f in fields], rows
        return [TYPE_NAMES[target](spark_iceberg_type(f.dataType)) for f in fields], rows
    if source == "duckdb":
        duck_types, rows = engines.duck_rows(sql)
        if target == "spark":
            return [spark_type_of(t) for t in duck_types], rows
        return [TYPE_NAMES[target](iceberg_type(t, "duckdb")) for t in duck_types], rows
    trino_types, rows = engines.trino.rows(sql)
    return [TYPE_NAMES[target](iceberg_type(t, "trino")) for t in trino_types], rows


def check(
    engines: Engines, leg: tuple[str, str, str], sql: str, *, mode: bool | str | None = "any"
) -> Verdict:
    """One query's verdict in ``leg`` (``engines`` already in the leg's mode). ``mode`` pins the
    ``spark_ansi`` of the translation (while shrinking: the one the mismatch was found with)."""
    source, target, ansi = leg
    try:
        types, rows = _source_rows(engines, source, target, sql)
    except (SparkNotAViewType, DuckdbNotAViewType, NotAViewType) as e:
        return Verdict("not-a-view", sql, detail=str(e))
    except Exception as e:
        return Verdict("source-error", sql, detail=str(e).splitlines()[0][:200])
    maps = frozenset(k for k, t in enumerate(types) if t.upper().startswith("MAP"))
    if mode == "any":
        out, used, codes = translation_of(sql, source, target, ansi)
    else:
        try:
            out, used, codes = _translate(sql, source, target, mode), mode, ()  # type: ignore[arg-type]
        except TranslationError as e:
            out, used, codes = None, None, tuple(getattr(e, "codes", ("error",)))
    if out is None:
        return Verdict("refused", sql, codes=codes, source_rows=rows)
    ordered = _ordered(sql, source)
    names = [f"__c{k}" for k in range(len(types))]
    casts = ", ".join(f"CAST({n} AS {t}) AS {n}" for n, t in zip(names, types, strict=True))
    try:
        if target == "duckdb":
            _, got = engines.duck_rows(f"SELECT {casts} FROM ({out}) AS __v({', '.join(names)})")
        elif target == "trino" and ordered:  # Trino drops a subquery's ORDER BY: cast in place
            _, got = engines.trino.rows(_cast_projections(out, types))
        elif target == "trino":
            _, got = engines.trino.rows(f"SELECT {casts} FROM ({out}) AS __v({', '.join(names)})")
        else:
            _, got = engines.spark_rows(f"SELECT {casts} FROM ({_spark_of(out)}) AS __v({', '.join(names)})")
    except Exception as e:
        return Verdict(
            "mismatch",
            sql,
            out,
            used,
            source_rows=rows,
            detail=f"{target} raises: {_error(e)}",
        )
    a = [tuple(map_entries(v, maps, k, source != "duckdb") for k, v in enumerate(r)) for r in rows]
    b = [tuple(map_entries(v, maps, k, target != "duckdb") for k, v in enumerate(r)) for r in got]
    diff = rows_differ(a, b, ordered)
    if diff is None:
        return Verdict("equal", sql, out, used, source_rows=rows, target_rows=got)
    return Verdict(
        "mismatch",
        sql,
        out,
        used,
        source_rows=rows,
        target_rows=got,
        detail=f"{source}, {target}: {diff!r}"[:600],
    )


# --------------------------------------------------------------------------------------------------
# shrinking


def _candidates(tree: exp.Expr) -> list[exp.Expr]:
    """Trees one step smaller than ``tree``: a clause dropped, a projection dropped, a set
    operation replaced by one side, an expression replaced by one of its operands or by a simpler
    literal, a CASE branch dropped."""
    out: list[exp.Expr] = []
    if isinstance(tree, exp.SetOperation):
        out += [tree.left.copy(), tree.right.copy()]
    count = sum(1 for _ in tree.walk())
    for index in range(count):
        for edit in range(8):
            copy = tree.copy()
            node = next(n for k, n in enumerate(copy.walk()) if k == index)
            if _edit(node, edit):
                out.append(copy)
    return out


_VALUE = (exp.Identifier, exp.DataType, exp.Var, exp.Star, exp.Table, exp.TableAlias, exp.Window)
_CLAUSE = (
    exp.From,
    exp.Where,
    exp.Having,
    exp.Group,
    exp.Order,
    exp.Limit,
    exp.Join,
    exp.Pivot,
    exp.Subquery,
)


def _edit(node: exp.Expr, edit: int) -> bool:
    if isinstance(node, exp.Select):
        arg = ("where", "having", "order", "limit", "group", "joins", "distinct", None)[edit]
        if arg is not None and node.args.get(arg):
            node.set(arg, None)
            return True
        return False
    if isinstance(node, exp.SetOperation):
        if edit < 2 and node.parent is not None:  # the root's sides: _candidates
            node.replace((node.left if edit == 0 else node.right).copy())
            return True
        return False
    parent = node.parent
    if parent is None or isinstance(node, _VALUE + _CLAUSE) or isinstance(parent, (exp.DataType, exp.Window)):
        return False
    if isinstance(parent, exp.Select) and node in parent.expressions:
        if edit == 0 and len(parent.expressions) > 1:
            node.pop()
            return True
        return False
    if isinstance(node, exp.If) and isinstance(parent, exp.Case):
        if edit == 0 and len(parent.args.get("ifs") or []) > 1:
            node.pop()
            return True
        return False
    if isinstance(node, exp.Case) and edit == 7 and node.args.get("default") is not None:
        node.set("default", None)
        return True
    if isinstance(node, exp.Literal):
        # a literal of the same kind: a number stays a number, a string a string
        options = ("1", "0") if not node.is_string else ("a", "")
        simpler = None
        if edit < len(options):
            simpler = (
                exp.Literal.string(options[edit]) if node.is_string else exp.Literal.number(options[edit])
            )
        if simpler is not None and node.sql() != simpler.sql():
            node.replace(simpler)
            return True
        return False
    if isinstance(node, exp.Null):
        return False
    children = [
        c for c in node.iter_expressions() if not isinstance(c, _VALUE) and not isinstance(c, exp.Null)
    ]
    if edit < len(children) and edit < 6:
        node.replace(children[edit].copy())
        return True
    if edit == 6 and not isinstance(node, (exp.Column, exp.Subquery, exp.Alias)):
        node.replace(exp.Null())
        return True
    return False


def shrink(
    engines: Engines, leg: tuple[str, str, str], found: Verdict, seconds: float = 20.0, checks: int = 150
) -> tuple[Verdict, bool]:
    """A smaller query that fails the same way (a mismatch of the same kind, the translation made
    with the same ``spark_ansi``), by greedy steps until none helps or the budget is spent; and
    whether it got to a fixpoint."""
    source = leg[0]
    best = found
    deadline = time.monotonic() + seconds
    seen: set[str] = {found.sql}
    spent = 0
    improved = True
    while improved:
        improved = False
        tree = sqlglot.parse_one(best.sql, read=source)
        options = []
        for cand in _candidates(tree):
            try:
                text = cand.sql(dialect=source)
            except Exception:
                continue
            if text not in seen and len(text) < len(best.sql):
                seen.add(text)
                options.append(text)
        options.sort(key=len)
        for text in options:
            if time.monotonic() > deadline or spent >= checks:
                return best, False
            spent += 1
            v = check(engines, leg, text, mode=best.spark_ansi)
            if v.status == "mismatch" and v.signature == best.signature:
                best = v
                improved = True
                break
    return best, True


# --------------------------------------------------------------------------------------------------


_BORING = {
    "Select", "From", "Table", "TableAlias", "Identifier", "Column", "Alias", "Literal", "Where", "Paren",
    "Subquery", "DataType", "Null", "Boolean", "Var", "Star", "Dot", "Ordered", "Order", "Limit", "Group",
}  # fmt: skip


def constructs_of(sql: str, dialect: str) -> list[str]:
    return sorted({type(n).__name__ for n in sqlglot.parse_one(sql, read=dialect).walk()} - _BORING)


def _show(rows: list[Any] | None) -> str:
    return "raises" if rows is None else repr(rows)[:800]


def run_leg(
    engines: Engines,
    leg: tuple[str, str, str],
    seed: int,
    *,
    seconds: float,
    max_queries: int,
    shrink_seconds: float = 20.0,
    max_shrinks: int = 10,
    shapes: tuple[str, ...] = (),
) -> tuple[Stats, list[Mismatch]]:
    """Generate and check queries in ``leg`` from ``seed`` until the time or the count is spent;
    mismatches are shrunk (the first ``max_shrinks``; later ones are recorded as found)."""
    source, target, ansi = leg
    engines.mode(ansi)
    rng = random.Random(f"{seed}:{leg_name(leg)}")
    gens = [Gen(rng, base, target) for base in (("spark", "duckdb") if source == "trino" else (source,))]
    stats = Stats()
    mismatches: list[Mismatch] = []
    minimal: set[str] = set()
    signatures: set[tuple[str, str, tuple[str, ...]]] = set()
    deadline = time.monotonic() + seconds
    while stats.generated < max_queries and time.monotonic() < deadline:
        gen = gens[0] if len(gens) == 1 else rng.choice(gens)  # one: the seeds' queries as before
        sql, shape = gen.query(shapes)
        stats.generated += 1
        if source == "trino":
            trino_sql = trino_text(sql, gen.source)
            if trino_sql is None:
                stats.no_trino_text += 1
                continue
            sql = trino_sql
        v = check(engines, leg, sql)
        if v.status == "source-error":
            stats.source_errors += 1
            continue
        if v.status == "not-a-view":
            stats.not_a_view += 1
            continue
        stats.ran_in_source += 1
        if v.status == "refused":
            stats.refused += 1
            stats.refusals.update(v.codes)
            continue
        stats.translated += 1
        if v.status == "equal":
            stats.equal += 1
            continue
        stats.mismatched += 1
        # a query like one already shrunk (its shape, how it fails, its constructs) is counted only
        # (a PIVOT's parts are few: its shape and how it fails say enough)
        signature = (shape, v.signature, () if shape == "pivot" else tuple(constructs_of(sql, source)))
        if signature in signatures:
            continue
        signatures.add(signature)
        small, done = v, False
        if len(mismatches) < max_shrinks:
            small, done = shrink(engines, leg, v, seconds=shrink_seconds)
        if small.sql in minimal:
            continue
        minimal.add(small.sql)
        mismatches.append(
            Mismatch(
                leg=leg_name(leg),
                query=small.sql,
                translation=small.translation,
                spark_ansi=small.spark_ansi,
                kind=small.kind,
                detail=small.detail,
                source_rows=_show(small.source_rows),
                target_rows=_show(small.target_rows),
                constructs=constructs_of(small.sql, source),
                shape=shape,
                seed=seed,
                original=sql,
                shrunk=done,
            )
        )
    return stats, mismatches


def as_json(m: Mismatch) -> dict[str, Any]:
    return asdict(m)
