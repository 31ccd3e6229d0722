"""What the command line asks for before click parses it (this module imports nothing, so that
Ctrl-C during start-up can be reported the way the command line asks)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["wants_json"]


def wants_json(args: Sequence[str]) -> bool:
    """Whether the command line asks for ``-o json`` (read before click parses it, so that usage
    errors are JSON too)."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("-o", "--output") and i + 1 < len(args):
            if args[i + 1] == "json":
                return True
        elif arg in ("-ojson", "--output=json"):
            return True
    return False
