"""View names and namespaces on the command line: ``ns.name``, ``a.b.name``, and levels quoted
with backquotes when they hold dots (``ns.`my.view```; a doubled backquote is a literal one)."""

from __future__ import annotations

from collections.abc import Sequence

from iceview.cli.errors import CliUsageError
from iceview.sql.names import NameParseError, split_name

__all__ = ["format_name", "parse_name", "parse_namespace"]


def _levels(text: str, what: str) -> tuple[str, ...]:
    try:
        return split_name(text)
    except NameParseError as e:
        raise CliUsageError(f"invalid {what} {text!r}: {e.reason}") from e


def parse_name(text: str) -> tuple[str, ...]:
    """A view name as levels: namespace levels then the name."""
    if not text:
        raise CliUsageError("invalid view name '': it is empty")
    return _levels(text, "view name")


def parse_namespace(text: str | None) -> tuple[str, ...]:
    """A namespace as levels; ``None`` or ``""`` is the root."""
    if not text:
        return ()
    return _levels(text, "namespace")


def _quote(level: str) -> str:
    if level and not any(c in level for c in ".` \t\n"):
        return level
    return "`" + level.replace("`", "``") + "`"


def format_name(levels: Sequence[str]) -> str:
    """Levels joined with dots, quoted where needed, so that :func:`parse_name` reads them back."""
    return ".".join(_quote(level) for level in levels)
