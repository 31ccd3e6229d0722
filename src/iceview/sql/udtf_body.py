"""A SQL table function's body (a query) made ready to expand as a subquery.

A ``udtf`` body is a query over the function's parameters and the relations it reads::

    SELECT name, color FROM fruits WHERE color = c

Its relation names are qualified with the function's own catalog and namespace (the rules of a
view's SQL, :func:`iceview.sql.qualify.qualify`), as are the catalog functions it calls. A bare
name that equals a parameter's name is the parameter unless a relation of its query (or of an
enclosing one) has a column of that name, as in a SQL routine; when a relation's columns are not
known the name is refused (``UDF_PARAMETER_AMBIGUOUS``) rather than guessed. The query must show
how many columns it returns (no ``*``) and return as many as the function's return struct has.

Bodies are not translated between dialects yet: a table function needs a body in the engine's
dialect (``UDF_NO_DIALECT`` otherwise).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.tokenizer_core import TokenType

from iceview.errors import FunctionInliningError, SQLParseError
from iceview.sql._analysis import static_column_count
from iceview.sql._text import Edit, apply_edits, parse_with_tokens, render_name
from iceview.sql.qualify import CatalogTest, qualify
from iceview.sql.references import table_identifiers
from iceview.sql.udf_body import BodyTemplate, CallQualifier, call_sites
from iceview.udf import types as ut
from iceview.udf.model import FunctionDefinition

__all__ = ["RelationColumns", "table_body_template"]

RelationColumns = Callable[[tuple[str, ...]], "frozenset[str] | None"]
"""A relation's qualified name (catalog first) -> its column names, lower-cased, or ``None`` when
unknown."""


def table_body_template(
    name: str,
    function: tuple[str, ...],
    definition: FunctionDefinition,
    dialect: str,
    *,
    known_catalogs: CatalogTest,
    relation_columns: RelationColumns | None,
    qualify_call: CallQualifier,
) -> BodyTemplate:
    """The current version's body of the table function ``definition`` as a template in
    ``dialect``: relation and function names qualified, parameters as placeholders."""
    shown = f"{name}({definition.signature()})"
    version = definition.current_version
    rep = version.sql_for(dialect)
    if rep is None:
        raise FunctionInliningError(
            "UDF_NO_DIALECT",
            f"Table function {shown} has no {dialect} body (dialects: {', '.join(version.dialects) or 'none'}); "
            "table function bodies are not translated yet",
        )
    catalog, namespace = function[0], function[1:-1]
    try:
        text = qualify(
            rep.sql,
            default_catalog=catalog,
            default_namespace=namespace,
            known_catalogs=known_catalogs,
            dialect=dialect,
        )
        tree, tokens = parse_with_tokens(text, dialect, what="function body")
    except SQLParseError:
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED", f"The body of table function {shown} is not a query"
        ) from None
    if not isinstance(tree, exp.Query):
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED", f"The body of table function {shown} is not a query"
        )
    fields = definition.return_type.fields if isinstance(definition.return_type, ut.StructType) else ()
    width = static_column_count(tree)
    if width is None or width != len(fields):
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED",
            f"The body of table function {shown} returns "
            f"{'an unknown number of' if width is None else width} columns but the function returns "
            f"{len(fields)}; list its columns",
        )
    known: dict[tuple[str, ...], frozenset[str] | None] = {}

    def columns_of_table(parts: tuple[str, ...]) -> frozenset[str] | None:
        if parts not in known:
            known[parts] = relation_columns(parts) if relation_columns is not None else None
        return known[parts]

    params = {p.name.casefold(): i for i, p in enumerate(definition.parameters)}
    nonce = secrets.token_hex(6)
    placeholders = tuple(f"__iceview_{nonce}_{i}__" for i in range(len(definition.parameters)))
    uses = [0] * len(placeholders)
    edits: list[Edit] = []
    try:
        scopes = traverse_scope(tree)
    except (OptimizeError, SqlglotError, RecursionError):
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED", f"The body of table function {shown} cannot be analysed"
        ) from None
    relations: set[str] = set()
    every_column: set[str] | None = set()
    for scope in scopes:
        for alias, source in scope.sources.items():
            relations.add(alias.lower())
            if isinstance(source, exp.Table):
                relations.add(source.name.lower())
            columns = _columns_of(source, columns_of_table)
            if columns is None:
                every_column = None
            elif every_column is not None:
                every_column |= columns
        for column in scope.columns:
            index = params.get(column.name.casefold())
            if index is None or column.table:
                _check_bound(column, scope, columns_of_table, shown)
                continue
            if not _is_parameter(column, scope, columns_of_table, shown):
                continue
            start, end = column.this.meta.get("start"), column.this.meta.get("end")
            if start is None or end is None:
                raise FunctionInliningError(
                    "UDF_BODY_UNSUPPORTED", f"Cannot place parameter {column.name} in table function {shown}"
                )
            edits.append((int(start), int(end) + 1, placeholders[index]))
            uses[index] += 1
    calls = _call_edits(tree, catalog, namespace, dialect, qualify_call)
    for site in call_sites(tree):
        if site.in_from and any(
            c.name.casefold() in params and not c.table
            for a in site.call.expressions
            for c in a.find_all(exp.Column)
        ):
            raise FunctionInliningError(
                "UDF_BODY_UNSUPPORTED",
                f"The body of table function {shown} calls a table function with its parameters; "
                "that is not inlined yet",
            )
    edits.extend(edit for edit, _ in calls)
    # the body sits in parentheses: trailing semicolons and comments stay out
    last = next((t for t in reversed(tokens) if t.token_type != TokenType.SEMICOLON), None)
    cut = last.end + 1 if last is not None else len(text)
    return BodyTemplate(
        apply_edits(text[:cut], edits),
        placeholders,
        tuple(uses),
        calls=frozenset(name for _, name in calls),
        relations=frozenset(relations),
        columns=None if every_column is None else frozenset(every_column),
    )


def _columns_of(source: Any, columns_of_table: RelationColumns) -> frozenset[str] | None:
    if isinstance(source, exp.Table):
        idents = table_identifiers(source)
        return None if idents is None else columns_of_table(tuple(i.name for i in idents))
    if isinstance(source, Scope):
        names = source.expression.named_selects if isinstance(source.expression, exp.Query) else None
        if not names or "*" in names:
            return None
        return frozenset(n.lower() for n in names)
    return None


def _check_bound(column: exp.Column, scope: Scope, columns_of_table: RelationColumns, shown: str) -> None:
    """A name of the body that is no parameter must be a column of the body's own relations: a
    body cannot read the columns of the query that calls it."""
    name, qualifier = column.name.lower(), column.table.lower()
    current: Scope | None = scope
    while current is not None:
        expression = current.expression
        if qualifier:
            if qualifier in {a.lower() for a in current.sources}:
                return
        else:
            if isinstance(expression, exp.Select) and name in {n.lower() for n in expression.named_selects}:
                return  # an output column's alias
            for source in current.sources.values():
                columns = _columns_of(source, columns_of_table)
                if columns is None or name in columns:
                    return  # a column of it, or unknown columns: the engine decides
        current = current.parent
    raise FunctionInliningError(
        "UDF_BODY_UNKNOWN_NAME",
        f"The body of table function {shown} names {column.sql()}, which is neither a parameter nor a "
        "column of the relations it reads",
    )


def _is_parameter(column: exp.Column, scope: Scope, columns_of_table: RelationColumns, shown: str) -> bool:
    name = column.name.lower()
    current: Scope | None = scope
    while current is not None:
        expression = current.expression
        if (
            isinstance(expression, exp.Select)
            and name in {n.lower() for n in expression.named_selects}
            and column.find_ancestor(exp.Order, exp.Having) is not None
        ):
            return False  # an output column's alias
        for source in current.sources.values():
            columns = _columns_of(source, columns_of_table)
            if columns is None:
                raise FunctionInliningError(
                    "UDF_PARAMETER_AMBIGUOUS",
                    f"In table function {shown}, {column.name} may be its parameter or a column of a "
                    "relation whose columns are not known; qualify the column or rename the parameter",
                )
            if name in columns:
                return False
        current = current.parent
    return True


def _call_edits(
    tree: exp.Expr, catalog: str, namespace: tuple[str, ...], dialect: str, qualify_call: CallQualifier
) -> list[tuple[Edit, tuple[str, ...]]]:
    """Calls of catalog functions in the body renamed to their qualified names (with the names)."""
    edits: list[tuple[Edit, tuple[str, ...]]] = []
    for site in call_sites(tree):
        qualified = qualify_call(site.written, catalog, namespace)
        if qualified is None or site.start is None or site.name_end is None:
            continue
        edit = (int(site.start), int(site.name_end) + 1, render_name(qualified, dialect, always_quote=True))
        edits.append((edit, qualified))
    return edits
