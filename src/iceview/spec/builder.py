"""``ViewMetadata.Builder`` of Iceberg Java 1.10, rule for rule and message for message.

The rules, in short (reference §1.2):

* schema ids are reassigned: an identical schema is reused, otherwise ``max(ids) + 1`` from 0;
* version ids: an existing version equal on summary, representations, default catalog, default
  namespace and raw schema id is reused; otherwise the requested id is kept unless an existing id is
  at least as large, then ``max + 1``;
* the ``-1`` sentinels mean "the schema / version added last"; a schema or version that is reused
  counts as added last (Java leaves the sentinel unchanged or clears it, which fails a change
  re-applied on a refreshed base: docs/compatibility.md);
* one version-log entry per build, only when the current version changed;
* SQL dialects are unique per version, compared lower-cased;
* a replace may not drop a dialect unless ``replace.drop-dialect.allowed`` is true;
* old versions expire by ``version.history.num-entries`` (default 10), the version log is trimmed to
  the retained versions, schemas are never expired.
"""

from __future__ import annotations

import re
import time
import uuid as uuidlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from pyiceberg.schema import Schema

from iceview.errors import DialectDropError, InvalidArgumentError, ValidationError
from iceview.spec.common_updates import location_update, properties_update, removals_update, uuid_update
from iceview.spec.model import (
    SUPPORTED_VIEW_FORMAT_VERSION,
    FrozenDict,
    SQLRepresentation,
    UnknownRepresentation,
    VersionLogEntry,
    ViewMetadata,
    ViewVersion,
)
from iceview.spec.schema import schema_to_json
from iceview.spec.updates import (
    AddSchema,
    AddViewVersion,
    SetCurrentViewVersion,
    UpgradeFormatVersion,
    ViewUpdate,
)
from iceview.spec.validate import schema_problems

__all__ = [
    "REPLACE_DROP_DIALECT_ALLOWED",
    "VERSION_HISTORY_SIZE",
    "VERSION_HISTORY_SIZE_DEFAULT",
    "ViewMetadataBuilder",
    "java_hash_set_order",
    "java_string_hash",
    "version_history_size",
]

INITIAL_SCHEMA_ID = 0
LAST_ADDED = -1
VERSION_HISTORY_SIZE = "version.history.num-entries"
VERSION_HISTORY_SIZE_DEFAULT = 10
REPLACE_DROP_DIALECT_ALLOWED = "replace.drop-dialect.allowed"

_JAVA_INT = re.compile(r"[+-]?\d+")  # \d: any Unicode decimal digit, as Character.digit


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def java_parse_int(value: str) -> int:
    """``Integer.parseInt``: decimal digits with an optional sign, in 32-bit range."""
    if _JAVA_INT.fullmatch(value):
        number = int(value)
        if -(2**31) <= number < 2**31:
            return number
    raise InvalidArgumentError(f'For input string: "{value}"')


def version_history_size(properties: Mapping[str, str]) -> int:
    """How many versions to keep: ``version.history.num-entries`` (default 10), which must be a
    positive ``int``. The UDF builder keeps as many versions of each definition."""
    raw = properties.get(VERSION_HISTORY_SIZE)
    size = VERSION_HISTORY_SIZE_DEFAULT if raw is None else java_parse_int(raw)
    if size <= 0:
        raise InvalidArgumentError(f"{VERSION_HISTORY_SIZE} must be positive but was {size}")
    return size


def java_string_hash(s: str) -> int:
    """``String.hashCode`` (over UTF-16 code units), as an unsigned 32-bit value."""
    data = s.encode("utf-16-le")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    return h


def java_hash_set_order(values: Iterable[str]) -> list[str]:
    """The iteration order of a Java ``HashSet<String>`` filled with ``values`` in order: by hash
    bucket (``(h ^ (h >>> 16)) & (capacity - 1)``), insertion order within a bucket."""
    unique = list(dict.fromkeys(values))
    capacity = 16
    while len(unique) > capacity * 0.75:
        capacity *= 2

    def bucket(s: str) -> int:
        h = java_string_hash(s)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(unique, key=bucket)  # sorted is stable: ties keep insertion order


def _java_set(values: Iterable[str]) -> str:
    return "[" + ", ".join(java_hash_set_order(values)) + "]"


def _sql_dialects(version: ViewVersion) -> list[str]:
    return [r.dialect.lower() for r in version.representations if isinstance(r, SQLRepresentation)]


