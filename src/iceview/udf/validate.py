"""The rules of UDF metadata, checked all at once: :func:`validate` lists every problem with a
stable code (:data:`CODES`), a message and the JSON path.

Reads are lenient and writes strict, as for views. The reader refuses what makes a file
meaningless to index or to call (the :data:`READ_BLOCKING` codes: two definitions with one id, a
definition-id that names another signature, two versions of a definition with one id, an unknown
``function-type`` or ``on-null-input``, a field of the wrong JSON type), so those are found here
only in metadata made by hand. Everything else the reader accepts and the writer
(:func:`iceview.udf.function_metadata_to_json`) refuses: every problem here blocks a write.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from iceview.spec.common_updates import is_uuid
from iceview.spec.jsonutil import LONG_MAX, LONG_MIN, shorten
from iceview.spec.validate import Problem
from iceview.udf.model import (
    FUNCTION_TYPES,
    ON_NULL_INPUTS,
    DefinitionLogEntry,
    DefinitionVersion,
    FunctionDefinition,
    FunctionMetadata,
    FunctionParameter,
    SQLRepresentation,
    UnknownRepresentation,
)
from iceview.udf.types import (
    MAX_TYPE_DEPTH,
    DataType,
    ListType,
    MapType,
    PrimitiveType,
    StructType,
    ambiguous_crs,
    ambiguous_field_names,
    canonical,
    too_deep,
)

__all__ = [
    "CODES",
    "READ_BLOCKING",
    "Problem",
    "definition_problems",
    "mismatch_message",
    "type_problems",
    "validate",
    "version_problems",
]

CODES = {
    "invalid-value": "a field holds a value of the wrong type (a str where a bool belongs, ...)",
    "invalid-uuid": "function-uuid is not a UUID",
    "no-definitions": "the function has no definitions",
    "duplicate-definition-id": "two definitions share a definition-id",
    "definition-id-mismatch": "a definition-id is not the canonical form of its parameter types",
    "ambiguous-field-name": "a struct field name in a parameter type that a definition-id cannot carry",
    "ambiguous-crs": "a geometry/geography CRS in a parameter type that a definition-id cannot carry",
    "type-too-deep": "a type nested more than MAX_TYPE_DEPTH (100) levels deep",
    "invalid-representation": "an unknown representation whose type is sql, or disagrees with its JSON",
    "duplicate-field-name": "two fields of one struct share a name",
    "duplicate-specific-name": "two definitions share a specific-name",
    "empty-parameter-name": "a parameter with an empty name",
    "duplicate-parameter-name": "two parameters of a definition share a name (case-insensitively)",
    "invalid-function-type": "function-type is neither udf nor udtf",
    "udtf-return-not-struct": "a udtf whose return-type is not a struct",
    "no-versions": "a definition has no versions",
    "invalid-version-id": "a version-id below 1",
    "duplicate-version-id": "two versions of a definition share an id",
    "current-version-missing": "current-version-id names no version of its definition",
    "no-representations": "a version has no representations",
    "duplicate-dialect": "a version has two SQL representations of one dialect (case-insensitively)",
    "blank-sql": "a SQL representation with empty or blank SQL",
    "blank-dialect": "a SQL representation with an empty or blank dialect",
    "invalid-on-null-input": "on-null-input is neither call nor return-null",
    "negative-timestamp": "a timestamp before 1970",
    "log-duplicate-definition": "a definition-log entry names one definition twice",
    "log-unknown-version": "a definition-log entry names a definition version that does not exist",
    "log-current-mismatch": "the last definition-log entry is not the current definition versions",
}

# what the reader refuses, so found only in metadata made in memory
READ_BLOCKING = frozenset(
    {
        "invalid-value",
        "duplicate-definition-id",
        "definition-id-mismatch",
        "duplicate-version-id",
        "invalid-function-type",
        "invalid-on-null-input",
        "invalid-representation",
        "type-too-deep",
    }
)


def validate(metadata: FunctionMetadata) -> list[Problem]:
    """Every problem in ``metadata``, in document order. An empty list means it can be written."""
    return list(_problems(metadata))


def definition_problems(definition: FunctionDefinition, index: int = 0, path: str = "$") -> list[Problem]:
    """The problems of one definition on its own (its versions included), as :func:`validate`
    reports them for the definition at ``path``."""
    return list(_definition_problems(definition, index, path))


def version_problems(version: DefinitionVersion, path: str = "$") -> list[Problem]:
    """The problems of one version on its own (the id's range and uniqueness aside)."""
    return list(_version_problems(version, path))


def type_problems(t: DataType, path: str = "$") -> list[Problem]:
    """The problems of one type: values that are not types, two fields of a struct with one name."""
    return list(_type_problems(t, path))


def _int(value: Any, low: int = -(2**31), high: int = 2**31 - 1) -> bool:
    return type(value) is int and low <= value <= high


def _long(value: Any) -> bool:
    return _int(value, LONG_MIN, LONG_MAX)


def _optional_str(value: Any) -> bool:
    return value is None or type(value) is str


def _bad(name: str, value: Any, path: str, expected: str) -> Problem:
    return Problem("invalid-value", f"{name} must be {expected}, not {shorten(value)}", path)


def _problems(md: FunctionMetadata) -> Iterator[Problem]:
    if type(md.function_uuid) is not str:
        yield _bad("function-uuid", md.function_uuid, "$.function-uuid", "a string")
    elif not is_uuid(md.function_uuid):
        yield Problem(
            "invalid-uuid", f"function-uuid is not a UUID: {shorten(md.function_uuid)}", "$.function-uuid"
        )
    if not md.definitions:
        yield Problem("no-definitions", "The function has no definitions", "$.definitions")
    seen_ids: set[str] = set()
    specific_names: dict[str, int] = {}
    for i, d in enumerate(md.definitions):
        path = f"$.definitions[{i}]"
        if not isinstance(d, FunctionDefinition):
            yield _bad("A definition", d, path, "a FunctionDefinition")
            continue
        if type(d.definition_id) is str and d.definition_id in seen_ids:
            yield Problem(
                "duplicate-definition-id",
                f"Definition id {shorten(d.definition_id)} is used more than once",
                f"{path}.definition-id",
            )
        if type(d.definition_id) is str:
            seen_ids.add(d.definition_id)
        if d.specific_name is not None and type(d.specific_name) is str:
            if d.specific_name in specific_names:
                yield Problem(
                    "duplicate-specific-name",
                    f"Specific name {shorten(d.specific_name)} of definition {i} is already used by definition "
                    f"{specific_names[d.specific_name]}",
                    f"{path}.specific-name",
                )
            specific_names.setdefault(d.specific_name, i)
        yield from _definition_problems(d, i, path)
    yield from _log_problems(md)
    if md.location is not None and type(md.location) is not str:
        yield _bad("location", md.location, "$.location", "a string")
    if not isinstance(md.properties, Mapping) or not all(
        type(k) is str and type(v) is str for k, v in md.properties.items()
    ):
        yield _bad("properties", md.properties, "$.properties", "a map of strings to strings")
    if type(md.secure) is not bool:
        yield _bad("secure", md.secure, "$.secure", "a boolean")
    if not _optional_str(md.doc):
        yield _bad("doc", md.doc, "$.doc", "a string")


def _definition_problems(d: FunctionDefinition, index: int, path: str) -> Iterator[Problem]:
    if type(d.definition_id) is not str:
        yield _bad("definition-id", d.definition_id, f"{path}.definition-id", "a string")
    if not _optional_str(d.specific_name):
        yield _bad("specific-name", d.specific_name, f"{path}.specific-name", "a string")
    names: dict[str, int] = {}
    types_ok = True
    for j, p in enumerate(d.parameters):
        ppath = f"{path}.parameters[{j}]"
        if not isinstance(p, FunctionParameter):
            yield _bad("A parameter", p, ppath, "a FunctionParameter")
            types_ok = False
            continue
        if type(p.name) is not str:
            yield _bad("A parameter name", p.name, f"{ppath}.name", "a string")
        elif not p.name:
            yield Problem("empty-parameter-name", f"Parameter {j} has an empty name", f"{ppath}.name")
        else:
            folded = p.name.casefold()
            if folded in names:
                yield Problem(
                    "duplicate-parameter-name",
                    f"Parameter name {shorten(p.name)} is used more than once (parameter {names[folded]} and "
                    f"{j}, compared case-insensitively)",
                    f"{ppath}.name",
                )
            names.setdefault(folded, j)
        if not _optional_str(p.doc):
            yield _bad("A parameter doc", p.doc, f"{ppath}.doc", "a string")
        type_problems = list(_type_problems(p.type, f"{ppath}.type"))
        types_ok = types_ok and not type_problems
        yield from type_problems
        if not type_problems:
            for crs, where in ambiguous_crs(p.type, f"{ppath}.type"):
                yield Problem(
                    "ambiguous-crs",
                    f"The CRS of {shorten(crs, raw=True)} cannot be written in a definition-id (it has "
                    "whitespace, ',', '<', '>', '`', '\"' or \"'\")",
                    where,
                )
            for name, where in ambiguous_field_names(p.type, f"{ppath}.type"):
                yield Problem(
                    "ambiguous-field-name",
                    f"Struct field name {shorten(name)} cannot be written in a definition-id (it is empty or has "
                    "whitespace, ',', ':', '<', '>', '`', '\"' or \"'\")",
                    where,
                )
    if types_ok and type(d.definition_id) is str:
        expected = ",".join(canonical(p.type) for p in d.parameters)
        if d.definition_id != expected:
            yield Problem(
                "definition-id-mismatch",
                mismatch_message(index, d.definition_id, expected),
                f"{path}.definition-id",
            )
    return_problems = list(_type_problems(d.return_type, f"{path}.return-type"))
    yield from return_problems
    if type(d.return_nullable) is not bool:
        yield _bad("return-nullable", d.return_nullable, f"{path}.return-nullable", "a boolean")
    yield from _versions_problems(d, path)
    if d.function_type not in FUNCTION_TYPES:
        yield Problem(
            "invalid-function-type",
            f"Invalid function-type: {shorten(d.function_type)} (expected udf or udtf)",
            f"{path}.function-type",
        )
    elif d.function_type == "udtf" and not return_problems and not isinstance(d.return_type, StructType):
        yield Problem(
            "udtf-return-not-struct",
            f"A udtf must return a struct (its output columns), not {canonical(d.return_type)}",
            f"{path}.return-type",
        )
    if not _optional_str(d.doc):
        yield _bad("doc", d.doc, f"{path}.doc", "a string")


def _type_problems(t: DataType, path: str) -> Iterator[Problem]:
    if too_deep(t):
        yield Problem("type-too-deep", f"The type is nested more than {MAX_TYPE_DEPTH} levels deep", path)
        return
    yield from _shallow_type_problems(t, path)


def _shallow_type_problems(t: DataType, path: str) -> Iterator[Problem]:
    if isinstance(t, PrimitiveType):
        return
    if isinstance(t, ListType):
        yield from _shallow_type_problems(t.element, f"{path}.element")
    elif isinstance(t, MapType):
        yield from _shallow_type_problems(t.key, f"{path}.key")
        yield from _shallow_type_problems(t.value, f"{path}.value")
    elif isinstance(t, StructType):
        names: set[str] = set()
        for i, field in enumerate(t.fields):
            fpath = f"{path}.fields[{i}]"
            if type(field) is not tuple or len(field) != 2:
                yield _bad("A struct field", field, fpath, "a (name, type) pair")
                continue
            name, ft = field
            if type(name) is not str:
                yield _bad("A struct field name", name, f"{fpath}.name", "a string")
            elif name in names:
                yield Problem(
                    "duplicate-field-name",
                    f"Field name {shorten(name)} is used more than once",
                    f"{fpath}.name",
                )
            else:
                names.add(name)
            yield from _shallow_type_problems(ft, f"{fpath}.type")
    else:
        yield _bad("A type", t, path, "a PrimitiveType, ListType, MapType or StructType")


def _versions_problems(d: FunctionDefinition, path: str) -> Iterator[Problem]:
    if not d.versions:
        yield Problem(
            "no-versions", f"Definition {shorten(d.definition_id)} has no versions", f"{path}.versions"
        )
    ids: set[int] = set()
    for k, v in enumerate(d.versions):
        vpath = f"{path}.versions[{k}]"
        if not isinstance(v, DefinitionVersion):
            yield _bad("A version", v, vpath, "a DefinitionVersion")
            continue
        if not _int(v.version_id):
            yield _bad("version-id", v.version_id, f"{vpath}.version-id", "an int")
        elif v.version_id in ids:
            yield Problem(
                "duplicate-version-id",
                f"Version id {v.version_id} is used more than once",
                f"{vpath}.version-id",
            )
        elif v.version_id < 1:
            yield Problem(
                "invalid-version-id",
                f"Version ids start at 1, but definition {shorten(d.definition_id)} has version {v.version_id}",
                f"{vpath}.version-id",
            )
        ids.add(v.version_id)
        yield from _version_problems(v, vpath)
    if not _int(d.current_version_id):
        yield _bad("current-version-id", d.current_version_id, f"{path}.current-version-id", "an int")
    elif d.versions and d.current_version_id not in ids:
        yield Problem(
            "current-version-missing",
            f"Cannot find current version {d.current_version_id} of definition {shorten(d.definition_id)} in "
            f"its versions: {sorted(ids, key=str)}",
            f"{path}.current-version-id",
        )


def _version_problems(v: DefinitionVersion, vpath: str) -> Iterator[Problem]:
    if not v.representations:
        yield Problem(
            "no-representations", f"Version {v.version_id} has no representations", f"{vpath}.representations"
        )
    dialects: set[str] = set()
    for r, rep in enumerate(v.representations):
        rpath = f"{vpath}.representations[{r}]"
        if isinstance(rep, UnknownRepresentation):
            yield from _unknown_problems(rep, rpath)
            continue
        if not isinstance(rep, SQLRepresentation):
            yield _bad("A representation", rep, rpath, "a SQLRepresentation or UnknownRepresentation")
            continue
        if type(rep.dialect) is not str or type(rep.sql) is not str:
            yield _bad("SQL and dialect", rep, rpath, "strings")
            continue
        if not rep.dialect.strip():
            yield Problem("blank-dialect", f"Version {v.version_id} has a blank dialect", f"{rpath}.dialect")
        if not rep.sql.strip():
            yield Problem("blank-sql", f"Version {v.version_id} has a blank SQL text", f"{rpath}.sql")
        lower = rep.dialect.lower()
        if lower in dialects:
            yield Problem(
                "duplicate-dialect",
                f"Version {v.version_id} has more than one SQL representation for dialect {lower}",
                f"{rpath}.dialect",
            )
        dialects.add(lower)
    if type(v.deterministic) is not bool:
        yield _bad("deterministic", v.deterministic, f"{vpath}.deterministic", "a boolean")
    if v.on_null_input not in ON_NULL_INPUTS:
        yield Problem(
            "invalid-on-null-input",
            f"Invalid on-null-input: {shorten(v.on_null_input)} (expected call or return-null)",
            f"{vpath}.on-null-input",
        )
    if not _long(v.timestamp_ms):
        yield _bad("timestamp-ms", v.timestamp_ms, f"{vpath}.timestamp-ms", "a long")
    elif v.timestamp_ms < 0:
        yield Problem(
            "negative-timestamp",
            f"Version {v.version_id} has timestamp {v.timestamp_ms}",
            f"{vpath}.timestamp-ms",
        )


def _unknown_problems(rep: UnknownRepresentation, rpath: str) -> Iterator[Problem]:
    """An unknown representation must be what the reader makes of its JSON: an object whose
    ``type`` is a string other than ``sql`` (in any case) and lower-cases to ``rep.type``."""
    raw: Any = rep.raw
    if not isinstance(raw, Mapping) or not all(type(k) is str for k in raw):
        yield _bad("An unknown representation's JSON", raw, rpath, "an object")
        return
    try:
        orjson.dumps(dict(raw))
    except (TypeError, orjson.JSONEncodeError):
        yield _bad("An unknown representation's JSON", raw, rpath, "JSON values only")
        return
    written = raw.get("type")
    if type(rep.type) is not str or type(written) is not str:
        yield _bad("An unknown representation's type", written, f"{rpath}.type", "a string")
    elif written.lower() == "sql" or rep.type.lower() == "sql":
        yield Problem(
            "invalid-representation",
            "An unknown representation cannot have type sql (a SQL representation is a SQLRepresentation)",
            f"{rpath}.type",
        )
    elif written.lower() != rep.type:
        yield Problem(
            "invalid-representation",
            f"An unknown representation of type {shorten(rep.type)} has JSON of type {shorten(written)}",
            f"{rpath}.type",
        )


def _log_problems(md: FunctionMetadata) -> Iterator[Problem]:
    existing = {
        (d.definition_id, v.version_id)
        for d in md.definitions
        if isinstance(d, FunctionDefinition)
        for v in d.versions
        if isinstance(v, DefinitionVersion)
    }
    log = md.definition_log
    for k, entry in enumerate(log):
        path = f"$.definition-log[{k}]"
        if not isinstance(entry, DefinitionLogEntry):
            yield _bad("A definition-log entry", entry, path, "a DefinitionLogEntry")
            continue
        if not _long(entry.timestamp_ms):
            yield _bad("timestamp-ms", entry.timestamp_ms, f"{path}.timestamp-ms", "a long")
        elif entry.timestamp_ms < 0:
            yield Problem(
                "negative-timestamp",
                f"Definition-log entry {k} has timestamp {entry.timestamp_ms}",
                f"{path}.timestamp-ms",
            )
        named: set[str] = set()
        for j, pair in enumerate(entry.definition_versions):
            rpath = f"{path}.definition-versions[{j}]"
            if type(pair) is not tuple or len(pair) != 2 or type(pair[0]) is not str or not _int(pair[1]):
                yield _bad("A definition version", pair, rpath, "(str, int)")
                continue
            definition_id, version_id = pair
            if definition_id in named:
                yield Problem(
                    "log-duplicate-definition",
                    f"Definition-log entry {k} names definition {shorten(definition_id)} more than once",
                    f"{rpath}.definition-id",
                )
            named.add(definition_id)
            if (definition_id, version_id) not in existing:
                yield Problem(
                    "log-unknown-version",
                    f"Definition-log entry {k} names version {version_id} of definition {shorten(definition_id)}, "
                    "which does not exist",
                    rpath,
                )
    if not md.definitions:
        return
    current = {
        (d.definition_id, d.current_version_id) for d in md.definitions if isinstance(d, FunctionDefinition)
    }
    if not log:
        yield Problem(
            "log-current-mismatch",
            f"The definition log is empty, but the current definition versions are {_pairs(current)}",
            "$.definition-log",
        )
    elif isinstance(log[-1], DefinitionLogEntry) and set(log[-1].definition_versions) != current:
        yield Problem(
            "log-current-mismatch",
            f"The last definition-log entry sets {_pairs(log[-1].definition_versions)}, but the current "
            f"definition versions are {_pairs(current)}",
            f"$.definition-log[{len(log) - 1}].definition-versions",
        )


def _pairs(pairs: Any) -> str:
    shown = (
        f"{shorten(p[0])}: {shorten(p[1])}" if type(p) is tuple and len(p) == 2 else shorten(p) for p in pairs
    )
    return "{" + ", ".join(sorted(shown)) + "}"


def mismatch_message(index: int, written: str, expected: str) -> str:
    """The text for a definition-id that is not its parameters' (the reader's too)."""
    return (
        f"Definition {index} has definition-id {shorten(written)}, but its parameter types give "
        f"{shorten(expected)}"
    )
