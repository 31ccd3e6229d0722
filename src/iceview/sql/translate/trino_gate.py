"""Type signatures with Trino on one side, found by running Trino 476 (the generator's Trino legs,
issue 28): what :func:`trino_gate` refuses in every direction into or from Trino, read before any
rewrite, beside the rules table's rows (:mod:`.trino_rules`, :mod:`.trino_edges`).

* **REAL beside an integer or a decimal** (a literal ``0.1`` too) (arithmetic, comparison, ``IN``, ``COALESCE``, a set
  operation's column, ``ARRAY[...]``): Trino computes and converts in ``REAL``, Spark in ``DOUBLE``
  where a decimal is involved (and rounds ``FLOAT - BIGINT`` otherwise than Trino), DuckDB keeps
  ``FLOAT``. Refused (``type-signature``).
* **Decimals brought to one type beyond 38 digits**: Trino keeps the widest scale at 38 digits,
  DuckDB drops the scale (``DECIMAL(10, 2)`` beside ``DECIMAL(38, 0)`` is ``DECIMAL(38, 0)``), Spark
  lowers it. Refused (``decimal-precision``).
* **A date or a timestamp beside a timestamp with time zone**: Trino converts in the session zone,
  reads Iceberg's instants in UTC; the engines resolve the repeated hour their own way (``time-zone``).
* **From Spark**: decimal arithmetic beyond 38 digits (Spark lowers the scale, or in legacy mode
  returns NULL, Trino raises: ``decimal-overflow``).
* **Into Trino**, also: functions of a bare ``NULL`` (``substr(NULL, 3)``: Trino cannot choose an
  overload), ``GROUP BY`` an integer that is no position of the select list
  (``group-by-position``, new: Trino reads a position, Spark a constant); a date plus or minus a number (``date-add``) or minus a date (an interval in
  Trino: ``interval-result``), intervals in units Trino lacks (weeks, microseconds) or of several
  units (``interval-literal``), date fields of text (``implicit-cast``).
* **Into Trino**: numeric functions of text (Spark converts ``ceil('1.5')``), elements of an ``ARRAY[...]`` of different type families and text functions or
  ``sum``/``avg``/``count_if`` of a value of another type (Trino converts none of them,
  ``implicit-cast``); ``sum``/``avg`` of a bare ``NULL`` (Trino cannot choose the overload); fields
  of a ``TIMESTAMP WITH TIME ZONE`` (Trino reads them in the value's zone, UTC for Iceberg, Spark and
  DuckDB in the session's: ``time-zone``); ``round`` of a 38-digit decimal (Trino keeps the scale and
  raises when the value rounds up: ``decimal-overflow``); a correlated subquery whose correlation is a
  struct field (Trino: "Given correlated subquery is not supported": ``correlated-field``); sort keys
  of arrays, structs and maps (Trino refuses to order arrays holding NULLs: ``nested-ordering``);
  DuckDB's casts of text to dates and timestamps (DuckDB reads ``'infinity'`` and more forms:
  ``try-cast-text``).
* **From Trino**: a cast of a floating-point value to a decimal (Trino moves such casts out of a
  comparison, so ``-inf`` never reaches them; Spark and DuckDB fail or give NULL: ``cast-semantics``),
  of a ``DOUBLE`` to a ``REAL`` into DuckDB (Trino gives infinity beyond the range, DuckDB NULL), and
  casts to a ``TIMESTAMP`` without precision (Trino's holds milliseconds), and
  interval literals with more than three fraction digits of a second (Trino's intervals hold
  milliseconds, ``INTERVAL '0.000001' SECOND`` is zero there: ``interval-literal``).
* **From Trino**, ``CASE x WHEN x`` (Trino's optimizer folds it to true even for NULL:
  ``self-comparison``).
* **Either way** (an outside check's queries): casts of text to numbers, dates, timestamps and booleans
  (each engine accepts other forms: ``try-cast-text``); a decimal cast to text with Spark in legacy
  mode (``0E-10``: ``cast-semantics``); ``AT TIME ZONE`` and intervals added to a timestamp with time
  zone (Trino adds in the value's zone: ``time-zone``); intervals with sub-millisecond fractions;
  ``x IN (SELECT ...)`` as a value between Trino and Spark (``in-subquery-null``); ``x IN (..., NULL)``
  (Trino gives FALSE where the others give NULL: ``in-null``, new); comparisons of arrays, structs
  and maps (NULL elements: ``nested-ordering``); ``||`` of an array (``array-function``); casts to
  ``varchar(n)``/``char(n)`` (Trino cuts the text: ``cast-semantics``); ``contains(arr, NULL)``;
  ``RANGE`` frames with an offset and ``GROUPS`` frames (``range-frame``).
* **Either way**: ``min``/``max`` of floating-point values or of values whose type Spark's rules do
  not settle (``max(d + dec10)``: Trino's skip NaN: ``nan-ordering``); ``sum``/``avg`` of floating-point values (each engine adds in its own order: Spark
  gives ``12345719.010000007`` where Trino and DuckDB give ``...005``: ``floating-aggregate``).
"""

