"""The ``iceview`` command line (click + rich).

``iceview --help`` lists the commands; docs/cli.md shows each with real output. The CLI sits at the
edge: it uses :mod:`iceview.catalog`, :mod:`iceview.spec`, :mod:`iceview.files`,
:mod:`iceview.view` and :mod:`iceview.sql`, and for ``iceview sql`` the engines :mod:`iceview.duckdb`
and :mod:`iceview.spark` (imported only when used); nothing imports it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from iceview._lazy import lazy_names

if TYPE_CHECKING:
    from iceview.cli.app import cli
    from iceview.cli.errors import ExitCode

__all__ = ["ExitCode", "cli", "main"]

__getattr__ = lazy_names(__name__, {"cli": "iceview.cli.app", "ExitCode": "iceview.cli.errors"}, globals())


def main() -> None:
    """The ``iceview`` console script. Ctrl-C while the command line is still loading ends it as
    it would later: ``iceview: interrupted``, exit code 130."""
    try:
        if sys.argv[1:] == ["--version"]:
            # what click's --version prints, without loading click and rich first (scripts ask often)
            from iceview._version import __version__

            sys.stdout.write(f"iceview {__version__}\n")
            return
        from iceview.cli.app import cli
    except KeyboardInterrupt:
        from iceview.cli.argv import wants_json

        if wants_json(sys.argv[1:]):
            message = '{"error": {"type": "interrupted", "message": "interrupted", "exit_code": 130}}\n'
        else:
            message = ("\n" if sys.stderr.isatty() else "") + "iceview: interrupted\n"
        sys.stderr.write(message)
        sys.exit(130)
    cli.main(prog_name="iceview")
