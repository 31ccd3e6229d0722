"""The ``iceview`` commands, one module each; :data:`COMMANDS` is in the order ``iceview --help``
lists them. (The package's attributes are the modules, so that each stays reachable by name.)"""

from __future__ import annotations

import click

from iceview.cli.commands import (
    add_dialect,
    catalogs,
    dialects,
    diff,
    drop,
    history,
    lint,
    list_views,
    namespaces,
    properties,
    rename,
    rollback,
    serve,
    show,
    sql,
    translate,
)

__all__ = ["COMMANDS"]

COMMANDS: tuple[click.Command, ...] = (
    catalogs.catalogs,
    namespaces.namespaces,
    list_views.list_views,
    show.show,
    history.history,
    diff.diff,
    rollback.rollback,
    properties.set_property,
    properties.unset_property,
    rename.rename,
    drop.drop,
    lint.lint,
    translate.translate,
    serve.serve,
    add_dialect.add_dialect,
    dialects.dialects,
    sql.sql,
)
