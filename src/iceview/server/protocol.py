"""What the REST protocol says about requests: JSON bodies, namespaces in paths, names that may
not escape the warehouse, and paging (locations are the library's rule,
:func:`iceview.files.check_in_warehouse`). Pure: no catalog, no HTTP framework."""

from __future__ import annotations

import base64
import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from iceview.identifiers import ViewIdentifier, name_problem
from iceview.server.errors import ApiError, bad_request, clipped

__all__ = [
    "MAX_REFERENCED_BY",
    "NAMESPACE_SEPARATOR",
    "REFERENCED_BY",
    "Page",
    "PageRequest",
    "check_level",
    "check_name",
    "check_new_identifier",
    "check_new_namespace",
    "decode_json",
    "get_string",
    "get_string_list",
    "get_string_map",
    "identifier_json",
    "invalid_page_token",
    "namespace_from_path",
    "next_page_token",
    "page",
    "page_request",
    "parse_referenced_by",
]

NAMESPACE_SEPARATOR = "\x1f"
"""Namespace levels in a path or ``parent`` parameter are joined by the unit separator (``%1F``)."""

T = TypeVar("T")


def decode_json(body: bytes, what: str) -> dict[str, Any]:
    """A request body that must be a JSON object."""
    if not body:
        raise bad_request(f"Invalid {what}: the request has no body")
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        raise bad_request(f"Invalid {what}: malformed JSON ({e.msg} at byte {e.pos})") from None
    if type(value) is not dict:
        raise bad_request(f"Invalid {what}: expected a JSON object, got {_kind(value)}", "$")
    return value


def _kind(value: object) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def get_string(obj: Mapping[str, Any], key: str, what: str, *, required: bool = True) -> str | None:
    """A string field of a request; a missing required one or a wrong type is a 400."""
    value = obj.get(key)
    if value is None:
        if required:
            raise bad_request(f"Invalid {what}: missing field {key}", f"$.{key}")
        return None
    if type(value) is not str:
        raise bad_request(f"Invalid {what}: {key} must be a string, got {_kind(value)}", f"$.{key}")
    return value


MAX_ENTRIES = 1000
"""The most properties (or property keys, namespace levels) one request may carry: a request with
70,000 took the catalog's database 10 s and failed on SQLite's limit of bound variables."""


def _check_entries(value: Any, key: str, what: str, at: str = "$") -> None:
    if len(value) > MAX_ENTRIES:
        raise bad_request(
            f"Invalid {what}: {key} has {len(value)} entries, more than the {MAX_ENTRIES} allowed",
            f"{at}.{key}",
        )


def get_string_list(obj: Mapping[str, Any], key: str, what: str, *, required: bool = True) -> list[str]:
    """An array of strings (a namespace, a list of property keys), at most :data:`MAX_ENTRIES`;
    an optional one may be missing (empty), not ``null``: the document gives it no null."""
    if key not in obj and not required:
        return []
    value = obj.get(key)
    if value is None and required:
        raise bad_request(f"Invalid {what}: missing field {key}", f"$.{key}")
    if type(value) is not list:
        raise bad_request(
            f"Invalid {what}: {key} must be an array of strings, got {_kind(value)}", f"$.{key}"
        )
    _check_entries(value, key, what)
    for i, item in enumerate(value):
        if type(item) is not str:
            raise bad_request(f"Invalid {what}: {key} must hold strings, got {_kind(item)}", f"$.{key}[{i}]")
    return value


def get_string_map(obj: Mapping[str, Any], key: str, what: str, at: str = "$") -> dict[str, str]:
    """An object of string values (properties), at most :data:`MAX_ENTRIES`; missing is empty,
    ``null`` is refused (the document gives it no null). ``at`` is the JSON path of ``obj``."""
    if key not in obj:
        return {}
    value = obj[key]
    if type(value) is not dict:
        raise bad_request(
            f"Invalid {what}: {key} must be an object of strings, got {_kind(value)}", f"{at}.{key}"
        )
    _check_entries(value, key, what, at)
    for k, v in value.items():
        if type(v) is not str:
            raise bad_request(
                f"Invalid {what}: {key}.{k} must be a string, got {_kind(v)}", f"{at}.{key}.{k}"
            )
    return value


def check_name(name: str, what: str) -> str:
    """A namespace level, view or table name that cannot escape the warehouse in a path: not
    empty, no ``/``, ``\\``, ``..`` or NUL, and not longer than iceview's limit
    (:data:`iceview.identifiers.MAX_NAME_LENGTH`)."""
    if not name:
        raise bad_request(f"Invalid {what}: empty name")
    _check_length(name, what)
    if "/" in name or "\\" in name or ".." in name or "\x00" in name:
        shown = name.replace("\x00", "\\0")
        raise bad_request(f"Invalid {what} {shown!r}: a name may not contain '/', '\\', '..' or NUL")
    if any(ord(c) < 0x20 or c == "\x7f" for c in name):
        # URL parsers drop tabs and line breaks from a location: ".\t." would be ".."
        raise bad_request(f"Invalid {what} {clipped(name)}: a name may not contain control characters")
    if name == ".":
        # its location would be the namespace's own folder, and GET .../views/. is the list
        raise bad_request(f"Invalid {what} '.': a name may not be '.'")
    return name


