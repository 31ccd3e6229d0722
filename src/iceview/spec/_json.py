"""JSON helpers shared by the codecs: Java's ``JsonUtil`` checks with its exact messages, and the
two writers (compact, and Jackson's ``DefaultPrettyPrinter`` layout).

Every reader helper raises :class:`InvalidMetadataError` naming the JSON path of the bad value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import orjson

from iceview.errors import InvalidArgumentError, InvalidMetadataError

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

_MISSING: Any = object()


MAX_SHOWN = 200
"""How many characters of a value an error message shows; a longer rendering is cut there."""


def shorten(value: Any, *, raw: bool = False) -> str:
    """A caller's value as an error message shows it: its ``repr`` (``raw=True``: a str as it
    is), cut to its first :data:`MAX_SHOWN` characters followed by ``... (N characters)`` when
    longer, so that a message never echoes a large input. The one helper for values in messages
    (:func:`node_str` cuts the same way)."""
    if raw and type(value) is str:
        text = value
    else:
        try:
            text = repr(value)
        except RecursionError:
            text = f"<{type(value).__name__} nested too deeply to show>"
        except Exception:  # a hand-made object whose repr fails: name its type only
            text = f"<{type(value).__name__}>"
    return _cut(text)


def _cut(text: str) -> str:
    if len(text) <= MAX_SHOWN:
        return text
    return f"{text[:MAX_SHOWN]}... ({len(text)} characters)"


def node_str(value: Any) -> str:
    """How Jackson's ``JsonNode.toString()`` renders a value inside an error message, cut as
    :func:`shorten` cuts (Java echoes it whole)."""
    try:
        text = orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        try:
            text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
        except (RecursionError, ValueError, TypeError):
            text = f"<{type(value).__name__}>"
    return _cut(text)


def child(path: str, key: str | int) -> str:
    """The JSON path of a member (``$.a.b``) or an element (``$.a[3]``)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def fail(message: str, path: str) -> InvalidMetadataError:
    return InvalidMetadataError(message, path)


def get_field(obj: Mapping[str, Any], key: str, path: str) -> Any:
    """``JsonUtil.get``: the member, which must be there and not JSON null (Java checks
    ``hasNonNull``, so ``"schemas": null`` is a missing field too)."""
    value = obj.get(key)
    if value is None:
        raise fail(f"Cannot parse missing field: {key}", child(path, key))
    return value


def get_int(obj: Mapping[str, Any], key: str, path: str) -> int:
    value = obj.get(key, _MISSING)
    if type(value) is int and INT_MIN <= value <= INT_MAX:
        return value
    if value is _MISSING:
        raise fail(f"Cannot parse missing int: {key}", child(path, key))
    raise fail(f"Cannot parse to an integer value: {key}: {node_str(value)}", child(path, key))


def get_long(obj: Mapping[str, Any], key: str, path: str) -> int:
    value = obj.get(key, _MISSING)
    if type(value) is int and LONG_MIN <= value <= LONG_MAX:
        return value
    if value is _MISSING:
        raise fail(f"Cannot parse missing long: {key}", child(path, key))
    raise fail(f"Cannot parse to a long value: {key}: {node_str(value)}", child(path, key))


def get_int_or_none(obj: Mapping[str, Any], key: str, path: str) -> int | None:
    if obj.get(key) is None:
        return None
    return get_int(obj, key, path)


def get_bool(obj: Mapping[str, Any], key: str, path: str) -> bool:
    value = obj.get(key, _MISSING)
    if type(value) is bool:
        return value
    if value is _MISSING:
        raise fail(f"Cannot parse missing boolean: {key}", child(path, key))
    raise fail(f"Cannot parse to a boolean value: {key}: {node_str(value)}", child(path, key))


