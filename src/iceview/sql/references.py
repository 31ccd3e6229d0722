"""Table references of a query: the relation names it reads, with CTE scoping.

A reference is a relation name in ``FROM`` or ``JOIN`` (also inside parenthesised joins), in any
subquery (``FROM (...)``, ``IN (...)``, ``EXISTS (...)``, scalar subqueries), in CTE bodies, in every
branch of a set operation, and the source of ``MERGE ... USING``. Names may have any number of
parts (``t``, ``ns.t``, ``cat.ns.t``, ``cat.ns1.ns2.t``). Targets of writes (``INSERT INTO t``,
``CREATE TABLE t AS``, the ``MERGE`` target) are not references, and neither are table-valued
functions (``range(10)``, ``read_parquet(...)``).

CTE scoping: a CTE name shadows a **one-part** name within the CTE's scope: the rest of its
``WITH`` (later CTEs and the main query), including nested subqueries, but not its own body unless
the ``WITH`` is ``RECURSIVE``. A ``WITH`` nested in a subquery has its own scope; its names shadow
outer ones inside it only. Names are compared case-insensitively, as Spark and DuckDB do by default.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlglot import exp

from iceview.sql._text import parse_one_statement

__all__ = [
    "FunctionCall",
    "TableReference",
    "find_function_calls",
    "find_references",
    "relation_nodes",
]


@dataclass(frozen=True)
class TableReference:
    """A relation name read by a query.

    ``parts`` are the name's parts as written (unquoted, case kept); ``quoted`` says which were
    quoted. ``alias`` is the table alias, if any. ``start``/``end`` delimit the name in the SQL text
    (``sql[start:end]``), ``None`` if sqlglot did not record positions. ``cte`` is true for a
    reference to a CTE (only returned with ``include_ctes=True``)."""

    parts: tuple[str, ...]
    alias: str | None = None
    quoted: tuple[bool, ...] = ()
    start: int | None = None
    end: int | None = None
    cte: bool = False
    node: exp.Table | None = field(default=None, compare=False, repr=False, hash=False)

    @property
    def name(self) -> str:
        """The last part: the table or view name."""
        return self.parts[-1]


@dataclass(frozen=True)
class FunctionCall:
    """A call of a function sqlglot does not know as a built-in (a UDF or temporary function
    candidate): ``parts`` of its name as written."""

    parts: tuple[str, ...]


def find_references(
    sql: str | exp.Expr,
    dialect: str = "spark",
    *,
    include_ctes: bool = False,
    case_sensitive: bool = False,
) -> list[TableReference]:
    """The table references of a statement, in source order. ``sql`` is SQL text in ``dialect`` or
    an already parsed sqlglot expression. References to CTEs are left out unless
    ``include_ctes``."""
    tree = parse_one_statement(sql, dialect, what="query") if isinstance(sql, str) else sql
    refs = [
        _reference(node, is_cte)
        for node, is_cte in relation_nodes(tree, case_sensitive=case_sensitive)
        if include_ctes or not is_cte
    ]
    refs.sort(key=lambda r: (r.start is None, r.start or 0))
    return refs


def _reference(node: exp.Table, is_cte: bool) -> TableReference:
    idents = table_identifiers(node)
    assert idents is not None
    start, end = name_span(idents)
    return TableReference(
        parts=tuple(i.name for i in idents),
        alias=node.alias or None,
        quoted=tuple(bool(i.args.get("quoted")) for i in idents),
        start=start,
        end=end,
        cte=is_cte,
        node=node,
    )


def table_identifiers(node: exp.Table) -> list[exp.Identifier] | None:
    """The identifiers of a table's name, or ``None`` if it is not a plain name (a table-valued
    function, ``IDENTIFIER(...)``, ...)."""
    parts = node.parts
    if not parts or not all(isinstance(p, exp.Identifier) for p in parts):
        return None
    if not isinstance(node.this, (exp.Identifier, exp.Dot)):
        return None
    return [p for p in parts if isinstance(p, exp.Identifier)]


def name_span(idents: list[exp.Identifier]) -> tuple[int | None, int | None]:
    """``(start, end)`` of a dotted name in the source text, end exclusive."""
    first, last = idents[0].meta, idents[-1].meta
    if "start" not in first or "end" not in last:
        return None, None
    return int(first["start"]), int(last["end"]) + 1


def _is_relation(node: exp.Table) -> bool:
    parent = node.parent
    if isinstance(parent, (exp.From, exp.Join)):
        return True
    if isinstance(parent, exp.Subquery) and node.arg_key == "this":
        return True
    return isinstance(parent, exp.Merge) and node.arg_key == "using"


def relation_nodes(tree: exp.Expr, *, case_sensitive: bool = False) -> Iterator[tuple[exp.Table, bool]]:
    """Every relation-name ``Table`` node of ``tree`` with whether it names a CTE in scope.
    Iterative, so deeply nested queries do not hit Python's recursion limit."""

    def norm(name: str) -> str:
        return name if case_sensitive else name.lower()

    stack: list[tuple[exp.Expr, frozenset[str]]] = [(tree, frozenset())]
    while stack:
        node, scope = stack.pop()
        skip: set[str] = set()
        if isinstance(node, exp.Table) and _is_relation(node):
            idents = table_identifiers(node)
            if idents is not None:
                is_cte = len(idents) == 1 and norm(idents[0].name) in scope
                yield node, is_cte
                skip = {"this", "db", "catalog"}
        with_ = node.args.get("with_")
        inner = scope
        if isinstance(with_, exp.With):
            recursive = bool(with_.args.get("recursive"))
            bodies: list[tuple[exp.Expr, frozenset[str]]] = []
            for cte in with_.expressions:
                name = norm(cte.alias_or_name)
                bodies.append((cte.this, inner | {name} if recursive else inner))
                inner = inner | {name}
            # CTE aliases may carry column lists; only the bodies hold references
            stack.extend(reversed(bodies))
            skip.add("with_")
        children: list[exp.Expr] = []
        for key, value in node.args.items():
            if key in skip or value is None:
                continue
            if isinstance(value, list):
                children.extend(v for v in value if isinstance(v, exp.Expr))
            elif isinstance(value, exp.Expr):
                children.append(value)
        stack.extend((c, inner) for c in reversed(children))


def find_function_calls(sql: str | exp.Expr, dialect: str = "spark") -> list[FunctionCall]:
    """Calls of functions that are not sqlglot built-ins, in source order of discovery: the
    candidates for temporary or persistent user functions (a check Iceberg-Spark makes at CREATE)."""
    tree = parse_one_statement(sql, dialect, what="query") if isinstance(sql, str) else sql
    out: list[FunctionCall] = []
    for node in tree.walk():
        if isinstance(node, exp.Anonymous):
            name = node.name
            parent = node.parent
            if isinstance(parent, exp.Dot) and parent.expression is node:
                out.append(FunctionCall((*_flatten(parent.this), name)))
            else:
                out.append(FunctionCall((name,)))
    return out


def _flatten(e: exp.Expr) -> list[str]:
    if isinstance(e, exp.Dot):
        return _flatten(e.this) + _flatten(e.expression)
    if isinstance(e, exp.Column):
        return [p.name for p in e.parts]
    return [e.name]
