"""Function arguments by type signature: for the directions whose signatures are proven by
execution (Spark <-> DuckDB), a function translates only when every argument's class (by Spark's
typing, :class:`~.spark_typing.Typer`) is one the generated queries ran it with.

:data:`FUNCTION_ARGS` is keyed by sqlglot's class and then by argument: the classes each argument
was run with. They are what ``tests/translate/generated/grammar.py`` draws for that argument: its
own type, the values of another type it draws on purpose (a string where a number is wanted, a
timestamp where a date is), NULL, and, for literal arguments, the literal's class; a test keeps
the two equal. An argument of another class (a ``BINARY``, an array, a map, an interval, a value
the typing cannot name), an argument the table does not list, or a function the table does not
have is refused with ``type-signature``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from sqlglot import exp

from iceview.sql.translate.policy import Context
from iceview.sql.translate.spark_typing import Typer

Classes = frozenset[str] | None
"""The classes an argument was run with; None: not a value (a unit, a format) that other rules check."""

NUMBER = frozenset({"int", "decimal", "float", "double", "text", "null"})
"""An argument wanting a number: numbers, and the strings, integers, decimals and doubles drawn
in its place."""
TEXT = frozenset({"text", "int", "decimal", "float", "double", "date", "bool", "null"})
"""An argument wanting a string: strings, and the numbers, dates and booleans drawn in its place
(the text forms that differ, of doubles and timestamps, are refused by ``cast-semantics``)."""
DATE = frozenset({"date", "text", "timestamp", "timestamp_ntz", "null"})
"""An argument wanting a date or a timestamp: dates, timestamps of both kinds and strings."""
BOOLEAN = frozenset({"bool", "text", "int", "null"})
"""An argument wanting a BOOLEAN (the boolean-context site refuses what is not one)."""
INTEGER = frozenset({"int literal"})
"""An integer literal argument (lengths, positions, offsets, digits): the generated queries draw
literals there, so a column or an expression is not proven."""
INT_VALUE = frozenset({"int", "text", "decimal", "double", "null"})
"""An integer value computed from the data (``date_add``'s days)."""
ANY = frozenset(
    {"int", "decimal", "float", "double", "text", "date", "timestamp", "timestamp_ntz", "bool", "null"}
)
"""Any comparable scalar (not a binary, nested value or interval)."""
LITERAL_TEXT = frozenset({"text literal"})
ARRAY = frozenset({"array"})

_ONE_NUMBER = {"this": NUMBER}
_ONE_TEXT = {"this": TEXT}
_ONE_DATE = {"this": DATE}

FUNCTION_ARGS: Mapping[str, Mapping[str, Classes]] = {
    # numbers
    "Abs": _ONE_NUMBER,
    "Ceil": _ONE_NUMBER,
    "Floor": _ONE_NUMBER,
    "Round": {"this": NUMBER, "decimals": INTEGER},
    "Sqrt": _ONE_NUMBER,
    "Pow": {"this": NUMBER, "expression": NUMBER},
    "Sign": _ONE_NUMBER,
    "Ln": _ONE_NUMBER,
    "Exp": _ONE_NUMBER,
    "Greatest": {"this": ANY, "expressions": ANY},
    "Least": {"this": ANY, "expressions": ANY},
    # strings
    "Length": _ONE_TEXT,
    "Upper": _ONE_TEXT,
    "Lower": _ONE_TEXT,
    "Trim": {"this": TEXT},
    "Reverse": _ONE_TEXT,
    "MD5": _ONE_TEXT,
    "StartsWith": {"this": TEXT, "expression": TEXT},
    "StrPosition": {"this": TEXT, "substr": TEXT},
    "Replace": {"this": TEXT, "expression": TEXT, "replacement": TEXT},
    "Left": {"this": TEXT, "expression": INTEGER},
    "Right": {"this": TEXT, "expression": INTEGER},
    "Substring": {"this": TEXT, "start": INTEGER, "length": INTEGER},
    "Concat": {"expressions": TEXT},
    "ConcatWs": {"expressions": TEXT},
    "Repeat": {"this": TEXT, "times": INTEGER},
    "Pad": {"this": TEXT, "expression": INTEGER, "fill_pattern": LITERAL_TEXT},
    # dates and times
    "Year": _ONE_DATE,
    "Month": _ONE_DATE,
    "Day": _ONE_DATE,
    "DayOfMonth": _ONE_DATE,
    "DayOfWeek": _ONE_DATE,
    "Quarter": _ONE_DATE,
    "WeekOfYear": _ONE_DATE,
    "Hour": _ONE_DATE,
    "Minute": _ONE_DATE,
    "Second": _ONE_DATE,
    "Extract": {"this": None, "expression": DATE},
    "DateDiff": {"this": DATE, "expression": DATE, "unit": None},
    "TimeToStr": {"this": DATE, "format": None},
    "TsOrDsToDate": {"this": ANY, "format": None},
    "TsOrDsAdd": {"this": DATE, "expression": INT_VALUE, "unit": None},
    "AddMonths": {"this": DATE, "expression": INTEGER},
    "LastDay": _ONE_DATE,
    "DateTrunc": {"this": DATE, "unit": None},
    "TimestampTrunc": {"this": DATE, "unit": None},
    # conditionals
    "Coalesce": {"this": ANY, "expressions": ANY},
    "Nullif": {"this": ANY, "expression": ANY},
    "If": {"this": BOOLEAN, "true": ANY, "false": ANY},
    # arrays and structs
    "ArrayContains": {"this": ARRAY, "expression": TEXT},
    "Array": {"expressions": ANY},
    "Struct": {"expressions": ANY},
    # aggregates
    "Count": {"this": ANY},
    "Sum": _ONE_NUMBER,
    "Avg": _ONE_NUMBER,
    "Min": {"this": ANY},
    "Max": {"this": ANY},
    "CountIf": {"this": BOOLEAN},
    "LogicalAnd": {"this": BOOLEAN},
    "LogicalOr": {"this": BOOLEAN},
    "Stddev": _ONE_NUMBER,
    "VariancePop": _ONE_NUMBER,
    "ArrayAgg": {"this": ANY},
    # windows
    "RowNumber": {},
    "Rank": {},
    "DenseRank": {},
    "PercentRank": {},
    "CumeDist": {},
    "Ntile": {"this": INTEGER},
    "Lag": {"this": ANY, "offset": INTEGER, "default": ANY},
    "Lead": {"this": ANY, "offset": INTEGER, "default": ANY},
    "FirstValue": {"this": ANY},
    "LastValue": {"this": ANY},
}
"""Per function (sqlglot's class name) and argument: the classes it was run with (see the module)."""

CHECKED_ELSEWHERE = frozenset(
    {"And", "Or", "Not", "Exists", "Case", "Cast", "TryCast", "Explode", "TimeStrToTime"}
)
"""Allowed functions whose operands other sites check: logic (boolean contexts), ``CASE``
(unification), casts (the proven casts), ``explode`` (a row generator, not a value; its rules
keep only arrays and maps) and sqlglot's wrapper of a string given to ``date_format`` (checked as
``TimeToStr``'s argument)."""


def _values(value: object) -> Iterator[exp.Expr]:
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, exp.Expr):
            yield item


