"""Strict validation: the checks Iceberg Java never makes when it reads a file.

Java's reader accepts metadata whose current version or schema does not exist, whose versions
repeat a dialect, and so on, and fails later, when the bad part is used. :func:`validate` finds all
of it at once and says where. The lenient reader still loads such files.

What Java does refuse on read, iceview's reader refuses too: two versions or two schemas with one
id, or two fields with one id in a schema (``InvalidMetadataError``, with the messages below). So
``duplicate-version-id``, ``duplicate-schema-id`` and ``duplicate-field-id`` are found only in
metadata built in memory (``ViewMetadata(...)`` does not check ids); in a file they stop the read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from iceview.errors import InvalidMetadataError
from iceview.spec._json import shorten
from iceview.spec.common_updates import is_uuid
from iceview.spec.model import SQLRepresentation, ViewMetadata

__all__ = ["CODES", "READ_BLOCKING", "Problem", "check_writable", "schema_problems", "validate"]

CODES = {
    "no-versions": "the view has no versions",
    "current-version-missing": "current-version-id names no version",
    "unknown-schema": "a version names a schema that does not exist",
    "duplicate-version-id": "two versions share an id",
    "duplicate-schema-id": "two schemas share an id",
    "invalid-schema": "a schema that cannot be parsed",
    "duplicate-field-id": "two fields of a schema share an id",
    "duplicate-field-name": "two fields of one struct share a name",
    "invalid-identifier-field": "an identifier field id names no field, or a field that cannot be one",
    "duplicate-dialect": "a version has two SQL representations of one dialect",
    "blank-sql": "a SQL representation with empty or blank SQL",
    "blank-dialect": "a SQL representation with an empty or blank dialect",
    "log-unknown-version": "a version-log entry for a version that is not retained",
    "log-current-mismatch": "the last version-log entry is not the current version",
    "invalid-uuid": "view-uuid is not a UUID",
    "negative-timestamp": "a timestamp before 1970",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with view metadata: a stable ``code`` (see :data:`CODES`), a message and
    the JSON path where it is."""

    code: str
    message: str
    path: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.code}]"


def validate(metadata: ViewMetadata) -> list[Problem]:
    """Every problem in ``metadata``, in document order. An empty list means it is valid."""
    return list(_problems(metadata))


