"""``iceview list [NAMESPACE]``: the views at and below a namespace (default: the whole catalog)."""

from __future__ import annotations

from typing import Literal

import click

from iceview.catalog.walk import walk
from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.names import format_name, parse_namespace
from iceview.cli.suggest import no_such_namespace


@command("list", "List views.", tabular=True)
@click.argument("namespace", required=False, shell_complete=completion.namespaces)
@common_options
@pass_state
def list_views(state: State, namespace: str | None) -> None:
    """List the views in NAMESPACE and the namespaces below it (default: every view)."""
    print_below(state, namespace, "views")


def print_below(state: State, namespace: str | None, kind: Literal["views", "tables", "functions"]) -> None:
    """Print the views (tables, functions) at and below ``namespace``: ``list``, ``tables`` and
    ``functions``."""
    levels = parse_namespace(namespace)
    catalog = state.catalog()
    if levels and not catalog.namespace_exists(levels):
        raise no_such_namespace(catalog, levels)
    found = [format_name(name) for name in walk(catalog, kind, levels)]
    state.out.rows(
        [kind.removesuffix("s")],
        [[name] for name in found],
        {"catalog": catalog.name, "namespace": format_name(levels) or None, kind: found},
        plain=True,
    )
