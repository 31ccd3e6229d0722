"""How names resolve, where the engines and the translation's typing would not agree.

* **Name capture** (``name-capture``): a qualified name ``x.v`` in a subquery whose qualifier ``x``
  is a table alias of an enclosing query and also a column of a relation the subquery (or a query
  between the two) reads. Spark, DuckDB and Trino look a name up in the innermost query first:
  there ``x.v`` is field ``v`` of the struct column ``x`` (for a column that is not a struct, an
  error in Spark and the outer column in DuckDB). sqlglot, whose typing the rules read, resolves it
  to the outer alias, so the rules would see the outer column's type (a double typed as a decimal
  skips every NaN rule). Within one query a table alias wins over a column in every engine and in
  sqlglot alike, so ``x.v`` there is kept. From DuckDB, a relation's name used as a value is its
  whole row, which the typing takes for a column.
* DuckDB's implicit ``LATERAL`` (``lateral-subquery``), a column named with its relation's
  namespace (``qualified-column``), correlated subqueries Spark cannot plan
  (``correlated-subquery``), and ``*`` whose columns come out otherwise (``star-using``,
  ``star-modifier``).
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from iceview.sql.translate.model import TableSchemas, TranslationIssue, short

NAMES_CODES = frozenset(
    {"name-capture", "qualified-column", "correlated-subquery", "star-using", "star-modifier"}
)
"""The refusal codes of the name checks."""

_UNKNOWN: frozenset[str] | None = None


def _cte_columns(tree: exp.Expr) -> dict[str, frozenset[str] | None]:
    columns: dict[str, frozenset[str] | None] = {}
    for cte in tree.find_all(exp.CTE):
        names = cte.args.get("alias") and cte.args["alias"].columns
        if names:
            columns[cte.alias_or_name.lower()] = frozenset(n.name.lower() for n in names)
        elif isinstance(cte.this, exp.Query):
            columns[cte.alias_or_name.lower()] = _selects(cte.this)
    return columns


def _is_star(projection: exp.Expr) -> bool:
    return isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star)


def _selects(query: exp.Query) -> frozenset[str] | None:
    if any(_is_star(s) for s in query.selects):
        return _UNKNOWN  # an unexpanded *: its columns are not known here
    return frozenset(name.lower() for name in query.named_selects)


class _Sources:
    """The columns of a query's relations: from the schemas, the CTEs and the derived tables."""

    def __init__(self, tree: exp.Expr, schemas: TableSchemas) -> None:
        self._tables = {
            tuple(part.lower() for part in name): frozenset(f.name.lower() for f in schema.fields)
            for name, schema in schemas.items()
        }
        self._ctes = _cte_columns(tree)

    def columns(self, source: exp.Expr) -> frozenset[str] | None:
        """The column names ``source`` (a FROM or JOIN item) gives its query; None when unknown."""
        alias = source.args.get("alias")
        if isinstance(alias, exp.TableAlias) and alias.columns:
            return frozenset(c.name.lower() for c in alias.columns)
        if isinstance(source, exp.Table):
            if isinstance(source.this, exp.Func):
                return _UNKNOWN
            parts = tuple(p.name.lower() for p in source.parts)
            if len(parts) == 1 and parts[0] in self._ctes:
                return self._ctes[parts[0]]
            return self._tables.get(parts, _UNKNOWN)
        if isinstance(source, exp.Subquery) and isinstance(source.this, exp.Query):
            return _selects(source.this)
        return _UNKNOWN


def _from_items(select: exp.Select) -> Iterator[exp.Expr]:
    from_ = select.args.get("from_") or select.args.get("from")
    if isinstance(from_, exp.From):
        yield from_.this
    for join in select.args.get("joins") or ():
        yield join.this
    yield from select.args.get("laterals") or ()


def _aliases(items: list[exp.Expr]) -> set[str]:
    return {item.alias_or_name.lower() for item in items if item.alias_or_name}


def _select_aliases(select: exp.Select) -> set[str]:
    """The aliases (or names) of the relations ``select`` reads."""
    return _aliases(list(_from_items(select)))


