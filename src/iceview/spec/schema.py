"""Schemas inside view metadata.

A schema is read as JSON and checked with the rules and messages of Java's ``SchemaParser``, then
kept as a *normalised* JSON object: Java's field order, primitive type names in Java's spelling,
unknown keys dropped. The :class:`pyiceberg.schema.Schema` object is built from it only when
someone asks for it, so loading a file with many schemas does not pay for parsing them all.
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import Any

from pydantic import ValidationError
from pyiceberg.schema import Schema

from iceview.errors import InvalidMetadataError
from iceview.spec._json import (
    INT_MAX,
    INT_MIN,
    child,
    fail,
    get_bool,
    get_field,
    get_int,
    get_int_list_or_none,
    get_int_or_none,
    get_string,
    get_string_or_none,
    node_str,
)
from iceview.spec.primitives import DECIMAL, FIXED, PRIMITIVE_NAMES

__all__ = [
    "check_field_ids",
    "check_schema_ids",
    "normalize_schema_json",
    "same_schema",
    "schema_from_json",
    "schema_to_json",
]

_GEO = re.compile(r"(geometry|geography)\s*\(.*\)", re.DOTALL)


def _primitive(text: str, path: str) -> str:
    """``Types.fromPrimitiveString``: case-insensitive, written back in Java's spelling."""
    lower = text.lower()
    if lower in PRIMITIVE_NAMES:
        return lower
    m = FIXED.fullmatch(lower)
    if m:
        return f"fixed[{int(m.group(1))}]"
    m = DECIMAL.fullmatch(lower)
    if m:
        return f"decimal({int(m.group(1))}, {int(m.group(2))})"
    if _GEO.fullmatch(lower):
        return text
    raise fail(f"Cannot parse type string to primitive: {text}", path)


def _type(node: Any, path: str) -> Any:
    if type(node) is str:
        return _primitive(node, path)
    if type(node) is dict:
        kind = node.get("type")
        if kind == "struct":
            return _struct(node, path)
        if kind == "list":
            element_id = get_int(node, "element-id", path)
            element = _type(get_field(node, "element", path), child(path, "element"))
            required = get_bool(node, "element-required", path)
            return {
                "type": "list",
                "element-id": element_id,
                "element": element,
                "element-required": required,
            }
        if kind == "map":
            key_id = get_int(node, "key-id", path)
            key = _type(get_field(node, "key", path), child(path, "key"))
            value_id = get_int(node, "value-id", path)
            value = _type(get_field(node, "value", path), child(path, "value"))
            required = get_bool(node, "value-required", path)
            return {
                "type": "map", "key-id": key_id, "key": key,
                "value-id": value_id, "value": value, "value-required": required,
            }  # fmt: skip
    raise fail(f"Cannot parse type from json: {node_str(node)}", path)


def _struct(node: dict[str, Any], path: str) -> dict[str, Any]:
    fields = get_field(node, "fields", path)
    if type(fields) is not list:
        raise fail(f"Cannot parse struct fields from non-array: {node_str(fields)}", child(path, "fields"))
    out = []
    for i, field in enumerate(fields):
        fpath = child(child(path, "fields"), i)
        if type(field) is not dict:
            raise fail(f"Cannot parse struct field from non-object: {node_str(field)}", fpath)
        field_id = get_int(field, "id", fpath)
        name = get_string(field, "name", fpath)
        ftype = _type(get_field(field, "type", fpath), child(fpath, "type"))
        doc = get_string_or_none(field, "doc", fpath)
        required = get_bool(field, "required", fpath)
        entry: dict[str, Any] = {"id": field_id, "name": name, "required": required, "type": ftype}
        if doc is not None:
            entry["doc"] = doc
        # defaults are kept as the JSON values they were written as
        for key in ("initial-default", "write-default"):
            if field.get(key) is not None:
                entry[key] = field[key]
        out.append(entry)
    return {"type": "struct", "fields": out}


