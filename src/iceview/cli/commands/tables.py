"""``iceview tables [NAMESPACE]``: the tables at and below a namespace (default: the whole catalog),
the relations a view's SQL reads."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.commands.list_views import print_below
from iceview.cli.context import State, command, common_options, pass_state


@command("tables", "List tables.", tabular=True)
@click.argument("namespace", required=False, shell_complete=completion.namespaces)
@common_options
@pass_state
def tables(state: State, namespace: str | None) -> None:
    """List the tables in NAMESPACE and the namespaces below it (default: every table)."""
    print_below(state, namespace, "tables")
