""":func:`apply`: check requirements against a base, then replay updates on it.

It lives beside the builder rather than in :mod:`iceview.udf.updates` because the builder records
its changes as updates: ``updates`` cannot import the builder back without an import cycle, which
the house does not allow (tests/architecture).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from iceview.errors import InvalidArgumentError, InvalidUpdateError, ValidationError
from iceview.udf.builder import FunctionMetadataBuilder
from iceview.udf.model import FunctionMetadata
from iceview.udf.updates import (
    UPDATE_TYPES,
    AddDefinition,
    AddDefinitionVersion,
    AssignUUID,
    FunctionRequirement,
    FunctionUpdate,
    RemoveDefinition,
    RemoveProperties,
    SetCurrentDefinitionVersion,
    SetFunctionDoc,
    SetFunctionSecure,
    SetLocation,
    SetProperties,
    UpgradeFormatVersion,
)

__all__ = ["apply", "apply_update"]


def apply(
    base: FunctionMetadata | None,
    updates: Iterable[FunctionUpdate],
    requirements: Sequence[FunctionRequirement] = (),
) -> FunctionMetadata:
    """Check ``requirements`` against ``base`` (a failed one raises
    :class:`~iceview.errors.CommitFailedError`), then apply ``updates`` in order to a builder
    started from ``base`` (a fresh one when ``base`` is ``None``) and build the result. An update
    that cannot be applied raises :class:`~iceview.errors.InvalidUpdateError` naming it."""
    for requirement in requirements:
        requirement.validate(base)
    builder = FunctionMetadataBuilder(base)
    for index, update in enumerate(updates):
        if not isinstance(update, UPDATE_TYPES):
            raise InvalidUpdateError(f"Invalid function update: {update!r}", "unknown", index)
        try:
            apply_update(builder, update)
        except InvalidUpdateError:
            raise
        except (InvalidArgumentError, ValidationError) as e:
            raise InvalidUpdateError(str(e), update.action, index) from e
    return builder.build()


def apply_update(builder: FunctionMetadataBuilder, update: FunctionUpdate) -> FunctionMetadataBuilder:
    """Apply one update (recorded by a builder or parsed from JSON) to ``builder``."""
    if isinstance(update, AssignUUID):
        return builder.assign_uuid(update.uuid)
    if isinstance(update, UpgradeFormatVersion):
        return builder.upgrade_format_version(update.format_version)
    if isinstance(update, SetLocation):
        return builder.set_location(update.location)
    if isinstance(update, SetProperties):
        return builder.set_properties(update.updates)
    if isinstance(update, RemoveProperties):
        return builder.remove_properties(update.removals)
    if isinstance(update, SetFunctionDoc):
        return builder.set_doc(update.doc)
    if isinstance(update, SetFunctionSecure):
        return builder.set_secure(update.secure)
    if isinstance(update, AddDefinition):
        d = update.definition
        if len(d.versions) != 1:
            raise InvalidArgumentError(
                f"Invalid add-definition: the definition must have exactly one version, not {len(d.versions)}"
            )
        return builder.add_definition(
            d.parameters,
            d.return_type,
            d.versions[0],
            function_type=d.function_type,
            return_nullable=d.return_nullable,
            specific_name=d.specific_name,
            doc=d.doc,
        )
    if isinstance(update, AddDefinitionVersion):
        return builder.add_definition_version(update.definition_id, update.version)
    if isinstance(update, SetCurrentDefinitionVersion):
        return builder.set_current_definition_version(update.definition_id, update.version_id)
    if isinstance(update, RemoveDefinition):
        return builder.remove_definition(update.definition_id)
    raise InvalidArgumentError(f"Invalid function update: {update!r}")
