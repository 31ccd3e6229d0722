"""UDF metadata updates and requirements as data, with their JSON forms.

No standard exists for these yet (the REST spec has only ``loadFunction``): the forms here are an
iceview extension, shaped like the view ones (``{"action": "set-location", "location": ...}``,
``{"type": "assert-create"}``), kebab-case as the REST spec names things. Those a view has too
(``assign-uuid``, ``upgrade-format-version``, ``set-location``, ``set-properties``,
``remove-properties``) are defined once for both formats (:mod:`iceview.spec.common_updates`)
and named here; the UDF form does not read the view form's legacy ``updated`` and ``removed``.
The builder records updates as it works (:attr:`iceview.udf.FunctionMetadata.changes`) and
:func:`iceview.udf.apply` replays them on a base, checking requirements first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from iceview.errors import CommitFailedError, InvalidArgumentError
from iceview.spec.common_updates import (
    COMMON_UPDATE_TYPES,
    AssignUUID,
    CommonUpdate,
    RemoveProperties,
    SetLocation,
    SetProperties,
    UpgradeFormatVersion,
    check_uuid_requirement,
    common_update_from_dict,
    requirement_uuid,
)
from iceview.spec.jsonutil import (
    child,
    fail,
    get_bool,
    get_field,
    get_int,
    get_string,
    get_string_or_none,
    node_str,
    shorten,
)
from iceview.udf.codec import definition_from_dict, definition_to_dict, version_from_dict, version_to_dict
from iceview.udf.model import DefinitionVersion, FunctionDefinition, FunctionMetadata
from iceview.udf.types import canonical

__all__ = [
    "UPDATE_TYPES",
    "AddDefinition",
    "AddDefinitionVersion",
    "AssertCreate",
    "AssertCurrentDefinitions",
    "AssertFunctionUUID",
    "AssignUUID",
    "FunctionRequirement",
    "FunctionUpdate",
    "RemoveDefinition",
    "RemoveProperties",
    "SetCurrentDefinitionVersion",
    "SetFunctionDoc",
    "SetFunctionSecure",
    "SetLocation",
    "SetProperties",
    "UpgradeFormatVersion",
    "requirement_from_dict",
    "update_from_dict",
]

LAST_ADDED = -1


@dataclass(frozen=True, slots=True)
class SetFunctionDoc:
    """Set the function's ``doc``; ``None`` removes it (``"doc": null`` in JSON)."""

    doc: str | None
    action: ClassVar[str] = "set-function-doc"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "doc": self.doc}


@dataclass(frozen=True, slots=True)
class SetFunctionSecure:
    """Mark the function secure or not."""

    secure: bool
    action: ClassVar[str] = "set-function-secure"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "secure": self.secure}


@dataclass(frozen=True, slots=True)
class AddDefinition:
    """Add a definition (a new signature) with its first version, which becomes current. The
    JSON carries the whole definition object, with exactly one version."""

    definition: FunctionDefinition
    action: ClassVar[str] = "add-definition"

    def to_dict(self) -> dict[str, Any]:
        # the builder computes the id from the parameters; written so, the JSON always reads back
        computed = ",".join(canonical(t) for t in self.definition.parameter_types)
        definition = self.definition.replace(definition_id=computed)
        return {"action": self.action, "definition": definition_to_dict(definition)}


@dataclass(frozen=True, slots=True)
class AddDefinitionVersion:
    """Add a version to a definition (not made current: see :class:`SetCurrentDefinitionVersion`)."""

    definition_id: str
    version: DefinitionVersion
    action: ClassVar[str] = "add-definition-version"

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "definition-id": self.definition_id,
            "version": version_to_dict(self.version),
        }


@dataclass(frozen=True, slots=True)
class SetCurrentDefinitionVersion:
    """Make ``version_id`` the current version of a definition; ``-1`` means the version of that
    definition added (or found equal to an existing one) last in the same change."""

    definition_id: str
    version_id: int
    action: ClassVar[str] = "set-current-definition-version"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "definition-id": self.definition_id, "version-id": self.version_id}


@dataclass(frozen=True, slots=True)
class RemoveDefinition:
    """Remove a definition with all its versions."""

    definition_id: str
    action: ClassVar[str] = "remove-definition"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "definition-id": self.definition_id}


UPDATE_TYPES = (
    *COMMON_UPDATE_TYPES,
    SetFunctionDoc,
    SetFunctionSecure,
    AddDefinition,
    AddDefinitionVersion,
    SetCurrentDefinitionVersion,
    RemoveDefinition,
)

FunctionUpdate = (
    CommonUpdate
    | SetFunctionDoc
    | SetFunctionSecure
    | AddDefinition
    | AddDefinitionVersion
    | SetCurrentDefinitionVersion
    | RemoveDefinition
)


# ---------------------------------------------------------------------------------- requirements


@dataclass(frozen=True, slots=True)
class AssertCreate:
    """The function must not exist yet. Not the view's class: its failure names a function."""

    type: ClassVar[str] = "assert-create"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type}

    def validate(self, base: FunctionMetadata | None) -> None:
        if base is not None:
            raise CommitFailedError("Requirement failed: function already exists")


@dataclass(frozen=True, slots=True)
class AssertFunctionUUID:
    """The function's uuid must still be ``uuid`` (compared case-insensitively, as views do)."""

    uuid: str
    type: ClassVar[str] = "assert-function-uuid"

    def __post_init__(self) -> None:
        object.__setattr__(self, "uuid", requirement_uuid(self.uuid, self.type, "function"))

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "uuid": self.uuid}

    def validate(self, base: FunctionMetadata | None) -> None:
        check_uuid_requirement(None if base is None else base.function_uuid, self.uuid, "function")


