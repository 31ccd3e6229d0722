"""The view metadata format (view spec format-version 1): model, JSON codec, builder rules,
updates and requirements, and strict validation. Pure: no I/O, and no imports from the rest of
iceview except its exceptions."""

from iceview.spec.builder import ViewMetadataBuilder
from iceview.spec.model import (
    SUPPORTED_VIEW_FORMAT_VERSION,
    Representation,
    SQLRepresentation,
    UnknownRepresentation,
    VersionLogEntry,
    ViewHistory,
    ViewMetadata,
    ViewVersion,
)
from iceview.spec.updates import (
    AddSchema,
    AddViewVersion,
    AssertCreate,
    AssertCurrentViewVersion,
    AssertViewUUID,
    AssignUUID,
    RemoveProperties,
    SetCurrentViewVersion,
    SetLocation,
    SetProperties,
    UpgradeFormatVersion,
    ViewRequirement,
    ViewUpdate,
    apply,
    requirement_from_dict,
    update_from_dict,
)
from iceview.spec.validate import Problem, validate

__all__ = [
    "SUPPORTED_VIEW_FORMAT_VERSION",
    "AddSchema",
    "AddViewVersion",
    "AssertCreate",
    "AssertCurrentViewVersion",
    "AssertViewUUID",
    "AssignUUID",
    "Problem",
    "RemoveProperties",
    "Representation",
    "SQLRepresentation",
    "SetCurrentViewVersion",
    "SetLocation",
    "SetProperties",
    "UnknownRepresentation",
    "UpgradeFormatVersion",
    "VersionLogEntry",
    "ViewHistory",
    "ViewMetadata",
    "ViewMetadataBuilder",
    "ViewRequirement",
    "ViewUpdate",
    "ViewVersion",
    "apply",
    "requirement_from_dict",
    "update_from_dict",
    "validate",
]
