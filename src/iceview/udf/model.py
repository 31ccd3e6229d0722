"""The UDF metadata model: immutable values named as in the UDF spec.

:class:`FunctionMetadata` holds :class:`FunctionDefinition` s (one per signature), each with its
:class:`FunctionParameter` s, return type and :class:`DefinitionVersion` s, and the
:class:`DefinitionLogEntry` s of the definition log. Read one with
:func:`iceview.udf.function_metadata_from_json`, build one with
:class:`iceview.udf.FunctionMetadataBuilder`, write one with
:func:`iceview.udf.function_metadata_to_json`. The values check nothing when made (except the
format version): :func:`iceview.udf.validate` says what is wrong with one made by hand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from iceview.errors import InvalidArgumentError, InvalidMetadataError
from iceview.spec.jsonutil import shorten
from iceview.spec.version import FrozenDict, UnknownRepresentation
from iceview.udf.types import DataType, canonical, matches_definition_id

__all__ = [
    "FUNCTION_TYPES",
    "ON_NULL_INPUTS",
    "SUPPORTED_FUNCTION_FORMAT_VERSION",
    "DefinitionLogEntry",
    "DefinitionVersion",
    "FunctionDefinition",
    "FunctionMetadata",
    "FunctionParameter",
    "Representation",
    "SQLRepresentation",
    "UnknownRepresentation",
]

SUPPORTED_FUNCTION_FORMAT_VERSION = 1
FUNCTION_TYPES = ("udf", "udtf")
ON_NULL_INPUTS = ("call", "return-null")


def _tuple_field(obj: object, name: str) -> None:
    """Make the collection field ``name`` of a frozen dataclass a tuple; ``None`` or a value that
    is not a collection raises :class:`~iceview.errors.InvalidArgumentError` naming the field."""
    value = getattr(obj, name)
    if type(value) is tuple:
        return
    if value is None or isinstance(value, (str, bytes, Mapping)):
        raise InvalidArgumentError(
            f"Invalid {name}: {'null' if value is None else shorten(value)} (a sequence)"
        )
    try:
        converted = tuple(value)
    except TypeError:
        raise InvalidArgumentError(f"Invalid {name}: {shorten(value)} (a sequence)") from None
    object.__setattr__(obj, name, converted)


@dataclass(frozen=True, slots=True)
class SQLRepresentation:
    """A function body as a SQL expression (or, for a UDTF, a query) in a named dialect."""

    dialect: str
    sql: str
    type: ClassVar[str] = "sql"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "sql", "dialect": self.dialect, "sql": self.sql}


Representation = SQLRepresentation | UnknownRepresentation
"""A SQL representation, or one of a type this library does not know, kept as read (the view
format's :class:`~iceview.spec.UnknownRepresentation`)."""


@dataclass(frozen=True, slots=True)
class DefinitionVersion:
    """One implementation of a definition. ``on_null_input`` is ``"call"`` or ``"return-null"``."""

    version_id: int
    representations: tuple[Representation, ...]
    timestamp_ms: int
    deterministic: bool = False
    on_null_input: str = "call"

    def __post_init__(self) -> None:
        _tuple_field(self, "representations")

    @property
    def dialects(self) -> tuple[str, ...]:
        """The dialects of the SQL representations, as written."""
        return tuple(r.dialect for r in self.representations if isinstance(r, SQLRepresentation))

    def sql_for(self, dialect: str, *, fallback: bool = False) -> SQLRepresentation | None:
        """The SQL representation for ``dialect``, matched case-insensitively, or ``None``; with
        ``fallback=True`` a missing dialect gives the first SQL representation (as views do)."""
        if not dialect:
            raise InvalidArgumentError(f"Invalid dialect: {'null' if dialect is None else '(empty string)'}")
        if type(dialect) is not str:
            raise InvalidArgumentError(f"Invalid dialect: {shorten(dialect)} (a str)")
        wanted = dialect.lower()
        first: SQLRepresentation | None = None
        for rep in self.representations:
            if isinstance(rep, SQLRepresentation):
                if rep.dialect.lower() == wanted:
                    return rep
                first = first or rep
        return first if fallback else None

    def same_body(self, other: DefinitionVersion) -> bool:
        """Whether two versions implement the same thing: equal representations in any order,
        ``deterministic`` and ``on_null_input`` (ids and timestamps do not count). The builder
        reuses such a version."""
        return (
            sorted(map(repr, self.representations)) == sorted(map(repr, other.representations))
            and self.deterministic == other.deterministic
            and self.on_null_input == other.on_null_input
        )

    def replace(self, **changes: Any) -> DefinitionVersion:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class FunctionParameter:
    """A parameter: its name, type and optional documentation."""

    name: str
    type: DataType
    doc: str | None = None


@dataclass(frozen=True, slots=True)
class FunctionDefinition:
    """One signature of the function with its versions. ``definition_id`` is the canonical
    parameter-type list (:func:`iceview.udf.definition_id`); ``function_type`` is ``"udf"`` or
    ``"udtf"`` (whose ``return_type`` is a struct: the output columns)."""

    definition_id: str
    parameters: tuple[FunctionParameter, ...]
    return_type: DataType
    versions: tuple[DefinitionVersion, ...]
    current_version_id: int
    function_type: str = "udf"
    return_nullable: bool = True
    specific_name: str | None = None
    doc: str | None = None

    def __post_init__(self) -> None:
        for name in ("parameters", "versions"):
            _tuple_field(self, name)

    @property
    def parameter_types(self) -> tuple[DataType, ...]:
        return tuple(p.type for p in self.parameters)

    @property
    def version_ids(self) -> tuple[int, ...]:
        return tuple(v.version_id for v in self.versions)

    def version(self, version_id: int) -> DefinitionVersion | None:
        """The version with that id, or ``None``."""
        for v in self.versions:
            if v.version_id == version_id:
                return v
        return None

    @property
    def current_version(self) -> DefinitionVersion:
        """The current version. Raises ``InvalidMetadataError`` if ``current-version-id`` names
        no version."""
        version = self.version(self.current_version_id)
        if version is None:
            raise InvalidMetadataError(
                f"Cannot find current version {shorten(self.current_version_id)} of definition "
                f"{shorten(self.definition_id)} in its versions: {shorten(list(self.version_ids))}",
            )
        return version

    def signature(self) -> str:
        """The parameter types as a definition-id spells them, for messages."""
        return ",".join(canonical(t) for t in self.parameter_types)

    def replace(self, **changes: Any) -> FunctionDefinition:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class DefinitionLogEntry:
    """An entry of the definition log: from ``timestamp_ms`` on, each definition named in
    ``definition_versions`` (``(definition_id, version_id)`` pairs) had that current version."""

    timestamp_ms: int
    definition_versions: tuple[tuple[str, int], ...]

    def __post_init__(self) -> None:
        _tuple_field(self, "definition_versions")
        pairs = self.definition_versions
        if not all(type(p) is tuple for p in pairs):
            # pairs given as lists become tuples; anything else is kept for validate to report
            converted = tuple(tuple(p) if isinstance(p, list) else p for p in pairs)
            object.__setattr__(self, "definition_versions", converted)

    def as_mapping(self) -> dict[str, int]:
        """The entry as ``{definition_id: version_id}``."""
        return dict(self.definition_versions)


@dataclass(frozen=True, slots=True)
class FunctionMetadata:
    """The content of a UDF metadata file (UDF spec format-version 1).

    ``metadata_file_location`` (the file it was read from or written to) and ``changes`` (the
    updates the builder recorded to make it) are not part of its value: they do not count in
    ``==``.
    """

    function_uuid: str
    format_version: int
    definitions: tuple[FunctionDefinition, ...]
    definition_log: tuple[DefinitionLogEntry, ...]
    location: str | None = None
    properties: Mapping[str, str] = field(default_factory=FrozenDict)
    secure: bool = False
    doc: str | None = None
    metadata_file_location: str | None = field(default=None, compare=False)
    changes: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    _by_id: dict[str, FunctionDefinition] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if type(self.format_version) is not int or not (
            0 < self.format_version <= SUPPORTED_FUNCTION_FORMAT_VERSION
        ):
            raise InvalidArgumentError(
                f"Unsupported format version: {shorten(self.format_version, raw=True)}"
            )
        for name in ("definitions", "definition_log", "changes"):
            _tuple_field(self, name)
        if type(self.properties) is not FrozenDict:
            object.__setattr__(self, "properties", FrozenDict(self.properties or {}))
        by_id: dict[str, FunctionDefinition] = {}
        for d in self.definitions:
            if isinstance(d, FunctionDefinition) and type(d.definition_id) is str:
                by_id.setdefault(d.definition_id, d)
        object.__setattr__(self, "_by_id", by_id)

    @property
    def definition_ids(self) -> tuple[str, ...]:
        return tuple(d.definition_id for d in self.definitions)

    def definition(self, definition_id: str) -> FunctionDefinition | None:
        """The definition with that id, or ``None``. The id may be spelled as a lenient reader
        takes it (``"decimal( 9, 2 )"`` finds ``decimal(9,2)``). An id that is not a str raises
        :class:`~iceview.errors.InvalidArgumentError`."""
        if type(definition_id) is not str:
            raise InvalidArgumentError(f"Invalid definition id: {shorten(definition_id)} (a str)")
        found = self._by_id.get(definition_id)
        if found is None:
            for d in self.definitions:
                if isinstance(d, FunctionDefinition) and matches_definition_id(
                    definition_id, d.parameter_types
                ):
                    return d
        return found

    def definition_by_specific_name(self, specific_name: str | None) -> FunctionDefinition | None:
        """The definition with that ``specific-name`` (compared exactly), or ``None`` (also for
        ``None``: a definition without a specific name has none to find it by). A name that is not
        a str raises :class:`~iceview.errors.InvalidArgumentError`."""
        if specific_name is None:
            return None
        if type(specific_name) is not str:
            raise InvalidArgumentError(f"Invalid specific name: {shorten(specific_name)} (a str)")
        for d in self.definitions:
            if d.specific_name == specific_name:
                return d
        return None

    def current_version(self, definition: FunctionDefinition | str) -> DefinitionVersion:
        """The current version of ``definition`` (a definition or its id). An unknown id raises
        ``InvalidArgumentError``, a current-version-id that names no version ``InvalidMetadataError``."""
        if isinstance(definition, str):
            found = self.definition(definition)
            if found is None:
                raise InvalidArgumentError(f"Unknown definition: {shorten(definition)}")
            definition = found
        if not isinstance(definition, FunctionDefinition):
            raise InvalidArgumentError(
                f"Invalid definition: {shorten(definition)} (a FunctionDefinition or a definition id)"
            )
        return definition.current_version

    @property
    def current_definition_versions(self) -> dict[str, int]:
        """``{definition_id: current_version_id}`` for every definition, in order."""
        return {d.definition_id: d.current_version_id for d in self.definitions}

    def with_metadata_file_location(self, metadata_file_location: str | None) -> FunctionMetadata:
        """The same metadata, read from or written to ``metadata_file_location``."""
        return dataclasses.replace(self, metadata_file_location=metadata_file_location)
