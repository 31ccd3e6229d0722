"""Rules found by outsiders' queries between Spark and DuckDB, in both directions
(``tests/translate/edge_regressions.py``): what the two engines compute differently for nested
values, implicit casts in ``IN``, ``IN (subquery)``, values turned into text, time zones, and the
syntax only DuckDB reads.

* Ordering arrays and structs (``ORDER BY``, window orders, ``min``/``max``, ``<``): the engines
  place NULL elements and NULL fields differently, and the query's ``NULLS FIRST/LAST`` does not
  reach inside the value.
* ``x IN ('01', ...)`` of a number, decimal or date against text: legacy Spark compares the text
  forms, ANSI Spark and DuckDB convert the text.
* ``x IN (SELECT ...)`` where the subquery yields NULL and nothing matches: Spark 3.5 gives FALSE
  (``NOT IN`` too), DuckDB NULL. As a filter (a conjunct of ``WHERE``/``HAVING``) both drop the row.
* A double or a ``TIMESTAMP`` turned into text by ``concat``/``||``/``concat_ws``: ``1.0E300``,
  ``NaN``, ``Infinity`` and the session time zone's time in Spark; ``1e+300``, ``nan``, ``inf``
  and an offset in DuckDB.
* ``TIMESTAMP`` (with time zone) against ``TIMESTAMP_NTZ``, ``date_trunc`` of a ``TIMESTAMP``:
  each engine reads the value in its own session time zone and resolves a repeated hour its way.
"""

from __future__ import annotations

from sqlglot import exp

from iceview.sql.translate.checks import TEXT, type_of
from iceview.sql.translate.checks import kind_of as _kind
from iceview.sql.translate.policy import Check, Context, Refuse, predicate

_T = exp.DataType.Type
NESTED = frozenset({_T.ARRAY, _T.STRUCT, _T.MAP})
_ZONED = frozenset({_T.TIMESTAMPTZ, _T.TIMESTAMPLTZ})


def zoned_kinds(ctx: Context) -> frozenset[exp.DType]:
    """The timestamp types with a time zone: Spark's ``TIMESTAMP`` is one, DuckDB's is not."""
    return _ZONED | {_T.TIMESTAMP} if ctx.source == "spark" else _ZONED


def _nested_ordering(node: exp.Expr, ctx: Context) -> None:
    operands = (
        [node.this] if isinstance(node, (exp.Ordered, exp.Min, exp.Max)) else list(node.iter_expressions())
    )
    if any(_kind(o) in NESTED for o in operands):
        ctx.add(
            "nested-ordering",
            node,
            "arrays and structs are ordered differently: NULL elements and NULL fields sort first in Spark and last "
            "in DuckDB, and NULLS FIRST/LAST does not reach inside the value (order by their elements or fields)",
        )


NESTED_ORDERING = Check("ordering of scalar values", (_nested_ordering,), ("nested-ordering",))


def _in_text_literals(node: exp.Expr, ctx: Context) -> None:
    value = _kind(node.this)
    if value is None or value in TEXT:
        return
    for item in node.expressions:
        if (isinstance(item, exp.Literal) and item.is_string) or _kind(item) in TEXT:
            ctx.add(
                "implicit-cast",
                node,
                "IN of a non-text value against text: legacy Spark compares the text forms ('01' is not 1, "
                "'2024-2-29' is not the date), ANSI Spark and DuckDB convert the text (write a literal of the value's type)",
            )
            return


IN_TEXT_LITERALS = Check("IN with values of the same type", (_in_text_literals,), ("implicit-cast",))


def _filter_position(node: exp.Expr) -> bool:
    """Whether a predicate's value only filters rows: a conjunct (possibly under one NOT, for
    ``NOT IN``) of ``WHERE`` or ``HAVING``, where FALSE and NULL both drop the row."""
    child, parent = node, node.parent
    if isinstance(parent, exp.Not):
        child, parent = parent, parent.parent
    while isinstance(parent, (exp.And, exp.Paren)):
        child, parent = parent, parent.parent
    return isinstance(parent, (exp.Where, exp.Having)) and child.arg_key == "this"


def _in_subquery(node: exp.Expr, ctx: Context) -> None:
    if node.args.get("query") is None:
        return
    if node.this.find(exp.Null) is not None:
        ctx.add(
            "in-subquery-null",
            node,
            "a value holding a NULL literal IN (SELECT ...): Spark folds it to NULL even when the subquery "
            "is empty, where the others give FALSE (test the value IS NULL instead)",
        )
        return
    if _filter_position(node):
        return
    ctx.add(
        "in-subquery-null",
        node,
        "x IN (SELECT ...) where the subquery yields NULL and nothing matches: Spark gives FALSE (NOT IN too), "
        "DuckDB NULL; translated only as a filter (a conjunct of WHERE or HAVING), or write EXISTS",
    )


IN_SUBQUERY = Check("IN (subquery) as a filter", (_in_subquery,), ("in-subquery-null",))

