"""``iceview orphans VIEW``: the metadata files of a view that nothing points at, and their removal
(the library's :func:`iceview.catalog.orphans.metadata_orphans`)."""

from __future__ import annotations

from datetime import timedelta

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.names import format_name, parse_name
from iceview.cli.suggest import no_such_view


def _duration(ctx: click.Context, param: click.Parameter, value: str) -> float:
    from iceview.cli.times import parse_duration

    try:
        return parse_duration(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


@command("orphans", "List (or delete) a view's unreferenced metadata files.")
@click.argument("view", shell_complete=completion.views)
@click.option(
    "--delete", is_flag=True, help="Delete the orphans older than --older-than (inside the warehouse only)."
)
@click.option(
    "--older-than",
    default="1h",
    show_default=True,
    metavar="DURATION",
    callback=_duration,
    help="With --delete, only orphans at least this old are deleted (s, m, h, d; e.g. 30m, 7d).",
)
@common_options
@pass_state
def orphans(state: State, view: str, delete: bool, older_than: float) -> None:
    """List the metadata files in VIEW's metadata folder that hold the view but that no entry of
    the catalog points at (files of replaced versions, or of commits that failed). With --delete,
    remove those older than --older-than (default 1h, so that a concurrent writer's file is never
    removed), and only inside the catalog's warehouse."""
    from iceview.catalog.orphans import metadata_orphans
    from iceview.errors import NoSuchViewError

    levels = parse_name(view)
    label = format_name(levels)
    catalog = state.catalog()
    try:
        report = metadata_orphans(catalog, levels, delete=delete, older_than=timedelta(seconds=older_than))
    except NoSuchViewError:
        raise no_such_view(catalog, levels) from None
    out = state.out
    if out.is_json:
        out.json(
            {
                "view": label,
                "folder": report.folder,
                "orphans": [
                    {
                        "location": o.location,
                        "size": o.size,
                        "age-seconds": round(o.age_s, 3),
                        "deleted": o.deleted,
                        **({"kept-because": o.kept_because} if o.kept_because else {}),
                    }
                    for o in report.orphans
                ],
            }
        )
        return
    if not report.orphans:
        out.line("no orphan metadata files in ", (report.folder, "bold"))
        return
    for orphan in report.orphans:
        if orphan.deleted:
            out.line(orphan.location, ("  deleted", "green"))
        elif orphan.kept_because:
            out.line(orphan.location, (f"  kept: {orphan.kept_because}", "yellow"))
        else:
            out.line(orphan.location)
    deleted = sum(1 for o in report.orphans if o.deleted)
    count = len(report.orphans)
    summary = f"{count} orphan metadata file{'s' if count != 1 else ''} in {report.folder}"
    if delete:
        summary += f", {deleted} deleted"
    out.line((summary, "dim"))
