"""The ``iceview`` command line (click + rich).

``iceview --help`` lists the commands; docs/cli.md shows each with real output. The CLI sits at the
edge: it uses :mod:`iceview.catalog`, :mod:`iceview.spec`, :mod:`iceview.files`,
:mod:`iceview.view` and :mod:`iceview.sql`, and for ``iceview sql`` the engines :mod:`iceview.duckdb`
and :mod:`iceview.spark` (imported only when used); nothing imports it.
"""

from __future__ import annotations

from iceview.cli.app import cli
from iceview.cli.errors import ExitCode

__all__ = ["ExitCode", "cli", "main"]


def main() -> None:
    """The ``iceview`` console script."""
    cli.main(prog_name="iceview")
