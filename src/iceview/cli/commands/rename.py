"""``iceview rename VIEW NEW``: rename a view (and move it to another namespace)."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import NotFound
from iceview.cli.interrupts import committing
from iceview.cli.names import format_name, parse_name
from iceview.cli.suggest import no_such_view


@command("rename", "Rename a view.")
@click.argument("view", shell_complete=completion.views)
@click.argument("new")
@common_options
@pass_state
def rename(state: State, view: str, new: str) -> None:
    """Rename VIEW to NEW. NEW without a namespace keeps the view's namespace; ns.name moves it.
    Only the catalog entry changes: the metadata files stay where they are."""
    from iceview.errors import NoSuchNamespaceError, NoSuchViewError

    source = parse_name(view)
    target = parse_name(new)
    if len(target) == 1:
        target = (*source[:-1], target[0])
    catalog = state.catalog()
    try:
        with committing("the rename"):
            catalog.rename_view(source, target)
    except NoSuchViewError:
        raise no_such_view(catalog, source) from None
    except NoSuchNamespaceError:
        raise NotFound(
            f"cannot rename {format_name(source)} to {format_name(target)}: namespace "
            f"{format_name(target[:-1])} does not exist in catalog {catalog.name!r}"
        ) from None
    out = state.out
    if out.is_json:
        out.json({"view": format_name(source), "renamed-to": format_name(target)})
    else:
        out.line((format_name(source), "bold cyan"), " renamed to ", (format_name(target), "bold cyan"))
