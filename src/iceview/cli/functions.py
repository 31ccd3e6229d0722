"""SQL UDFs in the command line: which argument names a function, and how one is shown.

``show``, ``history`` and ``rollback`` take a view or a function: ``--function`` says it is a
function; without it a name is a view when the catalog holds one, else a function of that name; a
file is read as function metadata when its JSON has a ``function-uuid``.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from iceview.cli.errors import CliError, CliUsageError, InvalidMetadata, NotFound, metadata_problem, warn
from iceview.cli.names import format_name, parse_name
from iceview.cli.output import fit_columns, print_properties, table
from iceview.cli.times import iso_utc

if TYPE_CHECKING:
    from iceview.cli.context import State
    from iceview.cli.output import Output
    from iceview.function import Function
    from iceview.udf import FunctionMetadata

__all__ = [
    "FunctionTarget",
    "function_history_json",
    "function_json",
    "is_function_file",
    "load_function",
    "names_a_function",
    "print_function",
    "print_function_history",
    "rollback_function",
]


@dataclass
class FunctionTarget:
    """A function's metadata and where it came from."""

    label: str  # the function name (ns.name) or the file location
    kind: str  # "function" or "file"
    metadata: FunctionMetadata
    function: Function | None = None


def is_function_file(raw: bytes) -> bool:
    """Whether a metadata file's bytes (gzipped or not) hold a function: a JSON object with a
    ``function-uuid`` (view metadata has a ``view-uuid``)."""
    import orjson

    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            return False
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    return isinstance(doc, dict) and "function-uuid" in doc and "view-uuid" not in doc


def read_function_file(location: str, raw: bytes) -> FunctionTarget:
    """A function metadata file already read (``raw``, gunzipped by name or content)."""
    from iceview.errors import InvalidMetadataError
    from iceview.udf import function_metadata_from_json

    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        metadata = function_metadata_from_json(raw, metadata_location=location)
    except InvalidMetadataError as e:
        error = e.with_location(location)
        raise InvalidMetadata(f"invalid function metadata: {metadata_problem(error)}") from error
    return FunctionTarget(location, "file", metadata)


def names_a_function(state: State, name: str) -> bool:
    """Whether ``name`` names a function and no view: the catalog keeps functions, holds one of
    that name, and no view of it."""
    catalog = state.catalog()
    levels = parse_name(name)
    if len(levels) < 2 or not catalog.supports_functions():
        return False
    return not catalog.view_exists(levels) and catalog.function_exists(levels)


def load_function(state: State, name: str) -> FunctionTarget:
    """A function of the catalog, by name; :class:`NotFound` if there is none."""
    from iceview.errors import InvalidMetadataError, NoSuchFunctionError, NotFoundError

    levels = parse_name(name)
    label = format_name(levels)
    catalog = state.catalog()
    try:
        function = catalog.load_function(levels)
    except NoSuchFunctionError:
        raise NotFound(f"function {label} does not exist in catalog {catalog.name!r}") from None
    except NotFoundError as e:
        raise InvalidMetadata(f"cannot read the metadata of function {label}: {e}") from e
    except InvalidMetadataError as e:
        raise InvalidMetadata(f"invalid metadata for function {label}: {metadata_problem(e)}") from e
    return FunctionTarget(label, "function", function.metadata, function)


# ----------------------------------------------------------------------------------------- show


def _type(value: Any) -> str:
    from iceview.udf import canonical

    return canonical(value)


def function_json(target: FunctionTarget, state: State) -> dict[str, Any]:
    md = target.metadata
    from iceview.udf import function_metadata_to_dict

    doc = function_metadata_to_dict(md)
    return {
        "function": target.label if target.kind == "function" else None,
        "catalog": state.catalog().name if target.kind == "function" else None,
        "metadata-file": md.metadata_file_location,
        "uuid": md.function_uuid,
        "format-version": md.format_version,
        "location": md.location,
        "doc": md.doc,
        "secure": md.secure,
        "current-definition-versions": md.current_definition_versions,
        "definitions": doc["definitions"],
        "properties": dict(md.properties),
    }


