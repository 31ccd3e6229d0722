"""The view metadata model: immutable values named as in the view spec.

``ViewMetadata`` is built by the JSON reader (:mod:`iceview.spec.codec`) or by the builder
(:mod:`iceview.spec.builder`). The reader checks every field, and that version, schema and field
ids are unique, when it loads a file, but checks the schemas' other contents and builds the
version, representation and log objects, and the PyIceberg schemas, only when they are first asked
for: loading metadata with many versions and schemas stays close to the cost of decoding the JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyiceberg.schema import Schema

from iceview.errors import InvalidArgumentError, InvalidMetadataError
from iceview.spec._fast import schemas_canonical
from iceview.spec.schema import normalize_schema_json, schema_from_json, schema_to_json
from iceview.spec.version import (
    SUPPORTED_VIEW_FORMAT_VERSION,
    FrozenDict,
    Representation,
    SQLRepresentation,
    UnknownRepresentation,
    VersionLogEntry,
    ViewHistory,
    ViewVersion,
    _frozen,
    _version_from_json,
    _version_json,
)

if TYPE_CHECKING:
    from iceview.spec.builder import ViewMetadataBuilder
    from iceview.spec.updates import ViewUpdate

__all__ = [
    "SUPPORTED_VIEW_FORMAT_VERSION",
    "FrozenDict",
    "Representation",
    "SQLRepresentation",
    "UnknownRepresentation",
    "VersionLogEntry",
    "ViewHistory",
    "ViewMetadata",
    "ViewVersion",
]


class ViewMetadata:
    """The content of a view metadata file (view spec format-version 1).

    Instances are immutable. Make them with :meth:`from_json`, :meth:`builder` or
    :meth:`build_from`; write them with :meth:`to_json`.
    """

    __slots__ = (
        "_changes",
        "_current_version_id",
        "_format_version",
        "_location",
        "_log",
        "_log_json",
        "_metadata_file_location",
        "_properties",
        "_schema_cache",
        "_schemas_json",
        "_uuid",
        "_versions",
        "_versions_by_id",
        "_versions_json",
        "_writable",
    )

    def __init__(
        self,
        *,
        uuid: str,
        format_version: int,
        location: str,
        schemas: Sequence[Schema],
        current_version_id: int,
        versions: Sequence[ViewVersion],
        version_log: Sequence[VersionLogEntry],
        properties: Mapping[str, str] | None = None,
        changes: Sequence[ViewUpdate] = (),
        metadata_file_location: str | None = None,
    ) -> None:
        self._init(
            uuid,
            format_version,
            location,
            _frozen(properties),
            [schema_to_json(s) for s in schemas],
            {i: s for i, s in enumerate(schemas)},
            current_version_id,
            tuple(versions),
            None,
            tuple(version_log),
            None,
            tuple(changes),
            metadata_file_location,
        )

    def _init(
        self,
        uuid: str,
        format_version: int,
        location: str,
        properties: FrozenDict,
        schemas_json: list[Any],
        schema_cache: dict[int, Schema] | None,
        current_version_id: int,
        versions: tuple[ViewVersion, ...] | None,
        versions_json: list[dict[str, Any]] | None,
        log: tuple[VersionLogEntry, ...] | None,
        log_json: list[dict[str, Any]] | None,
        changes: tuple[ViewUpdate, ...],
        metadata_file_location: str | None,
    ) -> None:
        if not 0 < format_version <= SUPPORTED_VIEW_FORMAT_VERSION:
            raise InvalidArgumentError(f"Unsupported format version: {format_version}")
        self._uuid = uuid
        self._format_version = format_version
        self._location = location
        self._properties = properties
        # schemas_json holds normalised schema objects once checked; the reader hands over the raw
        # JSON and a None cache, and the first use checks and normalises them all
        self._schemas_json = schemas_json
        self._schema_cache = schema_cache
        self._current_version_id = current_version_id
        self._versions = versions
        self._versions_json = versions_json
        self._versions_by_id: dict[int, ViewVersion] | None = None
        self._log = log
        self._log_json = log_json
        self._changes = changes
        self._metadata_file_location = metadata_file_location
        self._writable = False

    @classmethod
    def _make(cls, *args: Any) -> ViewMetadata:
        obj = cls.__new__(cls)
        obj._init(*args)
        return obj

    # ------------------------------------------------------------------ construction

    @staticmethod
    def from_json(data: bytes | str, *, metadata_location: str | None = None) -> ViewMetadata:
        """Parse view metadata JSON, leniently as Iceberg Java does. Every problem raises
        :class:`~iceview.errors.InvalidMetadataError` with Java's message and the JSON path,
        including what Java refuses on read beyond the shape: two versions or two schemas with one
        id, or two fields with one id in a schema."""
        parsed: ViewMetadata = (_codec or _load_codec()).parse_json(data, metadata_location)
        return parsed

    @staticmethod
    def from_dict(obj: Any, *, metadata_location: str | None = None) -> ViewMetadata:
        """Parse an already decoded JSON value."""
        parsed: ViewMetadata = (_codec or _load_codec()).parse_object(obj, metadata_location)
        return parsed

    @staticmethod
    def builder() -> ViewMetadataBuilder:
        """A builder for new view metadata."""
        from iceview.spec.builder import ViewMetadataBuilder

        return ViewMetadataBuilder(None)

    @staticmethod
    def build_from(base: ViewMetadata) -> ViewMetadataBuilder:
        """A builder that starts from ``base``, with no changes recorded yet."""
        from iceview.spec.builder import ViewMetadataBuilder

        return ViewMetadataBuilder(base)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value, in Java's field order. Raises ``InvalidMetadataError`` for metadata that
        Iceberg Java could not read back (duplicate ids or field names, bad identifier fields, bad
        schemas). The reader refuses duplicate ids, as Java does; the rest it reads so that
        :func:`~iceview.spec.validate` can report them, and metadata built in memory can have any
        of them; none of it is ever written."""
        if not self._writable:
            from iceview.spec.validate import check_writable

            check_writable(self)
            self._writable = True
        out: dict[str, Any] = {
            "view-uuid": self._uuid,
            "format-version": self._format_version,
            "location": self._location,
        }
        if self._properties:
            out["properties"] = dict(self._properties)
        out["schemas"] = self._checked_schemas()
        out["current-version-id"] = self._current_version_id
        if self._versions is None:
            assert self._versions_json is not None
            out["versions"] = [_version_json(v) for v in self._versions_json]
        else:
            out["versions"] = [v.to_dict() for v in self._versions]
        if self._log is None:
            assert self._log_json is not None
            out["version-log"] = [
                {"timestamp-ms": e["timestamp-ms"], "version-id": e["version-id"]} for e in self._log_json
            ]
        else:
            out["version-log"] = [e.to_dict() for e in self._log]
        return out

    def to_json(self, pretty: bool = False) -> str:
        """The metadata as JSON text: compact (as metadata files are written) or, with
        ``pretty=True``, in the exact layout of Jackson's pretty printer."""
        text: str = (_codec or _load_codec()).to_json(self, pretty)
        return text

    def with_metadata_file_location(self, metadata_file_location: str | None) -> ViewMetadata:
        """The same metadata, read from or written to ``metadata_file_location``. Its content, its
        recorded changes and everything already parsed are shared, so this is cheap."""
        copy = ViewMetadata._make(
            self._uuid,
            self._format_version,
            self._location,
            self._properties,
            self._schemas_json,
            self._schema_cache,
            self._current_version_id,
            self._versions,
            self._versions_json,
            self._log,
            self._log_json,
            self._changes,
            metadata_file_location,
        )
        copy._writable = self._writable
        return copy

    # ------------------------------------------------------------------ fields

    @property
    def uuid(self) -> str:
        return self._uuid

    @property
    def format_version(self) -> int:
        return self._format_version

    @property
    def location(self) -> str:
        return self._location

    @property
    def properties(self) -> Mapping[str, str]:
        return self._properties

    @property
    def current_version_id(self) -> int:
        return self._current_version_id

    @property
    def changes(self) -> tuple[ViewUpdate, ...]:
        """The updates the builder recorded to make this metadata (empty when read from JSON)."""
        return self._changes

    @property
    def metadata_file_location(self) -> str | None:
        return self._metadata_file_location

    @property
    def versions(self) -> tuple[ViewVersion, ...]:
        if self._versions is None:
            assert self._versions_json is not None
            self._versions = tuple(_version_from_json(v) for v in self._versions_json)
        return self._versions

    @property
    def version_log(self) -> tuple[VersionLogEntry, ...]:
        if self._log is None:
            assert self._log_json is not None
            self._log = tuple(VersionLogEntry(e["timestamp-ms"], e["version-id"]) for e in self._log_json)
        return self._log

    @property
    def history(self) -> ViewHistory:
        return ViewHistory(self.version_log)

    @property
    def versions_by_id(self) -> Mapping[int, ViewVersion]:
        if self._versions_by_id is None:
            by_id: dict[int, ViewVersion] = {}
            for v in self.versions:
                by_id.setdefault(v.version_id, v)
            self._versions_by_id = by_id
        return self._versions_by_id

    @property
    def version_ids(self) -> tuple[int, ...]:
        if self._versions is None and self._versions_json is not None:
            return tuple(v["version-id"] for v in self._versions_json)
        return tuple(v.version_id for v in self.versions)

    def version(self, version_id: int) -> ViewVersion | None:
        """The version with that id, or ``None``."""
        return self.versions_by_id.get(version_id)

    def _checked_schemas(self) -> list[dict[str, Any]]:
        """The schemas' JSON, checked as Java's ``SchemaParser`` does and normalised, on first use."""
        if self._schema_cache is None:
            raw = self._schemas_json
            if not schemas_canonical(raw):
                try:
                    raw = [normalize_schema_json(s, f"$.schemas[{i}]") for i, s in enumerate(raw)]
                except InvalidMetadataError as e:
                    raise (
                        e.with_location(self._metadata_file_location) if self._metadata_file_location else e
                    ) from None
            self._schemas_json = raw
            self._schema_cache = {}
        return self._schemas_json

    @property
    def schema_ids(self) -> tuple[int, ...]:
        return tuple(s["schema-id"] for s in self._checked_schemas())

    def schema_json(self, index: int) -> dict[str, Any]:
        """The normalised JSON object of the schema at ``index`` in ``schemas``."""
        return self._checked_schemas()[index]

    def _schema_at(self, index: int) -> Schema:
        schemas_json = self._checked_schemas()
        assert self._schema_cache is not None
        cached = self._schema_cache.get(index)
        if cached is None:
            try:
                cached = schema_from_json(schemas_json[index], f"$.schemas[{index}]")
            except InvalidMetadataError as e:
                raise (
                    e.with_location(self._metadata_file_location) if self._metadata_file_location else e
                ) from None
            self._schema_cache[index] = cached
        return cached

    @property
    def schemas(self) -> tuple[Schema, ...]:
        """The schemas as PyIceberg objects (each parsed on first use)."""
        return tuple(self._schema_at(i) for i in range(len(self._checked_schemas())))

    def schema_by_id(self, schema_id: int) -> Schema | None:
        for i, s in enumerate(self._checked_schemas()):
            if s["schema-id"] == schema_id:
                return self._schema_at(i)
        return None

    @property
    def schemas_by_id(self) -> Mapping[int, Schema]:
        out: dict[int, Schema] = {}
        for i, s in enumerate(self._checked_schemas()):
            if s["schema-id"] not in out:
                out[s["schema-id"]] = self._schema_at(i)
        return out

    # ------------------------------------------------------------------ derived, checked lazily

    @property
    def current_version(self) -> ViewVersion:
        """The current version. Raises ``InvalidMetadataError`` with Java's message if
        ``current-version-id`` names no version."""
        version = self.version(self._current_version_id)
        if version is None:
            raise InvalidMetadataError(
                f"Cannot find current version {self._current_version_id} in view versions: "
                f"{_java_list(self.versions_by_id)}",
                "$.current-version-id",
                self._metadata_file_location,
            )
        return version

    @property
    def current_schema_id(self) -> int:
        schema_id = self.current_version.schema_id
        if schema_id not in self.schema_ids:
            index = self.version_ids.index(self._current_version_id)
            raise InvalidMetadataError(
                f"Cannot find current schema with id {schema_id} in schemas: "
                f"{_java_list(dict.fromkeys(self.schema_ids))}",
                f"$.versions[{index}].schema-id",
                self._metadata_file_location,
            )
        return schema_id

    @property
    def schema(self) -> Schema:
        """The current version's schema."""
        schema = self.schema_by_id(self.current_schema_id)
        assert schema is not None
        return schema

    def sql_for(self, dialect: str, *, fallback: bool = False) -> SQLRepresentation | None:
        """The current version's SQL for ``dialect`` (case-insensitive). Java falls back to the
        first SQL representation when the dialect is missing; iceview does only with
        ``fallback=True``."""
        return self.current_version.sql_for(dialect, fallback=fallback)

    # ------------------------------------------------------------------ value semantics

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ViewMetadata):
            return NotImplemented
        return (
            self._uuid == other._uuid
            and self._format_version == other._format_version
            and self._location == other._location
            and self._properties == other._properties
            and self._checked_schemas() == other._checked_schemas()
            and self._current_version_id == other._current_version_id
            and self.versions == other.versions
            and self.version_log == other.version_log
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"ViewMetadata(uuid={self._uuid!r}, location={self._location!r}, "
            f"current_version_id={self._current_version_id}, versions={list(self.version_ids)}, "
            f"schemas={list(self.schema_ids)}, metadata_file_location={self._metadata_file_location!r})"
        )


def _java_list(values: Iterable[Any]) -> str:
    """How Java renders a collection: ``[1, 2]``."""
    return "[" + ", ".join(str(v) for v in values) + "]"


# The codec imports this module, so importing it here when this module loads would be a cycle
# (tests/architecture). It is imported on first use instead and kept in a global: an import
# statement in from_json would cost a look-up on every parse.
_codec: Any = None


def _load_codec() -> Any:
    global _codec
    from iceview.spec import codec

    _codec = codec
    return codec
