"""Every operation on a SQL UDF as a change: requirements plus updates, as a view's are.

Each function here makes the new metadata on top of ``base`` with the UDF builder
(:class:`~iceview.udf.FunctionMetadataBuilder`), so its rules run before anything is sent, and
returns the updates it recorded. Those refer to what they add with ``-1`` ("the version of this
definition added last"), so a catalog that finds a newer base re-applies them there: a replaced
definition made against an old base lands as a new version on the fresh one.
"""

from __future__ import annotations

import time
import uuid as uuidlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from iceview.errors import InvalidArgumentError, InvalidMetadataError, ValidationError
from iceview.spec.jsonutil import shorten
from iceview.udf import (
    AssertCreate,
    AssertFunctionUUID,
    DataType,
    DefinitionVersion,
    FunctionMetadata,
    FunctionMetadataBuilder,
    FunctionParameter,
    FunctionRequirement,
    FunctionUpdate,
    ListType,
    MapType,
    PrimitiveType,
    Representation,
    SQLRepresentation,
    StructType,
    parse_type,
)

__all__ = [
    "FunctionChange",
    "NewDefinition",
    "add_definition_change",
    "create_change",
    "doc_change",
    "location_change",
    "properties_change",
    "remove_definition_change",
    "replace_definition_change",
    "restore_change",
    "rollback_change",
    "secure_change",
    "to_type",
]

ParameterLike = FunctionParameter | tuple[str, Any] | tuple[str, Any, str | None]
"""A parameter: a :class:`FunctionParameter`, or ``(name, type)`` / ``(name, type, doc)`` where
the type is a :data:`DataType` or its JSON value (``"int"``, ``{"type": "list", ...}``)."""

BodyLike = Mapping[str, str] | Sequence[Representation]
"""A function body: ``{dialect: sql}``, or SQL representations."""


@dataclass(frozen=True)
class FunctionChange:
    """What a commit asks for: ``requirements`` checked against the catalog's current metadata,
    then ``updates`` applied to it in order."""

    requirements: tuple[FunctionRequirement, ...]
    updates: tuple[FunctionUpdate, ...]


def to_type(value: Any, what: str) -> DataType:
    """A type given as a :data:`DataType` or as its JSON value; anything else raises
    :class:`InvalidArgumentError` naming ``what``."""
    if isinstance(value, (PrimitiveType, ListType, MapType, StructType)):
        return value
    try:
        return parse_type(value)
    except InvalidMetadataError as e:
        raise InvalidArgumentError(f"Invalid {what}: {e}") from None


def _parameters(parameters: Iterable[ParameterLike]) -> tuple[FunctionParameter, ...]:
    if parameters is None or isinstance(parameters, (str, bytes, Mapping)):
        raise InvalidArgumentError(
            f"Invalid parameters: {shorten(parameters)} (a sequence of (name, type) pairs)"
        )
    out: list[FunctionParameter] = []
    for index, p in enumerate(parameters):
        if isinstance(p, FunctionParameter):
            out.append(p)
            continue
        if not isinstance(p, (tuple, list)) or len(p) not in (2, 3):
            raise InvalidArgumentError(
                f"Invalid parameter {index}: {shorten(p)} (a FunctionParameter, (name, type) or "
                "(name, type, doc))"
            )
        name, kind = p[0], p[1]
        doc = p[2] if len(p) == 3 else None
        if type(name) is not str or not name:
            raise InvalidArgumentError(f"Invalid parameter {index}: name {shorten(name)} (a non-empty str)")
        if doc is not None and type(doc) is not str:
            raise InvalidArgumentError(f"Invalid parameter {index}: doc {shorten(doc)} (a str)")
        out.append(FunctionParameter(name, to_type(kind, f"type of parameter {index}"), doc))
    return tuple(out)