def _same_version(a: ViewVersion, b: ViewVersion) -> bool:
    """Java's ``sameViewVersion``: ids, timestamps and the derived operation do not count."""
    return (
        a.summary == b.summary
        and a.representations == b.representations
        and a.default_catalog == b.default_catalog
        and a.default_namespace == b.default_namespace
        and a.schema_id == b.schema_id
    )


def _schema_key(schema_json: Mapping[str, Any]) -> tuple[bytes, frozenset[int]]:
    """What ``Schema.sameSchema`` compares, from a normalised schema object: the struct (field ids,
    names, docs, types, optionality, defaults) and the set of identifier field ids."""
    return orjson.dumps(schema_json["fields"]), frozenset(schema_json.get("identifier-field-ids", ()))


def _check_version_fields(version: ViewVersion) -> None:
    """Writes are strict: a version must hold values of the types the format allows."""
    if not isinstance(version, ViewVersion):
        raise InvalidArgumentError(f"Invalid view version: {version!r}")
    for name in ("version_id", "schema_id", "timestamp_ms"):
        value = getattr(version, name)
        if type(value) is not int:
            raise InvalidArgumentError(f"Invalid view version: {name} must be an integer, not {value!r}")
    if not all(type(k) is str and type(v) is str for k, v in version.summary.items()):
        raise InvalidArgumentError("Invalid view version: summary keys and values must be strings")
    if not all(type(p) is str for p in version.default_namespace):
        raise InvalidArgumentError("Invalid view version: default namespace levels must be strings")
    if version.default_catalog is not None and type(version.default_catalog) is not str:
        raise InvalidArgumentError("Invalid view version: default catalog must be a string")
    if version.timestamp_ms < 0:
        raise InvalidArgumentError(f"Invalid view version: negative timestamp-ms {version.timestamp_ms}")
    for rep in version.representations:
        if isinstance(rep, SQLRepresentation):
            if type(rep.sql) is not str or type(rep.dialect) is not str:
                raise InvalidArgumentError("Invalid view version: SQL and dialect must be strings")
            if not rep.dialect.strip():
                raise InvalidArgumentError("Invalid view version: blank dialect")
            if not rep.sql.strip():
                raise InvalidArgumentError(f"Invalid view version: blank SQL for dialect {rep.dialect}")
        elif not isinstance(rep, UnknownRepresentation):
            raise InvalidArgumentError(f"Invalid view representation: {rep!r}")


