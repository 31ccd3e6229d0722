"""The metadata updates the view and the UDF formats share, defined once: ``assign-uuid``,
``upgrade-format-version``, ``set-location``, ``set-properties`` and ``remove-properties``.

Their JSON forms are the view's (REST spec), which the UDF form copies. Each applies itself to any
builder with the methods of :class:`MetadataBuilder` (:class:`iceview.spec.ViewMetadataBuilder`,
:class:`iceview.udf.FunctionMetadataBuilder`); both builders check uuid, location and property
changes with the functions here, in Java's words, and :func:`replay` is how both ``apply``
functions report an update that fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar
from uuid import UUID

from iceview.errors import CommitFailedError, InvalidArgumentError, InvalidUpdateError, ValidationError
from iceview.spec._json import (
    child,
    fail,
    get_field,
    get_int,
    get_string,
    get_string_map,
    node_str,
    shorten,
)
from iceview.spec.version import FrozenDict

__all__ = [
    "COMMON_UPDATE_TYPES",
    "AssignUUID",
    "CommonUpdate",
    "MetadataBuilder",
    "RemoveProperties",
    "SetLocation",
    "SetProperties",
    "UpgradeFormatVersion",
    "check_uuid_requirement",
    "common_update_from_dict",
    "is_uuid",
    "location_update",
    "properties_update",
    "removals_update",
    "replay",
    "requirement_uuid",
    "uuid_update",
]


class MetadataBuilder(Protocol):
    """The builder methods the shared updates call."""

    def assign_uuid(self, uuid: str | None) -> object: ...

    def upgrade_format_version(self, format_version: int) -> object: ...

    def set_location(self, location: str) -> object: ...

    def set_properties(self, updates: Mapping[str, str]) -> object: ...

    def remove_properties(self, removals: Iterable[str]) -> object: ...


@dataclass(frozen=True, slots=True)
class AssignUUID:
    """Set the uuid (of a new view or function: it cannot change)."""

    uuid: str
    action: ClassVar[str] = "assign-uuid"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "uuid": self.uuid}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.assign_uuid(self.uuid)


@dataclass(frozen=True, slots=True)
class UpgradeFormatVersion:
    """Raise the format version."""

    format_version: int
    action: ClassVar[str] = "upgrade-format-version"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "format-version": self.format_version}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.upgrade_format_version(self.format_version)


@dataclass(frozen=True, slots=True)
class SetLocation:
    """Set the base location."""

    location: str
    action: ClassVar[str] = "set-location"

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "location": self.location}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_location(self.location)


@dataclass(frozen=True, slots=True)
class SetProperties:
    """Set properties (``updates`` is kept as a :class:`~iceview.spec.model.FrozenDict`)."""

    updates: Mapping[str, str]
    action: ClassVar[str] = "set-properties"

    def __post_init__(self) -> None:
        if type(self.updates) is not FrozenDict:
            object.__setattr__(self, "updates", FrozenDict(self.updates))

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "updates": dict(self.updates)}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_properties(self.updates)


@dataclass(frozen=True, slots=True)
class RemoveProperties:
    """Remove properties; keys that are not set are ignored."""

    removals: tuple[str, ...]
    action: ClassVar[str] = "remove-properties"

    def __post_init__(self) -> None:
        if type(self.removals) is not tuple:
            object.__setattr__(self, "removals", tuple(self.removals))

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "removals": list(self.removals)}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_properties(self.removals)


COMMON_UPDATE_TYPES = (AssignUUID, UpgradeFormatVersion, SetLocation, SetProperties, RemoveProperties)

CommonUpdate = AssignUUID | UpgradeFormatVersion | SetLocation | SetProperties | RemoveProperties


# ------------------------------------------------------------------------------------------ read


def common_update_from_dict(
    action: str, obj: dict[str, Any], path: str, *, legacy_names: bool
) -> CommonUpdate | None:
    """Read the update ``obj`` (at ``path``) if ``action`` is one of the shared ones, else return
    ``None``. With ``legacy_names`` the REST spec's old field names ``updated`` (set-properties)
    and ``removed`` (remove-properties) are read too, as Java does for views."""
    if action == AssignUUID.action:
        return AssignUUID(get_string(obj, "uuid", path))
    if action == UpgradeFormatVersion.action:
        return UpgradeFormatVersion(get_int(obj, "format-version", path))
    if action == SetLocation.action:
        return SetLocation(get_string(obj, "location", path))
    if action == SetProperties.action:
        key = "updated" if legacy_names and "updated" in obj and "updates" not in obj else "updates"
        return SetProperties(get_string_map(obj, key, path))
    if action == RemoveProperties.action:
        key = "removed" if legacy_names and "removed" in obj and "removals" not in obj else "removals"
        removals = get_field(obj, key, path)
        if type(removals) is not list or not all(type(k) is str for k in removals):
            raise fail(f"Cannot parse string array from non-array: {node_str(removals)}", child(path, key))
        return RemoveProperties(tuple(removals))
    return None


# ------------------------------------------------------------------------------------ the rules

_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", re.ASCII)


def is_uuid(value: object) -> bool:
    """Whether ``value`` is a UUID in its text form (``8-4-4-4-12`` hex digits, any case): the
    rule for a view's ``view-uuid`` and a function's ``function-uuid``. Java's
    ``UUID.fromString`` refuses the forms Python's ``uuid.UUID`` also takes (``urn:uuid:...``,
    braces, 32 bare hex digits), so they are refused here too."""
    return type(value) is str and _UUID.fullmatch(value) is not None


def requirement_uuid(value: object, kind: str, noun: str) -> str:
    """The uuid a uuid requirement (``assert-view-uuid``, ``assert-function-uuid``) carries, as
    text: a :class:`uuid.UUID` (what a handle's ``uuid`` is) as its str form; anything but a str
    raises :class:`~iceview.errors.InvalidArgumentError`."""
    if isinstance(value, UUID):
        return str(value)
    if not isinstance(value, str):
        raise InvalidArgumentError(f"Invalid {noun} UUID for {kind}: {shorten(value)} (a str or uuid.UUID)")
    return value


def check_uuid_requirement(actual: str | None, expected: str, noun: str) -> None:
    """A uuid requirement against the base's uuid (``None``: no base), compared
    case-insensitively as Java does; a failure is :class:`~iceview.errors.CommitFailedError`."""
    if actual is None:
        raise CommitFailedError(f"Requirement failed: {noun} does not exist")
    if actual.lower() != expected.lower():
        raise CommitFailedError(
            f"Requirement failed: {noun} UUID does not match: expected {actual} != {expected}"
        )


def uuid_update(current: str | None, uuid: str | None) -> AssignUUID | None:
    """The change that assigns ``uuid`` where the uuid is ``current``: ``None`` when it is
    already ``uuid``; a uuid that is not one, or a second one, raises
    :class:`~iceview.errors.InvalidArgumentError`."""
    if uuid is None:
        raise InvalidArgumentError("Cannot set uuid to null")
    if uuid == current:
        return None
    if current is not None:
        raise InvalidArgumentError("Cannot reassign uuid")
    if not is_uuid(uuid):
        raise InvalidArgumentError(f"Invalid uuid: {shorten(uuid)} is not a UUID")
    return AssignUUID(uuid)


def location_update(current: str | None, location: str | None) -> SetLocation | None:
    """The change that sets ``location`` where it is ``current``: ``None`` when it is already
    ``location``; a location that is not a string raises
    :class:`~iceview.errors.InvalidArgumentError`."""
    if type(location) is not str:
        raise InvalidArgumentError(f"Invalid location: {'null' if location is None else shorten(location)}")
    return None if location == current else SetLocation(location)


def properties_update(properties: dict[str, str], updates: Mapping[str, str]) -> SetProperties | None:
    """Set ``updates`` in ``properties`` and return the change (``None`` for no updates); a key
    or value that is not a string raises :class:`~iceview.errors.InvalidArgumentError` and
    changes nothing."""
    if updates is not None and not isinstance(updates, Mapping):
        raise InvalidArgumentError(
            f"Invalid properties: {shorten(updates)} (a mapping of strings to strings)"
        )
    if not updates:
        return None
    for key, value in updates.items():
        if type(key) is not str:
            raise InvalidArgumentError(f"Invalid key: {'null' if key is None else shorten(key)}")
        if type(value) is not str:
            raise InvalidArgumentError(f"Invalid value: {'null' if value is None else shorten(value)}")
    properties.update(updates)
    return SetProperties(updates)


def removals_update(properties: dict[str, str], removals: Iterable[str]) -> RemoveProperties | None:
    """Remove ``removals`` from ``properties`` (keys that are not set are ignored) and return the
    change, each key once (``None`` for no keys). ``removals`` must be an iterable of strings
    other than a str (which would be taken letter by letter): anything else raises
    :class:`~iceview.errors.InvalidArgumentError`."""
    if removals is None or isinstance(removals, (str, bytes, Mapping)):
        raise InvalidArgumentError(
            f"Invalid removals: {'null' if removals is None else shorten(removals)} (an iterable of property keys)"
        )
    try:
        keys = tuple(dict.fromkeys(removals))
    except TypeError:
        raise InvalidArgumentError(
            f"Invalid removals: {shorten(removals)} (an iterable of property keys)"
        ) from None
    for key in keys:
        if type(key) is not str:
            raise InvalidArgumentError(f"Invalid key: {'null' if key is None else shorten(key)}")
    if not keys:
        return None
    for key in keys:
        properties.pop(key, None)
    return RemoveProperties(keys)


# ----------------------------------------------------------------------------------------- apply


class _Update(Protocol):
    @property
    def action(self) -> str: ...


_U = TypeVar("_U", bound=_Update)


def replay(
    updates: Iterable[_U], kinds: tuple[type[Any], ...], apply_one: Callable[[_U], object], noun: str
) -> None:
    """Apply each of ``updates`` in order with ``apply_one``. One that is not of ``kinds``, or
    that the builder refuses (:class:`~iceview.errors.InvalidArgumentError`,
    :class:`~iceview.errors.ValidationError`), raises :class:`~iceview.errors.InvalidUpdateError`
    naming its action and index; ``noun`` names the metadata (``view``, ``function``)."""
    for index, update in enumerate(updates):
        if not isinstance(update, kinds):
            raise InvalidUpdateError(f"Invalid {noun} update: {shorten(update)}", "unknown", index)
        try:
            apply_one(update)
        except InvalidUpdateError:
            raise
        except (InvalidArgumentError, ValidationError) as e:
            raise InvalidUpdateError(str(e), update.action, index) from e
