""":func:`apply`: check requirements against a base, then replay updates on it.

It lives beside the builder rather than in :mod:`iceview.udf.updates` because the builder records
its changes as updates: ``updates`` cannot import the builder back without an import cycle, which
the house does not allow (tests/architecture).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from iceview.errors import InvalidArgumentError, InvalidUpdateError
from iceview.spec.common_updates import COMMON_UPDATE_TYPES, replay
from iceview.spec.jsonutil import shorten
from iceview.udf.builder import FunctionMetadataBuilder
from iceview.udf.model import FunctionMetadata
from iceview.udf.types import canonical
from iceview.udf.updates import (
    UPDATE_TYPES,
    AddDefinition,
    AddDefinitionVersion,
    AssertCreate,
    AssertCurrentDefinitions,
    AssertFunctionUUID,
    FunctionRequirement,
    FunctionUpdate,
    RemoveDefinition,
    SetCurrentDefinitionVersion,
    SetFunctionDoc,
    SetFunctionSecure,
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
    that cannot be applied raises :class:`~iceview.errors.InvalidUpdateError` naming it (also a
    removal of the function's last definition). Arguments of the wrong kind raise
    :class:`~iceview.errors.InvalidArgumentError`."""
    if base is not None and not isinstance(base, FunctionMetadata):
        raise InvalidArgumentError(f"Invalid base: {shorten(base)} (a FunctionMetadata or None)")
    if updates is None or isinstance(updates, (str, bytes)) or not isinstance(updates, Iterable):
        raise InvalidArgumentError(
            f"Invalid updates: {'null' if updates is None else shorten(updates)} (an iterable of updates)"
        )
    if (
        requirements is None
        or isinstance(requirements, (str, bytes))
        or not isinstance(requirements, Iterable)
    ):
        raise InvalidArgumentError(
            f"Invalid requirements: {'null' if requirements is None else shorten(requirements)} "
            "(a sequence of requirements)"
        )
    requirements = list(requirements)
    for requirement in requirements:
        if not isinstance(requirement, _REQUIREMENT_TYPES):
            raise InvalidArgumentError(f"Invalid function requirement: {shorten(requirement)}")
    for requirement in requirements:
        requirement.validate(base)
    builder = FunctionMetadataBuilder(base)
    updates = list(updates)
    replay(updates, UPDATE_TYPES, lambda update: apply_update(builder, update), "function")
    if not builder.definition_ids:
        removals = [i for i, u in enumerate(updates) if isinstance(u, RemoveDefinition)]
        if removals:
            raise InvalidUpdateError(
                "Cannot remove the last definition: a function must keep at least one",
                RemoveDefinition.action,
                removals[-1],
            )
    return builder.build()


_REQUIREMENT_TYPES = (AssertCreate, AssertFunctionUUID, AssertCurrentDefinitions)


def apply_update(builder: FunctionMetadataBuilder, update: FunctionUpdate) -> FunctionMetadataBuilder:
    """Apply one update (recorded by a builder or parsed from JSON) to ``builder``."""
    if isinstance(update, COMMON_UPDATE_TYPES):
        update.apply_to(builder)
        return builder
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
        if d.current_version_id != d.versions[0].version_id:
            raise InvalidArgumentError(
                f"Invalid add-definition: current-version-id {shorten(d.current_version_id)} is not the id "
                f"of its version ({shorten(d.versions[0].version_id)})"
            )
        computed = ",".join(canonical(t) for t in d.parameter_types)
        if d.definition_id is not None and d.definition_id != computed:
            raise InvalidArgumentError(
                f"Invalid add-definition: definition-id {shorten(d.definition_id)} is not its parameters' "
                f"signature {shorten(computed)}"
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
    raise InvalidArgumentError(f"Invalid function update: {shorten(update)}")