def _check_length(name: str, what: str) -> None:
    problem = name_problem(name)
    if problem is not None:
        raise bad_request(f"Invalid {what}: {problem}")


def check_new_namespace(namespace: Sequence[str], what: str) -> None:
    """A namespace about to be created, or holding a new view or table: its levels joined by dots
    (one directory in PyIceberg's table layout) may not be longer than iceview's limit."""
    _check_length(".".join(namespace), what)


def check_level(name: str, what: str) -> str:
    """A name that is only looked up or stored as a row (a namespace, or an existing view or
    table, perhaps made by another client of the same store): not empty, no NUL."""
    if not name:
        raise bad_request(f"Invalid {what}: empty name")
    if "\x00" in name:
        shown = name.replace("\x00", "\\0")
        raise bad_request(f"Invalid {what} {shown!r}: a name may not contain NUL")
    return name


def check_new_identifier(namespace: Sequence[str], name: str, what: str) -> None:
    r"""A view or table about to be created, registered or renamed: its location is made from its
    namespace and name, so none of them may hold ``/``, ``\``, ``..`` or NUL (``a/b`` in one level
    would share files with the levels ``a``, ``b``)."""
    for level in namespace:
        check_name(level, f"{what} namespace")
    check_new_namespace(namespace, f"{what} namespace")
    check_name(name, f"{what} name")


def namespace_from_path(value: str) -> tuple[str, ...]:
    """The namespace of a path parameter or ``parent``: levels joined by ``%1F``."""
    levels = tuple(value.split(NAMESPACE_SEPARATOR))
    for level in levels:
        check_level(level, "namespace")
    return levels


REFERENCED_BY = "referenced-by"
"""The query parameter of ``loadTable``, ``loadCredentials`` and ``loadView`` (REST spec 1.11) that
names the views an entity is loaded through."""

MAX_REFERENCED_BY = 100
"""The most views a ``referenced-by`` chain may name: Spark's deepest view nesting
(``spark.sql.view.maxNestedViewDepth``). The value's length is bounded by the request head limit
(:data:`iceview.server.limits.DEFAULT_MAX_HEADER_BYTES`)."""

_ENCODED_COMMA = ("%2C", "%2c")


def _decode_commas(part: str) -> str:
    for encoded in _ENCODED_COMMA:
        part = part.replace(encoded, ",")
    return part


def parse_referenced_by(value: str | None) -> tuple[ViewIdentifier, ...]:
    """The view chain of a ``referenced-by`` value (as decoded from the query string), outermost
    first; absent is the empty chain. Identifiers are separated by commas; each is
    ``{namespace}{separator}{view}``, split at the last separator, its namespace read as the
    ``parent`` of list namespaces is (:func:`namespace_from_path`); ``%2C`` in a level or name is a
    comma. A malformed value is a 400 that says which identifier is wrong and how, without
    repeating it."""
    if value is None:
        return ()
    what = f"Invalid {REFERENCED_BY}"
    count = value.count(",") + 1
    if count > MAX_REFERENCED_BY:
        raise bad_request(f"{what}: {count} view identifiers, more than the {MAX_REFERENCED_BY} allowed")
    chain: list[ViewIdentifier] = []
    for i, raw in enumerate(value.split(","), 1):
        where = f"view identifier {i} of {count}"
        if not raw:
            raise bad_request(f"{what}: {where} is empty")
        if "\x00" in raw:
            raise bad_request(f"{what}: {where} contains NUL")
        namespace, separator, name = raw.rpartition(NAMESPACE_SEPARATOR)
        if not separator:
            raise bad_request(
                f"{what}: {where} has no namespace (expected namespace%1Fview, levels joined by %1F)"
            )
        if not name:
            raise bad_request(f"{what}: {where} has an empty view name")
        try:
            levels = namespace_from_path(namespace)
        except ApiError as e:
            raise bad_request(f"{what}: {where}: {e.message[0].lower()}{e.message[1:]}") from None
        chain.append(ViewIdentifier(tuple(_decode_commas(n) for n in levels), _decode_commas(name)))
    return tuple(chain)