def _enclosing_selects(node: exp.Expr) -> Iterator[tuple[exp.Select, bool]]:
    """The queries ``node`` sits in, innermost first, up to a CTE's body (a CTE sees no enclosing
    query's aliases); with each, whether the way there left a derived table (a FROM or JOIN item
    without ``LATERAL``, which sees no alias of its query in Spark and Trino)."""
    child, parent, derived = node, node.parent, False
    while parent is not None:
        if isinstance(parent, exp.Select):
            yield parent, derived
            derived = False
        if (
            isinstance(parent, exp.Subquery)
            and parent.this is child  # not its PIVOT, which reads the derived table's columns
            and isinstance(parent.parent, (exp.From, exp.Join))
        ):
            derived = True
        if isinstance(parent, exp.CTE):
            return
        child, parent = parent, parent.parent


def capture_issues(tree: exp.Expr, schemas: TableSchemas | None, dialect: str) -> list[TranslationIssue]:
    """``name-capture`` for each qualified name whose qualifier is an outer query's alias and a
    column (or a column not known) of a relation read in between; ``lateral-subquery`` for one in
    a derived table that names an alias of the derived table's own query (DuckDB's implicit
    ``LATERAL``)."""
    sources = _Sources(tree, schemas or {}) if schemas is not None else None
    issues: list[TranslationIssue] = []
    for column in tree.find_all(exp.Column):
        parts = column.parts
        if len(parts) < 2:
            continue
        qualifier = parts[0].name.lower()
        between: list[str] = []  # the relations read between the name and its alias
        unknown: list[str] = []
        for depth, (select, derived) in enumerate(_enclosing_selects(column)):
            items = list(_from_items(select))
            if qualifier in _aliases(items):
                if derived:
                    issues.append(_implicit_lateral(column, qualifier, dialect))
                elif depth > 0 and (between or unknown):
                    issues.append(_issue(column, qualifier, between, unknown, dialect))
                break
            if sources is None:
                continue
            for item in items:
                names = sources.columns(item)
                if names is None:
                    unknown.append(item.alias_or_name or short(item, dialect))
                elif qualifier in names:
                    between.append(item.alias_or_name)
    return issues


def written_name_issues(tree: exp.Expr, dialect: str) -> list[TranslationIssue]:
    """Checks of names as the query's author wrote them (before sqlglot qualifies its columns):

    * from DuckDB, an unqualified name that is a relation's alias of the query or of an enclosing
      one: DuckDB reads it as that relation's whole row (``WHERE t IS NULL``, ``count(t)``), the
      translation as a column of that name (``name-capture``);
    * a column qualified with its relation's namespace (``db.t.x``): the translation names the
      relation ``AS t``, so no engine but DuckDB resolves it (``qualified-column``; write ``t.x``)."""
    issues: list[TranslationIssue] = []
    for column in tree.find_all(exp.Column):
        parts = [p.name.lower() for p in column.parts]
        selects = [select for select, _ in _enclosing_selects(column)]
        if len(parts) == 1 and dialect == "duckdb" and not isinstance(column.parent, exp.Dot):
            if any(parts[0] in _select_aliases(s) for s in selects):
                issues.append(
                    TranslationIssue(
                        "name-capture",
                        short(column, dialect),
                        f"{parts[0]!r} is a relation's name: DuckDB reads it as the relation's whole row, "
                        "the other engines as a column",
                    )
                )
        elif len(parts) >= 3 and not any(parts[0] in _select_aliases(s) for s in selects):
            qualifier = tuple(parts[:-1])
            for s in selects:
                for item in _from_items(s):
                    if isinstance(item, exp.Table) and item.args.get("alias") is None:
                        name = tuple(p.name.lower() for p in item.parts)
                        if len(name) > len(qualifier) and name[-len(qualifier) :] == qualifier:
                            issues.append(
                                TranslationIssue(
                                    "qualified-column",
                                    short(column, dialect),
                                    f"a column qualified with its relation's namespace: the translation "
                                    f"names the relation {qualifier[-1]!r}, so write {qualifier[-1]}.{parts[-1]}",
                                )
                            )
    return issues


