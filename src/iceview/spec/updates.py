"""View updates and requirements as data, with their REST JSON forms (REST catalog spec), and
:func:`apply`, which a catalog and a REST server both use to turn them into new metadata. The
updates a UDF has too (uuid, format version, location, properties) are defined once, in
:mod:`iceview.spec.common_updates`, and named here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pyiceberg.schema import Schema

from iceview.errors import CommitFailedError
from iceview.spec._json import child, fail, get_field, get_int, get_string, node_str, shorten
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
    replay,
    requirement_uuid,
)
from iceview.spec.schema import normalize_schema_json, schema_from_json, schema_to_json

if TYPE_CHECKING:
    from iceview.spec.builder import ViewMetadataBuilder
    from iceview.spec.model import ViewMetadata, ViewVersion

__all__ = [
    "AddSchema",
    "AddViewVersion",
    "AssertCreate",
    "AssertCurrentViewVersion",
    "AssertViewUUID",
    "AssignUUID",
    "RemoveProperties",
    "SetCurrentViewVersion",
    "SetLocation",
    "SetProperties",
    "UpgradeFormatVersion",
    "ViewRequirement",
    "ViewUpdate",
    "apply",
    "requirement_from_dict",
    "update_from_dict",
]


@dataclass(frozen=True, slots=True)
class AddSchema:
    schema: Schema
    last_column_id: int | None = None
    action: ClassVar[str] = "add-schema"

    def to_dict(self) -> dict[str, Any]:
        # last-column-id is deprecated in the REST spec; Java still writes it
        last = self.schema.highest_field_id if self.last_column_id is None else self.last_column_id
        return {"action": self.action, "schema": schema_to_json(self.schema), "last-column-id": last}

    def apply_to(self, builder: ViewMetadataBuilder) -> None:
        builder.add_schema(self.schema)


@dataclass(frozen=True, slots=True)
class AddViewVersion:
    view_version: ViewVersion
    action: ClassVar[str] = "add-view-version"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "view-version": self.view_version.to_dict()}

    def apply_to(self, builder: ViewMetadataBuilder) -> None:
        builder.add_version(self.view_version)


@dataclass(frozen=True, slots=True)
class SetCurrentViewVersion:
    view_version_id: int
    action: ClassVar[str] = "set-current-view-version"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "view-version-id": self.view_version_id}

    def apply_to(self, builder: ViewMetadataBuilder) -> None:
        builder.set_current_version_id(self.view_version_id)


_UPDATE_TYPES = (*COMMON_UPDATE_TYPES, AddSchema, AddViewVersion, SetCurrentViewVersion)

ViewUpdate = CommonUpdate | AddSchema | AddViewVersion | SetCurrentViewVersion


@dataclass(frozen=True, slots=True)
class AssertViewUUID:
    """The view's uuid must still be ``uuid`` (compared case-insensitively, as Java does)."""

    uuid: str
    type: ClassVar[str] = "assert-view-uuid"

    def __post_init__(self) -> None:
        # View.uuid is a uuid.UUID: take it as its text, the form the metadata and REST carry
        object.__setattr__(self, "uuid", requirement_uuid(self.uuid, self.type, "view"))

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "uuid": self.uuid}

    def validate(self, base: ViewMetadata | None) -> None:
        check_uuid_requirement(None if base is None else base.uuid, self.uuid, "view")


@dataclass(frozen=True, slots=True)
class AssertCreate:
    """The view must not exist yet (a create). The REST spec sends a create as its own request, not
    as a requirement; this is the view counterpart of the table requirement ``assert-create``."""

    type: ClassVar[str] = "assert-create"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type}

    def validate(self, base: ViewMetadata | None) -> None:
        if base is not None:
            raise CommitFailedError("Requirement failed: view already exists")


@dataclass(frozen=True, slots=True)
class AssertCurrentViewVersion:
    """The view's current version must still be ``view_version_id``: for a change derived from the
    current version (translations of its SQL) that must not be re-applied on top of another one.
    An iceview requirement; the REST spec has no counterpart (``docs/compatibility.md``)."""

    view_version_id: int
    type: ClassVar[str] = "assert-current-view-version"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "view-version-id": self.view_version_id}

    def validate(self, base: ViewMetadata | None) -> None:
        if base is None:
            raise CommitFailedError("Requirement failed: view does not exist")
        if base.current_version_id != self.view_version_id:
            raise CommitFailedError(
                "Requirement failed: current view version changed: "
                f"expected {self.view_version_id} != {base.current_version_id}"
            )


ViewRequirement = AssertViewUUID | AssertCreate | AssertCurrentViewVersion


def _view_version_from_json(node: Any, path: str) -> ViewVersion:
    from iceview.spec.codec import _check_version
    from iceview.spec.version import _version_from_json

    _check_version(node, path)
    return _version_from_json(node)


def update_from_dict(obj: Any, path: str = "$") -> ViewUpdate:
    """Parse one update from its REST JSON form (``action`` plus its fields). The legacy field
    names ``updated`` (set-properties) and ``removed`` (remove-properties) are read too."""
    if type(obj) is not dict:
        raise fail(f"Cannot parse metadata update from non-object: {node_str(obj)}", path)
    action = get_string(obj, "action", path).lower()
    common = common_update_from_dict(action, obj, path, legacy_names=True)
    if common is not None:
        return common
    if action == AddSchema.action:
        spath = child(path, "schema")
        schema = schema_from_json(normalize_schema_json(get_field(obj, "schema", path), spath), spath)
        last = obj.get("last-column-id")
        return AddSchema(schema, None if last is None else get_int(obj, "last-column-id", path))
    if action == AddViewVersion.action:
        return AddViewVersion(
            _view_version_from_json(get_field(obj, "view-version", path), child(path, "view-version"))
        )
    if action == SetCurrentViewVersion.action:
        return SetCurrentViewVersion(get_int(obj, "view-version-id", path))
    raise fail(
        f"Cannot parse metadata update. Invalid action: {shorten(action, raw=True)}", child(path, "action")
    )


def requirement_from_dict(obj: Any, path: str = "$") -> ViewRequirement:
    """Parse one view requirement from its REST JSON form."""
    if type(obj) is not dict:
        raise fail(f"Cannot parse view requirement from non-object: {node_str(obj)}", path)
    kind = get_string(obj, "type", path).lower()
    if kind == AssertViewUUID.type:
        return AssertViewUUID(get_string(obj, "uuid", path))
    if kind == AssertCreate.type:
        return AssertCreate()
    if kind == AssertCurrentViewVersion.type:
        return AssertCurrentViewVersion(get_int(obj, "view-version-id", path))
    raise fail(f"Cannot parse view requirement. Invalid type: {shorten(kind, raw=True)}", child(path, "type"))


def apply(
    base: ViewMetadata | None,
    updates: Iterable[ViewUpdate],
    requirements: Sequence[ViewRequirement] = (),
) -> ViewMetadata:
    """Check ``requirements`` against ``base``, then apply ``updates`` in order to a builder
    started from ``base`` (a fresh one when ``base`` is ``None``) and build the result."""
    from iceview.spec.model import ViewMetadata

    for requirement in requirements:
        requirement.validate(base)
    builder = ViewMetadata.builder() if base is None else ViewMetadata.build_from(base)
    replay(updates, _UPDATE_TYPES, lambda update: update.apply_to(builder), "view")
    return builder.build()
