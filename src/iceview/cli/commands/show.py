"""``iceview show NAME``: the current version of a view, or a SQL UDF's definitions (or a metadata
file of either)."""

from __future__ import annotations

import click
from rich.text import Text

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.describe import namespace_text, schema_json, summary_text, version_json
from iceview.cli.functions import FunctionTarget, function_json, print_function
from iceview.cli.output import Output, print_properties, table
from iceview.cli.schemas import columns
from iceview.cli.targets import Target, load_view_or_function
from iceview.spec import SQLRepresentation


@command("show", "Show a view's current version, or a function's definitions.")
@click.argument("view", metavar="NAME", shell_complete=completion.views)
@click.option("--function", "function", is_flag=True, help="NAME is a SQL UDF (function), not a view.")
@common_options
@pass_state
def show(state: State, view: str, function: bool) -> None:
    """Show NAME: a view's current SQL per dialect, schema, properties, location, uuid and metadata
    file; or a function's definitions (signature, return type, current version and SQL per
    dialect), properties and files. NAME is a view or function name (ns.name) or a metadata file; a
    name that holds no view but a function shows the function (--function: always a function)."""
    found = load_view_or_function(state, view, function)
    if isinstance(found, FunctionTarget):
        if state.out.is_json:
            state.out.json(function_json(found, state))
        else:
            print_function(found, state)
        return
    target = found
    if state.out.is_json:
        state.out.json(_json(target, state))
    else:
        _text(target, state.out, state)


def _json(target: Target, state: State) -> dict[str, object]:
    md = target.metadata
    current = md.current_version
    return {
        "view": target.label if target.kind == "view" else None,
        "catalog": state.catalog().name if target.kind == "view" else None,
        "metadata-file": md.metadata_file_location,
        "uuid": md.uuid,
        "format-version": md.format_version,
        "location": md.location,
        "current-version-id": md.current_version_id,
        "current-version": version_json(current),
        "schema": schema_json(md, current.schema_id),
        "properties": dict(md.properties),
        **({"functions": [".".join(f) for f in _functions(target, state)]} if target.kind == "view" else {}),
    }


def _functions(target: Target, state: State) -> list[tuple[str, ...]]:
    """The catalog's SQL UDFs a view calls (none when the catalog keeps none)."""
    catalog = state.catalog()
    if not catalog.supports_functions():
        return []
    from iceview.view.functions import called_functions

    return called_functions(target.metadata, catalog)


def _text(target: Target, out: Output, state: State) -> None:
    md = target.metadata
    current = md.current_version
    schema = md.schema
    rows: list[tuple[str, str | Text]] = []
    if target.kind == "view":
        rows.append(("view", Text(target.label, style="bold cyan")))
        rows.append(("catalog", state.catalog().name))
    rows += [
        ("uuid", md.uuid),
        ("format version", str(md.format_version)),
        ("location", md.location),
        ("metadata file", md.metadata_file_location or "-"),
        (
            "current version",
            Text.assemble(
                (str(current.version_id), "bold"),
                f" ({current.operation}, {state.time(current.timestamp_ms)}, "
                f"{len(md.versions)} version{'' if len(md.versions) == 1 else 's'} retained)",
            ),
        ),
        ("summary", summary_text(current.summary)),
        ("default namespace", namespace_text(current.default_namespace)),
        ("default catalog", current.default_catalog or "(the view's catalog)"),
    ]
    called = _functions(target, state) if target.kind == "view" else []
    if called:
        rows.append(("functions", ", ".join(".".join(f) for f in called)))
    out.fields(rows)

    out.blank()
    grid = table("id", "name", "type", "required", "doc", title=f"Schema {schema.schema_id}")
    for column in columns(schema):
        grid.add_row(
            str(column.id),
            ("  " * column.depth + column.path.rsplit(".", 1)[-1]) if column.depth else column.path,
            column.type,
            "yes" if column.required else "no",
            column.doc or "",
        )
    out.print(grid)

    from iceview.view.derived import derived_dialects, refusals

    derived = derived_dialects(current)
    source = current.summary.get("iceview.translated-from", "its SQL")
    for rep in current.representations:
        out.blank()
        if isinstance(rep, SQLRepresentation):
            how = f", derived from {source}" if rep.dialect.lower() in derived else ""
            out.line(("SQL", "bold"), " (", (rep.dialect, "bold magenta"), how, ")")
            out.code(rep.sql, "sql")
        else:
            out.line(("representation", "bold"), f" of unknown type {rep.type!r}: {dict(rep.raw)}")
    for dialect, codes in refusals(current).items():
        out.blank()
        out.line(("SQL", "bold"), " (", (dialect, "bold magenta"), f"): not derived, refused: {codes}")

    out.blank()
    print_properties(out, md.properties)