from __future__ import annotations

import re

from sqlglot import exp

from iceview.sql.translate.checks import FLOATS, INTEGERS, TEXT, kind_of
from iceview.sql.translate.edges import decimal_literal
from iceview.sql.translate.edges_both import IN_SUBQUERY, zoned_kinds
from iceview.sql.translate.policy import Context
from iceview.sql.translate.signatures import unification_operands
from iceview.sql.translate.spark_typing import Ty, Typer, int_as_decimal
from iceview.sql.translate.trino_edges import DECIMAL_WITHIN_38
from iceview.sql.translate.trino_sites import (
    ISO_DATE,
    NESTED,
    TIMES,
    correlated_fields,
    family,
    from_trino,
    into_trino,
)

__all__ = ["TRINO_GATE_CODES", "trino_gate"]

_T = exp.DataType.Type
_NUMBERS = INTEGERS | {_T.DECIMAL}
TRINO_GATE_CODES = frozenset(
    {
        "type-signature",
        "decimal-precision",
        "time-zone",
        "implicit-cast",
        "decimal-overflow",
        "correlated-field",
        "nested-ordering",
        "try-cast-text",
        "cast-semantics",
        "interval-literal",
        "floating-aggregate",
        "nan-ordering",
        "self-comparison",
        "in-null",
        "in-subquery-null",
        "date-add",
        "interval-result",
        "array-function",
        "array-contains-null",
        "group-by-position",
        "range-frame",
    }
)
"""The refusal codes of :func:`trino_gate`."""


def trino_gate(tree: exp.Expr, ctx: Context) -> None:
    """Refuse, in ``ctx``, every site of ``tree`` whose types Trino and the other engine treat
    differently (see the module). Does nothing unless Trino is the source or the target."""
    if "trino" not in (ctx.source, ctx.target) or ctx.source == ctx.target:
        return
    typer = Typer("spark" if ctx.source == "trino" else ctx.source, tree)
    into = ctx.target == "trino"
    for node in tree.walk():
        _unify(node, typer, ctx, into)
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
            _real_beside_number(node, [node.this, node.expression], ctx, "arithmetic")
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul)) and ctx.source == "spark":
            DECIMAL_WITHIN_38.apply(node, ctx)  # as from Trino into Spark (trino_rules)
        _either_way(node, ctx)
        if into:
            into_trino(node, typer, ctx)
        else:
            from_trino(node, typer, ctx)
        if isinstance(node, (exp.Stddev, exp.StddevPop, exp.StddevSamp, exp.Variance, exp.VariancePop)):
            ctx.add(
                "floating-aggregate",
                node,
                "standard deviation and variance: each engine has its own algorithm (last digits, NaN and infinities differ)",
            )
        if isinstance(node, (exp.Min, exp.Max)) and (
            kind_of(node.this) in FLOATS or typer(node.this).cls in ("float", "double", "unknown")
        ):
            ctx.add(
                "nan-ordering",
                node,
                "min/max of floating-point values (or of a value of unsettled type): Trino's skip NaN, "
                "Spark's and DuckDB's max is NaN when a NaN is there",
            )
        if isinstance(node, (exp.Sum, exp.Avg)) and typer(node.this).cls in ("float", "double"):
            ctx.add(
                "floating-aggregate",
                node,
                "a sum of floating-point values depends on the order of addition, which each engine chooses "
                "(CAST to a DECIMAL)",
            )
    if into:
        correlated_fields(tree, ctx)


