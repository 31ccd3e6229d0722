"""Trino's implicit coercions, on sqlglot's Trino types: whether Trino would accept a value of one
type where a column of another is stored (``StatementAnalyzer.checkViewStaleness`` asks
``TypeCoercion.canCoerce(query column type, stored type)``).

Reference: Trino's documentation, "Conversion functions" (https://trino.io/docs/current/functions/conversion.html:
Trino converts numeric and character values implicitly where possible, never between character
and numeric types) and "Data types" (https://trino.io/docs/current/language/types.html). The
rules below are Trino's widening coercions: integers to wider integers, to decimals that hold them
and to floating point; decimals to decimals with at least as many integer and fraction digits and to
floating point; ``real`` to ``double``; ``varchar(n)`` to a longer or unbounded ``varchar``;
``date`` to ``timestamp``; a timestamp to one of at least its precision or to a timestamp with time
zone; arrays, maps and rows element by element. Anything else (a narrowing such as ``bigint`` into
``integer``) is not coerced: a view with it is stale.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["can_coerce"]

_T = exp.DataType.Type

_INTEGER_DIGITS = {_T.TINYINT: 3, _T.SMALLINT: 5, _T.INT: 10, _T.BIGINT: 19}
_INTEGER_ORDER = [_T.TINYINT, _T.SMALLINT, _T.INT, _T.BIGINT]
_FLOATING = {_T.FLOAT, _T.DOUBLE}
_TEXT = {_T.VARCHAR, _T.TEXT}
_TIMESTAMPS = {_T.TIMESTAMP, _T.TIMESTAMPTZ}
_DEFAULT_PRECISION = {_T.TIMESTAMP: 3, _T.TIMESTAMPTZ: 3, _T.TIME: 3}


def _ints(t: exp.DataType) -> list[int]:
    out: list[int] = []
    for p in t.expressions:
        if isinstance(p, exp.DataTypeParam) and isinstance(p.this, exp.Literal) and p.this.is_int:
            out.append(int(p.this.name))
    return out


def _decimal(t: exp.DataType) -> tuple[int, int]:
    params = _ints(t)
    return (params[0] if params else 38, params[1] if len(params) > 1 else 0)


def _precision(t: exp.DataType) -> int:
    params = _ints(t)
    return params[0] if params else _DEFAULT_PRECISION.get(t.this, 0)


def _children(t: exp.DataType) -> list[exp.DataType]:
    out: list[exp.DataType] = []
    for e in t.expressions:
        if isinstance(e, exp.DataType):
            out.append(e)
        elif isinstance(e, exp.ColumnDef) and isinstance(e.args.get("kind"), exp.DataType):
            out.append(e.args["kind"])
    return out


def _same(a: exp.DataType, b: exp.DataType) -> bool:
    return a.sql("trino").replace(" ", "").upper() == b.sql("trino").replace(" ", "").upper()


def can_coerce(source: exp.DataType, target: exp.DataType) -> bool:
    """Whether Trino coerces a value of type ``source`` implicitly to ``target`` (both as sqlglot
    parses Trino's type names)."""
    if _same(source, target) or source.this == _T.NULL:
        return True
    s, t = source.this, target.this
    if s in _INTEGER_DIGITS:
        if t in _INTEGER_DIGITS:
            return _INTEGER_ORDER.index(s) <= _INTEGER_ORDER.index(t)
        if t == _T.DECIMAL:
            p, sc = _decimal(target)
            return p - sc >= _INTEGER_DIGITS[s]
        return t in _FLOATING
    if s == _T.DECIMAL:
        if t == _T.DECIMAL:
            (p1, s1), (p2, s2) = _decimal(source), _decimal(target)
            return s2 >= s1 and p2 - s2 >= p1 - s1
        return t in _FLOATING
    if s == _T.FLOAT:
        return t in _FLOATING
    if s in _TEXT and t in _TEXT:
        bound = _ints(target)
        return not bound or (bool(_ints(source)) and _ints(source)[0] <= bound[0])
    if s == _T.DATE:
        return t in _TIMESTAMPS
    if s in _TIMESTAMPS and t in _TIMESTAMPS:
        if s == _T.TIMESTAMPTZ and t == _T.TIMESTAMP:
            return False
        return _precision(source) <= _precision(target)
    if s == t and s in (_T.ARRAY, _T.MAP, _T.STRUCT):
        a, b = _children(source), _children(target)
        return len(a) == len(b) and all(can_coerce(x, y) for x, y in zip(a, b, strict=True))
    return False
