"""The ``iceview`` commands, one module each, loaded when they are used: :data:`COMMAND_MODULES` is in
the order ``iceview --help`` lists them, and :func:`load` imports one command's module only (so that
``iceview --version`` or ``iceview list`` do not import what ``translate`` or ``serve`` need)."""

from __future__ import annotations

import importlib

import click

__all__ = ["COMMAND_MODULES", "all_commands", "load"]

COMMAND_MODULES: tuple[tuple[str, str, str], ...] = (
    # (command name, module under iceview.cli.commands, the click command's attribute)
    ("catalogs", "catalogs", "catalogs"),
    ("namespaces", "namespaces", "namespaces"),
    ("list", "list_views", "list_views"),
    ("tables", "tables", "tables"),
    ("functions", "functions", "functions"),
    ("show", "show", "show"),
    ("history", "history", "history"),
    ("diff", "diff", "diff"),
    ("rollback", "rollback", "rollback"),
    ("set-property", "properties", "set_property"),
    ("unset-property", "properties", "unset_property"),
    ("rename", "rename", "rename"),
    ("drop", "drop", "drop"),
    ("orphans", "orphans", "orphans"),
    ("lint", "lint", "lint"),
    ("translate", "translate", "translate"),
    ("serve", "serve", "serve"),
    ("add-dialect", "add_dialect", "add_dialect"),
    ("dialects", "dialects", "dialects"),
    ("sql", "sql", "sql"),
)

NAMES: tuple[str, ...] = tuple(name for name, _, _ in COMMAND_MODULES)
"""The command names, in the order ``iceview --help`` lists them."""


def load(name: str) -> click.Command | None:
    """The command called ``name`` (its module imported now), or None."""
    for command_name, module, attribute in COMMAND_MODULES:
        if command_name == name:
            command = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
            assert isinstance(command, click.Command) and command.name == name, (name, command)
            return command
    return None


def all_commands() -> tuple[click.Command, ...]:
    """Every command (each module imported)."""
    return tuple(c for c in (load(name) for name in NAMES) if c is not None)
