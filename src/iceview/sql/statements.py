"""The view statements of Spark SQL as values: what :func:`iceview.sql.parse_statement` returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias

__all__ = [
    "AlterViewAs",
    "AlterViewRename",
    "AlterViewSetProperties",
    "AlterViewUnsetProperties",
    "CreateView",
    "DescribeView",
    "DropView",
    "ShowCreateTable",
    "ShowTblProperties",
    "ShowViews",
    "Statement",
    "StatementText",
    "ViewColumn",
]


class ViewColumn(NamedTuple):
    """A column of a view's column list: ``(name, comment)``; ``comment`` is ``None`` when absent."""

    name: str
    comment: str | None = None


@dataclass(frozen=True)
class CreateView:
    """``CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(columns)] [COMMENT] [TBLPROPERTIES] AS query``.

    ``query`` is the verbatim query text; ``query_offset`` is where it starts in the text given to
    :func:`parse_statement`. ``schema_binding`` is Spark 4's ``WITH SCHEMA`` mode (e.g.
    ``"BINDING"``, ``"TYPE EVOLUTION"``), ``None`` when absent."""

    name: tuple[str, ...]
    query: str
    columns: tuple[ViewColumn, ...] = ()
    comment: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    or_replace: bool = False
    if_not_exists: bool = False
    query_offset: int = 0
    schema_binding: str | None = None


@dataclass(frozen=True)
class AlterViewAs:
    """``ALTER VIEW name [AS] query``: a replace of the view's query (Iceberg-Spark rejects it)."""

    name: tuple[str, ...]
    query: str
    query_offset: int = 0


@dataclass(frozen=True)
class AlterViewSetProperties:
    """``ALTER VIEW name SET TBLPROPERTIES ('k' = 'v', ...)``."""

    name: tuple[str, ...]
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class AlterViewUnsetProperties:
    """``ALTER VIEW name UNSET TBLPROPERTIES [IF EXISTS] ('k', ...)``."""

    name: tuple[str, ...]
    keys: tuple[str, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class AlterViewRename:
    """``ALTER VIEW name RENAME TO new_name``."""

    name: tuple[str, ...]
    new_name: tuple[str, ...]


@dataclass(frozen=True)
class DropView:
    """``DROP VIEW [IF EXISTS] name``."""

    name: tuple[str, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class ShowViews:
    """``SHOW VIEWS [(IN|FROM) namespace] [[LIKE] 'pattern']``; ``namespace`` is ``None`` when absent
    (the current namespace) and may start with a catalog name."""

    namespace: tuple[str, ...] | None = None
    pattern: str | None = None


@dataclass(frozen=True)
class DescribeView:
    """``(DESCRIBE|DESC) [TABLE] [EXTENDED|FORMATTED] name [column]``. ``column`` is the optional
    column name (parts), ``None`` when the whole relation is described."""

    name: tuple[str, ...]
    extended: bool = False
    formatted: bool = False
    column: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ShowCreateTable:
    """``SHOW CREATE TABLE name``."""

    name: tuple[str, ...]


@dataclass(frozen=True)
class ShowTblProperties:
    """``SHOW TBLPROPERTIES name [(key)]``."""

    name: tuple[str, ...]
    key: str | None = None


Statement: TypeAlias = (
    CreateView
    | AlterViewAs
    | AlterViewSetProperties
    | AlterViewUnsetProperties
    | AlterViewRename
    | DropView
    | ShowViews
    | DescribeView
    | ShowCreateTable
    | ShowTblProperties
)


class StatementText(NamedTuple):
    """One statement of a script: its text (first token to last token) and where it starts."""

    text: str
    offset: int