def _problems(md: ViewMetadata) -> Iterator[Problem]:
    if not is_uuid(md.uuid):
        yield Problem("invalid-uuid", f"view-uuid is not a UUID: {shorten(md.uuid)}", "$.view-uuid")

    schema_ids: list[int] = []
    try:
        schemas_json = md._checked_schemas()
    except InvalidMetadataError as e:
        yield Problem("invalid-schema", e.message, e.path)
        schemas_json = []
    for i, schema in enumerate(schemas_json):
        sid = schema["schema-id"]
        if sid in schema_ids:
            yield Problem(
                "duplicate-schema-id", f"Schema id {sid} is used more than once", f"$.schemas[{i}].schema-id"
            )
        schema_ids.append(sid)
        structural = schema_problems(schema, f"$.schemas[{i}]")
        yield from structural
        if not structural:  # those already say why PyIceberg would refuse the schema
            try:
                md._schema_at(i)
            except InvalidMetadataError as e:
                yield Problem("invalid-schema", e.message, e.path)

    versions = md.versions
    if not versions:
        yield Problem("no-versions", "The view has no versions", "$.versions")
    version_ids: list[int] = []
    for i, version in enumerate(versions):
        path = f"$.versions[{i}]"
        if version.version_id in version_ids:
            yield Problem(
                "duplicate-version-id",
                f"Version id {version.version_id} is used more than once",
                f"{path}.version-id",
            )
        version_ids.append(version.version_id)
        if version.schema_id not in schema_ids:
            yield Problem(
                "unknown-schema",
                f"Version {version.version_id} names unknown schema {version.schema_id}; "
                f"schemas: {_java_list(dict.fromkeys(schema_ids))}",
                f"{path}.schema-id",
            )
        if version.timestamp_ms < 0:
            yield Problem(
                "negative-timestamp",
                f"Version {version.version_id} has timestamp {version.timestamp_ms}",
                f"{path}.timestamp-ms",
            )
        dialects: set[str] = set()
        for j, rep in enumerate(version.representations):
            if not isinstance(rep, SQLRepresentation):
                continue
            rpath = f"{path}.representations[{j}]"
            if not rep.sql.strip():
                yield Problem(
                    "blank-sql", f"Version {version.version_id} has a blank SQL text", f"{rpath}.sql"
                )
            if not rep.dialect.strip():
                yield Problem(
                    "blank-dialect", f"Version {version.version_id} has a blank dialect", f"{rpath}.dialect"
                )
            lower = rep.dialect.lower()
            if lower in dialects:
                yield Problem(
                    "duplicate-dialect",
                    f"Invalid view version: Cannot add multiple queries for dialect {lower}",
                    f"{rpath}.dialect",
                )
            dialects.add(lower)

    if versions and md.current_version_id not in version_ids:
        yield Problem(
            "current-version-missing",
            f"Cannot find current version {md.current_version_id} in view versions: "
            f"{_java_list(dict.fromkeys(version_ids))}",
            "$.current-version-id",
        )

    log = md.version_log
    for k, entry in enumerate(log):
        path = f"$.version-log[{k}]"
        if entry.version_id not in version_ids:
            yield Problem(
                "log-unknown-version",
                f"Version-log entry names version {entry.version_id}, which is not retained",
                f"{path}.version-id",
            )
        if entry.timestamp_ms < 0:
            yield Problem(
                "negative-timestamp",
                f"Version-log entry has timestamp {entry.timestamp_ms}",
                f"{path}.timestamp-ms",
            )
    if versions:
        if not log:
            yield Problem(
                "log-current-mismatch",
                f"The version log is empty, but the current version is {md.current_version_id}",
                "$.version-log",
            )
        elif log[-1].version_id != md.current_version_id:
            yield Problem(
                "log-current-mismatch",
                f"The last version-log entry sets version {log[-1].version_id}, "
                f"but current-version-id is {md.current_version_id}",
                f"$.version-log[{len(log) - 1}].version-id",
            )


def schema_problems(schema: dict[str, Any], path: str) -> list[Problem]:
    """Duplicate field ids anywhere in a normalised schema, and duplicate names within one struct."""
    seen: Counter[int] = Counter()
    found: list[Problem] = []

    def walk(node: Any, npath: str) -> None:
        if not isinstance(node, dict):
            return
        kind = node["type"]
        if kind == "struct":
            names: set[str] = set()
            for i, field in enumerate(node["fields"]):
                fpath = f"{npath}.fields[{i}]"
                _note(field["id"], f"{fpath}.id")
                if field["name"] in names:
                    found.append(
                        Problem(
                            "duplicate-field-name",
                            f"Field name {field['name']!r} is used more than once",
                            f"{fpath}.name",
                        )
                    )
                names.add(field["name"])
                walk(field["type"], f"{fpath}.type")
        elif kind == "list":
            _note(node["element-id"], f"{npath}.element-id")
            walk(node["element"], f"{npath}.element")
        elif kind == "map":
            _note(node["key-id"], f"{npath}.key-id")
            _note(node["value-id"], f"{npath}.value-id")
            walk(node["key"], f"{npath}.key")
            walk(node["value"], f"{npath}.value")

    def _note(field_id: int, fpath: str) -> None:
        if seen[field_id]:
            found.append(Problem("duplicate-field-id", f"Field id {field_id} is used more than once", fpath))
        seen[field_id] += 1

    walk(schema, path)
    found.extend(_identifier_problems(schema, path))
    return found


