"""View identifiers and namespaces: parsing, checking and rendering as Iceberg Java does.

An identifier is a ``"ns.name"`` string (split on dots) or a sequence of levels; the last level is the
name and the others are the namespace. ``"name"`` alone is a view in the empty (root) namespace,
which Java's JDBC catalog supports.

Names and namespace levels become parts of file locations (``<warehouse>/<ns levels>/<name>``), so
those that could escape the warehouse are refused with :class:`~iceview.errors.InvalidIdentifierError`:
empty ones, and ones containing ``..``, ``/`` or NUL. A namespace level must not contain ``.``
either: the catalog stores a namespace as its levels joined by dots, so it could not be read back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from iceview.errors import InvalidIdentifierError

__all__ = [
    "IdentifierLike",
    "NamespaceLike",
    "ViewIdentifier",
    "namespace_to_string",
    "string_to_namespace",
    "to_identifier",
    "to_namespace",
]

IdentifierLike = Union[str, Sequence[str], "ViewIdentifier"]
NamespaceLike = str | Sequence[str]


def _check_level(level: object, what: str, shown: str) -> str:
    if not isinstance(level, str):
        raise InvalidIdentifierError(f"Invalid {what} in {shown}: {level!r} is not a string")
    if level == "":
        raise InvalidIdentifierError(f"Invalid {what} in {shown}: empty")
    for bad, label in (("..", "'..'"), ("/", "'/'"), ("\x00", "NUL")):
        if bad in level:
            raise InvalidIdentifierError(
                f"Invalid {what} in {shown}: {level!r} contains {label}, which could escape the warehouse"
            )
    return level


def _shown(levels: Sequence[object]) -> str:
    return ".".join(str(x) for x in levels) if levels else "(empty)"


def to_namespace(namespace: NamespaceLike) -> tuple[str, ...]:
    """A namespace as a tuple of checked levels; ``"a.b"`` is ``("a", "b")``, ``""`` and ``()``
    are the empty namespace."""
    if isinstance(namespace, str):
        levels: Sequence[str] = namespace.split(".") if namespace else ()
    else:
        levels = tuple(namespace)
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
    else:
        levels = tuple(identifier)
    if not levels:
        raise InvalidIdentifierError("Invalid identifier: the name is empty")
    shown = _shown(levels)
    name = levels[-1]
    if isinstance(name, str) and name == "":
        raise InvalidIdentifierError(f"Invalid identifier {shown}: the name is empty")
    _check_level(name, "name", shown)
    namespace = to_namespace(levels[:-1])
    return ViewIdentifier(namespace, name)


def namespace_to_string(namespace: Sequence[str]) -> str:
    """Java's ``JdbcUtil.namespaceToString``: levels joined by dots."""
    return ".".join(namespace)


def string_to_namespace(text: str) -> tuple[str, ...]:
    """Java's ``JdbcUtil.stringToNamespace``: ``""`` is the empty namespace."""
    return tuple(text.split(".")) if text else ()
