"""The UDF metadata JSON codec.

Reading is lenient: unknown fields are ignored, JSON ``null`` in an optional field means absent,
type names are read in any case and with spaces in their parentheses, representation types are
lower-cased and unknown ones kept as read, ``function-type`` and ``on-null-input`` are read in any
case. Every problem raises :class:`~iceview.errors.InvalidMetadataError` with the JSON path, in the
words of Java's ``JsonUtil`` (``Cannot parse missing string: function-uuid``). Beyond the shape,
the reader refuses what would make the metadata meaningless to index or to call: a format version
other than 1 (checked first, so that a newer file says so), an unknown type name, an unknown
``function-type`` or ``on-null-input``, a definition-id that names another signature than its
parameters', two definitions with one id, two versions of a definition with one id. Each
definition-id is kept in its canonical spelling, and the definition log's references with it.

Writing is strict: :func:`function_metadata_to_dict` first runs :func:`iceview.udf.validate` and
refuses any problem; it writes the spec's field order, ``secure`` always (as the spec's examples
do), ``deterministic``, ``on-null-input`` and ``return-nullable`` only when not their defaults.
"""

from __future__ import annotations

from typing import Any

import orjson

from iceview.errors import InvalidArgumentError, InvalidMetadataError
from iceview.spec.jsonutil import (
    child,
    encode_compact,
    encode_pretty,
    fail,
    get_bool,
    get_field,
    get_int,
    get_long,
    get_string,
    get_string_map,
    get_string_or_none,
    node_str,
    shorten,
)
from iceview.spec.version import FrozenDict
from iceview.udf.model import (
    FUNCTION_TYPES,
    ON_NULL_INPUTS,
    DefinitionLogEntry,
    DefinitionVersion,
    FunctionDefinition,
    FunctionMetadata,
    FunctionParameter,
    Representation,
    SQLRepresentation,
    UnknownRepresentation,
)
from iceview.udf.types import canonical, matches_definition_id, parse_type, type_to_json
from iceview.udf.validate import mismatch_message, validate

__all__ = [
    "definition_from_dict",
    "definition_to_dict",
    "function_metadata_from_dict",
    "function_metadata_from_json",
    "function_metadata_to_dict",
    "function_metadata_to_json",
    "version_from_dict",
    "version_to_dict",
]


# ------------------------------------------------------------------------------------------ read


def function_metadata_from_json(
    data: bytes | bytearray | memoryview | str, *, metadata_location: str | None = None
) -> FunctionMetadata:
    """Parse UDF metadata JSON leniently (see the module's docs). ``metadata_location``, the file
    it came from, is kept on the result and named in errors."""
    if data is None:
        raise fail("Cannot parse function metadata from null string", "$")
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise InvalidMetadataError(
            f"Cannot parse function metadata from {type(data).__name__}: expected JSON text (str or bytes)",
            "$",
            metadata_location,
        )
    if isinstance(data, memoryview):
        data = bytes(data)
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        empty = not (data.strip() if isinstance(data, str) else bytes(data).strip())
        detail = "empty input" if empty else f"malformed JSON: {e}"
        raise InvalidMetadataError(
            f"Cannot parse function metadata: {detail}", "$", metadata_location
        ) from None
    except TypeError as e:
        raise InvalidMetadataError(
            f"Cannot parse function metadata from {type(data).__name__}: {e}", "$", metadata_location
        ) from None
    return function_metadata_from_dict(obj, metadata_location=metadata_location)


def function_metadata_from_dict(obj: Any, *, metadata_location: str | None = None) -> FunctionMetadata:
    """Parse an already decoded JSON value (see :func:`function_metadata_from_json`)."""
    try:
        return _metadata(obj, metadata_location)
    except InvalidMetadataError as e:
        raise (e.with_location(metadata_location) if metadata_location else e) from None


def _metadata(obj: Any, metadata_location: str | None) -> FunctionMetadata:
    if obj is None:
        raise fail("Cannot parse function metadata from null object", "$")
    if type(obj) is not dict:
        raise fail(f"Cannot parse function metadata from non-object: {node_str(obj)}", "$")
    function_uuid = get_string(obj, "function-uuid", "$")
    format_version = get_int(obj, "format-version", "$")
    if not 0 < format_version <= 1:
        raise fail(f"Unsupported format version: {format_version}", "$.format-version")

    definitions: list[FunctionDefinition] = []
    canonical_ids: dict[str, str] = {}  # as written -> canonical
    for i, node in enumerate(_array(obj, "definitions", "$")):
        written, definition = _definition(node, f"$.definitions[{i}]", i)
        if any(d.definition_id == definition.definition_id for d in definitions):
            raise fail(
                f"Definition id {shorten(definition.definition_id)} is used more than once",
                f"$.definitions[{i}].definition-id",
            )
        definitions.append(definition)
        canonical_ids.setdefault(written, definition.definition_id)

    log = [
        _log_entry(node, f"$.definition-log[{k}]", definitions, canonical_ids)
        for k, node in enumerate(_array(obj, "definition-log", "$"))
    ]
    location = get_string_or_none(obj, "location", "$")
    properties = get_string_map(obj, "properties", "$") if obj.get("properties") is not None else {}
    return FunctionMetadata(
        function_uuid=function_uuid,
        format_version=format_version,
        definitions=tuple(definitions),
        definition_log=tuple(log),
        location=location,
        properties=FrozenDict(properties),
        secure=_optional_bool(obj, "secure", "$", False),
        doc=get_string_or_none(obj, "doc", "$"),
        metadata_file_location=metadata_location,
    )


