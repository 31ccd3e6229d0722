"""The parts of a view version, named as in the view spec: ``ViewVersion``, its representations
(``SQLRepresentation``; ``UnknownRepresentation`` keeps any other type as read), the version log
(``VersionLogEntry``, ``ViewHistory``), and the immutable string map ``FrozenDict``."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn, overload

from iceview.errors import InvalidArgumentError

__all__ = [
    "SUPPORTED_VIEW_FORMAT_VERSION",
    "FrozenDict",
    "Representation",
    "SQLRepresentation",
    "UnknownRepresentation",
    "VersionLogEntry",
    "ViewHistory",
    "ViewVersion",
]

SUPPORTED_VIEW_FORMAT_VERSION = 1


class FrozenDict(dict[str, str]):
    """A ``dict`` that cannot be changed after it is made (used for properties and summaries)."""

    __slots__ = ()

    def _immutable(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("this mapping is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _immutable

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, str]]]:
        return (FrozenDict, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))


_EMPTY = FrozenDict()


def _frozen(mapping: Mapping[str, str] | None) -> FrozenDict:
    if not mapping:
        return _EMPTY
    return mapping if type(mapping) is FrozenDict else FrozenDict(mapping)


@dataclass(frozen=True, slots=True)
class SQLRepresentation:
    """A view definition as a SQL SELECT in a named dialect."""

    sql: str
    dialect: str
    type: ClassVar[str] = "sql"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "sql", "sql": self.sql, "dialect": self.dialect}


@dataclass(frozen=True, slots=True)
class UnknownRepresentation:
    """A representation of a type this library does not know. ``type`` is lower-cased as Java does;
    ``raw`` is the original JSON object, written back unchanged."""

    type: str
    raw: Mapping[str, Any] = field(compare=True)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)


Representation = SQLRepresentation | UnknownRepresentation


def _check_dialect(dialect: str | None) -> str:
    if dialect is None:
        raise InvalidArgumentError("Invalid dialect: null")
    if dialect == "":
        raise InvalidArgumentError("Invalid dialect: (empty string)")
    return dialect


def _sql_for(
    representations: Sequence[Representation], dialect: str | None, fallback: bool
) -> SQLRepresentation | None:
    wanted = _check_dialect(dialect).lower()
    first: SQLRepresentation | None = None
    for rep in representations:
        if isinstance(rep, SQLRepresentation):
            if rep.dialect.lower() == wanted:
                return rep
            if first is None:
                first = rep
    return first if fallback else None


@dataclass(frozen=True, slots=True)
class ViewVersion:
    """One version of a view: its SQL representations, schema id and resolution defaults."""

    version_id: int
    timestamp_ms: int
    schema_id: int
    summary: Mapping[str, str]
    representations: tuple[Representation, ...]
    default_namespace: tuple[str, ...]
    default_catalog: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", _frozen(self.summary))
        if type(self.representations) is not tuple:
            object.__setattr__(self, "representations", tuple(self.representations))
        if type(self.default_namespace) is not tuple:
            object.__setattr__(self, "default_namespace", tuple(self.default_namespace))

    @property
    def operation(self) -> str:
        """``create`` for version 1, ``replace`` for any other (derived, as in Java)."""
        return "create" if self.version_id == 1 else "replace"

    @property
    def dialects(self) -> tuple[str, ...]:
        """The dialects of this version's SQL representations, as written."""
        return tuple(r.dialect for r in self.representations if isinstance(r, SQLRepresentation))

    def sql_for(self, dialect: str, *, fallback: bool = False) -> SQLRepresentation | None:
        """The SQL representation for ``dialect``, matched case-insensitively. With
        ``fallback=True`` a missing dialect gives the first SQL representation, as Java's
        ``View.sqlFor`` always does; by default it gives ``None``."""
        return _sql_for(self.representations, dialect, fallback)

    def replace(self, **changes: Any) -> ViewVersion:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return _version_dict(
            self.version_id,
            self.timestamp_ms,
            self.schema_id,
            self.summary,
            self.default_catalog,
            self.default_namespace,
            [r.to_dict() for r in self.representations],
        )


def _version_dict(
    version_id: int,
    timestamp_ms: int,
    schema_id: int,
    summary: Mapping[str, str],
    default_catalog: str | None,
    default_namespace: Sequence[str],
    representations: list[Any],
) -> dict[str, Any]:
    """A version's JSON object in Java's field order."""
    out: dict[str, Any] = {
        "version-id": version_id,
        "timestamp-ms": timestamp_ms,
        "schema-id": schema_id,
        "summary": dict(summary),
    }
    if default_catalog is not None:
        out["default-catalog"] = default_catalog
    out["default-namespace"] = list(default_namespace)
    out["representations"] = representations
    return out


def _representation_json(raw: dict[str, Any]) -> dict[str, Any]:
    if raw["type"].lower() == "sql":
        return {"type": "sql", "sql": raw["sql"], "dialect": raw["dialect"]}
    return raw


def _version_json(raw: dict[str, Any]) -> dict[str, Any]:
    """A checked version object from a file, re-written in Java's field order without first
    building the model objects."""
    return _version_dict(
        raw["version-id"],
        raw["timestamp-ms"],
        raw["schema-id"],
        raw["summary"],
        raw.get("default-catalog"),
        raw["default-namespace"],
        [_representation_json(r) for r in raw["representations"]],
    )


@dataclass(frozen=True, slots=True)
class VersionLogEntry:
    """An entry of the version log: at ``timestamp_ms`` the current version became ``version_id``."""

    timestamp_ms: int
    version_id: int

    def to_dict(self) -> dict[str, Any]:
        return {"timestamp-ms": self.timestamp_ms, "version-id": self.version_id}


class ViewHistory(Sequence[VersionLogEntry]):
    """The version log, oldest first, with look-ups by time."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Iterable[VersionLogEntry]) -> None:
        self._entries = tuple(entries)

    @overload
    def __getitem__(self, index: int) -> VersionLogEntry: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[VersionLogEntry]: ...
    def __getitem__(self, index: int | slice) -> VersionLogEntry | Sequence[VersionLogEntry]:
        return self._entries[index]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[VersionLogEntry]:
        return iter(self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ViewHistory):
            return self._entries == other._entries
        if isinstance(other, (tuple, list)):
            return self._entries == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._entries)

    def __repr__(self) -> str:
        return f"ViewHistory({list(self._entries)!r})"

    @property
    def version_ids(self) -> tuple[int, ...]:
        return tuple(e.version_id for e in self._entries)

    def version_at(self, timestamp_ms: int) -> int | None:
        """The id of the version that was current at ``timestamp_ms`` (the last entry at or before
        it), or ``None`` if the log starts later."""
        found: int | None = None
        for entry in self._entries:
            if entry.timestamp_ms <= timestamp_ms:
                found = entry.version_id
            else:
                break
        return found


# The reader hands over checked JSON objects; these turn them into model objects on first use.


def _representation_from_json(raw: dict[str, Any]) -> Representation:
    kind = raw["type"].lower()
    if kind == "sql":
        return SQLRepresentation(raw["sql"], raw["dialect"])
    return UnknownRepresentation(kind, raw)


def _version_from_json(raw: dict[str, Any]) -> ViewVersion:
    return ViewVersion(
        raw["version-id"],
        raw["timestamp-ms"],
        raw["schema-id"],
        raw["summary"],
        tuple(_representation_from_json(r) for r in raw["representations"]),
        tuple(raw["default-namespace"]),
        raw.get("default-catalog"),
    )
