"""Exit codes, and the one-line error every expected failure becomes.

Each failure is a :class:`CliError` subclass whose class fixes the exit code; click prints it
through :meth:`CliError.show` as ``iceview: <what went wrong>`` on stderr. :func:`translate`
turns the library's exceptions into them.
"""

from __future__ import annotations

import enum
import json
import sys
from typing import IO, Any

import click

from iceview.cli.status import hide
from iceview.errors import (
    AlreadyExistsError,
    CatalogError,
    CommitFailedError,
    CommitStateUnknownError,
    DialectsRefusedError,
    FunctionInliningError,
    FunctionResolutionError,
    InvalidIdentifierError,
    InvalidMetadataError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NoSuchViewError,
    NotFoundError,
    TranslationError,
    UnsupportedOperationError,
    ViewUUIDMismatchError,
)

__all__ = [
    "CatalogUnavailable",
    "CliError",
    "CliUsageError",
    "Conflict",
    "ExitCode",
    "Interrupted",
    "InvalidMetadata",
    "NotFound",
    "TranslationRefused",
    "errors_as_json",
    "metadata_problem",
    "one_line",
    "refusal_message",
    "report",
    "translate",
    "warn",
]


class ExitCode(enum.IntEnum):
    """The exit codes of ``iceview`` (documented in docs/cli.md)."""

    OK = 0
    FAILURE = 1  # lint found problems; any other failure
    USAGE = 2  # bad arguments or options (click's code), a bad view name, --yes needed
    NOT_FOUND = 3  # no such view, namespace, version, property or file
    CATALOG = 4  # catalog not configured, bad configuration, no or unreachable database
    METADATA = 5  # a metadata file that cannot be read or parsed
    CONFLICT = 6  # a commit conflict, an unknown commit outcome, a name already taken
    REFUSED = 7  # a translation refused: an unsafe construct, SQL the translator cannot handle
    INTERRUPTED = 130  # Ctrl-C (SIGINT), as shells report a process the signal ended


def metadata_problem(error: InvalidMetadataError) -> str:
    """An :class:`InvalidMetadataError` as ``<message> (at <path> in <file>)``, the file named once."""
    if error.location and error.location in error.message:
        return f"{error.message} (at {error.path})"
    return str(error)


def one_line(text: str) -> str:
    """A message on one line: lines joined with "; " (or a space after a colon or a comma, as in
    click's "Choose from:" lists)."""
    out = ""
    for line in (part.strip() for part in str(text).splitlines()):
        if not line:
            continue
        if out:
            out += " " if out.endswith((":", ",")) else "; "
        out += line
    return out


_JSON_ERRORS = False


def errors_as_json(enabled: bool) -> None:
    """Report errors as JSON on stderr (``-o json``) for the rest of this invocation."""
    global _JSON_ERRORS
    _JSON_ERRORS = enabled


def report(message: str, exit_code: int, file: IO[Any] | None = None) -> None:
    """Print an error: ``iceview: <message>``, or with ``-o json``
    ``{"error": {"type", "message", "exit_code"}}``, on stderr."""
    if _JSON_ERRORS:
        try:
            kind = ExitCode(exit_code).name.lower()
        except ValueError:
            kind = "failure"
        body = {"error": {"type": kind, "message": message, "exit_code": exit_code}}
        click.echo(json.dumps(body, ensure_ascii=False), file=file, err=file is None)
    else:
        click.echo(f"iceview: {message}", file=file, err=file is None)


def warn(message: str) -> None:
    """``iceview: warning: ...`` on stderr, after what is already on stdout."""
    hide()
    sys.stdout.flush()
    click.echo(f"iceview: warning: {one_line(message)}", err=True)


class CliError(click.ClickException):
    """An expected failure: printed as one line, no traceback."""

    exit_code = int(ExitCode.FAILURE)

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))

    def show(self, file: IO[Any] | None = None) -> None:
        report(self.format_message(), self.exit_code, file)


class NotFound(CliError):
    exit_code = int(ExitCode.NOT_FOUND)


