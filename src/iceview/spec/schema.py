"""Schemas inside view metadata.

A schema is read as JSON and checked with the rules and messages of Java's ``SchemaParser``, then
kept as a *normalised* JSON object: Java's field order, primitive type names in Java's spelling,
unknown keys dropped. The :class:`pyiceberg.schema.Schema` object is built from it only when
someone asks for it, so loading a file with many schemas does not pay for parsing them all.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError
from pyiceberg.schema import Schema

from iceview.errors import InvalidMetadataError
from iceview.spec._json import (
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

__all__ = ["normalize_schema_json", "same_schema", "schema_from_json", "schema_to_json"]

_PRIMITIVES = frozenset(
    {
        "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
        "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "unknown", "variant",
        "geometry", "geography",
    }
)  # fmt: skip
_FIXED = re.compile(r"fixed\[\s*(\d+)\s*\]")
_DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_GEO = re.compile(r"(geometry|geography)\s*\(.*\)", re.DOTALL)


def _primitive(text: str, path: str) -> str:
    """``Types.fromPrimitiveString``: case-insensitive, written back in Java's spelling."""
    lower = text.lower()
    if lower in _PRIMITIVES:
        return lower
    m = _FIXED.fullmatch(lower)
    if m:
        return f"fixed[{int(m.group(1))}]"
    m = _DECIMAL.fullmatch(lower)
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