def _operand(node: exp.Expr) -> exp.Expr | None:
    """The value an argument holds (a ``DISTINCT``'s, a named struct field's); None for ``*``."""
    if isinstance(node, exp.Star):
        return None
    if isinstance(node, (exp.PropertyEQ, exp.Slice)):
        value: exp.Expr = node.expression
        return value
    if isinstance(node, exp.Alias):
        inner: exp.Expr = node.this
        return inner
    return node


def _is_literal(node: exp.Expr) -> bool:
    inner = node.this if isinstance(node, exp.Neg) else node
    return isinstance(inner, exp.Literal)


def _of_class(node: exp.Expr, cls: str, classes: frozenset[str]) -> bool:
    return cls in classes or (f"{cls} literal" in classes and _is_literal(node))


def check_function(node: exp.Expr, typer: Typer, ctx: Context, allowed: frozenset[str]) -> None:
    """Refuse ``node`` in ``ctx`` when it is an allowed function (its class name in ``allowed``)
    called with an argument of a class :data:`FUNCTION_ARGS` does not list for it."""
    name = type(node).__name__
    if not isinstance(node, exp.Func) or name not in allowed or name in CHECKED_ELSEWHERE:
        return
    table = FUNCTION_ARGS.get(name)
    if table is None:
        ctx.add("type-signature", node, f"{name} has no argument types proven by execution")
        return
    for key, value in node.args.items():
        for arg in _values(value):
            if isinstance(arg, exp.Distinct):
                operands = [_operand(e) for e in arg.expressions]
            else:
                operands = [_operand(arg)]
            for operand in operands:
                if operand is None:
                    continue
                if key not in table:
                    ctx.add(
                        "type-signature", node, f"{name} with an argument {key!r} is not a proven signature"
                    )
                    return
                classes = table[key]
                if classes is None:
                    continue
                t = typer(operand)
                if _of_class(operand, t.cls, classes):
                    continue
                what = f"{t} literal" if _is_literal(operand) else str(t)
                ctx.add(
                    "type-signature",
                    node,
                    f"{name}({key}: {what}) is not a proven signature: the engines were never run on it",
                )
                return


def function_signatures() -> dict[str, list[str]]:
    """The proven argument classes per function, as ``docs/translation.md`` lists them."""
    out: dict[str, list[str]] = {}
    for name, table in sorted(FUNCTION_ARGS.items()):
        parts = [f"{key}: {', '.join(sorted(c))}" for key, c in table.items() if c is not None]
        out[name] = parts or ["no arguments"]
    return out
