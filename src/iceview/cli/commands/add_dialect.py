"""``iceview add-dialect VIEW DIALECT...``: add translated SQL representations to a view.

One new version (:meth:`iceview.view.View.add_dialects`): same schema, defaults and
representations, plus the translations; its summary records ``iceview.translated-from``. Every
dialect is translated before anything is written: when any is refused, every refused dialect and
construct is named (exit 7) and nothing is committed.
"""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import CliUsageError, TranslationRefused
from iceview.cli.functions import (
    load_function,
    names_a_function,
    no_sync_views_option,
    refuse_function_options,
    say_synced_views,
    synced_views_json,
)
from iceview.cli.interrupts import committing
from iceview.cli.targets import Target, load_view
from iceview.cli.translation import (
    DIALECTS,
    function_refusals_json,
    inlined_sql,
    issues_json,
    issues_of,
    refusals,
    refused,
    relation_schemas,
    source_representation,
)

DIALECT = click.Choice(DIALECTS, case_sensitive=False)


@command("add-dialect", "Add SQL dialects to a view, translated from its SQL.")
@click.argument("view", shell_complete=completion.views)
@click.argument("dialects", nargs=-1, required=True, metavar="DIALECT...", type=DIALECT)
@click.option(
    "--from",
    "from_dialect",
    type=DIALECT,
    help="Which of the view's SQL to translate (default: spark, else its first).",
)
@click.option("--function", "function", is_flag=True, help="VIEW is a SQL UDF (function), not a view.")
@click.option(
    "--definition",
    "definitions",
    multiple=True,
    metavar="SIGNATURE",
    help="For a function: only this definition (its signature, e.g. 'int,string'); repeatable.",
)
@no_sync_views_option
@common_options
@pass_state
def add_dialect(
    state: State,
    view: str,
    dialects: tuple[str, ...],
    from_dialect: str | None,
    function: bool,
    definitions: tuple[str, ...],
    no_sync_views: bool,
) -> None:
    """Add SQL for each DIALECT (spark, trino, duckdb) to VIEW, translated from its current SQL, in
    one new version that keeps the schema, the defaults and the existing SQL. Dialects the view
    already has are left alone. If any construct cannot be translated safely, nothing is
    committed and each is named (exit 7).

    For a function (a name holding no view but a function, or --function), each definition that
    lacks a DIALECT gets a new current version with its body translated, all in one commit; then
    the views that inlined it are derived again (unless --no-sync-views)."""
    from iceview.errors import FunctionInliningError, FunctionResolutionError, TranslationError
    from iceview.sql.translate import spark_ansi_mode

    if function or names_a_function(state, view):
        _add_to_function(state, view, dialects, from_dialect, definitions, not no_sync_views)
        return
    refuse_function_options({"--definition": definitions, "--no-sync-views": no_sync_views})
    target = load_view(state, view)
    assert target.view is not None
    catalog = state.catalog()
    before = target.metadata.current_version
    present = {d.lower() for d in before.dialects}
    wanted: list[str] = []
    already: list[str] = []
    for dialect in (d.lower() for d in dialects):
        bucket = already if dialect in present else wanted
        if dialect not in bucket:
            bucket.append(dialect)
    source = source_representation(target, from_dialect)
    source_dialect = source.dialect.lower()
    out = state.out
    if not wanted:
        _report(state, target, before.version_id, before.version_id, [], already, source_dialect)
        return

    # the schemas of what the SQL reads, looked up here: when the SQL does not parse there are none,
    # and add_dialects refuses the translation (its own look-up would raise SQLParseError instead)
    try:
        # of the SQL add_dialects translates: with the catalog's SQL UDF calls inlined
        inlined = inlined_sql(
            catalog,
            source.sql,
            source_dialect,
            before.default_catalog or catalog.name,
            before.default_namespace,
            spark_ansi_mode(before.summary, target.metadata.properties),
        )
    except (FunctionInliningError, FunctionResolutionError):
        inlined = source.sql  # add_dialects raises it again, and it is reported below
    schemas = relation_schemas(
        catalog,
        inlined,
        source_dialect,
        default_catalog=before.default_catalog,
        default_namespace=before.default_namespace,
    )
    try:
        with committing("adding the dialects"):
            target.view.add_dialects(wanted, source=source_dialect, schemas=schemas or {})
    except (FunctionInliningError, FunctionResolutionError, TranslationError) as e:
        if isinstance(e, TranslationError):
            message = refused(f"{target.label}: nothing was committed: ", e).format_message()
            by_dialect = {d: issues_json(issues_of(error)) for d, error in refusals(e, wanted).items()}
        else:  # a call of the catalog's SQL UDFs that cannot be inlined: no dialect can be written
            message = f"{target.label}: nothing was committed: {e}"
            by_dialect = {d: [] for d in wanted}
        if out.is_json:
            out.json(
                {
                    "view": target.label,
                    "changed": False,
                    "version-id": before.version_id,
                    "translated-from": source_dialect,
                    "refused": by_dialect,
                    "error": message,
                    "metadata-file": target.metadata.metadata_file_location,
                }
            )
            click.get_current_context().exit(TranslationRefused.exit_code)
        raise TranslationRefused(message) from e

    after = target.view.metadata.current_version
    added = [d for d in after.dialects if d.lower() not in present]
    _report(state, target, before.version_id, after.version_id, added, already, source_dialect)


