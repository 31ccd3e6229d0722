"""Spark's type of every sub-expression of a query, as the type-signature gate
(:mod:`.signatures`) sees it: a class (``int``, ``decimal``, ``text``, ...) and, for numbers, the
digits Spark gives them (decimal precision and scale by Spark's rules, literal types, the columns of
subqueries and CTEs typed from their definitions). Spark is one end of every direction the gate
covers, and its bounded decimal types are what can differ from the other engine's exact ones."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from iceview.sql.translate.checks import decimal_params, int_literal_digits
from iceview.sql.translate.edges import spark_avg_type, spark_bounded, spark_divide_type
from iceview.sql.translate.policy import Context

_T = exp.DataType.Type

MAX_PRECISION = 38
_INT_DIGITS = {_T.TINYINT: 3, _T.SMALLINT: 5, _T.INT: 10, _T.BIGINT: 20}
_CLASS_OF: dict[exp.DType, str] = {
    _T.BOOLEAN: "bool",
    _T.TINYINT: "int",
    _T.SMALLINT: "int",
    _T.INT: "int",
    _T.BIGINT: "int",
    _T.FLOAT: "float",
    _T.DOUBLE: "double",
    _T.DECIMAL: "decimal",
    _T.TEXT: "text",
    _T.VARCHAR: "text",
    _T.CHAR: "text",
    _T.DATE: "date",
    _T.TIMESTAMPNTZ: "timestamp_ntz",
    _T.DATETIME: "timestamp_ntz",
    _T.TIMESTAMPTZ: "timestamp",
    _T.TIMESTAMPLTZ: "timestamp",
    _T.BINARY: "binary",
    _T.VARBINARY: "binary",
    _T.INTERVAL: "interval",
    _T.ARRAY: "array",
    _T.STRUCT: "struct",
    _T.MAP: "map",
}


@dataclass(frozen=True)
class Ty:
    """A value's type as the gate sees it. ``cls``: the class (``unknown`` when not inferred);
    ``p``/``s``: a decimal's precision and scale, or an integer's digits as Spark widens it to a
    decimal (``p``); ``exact``: whether ``p``/``s`` are Spark's own (False when only the class is
    known); ``text``: the full type, for nested values; ``bounded``: Spark capped the decimal's
    precision at 38 (keeping its scale), so a value beyond it is NULL in legacy mode."""

    cls: str
    p: int = 0
    s: int = 0
    exact: bool = True
    text: str = ""
    bounded: bool = False
    dp: int = 0
    """DuckDB's precision of the decimal where it differs from Spark's (0: the same): DuckDB's
    ``sum`` is a ``DECIMAL(38, s)`` and its ``floor``/``ceil`` keep the operand's precision, and
    where DuckDB brings two decimals to one type beyond 38 digits it drops scale."""

    @property
    def duck_p(self) -> int:
        return self.dp or self.p

    def __str__(self) -> str:
        if self.cls == "decimal":
            return f"decimal({self.p},{self.s})" if self.exact else "decimal(?)"
        return self.text if self.cls in ("array", "struct", "map") and self.text else self.cls


UNKNOWN = Ty("unknown", exact=False)
NULL = Ty("null")
BOOL = Ty("bool")
TEXT = Ty("text")
DOUBLE = Ty("double")
BIGINT = Ty("int", 20)

# --------------------------------------------------------------------------------------------------
# typing, by Spark's rules

LITERAL = "literal"
_EXACT_IN_DOUBLE = 15
"""A decimal literal of up to 15 digits becomes the same double in both engines (its digits and
its power of ten are exact doubles, and one IEEE division rounds them once)."""

_INT_TEXT = re.compile(r"[0-9]+\Z")
_DECIMAL_TEXT = re.compile(r"([0-9]*)\.([0-9]*)\Z")


def _of_datatype(t: exp.DataType | None, exact: bool = True) -> Ty:
    if t is None:
        return UNKNOWN
    kind = t.this
    if kind == _T.NULL:
        return NULL
    cls = _CLASS_OF.get(kind)
    if cls is None:
        return UNKNOWN
    if cls == "int":
        return Ty("int", _INT_DIGITS[kind])
    if cls == "decimal":
        params = decimal_params(t)
        if params is None:
            return Ty("decimal", exact=False)
        return Ty("decimal", params[0], params[1], exact=exact)
    if cls in ("array", "struct", "map"):
        return Ty(cls, text=t.sql(dialect="spark"), exact=exact)
    return Ty(cls)


def _literal(node: exp.Literal, source: str) -> Ty:
    if node.is_string:
        return TEXT
    text = node.name
    if _INT_TEXT.match(text):
        value = int(text)
        if value < 2**31:
            return Ty("int", 10)
        if value < 2**63:
            return BIGINT
        return Ty("hugeint")  # Spark's DECIMAL(38, 0) is DuckDB's HUGEINT: not proven
    m = _DECIMAL_TEXT.match(text)
    if m:
        whole, frac = m.group(1).lstrip("0"), m.group(2)
        digits = len((whole + frac).lstrip("0")) or 1
        p, s = max(digits, len(frac)), len(frac)
        if p > MAX_PRECISION:
            return DOUBLE if source == "duckdb" else UNKNOWN
        return Ty("decimal", max(p, 1), s, text=LITERAL if p <= _EXACT_IN_DOUBLE else "")
    return DOUBLE  # 1e300


def double_and_short_literal(a: Ty, b: Ty) -> bool:
    """A double with a decimal literal of at most 15 digits (Spark and DuckDB compute in doubles)."""
    if {a.cls, b.cls} != {"double", "decimal"}:
        return False
    double, decimal = (a, b) if a.cls == "double" else (b, a)
    return double.exact and decimal.text == LITERAL


def int_literal_as_decimal(node: exp.Expr, t: Ty) -> Ty:
    """An integer literal's type beside a decimal (its own digits), else ``t``."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string and _INT_TEXT.match(node.name):
        digits = int_literal_digits(node.name)
        return Ty("decimal", digits, 0, dp=t.p if t.p > digits else 0)
    return t


