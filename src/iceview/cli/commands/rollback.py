"""``iceview rollback NAME --to N | --at TIMESTAMP``: make an earlier version of a view, or of a
function's definitions, current again."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import CliError, CliUsageError, NotFound
from iceview.cli.functions import (
    load_function,
    names_a_function,
    no_sync_views_option,
    refuse_function_options,
    rollback_function,
)
from iceview.cli.interrupts import committing
from iceview.cli.targets import load_view, require_version
from iceview.cli.times import parse_timestamp


@command("rollback", "Make an earlier version current again.")
@click.argument("view", metavar="NAME", shell_complete=completion.views)
@click.option("--to", "to", type=int, metavar="N", help="The version id to make current.")
@click.option(
    "--at",
    "at",
    metavar="TIMESTAMP",
    help="Make current the version that was current at this time: ISO-8601 (UTC unless an offset "
    "is given), or epoch time with its unit (1714566600000ms, 1714566600s; a bare number of 12 "
    "digits or more is milliseconds).",
)
@click.option("--function", "function", is_flag=True, help="NAME is a SQL UDF (function), not a view.")
@click.option(
    "--definition",
    "definition",
    metavar="ID",
    help="For a function: the definition (its signature, e.g. 'int,string') whose version --to "
    "names; needed when the function has more than one.",
)
@no_sync_views_option
@common_options
@pass_state
def rollback(
    state: State,
    view: str,
    to: int | None,
    at: str | None,
    function: bool,
    definition: str | None,
    no_sync_views: bool,
) -> None:
    """Make version N of view NAME current again (or the version that was current at TIMESTAMP).
    For a function, version N of one definition (--definition), or with --at every definition's
    version of that time. The log records the change; nothing is deleted. A function's rollback
    then derives again the views that inlined it (unless --no-sync-views)."""
    from iceview.errors import DialectDropError

    if (to is None) == (at is None):
        raise CliUsageError("give exactly one of --to N and --at TIMESTAMP", click.get_current_context())
    moment = parse_timestamp(at) if at is not None else None
    if function or names_a_function(state, view):
        rollback_function(state, load_function(state, view), to, moment, definition, not no_sync_views)
        return
    refuse_function_options({"--definition": definition is not None, "--no-sync-views": no_sync_views})
    target = load_view(state, view)
    md = target.metadata
    assert target.view is not None
    before = md.current_version_id
    if moment is not None:
        found = md.history.version_at(moment)
        if found is None:
            first = md.history[0].timestamp_ms if len(md.history) else None
            since = f"; its version log starts at {state.time(first)}" if first is not None else ""
            raise NotFound(f"no version of {target.label} was current at {state.time(moment)}{since}")
        if found not in md.version_ids:
            raise NotFound(
                f"version {found} was current in {target.label} at {state.time(moment)}, but it is no longer retained"
            )
        to = found
    assert to is not None
    require_version(target, to)
    out = state.out
    if to == before:
        message = f"{target.label}: version {to} is already current; nothing changed"
        if out.is_json:
            out.json(_result(target.label, before, to, False, md.metadata_file_location))
        else:
            out.line(message)
        return
    try:
        with committing("the rollback"):
            target.view.set_current_version(to)
    except DialectDropError as e:
        raise CliError(
            f"{e} (to allow it: iceview set-property {target.label} replace.drop-dialect.allowed true)"
        ) from e
    location = target.view.metadata_location
    if out.is_json:
        out.json(_result(target.label, before, to, True, location))
    else:
        out.line((target.label, "bold cyan"), f": current version {before} -> {to}")


def _result(view: str, before: int, after: int, changed: bool, location: str | None) -> dict[str, object]:
    return {
        "view": view,
        "previous-version-id": before,
        "current-version-id": after,
        "changed": changed,
        "metadata-file": location,
    }
