"""Type signatures: where two engines must agree on a value's type, a construct translates only
for the argument types it was proven on.

Every sub-expression gets a :class:`Ty` by Spark's typing rules (:func:`infer`): Spark is one end
of every direction this gate covers, and its bounded decimal types are what can differ from the
other engine's exact ones. A :class:`Ty` is a *class* (``int``, ``decimal``, ``text``, ...) and, for
numbers, digits. Three kinds of site then look the signature up in a table of proven ones:

* **unification**: values two engines bring to one type (comparisons, ``BETWEEN``, ``IN``,
  ``COALESCE``, ``NULLIF``, ``GREATEST``/``LEAST``, ``IF``/``CASE`` results, set-operation
  columns, ``lag``/``lead`` defaults): the pair of classes must be in :data:`UNIFY`;
* **arithmetic** (``+ - * / % DIV``): the pair of operand classes must be in :data:`ARITHMETIC`, and
  a decimal result must fit Spark's 38 digits without losing scale;
* **boolean contexts** (``WHERE``, ``ON``, ``HAVING``, ``WHEN``, ``NOT``, ``AND``/``OR``,
  ``bool_and``/``bool_or``): the operand must be a ``BOOLEAN``.

Anything else is refused with a named code: ``type-signature`` (a pair not proven, with the classes
in the reason), ``decimal-precision`` (Spark would lower the scale), ``boolean-context``,
``precedence`` (a predicate directly inside another, which the engines group differently) and
``libm``. The generated queries (``tests/translate/generated``) run every proven pair in both
directions; ``docs/translation.md`` lists them (:func:`proven_signatures`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from iceview.sql.translate.checks import decimal_params, type_of
from iceview.sql.translate.edges import spark_avg_type, spark_bounded, spark_divide_type
from iceview.sql.translate.policy import Context

_T = exp.DataType.Type

GATED = frozenset({("spark", "duckdb"), ("duckdb", "spark")})
"""The directions whose signatures are proven by execution (Trino's join in issue 28)."""

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
    known); ``text``: the full type, for nested values."""

    cls: str
    p: int = 0
    s: int = 0
    exact: bool = True
    text: str = ""

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
# the proven signatures


def _pairs(*pairs: tuple[str, str]) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(p) for p in pairs)


_SCALARS = (
    "bool",
    "int",
    "float",
    "double",
    "decimal",
    "text",
    "date",
    "timestamp",
    "timestamp_ntz",
    "binary",
)

UNIFY = _pairs(
    *((c, c) for c in _SCALARS),
    ("int", "decimal"),
    ("int", "double"),
    ("int", "float"),
    ("float", "double"),
    ("date", "timestamp_ntz"),
    *(("null", c) for c in (*_SCALARS, "array", "struct", "map", "null")),
)
"""Pairs of classes that Spark and DuckDB bring to one type with the same values (decimals also
need :func:`_decimal_unify`; arrays, structs and maps unify only with an identical type or NULL)."""

ARITHMETIC = _pairs(
    ("int", "int"),
    ("int", "decimal"),
    ("decimal", "decimal"),
    ("int", "double"),
    ("double", "double"),
    ("float", "double"),
    ("float", "float"),
    ("int", "float"),
    ("date", "int"),
    ("date", "date"),
    ("date", "interval"),
    ("timestamp", "interval"),
    ("timestamp_ntz", "interval"),
    ("interval", "interval"),
    *(("null", c) for c in ("int", "decimal", "double", "float", "null")),
)
"""Pairs of operand classes whose arithmetic the two engines compute alike (with the rules for
overflow, division and intervals that :mod:`.edges` keeps)."""

BOOLEAN_OPERANDS = frozenset({"bool"})
"""What a boolean context (``WHERE``, ``WHEN``, ``NOT``, ...) accepts: DuckDB casts numbers and
strings to ``BOOLEAN`` there, Spark refuses them, and an untyped ``NULL`` is refused by Spark."""

POW_OPERANDS = _pairs(("int", "int"))
"""``power``: Java's ``StrictMath`` and the C library agree on integers, not in the last bit of
other doubles."""


def proven_signatures() -> dict[str, list[str]]:
    """The proven signatures by site, as ``docs/translation.md`` lists them."""

    def spell(pairs: frozenset[frozenset[str]]) -> list[str]:
        return sorted(
            " × ".join(sorted(p)) if len(p) == 2 else f"{next(iter(p))} × {next(iter(p))}" for p in pairs
        )

    return {
        "unification (comparison, BETWEEN, IN, COALESCE, NULLIF, GREATEST/LEAST, IF/CASE, set operations)": [
            *spell(UNIFY),
            "double × decimal literal of at most 15 digits",
        ],
        "arithmetic (+ - * / % DIV)": [*spell(ARITHMETIC), "double × decimal literal of at most 15 digits"],
        "lag/lead default": ["the value's class (a decimal: the same precision and scale)", "null"],
        "boolean context (WHERE, ON, HAVING, WHEN, NOT, AND/OR, bool_and/bool_or)": sorted(BOOLEAN_OPERANDS),
        "power": spell(POW_OPERANDS),
    }


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
        if source == "duckdb" or len(text.lstrip("0")) > MAX_PRECISION:
            return Ty("hugeint")  # DuckDB's HUGEINT, Spark's DECIMAL(38, 0): not proven
        return Ty("decimal", len(text.lstrip("0")), 0)
    m = _DECIMAL_TEXT.match(text)
    if m:
        whole, frac = m.group(1).lstrip("0"), m.group(2)
        digits = len((whole + frac).lstrip("0")) or 1
        p, s = max(digits, len(frac)), len(frac)
        if p > MAX_PRECISION:
            return DOUBLE if source == "duckdb" else UNKNOWN
        return Ty("decimal", max(p, 1), s, text=LITERAL if p <= _EXACT_IN_DOUBLE else "")
    return DOUBLE  # 1e300


def _double_and_short_literal(a: Ty, b: Ty) -> bool:
    """A double with a decimal literal of at most 15 digits (Spark and DuckDB compute in doubles)."""
    if {a.cls, b.cls} != {"double", "decimal"}:
        return False
    double, decimal = (a, b) if a.cls == "double" else (b, a)
    return double.exact and decimal.text == LITERAL


def _int_as_decimal(t: Ty) -> Ty:
    return Ty("decimal", t.p, 0) if t.cls == "int" else t


def _widest(a: Ty, b: Ty) -> Ty | None:
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
    if _double_and_short_literal(a, b):
        return DOUBLE
    if "float" in (a.cls, b.cls) and {a.cls, b.cls} <= {"float", "int"}:
        return Ty("float")
    if {a.cls, b.cls} == {"date", "timestamp_ntz"}:
        return Ty("timestamp_ntz")
    if {a.cls, b.cls} <= {"int", "decimal"}:
        x, y = _int_as_decimal(a), _int_as_decimal(b)
        if not (x.exact and y.exact):
            return None
        s = max(x.s, y.s)
        p = max(x.p - x.s, y.p - y.s) + s
        return Ty("decimal", p, s) if p <= MAX_PRECISION else None
    return None


def _arith(op: exp.Expr, a: Ty, b: Ty) -> Ty:
    """The result of ``a op b`` by Spark's rules (``exact=False`` when Spark would bound it)."""
    if "null" in (a.cls, b.cls):
        other = b if a.cls == "null" else a
        return other if other.cls != "null" else NULL
    if isinstance(op, exp.Div):
        if {a.cls, b.cls} <= {"int", "decimal"} and "decimal" in (a.cls, b.cls):
            x, y = _int_as_decimal(a), _int_as_decimal(b)
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
        x, y = _int_as_decimal(a), _int_as_decimal(b)
        if not (x.exact and y.exact):
            return Ty("decimal", exact=False)
        if isinstance(op, (exp.Add, exp.Sub)):
            s = max(x.s, y.s)
            p = max(x.p - x.s, y.p - y.s) + s + 1
        elif isinstance(op, exp.Mul):
            p, s = x.p + y.p + 1, x.s + y.s
        else:  # %
            s = max(x.s, y.s)
            p = min(x.p - x.s, y.p - y.s) + s
        return Ty("decimal", p, s) if p <= MAX_PRECISION else Ty("decimal", p, s, exact=False)
    widest = _widest(a, b)
    if widest is not None and widest.cls in ("double", "float"):  # with a short literal too
        return widest
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
            inner = self(node.this)
            return inner if inner.cls in ("int", "decimal", "double", "float", "interval") else UNKNOWN
        if isinstance(node, (exp.Predicate, exp.Not, exp.And, exp.Or, exp.Exists)):
            return BOOL
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)):
            return _arith(node, self(node.this), self(node.expression))
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
                return Ty("decimal", p, s, exact=inner.exact)
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
                return Ty("decimal", min(inner.p - inner.s + 1, MAX_PRECISION), 0)
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
            return Ty(inner.cls, exact=False) if inner.cls in ("decimal", "double", "float", "int") else UNKNOWN
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
            widest = _widest(result, self(n))
            if widest is None:
                return UNKNOWN
            result = widest
        return result