def _representations(body: BodyLike) -> tuple[Representation, ...]:
    if isinstance(body, Mapping):
        reps: list[Representation] = []
        for dialect, sql in body.items():
            if type(dialect) is not str or type(sql) is not str:
                raise InvalidArgumentError(
                    f"Invalid body: {shorten(dialect)}: {shorten(sql)} (a dialect and its SQL, both str)"
                )
            reps.append(SQLRepresentation(dialect, sql))
        return tuple(reps)
    if body is None or isinstance(body, (str, bytes)) or not isinstance(body, Sequence):
        raise InvalidArgumentError(
            f"Invalid body: {shorten(body)} (a mapping of dialect to SQL, or SQL representations)"
        )
    return tuple(body)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _version(body: BodyLike, deterministic: bool, on_null_input: str) -> DefinitionVersion:
    if type(deterministic) is not bool:
        raise InvalidArgumentError(f"Invalid deterministic: {shorten(deterministic)} (a bool)")
    if on_null_input not in ("call", "return-null"):
        raise InvalidArgumentError(f"Invalid on_null_input: {shorten(on_null_input)} (call or return-null)")
    return DefinitionVersion(
        version_id=1,
        representations=_representations(body),
        timestamp_ms=_now_ms(),
        deterministic=deterministic,
        on_null_input=on_null_input,
    )


@dataclass(frozen=True)
class NewDefinition:
    """A definition to add: its signature, return type and first body.

    ``NewDefinition([("x", "int")], "int", {"spark": "x + 1"})``; a table function
    (``function_type="udtf"``) returns a struct, whose fields are its output columns.
    """

    parameters: Sequence[ParameterLike]
    return_type: Any
    body: BodyLike
    function_type: str = "udf"
    return_nullable: bool = True
    specific_name: str | None = None
    doc: str | None = None
    deterministic: bool = False
    on_null_input: str = "call"

    def add_to(self, builder: FunctionMetadataBuilder) -> None:
        """Add this definition to ``builder`` (its rules raise ``InvalidArgumentError``)."""
        builder.add_definition(
            _parameters(self.parameters),
            to_type(self.return_type, "return type"),
            _version(self.body, self.deterministic, self.on_null_input),
            function_type=self.function_type,
            return_nullable=self.return_nullable,
            specific_name=self.specific_name,
            doc=self.doc,
        )


def _build(builder: FunctionMetadataBuilder) -> FunctionMetadata:
    try:
        return builder.build()
    except ValidationError as e:
        raise InvalidArgumentError(str(e)) from None


def _change(base: FunctionMetadata, edit: Callable[[FunctionMetadataBuilder], object]) -> FunctionChange:
    builder = FunctionMetadataBuilder(base)
    edit(builder)
    built = _build(builder)
    return FunctionChange((AssertFunctionUUID(base.function_uuid),), tuple(built.changes))


def create_change(
    definitions: Sequence[NewDefinition],
    location: str | None,
    properties: Mapping[str, str] | None = None,
    *,
    doc: str | None = None,
    secure: bool = False,
) -> FunctionChange:
    """Create a function with ``definitions`` (at least one) at ``location``."""
    if isinstance(definitions, NewDefinition):
        definitions = [definitions]
    if not definitions or not all(isinstance(d, NewDefinition) for d in definitions):
        raise InvalidArgumentError(
            f"Invalid definitions: {shorten(definitions)} (at least one NewDefinition)"
        )
    checked = _checked_properties(properties)
    builder = FunctionMetadataBuilder(None).assign_uuid(str(uuidlib.uuid4()))
    if location is not None:  # None: the catalog chooses (a REST server does)
        builder.set_location(location)
    if checked:
        builder.set_properties(checked)
    if doc is not None:
        builder.set_doc(doc)
    builder.set_secure(secure)
    for d in definitions:
        d.add_to(builder)
    built = _build(builder)
    return FunctionChange((AssertCreate(),), tuple(built.changes))


def add_definition_change(base: FunctionMetadata, definition: NewDefinition) -> FunctionChange:
    """Add a definition for a new signature."""
    if not isinstance(definition, NewDefinition):
        raise InvalidArgumentError(f"Invalid definition: {shorten(definition)} (a NewDefinition)")
    return _change(base, definition.add_to)


def replace_definition_change(
    base: FunctionMetadata,
    definition_id: str,
    body: BodyLike,
    *,
    deterministic: bool | None = None,
    on_null_input: str | None = None,
) -> FunctionChange:
    """A new current version of a definition with ``body``; ``deterministic`` and
    ``on_null_input`` stay as the current version has them unless given. An equal earlier
    version is made current again instead of added (the builder's rule)."""
    current = base.current_version(definition_id)
    version = _version(
        body,
        current.deterministic if deterministic is None else deterministic,
        current.on_null_input if on_null_input is None else on_null_input,
    )

    def edit(builder: FunctionMetadataBuilder) -> None:
        builder.add_definition_version(definition_id, version)
        builder.set_current_definition_version(definition_id, -1)

    return _change(base, edit)


