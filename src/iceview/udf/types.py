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
from iceview.spec.jsonutil import child, fail, get_field, get_string, node_str

__all__ = [
    "MAX_TYPE_DEPTH",
    "DataType",
    "ListType",
    "MapType",
    "PrimitiveType",
    "StructType",
    "ambiguous_field_names",
    "canonical",
    "definition_id",
    "matches_definition_id",
    "parse_type",
    "type_to_json",
]

MAX_TYPE_DEPTH = 100
"""How deeply the reader lets types nest (``list<list<...>>``); deeper ones are refused."""

_PRIMITIVES = frozenset(
    {
        "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
        "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "unknown", "variant",
        "geometry", "geography",
    }
)  # fmt: skip
# Java's patterns: \d and \s are ASCII there, as with re.ASCII here
_FIXED = re.compile(r"fixed\[\s*([0-9]+)\s*\]", re.ASCII)
_DECIMAL = re.compile(r"decimal\(\s*([0-9]+)\s*,\s*([0-9]+)\s*\)", re.ASCII)
# a CRS is kept as written (it is case-sensitive); the UDF spec allows no spaces or quotes in it
_GEOMETRY = re.compile(r"geometry\s*\(\s*([^\s,()'\"]+)\s*\)", re.ASCII | re.IGNORECASE)
_GEOGRAPHY = re.compile(
    r"geography\s*\(\s*([^\s,()'\"]+)\s*(?:,\s*([A-Za-z0-9_]+)\s*)?\)", re.ASCII | re.IGNORECASE
)
_INT_MAX = 2**31 - 1
_ASCII_SPACE = " \t\n\r\f\v"
# what a struct field name in a parameter type may not contain: the definition-id could not be
# read back unambiguously (reads accept them; see ambiguous_field_names)
_AMBIGUOUS = re.compile(r"[\s,:<>`\"']")


def _primitive_or_error(text: str) -> str:
    """The canonical spelling of a primitive type string, or raise ``ValueError`` with the reason."""
    lower = text.lower()
    if lower in _PRIMITIVES:
        return lower
    m = _FIXED.fullmatch(lower)
    if m and int(m.group(1)) <= _INT_MAX:
        return f"fixed[{int(m.group(1))}]"
    m = _DECIMAL.fullmatch(lower)
    if m and int(m.group(1)) <= _INT_MAX and int(m.group(2)) <= _INT_MAX:
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
        return f"geography({m.group(1)}{',' + algorithm.lower() if algorithm else ''})"
    raise ValueError(f"Cannot parse type string to primitive: {text}")


@dataclass(frozen=True, slots=True)
class PrimitiveType:
    """A primitive or semi-structured type. ``name`` is canonical: made from any spelling Java
    accepts (``PrimitiveType("Decimal( 9, 2 )").name == "decimal(9,2)"``); an unknown name raises
    :class:`~iceview.errors.InvalidArgumentError`."""

    name: str

    def __post_init__(self) -> None:
        if type(self.name) is not str:
            raise InvalidArgumentError(f"Invalid primitive type: {self.name!r}")
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
        if type(self.fields) is not tuple or not all(type(f) is tuple for f in self.fields):
            object.__setattr__(self, "fields", tuple((name, t) for name, t in self.fields))

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


def type_to_json(t: DataType) -> str | dict[str, Any]:
    """The JSON value of a type: the canonical string of a primitive, an object with only the
    required fields for a nested type."""
    if isinstance(t, PrimitiveType):
        return t.name
    if isinstance(t, ListType):
        return {"type": "list", "element": type_to_json(t.element)}
    if isinstance(t, MapType):
        return {"type": "map", "key": type_to_json(t.key), "value": type_to_json(t.value)}
    if isinstance(t, StructType):
        return {
            "type": "struct",
            "fields": [{"name": name, "type": type_to_json(ft)} for name, ft in t.fields],
        }
    raise InvalidArgumentError(f"Invalid type: {t!r}")


def canonical(t: DataType) -> str:
    """A type's spelling in a definition-id: ``int``, ``decimal(9,2)``, ``list<int>``,
    ``map<string,int>``, ``struct<id:int,name:string>``; no spaces."""
    if isinstance(t, PrimitiveType):
        return t.name
    if isinstance(t, ListType):
        return f"list<{canonical(t.element)}>"
    if isinstance(t, MapType):
        return f"map<{canonical(t.key)},{canonical(t.value)}>"
    if isinstance(t, StructType):
        return "struct<" + ",".join(f"{name}:{canonical(ft)}" for name, ft in t.fields) + ">"
    raise InvalidArgumentError(f"Invalid type: {t!r}")


def ambiguous_field_names(t: DataType, path: str = "$") -> list[tuple[str, str]]:
    """The struct field names in ``t`` that a definition-id could not carry unambiguously (empty,
    or containing whitespace, ``,`` ``:`` ``<`` ``>`` a backquote or a quote), each with the JSON
    path of its ``name``, in document order."""
    found: list[tuple[str, str]] = []
    if isinstance(t, ListType):
        found += ambiguous_field_names(t.element, child(path, "element"))
    elif isinstance(t, MapType):
        found += ambiguous_field_names(t.key, child(path, "key"))
        found += ambiguous_field_names(t.value, child(path, "value"))
    elif isinstance(t, StructType):
        for i, (name, ft) in enumerate(t.fields):
            fpath = child(child(path, "fields"), i)
            if type(name) is not str or not name or _AMBIGUOUS.search(name):
                found.append((name, child(fpath, "name")))
            found += ambiguous_field_names(ft, child(fpath, "type"))
    return found


def definition_id(types: Sequence[DataType]) -> str:
    """The definition-id of a signature: the parameters' canonical types joined by ``,`` (the
    empty string for no parameters). Strict: a struct field name that would make it ambiguous
    raises :class:`~iceview.errors.InvalidArgumentError` naming the field and the parameter."""
    for index, t in enumerate(types):
        for name, where in ambiguous_field_names(t, f"$.parameters[{index}].type"):
            raise InvalidArgumentError(
                f"Invalid struct field name {name!r} in parameter {index} (at {where}): a definition-id "
                "cannot carry an empty name or one with whitespace, ',', ':', '<', '>', '`', '\"' or \"'\""
            )
    return ",".join(canonical(t) for t in types)


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
    return from_param(0, 0)