# --------------------------------------------------------------------------------------------------
# values brought to one type


def _unify(node: exp.Expr, typer: Typer, ctx: Context, into: bool) -> None:
    pairs = unification_operands(node, typer)
    if isinstance(node, exp.Array):
        values = list(node.expressions)
        pairs = [(a, b) for i, a in enumerate(values) for b in values[i + 1 :]]
        if into:
            _array_families(node, values, ctx)
    if not pairs:
        return
    values = [v for pair in pairs for v in pair]
    _real_beside_number(node, values, ctx, "values brought to one type")
    kinds = {kind_of(v) for v in values}
    zoned = zoned_kinds(ctx)
    if kinds & zoned and kinds & (TIMES - zoned):
        ctx.add(
            "time-zone",
            node,
            "a date or timestamp beside a timestamp with time zone: the engines convert it in their own session "
            "zone (Trino reads Iceberg's instants in UTC) and resolve a repeated hour their own way",
        )
    for a, b in pairs:
        if into:
            families = {family(a), family(b)} - {None}
            if len(families) > 1:
                ctx.add(
                    "implicit-cast",
                    node,
                    f"values of types {', '.join(sorted(f for f in families if f))} brought to one type: "
                    f"Trino does not convert between them, {ctx.source} does",
                )
        x, y = typer(a), typer(b)
        if {x.cls, y.cls} <= {"int", "decimal"} and "decimal" in (x.cls, y.cls):
            _decimal_common(node, int_as_decimal(x), int_as_decimal(y), ctx)


def _decimal_common(node: exp.Expr, x: Ty, y: Ty, ctx: Context) -> None:
    if not (x.exact and y.exact):
        return  # the rules that read the decimal's type refuse what they cannot size
    scale = max(x.s, y.s)
    digits = max(x.duck_p - x.s, y.duck_p - y.s) + scale
    if digits > 38:
        ctx.add(
            "decimal-precision",
            node,
            f"decimals brought to one type of {digits} digits: Trino keeps scale {scale} at 38 digits, "
            "DuckDB drops the scale and Spark lowers it",
        )


def _real(node: exp.Expr) -> bool:
    """A REAL value: typed so, or a function that keeps its argument's type (sqlglot leaves
    ``ceil(real)`` untyped)."""
    node = node.unalias()
    if kind_of(node) == _T.FLOAT:
        return True
    return isinstance(node, (exp.Ceil, exp.Floor, exp.Abs, exp.Round, exp.Neg, exp.Paren)) and _real(
        node.this
    )


def _real_beside_number(node: exp.Expr, values: list[exp.Expr], ctx: Context, where: str) -> None:
    present = [v for v in values if v is not None]
    kinds = {kind_of(v) for v in present}
    # sqlglot types 0.1 as a DOUBLE; Spark and Trino read it as a DECIMAL
    if any(_real(v) for v in present) and (kinds & _NUMBERS or any(decimal_literal(v) for v in present)):
        ctx.add(
            "type-signature",
            node,
            f"{where} of a REAL and an integer or decimal: Trino computes in REAL, Spark in DOUBLE or its own "
            "FLOAT rounding, DuckDB in FLOAT (CAST the REAL to DOUBLE)",
        )


def _array_families(node: exp.Expr, values: list[exp.Expr], ctx: Context) -> None:
    families = {f for f in map(family, values) if f is not None}
    if len(families) > 1:
        ctx.add(
            "implicit-cast",
            node,
            f"an array of {', '.join(sorted(families))}: Trino's elements must share one type, {ctx.source} converts them",
        )


# --------------------------------------------------------------------------------------------------
# either way (found by an outside check's queries, 2026-11-29)

_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?\Z")
_LONG_FRACTION = re.compile(r"\.[0-9]{4,}")