def _array(obj: dict[str, Any], key: str, path: str) -> list[Any]:
    value = get_field(obj, key, path)
    if type(value) is not list:
        raise fail(f"Cannot parse {key} from non-array: {node_str(value)}", child(path, key))
    return value


def _optional_bool(obj: dict[str, Any], key: str, path: str, default: bool) -> bool:
    return default if obj.get(key) is None else get_bool(obj, key, path)


def _choice(obj: dict[str, Any], key: str, path: str, allowed: tuple[str, ...], default: str | None) -> str:
    """A string that must be one of ``allowed`` (any case); absent or null gives ``default``, or
    is missing when there is none."""
    if default is not None and obj.get(key) is None:
        return default
    value = get_string(obj, key, path)
    if value.lower() not in allowed:
        raise fail(f"Invalid {key}: {shorten(value)} (expected {' or '.join(allowed)})", child(path, key))
    return value.lower()


def definition_from_dict(node: Any, path: str = "$", index: int = 0) -> FunctionDefinition:
    """Parse one definition object leniently; its definition-id comes back canonical."""
    return _definition(node, path, index)[1]


def _definition(node: Any, path: str, index: int) -> tuple[str, FunctionDefinition]:
    if type(node) is not dict:
        raise fail(f"Cannot parse function definition from non-object: {node_str(node)}", path)
    written = get_string(node, "definition-id", path)
    specific_name = get_string_or_none(node, "specific-name", path)
    parameters = tuple(
        _parameter(p, child(child(path, "parameters"), j))
        for j, p in enumerate(_array(node, "parameters", path))
    )
    return_type = parse_type(get_field(node, "return-type", path), child(path, "return-type"))
    return_nullable = _optional_bool(node, "return-nullable", path, True)
    versions: list[DefinitionVersion] = []
    for k, v in enumerate(_array(node, "versions", path)):
        vpath = child(child(path, "versions"), k)
        version = version_from_dict(v, vpath)
        if any(other.version_id == version.version_id for other in versions):
            raise fail(f"Version id {version.version_id} is used more than once", child(vpath, "version-id"))
        versions.append(version)
    current_version_id = get_int(node, "current-version-id", path)
    function_type = _choice(node, "function-type", path, FUNCTION_TYPES, None)
    doc = get_string_or_none(node, "doc", path)

    expected = ",".join(canonical(p.type) for p in parameters)
    if written != expected and not matches_definition_id(written, [p.type for p in parameters]):
        raise fail(mismatch_message(index, written, expected), child(path, "definition-id"))
    definition = FunctionDefinition(
        definition_id=expected,
        parameters=parameters,
        return_type=return_type,
        versions=tuple(versions),
        current_version_id=current_version_id,
        function_type=function_type,
        return_nullable=return_nullable,
        specific_name=specific_name,
        doc=doc,
    )
    return written, definition


def _parameter(node: Any, path: str) -> FunctionParameter:
    if type(node) is not dict:
        raise fail(f"Cannot parse function parameter from non-object: {node_str(node)}", path)
    name = get_string(node, "name", path)
    parameter_type = parse_type(get_field(node, "type", path), child(path, "type"))
    return FunctionParameter(name, parameter_type, get_string_or_none(node, "doc", path))


def version_from_dict(node: Any, path: str = "$") -> DefinitionVersion:
    """Parse one definition version object leniently."""
    if type(node) is not dict:
        raise fail(f"Cannot parse definition version from non-object: {node_str(node)}", path)
    version_id = get_int(node, "version-id", path)
    representations = tuple(
        _representation(r, child(child(path, "representations"), i))
        for i, r in enumerate(_array(node, "representations", path))
    )
    deterministic = _optional_bool(node, "deterministic", path, False)
    on_null_input = _choice(node, "on-null-input", path, ON_NULL_INPUTS, "call")
    timestamp_ms = get_long(node, "timestamp-ms", path)
    return DefinitionVersion(
        version_id, representations, timestamp_ms, deterministic=deterministic, on_null_input=on_null_input
    )


