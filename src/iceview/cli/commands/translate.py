"""``iceview translate``: SQL of one dialect in another (SQL text, or a view's SQL).

Not available yet: it comes with the cross-engine work (dialect translation with sqlglot). The
command's arguments are fixed now so that scripts and docs do not change when it lands.
"""

from __future__ import annotations

import click

from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import NotAvailable


@command("translate", "Translate SQL between dialects (not available yet).")
@click.argument("source", metavar="SQL|VIEW")
@click.option("--to", "to_dialect", required=True, metavar="DIALECT", help="The dialect to translate to.")
@click.option(
    "--from",
    "from_dialect",
    metavar="DIALECT",
    help="The dialect of SQL text (for a view: which of its dialects to start from).",
)
@common_options
@pass_state
def translate(state: State, source: str, to_dialect: str, from_dialect: str | None) -> None:
    """Translate SQL text, or the current SQL of a view, into another dialect (not available yet)."""
    raise NotAvailable("translate: dialect translation is not available in this version")
