"""``iceview namespaces [PARENT]``: the namespaces one level below PARENT (or the top level)."""

from __future__ import annotations

import click

from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import NotFound
from iceview.cli.names import format_name, parse_namespace


@command("namespaces", "List namespaces.")
@click.argument("parent", required=False)
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
        raise NotFound(
            f"namespace {format_name(levels)} does not exist in catalog {catalog.name!r}"
        ) from None
    out = state.out
    if out.is_json:
        out.json({"catalog": catalog.name, "parent": format_name(levels) or None, "namespaces": found})
        return
    for name in found:
        out.line(name)
