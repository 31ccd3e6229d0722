"""The ``iceview`` command group."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from iceview._version import __version__
from iceview.cli.argv import wants_json
from iceview.cli.commands import NAMES, load
from iceview.cli.context import IceviewGroup, common_options
from iceview.cli.errors import CliError, CliUsageError, ExitCode, Interrupted, errors_as_json, report

__all__ = ["cli"]

EPILOG = """\b
Exit codes: 0 ok; 1 lint found problems, a query failed, or another failure;
2 usage error; 3 view, namespace, version, table or file not found; 4 catalog
not configured or unavailable; 5 unreadable or invalid metadata; 6 commit
conflict or name taken; 7 translation refused (each unsafe construct named);
130 interrupted (Ctrl-C).
"""


class _Group(IceviewGroup):
    """Commands are imported when used (``iceview.cli.commands.load``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(NAMES)  # in the documented order, not sorted

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load(cmd_name)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """click's ``main``, reporting every failure as one line (or JSON with ``-o json``) and
        Ctrl-C as ``interrupted``, exit code 130, at any moment."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        errors_as_json(wants_json(argv))
        try:
            code = super().main(argv, prog_name, complete_var, False, **extra)
        except click.ClickException as e:
            _fail(e.format_message(), e.exit_code, e)
        except click.Abort as e:
            # click turns Ctrl-C (and end of input at a prompt) into Abort
            if isinstance(e.__cause__ or e.__context__, EOFError):
                _fail("aborted: no answer (end of input)", int(ExitCode.FAILURE))
            _fail("interrupted", int(ExitCode.INTERRUPTED), Interrupted())
        except KeyboardInterrupt:
            _fail("interrupted", int(ExitCode.INTERRUPTED), Interrupted())
        finally:
            errors_as_json(False)
        sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str, exit_code: int, error: click.ClickException | None = None) -> NoReturn:
    if isinstance(error, (CliError, CliUsageError)):
        error.show()  # with the usage hint
    else:
        report(message, exit_code)
    sys.exit(exit_code)


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