def _either_way(node: exp.Expr, ctx: Context) -> None:
    zoned = zoned_kinds(ctx)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        _text_cast(node, ctx)
        if node.args["to"].this in TEXT and node.args["to"].expressions:
            ctx.add(
                "cast-semantics",
                node,
                f"a cast to {node.args['to'].sql(ctx.source)}: Trino cuts the text to the length, Spark and DuckDB keep it",
            )
        if (
            "spark" in (ctx.source, ctx.target)
            and not ctx.spark_ansi
            and kind_of(node.this) == _T.DECIMAL
            and node.args["to"].this in TEXT
        ):
            ctx.add(
                "cast-semantics",
                node,
                "a decimal as text: legacy Spark writes small values in scientific notation (0E-10), Trino plain digits",
            )
    elif isinstance(node, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)) and any(
        kind_of(o) in NESTED for o in (node.this, node.expression)
    ):
        ctx.add(
            "nested-ordering",
            node,
            "comparing arrays, structs or maps: Trino's is NULL (or fails) when an element or field is NULL, "
            "Spark and DuckDB compare NULLs as values",
        )
    elif isinstance(node, exp.DPipe) and any(kind_of(o) in NESTED for o in (node.this, node.expression)):
        ctx.add(
            "array-function",
            node,
            "|| of an array: Trino appends to the array, the others need two arrays or text",
        )
    elif isinstance(node, exp.ArrayContains) and isinstance(node.expression, exp.Null):
        ctx.add(
            "array-contains-null", node, "contains(array, NULL): Spark cannot type the NULL, Trino gives NULL"
        )
    elif isinstance(node, exp.WindowSpec) and (
        str(node.args.get("kind") or "").upper() == "GROUPS"
        or (
            str(node.args.get("kind") or "").upper() == "RANGE"
            and any(isinstance(node.args.get(k), exp.Expr) for k in ("start", "end"))
        )
    ):
        ctx.add(
            "range-frame",
            node,
            "a RANGE frame with an offset (or GROUPS): legacy Spark wraps the bound at the key's limits, Trino raises",
        )
    elif isinstance(node, exp.AtTimeZone):
        ctx.add(
            "time-zone", node, "AT TIME ZONE: each engine converts between zoned and local times its own way"
        )
    elif isinstance(node, (exp.Add, exp.Sub)) and any(
        kind_of(o) in zoned for o in (node.this, node.expression)
    ):
        ctx.add(
            "time-zone",
            node,
            "an interval added to a timestamp with time zone: Trino adds it in the value's zone (UTC for Iceberg), "
            "Spark and DuckDB in the session's, so a day or month across a daylight-saving change differs",
        )
    elif isinstance(node, exp.Interval) and isinstance(node.this, exp.Literal):
        if _LONG_FRACTION.search(node.this.name):
            ctx.add(
                "interval-literal",
                node,
                "an interval with more than three fraction digits of a second: Trino's intervals hold milliseconds",
            )
    elif (
        isinstance(node, exp.In)
        and node.args.get("query") is not None
        and "spark" in (ctx.source, ctx.target)
    ):
        IN_SUBQUERY.apply(node, ctx)
    elif isinstance(node, exp.In) and any(isinstance(e, exp.Null) for e in node.expressions):
        ctx.add(
            "in-null",
            node,
            "x IN (..., NULL): Trino gives FALSE when nothing else matches, Spark and DuckDB NULL",
        )


def _text_cast(node: exp.Expr, ctx: Context) -> None:
    to = node.args["to"].this
    if (
        kind_of(node.this) not in TEXT
        or to in TEXT
        or to not in (TIMES | INTEGERS | FLOATS | {_T.DECIMAL, _T.BOOLEAN})
    ):
        return
    if isinstance(node.this, exp.Literal) and (
        _PLAIN_NUMBER.match(node.this.name) if to not in TIMES else ISO_DATE.match(node.this.name)
    ):
        return
    ctx.add(
        "try-cast-text",
        node,
        f"text cast to {node.args['to'].sql(ctx.target)}: the engines accept different forms ('1e3', ' 42 ', 'NaN', "
        "'infinity'), so one gives a value where the other gives NULL or fails",
    )
