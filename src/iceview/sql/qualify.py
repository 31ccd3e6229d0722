"""Qualify a view's SQL with its default catalog and namespace, by Iceberg-Spark's rules.

Iceberg-Spark (``ResolveViews.qualifyTableIdentifiers``) rewrites each relation name of a view's
query before resolving it:

* a one-part name ``t`` becomes ``catalog.namespace.t`` (the namespace may have several levels, or
  none);
* a name of two or more parts whose first part is not a known catalog becomes ``catalog.parts``;
* a name whose first part is a known catalog stays as it is;
* CTE references are not relations and stay as they are (CTEs are substituted first).

The rewrite is done on the text: only the names change, everything else of the SQL is kept byte for
byte, and the new names are quoted where the dialect needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TypeAlias

from sqlglot import exp

from iceview.errors import ViewExpansionError
from iceview.sql._text import Edit, apply_edits, parse_one_statement, render_name
from iceview.sql.references import name_span, relation_nodes, table_identifiers

__all__ = ["CatalogTest", "is_catalog_function", "qualify", "qualify_parts"]

CatalogTest: TypeAlias = Collection[str] | Callable[[str], bool]
"""The known catalogs: a collection of names (matched exactly) or a predicate."""


def is_catalog_function(known_catalogs: CatalogTest) -> Callable[[str], bool]:
    """A predicate from a collection of catalog names or a predicate."""
    if callable(known_catalogs):
        return known_catalogs
    names = frozenset(known_catalogs)
    return names.__contains__


def qualify_parts(
    parts: Sequence[str],
    *,
    default_catalog: str,
    default_namespace: Sequence[str],
    known_catalogs: CatalogTest,
) -> tuple[str, ...]:
    """A relation name qualified by Iceberg-Spark's rules (see the module docstring)."""
    parts = tuple(parts)
    if not parts:
        raise ValueError("empty name")
    if len(parts) == 1:
        return (default_catalog, *default_namespace, parts[0])
    if is_catalog_function(known_catalogs)(parts[0]):
        return parts
    return (default_catalog, *parts)


def qualify(
    sql: str,
    *,
    default_catalog: str,
    default_namespace: Sequence[str],
    known_catalogs: CatalogTest,
    dialect: str = "spark",
    always_quote: bool = False,
    case_sensitive: bool = False,
) -> str:
    """``sql`` with every relation name qualified (see the module docstring), in the same dialect.

    ``known_catalogs`` should include ``default_catalog``. Rewritten names have their parts quoted
    when they are not plain identifiers or are keywords of the dialect (``always_quote``: every
    part). ``case_sensitive`` controls how CTE names are matched (Spark and DuckDB: insensitive)."""
    tree = parse_one_statement(sql, dialect, what="view SQL")
    edits = qualify_edits(
        tree,
        default_catalog=default_catalog,
        default_namespace=default_namespace,
        known_catalogs=known_catalogs,
        dialect=dialect,
        always_quote=always_quote,
        case_sensitive=case_sensitive,
    )
    return apply_edits(sql, edits)


def qualify_edits(
    tree: exp.Expr,
    *,
    default_catalog: str,
    default_namespace: Sequence[str],
    known_catalogs: CatalogTest,
    dialect: str,
    always_quote: bool = False,
    case_sensitive: bool = False,
) -> list[Edit]:
    """The text edits that qualify ``tree``'s relation names."""
    edits: list[Edit] = []
    for node, is_cte in relation_nodes(tree, case_sensitive=case_sensitive):
        if is_cte:
            continue
        idents = table_identifiers(node)
        assert idents is not None
        parts = tuple(i.name for i in idents)
        qualified = qualify_parts(
            parts,
            default_catalog=default_catalog,
            default_namespace=default_namespace,
            known_catalogs=known_catalogs,
        )
        if qualified == parts and not always_quote:
            continue
        start, end = name_span(idents)
        if start is None or end is None:
            raise ViewExpansionError(f"Cannot qualify {'.'.join(parts)}: its position in the SQL is unknown")
        edits.append((start, end, render_name(qualified, dialect, always_quote=always_quote)))
    return edits