def _representation(node: Any, path: str) -> Representation:
    if type(node) is not dict:
        raise fail(f"Cannot parse function representation from non-object: {node_str(node)}", path)
    kind = get_string(node, "type", path).lower()
    if kind == "sql":
        return SQLRepresentation(get_string(node, "dialect", path), get_string(node, "sql", path))
    return UnknownRepresentation(kind, node)


def _log_entry(
    node: Any, path: str, definitions: list[FunctionDefinition], canonical_ids: dict[str, str]
) -> DefinitionLogEntry:
    if type(node) is not dict:
        raise fail(f"Cannot parse definition log entry from non-object: {node_str(node)}", path)
    timestamp_ms = get_long(node, "timestamp-ms", path)
    pairs: list[tuple[str, int]] = []
    for j, ref in enumerate(_array(node, "definition-versions", path)):
        rpath = child(child(path, "definition-versions"), j)
        if type(ref) is not dict:
            raise fail(f"Cannot parse definition version reference from non-object: {node_str(ref)}", rpath)
        written = get_string(ref, "definition-id", rpath)
        version_id = get_int(ref, "version-id", rpath)
        pairs.append((_canonical_ref(written, definitions, canonical_ids), version_id))
    return DefinitionLogEntry(timestamp_ms, tuple(pairs))


def _canonical_ref(written: str, definitions: list[FunctionDefinition], canonical_ids: dict[str, str]) -> str:
    """A log reference in its definition's canonical spelling; one to no definition as written."""
    if written in canonical_ids:
        return canonical_ids[written]
    for d in definitions:
        if written == d.definition_id or matches_definition_id(written, d.parameter_types):
            return d.definition_id
    return written


# ----------------------------------------------------------------------------------------- write


def function_metadata_to_dict(metadata: FunctionMetadata) -> dict[str, Any]:
    """The JSON value of ``metadata``, in the spec's field order. Raises
    :class:`~iceview.errors.InvalidMetadataError` (``Cannot write function metadata: ...``, at the
    path of the first problem) for metadata that :func:`iceview.udf.validate` finds a problem in."""
    if not isinstance(metadata, FunctionMetadata):
        raise InvalidArgumentError(f"Invalid function metadata: {shorten(metadata)}")
    problems = validate(metadata)
    if problems:
        first = problems[0]
        raise InvalidMetadataError(
            f"Cannot write function metadata: {first.message}", first.path, metadata.metadata_file_location
        )
    out: dict[str, Any] = {
        "function-uuid": metadata.function_uuid,
        "format-version": metadata.format_version,
        "definitions": [definition_to_dict(d) for d in metadata.definitions],
        "definition-log": [
            {
                "timestamp-ms": e.timestamp_ms,
                "definition-versions": [
                    {"definition-id": d, "version-id": v} for d, v in e.definition_versions
                ],
            }
            for e in metadata.definition_log
        ],
    }
    if metadata.location is not None:
        out["location"] = metadata.location
    if metadata.properties:
        out["properties"] = dict(metadata.properties)
    out["secure"] = metadata.secure
    if metadata.doc is not None:
        out["doc"] = metadata.doc
    return out


def function_metadata_to_json(metadata: FunctionMetadata, pretty: bool = False) -> str:
    """The metadata as JSON text: compact (as metadata files are written) or, with
    ``pretty=True``, in the layout of Jackson's pretty printer (as view metadata is)."""
    value = function_metadata_to_dict(metadata)
    return encode_pretty(value) if pretty else encode_compact(value)


def definition_to_dict(definition: FunctionDefinition) -> dict[str, Any]:
    """One definition's JSON object (not validated: the metadata writer validates)."""
    out: dict[str, Any] = {"definition-id": definition.definition_id}
    if definition.specific_name is not None:
        out["specific-name"] = definition.specific_name
    parameters = []
    for p in definition.parameters:
        parameter: dict[str, Any] = {"name": p.name, "type": type_to_json(p.type)}
        if p.doc is not None:
            parameter["doc"] = p.doc
        parameters.append(parameter)
    out["parameters"] = parameters
    out["return-type"] = type_to_json(definition.return_type)
    if not definition.return_nullable:
        out["return-nullable"] = False
    out["versions"] = [version_to_dict(v) for v in definition.versions]
    out["current-version-id"] = definition.current_version_id
    out["function-type"] = definition.function_type
    if definition.doc is not None:
        out["doc"] = definition.doc
    return out


def version_to_dict(version: DefinitionVersion) -> dict[str, Any]:
    """One definition version's JSON object."""
    out: dict[str, Any] = {
        "version-id": version.version_id,
        "representations": [
            r.to_dict() if isinstance(r, SQLRepresentation) else dict(r.raw) for r in version.representations
        ],
    }
    if version.deterministic:
        out["deterministic"] = True
    if version.on_null_input != "call":
        out["on-null-input"] = version.on_null_input
    out["timestamp-ms"] = version.timestamp_ms
    return out
