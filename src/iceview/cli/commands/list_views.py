"""``iceview list [NAMESPACE]``: the views at and below a namespace (default: the whole catalog)."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.names import format_name, parse_namespace
from iceview.cli.suggest import no_such_namespace
from iceview.cli.walk import walk


@command("list", "List views.", tabular=True)
@click.argument("namespace", required=False, shell_complete=completion.namespaces)
@common_options
@pass_state
def list_views(state: State, namespace: str | None) -> None:
    """List the views in NAMESPACE and the namespaces below it (default: every view)."""
    levels = parse_namespace(namespace)
    catalog = state.catalog()
    if levels and not catalog.namespace_exists(levels):
        raise no_such_namespace(catalog, levels)
    found = [format_name(view) for view in walk(catalog, "views", levels)]
    state.out.rows(
        ["view"],
        [[name] for name in found],
        {"catalog": catalog.name, "namespace": format_name(levels) or None, "views": found},
        plain=True,
    )
