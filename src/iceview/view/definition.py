"""A view's definition: what a create or replace asks for (Java's ``ViewBuilder`` state).

One value object, :class:`ViewDefinition`, carries the SQL per dialect, the schema, the default
catalog and namespace, the properties, the location and the version summary. ``create_view``,
``replace_view`` and ``create_or_replace_view`` take one; their keyword arguments
(:class:`DefinitionFields`) are a convenience that builds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypedDict, Union

from pyiceberg.schema import Schema

from iceview._version import __version__
from iceview.errors import InvalidArgumentError, InvalidStateError
from iceview.identifiers import NamespaceLike
from iceview.spec import SQLRepresentation

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "DefinitionFields",
    "Queries",
    "ViewDefinition",
    "environment_summary",
    "representations_of",
]

# ``queries``: dialect -> SQL, or (dialect, SQL) pairs / SQLRepresentation in order (Java's withQuery)
Queries = Union[Mapping[str, str], Iterable[tuple[str, str] | SQLRepresentation]]  # noqa: UP007


def environment_summary() -> dict[str, str]:
    """The summary of every version iceview makes (Java puts its ``EnvironmentContext`` there)."""
    return {"engine-name": "iceview", "engine-version": __version__}


def representations_of(queries: Queries | None) -> tuple[SQLRepresentation, ...]:
    """``queries`` as representations, in order."""
    if queries is None:
        return ()
    if isinstance(queries, Mapping):
        return tuple(SQLRepresentation(sql, dialect) for dialect, sql in queries.items())
    out: list[SQLRepresentation] = []
    for q in queries:
        if isinstance(q, SQLRepresentation):
            out.append(q)
        else:
            dialect, sql = q
            out.append(SQLRepresentation(sql, dialect))
    return tuple(out)


def namespace_of(namespace: NamespaceLike | None) -> tuple[str, ...] | None:
    """A default namespace as a tuple (``"a.b"`` is ``("a", "b")``), or None when not given."""
    if namespace is None:
        return None
    if isinstance(namespace, str):
        return tuple(namespace.split(".")) if namespace else ()
    return tuple(namespace)


class DefinitionFields(TypedDict, total=False):
    """The keyword form of a :class:`ViewDefinition` (what ``create_view(ident, **fields)`` takes)."""

    schema: Schema | None
    queries: Queries | None
    default_namespace: NamespaceLike | None
    default_catalog: str | None
    properties: Mapping[str, str] | None
    location: str | None
    summary: Mapping[str, str] | None
    dialects: Sequence[str] | None


@dataclass(frozen=True)
class ViewDefinition:
    """What a view is defined as: its SQL per dialect, schema, default catalog and namespace, plus
    the properties and location a create or replace sets and the summary of the new version.

    ``dialects`` asks for translations into those dialects (``docs/translation.md``), made from the
    source representation when the definition is committed.
    """

    representations: tuple[SQLRepresentation, ...] = ()
    schema: Schema | None = None
    default_namespace: tuple[str, ...] | None = None
    default_catalog: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)
    location: str | None = None
    summary: Mapping[str, str] = field(default_factory=dict)
    dialects: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, definition: ViewDefinition | None = None, **fields: Unpack[DefinitionFields]
    ) -> ViewDefinition:
        """``definition`` (or an empty one) with the keyword ``fields`` applied on top."""
        if definition is not None and not isinstance(definition, ViewDefinition):
            raise InvalidArgumentError(
                f"A view definition must be a ViewDefinition, not {type(definition).__name__} "
                "(or give its fields as keywords, e.g. queries={'spark': 'SELECT ...'})"
            )
        base = definition if definition is not None else cls()
        if not fields:
            return base
        changes: dict[str, object] = {}
        for key, value in fields.items():
            if key == "queries":
                changes["representations"] = representations_of(value)  # type: ignore[arg-type]
            elif key == "default_namespace":
                changes["default_namespace"] = namespace_of(value)  # type: ignore[arg-type]
            elif key in ("properties", "summary"):
                changes[key] = dict(value or {})  # type: ignore[call-overload]
            elif key == "dialects":
                changes["dialects"] = tuple(value or ())  # type: ignore[arg-type]
            elif key in ("schema", "default_catalog", "location"):
                changes[key] = value
            else:  # pragma: no cover - TypedDict keeps callers honest; this guards **kwargs dicts
                raise InvalidArgumentError(f"Unknown view definition field: {key}")
        return replace(base, **changes)  # type: ignore[arg-type]

    def checked(self, verb: str) -> tuple[Schema, tuple[str, ...]]:
        """The schema and default namespace, or Java's ``IllegalStateException`` texts, in Java's
        order, when the query, schema or default namespace is missing (``verb``: create/replace)."""
        if not self.representations:
            raise InvalidStateError(f"Cannot {verb} view without specifying a query")
        if self.schema is None:
            raise InvalidStateError(f"Cannot {verb} view without specifying schema")
        if self.default_namespace is None:
            raise InvalidStateError(f"Cannot {verb} view without specifying a default namespace")
        return self.schema, self.default_namespace

    def with_representations(
        self, representations: Sequence[SQLRepresentation], summary: Mapping[str, str]
    ) -> ViewDefinition:
        """The definition with ``representations`` and ``summary`` (translations are added)."""
        return replace(self, representations=tuple(representations), summary=dict(summary), dialects=())
