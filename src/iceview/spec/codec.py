"""The view metadata JSON codec: Java's ``ViewMetadataParser`` and friends.

Reading is lenient exactly where Java is (unknown keys ignored, ``default-catalog: null`` means
absent, representation types lower-cased, unknown representation types kept, no semantic checks),
and every shape error is raised at read time with Java's message and the JSON path. So are
duplicate ids, which Java refuses while parsing: two versions or two schemas with one id, or two
fields with one id in a schema (nested ones included). Java's text for those (Guava's
``Multiple entries with same key: <k>=<Java object> and <k>=<Java object>``) cannot be
reproduced, so iceview names the id: ``Version id 1 is used more than once``, at the repeated
entry (``$.versions[1].version-id``).
"""

from __future__ import annotations

from typing import Any

from iceview.spec._fast import schema_ids_distinct, versions_and_log_ok
from iceview.spec._json import (
    child,
    decode,
    encode_compact,
    encode_pretty,
    fail,
    get_field,
    get_int,
    get_long,
    get_string,
    get_string_map,
    get_string_or_none,
    node_str,
)
from iceview.spec.model import FrozenDict, ViewMetadata
from iceview.spec.schema import check_field_ids, check_schema_ids

__all__ = ["parse_json", "parse_object", "to_json"]


def parse_json(
    data: bytes | bytearray | memoryview | str, metadata_location: str | None = None
) -> ViewMetadata:
    """``ViewMetadataParser.fromJson(location, json)``."""
    if data is None:
        raise fail("Cannot parse view metadata from null string", "$")
    return parse_object(decode(data), metadata_location)


def parse_object(obj: Any, metadata_location: str | None = None) -> ViewMetadata:
    """``ViewMetadataParser.fromJson(JsonNode)`` on a decoded JSON value."""
    if obj is None:
        raise fail("Cannot parse view metadata from null object", "$")
    if type(obj) is not dict:
        raise fail(f"Cannot parse view metadata from non-object: {node_str(obj)}", "$")

    uuid = get_string(obj, "view-uuid", "$")
    format_version = get_int(obj, "format-version", "$")
    location = get_string(obj, "location", "$")
    properties = get_string_map(obj, "properties", "$") if "properties" in obj else {}

    schemas = get_field(obj, "schemas", "$")
    if type(schemas) is not list:
        raise fail(f"Cannot parse schemas from non-array: {node_str(schemas)}", "$.schemas")
    # schema contents are checked (with SchemaParser's messages) on first use: see ViewMetadata;
    # duplicate ids are not, because Java refuses them at read time
    ids_distinct = schema_ids_distinct(schemas)
    if not ids_distinct:
        check_field_ids(schemas)  # Java indexes each schema's field ids as it parses it

    current_version_id = get_int(obj, "current-version-id", "$")

    versions = get_field(obj, "versions", "$")
    if type(versions) is not list:
        raise fail(f"Cannot parse versions from non-array: {node_str(versions)}", "$.versions")
    log = obj.get("version-log")
    if type(log) is not list or not versions_and_log_ok(versions, log):
        for i, version in enumerate(versions):
            _check_version(version, f"$.versions[{i}]")
        log = get_field(obj, "version-log", "$")
        if type(log) is not list:
            raise fail(f"Cannot parse version-log from non-array: {node_str(log)}", "$.version-log")
        for i, entry in enumerate(log):
            _check_log_entry(entry, f"$.version-log[{i}]")
        _check_version_ids(versions)

    # Java builds its id maps (versions first) before the format-version check
    if not ids_distinct:
        check_schema_ids(schemas)

    try:
        return ViewMetadata._make(
            uuid,
            format_version,
            location,
            FrozenDict(properties) if properties else FrozenDict(),
            schemas,
            None,
            current_version_id,
            None,
            versions,
            None,
            log,
            (),
            metadata_location,
        )
    except ValueError as e:  # the format-version check, which Java runs on construction
        raise fail(str(e), "$.format-version") from None


def _check_version_ids(versions: list[dict[str, Any]]) -> None:
    """Java's ``versionsById`` (an ``ImmutableMap``) refuses two versions with one id."""
    seen: set[int] = set()
    for i, version in enumerate(versions):
        version_id = version["version-id"]
        if version_id in seen:
            raise fail(f"Version id {version_id} is used more than once", f"$.versions[{i}].version-id")
        seen.add(version_id)


def _check_version(node: Any, path: str) -> None:
    """``ViewVersionParser.fromJson``: checks in Java's order, with Java's messages. A JSON null
    is a non-object to Java too: its null check is for a Java null, which parsing never passes."""
    if type(node) is not dict:
        raise fail(f"Cannot parse view version from a non-object: {node_str(node)}", path)
    get_int(node, "version-id", path)
    get_int(node, "schema-id", path)
    get_long(node, "timestamp-ms", path)
    get_string_map(node, "summary", path)
    representations = get_field(node, "representations", path)
    if type(representations) is not list:
        raise fail(
            f"Cannot parse representations from non-array: {node_str(representations)}",
            child(path, "representations"),
        )
    for i, rep in enumerate(representations):
        _check_representation(rep, f"{path}.representations[{i}]")
    get_string_or_none(node, "default-catalog", path)
    # getStringArray(JsonUtil.get(...)): missing and null are "missing field", like the other
    # required lists. Java 1.10 turns non-text levels into text (asText: 1 -> "1", {} -> "");
    # iceview refuses them (docs/compatibility.md).
    namespace = get_field(node, "default-namespace", path)
    if type(namespace) is not list:
        raise fail(
            f"Cannot parse string array from non-array: {node_str(namespace)}",
            child(path, "default-namespace"),
        )
    for i, level in enumerate(namespace):
        if type(level) is not str:
            raise fail(
                f"Cannot parse string from non-text value in default-namespace: {node_str(level)}",
                child(child(path, "default-namespace"), i),
            )


def _check_representation(node: Any, path: str) -> None:
    if type(node) is not dict:
        raise fail(f"Cannot parse view representation from non-object: {node_str(node)}", path)
    if get_string(node, "type", path).lower() == "sql":
        get_string(node, "sql", path)
        get_string(node, "dialect", path)


def _check_log_entry(node: Any, path: str) -> None:
    if type(node) is not dict:
        raise fail(f"Cannot parse view history entry from non-object: {node_str(node)}", path)
    get_int(node, "version-id", path)
    get_long(node, "timestamp-ms", path)


def to_json(metadata: ViewMetadata, pretty: bool = False) -> str:
    """``ViewMetadataParser.toJson(metadata[, pretty])``."""
    if metadata is None:
        raise fail("Invalid view metadata: null", "$")
    value = metadata.to_dict()
    return encode_pretty(value) if pretty else encode_compact(value)