class CatalogUnavailable(CliError):
    exit_code = int(ExitCode.CATALOG)


class InvalidMetadata(CliError):
    exit_code = int(ExitCode.METADATA)


class Conflict(CliError):
    exit_code = int(ExitCode.CONFLICT)


class TranslationRefused(CliError):
    """iceview will not translate the SQL: unsafe constructs (each named), SQL it cannot parse, or
    a view without SQL for the dialect an engine needs under ``--no-translate``."""

    exit_code = int(ExitCode.REFUSED)


class CliUsageError(click.UsageError):
    """A usage error on one line, with a pointer to the command's help (exit code 2)."""

    def __init__(self, message: str, ctx: click.Context | None = None) -> None:
        super().__init__(one_line(message), ctx)

    def show(self, file: IO[Any] | None = None) -> None:
        hint = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        report(f"{self.format_message().rstrip('.')}{hint}", self.exit_code, file)


class Interrupted(CliError):
    """Ctrl-C: one line, no traceback, exit code 130."""

    exit_code = int(ExitCode.INTERRUPTED)

    def __init__(self, message: str = "interrupted") -> None:
        super().__init__(message)

    def show(self, file: IO[Any] | None = None) -> None:
        if file is None and sys.stderr.isatty():
            sys.stderr.write("\n")  # after the terminal's "^C"
        super().show(file)


def refusal_message(error: TranslationError) -> str:
    """A translation error on one line, naming every refused construct (the library's own message
    names the first three only), and every refused dialect of a :class:`DialectsRefusedError`."""
    from iceview.sql import UnsafeTranslationError  # sqlglot: loaded once a translation failed

    if isinstance(error, DialectsRefusedError):
        return "; ".join(dict.fromkeys(refusal_message(e) for e in error.errors.values()))
    if not isinstance(error, UnsafeTranslationError) or not error.issues:
        return str(error)
    count = len(error.issues)
    listed = "; ".join(str(issue) for issue in error.issues)
    return (
        f"cannot translate {error.source} SQL to {error.target}: "
        f"{count} construct{'s' if count != 1 else ''} refused: {listed}"
    )


def translate(error: BaseException) -> click.ClickException:
    """The CLI error for an exception raised by the library (or anything else)."""
    if isinstance(error, click.ClickException):
        return error
    message = str(error) or type(error).__name__
    if isinstance(error, InvalidIdentifierError):
        return CliUsageError(message)
    if isinstance(error, (NoSuchViewError, NoSuchNamespaceError, NoSuchTableError)):
        return NotFound(message)
    if isinstance(error, TranslationError):
        return TranslationRefused(refusal_message(error))
    if isinstance(error, (FunctionInliningError, FunctionResolutionError)):
        return TranslationRefused(message)  # a SQL UDF call no engine could run as written
    if isinstance(error, NotFoundError):
        return InvalidMetadata(f"cannot read view metadata: {message}")
    if isinstance(error, InvalidMetadataError):
        return InvalidMetadata(f"invalid view metadata: {metadata_problem(error)}")
    if isinstance(error, (CatalogError, UnsupportedOperationError)):
        return CatalogUnavailable(message)
    if isinstance(error, CommitFailedError):
        return Conflict(f"commit failed, nothing was changed: {message}; try again")
    if isinstance(error, CommitStateUnknownError):
        return Conflict(f"the outcome of the commit is unknown (check with 'iceview history'): {message}")
    if isinstance(error, ViewUUIDMismatchError):
        return Conflict(f"the view was replaced while iceview was working on it: {message}")
    if isinstance(error, AlreadyExistsError):
        return Conflict(message)
    if type(error).__module__.startswith("sqlalchemy"):
        return CatalogUnavailable(f"database error: {message}")
    if isinstance(error, OSError):
        return CliError(f"{type(error).__name__}: {message}")
    if isinstance(error, (ValueError, RuntimeError)) and type(error).__module__.startswith("iceview"):
        return CliError(message)
    return CliError(
        f"unexpected error: {type(error).__name__}: {message} (run with --debug for the traceback)"
    )