def _identifier_problems(schema: dict[str, Any], path: str) -> list[Problem]:
    """Java's ``Schema.validateIdentifierField`` rules for ``identifier-field-ids``."""
    ids = schema.get("identifier-field-ids") or []
    if not ids:
        return []
    fields: dict[int, tuple[dict[str, Any], str | None]] = {}  # id -> (field, why it cannot be one)

    def walk(node: Any, blocked: str | None) -> None:
        if not isinstance(node, dict):
            return
        if node["type"] == "struct":
            for field in node["fields"]:
                fields[field["id"]] = (field, blocked)
                inner = blocked or (None if field["required"] else "must not be nested in an optional field")
                walk(field["type"], inner)
        elif node["type"] == "list":
            element = {"name": "element", "required": node["element-required"], "type": node["element"]}
            fields[node["element-id"]] = (element, "must not be nested in list")
            walk(node["element"], "must not be nested in list")
        elif node["type"] == "map":
            key = {"name": "key", "required": True, "type": node["key"]}
            value = {"name": "value", "required": node["value-required"], "type": node["value"]}
            fields[node["key-id"]] = (key, "must not be nested in map")
            fields[node["value-id"]] = (value, "must not be nested in map")
            walk(node["key"], "must not be nested in map")
            walk(node["value"], "must not be nested in map")

    walk(schema, None)
    problems = []
    for i, field_id in enumerate(ids):
        where = f"{path}.identifier-field-ids[{i}]"
        if field_id not in fields:
            reason = f"Cannot add fieldId {field_id} as an identifier field: field does not exist"
        else:
            field, blocked = fields[field_id]
            ftype, name = field["type"], field["name"]
            if not isinstance(ftype, str):
                reason = f"Cannot add field {name} as an identifier field: not a primitive type field"
            elif not field["required"]:
                reason = f"Cannot add field {name} as an identifier field: not a required field"
            elif ftype in ("float", "double"):
                reason = f"Cannot add field {name} as an identifier field: must not be float or double field"
            elif blocked:
                reason = f"Cannot add field {name} as an identifier field: {blocked}"
            else:
                continue
        problems.append(Problem("invalid-identifier-field", reason, where))
    return problems


# What Iceberg Java refuses when it reads a file: the writer never produces these. iceview's reader
# refuses the duplicate ids itself; the rest it reads, and only validate reports them.
READ_BLOCKING = frozenset(
    {
        "duplicate-version-id",
        "duplicate-schema-id",
        "duplicate-field-id",
        "duplicate-field-name",
        "invalid-identifier-field",
    }
)


_FIELD_ID_NAME_TYPE = itemgetter("id", "name", "type")


def _flat_and_distinct(schema: dict[str, Any]) -> bool:
    """The common case, checked at C speed: only primitive fields, distinct ids and names, no
    identifier fields. Anything else goes through :func:`schema_problems`."""
    fields = schema["fields"]
    if "identifier-field-ids" in schema:
        return False
    if not fields:
        return True
    ids, names, types = zip(*map(_FIELD_ID_NAME_TYPE, fields), strict=True)
    return set(map(type, types)) == {str} and len(set(ids)) == len(ids) and len(set(names)) == len(names)


def check_writable(md: ViewMetadata) -> None:
    """Raise ``InvalidMetadataError`` if Iceberg Java could not read ``md`` back: duplicate version
    or schema ids, duplicate field ids or names, bad identifier fields. Schemas are checked too."""
    schemas = md._checked_schemas()
    version_ids = md.version_ids
    if len(set(version_ids)) != len(version_ids):
        seen: set[int] = set()
        for i, vid in enumerate(version_ids):
            if vid in seen:
                raise InvalidMetadataError(
                    f"Cannot write view metadata: Version id {vid} is used more than once",
                    f"$.versions[{i}].version-id",
                )
            seen.add(vid)
    schema_ids: set[int] = set()
    for i, schema in enumerate(schemas):
        if schema["schema-id"] in schema_ids:
            raise InvalidMetadataError(
                f"Cannot write view metadata: Schema id {schema['schema-id']} is used more than once",
                f"$.schemas[{i}].schema-id",
            )
        schema_ids.add(schema["schema-id"])
        if _flat_and_distinct(schema):
            continue
        for problem in schema_problems(schema, f"$.schemas[{i}]"):
            raise InvalidMetadataError(f"Cannot write view metadata: {problem.message}", problem.path)


def _java_list(values: Any) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"
