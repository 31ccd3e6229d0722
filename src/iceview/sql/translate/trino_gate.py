"""Type signatures with Trino on one side, found by running Trino 476 (the generator's Trino legs,
issue 28): what :func:`trino_gate` refuses in every direction into or from Trino, read before any
rewrite, beside the rules table's rows (:mod:`.trino_rules`, :mod:`.trino_edges`).

* **REAL beside an integer or a decimal** (arithmetic, comparison, ``IN``, ``COALESCE``, a set
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
* **Into Trino**, also: a date plus or minus a number (``date-add``) or minus a date (an interval in
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
  and maps (NULL elements: ``nested-ordering``); ``||`` of an array (``array-function``).
* **Either way**: ``min``/``max`` of floating-point values or of values whose type Spark's rules do
  not settle (``max(d + dec10)``: Trino's skip NaN: ``nan-ordering``); ``sum``/``avg`` of floating-point values (each engine adds in its own order: Spark
  gives ``12345719.010000007`` where Trino and DuckDB give ``...005``: ``floating-aggregate``).
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.optimizer.scope import traverse_scope

from iceview.sql.translate.checks import FLOATS, INTEGERS, TEXT, kind_of
from iceview.sql.translate.edges_both import IN_SUBQUERY, zoned_kinds
from iceview.sql.translate.policy import Context
from iceview.sql.translate.signatures import unification_operands
from iceview.sql.translate.spark_typing import Ty, Typer, int_as_decimal
from iceview.sql.translate.trino_edges import DECIMAL_WITHIN_38

__all__ = ["TRINO_GATE_CODES", "trino_gate"]

_T = exp.DataType.Type
_NUMBERS = INTEGERS | {_T.DECIMAL}
_TIMES = frozenset({_T.DATE, _T.TIMESTAMP, _T.TIMESTAMPNTZ, _T.DATETIME, _T.TIMESTAMPTZ, _T.TIMESTAMPLTZ})
_NESTED = frozenset({_T.ARRAY, _T.STRUCT, _T.MAP})
_FIELDS = (
    exp.Extract,
    exp.Year,
    exp.Quarter,
    exp.Month,
    exp.Day,
    exp.Hour,
    exp.Minute,
    exp.Second,
    exp.WeekOfYear,
    exp.LastDay,
    exp.DayOfWeek,
    exp.DayOfWeekIso,
    exp.DayOfMonth,
    exp.DayOfYear,
    exp.DateTrunc,
    exp.TimestampTrunc,
)
_TEXT_FUNCTIONS = (
    exp.StrPosition,
    exp.Length,
    exp.Upper,
    exp.Lower,
    exp.Substring,
    exp.Left,
    exp.Right,
    exp.Trim,
    exp.Reverse,
    exp.Replace,
    exp.Pad,
    exp.Initcap,
)
_NUMERIC_FUNCTIONS = (
    exp.Ceil,
    exp.Floor,
    exp.Abs,
    exp.Round,
    exp.Sign,
    exp.Sqrt,
    exp.Exp,
    exp.Ln,
    exp.Log,
    exp.Pow,
    exp.Mod,
)
_ISO_DATE = re.compile(
    r"\s*[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?)?\s*\Z"
)
_FRACTION = re.compile(r"\.([0-9]*)")

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
    }
)
"""The refusal codes of :func:`trino_gate`."""


def trino_gate(tree: exp.Expr, ctx: Context) -> None:
    """Refuse, in ``ctx``, every site of ``tree`` whose types Trino and the other engine treat
    differently (see the module). Does nothing unless Trino is the source or the target."""
    if "trino" not in (ctx.source, ctx.target) or ctx.source == ctx.target:
        return
    typer = Typer("spark" if ctx.source == "trino" else ctx.source, tree, lenient=not ctx.typed)
    into = ctx.target == "trino"
    for node in tree.walk():
        _unify(node, typer, ctx, into)
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
            _real_beside_number(node, [node.this, node.expression], ctx, "arithmetic")
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul)) and ctx.source == "spark":
            DECIMAL_WITHIN_38.apply(node, ctx)  # as from Trino into Spark (trino_rules)
        _either_way(node, ctx)
        if into:
            _into_trino(node, typer, ctx)
        else:
            _from_trino(node, typer, ctx)
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
        _correlated_fields(tree, ctx)


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
    if kinds & zoned and kinds & (_TIMES - zoned):
        ctx.add(
            "time-zone",
            node,
            "a date or timestamp beside a timestamp with time zone: the engines convert it in their own session "
            "zone (Trino reads Iceberg's instants in UTC) and resolve a repeated hour their own way",
        )
    for a, b in pairs:
        if into:
            families = {_family(a), _family(b)} - {None}
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
    if any(_real(v) for v in present) and kinds & _NUMBERS:
        ctx.add(
            "type-signature",
            node,
            f"{where} of a REAL and an integer or decimal: Trino computes in REAL, Spark in DOUBLE or its own "
            "FLOAT rounding, DuckDB in FLOAT (CAST the REAL to DOUBLE)",
        )


def _family(node: exp.Expr) -> str | None:
    k = kind_of(node)
    if k is None or isinstance(node, exp.Null):
        return None
    if k in INTEGERS or k in FLOATS or k == _T.DECIMAL:
        return "number"
    if k in TEXT:
        return "text"
    return str(k.value)


def _array_families(node: exp.Expr, values: list[exp.Expr], ctx: Context) -> None:
    families = {f for f in map(_family, values) if f is not None}
    if len(families) > 1:
        ctx.add(
            "implicit-cast",
            node,
            f"an array of {', '.join(sorted(families))}: Trino's elements must share one type, {ctx.source} converts them",
        )


# --------------------------------------------------------------------------------------------------
# either way (found by an outside check's queries, 2026-11-29)

_TRINO_UNITS = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"})
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?\Z")
_LONG_FRACTION = re.compile(r"\.[0-9]{4,}")


def _either_way(node: exp.Expr, ctx: Context) -> None:
    zoned = zoned_kinds(ctx)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        _text_cast(node, ctx)
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
        kind_of(o) in _NESTED for o in (node.this, node.expression)
    ):
        ctx.add(
            "nested-ordering",
            node,
            "comparing arrays, structs or maps: Trino's is NULL (or fails) when an element or field is NULL, "
            "Spark and DuckDB compare NULLs as values",
        )
    elif isinstance(node, exp.DPipe) and any(kind_of(o) in _NESTED for o in (node.this, node.expression)):
        ctx.add(
            "array-function",
            node,
            "|| of an array: Trino appends to the array, the others need two arrays or text",
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
        or to not in (_TIMES | INTEGERS | FLOATS | {_T.DECIMAL, _T.BOOLEAN})
    ):
        return
    if isinstance(node.this, exp.Literal) and (
        _PLAIN_NUMBER.match(node.this.name) if to not in _TIMES else _ISO_DATE.match(node.this.name)
    ):
        return
    ctx.add(
        "try-cast-text",
        node,
        f"text cast to {node.args['to'].sql(ctx.target)}: the engines accept different forms ('1e3', ' 42 ', 'NaN', "
        "'infinity'), so one gives a value where the other gives NULL or fails",
    )


# --------------------------------------------------------------------------------------------------
# into Trino


def _into_trino(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    zoned = zoned_kinds(ctx)
    of = node.expression if isinstance(node, exp.Extract) else node.this
    if isinstance(node, _FIELDS) and isinstance(of, exp.Expr) and kind_of(of) in zoned:
        ctx.add(
            "time-zone",
            node,
            "a field of a timestamp with time zone: Trino reads it in the value's zone (UTC for Iceberg), "
            f"{ctx.source} in the session's",
        )
    elif (
        isinstance(node, exp.Cast) and kind_of(node.this) in zoned and node.to.this in (_TIMES - zoned) | TEXT
    ):
        ctx.add(
            "time-zone",
            node,
            f"a timestamp with time zone cast to {node.to.sql(ctx.target)}: Trino converts in the value's zone, "
            f"{ctx.source} in the session's",
        )
    if isinstance(node, (exp.Neg, exp.Add, exp.Sub, exp.Mul, exp.Div)) and all(
        isinstance(o, exp.Null) for o in (node.this, node.args.get("expression")) if o is not None
    ):
        ctx.add(
            "implicit-cast",
            node,
            "arithmetic of NULL alone: Trino cannot choose the operator (CAST the NULL)",
        )
    if isinstance(node, (exp.Add, exp.Sub)) and kind_of(node.this) == _T.DATE:
        other = kind_of(node.expression)
        if other in INTEGERS or (isinstance(node.expression, exp.Literal) and not node.expression.is_string):
            ctx.add(
                "date-add",
                node,
                "a date plus or minus a number of days: Trino has no such operator (write date_add)",
            )
        elif other == _T.DATE:
            ctx.add(
                "interval-result",
                node,
                "a date minus a date: a number of days elsewhere, an interval in Trino",
            )
    if isinstance(node, exp.Interval):
        unit = node.args.get("unit")
        name = unit.name.upper().rstrip("S") if isinstance(unit, (exp.Var, exp.Literal)) else ""
        if name not in _TRINO_UNITS and not (ctx.source == "spark" and "TO" in name):
            ctx.add(
                "interval-literal",
                node,
                f"an interval of {name.lower() or 'several units'}: Trino's are one of year, month, day, hour, minute, second",
            )
    if isinstance(node, _FIELDS) and not isinstance(node, exp.Extract) and _family(node.this) == "text":
        ctx.add(
            "implicit-cast",
            node,
            f"a date field of text: Trino takes a date or timestamp, {ctx.source} converts it",
        )
    if isinstance(node, _NUMERIC_FUNCTIONS):
        for arg in node.iter_expressions():
            if _family(arg) not in (None, "number"):
                ctx.add(
                    "implicit-cast",
                    node,
                    f"a numeric function of a {_family(arg)}: Trino takes numbers there, {ctx.source} converts it",
                )
                break
    if isinstance(node, _TEXT_FUNCTIONS):
        _text_arguments(node, ctx)
    elif isinstance(node, (exp.Sum, exp.Avg)):
        _numeric_argument(node, ctx)
    elif isinstance(node, exp.CountIf):
        if _family(node.this) not in (None, "BOOLEAN"):
            ctx.add("implicit-cast", node, f"count_if of a {_family(node.this)}: Trino takes a BOOLEAN")
    elif isinstance(node, exp.Round):
        x = typer(node.this)
        if x.cls == "decimal" and (not x.exact or x.duck_p >= 38):
            ctx.add(
                "decimal-overflow",
                node,
                "round of a 38-digit decimal (or of one whose precision is not known): Trino keeps its scale "
                "and raises when the value rounds up beyond 38 digits",
            )
    elif (
        isinstance(node, exp.Ordered)
        and node.args.get("nulls_first")
        and kind_of(node.this) in FLOATS
        and isinstance(node.parent, exp.Order)
        and isinstance(node.parent.parent, exp.Select)
        and node.parent.parent.args.get("distinct")
    ):
        ctx.add(
            "nan-ordering",
            node,
            "SELECT DISTINCT ordered by a floating-point key with NULLs first: Trino moves NaN next to the NULLs, "
            "and the key that keeps them apart is not in the select list",
        )
    elif isinstance(node, exp.Ordered) and kind_of(node.this) in _NESTED:
        ctx.add(
            "nested-ordering",
            node,
            "a sort key that is an array, struct or map: Trino refuses to compare arrays holding NULLs",
        )
    elif isinstance(node, (exp.Cast, exp.TryCast)):
        if ctx.source == "duckdb":
            _duckdb_text_cast(node, ctx)
        to = node.args["to"].this
        to_number = to in INTEGERS or to in FLOATS or to == _T.DECIMAL
        if (_family(node.this) in ("number", "BOOLEAN") and to in _TIMES) or (
            kind_of(node.this) in _TIMES and to_number
        ):
            ctx.add(
                "cast-semantics",
                node,
                f"a cast between a {_family(node.this)} and a date or timestamp: Trino has none, {ctx.source} converts",
            )
    elif isinstance(node, exp.TsOrDsAdd) and ctx.source == "spark" and not _constant(node.expression):
        ctx.add(
            "date-add",
            node,
            "date_add or date_sub by a value that is not a constant: legacy Spark wraps past the date range, Trino raises",
        )


def _constant(node: exp.Expr | None) -> bool:
    return node is not None and all(
        isinstance(n, (exp.Literal, exp.Neg, exp.Mul, exp.Paren))
        and not (isinstance(n, exp.Literal) and n.is_string)
        for n in node.walk()
    )


_TEXT_ARGUMENTS: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.StrPosition: ("substr",),
    exp.Replace: ("expression", "replacement"),
    exp.Trim: ("expression",),
    exp.Pad: ("fill_pattern",),
}
"""Besides ``this``, the arguments of a text function that are text (a length or position is not)."""


def _text_arguments(node: exp.Expr, ctx: Context) -> None:
    for arg in (node.this, *(node.args.get(k) for k in _TEXT_ARGUMENTS.get(type(node), ()))):
        family = _family(arg) if isinstance(arg, exp.Expr) else None
        if family is not None and family not in ("text", "BINARY", "VARBINARY"):
            ctx.add(
                "implicit-cast",
                node,
                f"a string function of a {family}: Trino takes only varchar there, {ctx.source} converts it",
            )
            return


def _numeric_argument(node: exp.Expr, ctx: Context) -> None:
    arg = node.this
    if isinstance(arg, exp.Null):
        ctx.add("implicit-cast", node, "sum or avg of NULL: Trino cannot choose its type (CAST the NULL)")
        return
    family = _family(arg)
    if family is not None and family not in ("number", "INTERVAL"):
        ctx.add(
            "implicit-cast", node, f"sum or avg of a {family}: Trino takes numbers, {ctx.source} converts it"
        )


def _duckdb_text_cast(node: exp.Expr, ctx: Context) -> None:
    to = node.args["to"].this
    if kind_of(node.this) not in TEXT or to not in _TIMES:
        return
    if isinstance(node.this, exp.Literal) and _ISO_DATE.match(node.this.name):
        return
    ctx.add(
        "try-cast-text",
        node,
        "text cast to a date or timestamp: DuckDB reads more forms than Trino ('infinity', '1 BC')",
    )


def _correlated_fields(tree: exp.Expr, ctx: Context) -> None:
    for scope in traverse_scope(tree):
        for column in scope.external_columns:
            if column.args.get("db") is not None or isinstance(column.parent, exp.Dot):
                ctx.add(
                    "correlated-field",
                    column,
                    "a correlated subquery whose correlation is a struct field: Trino does not support it",
                )


# --------------------------------------------------------------------------------------------------
# from Trino


def _from_trino(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    if (
        isinstance(node, exp.Case)
        and node.this is not None
        and any(when.this == node.this for when in node.args.get("ifs") or [])
    ):
        ctx.add(
            "self-comparison", node, "CASE x WHEN x: Trino's optimizer folds it to true, even when x is NULL"
        )
    if isinstance(node, (exp.Cast, exp.TryCast)):
        to, of = node.args["to"].this, kind_of(node.this)
        cls = typer(node.this).cls
        if to == _T.DECIMAL and (
            of in FLOATS or cls in ("float", "double") or (cls == "unknown" and of not in INTEGERS | TEXT)
        ):
            ctx.add(
                "cast-semantics",
                node,
                f"a floating-point value (or one of unsettled type) cast to a decimal: Trino moves the cast out of a comparison, {ctx.target} "
                "fails (or gives NULL) on infinity and NaN",
            )
        elif to in (_T.TIMESTAMP, _T.TIMESTAMPTZ) and not node.args["to"].expressions and of != _T.DATE:
            ctx.add(
                "cast-semantics",
                node,
                "a cast to a TIMESTAMP without precision: Trino's holds milliseconds (rounding the microseconds), "
                f"{ctx.target}'s microseconds; write TIMESTAMP(6)",
            )
        elif of == _T.DOUBLE and to == _T.FLOAT and ctx.target == "duckdb":
            ctx.add(
                "cast-semantics",
                node,
                "a DOUBLE cast to a REAL: beyond REAL's range Trino gives infinity, DuckDB NULL (TRY_CAST) or an error",
            )
    elif isinstance(node, exp.Interval):
        unit = node.args.get("unit")
        fraction = _FRACTION.search(node.this.name) if isinstance(node.this, exp.Literal) else None
        if unit is not None and "SECOND" in unit.name.upper() and fraction and len(fraction.group(1)) > 3:
            ctx.add(
                "interval-literal",
                node,
                "an interval with more than three fraction digits of a second: Trino's intervals hold milliseconds",
            )
