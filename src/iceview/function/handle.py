"""The handle of one SQL UDF in a catalog, the counterpart of :class:`~iceview.view.View`.

A :class:`Function` shows the metadata it loaded until :meth:`Function.refresh` (or a commit
through it). Every change is a :class:`~iceview.function.changes.FunctionChange` (requirements
plus updates) made against freshly loaded metadata and committed through
:meth:`Catalog.commit_function`, which re-applies the updates on conflicts with the function's
``commit.retry.*`` properties.

::

    fn = catalog.load_function("ns.add_one")
    fn.add_definition(NewDefinition([("x", "bigint")], "bigint", {"spark": "x + 1"}))
    fn.replace_definition("int", {"spark": "x + 2"})     # a new current version of add_one(int)
    fn.set_current_version("int", 1)                      # roll it back
    fn.update_properties({"owner": "data"}, removals=["comment"])
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from iceview.errors import InvalidStateError
from iceview.function.changes import (
    BodyLike,
    FunctionChange,
    NewDefinition,
    add_definition_change,
    doc_change,
    location_change,
    properties_change,
    remove_definition_change,
    replace_definition_change,
    restore_change,
    rollback_change,
    secure_change,
)
from iceview.identifiers import ViewIdentifier
from iceview.udf import (
    AddDefinition,
    AddDefinitionVersion,
    DefinitionLogEntry,
    FunctionDefinition,
    FunctionMetadata,
    FunctionRequirement,
    FunctionUpdate,
    RemoveDefinition,
    SetCurrentDefinitionVersion,
)
from iceview.view.functions import DependentsSync

__all__ = ["Function", "FunctionCommitter", "FunctionSource"]

# the updates that change what a call resolves to or inlines
_RESOLVED_BY = (AddDefinition, AddDefinitionVersion, SetCurrentDefinitionVersion, RemoveDefinition)


class FunctionSource(Protocol):
    """Where a :class:`Function` gets its metadata: one function's pointer in a catalog."""

    @property
    def identifier(self) -> ViewIdentifier: ...

    def current(self) -> FunctionMetadata | None: ...

    def refresh(self) -> FunctionMetadata | None: ...


class FunctionCommitter(Protocol):
    """What a :class:`Function` needs of its catalog: the one change path."""

    name: str

    def commit_function(
        self,
        identifier: ViewIdentifier | Function,
        requirements: Sequence[FunctionRequirement],
        updates: Sequence[FunctionUpdate],
    ) -> Function: ...

    def sync_function_dependents(self, identifier: ViewIdentifier) -> DependentsSync: ...


