"""Every operation on a view as a change: requirements plus updates (REST's ``CommitViewRequest``).

Each function here builds the new metadata on top of ``base`` with the spec's builder, so that the
builder's rules run before anything is sent, and returns the builder's recorded updates. Updates
refer to what they add with ``-1`` ("the schema / version added last"), so a catalog that finds a
newer base re-applies them there with :func:`iceview.spec.apply`: a replace made against an old
base lands as a new version on the fresh one, as in Iceberg Java.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pyiceberg.schema import Schema

from iceview.spec import (
    AssertCreate,
    AssertCurrentViewVersion,
    AssertViewUUID,
    Representation,
    ViewMetadata,
    ViewRequirement,
    ViewUpdate,
    ViewVersion,
)
from iceview.view.definition import ViewDefinition, environment_summary

__all__ = [
    "ViewChange",
    "add_version_change",
    "create_change",
    "location_change",
    "properties_change",
    "replace_change",
    "rollback_change",
]


@dataclass(frozen=True)
class ViewChange:
    """What a commit asks for: ``requirements`` checked against the catalog's current metadata,
    then ``updates`` applied to it in order."""

    requirements: tuple[ViewRequirement, ...]
    updates: tuple[ViewUpdate, ...]


def _next_version_id(base: ViewMetadata | None) -> int:
    if base is None:
        return 1
    ids = base.version_ids
    return (max(ids) if ids else base.current_version_id) + 1


def _new_version(
    base: ViewMetadata | None,
    schema: Schema,
    representations: Iterable[Representation],
    default_namespace: tuple[str, ...],
    default_catalog: str | None,
    summary: Mapping[str, str],
) -> ViewVersion:
    return ViewVersion(
        version_id=_next_version_id(base),
        timestamp_ms=int(time.time() * 1000),
        schema_id=schema.schema_id,
        summary={**environment_summary(), **summary},
        representations=tuple(representations),
        default_namespace=default_namespace,
        default_catalog=default_catalog,
    )


def create_change(definition: ViewDefinition, location: str, properties: Mapping[str, str]) -> ViewChange:
    """Create a view: Java's ``BaseViewBuilder.create`` (version 1; ``properties`` are the final
    ones, catalog defaults and overrides merged)."""
    schema, namespace = definition.checked("create")
    version = _new_version(
        None,
        schema,
        definition.representations,
        namespace,
        definition.default_catalog,
        definition.summary,
    )
    metadata = (
        ViewMetadata.builder()
        .set_properties(properties)
        .set_location(location)
        .set_current_version(version, schema)
        .build()
    )
    return ViewChange((AssertCreate(),), metadata.changes)


def replace_change(
    base: ViewMetadata,
    definition: ViewDefinition,
    properties: Mapping[str, str] | None = None,
    *,
    verb: str = "replace",
) -> ViewChange:
    """Replace the view's definition with a new version (id ``max + 1``), made current: Java's
    ``BaseViewBuilder.replace`` (with ``properties``) and ``View.replaceVersion`` (without)."""
    schema, namespace = definition.checked(verb)
    version = _new_version(
        base,
        schema,
        definition.representations,
        namespace,
        definition.default_catalog,
        definition.summary,
    )
    builder = ViewMetadata.build_from(base)
    if properties:
        builder.set_properties(properties)
    builder.set_current_version(version, schema)
    if definition.location is not None:
        builder.set_location(definition.location)
    return ViewChange((AssertViewUUID(base.uuid),), builder.build().changes)


def add_version_change(
    base: ViewMetadata, representations: Iterable[Representation], summary: Mapping[str, str]
) -> ViewChange:
    """A new version that keeps the current one's schema and defaults with ``representations``;
    valid only while that version is current (translations are derived from its SQL)."""
    current = base.current_version
    version = _new_version(
        base, base.schema, representations, current.default_namespace, current.default_catalog, summary
    )
    metadata = ViewMetadata.build_from(base).set_current_version(version, base.schema).build()
    requirements = (AssertViewUUID(base.uuid), AssertCurrentViewVersion(current.version_id))
    return ViewChange(requirements, metadata.changes)


def rollback_change(base: ViewMetadata, version_id: int) -> ViewChange:
    """Make a retained version current again (Java's ``setCurrentVersionId``)."""
    metadata = ViewMetadata.build_from(base).set_current_version_id(version_id).build()
    return ViewChange((AssertViewUUID(base.uuid),), metadata.changes)


def location_change(base: ViewMetadata, location: str) -> ViewChange:
    """Move the view's base location."""
    metadata = ViewMetadata.build_from(base).set_location(location).build()
    return ViewChange((AssertViewUUID(base.uuid),), metadata.changes)


def properties_change(base: ViewMetadata, updates: Mapping[str, str], removals: Iterable[str]) -> ViewChange:
    """Set and remove properties (Java's ``PropertiesUpdate``)."""
    metadata = (
        ViewMetadata.build_from(base).set_properties(dict(updates)).remove_properties(list(removals)).build()
    )
    return ViewChange((AssertViewUUID(base.uuid),), metadata.changes)
