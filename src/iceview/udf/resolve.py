"""Which definition of a SQL UDF a call uses: the UDF spec's resolution rules, one answer for
every engine.

The spec leaves casting to engines but asks them to prefer exact matches, widen safely when no
definition matches exactly, require explicit casts for unsafe or non-obvious conversions, match
the number of arguments, pass positional arguments in place, and match named arguments by the
set of parameter names. iceview decides it once, here, on Iceberg types:

* a definition is a candidate when it has as many parameters as the call has arguments (and, for
  named arguments, exactly their names), and each argument is of its parameter's type or widens
  to it safely (:func:`widening_cost`: lossless only);
* a candidate that matches exactly wins; else the one that is at least as close as every other
  candidate in every argument, and closer in one; when none is, the call is ambiguous
  (:class:`~iceview.errors.AmbiguousFunctionCallError`: cast the arguments);
* an untyped ``NULL`` argument (``None``) fits any parameter, at the cost of one widening, so
  ``f(NULL)`` with ``f(int)`` and ``f(string)`` is ambiguous.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from iceview.errors import AmbiguousFunctionCallError, InvalidArgumentError, NoMatchingDefinitionError
from iceview.spec.jsonutil import shorten
from iceview.spec.primitives import DECIMAL
from iceview.udf.model import FunctionDefinition, FunctionMetadata
from iceview.udf.types import DataType, ListType, MapType, PrimitiveType, StructType, canonical

__all__ = ["resolve_definition", "widening_cost"]

_NULL_COST = 1

# (from, to) -> cost: the lossless widenings between primitives (decimals apart); the cost orders
# them, so that an int prefers long to a decimal and a decimal to double
_PRIMITIVE_WIDENINGS: dict[tuple[str, str], int] = {
    ("int", "long"): 1,
    ("int", "double"): 3,  # every int is exact in a double's 53 bits; long is not
    ("float", "double"): 1,
    ("timestamp", "timestamp_ns"): 1,
    ("timestamptz", "timestamptz_ns"): 1,
}
# integers into a decimal with room for every value: digits before the point
_INTEGER_DIGITS = {"int": 10, "long": 19}


def _decimal(name: str) -> tuple[int, int] | None:
    m = DECIMAL.fullmatch(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _primitive_cost(source: str, target: str) -> int | None:
    if source == target:
        return 0
    found = _PRIMITIVE_WIDENINGS.get((source, target))
    if found is not None:
        return found
    to_decimal = _decimal(target)
    if to_decimal is None:
        return None
    precision, scale = to_decimal
    if source in _INTEGER_DIGITS:
        return (1 if source == "long" else 2) if precision - scale >= _INTEGER_DIGITS[source] else None
    from_decimal = _decimal(source)
    if from_decimal is not None:
        p, s = from_decimal
        return 1 if scale >= s and precision - scale >= p - s else None
    return None


def widening_cost(argument: DataType | None, parameter: DataType) -> int | None:
    """How far ``argument`` widens to ``parameter`` without losing anything: 0 for the same type,
    more the further it goes, None when it cannot (narrowing, a change of kind, or a lossy
    conversion such as long to double). ``None`` (an untyped NULL) fits anything."""
    if argument is None:
        return _NULL_COST
    if isinstance(argument, PrimitiveType) and isinstance(parameter, PrimitiveType):
        return _primitive_cost(argument.name, parameter.name)
    if isinstance(argument, ListType) and isinstance(parameter, ListType):
        return widening_cost(argument.element, parameter.element)
    if isinstance(argument, MapType) and isinstance(parameter, MapType):
        key = widening_cost(argument.key, parameter.key)
        value = widening_cost(argument.value, parameter.value)
        return None if key is None or value is None else key + value
    if isinstance(argument, StructType) and isinstance(parameter, StructType):
        if argument.field_names != parameter.field_names:
            return None
        total = 0
        for (_, a), (_, p) in zip(argument.fields, parameter.fields, strict=True):
            cost = widening_cost(a, p)
            if cost is None:
                return None
            total += cost
        return total
    return None


def _shown(types: Sequence[DataType | None]) -> str:
    return ", ".join("NULL" if t is None else canonical(t) for t in types)


def resolve_definition(
    metadata: FunctionMetadata,
    arguments: Sequence[DataType | None] = (),
    *,
    named: Mapping[str, DataType | None] | None = None,
    function: str = "function",
) -> FunctionDefinition:
    """The definition of ``metadata`` a call with ``arguments`` (positional types, in order; None
    for an untyped NULL) or ``named`` arguments (``{parameter name: type}``) uses. ``function``
    names the function in messages. Raises :class:`~iceview.errors.NoMatchingDefinitionError` or
    :class:`~iceview.errors.AmbiguousFunctionCallError`."""
    if not isinstance(metadata, FunctionMetadata):
        raise InvalidArgumentError(f"Invalid function metadata: {shorten(metadata)}")
    if named is not None and arguments:
        raise InvalidArgumentError("Cannot resolve a call with both positional and named arguments")
    costed: list[tuple[FunctionDefinition, tuple[int, ...]]] = []
    for definition in metadata.definitions:
        parameters = definition.parameters
        if named is not None:
            # rule 6: the same set of names (compared as engines resolve names: case-insensitively)
            by_name = {p.name.casefold(): p for p in parameters}
            wanted = {name.casefold(): t for name, t in named.items()}
            if len(wanted) != len(named) or set(by_name) != set(wanted):
                continue
            pairs = [(wanted[p.name.casefold()], p.type) for p in parameters]
        else:
            if len(parameters) != len(arguments):
                continue
            pairs = [(a, p.type) for a, p in zip(arguments, parameters, strict=True)]
        found = [widening_cost(a, p) for a, p in pairs]
        if all(c is not None for c in found):
            costed.append((definition, tuple(c for c in found if c is not None)))
    call = (
        f"{function}({', '.join(f'{k} => ' + ('NULL' if t is None else canonical(t)) for k, t in named.items())})"
        if named is not None
        else f"{function}({_shown(arguments)})"
    )
    if not costed:
        known = "; ".join(f"({d.signature()})" for d in metadata.definitions)
        raise NoMatchingDefinitionError(
            f"No definition of {call} takes these arguments without an unsafe conversion "
            f"(its definitions: {known}); cast the arguments"
        )
    for definition, costs in costed:
        if not any(costs):
            return definition
    best = [
        (d, costs)
        for d, costs in costed
        if all(
            other is d or (all(a <= b for a, b in zip(costs, others, strict=True)) and costs != others)
            for other, others in costed
        )
    ]
    if len(best) == 1:
        return best[0][0]
    tied = "; ".join(f"({d.signature()})" for d, _ in costed)
    raise AmbiguousFunctionCallError(
        f"The call {call} matches several definitions equally after widening ({tied}); cast the "
        "arguments to choose one"
    )