def get_string(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = obj.get(key, _MISSING)
    if type(value) is str:
        return value
    if value is _MISSING:
        raise fail(f"Cannot parse missing string: {key}", child(path, key))
    raise fail(f"Cannot parse to a string value: {key}: {node_str(value)}", child(path, key))


def get_string_or_none(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    """``JsonUtil.getStringOrNull``: absent and JSON null both mean ``None``."""
    value = obj.get(key)
    if value is None or type(value) is str:
        return value
    raise fail(f"Cannot parse to a string value: {key}: {node_str(value)}", child(path, key))


def get_string_map(obj: Mapping[str, Any], key: str, path: str) -> dict[str, str]:
    value = obj.get(key, _MISSING)
    if type(value) is dict:
        for k, v in value.items():
            if type(v) is not str:
                raise fail(f"Cannot parse to a string value: {k}: {node_str(v)}", child(child(path, key), k))
        return value
    if value is _MISSING:
        raise fail(f"Cannot parse missing map: {key}", child(path, key))
    raise fail(f"Cannot parse string map from non-object value: {key}: {node_str(value)}", child(path, key))


def get_string_list(obj: Mapping[str, Any], key: str, path: str) -> list[str]:
    value = obj.get(key, _MISSING)
    if type(value) is list:
        for i, element in enumerate(value):
            if type(element) is not str:
                raise fail(
                    f"Cannot parse string from non-text value in {key}: {node_str(element)}",
                    child(child(path, key), i),
                )
        return value
    if value is _MISSING:
        raise fail(f"Cannot parse missing list: {key}", child(path, key))
    raise fail(f"Cannot parse JSON array from non-array value: {key}: {node_str(value)}", child(path, key))


def get_int_list_or_none(obj: Mapping[str, Any], key: str, path: str) -> list[int] | None:
    value = obj.get(key)
    if value is None:
        return None
    if type(value) is not list:
        raise fail(
            f"Cannot parse JSON array from non-array value: {key}: {node_str(value)}", child(path, key)
        )
    for i, element in enumerate(value):
        if not (type(element) is int and INT_MIN <= element <= INT_MAX):
            raise fail(
                f"Cannot parse integer from non-int value in {key}: {node_str(element)}",
                child(child(path, key), i),
            )
    return value


# --------------------------------------------------------------------------- decoding


def decode(data: bytes | bytearray | memoryview | str) -> Any:
    """Decode JSON text. Malformed input raises :class:`InvalidMetadataError`."""
    if isinstance(data, memoryview):
        data = bytes(data)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        if not (data.strip() if isinstance(data, str) else bytes(data).strip()):
            raise fail("Cannot parse view metadata: empty input", "$") from None
        raise fail(f"Cannot parse view metadata: malformed JSON: {e}", "$") from None
    except TypeError as e:
        raise fail(f"Cannot parse view metadata from {type(data).__name__}: {e}", "$") from None


# --------------------------------------------------------------------------- encoding

# orjson escapes control characters as \u00xx; Jackson writes the hex digits upper-case.
_LOWER_HEX_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\u00([01][0-9a-f])")


def _upper_hex(match: re.Match[bytes]) -> bytes:
    return match.group(1) + b"\\u00" + match.group(2).upper()


def encode_compact(value: Any) -> str:
    """Compact JSON exactly as Jackson writes it: no spaces, UTF-8, field order kept. A string
    that is not text (a lone surrogate) raises :class:`~iceview.errors.InvalidArgumentError`."""
    try:
        out = orjson.dumps(value)
    except TypeError as e:
        if "UTF-8" not in str(e):
            raise
        raise InvalidArgumentError(
            "Cannot write metadata: a string holds a lone surrogate, which is not text (UTF-8)"
        ) from None
    if b"\\u00" in out:
        out = _LOWER_HEX_ESCAPE.sub(_upper_hex, out)
    return out.decode()


def _string(value: str) -> str:
    return encode_compact(value)


def encode_pretty(value: Any) -> str:
    """JSON in the layout of Jackson's ``DefaultPrettyPrinter``: ``"key" : value``, objects indented
    by two spaces per level, arrays inline (``[ 1, 2 ]``, ``[ {``), empty ones as ``[ ]`` and ``{ }``."""
    parts: list[str] = []
    _pretty(value, 0, parts)
    return "".join(parts)


def _pretty(value: Any, level: int, out: list[str]) -> None:
    if isinstance(value, dict):
        if not value:
            out.append("{ }")
            return
        inner = "\n" + "  " * (level + 1)
        out.append("{")
        first = True
        for key, item in value.items():
            out.append(inner if first else "," + inner)
            first = False
            out.append(_string(key))
            out.append(" : ")
            _pretty(item, level + 1, out)
        out.append("\n" + "  " * level + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[ ]")
            return
        out.append("[ ")
        first = True
        for item in value:
            if not first:
                out.append(", ")
            first = False
            # arrays do not indent: their elements stay at the enclosing object's level
            _pretty(item, level, out)
        out.append(" ]")
    else:
        out.append(encode_compact(value))