class ViewMetadataBuilder:
    """Builds :class:`ViewMetadata`, recording each change as a :class:`ViewUpdate`.

    Get one from :meth:`ViewMetadata.builder` or :meth:`ViewMetadata.build_from`. Every method
    returns the builder, so calls chain.
    """

    def __init__(self, base: ViewMetadata | None) -> None:
        self._changes: list[ViewUpdate] = []
        self._history_entry: VersionLogEntry | None = None
        self._last_added_schema_id: int | None = None
        self._last_added_version_id: int | None = None
        self._metadata_location: str | None = None
        self._schema_objects: dict[int, Schema] = {}  # index in _schemas -> object, where known
        if base is None:
            self._versions: list[ViewVersion] = []
            self._versions_by_id: dict[int, ViewVersion] = {}
            self._schemas: list[dict[str, Any]] = []
            self._schema_ids: set[int] = set()
            self._history: list[VersionLogEntry] = []
            self._properties: dict[str, str] = {}
            self._format_version = SUPPORTED_VIEW_FORMAT_VERSION
            self._uuid: str | None = None
            self._location: str | None = None
            # Java starts at 0, which makes setCurrentVersionId(0) a silent no-op on a new builder;
            # None means "not set yet", so every current version gets its log entry
            self._current_version_id: int | None = None
            self._previous_version: ViewVersion | None = None
        else:
            self._versions = list(base.versions)
            self._versions_by_id = dict(base.versions_by_id)
            self._schemas = list(base._checked_schemas())
            self._schema_ids = {s["schema-id"] for s in self._schemas}
            self._history = list(base.version_log)
            self._properties = dict(base.properties)
            self._format_version = base.format_version
            self._uuid = base.uuid
            self._location = base.location
            self._current_version_id = base.current_version_id
            self._previous_version = base.current_version
            if base._schema_cache:
                self._schema_objects.update(base._schema_cache)

    # ------------------------------------------------------------------ simple fields

    def upgrade_format_version(self, format_version: int) -> ViewMetadataBuilder:
        if format_version < self._format_version:
            raise InvalidArgumentError(f"Cannot downgrade v{self._format_version} view to v{format_version}")
        if format_version != self._format_version:
            self._format_version = format_version
            self._changes.append(UpgradeFormatVersion(format_version))
        return self

    def set_location(self, location: str | None) -> ViewMetadataBuilder:
        change = location_update(self._location, location)
        if change is not None:
            self._location = change.location
        return self._record(change)

    def set_metadata_location(self, metadata_location: str | None) -> ViewMetadataBuilder:
        """The file this metadata is read from or written to. Records no change."""
        self._metadata_location = metadata_location
        return self

    def assign_uuid(self, uuid: str | None) -> ViewMetadataBuilder:
        change = uuid_update(self._uuid, uuid)
        if change is not None:
            self._uuid = change.uuid
        return self._record(change)

    def set_properties(self, updates: Mapping[str, str]) -> ViewMetadataBuilder:
        return self._record(properties_update(self._properties, updates))

    def remove_properties(self, removals: Iterable[str]) -> ViewMetadataBuilder:
        return self._record(removals_update(self._properties, removals))

    def _record(self, change: ViewUpdate | None) -> ViewMetadataBuilder:
        if change is not None:
            self._changes.append(change)
        return self

    # ------------------------------------------------------------------ schemas

    def add_schema(self, schema: Schema) -> ViewMetadataBuilder:
        self._add_schema(schema)
        return self

    def _add_schema(self, schema: Schema) -> int:
        if not isinstance(schema, Schema):
            raise InvalidArgumentError(f"Invalid schema: {schema!r}")
        candidate = schema_to_json(schema)
        for problem in schema_problems(candidate, "$"):
            raise InvalidArgumentError(f"Invalid schema: {problem.message} (at {problem.path})")
        key = _schema_key(candidate)
        new_id = INITIAL_SCHEMA_ID
        for existing in self._schemas:
            if _schema_key(existing) == key:
                # reused: no change, but -1 now means this schema (Java leaves it as it was), so that
                # add-schema + add-view-version(-1) re-applied on a base that has the schema holds
                self._last_added_schema_id = int(existing["schema-id"])
                return self._last_added_schema_id
            if existing["schema-id"] >= new_id:
                new_id = existing["schema-id"] + 1
        if new_id != schema.schema_id:
            schema = Schema(
                *schema.fields, schema_id=new_id, identifier_field_ids=schema.identifier_field_ids
            )
            candidate = schema_to_json(schema)
        self._schema_objects[len(self._schemas)] = schema
        self._schemas.append(candidate)
        self._schema_ids.add(new_id)
        self._changes.append(AddSchema(schema, schema.highest_field_id))
        self._last_added_schema_id = new_id
        return new_id

    # ------------------------------------------------------------------ versions

    def add_version(self, version: ViewVersion) -> ViewMetadataBuilder:
        self._add_version(version)
        return self

    def _added_in_this_build(self, version_id: int) -> bool:
        return any(
            isinstance(c, AddViewVersion) and c.view_version.version_id == version_id for c in self._changes
        )

    def _last_recorded_schema_id(self) -> int | None:
        """The schema of the last ``add-schema`` change, which a recorded ``-1`` replays to."""
        for change in reversed(self._changes):
            if isinstance(change, AddSchema):
                return change.schema.schema_id
        return None

    def _add_version(self, version: ViewVersion) -> int:
        _check_version_fields(version)
        new_id = version.version_id
        for existing in self._versions:
            if _same_version(existing, version):
                new_id = existing.version_id
                break
            if existing.version_id >= new_id:
                new_id = existing.version_id + 1
        if new_id == LAST_ADDED:
            # Java takes this id and then recurses forever on setCurrentVersionId(-1)
            raise InvalidArgumentError(
                f"Invalid view version: version id {LAST_ADDED} is reserved for the last added version"
            )
        if new_id != version.version_id:
            version = version.replace(version_id=new_id)

        if new_id in self._versions_by_id:
            # reused: -1 now means this version (Java clears it unless it was added in this build)
            self._last_added_version_id = new_id
            return new_id

        if version.schema_id == LAST_ADDED:
            if self._last_added_schema_id is None:
                raise ValidationError("Cannot set last added schema: no schema has been added")
            version = version.replace(schema_id=self._last_added_schema_id)

        if version.schema_id not in self._schema_ids:
            raise InvalidArgumentError(f"Cannot add version with unknown schema: {version.schema_id}")

        seen: set[str] = set()
        for dialect in _sql_dialects(version):
            if dialect in seen:
                raise InvalidArgumentError(
                    f"Invalid view version: Cannot add multiple queries for dialect {dialect}"
                )
            seen.add(dialect)

        self._versions.append(version)
        self._versions_by_id[new_id] = version
        if version.schema_id == self._last_recorded_schema_id():
            self._changes.append(AddViewVersion(version.replace(schema_id=LAST_ADDED)))
        else:
            self._changes.append(AddViewVersion(version))
        self._last_added_version_id = new_id
        return new_id

    def set_current_version(self, version: ViewVersion, schema: Schema) -> ViewMetadataBuilder:
        """Add ``schema`` and ``version`` (re-pointed at the schema's id) and make it current."""
        schema_id = self._add_schema(schema)
        return self.set_current_version_id(self._add_version(version.replace(schema_id=schema_id)))

    def set_current_version_id(self, version_id: int) -> ViewMetadataBuilder:
        if version_id == LAST_ADDED:
            if self._last_added_version_id is None:
                raise ValidationError("Cannot set last version id: no current version id has been set")
            return self.set_current_version_id(self._last_added_version_id)
        if version_id == self._current_version_id:
            return self
        version = self._versions_by_id.get(version_id)
        if version is None:
            raise InvalidArgumentError(f"Cannot set current version to unknown version: {version_id}")
        self._current_version_id = version_id
        if self._last_added_version_id == version_id and self._added_in_this_build(version_id):
            self._changes.append(SetCurrentViewVersion(LAST_ADDED))
        else:
            self._changes.append(SetCurrentViewVersion(version_id))
        # the version's own time when it was added in this build, else now (a rollback)
        timestamp = version.timestamp_ms if self._added_in_this_build(version_id) else _now_ms()
        self._history_entry = VersionLogEntry(timestamp, version.version_id)
        return self

    # ------------------------------------------------------------------ build

    def build(self) -> ViewMetadata:
        if self._location is None:
            raise InvalidArgumentError("Invalid location: null")
        if not self._versions:
            raise InvalidArgumentError("Invalid view: no versions were added")
        if self._metadata_location is not None and self._changes:
            raise InvalidArgumentError("Cannot create view metadata with a metadata location and changes")

        history = list(self._history)
        if self._history_entry is not None:
            history.append(self._history_entry)

        if self._current_version_id is None:
            raise InvalidArgumentError("Invalid view: no current version was set")
        current = self._versions_by_id.get(self._current_version_id)
        if current is None:
            raise InvalidArgumentError(
                f"Cannot find current version {self._current_version_id} in view versions: "
                f"[{', '.join(str(i) for i in self._versions_by_id)}]"
            )
        drop_allowed = self._properties.get(REPLACE_DROP_DIALECT_ALLOWED, "false").lower() == "true"
        if self._previous_version is not None and not drop_allowed:
            before = _sql_dialects(self._previous_version)
            after = _sql_dialects(current)
            if not set(before) <= set(after):
                raise DialectDropError(
                    f"Cannot replace view due to loss of view dialects ({REPLACE_DROP_DIALECT_ALLOWED}=false):\n"
                    f"Previous dialects: {_java_set(before)}\n"
                    f"New dialects: {_java_set(after)}",
                    java_hash_set_order(before),
                    java_hash_set_order(after),
                )

        history_size = version_history_size(self._properties)

        added = {c.view_version.version_id for c in self._changes if isinstance(c, AddViewVersion)}
        keep = max(len(added | {current.version_id}), history_size)
        versions: list[ViewVersion] = self._versions
        if len(versions) > keep:
            versions = _expire_versions(self._versions_by_id, keep, current)
            history = _update_history(history, {v.version_id for v in versions})

        schema_cache = dict(self._schema_objects)
        return ViewMetadata._make(
            self._uuid if self._uuid is not None else str(uuidlib.uuid4()),
            self._format_version,
            self._location,
            FrozenDict(self._properties),
            list(self._schemas),
            schema_cache,
            current.version_id,
            tuple(versions),
            None,
            tuple(history),
            None,
            tuple(self._changes),
            self._metadata_location,
        )


def _expire_versions(
    versions_by_id: Mapping[int, ViewVersion], keep: int, current: ViewVersion
) -> list[ViewVersion]:
    """Keep the current version, then the highest ids, up to ``keep``: the list becomes current
    first, then descending ids."""
    ids = sorted(versions_by_id, reverse=True)
    retained: list[ViewVersion] = [current]
    for version_id in ids[:keep]:
        if len(retained) == keep:
            break
        if version_id != current.version_id:
            retained.append(versions_by_id[version_id])
    return retained


def _update_history(history: list[VersionLogEntry], retained_ids: set[int]) -> list[VersionLogEntry]:
    """Keep only the part of the log after its last reference to an expired version."""
    kept: list[VersionLogEntry] = []
    for entry in history:
        if entry.version_id in retained_ids:
            kept.append(entry)
        else:
            kept.clear()
    return kept
