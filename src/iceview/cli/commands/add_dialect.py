"""``iceview add-dialect VIEW DIALECT...``: add translated SQL representations to a view.

Not available yet: it comes with the cross-engine work (dialect translation with sqlglot).
"""

from __future__ import annotations

import click

from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import NotAvailable


@command("add-dialect", "Add SQL dialects to a view (not available yet).")
@click.argument("view")
@click.argument("dialects", nargs=-1, required=True, metavar="DIALECT...")
@common_options
@pass_state
def add_dialect(state: State, view: str, dialects: tuple[str, ...]) -> None:
    """Add SQL for DIALECT(s) to VIEW, translated from its current SQL (not available yet)."""
    raise NotAvailable("add-dialect: dialect translation is not available in this version")
