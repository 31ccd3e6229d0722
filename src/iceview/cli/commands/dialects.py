"""``iceview dialects sync VIEW|--all``: derive a view's dialects again (``iceview.derive-dialects``,
and translated dialects that inlined a SQL UDF that changed since).

Where iceview is not on the write path (Iceberg-Spark writing a catalog's shared JDBC tables), a
new version carries only the SQL its engine wrote. ``sync`` derives the dialects the view's
property asks for from the current version's SQL and commits them in a new version
(:meth:`iceview.view.View.sync_dialects`); a view already in step is left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from iceview.catalog.walk import walk
from iceview.cli import completion
from iceview.cli.context import IceviewGroup, State, command, common_options, pass_state
from iceview.cli.errors import CliUsageError, ExitCode, warn
from iceview.cli.errors import translate as translate_error
from iceview.cli.interrupts import committing
from iceview.cli.names import format_name
from iceview.cli.output import Output
from iceview.cli.targets import load_view

if TYPE_CHECKING:
    from iceview.view import View


@click.group("dialects", cls=IceviewGroup, short_help="Keep a view's derived dialects in step.")
def dialects() -> None:
    """A view's derived dialects (view property iceview.derive-dialects, docs/translation.md)."""


@command("sync", "Derive a view's dialects again from its current SQL.")
@click.argument("view", required=False, shell_complete=completion.views)
@click.option(
    "--all",
    "all_views",
    is_flag=True,
    help="Every view of the catalog that derives dialects or whose dialects inlined a changed function.",
)
@common_options
@pass_state
def sync(state: State, view: str | None, all_views: bool) -> None:
    """Derive the dialects VIEW's iceview.derive-dialects property asks for from its current SQL,
    in a new version, when the current version lacks them (e.g. after Iceberg-Spark replaced it on
    the shared JDBC tables), or when they inlined a SQL UDF definition that has changed since. A
    dialect that cannot be translated safely is left out and the version summary records why.
    Nothing is committed when the view is in step. With --all, every view of the catalog that
    derives dialects, or whose translated dialects inlined a function that changed."""
    from iceview.errors import IceviewError, NoSuchViewError
    from iceview.view.functions import wants_sync

    ctx = click.get_current_context()
    if all_views == (view is not None):
        raise CliUsageError("give a view name or --all (not both)", ctx)
    out = state.out
    if view is not None:
        target = load_view(state, view)
        assert target.view is not None
        result = _sync(target.label, target.view)
        if out.is_json:
            out.json(result)
        else:
            _say(out, result)
        return
    results = []
    failed: list[dict[str, str]] = []
    for levels in walk(state.catalog(), "views"):
        label = format_name(levels)
        try:
            found = state.catalog().load_view(levels)
        except NoSuchViewError:
            continue  # dropped meanwhile
        if not wants_sync(found.metadata, state.catalog()):
            continue
        try:
            result = _sync(label, found)
        except IceviewError as e:  # one view that cannot be synced does not stop the others
            message = translate_error(e).format_message()
            failed.append({"view": label, "error": message})
            if not out.is_json:
                warn(f"{label}: not synced, nothing was committed: {message}")
            continue
        results.append(result)
        if not out.is_json:
            _say(out, result)
    if out.is_json:
        out.json({"views": results, "changed": sum(1 for r in results if r["changed"]), "failed": failed})
    elif not results and not failed:
        out.line("no view derives dialects or inlined a function that changed")
    if failed:
        ctx.exit(int(ExitCode.FAILURE))


def _sync(label: str, view: View) -> dict[str, Any]:
    from iceview.view.derived import derived_dialects, refusals

    before = view.metadata.current_version
    with committing(f"the dialects' sync of {label}"):
        synced = view.sync_dialects()
    after = synced.metadata.current_version
    return {
        "view": label,
        "changed": after.version_id != before.version_id,
        "previous-version-id": before.version_id,
        "version-id": after.version_id,
        "dialects": list(after.dialects),
        "derived": sorted(derived_dialects(after)),
        "refused": refusals(after),
        "metadata-file": synced.metadata_location,
    }


def _say(out: Output, result: dict[str, Any]) -> None:
    what = f"version {result['version-id']} derives {', '.join(result['derived']) or 'nothing'}"
    if result["refused"]:
        what += "; refused: " + "; ".join(f"{d} ({codes})" for d, codes in result["refused"].items())
    if not result["changed"]:
        out.line((result["view"], "bold cyan"), f": in step ({what}); nothing changed")
        return
    out.line((result["view"], "bold cyan"), f": {what} (was version {result['previous-version-id']})")


dialects.add_command(sync)