def _report(
    state: State,
    target: Target,
    before: int,
    after: int,
    added: list[str],
    already: list[str],
    source: str,
) -> None:
    out = state.out
    view = target.view
    location = view.metadata_location if view is not None else target.metadata.metadata_file_location
    if out.is_json:
        out.json(
            {
                "view": target.label,
                "changed": bool(added),
                "previous-version-id": before,
                "version-id": after,
                "added": added,
                "already-present": already,
                "translated-from": source if added else None,
                "metadata-file": location,
            }
        )
        return
    had = f"{'it already had' if added else 'it already has'} {', '.join(already)}"
    if not added:
        out.line((target.label, "bold cyan"), f": {had}; nothing changed")
        return
    tail = f"; {had}" if already else ""
    out.line(
        (target.label, "bold cyan"),
        f": version {after} adds {', '.join(added)} (translated from {source}){tail}",
    )


def _add_to_function(
    state: State,
    name: str,
    dialects: tuple[str, ...],
    source: str | None,
    definitions: tuple[str, ...],
    sync_views: bool,
) -> None:
    from iceview.errors import InvalidArgumentError
    from iceview.function.dialects import FunctionDialectsRefusedError

    target = load_function(state, name)
    assert target.function is not None
    out = state.out
    before = target.function.metadata.current_definition_versions
    try:
        with committing("adding the dialects"):
            target.function.add_dialects(
                [d.lower() for d in dialects],
                source=source,
                definitions=list(definitions) or None,
                sync_views=sync_views,
            )
    except InvalidArgumentError as e:
        raise CliUsageError(str(e), click.get_current_context()) from e
    except FunctionDialectsRefusedError as e:
        message = f"{target.label}: nothing was committed: {e}"
        if out.is_json:
            out.json(
                {
                    "function": target.label,
                    "changed": False,
                    "refused": function_refusals_json(e),
                    "error": message,
                }
            )
            click.get_current_context().exit(TranslationRefused.exit_code)
        raise TranslationRefused(message) from e
    after = target.function.metadata.current_definition_versions
    changed = {d: v for d, v in after.items() if before.get(d) != v}
    if out.is_json:
        out.json(
            {
                "function": target.label,
                "changed": bool(changed),
                "definition-versions": after,
                "new-versions": changed,
                "metadata-file": target.function.metadata_location,
                "views": synced_views_json(target.function),
            }
        )
        return
    if not changed:
        out.line(
            (target.label, "bold cyan"), ": every definition already has these dialects; nothing changed"
        )
        return
    shown = ", ".join(f"({d}) version {v}" for d, v in changed.items())
    verb = "adds" if len(changed) == 1 else "add"
    out.line((target.label, "bold cyan"), f": {shown} {verb} {', '.join(d.lower() for d in dialects)}")
    say_synced_views(out, target.function)