def _correlated(query: exp.Expr) -> bool:
    """Whether ``query`` (a subquery) names a relation of an enclosing query."""
    inner = {alias for select in query.find_all(exp.Select) for alias in _select_aliases(select)}
    return any(
        len(column.parts) > 1 and column.parts[0].name.lower() not in inner
        for column in query.find_all(exp.Column)
    )


_SPARK_UNPLANNED: dict[type[exp.Expr], str] = {
    exp.Order: "ORDER BY",
    exp.Group: "GROUP BY",
    exp.Join: "a join's ON",
}


def spark_subquery_issues(tree: exp.Expr, target: str, dialect: str) -> list[TranslationIssue]:
    """Into Spark: a correlated subquery in ``ORDER BY``, ``GROUP BY`` or a join's ``ON``, which
    DuckDB and Trino run and Spark 3.5 cannot plan (``UNRESOLVED_COLUMN``, or an internal error)."""
    if target != "spark":
        return []
    issues: list[TranslationIssue] = []
    for query in tree.find_all(exp.Exists, exp.Subquery):
        if isinstance(query.parent, (exp.From, exp.Join, exp.Lateral)) or not _correlated(query):
            continue
        where = query.find_ancestor(exp.Order, exp.Group, exp.Join, exp.Select)
        clause = _SPARK_UNPLANNED.get(type(where)) if where is not None else None
        if clause is not None:
            issues.append(
                TranslationIssue(
                    "correlated-subquery",
                    short(query, dialect),
                    f"a correlated subquery in {clause}: Spark 3.5 cannot plan it (it can in WHERE, "
                    "HAVING and the SELECT list)",
                )
            )
    return issues


def _implicit_lateral(column: exp.Column, qualifier: str, dialect: str) -> TranslationIssue:
    return TranslationIssue(
        "lateral-subquery",
        short(column, dialect),
        f"a derived table names {qualifier!r}, an alias of its own query: DuckDB reads it as a LATERAL "
        f"subquery without the keyword, Spark and Trino do not resolve it",
    )


def _issue(
    column: exp.Column, qualifier: str, between: list[str], unknown: list[str], dialect: str
) -> TranslationIssue:
    if between:
        reason = (
            f"{qualifier!r} is an alias of an enclosing query and a column of {', '.join(sorted(set(between)))} "
            f"read inside: the engines look the name up inside first (a struct field, or an error), the "
            f"translation's typing outside; rename the alias"
        )
    else:
        reason = (
            f"{qualifier!r} is an alias of an enclosing query, and the columns of {', '.join(sorted(set(unknown)))} "
            f"read inside are not known: the engines would take a column of that name first"
        )
    return TranslationIssue("name-capture", short(column, dialect), reason)


def star_issues(tree: exp.Expr, work: exp.Expr, source: str, typed: bool) -> list[TranslationIssue]:
    """``*`` the translation cannot carry as it is:

    * over a ``USING`` or ``NATURAL`` join (``star-using``): Spark puts the join columns first,
      DuckDB keeps each relation's own order. Only from Spark with the schemas known is ``*``
      expanded in Spark's order;
    * with DuckDB's ``EXCLUDE``/``REPLACE`` left unexpanded (no schemas: ``star-modifier``): Spark
      3.5 parses neither."""
    issues: list[TranslationIssue] = []
    if not (source == "spark" and typed):
        for select in tree.find_all(exp.Select):
            joins = select.args.get("joins") or ()
            if any(_is_star(s) for s in select.expressions) and any(
                j.args.get("using") or j.args.get("method") == "NATURAL" for j in joins
            ):
                issues.append(
                    TranslationIssue(
                        "star-using",
                        short(select, source),
                        "* over a USING or NATURAL join: Spark puts the join columns first, DuckDB keeps "
                        "each relation's order (name the columns)",
                    )
                )
    for star in work.find_all(exp.Star):
        if any(star.args.get(k) for k in ("except_", "except", "replace", "rename")):
            issues.append(
                TranslationIssue(
                    "star-modifier",
                    short(star, source),
                    "* with EXCLUDE or REPLACE and no schemas to expand it: Spark 3.5 parses neither",
                )
            )
    return issues
