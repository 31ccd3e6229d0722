"""``iceview tables [NAMESPACE]``: the tables at and below a namespace (default: the whole catalog),
the relations a view's SQL reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.names import format_name, parse_namespace
from iceview.cli.suggest import no_such_namespace

if TYPE_CHECKING:
    from iceview.catalog import Catalog


def _walk_tables(catalog: Catalog, namespace: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if namespace:
        yield from sorted(tuple(t) for t in catalog.list_tables(namespace))
    for child in catalog.list_namespaces(namespace):
        yield from _walk_tables(catalog, tuple(child))


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
    found = [format_name(t) for t in _walk_tables(catalog, levels)]
    state.out.rows(
        ["table"],
        [[name] for name in found],
        {"catalog": catalog.name, "namespace": format_name(levels) or None, "tables": found},
        plain=True,
    )
