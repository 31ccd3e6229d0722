"""A view schema as rows of columns (nested fields flattened to dotted paths), and the difference
between two schemas, matched by column name: view columns are positional and their field ids are
re-assigned by every engine on every replace, so names are what identify them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import IcebergType, ListType, MapType, NestedField, StructType

__all__ = ["Column", "SchemaDiff", "columns", "diff_schemas"]


@dataclass(frozen=True)
class Column:
    """One field; ``path`` is dotted for nested fields (``address.city``, ``tags.element.x``)."""

    id: int
    path: str
    type: str
    required: bool
    doc: str | None
    depth: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.path,
            "type": self.type,
            "required": self.required,
            "doc": self.doc,
        }


def _type_name(kind: IcebergType) -> str:
    if isinstance(kind, StructType):
        return "struct"
    if isinstance(kind, ListType):
        return f"list<{_type_name(kind.element_type)}>"
    if isinstance(kind, MapType):
        return f"map<{_type_name(kind.key_type)}, {_type_name(kind.value_type)}>"
    return str(kind)


def _nested(kind: IcebergType, path: str, depth: int) -> Iterator[Column]:
    if isinstance(kind, StructType):
        for field in kind.fields:
            yield from _field(field, f"{path}.{field.name}", depth)
    elif isinstance(kind, ListType):
        yield from _nested(kind.element_type, f"{path}.element", depth)
    elif isinstance(kind, MapType):
        yield from _nested(kind.key_type, f"{path}.key", depth)
        yield from _nested(kind.value_type, f"{path}.value", depth)


def _field(field: NestedField, path: str, depth: int) -> Iterator[Column]:
    yield Column(field.field_id, path, _type_name(field.field_type), field.required, field.doc, depth)
    yield from _nested(field.field_type, path, depth + 1)


def columns(schema: Schema) -> list[Column]:
    """Every field of ``schema``, depth first, in schema order."""
    out: list[Column] = []
    for field in schema.fields:
        out.extend(_field(field, field.name, 0))
    return out


@dataclass(frozen=True)
class SchemaDiff:
    added: list[Column]
    removed: list[Column]
    changed: list[tuple[str, dict[str, tuple[Any, Any]]]]  # (path, {attribute: (before, after)})
    order: tuple[list[str], list[str]] | None  # top-level names before and after, if reordered

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.order)

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": [c.to_dict() for c in self.added],
            "removed": [c.to_dict() for c in self.removed],
            "changed": [
                {"name": path, "changes": {k: {"from": a, "to": b} for k, (a, b) in changes.items()}}
                for path, changes in self.changed
            ],
            "order": None if self.order is None else {"from": self.order[0], "to": self.order[1]},
        }


def diff_schemas(before: Schema, after: Schema) -> SchemaDiff:
    """Columns added, removed and changed (type, required, doc), and a change of column order.
    Field ids are not compared: engines re-number view columns on every replace."""
    old = {c.path: c for c in columns(before)}
    new = {c.path: c for c in columns(after)}
    added = [c for path, c in new.items() if path not in old]
    removed = [c for path, c in old.items() if path not in new]
    changed: list[tuple[str, dict[str, tuple[Any, Any]]]] = []
    for path, a in old.items():
        b = new.get(path)
        if b is None:
            continue
        changes: dict[str, tuple[Any, Any]] = {}
        for attribute in ("type", "required", "doc"):
            if getattr(a, attribute) != getattr(b, attribute):
                changes[attribute] = (getattr(a, attribute), getattr(b, attribute))
        if changes:
            changed.append((path, changes))
    old_top = [f.name for f in before.fields]
    new_top = [f.name for f in after.fields]
    common_old = [n for n in old_top if n in new_top]
    common_new = [n for n in new_top if n in old_top]
    order = (old_top, new_top) if common_old != common_new else None
    return SchemaDiff(added, removed, changed, order)
