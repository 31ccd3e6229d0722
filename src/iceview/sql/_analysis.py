"""What view expansion needs from a statement's text, parsed once per text and cached.

Expansion reads the same view SQL again and again: every query over a view, and every view that
nests it. Parsing with sqlglot is most of expansion's own cost, and what expansion takes from a
parse depends on the text alone: the relation names with their positions, the positions of column
qualifiers, and the query's width. So :func:`analyse` keeps that (immutable) result per
``(text, dialect, case sensitivity)``; whether a name is a view, and what replaces it, is decided on
every call by the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from sqlglot import exp
from sqlglot.tokenizer_core import Token, TokenType

from iceview.sql._text import parse_with_tokens
from iceview.sql.references import name_span, relation_nodes, table_identifiers

__all__ = ["Analysis", "ColumnQualifier", "Relation", "analyse", "static_column_count"]

# Enough for every view of a large deployment's hot set; each entry is a few small tuples.
_CACHE_SIZE = 1024
_SPARK_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+\Z")


@dataclass(frozen=True)
class Relation:
    """A relation name in the SQL (not a CTE reference), in the order sqlglot's tree gives them.

    ``start``/``end`` (end exclusive) locate the dotted name; ``None`` if sqlglot lost the position.
    ``alias_at`` is where an alias for a replacing subquery goes (after a ``TABLESAMPLE`` clause in
    Spark's grammar). ``spark_lexable`` is false when an unquoted part has a character Spark's
    lexer does not allow in an identifier (anything but ASCII letters, digits and ``_``)."""

    written: tuple[str, ...]
    start: int | None
    end: int | None
    aliased: bool
    versioned: bool
    alias_at: int | None
    spark_lexable: bool = True
    table_form_at: int | None = None
    """For Spark's ``TABLE t`` query: where the word ``TABLE`` starts (replacing a view then
    rewrites ``TABLE v`` to ``SELECT * FROM (...) AS v``)."""


@dataclass(frozen=True)
class ColumnQualifier:
    """A column reference qualified with two or more parts (``ns.v.col``, ``ns.v.*``): the qualifier
    (normalised for case unless case-sensitive) and where it is."""

    key: tuple[str, ...]
    start: int
    end: int


@dataclass(frozen=True)
class Analysis:
    relations: tuple[Relation, ...]
    qualifiers: tuple[ColumnQualifier, ...]
    width: int | None
    """Columns the query returns, when the SQL alone shows it (see ``static_column_count``)."""
    cut: int
    """Where the statement ends: before trailing semicolons and comments."""
    is_query: bool
    """A query (``SELECT``, a set operation, a parenthesised query): analysing it has no side effects."""


def analyse(sql: str, dialect: str, *, what: str, case_sensitive: bool) -> Analysis:
    """The :class:`Analysis` of one statement. Raises :class:`~iceview.errors.SQLParseError` (not
    cached) if it does not parse; ``what`` names the SQL in that message."""
    # positional, so that every caller's call makes the same cache key
    return _analyse(sql, dialect, what, case_sensitive)


@lru_cache(maxsize=_CACHE_SIZE)
def _analyse(sql: str, dialect: str, what: str, case_sensitive: bool) -> Analysis:
    tree, tokens = parse_with_tokens(sql, dialect, what=what)
    spark_grammar = dialect.lower() in ("spark", "spark2", "databricks", "hive")
    relations: list[Relation] = []
    first_token = {t.start: k for k, t in enumerate(tokens)}
    for node, is_cte in relation_nodes(tree, case_sensitive=case_sensitive):
        if is_cte:
            continue
        idents = table_identifiers(node)
        assert idents is not None
        start, end = name_span(idents)
        alias_at = end
        if end is not None and spark_grammar:
            alias_at = _after_sample(tokens, end)
        relations.append(
            Relation(
                written=tuple(i.name for i in idents),
                start=start,
                end=end,
                aliased=bool(node.alias),
                versioned=node.args.get("version") is not None,
                alias_at=alias_at,
                table_form_at=_table_form(sql, tokens, first_token.get(start)) if start is not None else None,
                spark_lexable=all(
                    bool(i.args.get("quoted")) or _SPARK_IDENTIFIER.match(i.name) is not None for i in idents
                ),
            )
        )
    last = next((t for t in reversed(tokens) if t.token_type != TokenType.SEMICOLON), None)
    return Analysis(
        relations=tuple(relations),
        qualifiers=_qualifiers(tree, case_sensitive),
        width=static_column_count(tree),
        cut=last.end + 1 if last is not None else len(sql),
        is_query=isinstance(tree, exp.Query),
    )


_GENERATORS = frozenset(
    {
        "explode",
        "explode_outer",
        "posexplode",
        "posexplode_outer",
        "inline",
        "inline_outer",
        "stack",
        "json_tuple",
        "unnest",
        "columns",
    }
)


def _func_name(e: exp.Expr) -> str | None:
    if isinstance(e, exp.Anonymous):
        return e.name.lower()
    if isinstance(e, exp.Func):
        return e.sql_name().lower()
    return None


def static_column_count(tree: exp.Expr) -> int | None:
    """The number of columns a query returns if it can be seen in the SQL alone: ``None`` when a
    projection is ``*``/``t.*`` or an unaliased generator (``explode``, ``inline``, ...) whose
    width depends on types."""
    q = tree
    while isinstance(q, exp.Subquery):
        q = q.this
    if isinstance(q, exp.SetOperation):
        return None if q.args.get("by_name") else static_column_count(q.this)
    if isinstance(q, exp.Values):
        first = q.expressions[0] if q.expressions else None
        return len(first.expressions) if isinstance(first, exp.Tuple) else (1 if first is not None else None)
    if not isinstance(q, exp.Select):
        return None
    n = 0
    for e in q.expressions:
        if isinstance(e, exp.Aliases):
            n += len(e.expressions)
            continue
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
            return None
        if isinstance(e, exp.Alias):
            n += 1
            continue
        if _func_name(e) in _GENERATORS:
            return None
        n += 1
    return n


def _table_form(sql: str, tokens: list[Token], index: int | None) -> int | None:
    """Where the word ``TABLE`` of a ``TABLE t`` query starts, if the name at token ``index`` is
    one (``spark_query_forms`` put a ``FROM`` token on that word)."""
    if not index:
        return None
    prev = tokens[index - 1]
    if prev.token_type == TokenType.FROM and sql[prev.start : prev.end + 1].upper() == "TABLE":
        return prev.start
    return None


def _qualifiers(tree: exp.Expr, case_sensitive: bool) -> tuple[ColumnQualifier, ...]:
    out: list[ColumnQualifier] = []
    for col in tree.find_all(exp.Column):
        idents = [p for p in col.parts if isinstance(p, exp.Identifier)]
        # ns.v.col has the qualifier ns.v; so has ns.v.*
        qualifier = idents if isinstance(col.this, exp.Star) else idents[:-1]
        if len(qualifier) < 2 or len(qualifier) != len(col.parts) - 1:
            continue
        start, end = name_span(qualifier)
        if start is None or end is None:
            continue
        names = [i.name for i in qualifier]
        key = tuple(names) if case_sensitive else tuple(n.lower() for n in names)
        out.append(ColumnQualifier(key, start, end))
    return tuple(out)


def _after_sample(tokens: list[Token], end: int) -> int:
    """Where an alias goes after a table name ending at ``end``: after a ``TABLESAMPLE (...)
    [REPEATABLE (...)]`` clause, which Spark wants before the alias of a subquery."""
    i = next((k for k, t in enumerate(tokens) if t.end + 1 == end), None)
    if i is None:
        return end
    pos = end
    i += 1
    while i < len(tokens) and tokens[i].text.upper() in ("TABLESAMPLE", "REPEATABLE"):
        j = i + 1
        if j >= len(tokens) or tokens[j].token_type != TokenType.L_PAREN:
            break
        depth = 0
        while j < len(tokens):
            if tokens[j].token_type == TokenType.L_PAREN:
                depth += 1
            elif tokens[j].token_type == TokenType.R_PAREN:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= len(tokens):
            break
        pos = tokens[j].end + 1
        i = j + 1
    return pos