# --------------------------------------------------------------------------------------------------
# the sites


def _unify_issue(a: Ty, b: Ty) -> str | None:
    """Why ``a`` and ``b`` are not a proven pair to unify, or None."""
    if _double_and_short_literal(a, b):
        return None
    if frozenset((a.cls, b.cls)) not in UNIFY:
        return f"{a} with {b} is not a proven pair: the engines convert them differently or not at all"
    if a.cls == b.cls and a.cls in ("array", "struct", "map") and a.text != b.text:
        return f"{a} with {b}: nested values of different types"
    if {a.cls, b.cls} <= {"int", "decimal"} and "decimal" in (a.cls, b.cls):
        x, y = _int_as_decimal(a), _int_as_decimal(b)
        if not (x.exact and y.exact):
            return f"{a} with {b}: the decimal's precision and scale are not known exactly (write a CAST)"
        if _widest(x, y) is None:
            return f"{a} with {b}: Spark's common type needs more than 38 digits, so it lowers the scale"
    return None


def _unification_operands(node: exp.Expr, typer: Typer) -> list[tuple[exp.Expr, exp.Expr]] | None:
    if isinstance(node, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)):
        return [(node.this, node.expression)]
    if isinstance(node, exp.Between):
        return [(node.this, node.args["low"]), (node.this, node.args["high"])]
    if isinstance(node, exp.In):
        query = node.args.get("query")
        if query is not None:
            inner = query.this if isinstance(query, exp.Subquery) else query
            selects = inner.selects if isinstance(inner, exp.Query) else []
            return [(node.this, s) for s in selects[:1]]
        return [(node.this, e) for e in node.expressions]
    if isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least)):
        return list(combinations([node.this, *node.expressions], 2))
    if isinstance(node, exp.Nullif):
        return [(node.this, node.expression)]
    if isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
        true, false = node.args.get("true"), node.args.get("false")
        return [(true, false)] if true is not None and false is not None else []
    if isinstance(node, exp.Case):
        ifs = node.args.get("ifs") or []
        values = [i.args.get("true") for i in ifs]
        if node.args.get("default") is not None:
            values.append(node.args["default"])
        pairs = list(combinations([v for v in values if v is not None], 2))
        if node.this is not None:  # CASE x WHEN v: each v is compared with x
            pairs += [(node.this, i.this) for i in ifs]
        return pairs
    if isinstance(node, exp.SetOperation):
        left, right = node.left, node.right
        if isinstance(left, exp.Query) and isinstance(right, exp.Query):
            return list(zip(_columns(left), _columns(right), strict=False))
    return None