def parse_change(
    body: dict[str, Any],
    what: str,
    requirement: Callable[[Any, str], Any],
    update: Callable[[Any, str], Any],
) -> tuple[list[Any], list[Any]]:
    """The requirements and updates of a commit request (``CommitViewRequest``,
    ``CommitFunctionRequest``), each read with its format's codec (``requirement(json, path)``,
    ``update(json, path)``)."""
    from iceview.errors import InvalidMetadataError

    raw_requirements = body.get("requirements", [])
    raw_updates = body.get("updates")
    if raw_updates is None:
        raise bad_request(f"Invalid {what}: missing field updates", "$.updates")
    if type(raw_requirements) is not list:
        raise bad_request(f"Invalid {what}: requirements must be an array", "$.requirements")
    if type(raw_updates) is not list:
        raise bad_request(f"Invalid {what}: updates must be an array", "$.updates")
    try:
        requirements = [requirement(r, f"$.requirements[{i}]") for i, r in enumerate(raw_requirements)]
        updates = [update(u, f"$.updates[{i}]") for i, u in enumerate(raw_updates)]
    except InvalidMetadataError as e:
        raise bad_request(f"Invalid {what}: {e.message}", e.path) from None
    for i, parsed in enumerate(updates):
        for key in ("updates", "removals"):
            entries = getattr(parsed, key, None)
            if entries is not None and len(entries) > MAX_ENTRIES:
                raise bad_request(
                    f"Invalid {what}: {key} has {len(entries)} entries, more than the {MAX_ENTRIES} allowed",
                    f"$.updates[{i}].{key}",
                )
    return requirements, updates


def check_update_locations(updates: Sequence[Any], root: str | None, noun: str) -> None:
    """The locations a commit's updates would set (``set-location``, ``write.*.path`` properties)
    must lie in the warehouse ``root`` (``LocationOutsideWarehouseError`` if not). The catalog
    checks again what it commits; checked first here for any catalog served. ``noun`` names the
    kind (``view``, ``function``) in messages."""
    from iceview.files import check_in_warehouse, check_location_properties
    from iceview.spec.common_updates import SetLocation, SetProperties

    for update in updates:
        if isinstance(update, SetLocation):
            check_in_warehouse(update.location, root, f"{noun} location")
        elif isinstance(update, SetProperties):
            check_location_properties(update.updates, root, noun)


def identifier_from_body(body: dict[str, Any], key: str, what: str) -> ViewIdentifier:
    """The ``TableIdentifier`` object at ``key`` of a request body (a rename's ``source`` or
    ``destination``, a commit's ``identifier``)."""
    node = body.get(key)
    if type(node) is not dict:
        raise bad_request(f"Invalid {what}: missing or non-object field {key}", f"$.{key}")
    namespace = tuple(
        check_level(n, "namespace") for n in get_string_list(node, "namespace", f"{what}.{key}")
    )
    name = check_level(get_string(node, "name", f"{what}.{key}") or "", "name")
    return ViewIdentifier(namespace, name)


def identifier_json(namespace: Sequence[str], name: str) -> dict[str, Any]:
    """A ``TableIdentifier`` document."""
    return {"namespace": list(namespace), "name": name}


@dataclass(frozen=True)
class Page:
    """One page of a list answer: its items and the token of the next page, if any."""

    items: list[Any]
    next_token: str | None


@dataclass(frozen=True)
class PageRequest:
    """What a list request asks for when the client pages: the items after ``after`` (the key of
    the last item answered, None for the first page), at most ``limit`` of them."""

    after: tuple[str, ...] | None
    limit: int


def page_request(token: str | None, size: str | None, max_size: int) -> PageRequest | None:
    """The page a list request asks for, or None when it has no ``pageToken`` (the client does not
    page: everything is answered). A ``pageSize`` is checked either way."""
    limit = max_size
    if size is not None:
        try:
            limit = int(size)
        except ValueError:
            raise bad_request(f"Invalid pageSize {size!r}: not an integer") from None
        if limit < 1:
            raise bad_request(f"Invalid pageSize {limit}: must be at least 1")
        limit = min(limit, max_size)
    if token is None:
        return None
    return PageRequest(_decode_token(token) if token else None, limit)


def next_page_token(items: Sequence[T], key: Callable[[T], tuple[str, ...]], more: bool) -> str | None:
    """The token of the page after ``items``: the key of its last item (stable when items are added
    or removed between requests), or None when nothing follows."""
    return _encode_token(key(items[-1])) if more and items else None


def invalid_page_token(token: str) -> ApiError:
    return bad_request(f"Invalid pageToken {token[:100]!r}: not a token this server issued")


def page(
    items: Sequence[T],
    key: Callable[[T], tuple[str, ...]],
    token: str | None,
    size: str | None,
    max_size: int,
) -> Page:
    """Page through ``items`` in key order (see :func:`page_request`)."""
    request = page_request(token, size, max_size)
    ordered = sorted(items, key=key)
    if request is None:
        return Page(ordered, None)
    start = 0 if request.after is None else bisect.bisect_right(ordered, request.after, key=key)
    chunk = ordered[start : start + request.limit]
    return Page(chunk, next_page_token(chunk, key, start + request.limit < len(ordered)))


def _encode_token(key: tuple[str, ...]) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(list(key))).decode().rstrip("=")


def _decode_token(token: str) -> tuple[str, ...]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        value = orjson.loads(raw)
    except (ValueError, orjson.JSONDecodeError):
        raise invalid_page_token(token) from None
    if type(value) is not list or not all(type(v) is str for v in value):
        raise invalid_page_token(token)
    return tuple(value)