def int_as_decimal(t: Ty) -> Ty:
    return Ty("decimal", t.p, 0) if t.cls == "int" else t


def widest(a: Ty, b: Ty) -> Ty | None:
    """Spark's wider type of two unifiable types (None when it loses digits or is not proven)."""
    if a.cls == "null":
        return b
    if b.cls == "null":
        return a
    if a.cls == b.cls and a.cls not in ("decimal", "int"):
        return a if a.text == b.text else None
    if a.cls == b.cls == "int":
        return a if a.p >= b.p else b
    if "double" in (a.cls, b.cls) and {a.cls, b.cls} <= {"double", "int", "float"}:
        return DOUBLE
    if double_and_short_literal(a, b):
        return DOUBLE
    if {a.cls, b.cls} == {"date", "timestamp_ntz"}:
        return Ty("timestamp_ntz")
    if {a.cls, b.cls} <= {"int", "decimal"}:
        x, y = int_as_decimal(a), int_as_decimal(b)
        if not (x.exact and y.exact):
            return None
        s = max(x.s, y.s)
        p = max(x.p - x.s, y.p - y.s) + s
        duck = max(x.duck_p - x.s, y.duck_p - y.s) + s
        if p > MAX_PRECISION or duck > MAX_PRECISION:
            return None
        return Ty("decimal", p, s, dp=duck if duck != p else 0)
    return None


