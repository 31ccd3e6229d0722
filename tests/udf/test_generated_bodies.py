"""Function bodies are translated by the same rules as views, proven by the translation generator.

The generator (tests/translate/generated) draws Spark expressions over its edge table from what the
rules table lets through from Spark to DuckDB. Each drawn expression E becomes the Spark body of a
SQL UDF whose parameters are the columns it reads, with their types, and whose return type is E's
drawn type R. DuckDB then runs ``SELECT f(columns)`` (the body translated and inlined) and the view
translation of ``SELECT CAST(E AS R)``, on the same rows: both give the same rows, or both are
refused. Seeds and counts are fixed and bounded: DuckDB only, a few seconds.

Table function bodies (queries) are proven the same way: E, with one of its columns read from a
parameter instead, becomes the Spark body ``SELECT id, CAST(E AS R) AS r FROM <table> WHERE id >= lo``
of a table function, which DuckDB calls once per row (``LATERAL tf(0, g.c)``, the row's own value):
its rows must be the view translation's.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlglot
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
    TimestamptzType,
)
from sqlglot import exp

from iceview.errors import FunctionInliningError, TranslationError
from iceview.sql import translate
from iceview.sql.inline import FunctionInliner
from iceview.sql.types import type_namer
from iceview.udf import (
    DefinitionVersion,
    FunctionMetadataBuilder,
    FunctionParameter,
    SQLRepresentation,
    parse_type,
)

duckdb = pytest.importorskip("duckdb")
from translate.generated.data import CATALOG, GEN, NAME, NAMESPACE, TABLE, duckdb_connection  # noqa: E402
from translate.generated.grammar import COMPARABLE, Gen  # noqa: E402

SEEDS = (11, 12)
PER_SEED = 40

TAG_TYPES = {
    "int": "int",
    "bigint": "long",
    "dec0": "decimal(5,0)",
    "dec2": "decimal(10,2)",
    "dec10": "decimal(38,10)",
    "dec38": "decimal(38,0)",
    "float": "float",
    "double": "double",
    "string": "string",
    "date": "date",
    "ts": "timestamp",
    "tstz": "timestamptz",
    "bool": "boolean",
}
SPARK_NAMES = {
    "int": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "string": "STRING",
    "date": "DATE",
    "timestamp": "TIMESTAMP_NTZ",
    "timestamptz": "TIMESTAMP",
    "boolean": "BOOLEAN",
}
ICEBERG_TO_UDF = {
    IntegerType: "int",
    LongType: "long",
    FloatType: "float",
    DoubleType: "double",
    StringType: "string",
    DateType: "date",
    TimestampType: "timestamp",
    TimestamptzType: "timestamptz",
    BooleanType: "boolean",
}


def _udf_type(field_type: Any) -> str | None:
    if isinstance(field_type, DecimalType):
        return f"decimal({field_type.precision},{field_type.scale})"
    return ICEBERG_TO_UDF.get(type(field_type))


COLUMN_TYPES = {f.name: _udf_type(f.field_type) for f in GEN.fields}


def _spark_name(udf_type: str) -> str:
    if udf_type.startswith("decimal"):
        return udf_type.upper().replace(",", ", ")
    return SPARK_NAMES[udf_type]


def _draws() -> Iterator[tuple[int, str, str]]:
    for seed in SEEDS:
        gen = Gen(random.Random(seed), "spark", "duckdb", mixed=0.0)
        for k in range(PER_SEED):
            expr, tag = gen.expr(random.Random(seed * 1000 + k).choice(COMPARABLE), 2)
            yield seed * 1000 + k, expr, tag


def _function(params: list[tuple[str, str]], returns: Any, body: str, function_type: str = "udf") -> Any:
    version = DefinitionVersion(1, (SQLRepresentation("spark", body),), int(time.time() * 1000))
    builder = FunctionMetadataBuilder().set_location("s3://b/f")
    builder.add_definition(
        [FunctionParameter(n, parse_type(t)) for n, t in params],
        parse_type(returns),
        version,
        function_type=function_type,
    )
    return builder.build()


def _rows(con: Any, sql: str) -> list[tuple[Any, ...]]:
    def value(v: Any) -> Any:
        return "NaN" if isinstance(v, float) and math.isnan(v) else v

    return [tuple(value(v) for v in row) for row in con.execute(sql).fetchall()]


@pytest.fixture(scope="module")
def con() -> Iterator[Any]:
    connection = duckdb_connection()
    try:
        yield connection
    finally:
        connection.close()


def _outcome(con: Any, sql: str | None) -> Any:
    if sql is None:
        return "refused"
    try:
        return _rows(con, sql)
    except duckdb.Error as e:
        return f"error: {type(e).__name__}"


def _view_translation(expr: str, returns: str, where: str = "") -> str | None:
    """The view translator's DuckDB SQL for ``SELECT id, CAST(expr AS returns)`` over the table, or
    None when it refuses."""
    view_sql = f"SELECT id, CAST({expr} AS {_spark_name(returns)}) AS r FROM {TABLE}{where} ORDER BY id"
    try:
        return translate(
            view_sql,
            "spark",
            "duckdb",
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: GEN},
            spark_ansi=False,
        ).sql
    except TranslationError:
        return None


class Tally:
    """Both ways' outcomes per case: compared (same rows or same error), refused by both, or a
    mismatch (rows differ, or one way refused)."""

    def __init__(self) -> None:
        self.compared = self.refused_both = 0
        self.mismatches: list[str] = []

    def add(self, con: Any, label: str, through_function: str | None, through_view: str | None) -> None:
        a, b = _outcome(con, through_function), _outcome(con, through_view)
        if a == "refused" and b == "refused":
            self.refused_both += 1
        elif a != b:
            self.mismatches.append(f"{label}\n  function: {str(a)[:300]}\n  view:     {str(b)[:300]}")
        else:
            self.compared += 1

    def check(self) -> None:
        assert not self.mismatches, "\n".join(self.mismatches)
        assert self.compared >= 25, (self.compared, self.refused_both)


def test_generated_bodies_give_the_rows_of_their_view_translation(con: Any) -> None:
    columns = {f.name: f for f in GEN.fields}
    types = {name: str(t) for name, t in zip(*_duck_types(con), strict=True)}
    tally = Tally()
    for case, expr, tag in _draws():
        tree = sqlglot.parse_one(f"SELECT {expr}", read="spark")
        used = sorted({c.name for c in tree.find_all(exp.Column)})
        if any(
            c.table or c.name not in columns or COLUMN_TYPES.get(c.name) is None
            for c in tree.find_all(exp.Column)
        ):
            continue  # struct fields, arrays and maps are not parameters here
        returns = TAG_TYPES[tag]
        params = [(name, str(COLUMN_TYPES[name])) for name in used]
        metadata = _function(params, returns, expr)
        inliner = FunctionInliner(
            lambda q, md=metadata: md if q == (CATALOG, NAMESPACE, "f") else None,
            known_catalogs={CATALOG},
            dialect="duckdb",
            column_types=lambda written: types if written[-1] == TABLE else None,
            spark_ansi=False,
        )
        call = f"SELECT id, {NAMESPACE}.f({', '.join(used)}) AS r FROM {TABLE} ORDER BY id"
        try:
            through_function: str | None = inliner.inline(call, catalog=CATALOG, namespace=(NAMESPACE,))
        except (FunctionInliningError, TranslationError):
            through_function = None
        tally.add(
            con, f"case {case}: {expr} -> {returns}", through_function, _view_translation(expr, returns)
        )
    tally.check()


def test_generated_table_bodies_give_the_rows_of_their_view_translation(con: Any) -> None:
    columns = {f.name: f for f in GEN.fields}
    namer = type_namer("duckdb")
    relation = {f.name: namer(f.field_type) for f in GEN.fields}
    tally = Tally()
    for case, expr, tag in _draws():
        tree = sqlglot.parse_one(f"SELECT {expr}", read="spark")
        used = sorted({c.name for c in tree.find_all(exp.Column)})
        if not used or any(
            c.table or c.name not in columns or COLUMN_TYPES.get(c.name) is None
            for c in tree.find_all(exp.Column)
        ):
            continue
        chosen = used[case % len(used)]
        for column in tree.find_all(exp.Column):
            if column.name == chosen:
                column.replace(exp.column("p_arg"))
        body_expr = tree.expressions[0].sql("spark")
        returns = TAG_TYPES[tag]
        metadata = _function(
            [("lo", "int"), ("p_arg", str(COLUMN_TYPES[chosen]))],
            {"type": "struct", "fields": [{"name": "id", "type": "int"}, {"name": "r", "type": returns}]},
            f"SELECT id, CAST({body_expr} AS {_spark_name(returns)}) AS r FROM {TABLE} WHERE id >= lo",
            "udtf",
        )
        inliner = FunctionInliner(
            lambda q, md=metadata: md if q == (CATALOG, NAMESPACE, "tf") else None,
            known_catalogs={CATALOG},
            dialect="duckdb",
            relation_types=lambda qualified: relation if qualified == NAME else None,
            spark_ansi=False,
        )
        call = (
            f"SELECT g.id, f.r FROM {TABLE} AS g, LATERAL {NAMESPACE}.tf(0, g.{chosen}) AS f "
            "WHERE f.id = g.id ORDER BY g.id"
        )
        try:
            through_function: str | None = inliner.expand_tables(
                call, catalog=CATALOG, namespace=(NAMESPACE,)
            )
        except (FunctionInliningError, TranslationError):
            through_function = None
        tally.add(
            con,
            f"case {case}: {body_expr} ({chosen} as p_arg) -> {returns}",
            through_function,
            _view_translation(expr, returns, " WHERE id >= 0"),
        )
    tally.check()


def _duck_types(con: Any) -> tuple[list[str], list[Any]]:
    relation = con.sql(f"SELECT * FROM {TABLE} LIMIT 0")
    return list(relation.columns), list(relation.types)