_SAME_TEXT = frozenset({*TEXT, _T.TINYINT, _T.SMALLINT, _T.INT, _T.BIGINT, _T.DECIMAL, _T.DATE, _T.BOOLEAN})
_SAME_TEXT_SPARK_DUCKDB = _SAME_TEXT | {_T.TIMESTAMPNTZ}


def _text_forms(args: list[exp.Expr], node: exp.Expr, ctx: Context, *, arrays: bool) -> None:
    for arg in args:
        if isinstance(arg, exp.Literal) and arg.is_string:
            continue
        t = type_of(arg)
        if arrays and t is not None and t.this == _T.ARRAY and t.expressions:
            t = t.expressions[0] if isinstance(t.expressions[0], exp.DataType) else None
        if t is None or t.this not in _SAME_TEXT_SPARK_DUCKDB:
            kind = "of unknown type" if t is None else t.this.value
            ctx.add(
                "concat-text",
                node,
                f"concat of a value {kind}: Spark writes doubles as 1.0E300, NaN, Infinity and a TIMESTAMP in the "
                "session time zone, DuckDB as 1e+300, nan, inf and with an offset (CAST it to a decimal, or format it)",
            )
            return


def _concat_text(node: exp.Expr, ctx: Context) -> None:
    if isinstance(node, exp.ConcatWs):
        _text_forms(node.expressions[1:], node, ctx, arrays=True)
    elif isinstance(node, exp.Concat):
        _text_forms(node.expressions, node, ctx, arrays=False)
    else:
        _text_forms([node.this, node.expression], node, ctx, arrays=False)


CONCAT_TEXT = Check("concat of values with the same text form", (_concat_text,), ("concat-text",))


def _zoned_comparison(node: exp.Expr, ctx: Context) -> None:
    kinds = {_kind(node.this), _kind(node.expression)}
    naive = {_T.TIMESTAMPNTZ, _T.DATE} | ({_T.TIMESTAMP} if ctx.source != "spark" else set())
    if kinds & zoned_kinds(ctx) and kinds & naive:
        ctx.add(
            "time-zone",
            node,
            "comparing a TIMESTAMP (with time zone) with a TIMESTAMP_NTZ or DATE converts it in the session "
            "time zone, each engine in its own (and a repeated hour resolves differently)",
        )


ZONED_COMPARISON = Check("comparison within one kind of timestamp", (_zoned_comparison,), ("time-zone",))


def _zoned_trunc(node: exp.Expr, ctx: Context) -> None:
    k = _kind(node.this)
    unit = node.args.get("unit")
    name = unit.name.upper() if isinstance(unit, (exp.Literal, exp.Var)) else ""
    if k in zoned_kinds(ctx) or k is None:
        ctx.add(
            "time-zone",
            node,
            "date_trunc of a TIMESTAMP (or untyped value) truncates in the session time zone, each engine in its own",
        )
    elif k == _T.TIMESTAMPNTZ and name in ("HOUR", "MINUTE", "SECOND"):
        ctx.add(
            "time-zone",
            node,
            "Spark truncates a TIMESTAMP_NTZ to the hour through the session time zone (a time in a daylight-saving "
            "gap moves an hour); DuckDB does not",
        )


ZONED_TRUNC = Check("date_trunc of a date or TIMESTAMP_NTZ", (_zoned_trunc,), ("time-zone",))


# --------------------------------------------------------------------------------------------------
# DuckDB's own syntax, which sqlglot passes through unchanged and Spark cannot parse

BY_NAME = predicate("UNION BY NAME", exp.SetOperation, lambda n, _: bool(n.args.get("by_name")))
ASOF_JOIN = predicate(
    "ASOF JOIN", exp.Join, lambda n, _: str(n.args.get("method") or "").upper() in ("ASOF", "POSITIONAL")
)
RECURSIVE_CTE = predicate("WITH RECURSIVE", exp.With, lambda n, _: bool(n.args.get("recursive")))
SIMILAR_TO = predicate("SIMILAR TO", exp.SimilarTo)
GLOB = predicate("GLOB", exp.Glob)
QUANTIFIED_SUBQUERY = predicate("ANY/ALL (subquery)", (exp.Any, exp.All))

DUCKDB_SYNTAX = (
    (
        BY_NAME,
        Refuse("by-name", "Spark 3.5 has no UNION/INTERSECT/EXCEPT BY NAME (list the columns in order)"),
    ),
    (ASOF_JOIN, Refuse("asof-join", "Spark has no ASOF or POSITIONAL JOIN")),
    (RECURSIVE_CTE, Refuse("recursive-cte", "Spark 3.5 has no WITH RECURSIVE")),
    (SIMILAR_TO, Refuse("similar-to", "Spark has no SIMILAR TO (its RLIKE is a Java regular expression)")),
    (GLOB, Refuse("glob", "Spark has no GLOB (write LIKE with % and _)")),
    (
        QUANTIFIED_SUBQUERY,
        Refuse(
            "quantified-subquery",
            "Spark 3.5 has no = ANY / > ALL (subquery) (write IN, EXISTS or compare with max/min)",
        ),
    ),
)
"""DuckDB-only syntax and its refusal into Spark."""
