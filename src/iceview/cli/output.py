"""Rendering: rich for people (colour only on a terminal), JSON for scripts.

Text goes through a rich :class:`~rich.console.Console` made at call time on the current
``sys.stdout`` (so click's test runner captures it). Off a terminal the width is unlimited (or
``$COLUMNS``), so piped output is never wrapped. JSON is printed by :meth:`Output.json`: indented,
keys in a fixed order, no colour.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

__all__ = ["Output", "make_console", "table"]

_UNWRAPPED = 10_000


def make_console(stderr: bool = False) -> Console:
    """A console on the current stdout (or stderr)."""
    stream = sys.stderr if stderr else sys.stdout
    width: int | None = None
    if not _isatty(stream):
        columns = os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdigit() and int(columns) > 0 else _UNWRAPPED
    return Console(
        file=stream, width=width, highlight=False, markup=False, emoji=False, soft_wrap=False, stderr=stderr
    )


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def table(*columns: str, title: str | None = None) -> Table:
    """A borderless table with bold headers."""
    out = Table(
        *columns,
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        header_style="bold",
    )
    return out


class Output:
    """Where a command's result goes: ``text`` (rich) or ``json``."""

    def __init__(self, fmt: str) -> None:
        self.format = fmt
        self._console: Console | None = None

    @property
    def is_json(self) -> bool:
        return self.format == "json"

    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = make_console()
        return self._console

    def json(self, value: Any) -> None:
        """Print ``value`` as JSON."""
        sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")

    def print(self, *items: RenderableType | str) -> None:
        """Print text or rich renderables (strings are printed as they are, no markup). Off a
        terminal, trailing blanks (tables pad their cells) are removed."""
        soft_wrap = all(isinstance(i, (str, Text)) for i in items)
        console = self.console
        if console.is_terminal:
            console.print(*items, soft_wrap=soft_wrap)
            return
        with console.capture() as captured:
            console.print(*items, soft_wrap=soft_wrap)
        lines = captured.get().split("\n")
        console.file.write("\n".join(line.rstrip() for line in lines))

    def line(self, *parts: str | tuple[str, str] | Text) -> None:
        """One line from parts: plain strings or ``(text, style)`` pairs."""
        self.console.print(Text.assemble(*parts), soft_wrap=True)

    def blank(self) -> None:
        self.console.print()

    def fields(self, rows: Iterable[tuple[str, str | Text]]) -> None:
        """``label  value`` lines, labels aligned."""
        pairs = list(rows)
        width = max((len(label) for label, _ in pairs), default=0)
        for label, value in pairs:
            self.line((label.ljust(width), "bold"), "  ", value)


def plain(values: Sequence[object]) -> str:
    return ", ".join(str(v) for v in values)
