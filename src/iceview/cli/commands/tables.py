"""``iceview tables [NAMESPACE]``: the tables at and below a namespace (default: the whole catalog),
the relations a view's SQL reads."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.names import format_name, parse_namespace
from iceview.cli.suggest import no_such_namespace
from iceview.cli.walk import walk


@command("tables", "List tables.", tabular=True)
@click.argument("namespace", required=False, shell_complete=completion.namespaces)
@common_options
@pass_state
def tables(state: State, namespace: str | None) -> None:
    """List the tables in NAMESPACE and the namespaces below it (default: every table)."""
    levels = parse_namespace(namespace)
    catalog = state.catalog()
    if levels and not catalog.namespace_exists(levels):
        raise no_such_namespace(catalog, levels)
    found = [format_name(t) for t in walk(catalog, "tables", levels)]
    state.out.rows(
        ["table"],
        [[name] for name in found],
        {"catalog": catalog.name, "namespace": format_name(levels) or None, "tables": found},
        plain=True,
    )
