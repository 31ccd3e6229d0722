"""SQL for Iceberg views: view statements, table references, qualification and view expansion.

Pure: built on sqlglot and pyiceberg types, with no engine or catalog behind it. Engines (the PySpark
glue, a DuckDB engine) pass their specifics in as parameters: dialect, type names, resolvers and
hooks.

* :mod:`iceview.sql.ddl`: :func:`parse_statement` for Spark's view statements, :func:`split_statements`.
* :mod:`iceview.sql.references`: :func:`find_references`, the relation names a query reads.
* :mod:`iceview.sql.qualify`: :func:`qualify`, Iceberg-Spark's qualification of a view's names.
* :mod:`iceview.sql.expand`: :class:`ViewExpander` / :func:`expand`, views replaced by subqueries;
  :func:`find_cycle` / :func:`check_cycle` for ``CREATE OR REPLACE``.
* :mod:`iceview.sql.types`: Iceberg types as Spark and DuckDB type names.
* :mod:`iceview.sql.translate`: :func:`translate`, safe dialect translation (spark, trino, duckdb);
  :func:`translation_hook` for ``ViewExpander(translate=...)``.

The names below are imported when first used: sqlglot and the translator take most of a second to
load, which a caller that only splits a view's name should not pay.
"""

from __future__ import annotations

import sys
import types as _types
from typing import TYPE_CHECKING, Any

from iceview._lazy import lazy_names

if TYPE_CHECKING:
    from iceview.sql._text import (
        leading_words,
        quote_identifier,
        render_name,
        spark_quote_if_needed,
        unescape_spark_string,
    )
    from iceview.sql.ddl import parse_statement, split_statements
    from iceview.sql.expand import (
        DEFAULT_MAX_DEPTH,
        ResolvedView,
        Resolver,
        ViewExpander,
        check_cycle,
        cycle_message,
        expand,
        find_cycle,
        static_column_count,
    )
    from iceview.sql.names import NameParseError, split_name
    from iceview.sql.qualify import CatalogTest, qualify, qualify_parts
    from iceview.sql.references import FunctionCall, TableReference, find_function_calls, find_references
    from iceview.sql.statements import (
        AlterViewAs,
        AlterViewRename,
        AlterViewSetProperties,
        AlterViewUnsetProperties,
        CreateView,
        DescribeView,
        DropView,
        ShowCreateTable,
        ShowTblProperties,
        ShowViews,
        Statement,
        StatementText,
        ViewColumn,
    )
    from iceview.sql.translate import (
        Translation,
        TranslationIssue,
        UnsafeTranslationError,
        translate,
        translation_hook,
    )
    from iceview.sql.types import TypeNamer, duckdb_type_name, spark_type_name, type_namer

_WHERE: dict[str, str] = {
    "leading_words": "iceview.sql._text",
    "quote_identifier": "iceview.sql._text",
    "render_name": "iceview.sql._text",
    "spark_quote_if_needed": "iceview.sql._text",
    "unescape_spark_string": "iceview.sql._text",
    "parse_statement": "iceview.sql.ddl",
    "split_statements": "iceview.sql.ddl",
    "DEFAULT_MAX_DEPTH": "iceview.sql.expand",
    "ResolvedView": "iceview.sql.expand",
    "Resolver": "iceview.sql.expand",
    "ViewExpander": "iceview.sql.expand",
    "check_cycle": "iceview.sql.expand",
    "cycle_message": "iceview.sql.expand",
    "expand": "iceview.sql.expand",
    "find_cycle": "iceview.sql.expand",
    "static_column_count": "iceview.sql.expand",
    "NameParseError": "iceview.sql.names",
    "split_name": "iceview.sql.names",
    "CatalogTest": "iceview.sql.qualify",
    "qualify": "iceview.sql.qualify",
    "qualify_parts": "iceview.sql.qualify",
    "FunctionCall": "iceview.sql.references",
    "TableReference": "iceview.sql.references",
    "find_function_calls": "iceview.sql.references",
    "find_references": "iceview.sql.references",
    "AlterViewAs": "iceview.sql.statements",
    "AlterViewRename": "iceview.sql.statements",
    "AlterViewSetProperties": "iceview.sql.statements",
    "AlterViewUnsetProperties": "iceview.sql.statements",
    "CreateView": "iceview.sql.statements",
    "DescribeView": "iceview.sql.statements",
    "DropView": "iceview.sql.statements",
    "ShowCreateTable": "iceview.sql.statements",
    "ShowTblProperties": "iceview.sql.statements",
    "ShowViews": "iceview.sql.statements",
    "Statement": "iceview.sql.statements",
    "StatementText": "iceview.sql.statements",
    "ViewColumn": "iceview.sql.statements",
    "Translation": "iceview.sql.translate",
    "TranslationIssue": "iceview.sql.translate",
    "UnsafeTranslationError": "iceview.sql.translate",
    "translate": "iceview.sql.translate",
    "translation_hook": "iceview.sql.translate",
    "TypeNamer": "iceview.sql.types",
    "duckdb_type_name": "iceview.sql.types",
    "spark_type_name": "iceview.sql.types",
    "type_namer": "iceview.sql.types",
}
"""Each public name -> the module that defines it."""


__getattr__ = lazy_names(__name__, _WHERE, globals())


def _function(name: str) -> property:
    def get(module: _types.ModuleType) -> Any:
        return __getattr__(name)

    def ignore(module: _types.ModuleType, value: Any) -> None:
        pass  # the import system binding the submodule of that name (sys.modules still has it)

    return property(get, ignore)


class _Package(_types.ModuleType):
    """``expand``, ``qualify`` and ``translate`` are functions named like the submodules that define
    them: importing such a submodule (which a lazy name does) must not rebind the package's name to
    the submodule."""

    expand = _function("expand")
    qualify = _function("qualify")
    translate = _function("translate")


sys.modules[__name__].__class__ = _Package


__all__ = [
    "DEFAULT_MAX_DEPTH",
    "AlterViewAs",
    "AlterViewRename",
    "AlterViewSetProperties",
    "AlterViewUnsetProperties",
    "CatalogTest",
    "CreateView",
    "DescribeView",
    "DropView",
    "FunctionCall",
    "NameParseError",
    "ResolvedView",
    "Resolver",
    "ShowCreateTable",
    "ShowTblProperties",
    "ShowViews",
    "Statement",
    "StatementText",
    "TableReference",
    "Translation",
    "TranslationIssue",
    "TypeNamer",
    "UnsafeTranslationError",
    "ViewColumn",
    "ViewExpander",
    "check_cycle",
    "cycle_message",
    "duckdb_type_name",
    "expand",
    "find_cycle",
    "find_function_calls",
    "find_references",
    "leading_words",
    "parse_statement",
    "qualify",
    "qualify_parts",
    "quote_identifier",
    "render_name",
    "spark_quote_if_needed",
    "spark_type_name",
    "split_name",
    "split_statements",
    "static_column_count",
    "translate",
    "translation_hook",
    "type_namer",
    "unescape_spark_string",
]