def print_function(target: FunctionTarget, state: State) -> None:
    md = target.metadata
    out = state.out
    rows: list[tuple[str, str | Text]] = []
    if target.kind == "function":
        rows.append(("function", Text(target.label, style="bold cyan")))
        rows.append(("catalog", state.catalog().name))
    rows += [
        ("uuid", md.function_uuid),
        ("format version", str(md.format_version)),
        ("location", md.location or "-"),
        ("metadata file", md.metadata_file_location or "-"),
        ("doc", md.doc or "-"),
        ("secure", "yes" if md.secure else "no"),
        ("definitions", str(len(md.definitions))),
    ]
    out.fields(rows)
    for d in md.definitions:
        current = d.current_version
        out.blank()
        signature = ", ".join(f"{p.name} {_type(p.type)}" for p in d.parameters)
        out.line(
            ("definition ", "bold"),
            (d.definition_id or "(no parameters)", "bold magenta"),
            f": {d.function_type}({signature}) returns {_type(d.return_type)}"
            + ("" if d.return_nullable else " not null"),
        )
        details: list[tuple[str, str | Text]] = [
            (
                "current version",
                f"{current.version_id} ({state.time(current.timestamp_ms)}, {len(d.versions)} "
                f"version{'' if len(d.versions) == 1 else 's'} retained)",
            ),
            ("deterministic", "yes" if current.deterministic else "no"),
            ("on null input", current.on_null_input),
        ]
        if d.specific_name:
            details.append(("specific name", d.specific_name))
        if d.doc:
            details.append(("doc", d.doc))
        out.fields(details)
        for rep in current.representations:
            dialect = getattr(rep, "dialect", None)
            if dialect is not None:
                out.line(("SQL", "bold"), " (", (dialect, "bold magenta"), ")")
                out.code(rep.sql, "sql")  # type: ignore[union-attr]
            else:
                out.line(("representation", "bold"), f" of unknown type {rep.type!r}")
    out.blank()
    print_properties(out, md.properties)


# -------------------------------------------------------------------------------------- history


def _periods(md: FunctionMetadata) -> list[dict[str, Any]]:
    log = list(md.definition_log)
    out: list[dict[str, Any]] = []
    for i, entry in enumerate(log):
        end = log[i + 1].timestamp_ms if i + 1 < len(log) else None
        out.append(
            {
                "timestamp-ms": entry.timestamp_ms,
                "from": iso_utc(entry.timestamp_ms),
                "until": None if end is None else iso_utc(end),
                "until-ms": end,
                "current": end is None,
                "definition-versions": entry.as_mapping(),
            }
        )
    return out


def function_history_json(target: FunctionTarget) -> dict[str, Any]:
    md = target.metadata
    return {
        "function": target.label if target.kind == "function" else None,
        "metadata-file": md.metadata_file_location,
        "current-definition-versions": md.current_definition_versions,
        "history": _periods(md),
        "versions": {
            d.definition_id: [
                {
                    "version-id": v.version_id,
                    "timestamp-ms": v.timestamp_ms,
                    "created": iso_utc(v.timestamp_ms),
                    "deterministic": v.deterministic,
                    "on-null-input": v.on_null_input,
                    "dialects": list(v.dialects),
                }
                for v in sorted(d.versions, key=lambda v: v.version_id)
            ]
            for d in md.definitions
        },
    }


def print_function_history(target: FunctionTarget, state: State) -> None:
    md = target.metadata
    out = state.out
    if out.is_tabular:  # the definition log, one (period, definition) per row
        fields = ["from", "until", "current", "definition-id", "version-id"]
        rows = [
            [p["from"], p["until"], str(p["current"]).lower(), definition, version]
            for p in _periods(md)
            for definition, version in p["definition-versions"].items()
        ]
        out.delimited(fields, rows)
        return
    current = ", ".join(f"{d}: {v}" for d, v in md.current_definition_versions.items())
    out.line((target.label, "bold cyan"), f": current versions {current}")
    out.blank()
    grid = table(f"current from ({state.zone})", "until", "definition versions", title="Definition log")
    for p in _periods(md):
        pairs = ", ".join(f"{d}: {v}" for d, v in p["definition-versions"].items())
        grid.add_row(
            state.time(p["timestamp-ms"]),
            "now" if p["until-ms"] is None else state.time(p["until-ms"]),
            Text(pairs, style="bold" if p["current"] else ""),
        )
    fit_columns(grid, out.console.width)
    out.print(grid)
    for d in md.definitions:
        out.blank()
        versions = table(
            "version",
            f"created ({state.zone})",
            "deterministic",
            "on null input",
            "dialects",
            title=f"Versions of {d.definition_id or '(no parameters)'}",
        )
        for v in sorted(d.versions, key=lambda v: v.version_id):
            mark = " (current)" if v.version_id == d.current_version_id else ""
            versions.add_row(
                str(v.version_id) + mark,
                state.time(v.timestamp_ms),
                "yes" if v.deterministic else "no",
                v.on_null_input,
                ", ".join(v.dialects),
            )
        fit_columns(versions, out.console.width)
        out.print(versions)