def _arith(op: exp.Expr, a: Ty, b: Ty) -> Ty:
    """The result of ``a op b`` by Spark's rules (``exact=False`` when Spark would bound it)."""
    if "null" in (a.cls, b.cls):
        other = b if a.cls == "null" else a
        return other if other.cls != "null" else NULL
    if isinstance(op, exp.Div):
        if {a.cls, b.cls} <= {"int", "decimal"} and "decimal" in (a.cls, b.cls):
            x, y = int_as_decimal(a), int_as_decimal(b)
            if x.exact and y.exact:
                p, s = spark_divide_type((x.p, x.s), (y.p, y.s))
                return Ty("decimal", p, s)
            return Ty("decimal", exact=False)
        return DOUBLE if {a.cls, b.cls} <= {"int", "float", "double"} else UNKNOWN
    if isinstance(op, exp.IntDiv):
        return BIGINT
    if a.cls == b.cls == "int":
        return a if a.p >= b.p else b
    if {a.cls, b.cls} <= {"int", "decimal"}:
        x, y = int_as_decimal(a), int_as_decimal(b)
        if not (x.exact and y.exact):
            return Ty("decimal", exact=False)
        if isinstance(op, (exp.Add, exp.Sub)):
            s = max(x.s, y.s)
            p = max(x.p - x.s, y.p - y.s) + s + 1
            duck = max(x.duck_p - x.s, y.duck_p - y.s) + s + 1
        elif isinstance(op, exp.Mul):
            p, s = x.p + y.p + 1, x.s + y.s
            duck = x.duck_p + y.duck_p
        else:  # %
            s = max(x.s, y.s)
            p = min(x.p - x.s, y.p - y.s) + s
            duck = max(x.duck_p - x.s, y.duck_p - y.s) + s
        duck = min(duck, MAX_PRECISION)  # DuckDB keeps the scale and caps the precision
        if p <= MAX_PRECISION:
            return Ty("decimal", p, s, dp=duck if duck > p else 0)
        bp, bs = spark_bounded(p, s)
        # Spark keeps the scale when it is at most 6 (else it lowers it: not exact)
        return (
            Ty("decimal", bp, bs, exact=bs == s, bounded=True)
            if bs == s
            else Ty("decimal", p, s, exact=False)
        )
    common = widest(a, b)
    if common is not None and common.cls in ("double", "float"):  # with a short literal too
        return common
    if a.cls == "date" and b.cls in ("int", "interval"):
        return Ty("date")
    if a.cls in ("timestamp", "timestamp_ntz") and b.cls == "interval":
        return a
    return UNKNOWN


def _column_definitions(tree: exp.Expr) -> dict[int, exp.Expr | None]:
    """For each column read from a subquery or CTE, the expression that defines it (None when it
    cannot be found); columns of tables are not in it (their types are the schema's)."""
    found: dict[int, exp.Expr | None] = {}
    try:
        scopes = list(traverse_scope(tree))
    except (SqlglotError, RecursionError, KeyError, ValueError):
        return found
    for scope in scopes:
        for column in scope.columns:
            source = scope.sources.get(column.table)
            if source is None or isinstance(source, exp.Table):
                continue
            query = source.expression if isinstance(source, Scope) else None
            match = None
            if isinstance(query, exp.Query):
                name = column.name.lower()
                match = next((s for s in query.selects if s.alias_or_name.lower() == name), None)
            found[id(column)] = match
    return found


def spark_typer(ctx: Context, node: exp.Expr, source: str | None = None) -> Typer:
    """The :class:`Typer` of ``node``'s tree by ``source``'s literals (default: the translation's
    source), made once per pass of the rules (``Context.memo``)."""
    root = node.root()
    key = ("spark_typer", source or ctx.source, id(root))
    typer = ctx.memo.get(key)
    if not isinstance(typer, Typer):
        typer = Typer(source or ctx.source, root)
        ctx.memo[key] = typer
    return typer


