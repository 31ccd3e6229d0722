"""``iceview namespaces [PARENT]``: the namespaces one level below PARENT (or the top level)."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.names import format_name, parse_namespace
from iceview.cli.suggest import no_such_namespace


@command("namespaces", "List namespaces.", tabular=True)
@click.argument("parent", required=False, shell_complete=completion.namespaces)
@common_options
@pass_state
def namespaces(state: State, parent: str | None) -> None:
    """List the namespaces in PARENT (default: the top-level namespaces)."""
    from iceview.errors import NoSuchNamespaceError

    levels = parse_namespace(parent)
    catalog = state.catalog()
    try:
        found = [format_name(ns) for ns in catalog.list_namespaces(levels)]
    except NoSuchNamespaceError:
        raise no_such_namespace(catalog, levels) from None
    state.out.rows(
        ["namespace"],
        [[name] for name in found],
        {"catalog": catalog.name, "parent": format_name(levels) or None, "namespaces": found},
        plain=True,
    )