def normalize_schema_json(node: Any, path: str = "$") -> dict[str, Any]:
    """Check a schema's JSON as Java's ``SchemaParser.fromJson`` does and return it in Java's
    field order: ``type, schema-id, identifier-field-ids (if any), fields``."""
    struct = _type(node, path)
    if type(struct) is not dict or struct["type"] != "struct":
        raise fail(f"Cannot create schema, not a struct type: {node_str(node)}", path)
    schema_id = get_int_or_none(node, "schema-id", path)
    identifier_ids = get_int_list_or_none(node, "identifier-field-ids", path)
    out: dict[str, Any] = {"type": "struct", "schema-id": 0 if schema_id is None else schema_id}
    if identifier_ids:
        out["identifier-field-ids"] = list(dict.fromkeys(identifier_ids))
    out["fields"] = struct["fields"]
    return out


# ------------------------------------------------------------------ duplicate ids, at read time
#
# Java indexes every schema by field id when it parses it, and the metadata's schemas and versions
# by id when it builds ViewMetadata (Guava ImmutableMap: "Multiple entries with same key"), so a
# file with a duplicate id does not load. The reader runs these checks on the raw JSON whenever the
# fast check (``_fast.schema_ids_distinct``) is not sure. They look only at ids that would parse
# (ints in range, in nodes of the right shape): a malformed schema still fails, with SchemaParser's
# message, on first use.


def _int(value: Any) -> bool:
    return type(value) is int and INT_MIN <= value <= INT_MAX


def _field_id_sites(schema: Any) -> list[tuple[int, tuple[str | int, ...]]]:
    """Every field id of ``schema`` (raw JSON) that would parse, with where it is (as path
    segments, turned into a JSON path only for an error).

    Ids come in document order, each field's id before the ids nested in its type, a map's
    ``key-id`` and ``value-id`` before its key and value types, as :func:`iceview.spec.validate`
    walks a normalised schema. Iterative, so that a deeply nested type cannot exhaust the stack.
    """
    sites: list[tuple[int, tuple[str | int, ...]]] = []
    # (is an id, value, segments), popped in document order
    stack: list[tuple[bool, Any, tuple[str | int, ...]]] = [(False, schema, ())]
    while stack:
        is_id, value, segments = stack.pop()
        if is_id:
            sites.append((value, segments))
            continue
        if type(value) is not dict:
            continue
        kind = value.get("type")
        todo: list[tuple[bool, Any, tuple[str | int, ...]]] = []
        if kind == "struct":
            fields = value.get("fields")
            if type(fields) is not list:
                continue
            for i, field in enumerate(fields):
                if type(field) is not dict:
                    continue
                if _int(field.get("id")):
                    todo.append((True, field["id"], (*segments, "fields", i, "id")))
                if type(field.get("type")) is dict:
                    todo.append((False, field["type"], (*segments, "fields", i, "type")))
        elif kind == "list":
            if _int(value.get("element-id")):
                todo.append((True, value["element-id"], (*segments, "element-id")))
            todo.append((False, value.get("element"), (*segments, "element")))
        elif kind == "map":
            for key in ("key-id", "value-id"):
                if _int(value.get(key)):
                    todo.append((True, value[key], (*segments, key)))
            todo.append((False, value.get("key"), (*segments, "key")))
            todo.append((False, value.get("value"), (*segments, "value")))
        stack.extend(reversed(todo))
    return sites


_ID = itemgetter("id")
_TYPE = itemgetter("type")
_STR_ONLY = frozenset({str})


