"""The UDF metadata builder, on the rules of the view builder (:mod:`iceview.spec.builder`).

* A definition is added with its first version (id 1), which becomes current. Its id is the
  canonical signature; a second definition with the same signature or specific-name is refused.
* A version added to a definition gets the highest id of that definition plus 1, unless an
  existing version of it has the same representations, ``deterministic`` and ``on_null_input``:
  then that version's id is reused and nothing is added (as views reuse an equal version).
* ``set_current_definition_version(d, -1)`` means the version of ``d`` added (or reused) last in
  this build; a change records ``-1`` only for a version added in the same build.
* ``build()`` appends one definition-log entry when the definitions or their current versions
  changed: timestamped with the newest of the versions that became current, when all of them were
  added in this build (as views use the version's own time), else now (a rollback, a removal). It
  appends one (at now) too when the base's log does not end with its current versions, which a
  lenient read lets through and a write refuses.
* Versions of each definition expire beyond ``version.history.num-entries`` (default 10, the view
  property and rules; never the current version or one added in this build), and the log keeps its
  longest suffix whose every (definition-id, version-id) names an existing version of a definition
  that was not removed in this build, at most ``version.history.num-entries`` entries.
* The result is validated (:func:`iceview.udf.validate`): anything wrong raises.
"""

from __future__ import annotations

import time
import uuid as uuidlib
from collections.abc import Iterable, Mapping, Sequence

from iceview.errors import InvalidArgumentError, ValidationError
from iceview.spec.builder import VERSION_HISTORY_SIZE, VERSION_HISTORY_SIZE_DEFAULT, version_history_size
from iceview.spec.common_updates import location_update, properties_update, removals_update, uuid_update
from iceview.spec.jsonutil import shorten
from iceview.spec.version import FrozenDict
from iceview.udf.model import (
    SUPPORTED_FUNCTION_FORMAT_VERSION,
    DefinitionLogEntry,
    DefinitionVersion,
    FunctionDefinition,
    FunctionMetadata,
    FunctionParameter,
)
from iceview.udf.types import DataType, check_depth, definition_id, matches_definition_id
from iceview.udf.updates import (
    LAST_ADDED,
    AddDefinition,
    AddDefinitionVersion,
    FunctionUpdate,
    RemoveDefinition,
    SetCurrentDefinitionVersion,
    SetFunctionDoc,
    SetFunctionSecure,
    UpgradeFormatVersion,
)
from iceview.udf.validate import definition_problems, type_problems, validate, version_problems