def _columns(query: exp.Query) -> list[exp.Expr]:
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.SetOperation):
        return _columns(query.left)  # the left branch's columns name the result; the gate checks both
    return [s.this if isinstance(s, exp.Alias) else s for s in query.selects]


def _boolean_operands(node: exp.Expr) -> Iterator[exp.Expr]:
    if isinstance(node, (exp.Where, exp.Having, exp.Qualify)):
        yield node.this
    elif isinstance(node, exp.Join) and node.args.get("on") is not None:
        yield node.args["on"]
    elif (
        isinstance(node, exp.If) and not (isinstance(node.parent, exp.Case) and node.parent.this)
    ) or isinstance(node, exp.Not):
        yield node.this
    elif isinstance(node, (exp.And, exp.Or)):
        yield node.this
        yield node.expression
    elif isinstance(node, (exp.LogicalAnd, exp.LogicalOr)):
        yield node.this


_PREDICATES = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.Is,
    exp.Between,
    exp.In,
    exp.Like,
    exp.ILike,
)


def _precedence(node: exp.Expr) -> exp.Expr | None:
    """An operand of a predicate that is itself a predicate or ``NOT`` without parentheses."""
    if not isinstance(node, _PREDICATES):
        return None
    for key in ("this", "expression", "low", "high"):
        child = node.args.get(key)
        if isinstance(child, (*_PREDICATES, exp.Not)):
            return child
    return None