@dataclass(frozen=True, slots=True)
class AssertCurrentDefinitions:
    """The base's definitions and their current versions must be exactly ``current``
    (``{definition_id: version_id}``): no definition added or removed, none moved to another
    version. For an optimistic commit of a change derived from that state. JSON:
    ``{"type": "assert-current-definitions", "definition-versions": [{"definition-id": ...,
    "version-id": ...}, ...]}``, the shape of a definition-log entry."""

    current: Mapping[str, int]
    type: ClassVar[str] = "assert-current-definitions"

    def __post_init__(self) -> None:
        current: object = self.current
        if not isinstance(current, Mapping):
            raise InvalidArgumentError(
                f"Invalid current definitions: {'null' if current is None else shorten(current)} "
                "(a mapping of definition ids to version ids)"
            )
        for key, value in current.items():
            if type(key) is not str or type(value) is not int:
                raise InvalidArgumentError(
                    f"Invalid current definition: {shorten(key)}: {shorten(value)} (a str id and an int version)"
                )
        if type(current) is not dict:
            object.__setattr__(self, "current", dict(current))

    def __hash__(self) -> int:
        return hash(frozenset(self.current.items()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "definition-versions": [{"definition-id": d, "version-id": v} for d, v in self.current.items()],
        }

    def validate(self, base: FunctionMetadata | None) -> None:
        if base is None:
            raise CommitFailedError("Requirement failed: function does not exist")
        actual = base.current_definition_versions
        expected: dict[str, int] = {}
        for definition_id, version_id in self.current.items():
            # canonicalised as look-ups are: "INT" names the definition "int"
            found = base.definition(definition_id)
            expected[found.definition_id if found is not None else definition_id] = version_id
        if actual != expected:
            raise CommitFailedError(
                "Requirement failed: current definition versions changed: "
                f"expected {_render(self.current)} != {_render(actual)}"
            )


FunctionRequirement = AssertCreate | AssertFunctionUUID | AssertCurrentDefinitions


def _render(current: Mapping[str, int]) -> str:
    return "{" + ", ".join(f"{shorten(d)}: {v}" for d, v in sorted(current.items())) + "}"


# ------------------------------------------------------------------------------------------ read


def update_from_dict(obj: Any, path: str = "$") -> FunctionUpdate:
    """Parse one update from its JSON form (``action`` plus its fields). Problems raise
    :class:`~iceview.errors.InvalidMetadataError` at the JSON path."""
    if type(obj) is not dict:
        raise fail(f"Cannot parse function update from non-object: {node_str(obj)}", path)
    action = get_string(obj, "action", path).lower()
    common = common_update_from_dict(action, obj, path, legacy_names=False)
    if common is not None:
        return common
    if action == SetFunctionDoc.action:
        if "doc" not in obj:  # JSON null removes the doc; a missing field is an error
            raise fail("Cannot parse missing field: doc", child(path, "doc"))
        return SetFunctionDoc(get_string_or_none(obj, "doc", path))
    if action == SetFunctionSecure.action:
        return SetFunctionSecure(get_bool(obj, "secure", path))
    if action == AddDefinition.action:
        dpath = child(path, "definition")
        definition = definition_from_dict(get_field(obj, "definition", path), dpath)
        if len(definition.versions) != 1:
            raise fail(
                f"Cannot parse add-definition: the definition must have exactly one version, not "
                f"{len(definition.versions)}",
                child(dpath, "versions"),
            )
        if definition.current_version_id != definition.versions[0].version_id:
            raise fail(
                f"Cannot parse add-definition: current-version-id {definition.current_version_id} is not "
                f"the id of its version ({definition.versions[0].version_id})",
                child(dpath, "current-version-id"),
            )
        return AddDefinition(definition)
    if action == AddDefinitionVersion.action:
        version = version_from_dict(get_field(obj, "version", path), child(path, "version"))
        return AddDefinitionVersion(get_string(obj, "definition-id", path), version)
    if action == SetCurrentDefinitionVersion.action:
        return SetCurrentDefinitionVersion(
            get_string(obj, "definition-id", path), get_int(obj, "version-id", path)
        )
    if action == RemoveDefinition.action:
        return RemoveDefinition(get_string(obj, "definition-id", path))
    raise fail(
        f"Cannot parse function update. Invalid action: {shorten(action, raw=True)}", child(path, "action")
    )


def requirement_from_dict(obj: Any, path: str = "$") -> FunctionRequirement:
    """Parse one requirement from its JSON form."""
    if type(obj) is not dict:
        raise fail(f"Cannot parse function requirement from non-object: {node_str(obj)}", path)
    kind = get_string(obj, "type", path).lower()
    if kind == AssertCreate.type:
        return AssertCreate()
    if kind == AssertFunctionUUID.type:
        return AssertFunctionUUID(get_string(obj, "uuid", path))
    if kind == AssertCurrentDefinitions.type:
        refs = get_field(obj, "definition-versions", path)
        rpath = child(path, "definition-versions")
        if type(refs) is not list:
            raise fail(f"Cannot parse definition-versions from non-array: {node_str(refs)}", rpath)
        current: dict[str, int] = {}
        for i, ref in enumerate(refs):
            ipath = child(rpath, i)
            if type(ref) is not dict:
                raise fail(
                    f"Cannot parse definition version reference from non-object: {node_str(ref)}", ipath
                )
            definition_id = get_string(ref, "definition-id", ipath)
            if definition_id in current:
                raise fail(
                    f"Definition id {shorten(definition_id)} is named more than once",
                    child(ipath, "definition-id"),
                )
            current[definition_id] = get_int(ref, "version-id", ipath)
        return AssertCurrentDefinitions(current)
    raise fail(
        f"Cannot parse function requirement. Invalid type: {shorten(kind, raw=True)}", child(path, "type")
    )
