"""View identifiers and namespaces: parsing, checking and rendering as Iceberg Java does.

An identifier is a ``"ns.name"`` string (split on dots) or a sequence of levels; the last level is the
name and the others are the namespace. ``"name"`` alone is a view in the empty (root) namespace,
which Java's JDBC catalog supports.

Names and namespace levels become parts of file locations (``<warehouse>/<ns levels>/<name>``), so
those that could escape the warehouse are refused with :class:`~iceview.errors.InvalidIdentifierError`:
empty ones, and ones containing ``..``, ``/`` or NUL. A namespace level must not contain ``.``
either: the catalog stores a namespace as its levels joined by dots, so it could not be read back.

A *new* name (a view created, registered or renamed to, a namespace created: :func:`to_new_identifier`
and :func:`to_new_namespace`) must also fit the file system and the metastores, or it is refused with
:class:`~iceview.errors.InvalidNameError` before anything is written: see :data:`MAX_NAME_LENGTH`
and :data:`MAX_NAME_BYTES`. Names that exist already (made by another client) are still looked up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Union

from iceview.errors import InvalidIdentifierError, InvalidNameError

__all__ = [
    "MAX_NAME_BYTES",
    "MAX_NAME_LENGTH",
    "IdentifierLike",
    "NamespaceLike",
    "ViewIdentifier",
    "name_problem",
    "namespace_to_string",
    "string_to_namespace",
    "to_identifier",
    "to_namespace",
    "to_new_identifier",
    "to_new_namespace",
]

IdentifierLike = Union[str, Sequence[str], "ViewIdentifier"]
NamespaceLike = str | Sequence[str]


MAX_NAME_LENGTH = 128
"""The most characters a new name may have: a view or table name, or a namespace (its levels joined
by dots). Hive Metastore (and so Glue, and Spark on either) limits database and table names to 128
characters."""

# A name becomes one component of a file path: ``<warehouse>/<ns1>/<ns2>/<name>/metadata/...`` for
# views (Java's JDBC layout), ``<name>-<32 hex digits>`` with ``unique-table-location``,
# ``<warehouse>/<ns1.ns2>/<table>`` for tables in PyIceberg's SQL catalog (the namespace, joined by
# dots, is one component) and ``<ns>.db`` in the Hive layout. A component is at most 255 bytes on
# ext4, xfs, btrfs and APFS (UTF-8) and 255 UTF-16 units on NTFS (never more units than UTF-8
# bytes); the longest suffix a layout adds is ``-`` and a uuid's 32 hex digits.
_COMPONENT_BYTES = 255
_LONGEST_SUFFIX = len("-") + 32

MAX_NAME_BYTES = _COMPONENT_BYTES - _LONGEST_SUFFIX
"""The most bytes of UTF-8 a new name (or namespace, joined by dots) may have: 222, so that the
path component it becomes fits 255 bytes with any suffix the warehouse layouts add."""


def _abbreviated(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:32]) + "..."


def name_problem(name: str) -> str | None:
    """Why ``name`` is too long to be a new name (or namespace, levels joined by dots), or None.
    The text shows the first characters of a long name only."""
    chars = len(name)
    size = len(name.encode("utf-8", "surrogatepass"))
    if chars <= MAX_NAME_LENGTH and size <= MAX_NAME_BYTES:
        return None
    if chars > MAX_NAME_LENGTH:
        return f"{_abbreviated(name)} has {chars} characters, more than the {MAX_NAME_LENGTH} allowed"
    return f"{_abbreviated(name)} has {size} bytes of UTF-8, more than the {MAX_NAME_BYTES} allowed"


def _check_level(level: object, what: str, shown: str) -> str:
    if not isinstance(level, str):
        raise InvalidIdentifierError(f"Invalid {what} in {shown}: {level!r} is not a string")
    if level == "":
        raise InvalidIdentifierError(f"Invalid {what} in {shown}: empty")
    if level == ".":
        raise InvalidIdentifierError(f"Invalid {what} in {shown}: '.' names the folder it would be in")
    if not level.isascii():
        try:
            level.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidIdentifierError(
                f"Invalid {what} in {_clip(shown)}: it holds a lone surrogate, which is not text"
            ) from None
    for bad, label in (("..", "'..'"), ("/", "'/'"), ("\x00", "NUL")):
        if bad in level:
            raise InvalidIdentifierError(
                f"Invalid {what} in {shown}: {level!r} contains {label}, which could escape the warehouse"
            )
    if _CONTROL.search(level):
        # URL parsers drop tabs and line breaks from a location: ".\t." would be ".."
        raise InvalidIdentifierError(
            f"Invalid {what} in {_clip(shown)}: it holds a control character, which a location cannot keep"
        )
    return level


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _clip(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _shown(levels: Sequence[object]) -> str:
    return ".".join(str(x) for x in levels) if levels else "(empty)"


def to_namespace(namespace: NamespaceLike) -> tuple[str, ...]:
    """A namespace as a tuple of checked levels; ``"a.b"`` is ``("a", "b")``, ``""`` and ``()``
    are the empty namespace."""
    if isinstance(namespace, str):
        levels: Sequence[str] = namespace.split(".") if namespace else ()
    elif isinstance(namespace, Iterable) and not isinstance(namespace, (bytes, Mapping)):
        levels = tuple(namespace)
    else:
        raise InvalidIdentifierError(
            f"Invalid namespace: {_clip(namespace)} (a string like 'a.b' or a sequence of levels)"
        )
    shown = _shown(levels)
    for level in levels:
        _check_level(level, "namespace level", shown)
        if "." in level:
            raise InvalidIdentifierError(
                f"Invalid namespace level in {shown}: {level!r} contains '.', "
                "which the catalog uses to join namespace levels"
            )
    return tuple(levels)


@dataclass(frozen=True, slots=True)
class ViewIdentifier:
    """A checked identifier: ``namespace`` levels and ``name``. ``str()`` renders it as Java's
    ``TableIdentifier.toString()`` does (``ns1.ns2.name``)."""

    namespace: tuple[str, ...]
    name: str

    def __str__(self) -> str:
        return ".".join((*self.namespace, self.name))

    @property
    def levels(self) -> tuple[str, ...]:
        """Namespace levels then the name: the PyIceberg form of an identifier."""
        return (*self.namespace, self.name)

    @property
    def namespace_string(self) -> str:
        """The ``table_namespace`` column value: levels joined by dots."""
        return namespace_to_string(self.namespace)


def to_identifier(identifier: IdentifierLike) -> ViewIdentifier:
    """Parse and check an identifier (``"ns.name"``, ``("ns", "name")`` or a :class:`ViewIdentifier`)."""
    if isinstance(identifier, ViewIdentifier):
        return identifier
    if isinstance(identifier, str):
        if identifier == "":
            raise InvalidIdentifierError("Invalid identifier: the name is empty")
        levels: tuple[str, ...] = tuple(identifier.split("."))
    elif isinstance(identifier, Iterable) and not isinstance(identifier, (bytes, Mapping)):
        levels = tuple(identifier)
    else:
        raise InvalidIdentifierError(
            f"Invalid identifier: {_clip(identifier)} (a string like 'ns.name' or a sequence of levels)"
        )
    if not levels:
        raise InvalidIdentifierError("Invalid identifier: the name is empty")
    shown = _shown(levels)
    name = levels[-1]
    if isinstance(name, str) and name == "":
        raise InvalidIdentifierError(f"Invalid identifier {shown}: the name is empty")
    _check_level(name, "name", shown)
    namespace = to_namespace(levels[:-1])
    return ViewIdentifier(namespace, name)


def to_new_namespace(namespace: NamespaceLike) -> tuple[str, ...]:
    """:func:`to_namespace` for a namespace about to be created: its levels joined by dots (one
    path component in PyIceberg's table layout, one database name in Hive's) may not be longer
    than :data:`MAX_NAME_LENGTH` characters or :data:`MAX_NAME_BYTES` bytes."""
    ns = to_namespace(namespace)
    problem = name_problem(namespace_to_string(ns))
    if problem is not None:
        raise InvalidNameError(f"Invalid namespace: {problem}")
    return ns


def to_new_identifier(identifier: IdentifierLike) -> ViewIdentifier:
    """:func:`to_identifier` for a view or table about to be created, registered or renamed to:
    its name, and its namespace with the levels joined by dots, may not be longer than
    :data:`MAX_NAME_LENGTH` characters or :data:`MAX_NAME_BYTES` bytes."""
    ident = to_identifier(identifier)
    problem = name_problem(ident.name)
    if problem is not None:
        raise InvalidNameError(f"Invalid name: {problem}")
    to_new_namespace(ident.namespace)
    return ident


def namespace_to_string(namespace: Sequence[str]) -> str:
    """Java's ``JdbcUtil.namespaceToString``: levels joined by dots."""
    return ".".join(namespace)


def string_to_namespace(text: str) -> tuple[str, ...]:
    """Java's ``JdbcUtil.stringToNamespace``: ``""`` is the empty namespace."""
    return tuple(text.split(".")) if text else ()