class Typer:
    """Spark's type of every sub-expression of one tree (memoised by node)."""

    def __init__(self, source: str, tree: exp.Expr | None = None) -> None:
        self.source = source
        self._memo: dict[int, Ty] = {}
        self._defined = _column_definitions(tree) if tree is not None else {}

    def __call__(self, node: exp.Expr) -> Ty:
        key = id(node)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._infer(node)
        return found

    def _infer(self, node: exp.Expr) -> Ty:
        if isinstance(node, (exp.Paren, exp.Alias)):
            return self(node.this)
        if isinstance(node, exp.Column):
            defined = self._defined.get(id(node))
            if defined is not None:
                return self(defined)
            if id(node) in self._defined:  # from a relation the gate cannot see into
                ty = _of_datatype(node.type, exact=False)
                return (
                    Ty(ty.cls, exact=False, text=ty.text)
                    if ty.cls in ("decimal", "array", "struct", "map")
                    else ty
                )
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Query):
            selects = node.this.selects
            return self(selects[0]) if len(selects) == 1 else UNKNOWN
        if isinstance(node, exp.Null):
            return NULL
        if isinstance(node, exp.Boolean):
            return BOOL
        if isinstance(node, exp.Literal):
            return _literal(node, self.source)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            return _of_datatype(node.to)
        if isinstance(node, exp.Neg):
            if isinstance(node.this, exp.Literal) and _INT_TEXT.match(node.this.name):
                value = int(node.this.name)  # -2147483648 is an INT literal in both engines
                return Ty("int", 10) if value <= 2**31 else BIGINT if value <= 2**63 else Ty("hugeint")
            inner = self(node.this)
            return inner if inner.cls in ("int", "decimal", "double", "float", "interval") else UNKNOWN
        if isinstance(node, (exp.Predicate, exp.Not, exp.And, exp.Or, exp.Exists)):
            return BOOL
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)):
            a, b = self(node.this), self(node.expression)
            # Spark casts an integer literal beside a decimal to its own digits (DECIMAL(3, 0) for
            # 160: spark.sql.legacy.literal.pickMinimumPrecision); DuckDB to an INTEGER's
            if a.cls == "int" and b.cls == "decimal":
                a = int_literal_as_decimal(node.this, a)
            elif b.cls == "int" and a.cls == "decimal":
                b = int_literal_as_decimal(node.expression, b)
            return _arith(node, a, b)
        if isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least)):
            return self._unified([node.this, *node.expressions])
        if isinstance(node, exp.Nullif):
            return self(node.this)
        if isinstance(node, exp.If):
            return self._unified([node.args.get("true"), node.args.get("false")])
        if isinstance(node, exp.Case):
            return self._unified(
                [*(i.args.get("true") for i in node.args.get("ifs") or []), node.args.get("default")]
            )
        if isinstance(node, (exp.Count, exp.CountIf)):
            return BIGINT
        if isinstance(node, (exp.Min, exp.Max, exp.Abs)):
            return self(node.this)
        if isinstance(node, exp.Sum):
            inner = self(node.this)
            if inner.cls == "decimal":
                p, s = spark_bounded(inner.p + 10, inner.s)
                return Ty("decimal", p, s, exact=inner.exact, dp=MAX_PRECISION if p < MAX_PRECISION else 0)
            return BIGINT if inner.cls == "int" else inner
        if isinstance(node, exp.Avg):
            inner = self(node.this)
            if inner.cls == "decimal":
                if not inner.exact or inner.p + 4 > MAX_PRECISION:
                    return Ty("decimal", exact=False)
                p, s = spark_avg_type((inner.p, inner.s))
                return Ty("decimal", p, s)
            return DOUBLE if inner.cls in ("int", "float", "double") else UNKNOWN
        if isinstance(node, (exp.Ceil, exp.Floor)):
            inner = self(node.this)
            if inner.cls == "decimal" and inner.exact and node.args.get("decimals") is None:
                p = min(inner.p - inner.s + 1, MAX_PRECISION)
                duck = inner.duck_p  # DuckDB keeps the operand's precision
                return Ty("decimal", p, 0, dp=duck if duck > p else 0)
            return BIGINT if inner.cls in ("int", "float", "double") else Ty(inner.cls, exact=False)
        if isinstance(node, exp.TimestampTrunc) and self.source == "spark":
            return Ty("timestamp")  # Spark's date_trunc returns a TIMESTAMP whatever it is given
        if isinstance(node, exp.Window):
            return self(node.this)
        t = node.type if hasattr(node, "type") else None
        if isinstance(node, exp.Column):
            return _of_datatype(t)
        if isinstance(node, exp.Round):
            inner = self(node.this)
            return (
                Ty(inner.cls, exact=False) if inner.cls in ("decimal", "double", "float", "int") else UNKNOWN
            )
        # a function the gate has no rule for: sqlglot's class, but not its digits (nor trusted as a
        # double beside a decimal literal)
        ty = _of_datatype(t, exact=False)
        if ty.cls == "double":
            return Ty("double", exact=False)
        return (
            Ty(ty.cls, exact=False, text=ty.text) if ty.cls in ("decimal", "array", "struct", "map") else ty
        )

    def _unified(self, nodes: list[exp.Expr | None]) -> Ty:
        result = NULL
        for n in nodes:
            if n is None:
                continue
            common = widest(result, self(n))
            if common is None:
                return UNKNOWN
            result = common
        return result