def gate(tree: exp.Expr, ctx: Context) -> None:
    """Refuse, in ``ctx``, every site of ``tree`` whose signature is not proven (see the module)."""
    if (ctx.source, ctx.target) not in GATED:
        return
    typer = Typer(ctx.source, tree)
    for node in tree.walk():
        _check(node, typer, ctx)


def _check(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    nested = _precedence(node)
    if nested is not None:
        ctx.add(
            "precedence",
            node,
            "a predicate directly inside another is grouped differently by Spark and DuckDB (add parentheses)",
        )
    pairs = _unification_operands(node, typer)
    for a, b in pairs or ():
        why = _unify_issue(typer(a), typer(b))
        if why is not None:
            ctx.add("type-signature", node, why)
            break
    if isinstance(node, (exp.Lag, exp.Lead)):
        default = node.args.get("default")
        if default is not None:
            value, fallback = typer(node.this), typer(default)
            same = value.cls == fallback.cls and (value.cls != "decimal" or value == fallback)
            if fallback.cls != "null" and not same:
                ctx.add(
                    "type-signature",
                    node,
                    f"a {fallback} default for a {value} value: the engines convert it differently (CAST it to the value's type)",
                )
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)):
        _arithmetic(node, typer, ctx)
    if isinstance(node, (exp.Sum, exp.Avg)):
        inner = typer(node.this)
        grown = inner.p + (10 if isinstance(node, exp.Sum) else 4)
        if (
            inner.cls == "decimal"
            and (not inner.exact or grown > MAX_PRECISION)
            and isinstance(node, exp.Avg)
        ):
            ctx.add(
                "decimal-precision",
                node,
                f"avg of {inner}: Spark's result type would need {grown} digits, so it lowers the scale",
            )
    for operand in _boolean_operands(node):
        t = typer(operand)
        if t.cls not in BOOLEAN_OPERANDS:
            ctx.add(
                "boolean-context",
                operand,
                f"a {t} where a BOOLEAN is needed: DuckDB converts it, Spark refuses it (compare it explicitly)",
            )
    if isinstance(node, exp.Pow):
        base, exponent = typer(node.this), typer(node.expression)
        if frozenset((base.cls, exponent.cls)) not in POW_OPERANDS:
            ctx.add(
                "libm",
                node,
                f"power of {base} and {exponent} differs in the last bit between Java's StrictMath and the C library",
            )


def _arithmetic(node: exp.Expr, typer: Typer, ctx: Context) -> None:
    a, b = typer(node.this), typer(node.expression)
    if frozenset((a.cls, b.cls)) not in ARITHMETIC and not _double_and_short_literal(a, b):
        ctx.add(
            "type-signature",
            node,
            f"arithmetic on {a} and {b} is not a proven pair: the engines compute it in other types",
        )
        return
    if {a.cls, b.cls} <= {"int", "decimal"} and "decimal" in (a.cls, b.cls):
        result = typer(node)
        if isinstance(node, exp.Div):
            # the division rules (edges.py) size their CAST from the operands' annotated types
            for operand, ty in ((node.this, a), (node.expression, b)):
                known = type_of(operand)
                params = decimal_params(known) if known is not None and known.this == _T.DECIMAL else None
                if ty.cls == "decimal" and (not ty.exact or params != (ty.p, ty.s)):
                    ctx.add(
                        "decimal-precision",
                        node,
                        f"division of {a} by {b}: Spark's decimal type of an operand is not known exactly (write a CAST)",
                    )
                    return
        elif not result.exact:
            what = (
                "are not known exactly (write a CAST)" if result.p == 0 else f"would need {result.p} digits"
            )
            ctx.add(
                "decimal-precision",
                node,
                f"decimal arithmetic on {a} and {b}: Spark's result precision and scale {what}, and Spark lowers the scale beyond 38",
            )


SiteCheck = Callable[[exp.Expr, Typer, Context], None]

GATE_CODES = frozenset({"type-signature", "decimal-precision", "boolean-context", "precedence", "libm"})
"""The refusal codes of :func:`gate`."""
