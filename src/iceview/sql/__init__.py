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
"""

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
