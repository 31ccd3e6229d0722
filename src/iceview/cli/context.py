"""What every command shares: the options ``--catalog``, ``--output`` and ``--debug`` (given to
the group or to the command), the state they set, and one-line usage errors."""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import click

from iceview.cli import completion
from iceview.cli.errors import CliUsageError, Interrupted, one_line, translate
from iceview.cli.output import TABULAR_FORMATS, Output
from iceview.cli.status import command_status, hide

if TYPE_CHECKING:
    from iceview.catalog import Catalog

__all__ = [
    "IceviewCommand",
    "IceviewGroup",
    "State",
    "command",
    "common_options",
    "logging_to_stderr",
    "pass_state",
]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class State:
    """The options shared by all commands, and the catalog once opened."""

    catalog_name: str | None = None
    output_format: str = "text"
    debug: bool = False
    local_time: bool = False
    _catalog: Catalog | None = field(default=None, repr=False)
    _out: Output | None = field(default=None, repr=False)

    @property
    def out(self) -> Output:
        """Where the command's result goes (made on first use, after the options are parsed)."""
        if self._out is None or self._out.format != self.output_format:
            self._out = Output(self.output_format)
        return self._out

    def time(self, timestamp_ms: int) -> str:
        """A time for people: ISO-8601 in UTC, or with ``--local-time`` in the local time zone
        (JSON output is always UTC)."""
        from iceview.cli.times import iso_local, iso_utc

        return iso_local(timestamp_ms) if self.local_time else iso_utc(timestamp_ms)

    @property
    def zone(self) -> str:
        """``UTC``, or ``local`` with ``--local-time``: for column headers."""
        return "local" if self.local_time else "UTC"

    def catalog(self) -> Catalog:
        """The catalog named by ``--catalog`` (else the default one), opened once per command."""
        if self._catalog is None:
            from iceview.cli.config import open_catalog

            self._catalog = open_catalog(self.catalog_name)
            click.get_current_context().call_on_close(self.close)
        return self._catalog

    def close(self) -> None:
        if self._catalog is not None:
            self._catalog.close()
            self._catalog = None


pass_state = click.make_pass_decorator(State, ensure=True)


def _state(ctx: click.Context) -> State:
    return ctx.ensure_object(State)


def _set_catalog(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        _state(ctx).catalog_name = value
        ctx.meta[completion.CATALOG_KEY] = value


def _set_output(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        _state(ctx).output_format = value


def _set_local_time(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        _state(ctx).local_time = True


def _set_debug(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        _state(ctx).debug = True


def common_options(f: F) -> F:
    """``--catalog NAME``, ``--output text|json`` and ``--debug``."""
    options = [
        click.option(
            "--catalog",
            "-c",
            metavar="NAME",
            expose_value=False,
            callback=_set_catalog,
            shell_complete=completion.catalogs,
            help="Catalog to use, configured as PyIceberg does (.pyiceberg.yaml or "
            "PYICEBERG_CATALOG__NAME__KEY variables). Default: the 'default-catalog' setting, else 'default'.",
        ),
        click.option(
            "--output",
            "-o",
            type=click.Choice(["text", "json", "csv", "tsv"]),
            expose_value=False,
            callback=_set_output,
            help="text (default; plain tab-separated columns when not on a terminal), json (errors "
            "too, on stderr), or csv/tsv for the commands that print rows.",
        ),
        click.option(
            "--local-time",
            is_flag=True,
            default=False,
            expose_value=False,
            callback=_set_local_time,
            help="Show times in the local time zone (with their offset) instead of UTC; JSON stays UTC.",
        ),
        click.option(
            "--debug",
            is_flag=True,
            default=False,
            expose_value=False,
            callback=_set_debug,
            help="Show tracebacks and debug logs.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _one_line(ctx: click.Context, error: click.UsageError) -> click.UsageError:
    if isinstance(error, CliUsageError) or type(error).__name__ == "NoArgsIsHelpError":
        return error
    return CliUsageError(error.format_message(), error.ctx or ctx)


class IceviewCommand(click.Command):
    """A command whose usage errors and failures are one line (with the traceback on --debug),
    and that shows iceview's warnings while it runs. ``tabular`` commands print rows, so they
    take ``-o csv`` and ``-o tsv``. A command that runs for more than a second shows a progress
    line on a terminal (:mod:`iceview.cli.status`), unless ``progress`` is off (``serve``)."""

    tabular = False
    progress = True

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            raise _one_line(ctx, e) from None

    def invoke(self, ctx: click.Context) -> Any:
        state = _state(ctx)
        if state.output_format in TABULAR_FORMATS and not self.tabular:
            takes = ", ".join(ROW_COMMANDS)
            raise CliUsageError(
                f"-o {state.output_format} is for the commands that print rows ({takes}); use -o json", ctx
            )
        status = command_status(f"iceview {self.name}") if self.progress else contextlib.nullcontext()
        try:
            with logging_to_stderr(state.debug), status:
                return super().invoke(ctx)
        except (click.exceptions.Exit, click.Abort, BrokenPipeError):
            raise
        except KeyboardInterrupt:
            raise Interrupted() from None
        except Exception as e:
            if state.debug:
                traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
            if isinstance(e, click.UsageError):
                raise _one_line(ctx, e) from None
            if isinstance(e, click.ClickException):
                raise
            error = translate(e)
            if isinstance(error, click.UsageError) and error.ctx is None:
                error.ctx = ctx
            raise error from e


ROW_COMMANDS = ("namespaces", "list", "tables", "functions", "history", "catalogs", "sql")
"""The commands that take ``-o csv`` and ``-o tsv``."""


def command(
    name: str, short_help: str, *, tabular: bool = False, progress: bool = True
) -> Callable[[Callable[..., Any]], IceviewCommand]:
    """``@click.command`` making an :class:`IceviewCommand`."""

    def decorator(f: Callable[..., Any]) -> IceviewCommand:
        made = click.command(name, cls=IceviewCommand, short_help=short_help)(f)
        assert isinstance(made, IceviewCommand)
        made.tabular = tabular
        made.progress = progress
        assert tabular == (name in ROW_COMMANDS), name
        return made

    return decorator


class IceviewGroup(click.Group):
    """The ``iceview`` group: one-line usage errors, :class:`IceviewCommand` commands."""

    command_class = IceviewCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            raise _one_line(ctx, e) from None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as e:
            raise _one_line(ctx, e) from None


class _StderrHandler(logging.Handler):
    """Log records as ``iceview: warning: ...`` on the current stderr (the logger's name too
    with --debug)."""

    def __init__(self, debug: bool) -> None:
        super().__init__()
        self.debug = debug

    def emit(self, record: logging.LogRecord) -> None:
        try:
            hide()
            where = f"{record.name}: " if self.debug else ""
            text = one_line(record.getMessage())
            sys.stderr.write(f"iceview: {record.levelname.lower()}: {where}{text}\n")
        except Exception:  # pragma: no cover - logging must not fail the command
            self.handleError(record)


@contextlib.contextmanager
def logging_to_stderr(debug: bool) -> Iterator[None]:
    """Show iceview's warnings (and with ``debug`` its debug log) while a command runs."""
    logger = logging.getLogger("iceview")
    handler = _StderrHandler(debug)
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if debug else logging.WARNING)
    # sqlglot warns when it falls back to a generic command (EXPLAIN, SHOW): not news to the user
    sqlglot_logger = logging.getLogger("sqlglot")
    sqlglot_previous = sqlglot_logger.level
    if not debug:
        sqlglot_logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        sqlglot_logger.setLevel(sqlglot_previous)
