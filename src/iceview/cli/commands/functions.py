"""``iceview functions [NAMESPACE]``: the SQL UDFs at and below a namespace (default: all)."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.commands.list_views import print_below
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import CliError


@command("functions", "List SQL UDFs (functions).", tabular=True)
@click.argument("namespace", required=False, shell_complete=completion.namespaces)
@common_options
@pass_state
def functions(state: State, namespace: str | None) -> None:
    """List the functions in NAMESPACE and the namespaces below it (default: every function)."""
    catalog = state.catalog()
    if not catalog.supports_functions():
        raise CliError(f"catalog {catalog.name!r} ({catalog.catalog_type}) keeps no SQL UDFs")
    print_below(state, namespace, "functions")