# ------------------------------------------------------------------------------------- rollback


def _versions_at(target: FunctionTarget, moment: int, state: State) -> dict[str, int]:
    md = target.metadata
    entry = None
    for candidate in md.definition_log:
        if candidate.timestamp_ms <= moment:
            entry = candidate
    if entry is None:
        first = md.definition_log[0].timestamp_ms if md.definition_log else None
        since = f"; its definition log starts at {state.time(first)}" if first is not None else ""
        raise NotFound(f"no version of {target.label} was current at {state.time(moment)}{since}")
    wanted: dict[str, int] = {}
    for definition_id, version_id in entry.as_mapping().items():
        d = md.definition(definition_id)
        if d is None:
            continue  # removed since: nothing to roll back
        if d.version(version_id) is None:
            raise NotFound(
                f"version {version_id} of definition {definition_id} was current in {target.label} at "
                f"{state.time(moment)}, but it is no longer retained"
            )
        wanted[d.definition_id] = version_id
    return wanted


no_sync_views_option = click.option(
    "--no-sync-views",
    "no_sync_views",
    is_flag=True,
    help="For a function: leave the views that inlined it as they are (iceview dialects sync "
    "derives them again later).",
)
"""``--no-sync-views`` of the commands that change a function's definitions (``rollback``,
``add-dialect``)."""


def refuse_function_options(given: dict[str, object]) -> None:
    """For a view: a usage error naming the first option given that is for functions only."""
    for option, value in given.items():
        if value:
            raise CliUsageError(f"{option} is for functions", click.get_current_context())


def synced_views_json(function: Function) -> dict[str, Any]:
    """What a commit through ``function`` did to the views that inlined it (:attr:`Function.synced`)."""
    done = function.synced
    return {
        "synced": list(done.synced) if done else [],
        "in-step": list(done.in_step) if done else [],
        "failed": [{"view": v, "error": e} for v, e in done.failed] if done else [],
    }


def say_synced_views(out: Output, function: Function) -> None:
    """The views a commit through ``function`` derived again, and a warning for each it could not."""
    done = function.synced
    if done is None:
        return
    if done.synced:
        out.line(f"views derived again: {', '.join(done.synced)}")
    for view, error in done.failed:
        warn(f"{view}: its dialects were not derived again, nothing was committed for it: {error}")


def rollback_function(
    state: State,
    target: FunctionTarget,
    to: int | None,
    moment: int | None,
    definition: str | None,
    sync_views: bool = True,
) -> None:
    """``iceview rollback --function``: one definition to version ``to``, or every definition to
    its version at ``moment`` (one commit); then, with ``sync_views``, the views that inlined it
    are derived again."""
    from iceview.cli.interrupts import committing

    md = target.metadata
    assert target.function is not None
    if moment is not None:
        if definition is not None:
            raise CliError("--definition goes with --to; --at rolls back every definition")
        wanted = _versions_at(target, moment, state)
    else:
        assert to is not None
        if definition is None:
            if len(md.definitions) != 1:
                ids = ", ".join(repr(d.definition_id) for d in md.definitions)
                raise CliError(
                    f"{target.label} has {len(md.definitions)} definitions: give --definition (one of {ids})"
                )
            definition = md.definitions[0].definition_id
        found = md.definition(definition)
        if found is None:
            ids = ", ".join(repr(d.definition_id) for d in md.definitions)
            raise NotFound(f"{target.label} has no definition {definition!r} (its definitions: {ids})")
        if found.version(to) is None:
            known = ", ".join(str(i) for i in sorted(found.version_ids))
            raise NotFound(
                f"definition {found.definition_id!r} of {target.label} has no version {to} (its versions: {known})"
            )
        wanted = {found.definition_id: to}
    before = md.current_definition_versions
    changed = {d: v for d, v in wanted.items() if before.get(d) != v}
    location = md.metadata_file_location
    if changed:
        with committing("the rollback"):
            target.function.set_current_versions(changed, sync_views=sync_views)
        location = target.function.metadata_location
    out = state.out
    if out.is_json:
        out.json(
            {
                "function": target.label,
                "previous-definition-versions": before,
                "current-definition-versions": {**before, **wanted},
                "changed": bool(changed),
                "metadata-file": location,
                "views": synced_views_json(target.function),
            }
        )
    elif not changed:
        out.line(f"{target.label}: those versions are already current; nothing changed")
    else:
        moves = ", ".join(f"{d} {before[d]} -> {v}" for d, v in changed.items())
        out.line((target.label, "bold cyan"), f": current version of {moves}")
        say_synced_views(out, target.function)