class Function:
    """A SQL UDF in a catalog. Made by :meth:`Catalog.load_function` and
    :meth:`Catalog.create_function`."""

    def __init__(self, ops: FunctionSource, name: str, catalog: FunctionCommitter | None = None) -> None:
        self._ops = ops
        self._name = name
        self._catalog = catalog
        self.synced: DependentsSync | None = None
        """What the last commit through this handle did to the views that inlined the function
        (None: it changed no definition, or was told not to sync them)."""

    # -- identity --------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """``<catalog>.<namespace>.<name>``."""
        return self._name

    @property
    def identifier(self) -> ViewIdentifier:
        return self._ops.identifier

    @property
    def catalog(self) -> FunctionCommitter | None:
        return self._catalog

    @property
    def operations(self) -> FunctionSource:
        return self._ops

    # -- metadata --------------------------------------------------------------------------------
    @property
    def metadata(self) -> FunctionMetadata:
        """The metadata this handle holds (re-read from the catalog only after a commit through it)."""
        current = self._ops.current()
        if current is None:  # pragma: no cover - a loaded function always has metadata
            raise InvalidStateError(f"Function {self._name} has no metadata")
        return current

    @property
    def metadata_location(self) -> str | None:
        """The metadata file the catalog pointed at when this handle last loaded it."""
        return self.metadata.metadata_file_location

    def refresh(self) -> Function:
        """Load the metadata the catalog points at now. Raises ``NoSuchFunctionError`` if the
        function is gone and ``FunctionUUIDMismatchError`` if the name now holds another one."""
        self._ops.refresh()
        return self

    @property
    def uuid(self) -> uuidlib.UUID:
        return uuidlib.UUID(self.metadata.function_uuid)

    @property
    def location(self) -> str | None:
        return self.metadata.location

    @property
    def properties(self) -> Mapping[str, str]:
        return self.metadata.properties

    @property
    def doc(self) -> str | None:
        return self.metadata.doc

    @property
    def secure(self) -> bool:
        return self.metadata.secure

    @property
    def definitions(self) -> tuple[FunctionDefinition, ...]:
        return self.metadata.definitions

    def definition(self, definition_id: str) -> FunctionDefinition | None:
        """The definition with that signature (``"int,string"``), or None."""
        return self.metadata.definition(definition_id)

    @property
    def history(self) -> tuple[DefinitionLogEntry, ...]:
        """The definition log: which version of each definition was current from when."""
        return self.metadata.definition_log

    # -- changes ---------------------------------------------------------------------------------
    def _fresh(self) -> FunctionMetadata:
        base = self._ops.refresh()
        if base is None:  # pragma: no cover - refresh raises NoSuchFunctionError instead
            raise InvalidStateError(f"Function {self._name} has no metadata")
        return base

    def commit(self, change: FunctionChange, *, sync_views: bool = True) -> Function:
        """Commit ``change`` through the catalog (:meth:`Catalog.commit_function`); this handle
        then shows the committed metadata.

        When the change adds, replaces, rolls back or drops a definition (what a call resolves to
        and inlines), the views whose translated dialects inlined this function are then derived
        again, each in a commit of its own (:meth:`Catalog.sync_function_dependents`: a walk of
        the catalog's views); :attr:`synced` tells what happened. ``sync_views=False`` leaves them
        to ``iceview dialects sync`` (``lint`` reports them as ``stale-inlined-function``)."""
        if self._catalog is None:
            raise InvalidStateError(f"Function {self._name} has no catalog to commit to")
        committed = self._catalog.commit_function(self, change.requirements, change.updates)
        self._ops = committed.operations
        self.synced = None
        if sync_views and any(isinstance(u, _RESOLVED_BY) for u in change.updates):
            self.synced = self._catalog.sync_function_dependents(self.identifier)
        return self

    def add_definition(self, definition: NewDefinition, *, sync_views: bool = True) -> Function:
        """Add a definition for a new signature (an overload); ``sync_views``: :meth:`commit`."""
        return self.commit(add_definition_change(self._fresh(), definition), sync_views=sync_views)

    def replace_definition(
        self,
        definition_id: str,
        body: BodyLike,
        *,
        deterministic: bool | None = None,
        on_null_input: str | None = None,
        sync_views: bool = True,
    ) -> Function:
        """Give a definition a new current version with ``body`` (``{dialect: sql}``);
        ``sync_views``: :meth:`commit`."""
        change = replace_definition_change(
            self._fresh(), definition_id, body, deterministic=deterministic, on_null_input=on_null_input
        )
        return self.commit(change, sync_views=sync_views)

    def add_dialects(
        self,
        dialects: Sequence[str],
        *,
        source: str | None = None,
        definitions: Sequence[str] | None = None,
        spark_ansi: bool | None = None,
        sync_views: bool = True,
    ) -> Function:
        """Add SQL for ``dialects`` to each definition (or those ``definitions`` name) that lacks
        them, translated from its ``source`` body (default: spark, else trino, else duckdb), in one
        commit: a new current version per definition changed. A refusal
        (:class:`~iceview.function.dialects.FunctionDialectsRefusedError`) names every body and
        dialect refused, and nothing is committed. Nothing to add commits nothing."""
        from iceview.function.dialects import add_dialects_change

        change = add_dialects_change(
            self._fresh(), dialects, source=source, definitions=definitions, spark_ansi=spark_ansi
        )
        return self if change is None else self.commit(change, sync_views=sync_views)

    def set_current_version(
        self, definition_id: str, version_id: int, *, sync_views: bool = True
    ) -> Function:
        """Roll a definition back (or forward) to one of its versions; ``sync_views``: :meth:`commit`."""
        return self.commit(rollback_change(self._fresh(), definition_id, version_id), sync_views=sync_views)

    def set_current_versions(self, versions: Mapping[str, int], *, sync_views: bool = True) -> Function:
        """Make several definitions' versions current in one commit (``{definition_id:
        version_id}``), as a rollback to a definition-log entry does."""
        return self.commit(restore_change(self._fresh(), versions), sync_views=sync_views)

    def remove_definition(self, definition_id: str, *, sync_views: bool = True) -> Function:
        """Drop a definition with its versions; the function keeps at least one. ``sync_views``:
        :meth:`commit`."""
        return self.commit(remove_definition_change(self._fresh(), definition_id), sync_views=sync_views)

    def update_properties(
        self, updates: Mapping[str, str] | None = None, *, removals: Iterable[str] | None = None
    ) -> Function:
        """Set and remove properties in one commit."""
        return self.commit(properties_change(self._fresh(), updates, removals))

    def set_doc(self, doc: str | None) -> Function:
        return self.commit(doc_change(self._fresh(), doc))

    def set_secure(self, secure: bool) -> Function:
        return self.commit(secure_change(self._fresh(), secure))

    def update_location(self, location: str) -> Function:
        """Move the base location (the next metadata files are written there)."""
        return self.commit(location_change(self._fresh(), location))

    def __repr__(self) -> str:
        return f"Function({self._name})"
