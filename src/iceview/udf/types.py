"""The types of UDF parameters and return values (UDF spec, "Types" and "Definition ID").

A type is a :class:`PrimitiveType` (``int``, ``decimal(9,2)``, ``fixed[16]``, ``variant``, ...), a
:class:`ListType`, a :class:`MapType` or a :class:`StructType`. In JSON a primitive is its type
string and a nested type an object with only the fields the spec requires::

    "int"
    {"type": "list", "element": "int"}
    {"type": "map", "key": "string", "value": "int"}
    {"type": "struct", "fields": [{"name": "id", "type": "int"}]}

Reading is lenient: primitive names in any case and with spaces inside their parentheses (as
Java's ``Types.fromPrimitiveString`` takes them), and every other field of a type object
(``element-id``, ``element-required``, ``id``, ``required``, ...) ignored. Writing is canonical:
lower-case names, no spaces. :func:`canonical` gives a type's spelling in a definition-id
(``struct<id:int,name:string>``) and :func:`definition_id` a whole signature's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from iceview.errors import InvalidArgumentError
from iceview.spec.jsonutil import INT_MAX, child, fail, get_field, get_string, node_str, shorten
from iceview.spec.primitives import DECIMAL, FIXED, PRIMITIVE_NAMES

__all__ = [
    "EDGE_ALGORITHMS",
    "MAX_TYPE_DEPTH",
    "DataType",
    "ListType",
    "MapType",
    "PrimitiveType",
    "StructType",
    "ambiguous_crs",
    "ambiguous_field_names",
    "canonical",
    "check_depth",
    "definition_id",
    "matches_definition_id",
    "parse_type",
    "too_deep",
    "type_to_json",
]

MAX_TYPE_DEPTH = 100
"""How deeply types may nest (``list<list<...>>``): deeper ones are refused when read, made into
a definition, written, or spelled (:func:`canonical`, :func:`type_to_json`, :func:`definition_id`)."""

EDGE_ALGORITHMS = ("spherical", "vincenty", "thomas", "andoyer", "karney")
"""Iceberg's edge interpolation algorithms of a ``geography(crs,algorithm)`` (any case when read,
written lower-case)."""

# a CRS is kept as written (it is case-sensitive); the UDF spec allows no spaces or quotes in it
_GEOMETRY = re.compile(r"geometry\s*\(\s*([^\s,()'\"]+)\s*\)", re.ASCII | re.IGNORECASE)
_GEOGRAPHY = re.compile(
    r"geography\s*\(\s*([^\s,()'\"]+)\s*(?:,\s*([A-Za-z0-9_]+)\s*)?\)", re.ASCII | re.IGNORECASE
)
_ASCII_SPACE = " \t\n\r\f\v"
# what a struct field name in a parameter type may not contain: the definition-id could not be
# read back unambiguously (reads accept them; see ambiguous_field_names)
_AMBIGUOUS = re.compile(r"[\s,:<>`\"']")
# what a CRS in a parameter type may not contain, for the same reason; ':' is fine there (it is
# inside the parentheses, and "srid:4326" is the spec's own form)
_AMBIGUOUS_CRS = re.compile(r"[\s,<>`\"']")
_CRS = re.compile(r"(?:geometry|geography)\(([^,()]*)", re.IGNORECASE)


def _primitive_or_error(text: str) -> str:
    """The canonical spelling of a primitive type string, or raise ``ValueError`` with the reason.
    Not the view schema's reader (:mod:`iceview.spec.schema`): a definition-id wants no spaces
    (``decimal(9,2)``, Java writes ``decimal(9, 2)``), sizes Java can hold and a well-formed CRS."""
    lower = text.lower()
    if lower in PRIMITIVE_NAMES:
        return lower
    m = FIXED.fullmatch(lower)
    if m and int(m.group(1)) <= INT_MAX:
        return f"fixed[{int(m.group(1))}]"
    m = DECIMAL.fullmatch(lower)
    if m and int(m.group(1)) <= INT_MAX and int(m.group(2)) <= INT_MAX:
        precision, scale = int(m.group(1)), int(m.group(2))
        if precision > 38:
            raise ValueError(f"Decimals with precision larger than 38 are not supported: {precision}")
        return f"decimal({precision},{scale})"
    m = _GEOMETRY.fullmatch(text)
    if m:
        return f"geometry({m.group(1)})"
    m = _GEOGRAPHY.fullmatch(text)
    if m:
        algorithm = m.group(2)
        if algorithm and algorithm.lower() not in EDGE_ALGORITHMS:
            raise ValueError(f"Invalid edge interpolation algorithm: {shorten(algorithm, raw=True)}")
        return f"geography({m.group(1)}{',' + algorithm.lower() if algorithm else ''})"
    raise ValueError(f"Cannot parse type string to primitive: {shorten(text, raw=True)}")


@dataclass(frozen=True, slots=True)
class PrimitiveType:
    """A primitive or semi-structured type. ``name`` is canonical: made from any spelling Java
    accepts (``PrimitiveType("Decimal( 9, 2 )").name == "decimal(9,2)"``); an unknown name raises
    :class:`~iceview.errors.InvalidArgumentError`."""

    name: str

    def __post_init__(self) -> None:
        if type(self.name) is not str:
            raise InvalidArgumentError(f"Invalid primitive type: {shorten(self.name)}")
        try:
            object.__setattr__(self, "name", _primitive_or_error(self.name))
        except ValueError as e:
            raise InvalidArgumentError(str(e)) from None

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ListType:
    """``list<element>``."""

    element: DataType

    def __str__(self) -> str:
        return canonical(self)


@dataclass(frozen=True, slots=True)
class MapType:
    """``map<key,value>``."""

    key: DataType
    value: DataType

    def __str__(self) -> str:
        return canonical(self)


@dataclass(frozen=True, slots=True)
class StructType:
    """``struct<name:type,...>``: ``fields`` is a tuple of ``(name, type)`` pairs, in order."""

    fields: tuple[tuple[str, DataType], ...]

    def __post_init__(self) -> None:
        fields = self.fields
        if fields is None or isinstance(fields, (str, bytes)):
            raise InvalidArgumentError(
                f"Invalid struct fields: {'null' if fields is None else shorten(fields)}"
            )
        if type(fields) is not tuple or not all(type(f) is tuple for f in fields):
            try:
                converted = tuple(tuple(f) if isinstance(f, list) else f for f in fields)
            except TypeError:
                raise InvalidArgumentError(f"Invalid struct fields: {shorten(fields)}") from None
            object.__setattr__(self, "fields", converted)

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.fields)

    def __str__(self) -> str:
        return canonical(self)


DataType = PrimitiveType | ListType | MapType | StructType

# ------------------------------------------------------------------------------------------ read


def parse_type(node: Any, path: str = "$") -> DataType:
    """Read a type from its JSON value, leniently (see the module's docs). Every problem raises
    :class:`~iceview.errors.InvalidMetadataError` at the JSON path of the bad value."""
    return _parse(node, path, 0)


def _parse(node: Any, path: str, depth: int) -> DataType:
    if depth > MAX_TYPE_DEPTH:
        raise fail(f"Cannot parse type: nested more than {MAX_TYPE_DEPTH} levels deep", path)
    if type(node) is str:
        try:
            return PrimitiveType(node)
        except InvalidArgumentError as e:
            raise fail(str(e), path) from None
    if type(node) is dict:
        kind = node.get("type")
        kind = kind.lower() if type(kind) is str else kind
        if kind == "list":
            return ListType(_parse(get_field(node, "element", path), child(path, "element"), depth + 1))
        if kind == "map":
            key = _parse(get_field(node, "key", path), child(path, "key"), depth + 1)
            return MapType(key, _parse(get_field(node, "value", path), child(path, "value"), depth + 1))
        if kind == "struct":
            fields = get_field(node, "fields", path)
            fpath = child(path, "fields")
            if type(fields) is not list:
                raise fail(f"Cannot parse struct fields from non-array: {node_str(fields)}", fpath)
            out: list[tuple[str, DataType]] = []
            for i, field in enumerate(fields):
                ipath = child(fpath, i)
                if type(field) is not dict:
                    raise fail(f"Cannot parse struct field from non-object: {node_str(field)}", ipath)
                name = get_string(field, "name", ipath)
                out.append((name, _parse(get_field(field, "type", ipath), child(ipath, "type"), depth + 1)))
            return StructType(tuple(out))
    raise fail(f"Cannot parse type from json: {node_str(node)}", path)


# ----------------------------------------------------------------------------------------- write


def _children(t: object) -> tuple[object, ...]:
    if isinstance(t, ListType):
        return (t.element,)
    if isinstance(t, MapType):
        return (t.key, t.value)
    if isinstance(t, StructType) and type(t.fields) is tuple:
        return tuple(f[1] for f in t.fields if type(f) is tuple and len(f) == 2)
    return ()


def too_deep(t: object, limit: int = MAX_TYPE_DEPTH) -> bool:
    """Whether ``t`` nests more than ``limit`` levels deep (``list<int>`` is 1 level). Iterative:
    it never raises ``RecursionError``, whatever was built."""
    stack: list[tuple[object, int]] = [(t, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in _children(node))
    return False


def check_depth(t: object, what: str = "type") -> None:
    """Raise :class:`~iceview.errors.InvalidArgumentError` if ``t`` nests more than
    :data:`MAX_TYPE_DEPTH` levels deep (the reader would refuse it)."""
    if too_deep(t):
        raise InvalidArgumentError(f"Invalid {what}: nested more than {MAX_TYPE_DEPTH} levels deep")


def type_to_json(t: DataType) -> str | dict[str, Any]:
    """The JSON value of a type: the canonical string of a primitive, an object with only the
    required fields for a nested type. A type nested more than :data:`MAX_TYPE_DEPTH` levels
    deep raises :class:`~iceview.errors.InvalidArgumentError`."""
    check_depth(t)
    return _to_json(t)


def _to_json(t: DataType) -> str | dict[str, Any]:
    if isinstance(t, PrimitiveType):
        return t.name
    if isinstance(t, ListType):
        return {"type": "list", "element": _to_json(t.element)}
    if isinstance(t, MapType):
        return {"type": "map", "key": _to_json(t.key), "value": _to_json(t.value)}
    if isinstance(t, StructType):
        return {
            "type": "struct",
            "fields": [{"name": name, "type": _to_json(ft)} for name, ft in t.fields],
        }
    raise InvalidArgumentError(f"Invalid type: {shorten(t)}")


def canonical(t: DataType) -> str:
    """A type's spelling in a definition-id: ``int``, ``decimal(9,2)``, ``list<int>``,
    ``map<string,int>``, ``struct<id:int,name:string>``; no spaces. A type nested more than
    :data:`MAX_TYPE_DEPTH` levels deep raises :class:`~iceview.errors.InvalidArgumentError`."""
    check_depth(t)
    return _canonical(t)


def _canonical(t: DataType) -> str:
    if isinstance(t, PrimitiveType):
        return t.name
    if isinstance(t, ListType):
        return f"list<{_canonical(t.element)}>"
    if isinstance(t, MapType):
        return f"map<{_canonical(t.key)},{_canonical(t.value)}>"
    if isinstance(t, StructType):
        return "struct<" + ",".join(f"{name}:{_canonical(ft)}" for name, ft in t.fields) + ">"
    raise InvalidArgumentError(f"Invalid type: {shorten(t)}")


def _walk(t: object, path: str) -> Iterator[tuple[object, str]]:
    """Every type in ``t`` with its JSON path, in document order (iteratively)."""
    stack: list[tuple[object, str]] = [(t, path)]
    while stack:
        node, where = stack.pop()
        yield node, where
        if isinstance(node, ListType):
            stack.append((node.element, child(where, "element")))
        elif isinstance(node, MapType):
            stack.append((node.value, child(where, "value")))
            stack.append((node.key, child(where, "key")))
        elif isinstance(node, StructType) and type(node.fields) is tuple:
            fields = [f for f in enumerate(node.fields) if type(f[1]) is tuple and len(f[1]) == 2]
            for i, (_name, ft) in reversed(fields):
                stack.append((ft, child(child(child(where, "fields"), i), "type")))


def ambiguous_field_names(t: DataType, path: str = "$") -> list[tuple[str, str]]:
    """The struct field names in ``t`` that a definition-id could not carry unambiguously (empty,
    or containing whitespace, ``,`` ``:`` ``<`` ``>`` a backquote or a quote), each with the JSON
    path of its ``name``, in document order."""
    found: list[tuple[str, str]] = []
    for node, where in _walk(t, path):
        if isinstance(node, StructType) and type(node.fields) is tuple:
            for i, f in enumerate(node.fields):
                if type(f) is not tuple or len(f) != 2:
                    continue
                name = f[0]
                if type(name) is not str or not name or _AMBIGUOUS.search(name):
                    found.append((name, child(child(child(where, "fields"), i), "name")))
    return found


def ambiguous_crs(t: DataType, path: str = "$") -> list[tuple[str, str]]:
    """The geometry/geography CRSs in ``t`` that a definition-id could not carry unambiguously
    (containing ``<``, ``>``, a backquote, a quote, whitespace or ``,``), each with the JSON path
    of its type, in document order."""
    found: list[tuple[str, str]] = []
    for node, where in _walk(t, path):
        if isinstance(node, PrimitiveType) and type(node.name) is str:
            m = _CRS.match(node.name)
            if m and _AMBIGUOUS_CRS.search(m.group(1)):
                found.append((node.name, where))
    return found


def definition_id(types: Sequence[DataType]) -> str:
    """The definition-id of a signature: the parameters' canonical types joined by ``,`` (the
    empty string for no parameters). Strict: a type nested more than :data:`MAX_TYPE_DEPTH`
    levels deep, or a struct field name or a CRS that would make it ambiguous, raises
    :class:`~iceview.errors.InvalidArgumentError` naming the parameter."""
    if isinstance(types, (str, bytes)) or not isinstance(types, Sequence):
        raise InvalidArgumentError(f"Invalid parameter types: {shorten(types)} (a sequence of types)")
    for index, t in enumerate(types):
        check_depth(t, f"type of parameter {index}")
        for name, where in ambiguous_field_names(t, f"$.parameters[{index}].type"):
            raise InvalidArgumentError(
                f"Invalid struct field name {shorten(name)} in parameter {index} (at {where}): a definition-id "
                "cannot carry an empty name or one with whitespace, ',', ':', '<', '>', '`', '\"' or \"'\""
            )
        for crs, where in ambiguous_crs(t, f"$.parameters[{index}].type"):
            raise InvalidArgumentError(
                f"Invalid CRS in {shorten(crs, raw=True)} in parameter {index} (at {where}): a definition-id "
                "cannot carry a CRS with whitespace, ',', '<', '>', '`', '\"' or \"'\""
            )
    return ",".join(_canonical(t) for t in types)


# ------------------------------------------------------------------ lenient definition-id match


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in _ASCII_SPACE:
        i += 1
    return i


# a primitive's token: a name, then optionally its parameters in () or []
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*(?:\([^()<>]*\)|\[[^\[\]<>]*\]))?", re.ASCII)


def _keyword(text: str, i: int, word: str) -> int | None:
    """The position after ``word<`` (any case, spaces allowed before ``<``), or ``None``."""
    end = i + len(word)
    if text[i:end].lower() != word:
        return None
    end = _skip_space(text, end)
    return end + 1 if text[end : end + 1] == "<" else None


def _close(text: str, ends: Iterator[int], mark: str) -> Iterator[int]:
    for j in ends:
        j = _skip_space(text, j)
        if text[j : j + 1] == mark:
            yield j + 1


def _match(t: DataType, text: str, i: int) -> Iterator[int]:
    """Every position at which a spelling of ``t`` that starts at ``i`` can end."""
    i = _skip_space(text, i)
    if isinstance(t, PrimitiveType):
        m = _TOKEN.match(text, i)
        if m:
            try:
                if _primitive_or_error(m.group()) == t.name:
                    yield m.end()
            except ValueError:
                pass
    elif isinstance(t, ListType):
        start = _keyword(text, i, "list")
        if start is not None:
            yield from _close(text, _match(t.element, text, start), ">")
    elif isinstance(t, MapType):
        start = _keyword(text, i, "map")
        if start is not None:
            for j in _close(text, _match(t.key, text, start), ","):
                yield from _close(text, _match(t.value, text, j), ">")
    elif isinstance(t, StructType):
        start = _keyword(text, i, "struct")
        if start is not None:
            yield from _close(text, _fields(t.fields, text, start), ">")


def _fields(fields: tuple[tuple[str, DataType], ...], text: str, i: int) -> Iterator[int]:
    if not fields:
        yield i
        return
    (name, ft), rest = fields[0], fields[1:]
    # the name is matched exactly; one with leading spaces may or may not follow a space
    for start in dict.fromkeys((i, _skip_space(text, i))):
        if not text.startswith(name, start):
            continue
        colon = _skip_space(text, start + len(name))
        if text[colon : colon + 1] != ":":
            continue
        for j in _match(ft, text, colon + 1):
            if not rest:
                yield j
                continue
            j = _skip_space(text, j)
            if _comma_at(text, j):
                yield from _fields(rest, text, j + 1)


def _comma_at(text: str, j: int) -> bool:
    return text[j : j + 1] == ","


def matches_definition_id(text: str, types: Sequence[DataType]) -> bool:
    """Whether ``text`` spells the definition-id of ``types`` as a lenient reader takes it: spaces
    around the parts and in a primitive's parentheses, and any case in type names, are tolerated;
    struct field names must be exactly as the types have them."""

    def from_param(k: int, i: int) -> bool:
        if k > 0:
            i = _skip_space(text, i)
            if not _comma_at(text, i):
                return False
            i += 1
        for j in _match(types[k], text, i):
            if k + 1 == len(types):
                if _skip_space(text, j) == len(text):
                    return True
            elif from_param(k + 1, j):
                return True
        return False

    if not types:
        return _skip_space(text, 0) == len(text)
    if any(too_deep(t) for t in types):
        return False
    return from_param(0, 0)