def _ids_distinct(schema: Any) -> bool:
    """Whether a schema written as Java writes it has distinct field ids. ``False`` means a
    duplicate or "not sure" (a missing key, a non-object, an unhashable id, or ids that are equal
    only as Python values, such as ``1`` and ``true``): the common case at a low cost, a whole
    struct at a time."""
    ids: list[Any] = []
    pending = [schema]
    try:
        while pending:
            node = pending.pop()
            kind = node["type"]
            if kind == "struct":
                fields = node["fields"]
                if type(fields) is not list:
                    return False
                ids += map(_ID, fields)
                types = list(map(_TYPE, fields))
                if types and set(map(type, types)) != _STR_ONLY:
                    for t in types:
                        if type(t) is not str:
                            pending.append(t)
            elif kind == "list":
                ids.append(node["element-id"])
                element = node["element"]
                if type(element) is not str:
                    pending.append(element)
            elif kind == "map":
                ids.append(node["key-id"])
                ids.append(node["value-id"])
                key, value = node["key"], node["value"]
                if type(key) is not str:
                    pending.append(key)
                if type(value) is not str:
                    pending.append(value)
            else:
                return False
        # two equal ids that parse are equal values; the converse only costs the slow walk
        return len(set(ids)) == len(ids)
    except (KeyError, TypeError):
        return False


def check_field_ids(schemas: list[Any], path: str = "$.schemas") -> None:
    """Raise ``InvalidMetadataError`` at the first field id that a schema uses twice, counting
    struct field ids, list element ids and map key and value ids anywhere in the schema (Java's
    ``Schema`` index). Ids that would not parse are left to the check on first use."""
    for i, schema in enumerate(schemas):
        if _ids_distinct(schema):
            continue
        # a duplicate, or something unusual: walk the schema in order, to name the place
        seen: set[int] = set()
        for field_id, segments in _field_id_sites(schema):
            if field_id in seen:
                where = child(path, i)
                for segment in segments:
                    where = child(where, segment)
                raise fail(f"Field id {field_id} is used more than once", where)
            seen.add(field_id)


def check_schema_ids(schemas: list[Any], path: str = "$.schemas") -> None:
    """Raise ``InvalidMetadataError`` at the first schema whose id an earlier schema has. A
    missing or null ``schema-id`` is 0, as in Java's ``SchemaParser``."""
    seen: set[int] = set()
    for i, schema in enumerate(schemas):
        if type(schema) is not dict:
            continue
        schema_id = schema.get("schema-id")
        if schema_id is None:
            schema_id = 0
        elif not _int(schema_id):
            continue
        if schema_id in seen:
            raise fail(f"Schema id {schema_id} is used more than once", child(child(path, i), "schema-id"))
        seen.add(schema_id)


def schema_from_json(normalized: dict[str, Any], path: str = "$") -> Schema:
    """Build the PyIceberg schema of a normalised schema JSON object."""
    try:
        return Schema.model_validate(normalized)
    except ValidationError as e:
        first = e.errors()[0]
        reason = str(first.get("msg", e)).removeprefix("Value error, ")
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise InvalidMetadataError(
            f"Cannot parse schema: {reason}", f"{path}.{where}" if where else path
        ) from None
    except ValueError as e:
        raise InvalidMetadataError(f"Cannot parse schema: {e}", path) from None
    except (TypeError, ArithmeticError) as e:
        # PyIceberg reads a field's default values while it builds the field, and a default that
        # does not fit the type fails there with TypeError or decimal.InvalidOperation
        detail = "" if str(e).startswith("[<class") else f": {e}"
        raise InvalidMetadataError(
            f"Cannot parse schema: a default value does not fit its field's type ({type(e).__name__}{detail})",
            path,
        ) from None


def schema_to_json(schema: Schema, schema_id: int | None = None) -> dict[str, Any]:
    """The normalised JSON object of a PyIceberg schema, optionally under another id."""
    dumped = schema.model_dump(mode="json", by_alias=True, exclude_none=True)
    if schema_id is not None:
        dumped["schema-id"] = schema_id
    return normalize_schema_json(dumped)


def same_schema(a: Schema, b: Schema) -> bool:
    """Java's ``Schema.sameSchema``: equal structs (ids, names, docs, types, optionality, defaults)
    and equal identifier field ids. The schema ids themselves do not count."""
    return a.as_struct() == b.as_struct() and set(a.identifier_field_ids) == set(b.identifier_field_ids)