def rollback_change(base: FunctionMetadata, definition_id: str, version_id: int) -> FunctionChange:
    """Make an earlier version of a definition current again."""
    if type(version_id) is not int or version_id < 1:
        raise InvalidArgumentError(
            f"Invalid version id of definition {shorten(definition_id)}: {shorten(version_id)} (1 or more)"
        )
    return _change(base, lambda b: b.set_current_definition_version(definition_id, version_id))


def restore_change(base: FunctionMetadata, versions: Mapping[str, int]) -> FunctionChange:
    """Make several definitions' versions current in one commit (``{definition_id: version_id}``:
    a rollback of the whole function to a definition-log entry)."""

    if not isinstance(versions, Mapping):
        raise InvalidArgumentError(
            f"Invalid versions: {shorten(versions)} (a mapping of definition id to version id)"
        )
    for version_id in versions.values():
        if type(version_id) is not int or version_id < 1:
            raise InvalidArgumentError(f"Invalid version id: {shorten(version_id)} (a version id, 1 or more)")

    def edit(builder: FunctionMetadataBuilder) -> None:
        for definition_id, version_id in versions.items():
            builder.set_current_definition_version(definition_id, version_id)

    return _change(base, edit)


def remove_definition_change(base: FunctionMetadata, definition_id: str) -> FunctionChange:
    """Drop a definition with all its versions (a function keeps at least one)."""
    found = base.definition(definition_id)
    if found is not None and len(base.definitions) == 1:
        raise InvalidArgumentError(
            f"Cannot remove the last definition ({shorten(found.definition_id)}): a function must keep at least one"
        )
    return _change(base, lambda b: b.remove_definition(definition_id))


def _checked_properties(properties: Mapping[str, str] | None, what: str = "properties") -> dict[str, str]:
    """``properties`` as a dict of strings; anything else raises, naming the key."""
    if properties is None:
        return {}
    if not isinstance(properties, Mapping):
        raise InvalidArgumentError(f"Invalid {what}: {shorten(properties)} (a mapping of strings to strings)")
    for key, value in properties.items():
        if type(key) is not str:
            raise InvalidArgumentError(
                f"Invalid {what}: key {'null' if key is None else shorten(key)} (a str)"
            )
        if type(value) is not str:
            raise InvalidArgumentError(
                f"Invalid {what}: the value of {shorten(key)} is {'null' if value is None else shorten(value)} (a str)"
            )
    return dict(properties)


def properties_change(
    base: FunctionMetadata,
    updates: Mapping[str, str] | None = None,
    removals: Iterable[str] | None = None,
) -> FunctionChange:
    """Set and remove properties. Keys already set to the value, and removals of keys that are not
    set, change nothing (a change of nothing commits nothing); a key both set and removed is
    refused, as the view's properties update refuses it."""
    wanted = _checked_properties(updates)
    if removals is not None and (
        isinstance(removals, (str, bytes, Mapping)) or not isinstance(removals, Iterable)
    ):
        raise InvalidArgumentError(f"Invalid removals: {shorten(removals)} (an iterable of property keys)")
    gone = list(dict.fromkeys(removals or ()))
    for key in gone:
        if type(key) is not str:
            raise InvalidArgumentError(
                f"Invalid removals: key {'null' if key is None else shorten(key)} (a str)"
            )
    both = [key for key in gone if key in wanted]
    if both:
        raise InvalidArgumentError(f"Cannot remove and update the same key: {shorten(both[0])}")
    current = base.properties
    changed = {k: v for k, v in wanted.items() if current.get(k) != v}
    removed = [k for k in gone if k in current]

    def edit(builder: FunctionMetadataBuilder) -> None:
        if removed:
            builder.remove_properties(removed)
        if changed:
            builder.set_properties(changed)

    return _change(base, edit)


def doc_change(base: FunctionMetadata, doc: str | None) -> FunctionChange:
    """Set the function's documentation (None removes it)."""
    return _change(base, lambda b: b.set_doc(doc))


def secure_change(base: FunctionMetadata, secure: bool) -> FunctionChange:
    """Mark the function secure or not."""
    return _change(base, lambda b: b.set_secure(secure))


def location_change(base: FunctionMetadata, location: str) -> FunctionChange:
    """Move the function's base location (where its next metadata files go)."""
    return _change(base, lambda b: b.set_location(location))
