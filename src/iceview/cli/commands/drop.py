"""``iceview drop VIEW``: remove a view from its catalog, after confirmation."""

from __future__ import annotations

import sys

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import CliError, CliUsageError, NotFound
from iceview.cli.interrupts import committing
from iceview.cli.names import format_name, parse_name
from iceview.cli.status import hide
from iceview.cli.suggest import no_such_view


def stdin_is_interactive() -> bool:
    """Whether a person can answer a question (tests replace this)."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


@command("drop", "Drop a view.")
@click.argument("view", shell_complete=completion.views)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@common_options
@pass_state
def drop(state: State, view: str, yes: bool) -> None:
    """Drop VIEW: remove it from the catalog and delete its current metadata file (unless the
    view's gc.enabled is false). Asks first unless --yes is given."""
    levels = parse_name(view)
    label = format_name(levels)
    catalog = state.catalog()
    if not catalog.view_exists(levels):
        raise no_such_view(catalog, levels)
    if not yes:
        if not stdin_is_interactive():
            raise CliUsageError(
                f"refusing to drop {label} without confirmation: stdin is not a terminal (pass --yes)",
                click.get_current_context(),
            )
        hide()  # the progress line, if the catalog was slow to answer
        if not click.confirm(f"Drop view {label} from catalog {catalog.name!r}?", default=False, err=True):
            raise CliError(f"{label} was not dropped")
    with committing("the drop"):
        dropped = catalog.drop_view(levels)
    if not dropped:
        raise NotFound(f"view {label} does not exist in catalog {catalog.name!r}")
    out = state.out
    if out.is_json:
        out.json({"view": label, "catalog": catalog.name, "dropped": True})
    else:
        out.line((label, "bold cyan"), f" dropped from catalog {catalog.name!r}")
