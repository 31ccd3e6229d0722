"""The ``iceview`` command group."""

from __future__ import annotations

import click

from iceview._version import __version__
from iceview.cli.commands import NAMES, load
from iceview.cli.context import IceviewGroup, common_options

__all__ = ["cli"]

EPILOG = """\b
Exit codes: 0 ok; 1 lint found problems, a query failed, or another failure;
2 usage error; 3 view, namespace, version, table or file not found; 4 catalog
not configured or unavailable; 5 unreadable or invalid metadata; 6 commit
conflict or name taken; 7 translation refused (each unsafe construct named).
"""


class _Group(IceviewGroup):
    """Commands are imported when used (``iceview.cli.commands.load``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(NAMES)  # in the documented order, not sorted

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load(cmd_name)


@click.group(
    "iceview",
    cls=_Group,
    invoke_without_command=True,
    epilog=EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@common_options
@click.version_option(__version__, "--version", prog_name="iceview", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Inspect and manage Apache Iceberg views: show a view, see what changed and roll it back.

    VIEW is a view name: its namespace and name joined by dots (ns.name, a.b.name), with
    backquotes around parts that hold dots (ns.`my.view`). --catalog, --output and --debug can be
    given before the command or after it.
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
