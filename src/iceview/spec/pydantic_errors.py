"""pydantic's validation errors (PyIceberg's models are pydantic models) as iceview's own text.

``str()`` of a ``pydantic.ValidationError`` shows the input it failed on (``input_value={...}``:
parts of a metadata file or a request), the model's class names and a link naming pydantic's
version. :func:`validation_problem` reads only the structured ``errors()`` (the error ``type``, its
``loc`` and the name of a discriminator) and says what is wrong and where, as a JSON path, never
the value. Nothing here imports pydantic: it works on the list ``errors()`` returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["json_path", "validation_problem"]

_TAGS = ("action", "type", "format-version")
"""The members whose value pydantic puts in an error's location, after the union it chose by it."""

_LONGEST_KEY = 64

_KINDS = {
    "int": "an integer",
    "float": "a number",
    "decimal": "a number",
    "string": "a string",
    "str": "a string",
    "bool": "a boolean",
    "dict": "an object",
    "model": "an object",
    "model_attributes": "an object",
    "dataclass": "an object",
    "mapping": "an object",
    "list": "an array",
    "tuple": "an array",
    "set": "an array",
    "frozen_set": "an array",
    "iterable": "an array",
    "uuid": "a UUID",
    "date": "a date",
    "datetime": "a date and time",
    "time": "a time",
    "bytes": "a string",
    "none": "null",
}


def _key(part: str) -> str:
    return part if len(part) <= _LONGEST_KEY else part[:_LONGEST_KEY] + "..."


def _parts(loc: Iterable[int | str], data: Any) -> list[int | str]:
    """``loc`` without the union members pydantic names after a tag (an update's ``action``, a
    requirement's ``type``, the ``format-version`` of table metadata), found by looking ``data``
    up along the way. Without ``data``, a number first is taken for the ``format-version`` tag of
    table metadata (the document's root is an object, never a list)."""
    out: list[int | str] = []
    node = data
    for i, part in enumerate(loc):
        if data is None and i == 0 and isinstance(part, int):
            continue
        if isinstance(node, dict) and part not in node and part in _tag_values(node):
            continue
        if isinstance(part, int):
            out.append(part)
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            continue
        out.append(part)
        node = node.get(part) if isinstance(node, dict) else None
    return out


def _tag_values(node: Mapping[str, Any]) -> set[object]:
    values: set[object] = set()
    for tag in _TAGS:
        value = node.get(tag)
        if isinstance(value, str | int) and not isinstance(value, bool):
            values |= {value, str(value)}
    return values


def _render(parts: Sequence[int | str]) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{_key(part)}"
    return out


def json_path(loc: Iterable[int | str], data: Any) -> str:
    """A pydantic error location in ``data`` as a JSON path (``$.updates[0].schema``); the union
    member pydantic names after an update's or requirement's tag is left out. Long keys are cut."""
    return _render(_parts(loc, data))


def _problem(error: Mapping[str, Any], field: str) -> str:
    """The text for one error (a bad tag names its member; the path is the object's)."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return f"missing field {field}"
    if kind == "extra_forbidden":
        return f"unknown field {field}"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        # "'action'", or a field and its alias: "'format_version' | 'format-version'" (the JSON name last)
        tag = str(ctx.get("discriminator", "")).split("|")[-1].strip().strip("'\"")
        if not tag.replace("-", "").replace("_", "").isalnum():  # a function, not a member
            tag = "the type"
        if kind == "union_tag_not_found":
            return f"missing field {tag}"
        return f"{tag} is not one of the supported values"
    if kind in ("literal_error", "enum"):
        return f"{field} is not one of the supported values"
    if kind.endswith(("_type", "_parsing")):
        what = _KINDS.get(kind.rsplit("_", 1)[0])
        return f"{field} must be {what}" if what else f"{field} has the wrong type"
    if kind.startswith(("too_short", "too_long")):
        return f"{field} has {'too few' if kind.startswith('too_short') else 'too many'} elements"
    if kind.startswith(("greater_than", "less_than", "finite_number", "multiple_of")):
        return f"{field} is out of range"
    return f"{field} is invalid"


def validation_problem(
    errors: Sequence[Mapping[str, Any]], data: Any = None, what: str = "document"
) -> tuple[str, str]:
    """The first of pydantic's ``errors()`` as ``(message, JSON path)``: ``missing field x``,
    ``x must be an integer``, ``x is invalid``, ... with ``(and N more problems)`` when there are
    more. ``data`` (the document validated, when the caller has it) lets the path leave out the
    union members pydantic names after a tag."""
    if not errors:
        return f"invalid {what}", "$"
    first = errors[0]
    parts = _parts(first.get("loc", ()), data)
    names = [p for p in parts if isinstance(p, str)]
    field = _key(names[-1]) if names else (f"the {what}" if not parts else "an element")
    message = _problem(first, field)
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return message + more, _render(parts)
