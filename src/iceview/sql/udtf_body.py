"""A SQL table function's body (a query) made ready to expand as a subquery.

A ``udtf`` body is a query over the function's parameters and the relations it reads::

    SELECT name, color FROM fruits WHERE color = c

Its relation names are qualified with the function's own catalog and namespace (the rules of a
view's SQL, :func:`iceview.sql.qualify.qualify`), as are the catalog functions it calls. A bare
name that equals a parameter's name is the parameter unless a relation of its query (or of an
enclosing one) has a column of that name, as in a SQL routine; when a relation's columns are not
known the name is refused (``UDF_PARAMETER_AMBIGUOUS``) rather than guessed. The query must show
how many columns it returns (no ``*``) and return as many as the function's return struct has.

A body of another dialect is made a template in its own dialect first (so its parameters are told
from its columns by its own dialect's rules), then translated by the view translator
(:mod:`iceview.sql.udtf_translate`) and analysed again in the engine's dialect.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

from sqlglot import exp
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope, walk_in_scope
from sqlglot.tokenizer_core import TokenType

from iceview.errors import FunctionInliningError, SQLParseError
from iceview.sql._analysis import static_column_count
from iceview.sql._text import Edit, apply_edits, parse_with_tokens, quote_identifier, render_name
from iceview.sql.qualify import CatalogTest, qualify
from iceview.sql.references import table_identifiers
from iceview.sql.translate.model import translation_source
from iceview.sql.udf_body import BodyTemplate, CallQualifier, call_sites
from iceview.udf import types as ut
from iceview.udf.model import FunctionDefinition

__all__ = ["BodyTranslation", "RelationColumns", "table_body_template"]

RelationColumns = Callable[[tuple[str, ...]], "frozenset[str] | None"]
"""A relation's qualified name (catalog first) -> its column names, lower-cased, or ``None`` when
unknown."""

BodyTranslation = Callable[[str, BodyTemplate, str], str]
"""``(function as shown, its body's template in its own dialect, that dialect) -> the body in the
engine's dialect``, placeholders kept (:func:`iceview.sql.udtf_translate.translate_table_body`)."""


def table_body_template(
    name: str,
    function: tuple[str, ...],
    definition: FunctionDefinition,
    dialect: str,
    *,
    known_catalogs: CatalogTest,
    relation_columns: RelationColumns | None,
    qualify_call: CallQualifier,
    translation: BodyTranslation | None = None,
) -> BodyTemplate:
    """The current version's body of the table function ``definition`` as a template in
    ``dialect``: relation and function names qualified, parameters as placeholders. A body of
    another dialect is translated with ``translation`` (without it: ``UDF_NO_DIALECT``)."""
    shown = f"{name}({definition.signature()})"
    version = definition.current_version
    rep = version.sql_for(dialect)
    if rep is not None:
        return _template(
            shown, function, definition, rep.sql, dialect, known_catalogs, relation_columns, qualify_call
        )
    found = None if translation is None else translation_source(version, besides=dialect)
    if translation is None or found is None:
        raise FunctionInliningError(
            "UDF_NO_DIALECT",
            f"Table function {shown} has no {dialect} body (dialects: {', '.join(version.dialects) or 'none'})"
            + ("" if translation is None else "; none is translated"),
        )
    source = found.dialect.lower()
    template = _template(
        shown, function, definition, found.sql, source, known_catalogs, relation_columns, qualify_call
    )
    text = translation(shown, template, source)
    return _template(
        shown,
        function,
        definition,
        text,
        dialect,
        known_catalogs,
        relation_columns,
        qualify_call,
        placeholders=template.placeholders,
    )


def _template(
    shown: str,
    function: tuple[str, ...],
    definition: FunctionDefinition,
    body: str,
    dialect: str,
    known_catalogs: CatalogTest,
    relation_columns: RelationColumns | None,
    qualify_call: CallQualifier,
    *,
    placeholders: tuple[str, ...] | None = None,
) -> BodyTemplate:
    """``body`` as a template; with ``placeholders`` its parameters are already those names."""
    catalog, namespace = function[0], function[1:-1]
    try:
        text = qualify(
            body,
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

    if placeholders is None:
        params = {p.name.casefold(): i for i, p in enumerate(definition.parameters)}
        nonce = secrets.token_hex(6)
        placeholders = tuple(f"__iceview_{nonce}_{i}__" for i in range(len(definition.parameters)))
    else:  # a translated body: its parameters were placed before, in its own dialect
        params = {}
    placed = {p.casefold(): i for i, p in enumerate(placeholders)}
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
        for column in _own_columns(scope):
            held = placed.get(column.name.casefold()) if not column.table else None
            if held is not None:
                uses[held] += 1
                continue
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
            placed_text = placeholders[index]
            if isinstance(column.parent, exp.Select) and column.arg_key == "expressions":
                # a projection named by the parameter keeps its name: ORDER BY may refer to it
                placed_text += f" AS {quote_identifier(column.name, dialect)}"
            edits.append((int(start), int(end) + 1, placed_text))
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


def _own_columns(scope: Scope) -> Iterator[exp.Column]:
    """The columns written in ``scope`` itself (not in its subqueries, so each column is met in one
    scope only), in every clause: sqlglot's ``Scope.columns`` leaves out unqualified ones in
    ``HAVING`` and ``QUALIFY``, and in ``ORDER BY`` those named like an output column, which may all
    be parameters, and adds the correlated columns of its subqueries."""
    for node in walk_in_scope(scope.expression):
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            yield node


def _alias_reference(column: exp.Column, expression: exp.Expr) -> bool:
    """Whether an unqualified ``column`` may name an output column of ``expression`` (its query)
    rather than a column of its relations: in ``ORDER BY``, ``HAVING``, ``QUALIFY`` or ``GROUP BY``
    of a query with an output column of that name."""
    if not isinstance(expression, exp.Select) or column.table:
        return False
    if column.name.lower() not in {n.lower() for n in expression.named_selects}:
        return False
    clause = column.find_ancestor(exp.Order, exp.Having, exp.Qualify, exp.Group, exp.Select)
    return isinstance(clause, (exp.Order, exp.Having, exp.Qualify, exp.Group)) and clause.parent is expression


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
            if current is scope and _alias_reference(column, expression):
                return  # an output column's name
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
        if current is scope and _alias_reference(column, expression):
            return False  # an output column's name
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
