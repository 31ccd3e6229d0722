"""Rendering: rich for people (colour only on a terminal), JSON for scripts.

Text goes through a rich :class:`~rich.console.Console` made at call time on the current
``sys.stdout`` (so click's test runner captures it). Off a terminal the width is unlimited (or
``$COLUMNS``), so piped output is never wrapped. JSON is printed by :meth:`Output.json`: indented,
keys in a fixed order, no colour.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from iceview.cli.status import hide

__all__ = ["Output", "make_console", "print_properties", "table"]

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


TABULAR_FORMATS = ("csv", "tsv")


class Output:
    """Where a command's result goes: ``text`` (rich), ``json``, or for commands that print rows
    ``csv`` and ``tsv`` (a header line, then one line per row; NULL is an empty field)."""

    def __init__(self, fmt: str) -> None:
        self.format = fmt
        self._console: Console | None = None

    @property
    def is_json(self) -> bool:
        return self.format == "json"

    @property
    def is_tabular(self) -> bool:
        """``csv`` or ``tsv``."""
        return self.format in TABULAR_FORMATS

    @property
    def is_terminal(self) -> bool:
        """Whether text goes to a terminal (else it is printed in its plain form: tables as
        tab-separated lines, no rules and no footers)."""
        return self.console.is_terminal

    def rows(
        self,
        columns: Sequence[str],
        rows: Iterable[Sequence[object]],
        json_value: Any,
        *,
        plain: bool = False,
        title: str | None = None,
        right: Sequence[bool] = (),
        footer: str | None = None,
    ) -> None:
        """Print rows: as ``json_value`` with ``-o json``, CSV or TSV, else a table (``plain``: one
        value per line, for lists of names). On a terminal, the columns flagged in ``right`` are
        right-aligned and ``footer`` follows the table, dimmed."""
        if self.is_json:
            self.json(json_value)
            return
        if self.is_tabular:
            self.delimited(columns, rows)
            return
        if plain:
            for row in rows:
                self.line(" ".join("" if v is None else str(v) for v in row))
            return
        if not self.is_terminal:
            self.delimited(columns, rows, delimiter="\t")
            return
        grid = table(*columns, title=title)
        for column, flag in zip(grid.columns, right, strict=False):
            column.justify = "right" if flag else "left"
        for row in rows:
            grid.add_row(*(Text("NULL", style="dim") if v is None else _text(v) for v in row))
        if columns:
            fit_columns(grid, self.console.width)
            self.print(grid)
        if footer is not None:
            self.line((footer, "dim"))

    def delimited(
        self, columns: Sequence[str], rows: Iterable[Sequence[object]], delimiter: str = ""
    ) -> None:
        """A header line and one line per row, separated by commas (``csv``) or tabs (``tsv``, and
        the plain text form); fields are quoted as CSV does where they need it."""
        sep = delimiter or ("\t" if self.format == "tsv" else ",")
        hide()
        writer = csv.writer(sys.stdout, delimiter=sep, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if v is None else (v.plain if isinstance(v, Text) else v) for v in row])

    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = make_console()
        return self._console

    def json(self, value: Any) -> None:
        """Print ``value`` as JSON."""
        hide()
        sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")

    def print(self, *items: RenderableType | str) -> None:
        """Print text or rich renderables (strings are printed as they are, no markup). Off a
        terminal, trailing blanks (tables pad their cells) are removed."""
        soft_wrap = all(isinstance(i, (str, Text)) for i in items)
        hide()
        console = self.console
        if console.is_terminal:
            console.print(*items, soft_wrap=soft_wrap)
            return
        with console.capture() as captured:
            console.print(*items, soft_wrap=soft_wrap)
        lines = captured.get().split("\n")
        console.file.write("\n".join(line.rstrip() for line in lines))

    def code(self, text: str, lexer: str) -> None:
        """Source text (``sql``, ``diff``), highlighted on a terminal and never wrapped by
        iceview: long lines stay one line, so that a copy of them still runs."""
        from rich.syntax import Syntax

        highlighted = Syntax(text, lexer, theme="ansi_dark", background_color="default").highlight(text)
        highlighted.rstrip()
        self.print(highlighted)

    def line(self, *parts: str | tuple[str, str] | Text) -> None:
        """One line from parts: plain strings or ``(text, style)`` pairs."""
        hide()
        self.console.print(Text.assemble(*parts), soft_wrap=True)

    def blank(self) -> None:
        hide()
        self.console.print()

    def fields(self, rows: Iterable[tuple[str, str | Text]]) -> None:
        """``label  value`` lines, labels aligned."""
        pairs = list(rows)
        width = max((len(label) for label, _ in pairs), default=0)
        for label, value in pairs:
            self.line((label.ljust(width), "bold"), "  ", value)


def _text(value: object) -> RenderableType:
    return value if isinstance(value, (Text, str)) else str(value)


def fit_columns(grid: Table, width: int) -> None:
    """Keep short columns (times, ids, names) whole when the table is wider than ``width``: rich
    then narrows the long ones (SQL, locations) instead of cutting a timestamp in two. When even
    the short ones do not fit, rich wraps every column as usual."""
    wanted: list[tuple[Any, int]] = []
    total = 0
    for column in grid.columns:
        cells = [c.plain if isinstance(c, Text) else str(c) for c in column.cells]
        widest = max([len(c) for c in cells] + [len(str(column.header))])
        total += widest + 3  # the cell padding and the gap between columns
        if widest <= 32:
            wanted.append((column, widest))
    if total <= width or sum(w + 3 for _, w in wanted) + 8 * (len(grid.columns) - len(wanted)) > width:
        return
    for column, widest in wanted:
        column.min_width = widest
        column.no_wrap = True


def plain(values: Sequence[object]) -> str:
    return ", ".join(str(v) for v in values)


def print_properties(out: Output, properties: Mapping[str, str]) -> None:
    """A view's or function's properties as a table sorted by key (``show``), or that it has none."""
    if properties:
        props = table("property", "value", title="Properties")
        for key, value in sorted(properties.items()):
            props.add_row(key, value)
        out.print(props)
    else:
        out.line(("Properties", "bold"), ": none")