__all__ = ["VERSION_HISTORY_SIZE", "VERSION_HISTORY_SIZE_DEFAULT", "FunctionMetadataBuilder"]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class FunctionMetadataBuilder:
    """Builds :class:`FunctionMetadata`, recording each change as a :data:`FunctionUpdate`. Start
    from ``base`` (``None`` for a new function). Every method returns the builder, so calls chain."""

    def __init__(self, base: FunctionMetadata | None = None) -> None:
        if base is not None and not isinstance(base, FunctionMetadata):
            raise InvalidArgumentError(f"Invalid base: {shorten(base)} (a FunctionMetadata or None)")
        self._changes: list[FunctionUpdate] = []
        self._metadata_location: str | None = None
        self._added: dict[str, list[int]] = {}  # versions added in this build, per definition
        self._last_added: dict[str, int] = {}  # what -1 means, per definition
        self._new_definitions: set[str] = set()  # added in this build
        self._removed: set[str] = set()  # removed in this build
        if base is None:
            self._uuid: str | None = None
            self._format_version = SUPPORTED_FUNCTION_FORMAT_VERSION
            self._location: str | None = None
            self._properties: dict[str, str] = {}
            self._secure = False
            self._doc: str | None = None
            self._definitions: dict[str, FunctionDefinition] = {}
            self._log: list[DefinitionLogEntry] = []
            self._base_current: dict[str, int] = {}
        else:
            self._uuid = base.function_uuid
            self._format_version = base.format_version
            self._location = base.location
            self._properties = dict(base.properties)
            self._secure = base.secure
            self._doc = base.doc
            self._definitions = {d.definition_id: d for d in base.definitions}
            self._log = list(base.definition_log)
            self._base_current = base.current_definition_versions

    @property
    def definition_ids(self) -> tuple[str, ...]:
        """The ids of the definitions the metadata would have if built now."""
        return tuple(self._definitions)

    # ------------------------------------------------------------------ function fields

    def assign_uuid(self, uuid: str | None) -> FunctionMetadataBuilder:
        """Set the function's uuid (a new function gets a random one at build); it cannot change."""
        change = uuid_update(self._uuid, uuid)
        if change is not None:
            self._uuid = change.uuid
        return self._record(change)

    def upgrade_format_version(self, format_version: int) -> FunctionMetadataBuilder:
        """Raise the format version (only 1 exists)."""
        if type(format_version) is not int or format_version > SUPPORTED_FUNCTION_FORMAT_VERSION:
            raise InvalidArgumentError(f"Unsupported format version: {shorten(format_version, raw=True)}")
        if format_version < self._format_version:
            raise InvalidArgumentError(
                f"Cannot downgrade v{self._format_version} function to v{format_version}"
            )
        if format_version != self._format_version:
            self._format_version = format_version
            self._changes.append(UpgradeFormatVersion(format_version))
        return self

    def set_location(self, location: str | None) -> FunctionMetadataBuilder:
        """Set the function's base location."""
        change = location_update(self._location, location)
        if change is not None:
            self._location = change.location
        return self._record(change)

    def set_metadata_location(self, metadata_location: str | None) -> FunctionMetadataBuilder:
        """The file the metadata is read from or written to. Records no change."""
        self._metadata_location = metadata_location
        return self

    def set_properties(self, updates: Mapping[str, str]) -> FunctionMetadataBuilder:
        """Set properties (string keys and values)."""
        return self._record(properties_update(self._properties, updates))

    def remove_properties(self, removals: Iterable[str]) -> FunctionMetadataBuilder:
        """Remove properties; keys that are not set are ignored."""
        return self._record(removals_update(self._properties, removals))

    def _record(self, change: FunctionUpdate | None) -> FunctionMetadataBuilder:
        if change is not None:
            self._changes.append(change)
        return self

    def set_doc(self, doc: str | None) -> FunctionMetadataBuilder:
        """Set the function's documentation; ``None`` removes it."""
        if doc is not None and type(doc) is not str:
            raise InvalidArgumentError(f"Invalid doc: {shorten(doc)}")
        if doc != self._doc:
            self._doc = doc
            self._changes.append(SetFunctionDoc(doc))
        return self

    def set_secure(self, secure: bool) -> FunctionMetadataBuilder:
        """Mark the function secure or not."""
        if type(secure) is not bool:
            raise InvalidArgumentError(f"Invalid secure: {shorten(secure)} (a bool)")
        if secure != self._secure:
            self._secure = secure
            self._changes.append(SetFunctionSecure(secure))
        return self

    # ------------------------------------------------------------------ definitions

    def _find(self, definition_id: str) -> FunctionDefinition | None:
        if type(definition_id) is not str:
            raise InvalidArgumentError(f"Invalid definition id: {shorten(definition_id)} (a str)")
        found = self._definitions.get(definition_id)
        if found is None:
            for d in self._definitions.values():
                if matches_definition_id(definition_id, d.parameter_types):
                    return d
        return found

    def add_definition(
        self,
        parameters: Sequence[FunctionParameter],
        return_type: DataType,
        version: DefinitionVersion,
        *,
        function_type: str = "udf",
        return_nullable: bool = True,
        specific_name: str | None = None,
        doc: str | None = None,
    ) -> FunctionMetadataBuilder:
        """Add a definition for a new signature with ``version`` as its first version (id 1),
        current. Its definition-id is computed from the parameters' types."""
        self._add_definition(
            parameters,
            return_type,
            version,
            function_type=function_type,
            return_nullable=return_nullable,
            specific_name=specific_name,
            doc=doc,
        )
        return self

    def _add_definition(
        self,
        parameters: Sequence[FunctionParameter],
        return_type: DataType,
        version: DefinitionVersion,
        *,
        function_type: str,
        return_nullable: bool,
        specific_name: str | None,
        doc: str | None,
    ) -> str:
        if parameters is None or isinstance(parameters, (str, bytes)) or not isinstance(parameters, Iterable):
            raise InvalidArgumentError(
                f"Invalid parameters: {'null' if parameters is None else shorten(parameters)} "
                "(a sequence of FunctionParameter)"
            )
        parameters = tuple(parameters)
        if not all(isinstance(p, FunctionParameter) for p in parameters):
            raise InvalidArgumentError(f"Invalid parameters: {shorten(parameters)}")
        if not isinstance(version, DefinitionVersion):
            raise InvalidArgumentError(f"Invalid definition version: {shorten(version)}")
        types = [p.type for p in parameters]
        for index, t in enumerate(types):
            check_depth(t, f"type of parameter {index}")
        check_depth(return_type, "return type")
        for index, t in enumerate(types):
            for problem in type_problems(t, f"$.parameters[{index}].type"):
                raise InvalidArgumentError(f"Invalid definition: {problem.message} (at {problem.path})")
        new_id = definition_id(types)
        if new_id in self._definitions:
            raise InvalidArgumentError(
                f"Cannot add definition {shorten(new_id)}: the function has a definition with this signature"
            )
        if specific_name is not None:
            for other in self._definitions.values():
                if other.specific_name == specific_name:
                    raise InvalidArgumentError(
                        f"Cannot add definition {shorten(new_id)}: specific name {shorten(specific_name)} is "
                        f"used by definition {shorten(other.definition_id)}"
                    )
        definition = FunctionDefinition(
            definition_id=new_id,
            parameters=parameters,
            return_type=return_type,
            versions=(version.replace(version_id=1),),
            current_version_id=1,
            function_type=function_type,
            return_nullable=return_nullable,
            specific_name=specific_name,
            doc=doc,
        )
        for problem in definition_problems(definition):
            raise InvalidArgumentError(f"Invalid definition: {problem.message} (at {problem.path})")
        self._definitions[new_id] = definition
        self._new_definitions.add(new_id)
        self._added[new_id] = [1]
        self._last_added[new_id] = 1
        self._changes.append(AddDefinition(definition))
        return new_id

    def add_definition_version(
        self, definition_id: str, version: DefinitionVersion
    ) -> FunctionMetadataBuilder:
        """Add ``version`` to a definition, with the next id (its own id is not used), or reuse an
        existing version of that definition with the same body. Does not make it current."""
        self._add_version(definition_id, version)
        return self

    def _add_version(self, definition_id: str, version: DefinitionVersion) -> int:
        definition = self._find(definition_id)
        if definition is None:
            raise InvalidArgumentError(
                f"Cannot add a version to unknown definition: {shorten(definition_id)}"
            )
        if not isinstance(version, DefinitionVersion):
            raise InvalidArgumentError(f"Invalid definition version: {shorten(version)}")
        key = definition.definition_id
        for existing in definition.versions:
            if existing.same_body(version):
                self._last_added[key] = existing.version_id
                return existing.version_id
        new_id = max(definition.version_ids, default=0) + 1
        version = version.replace(version_id=new_id)
        for problem in version_problems(version):
            raise InvalidArgumentError(f"Invalid definition version: {problem.message} (at {problem.path})")
        self._definitions[key] = definition.replace(versions=(*definition.versions, version))
        self._added.setdefault(key, []).append(new_id)
        self._last_added[key] = new_id
        self._changes.append(AddDefinitionVersion(key, version))
        return new_id

    def set_current_definition_version(self, definition_id: str, version_id: int) -> FunctionMetadataBuilder:
        """Make ``version_id`` the current version of a definition (a replace after
        :meth:`add_definition_version`, or a rollback); ``-1`` means the one added last."""
        if type(version_id) is not int:
            raise InvalidArgumentError(f"Invalid version id: {shorten(version_id)} (an int)")
        definition = self._find(definition_id)
        if definition is None:
            raise InvalidArgumentError(
                f"Cannot set current version of unknown definition: {shorten(definition_id)}"
            )
        key = definition.definition_id
        if version_id == LAST_ADDED:
            last = self._last_added.get(key)
            if last is None:
                raise ValidationError(
                    f"Cannot set last added version of definition {shorten(key)}: no version has been added"
                )
            version_id = last
        if version_id == definition.current_version_id:
            return self
        if definition.version(version_id) is None:
            raise InvalidArgumentError(
                f"Cannot set current version of definition {shorten(key)} to unknown version: {version_id}"
            )
        self._definitions[key] = definition.replace(current_version_id=version_id)
        added_now = version_id in self._added.get(key, ())
        recorded = LAST_ADDED if added_now and self._last_added.get(key) == version_id else version_id
        self._changes.append(SetCurrentDefinitionVersion(key, recorded))
        return self

    def remove_definition(self, definition_id: str) -> FunctionMetadataBuilder:
        """Remove a definition with all its versions."""
        definition = self._find(definition_id)
        if definition is None:
            raise InvalidArgumentError(f"Cannot remove unknown definition: {shorten(definition_id)}")
        key = definition.definition_id
        del self._definitions[key]
        self._removed.add(key)
        self._new_definitions.discard(key)
        self._added.pop(key, None)
        self._last_added.pop(key, None)
        self._changes.append(RemoveDefinition(key))
        return self

    # ------------------------------------------------------------------ build

    def build(self) -> FunctionMetadata:
        """The metadata: versions expired, the definition log extended and trimmed, validated
        (a problem raises :class:`~iceview.errors.ValidationError`)."""
        if self._metadata_location is not None and self._changes:
            raise InvalidArgumentError("Cannot create function metadata with a metadata location and changes")
        if not self._definitions:
            raise InvalidArgumentError("Invalid function: no definitions")
        history_size = version_history_size(self._properties)

        definitions = [self._expire(d, history_size) for d in self._definitions.values()]
        log = _trim(self._log, definitions, self._removed)
        entry = self._log_entry(definitions, log)
        if entry is not None:
            log.append(entry)
        log = log[-history_size:]

        metadata = FunctionMetadata(
            function_uuid=self._uuid if self._uuid is not None else str(uuidlib.uuid4()),
            format_version=self._format_version,
            definitions=tuple(definitions),
            definition_log=tuple(log),
            location=self._location,
            properties=FrozenDict(self._properties),
            secure=self._secure,
            doc=self._doc,
            metadata_file_location=self._metadata_location,
            changes=tuple(self._changes),
        )
        for problem in validate(metadata):
            raise ValidationError(f"Invalid function metadata: {problem.message} (at {problem.path})")
        return metadata

    def _expire(self, definition: FunctionDefinition, history_size: int) -> FunctionDefinition:
        """Keep the current version and those added in this build, then the highest ids, up to
        ``history_size``; in their order."""
        added = set(self._added.get(definition.definition_id, ()))
        keep = max(len(added | {definition.current_version_id}), history_size)
        if len(definition.versions) <= keep:
            return definition
        retained = added | {definition.current_version_id}
        for version_id in sorted(definition.version_ids, reverse=True):
            if len(retained) >= keep:
                break
            retained.add(version_id)
        return definition.replace(versions=tuple(v for v in definition.versions if v.version_id in retained))

    def _log_entry(
        self, definitions: list[FunctionDefinition], log: list[DefinitionLogEntry]
    ) -> DefinitionLogEntry | None:
        """The entry this build appends, if the definitions or their current versions changed, or
        if the log does not end with them (a base read from a file that broke that rule)."""
        current = {d.definition_id: d.current_version_id for d in definitions}
        stale = not log or set(log[-1].definition_versions) != set(current.items())
        changed = [
            d
            for d in definitions
            if d.definition_id in self._new_definitions
            or self._base_current.get(d.definition_id) != d.current_version_id
        ]
        if not changed and set(current) == set(self._base_current) and not stale:
            return None
        if changed and all(d.current_version_id in self._added.get(d.definition_id, ()) for d in changed):
            timestamp = max(d.current_version.timestamp_ms for d in changed)
        else:
            timestamp = _now_ms()
        return DefinitionLogEntry(timestamp, tuple(current.items()))


def _trim(
    log: list[DefinitionLogEntry], definitions: list[FunctionDefinition], removed: set[str]
) -> list[DefinitionLogEntry]:
    """The longest suffix of ``log`` whose every pair names an existing version of a definition
    that was not removed (and perhaps added again) in this build."""
    existing = {
        (d.definition_id, v.version_id)
        for d in definitions
        if d.definition_id not in removed
        for v in d.versions
    }
    kept: list[DefinitionLogEntry] = []
    for entry in reversed(log):
        if not all(pair in existing for pair in entry.definition_versions):
            break
        kept.append(entry)
    kept.reverse()
    return kept
