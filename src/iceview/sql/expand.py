"""View expansion: rewrite a query so that an engine without Iceberg's view support reads views.

Every reference to a view is replaced by a subquery built the way Iceberg-Spark resolves a view
(``ResolveViews.createViewRelation``):

* the view's SQL is qualified with the view's own default catalog and namespace
  (:mod:`iceview.sql.qualify`), and views it references are expanded in turn, each with its own
  defaults;
* its columns are bound **by ordinal** to the view's stored schema, cast to the stored types
  (Iceberg-Spark's ``UpCast``) and renamed to the schema's field names;
* the subquery keeps the reference's alias, or gets the view's name as its alias, so outer column
  references such as ``v.col`` (and ``ns.v.col``, which is rewritten to ``v.col``) still resolve.

For a view ``cat.db.v`` with schema ``(id long, data string)`` read from Spark, ``FROM db.v`` becomes::

    FROM (SELECT CAST(`__c0` AS BIGINT) AS id, CAST(`__c1` AS STRING) AS data FROM (
    <the view's SQL, qualified and expanded>
    ) AS `__v`(`__c0`, `__c1`)) AS v

Everything else of the query is kept byte for byte; only view and table names are touched.

Shadowing: a CTE shadows a view of the same one-part name; ``is_shadowed`` lets the caller say that
a name (as written in the outer query) is a temporary view. As in Iceberg-Spark, temporary views are
not visible inside views, whose names are all qualified.

Cycles are found at read time (:class:`~iceview.errors.ViewCycleError`, message in Iceberg's style
``Recursive cycle in view detected: cat.ns.v1 (cycle: cat.ns.v1 -> cat.ns.v2 -> cat.ns.v1)``);
:func:`find_cycle` / :func:`check_cycle` do Iceberg-Spark's check for ``CREATE OR REPLACE``.
Nesting is bounded by ``max_depth`` (Spark's ``spark.sql.view.maxNestedViewDepth`` is 100).

Engine-specific parts are parameters: the dialect (identifier quoting, parsing), the type names of
casts (``type_name``; built in for ``spark`` and ``duckdb``), a ``translate`` hook for views whose SQL
is in another dialect, a ``map_table`` hook to rename tables for the engine, and a ``column_count``
hook for the width of queries whose column count cannot be seen in the SQL (``SELECT *``), and a
``check_output`` hook: the engine's check of each view's query against its schema (for Spark,
Iceberg-Spark's up-cast rules in :mod:`iceview.spark.upcast`), which also gives the real width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pyiceberg.schema import Schema

from iceview.errors import (
    MissingDialectError,
    SQLParseError,
    TranslationError,
    ViewCycleError,
    ViewExpansionError,
)
from iceview.spec import ViewMetadata
from iceview.sql._analysis import Analysis, analyse, static_column_count
from iceview.sql._expand_parts import SPARK_LEXER, cycle_message, depth_message, statement_prefix
from iceview.sql._text import (
    Edit,
    apply_edits,
    quote_identifier,
    render_name,
)
from iceview.sql.qualify import CatalogTest, is_catalog_function, qualify, qualify_parts
from iceview.sql.types import TypeNamer, type_namer

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "Inline",
    "LaterCheck",
    "OutputCheck",
    "ResolvedView",
    "Resolver",
    "ViewExpander",
    "check_cycle",
    "cycle_message",
    "expand",
    "find_cycle",
    "static_column_count",
]

DEFAULT_MAX_DEPTH = 100


@dataclass(frozen=True)
class ResolvedView:
    """What expansion needs to know about a view.

    ``name`` is the view's full identifier, catalog first (``("prod", "db", "v")``); it is the
    view's identity for cycle detection. ``sql`` and ``dialect`` are the representation to expand.
    ``default_catalog`` is already resolved: the version's ``default-catalog``, or the view's own
    catalog when that is null. ``schema`` is the version's schema."""

    name: tuple[str, ...]
    sql: str
    dialect: str
    default_catalog: str
    default_namespace: tuple[str, ...]
    schema: Schema = field(repr=False)

    @classmethod
    def from_metadata(
        cls,
        name: Sequence[str],
        metadata: ViewMetadata,
        *,
        dialect: str = "spark",
        allow_other_dialect: bool = False,
    ) -> ResolvedView:
        """The current version of a view loaded from ``name`` (catalog first). Uses the SQL for
        ``dialect``; without one, raises :class:`~iceview.errors.TranslationError` naming the
        dialects the view has, or with ``allow_other_dialect`` takes the first SQL representation
        (then expansion needs a ``translate`` hook)."""
        name = tuple(name)
        if len(name) < 2:
            raise ValueError(f"A view name needs a catalog and a name: {name}")
        version = metadata.current_version
        rep = version.sql_for(dialect)
        if rep is None and allow_other_dialect:
            rep = version.sql_for(dialect, fallback=True)
        if rep is None:
            raise MissingDialectError(".".join(name), dialect, tuple(version.dialects))
        return cls.with_sql(name, metadata, rep.sql, rep.dialect)

    @classmethod
    def with_sql(cls, name: Sequence[str], metadata: ViewMetadata, sql: str, dialect: str) -> ResolvedView:
        """The current version of a view loaded from ``name`` (catalog first), read as ``sql`` in
        ``dialect`` (its own representation, or a translation of one)."""
        name = tuple(name)
        version = metadata.current_version
        return cls(
            name=name,
            sql=sql,
            dialect=dialect,
            default_catalog=version.default_catalog or name[0],
            default_namespace=tuple(version.default_namespace),
            schema=metadata.schema,
        )


Resolver = Callable[[tuple[str, ...]], "ResolvedView | None"]
"""Given a qualified relation name (catalog first), the view it names, or ``None`` if it is not a view."""

OutputCheck = Callable[["ResolvedView", str], "int | None"]
"""Given a view and its SQL (qualified, with each view inside it replaced by a one-row stand-in of
that view's checked output types), the number of columns that SQL returns (``None``: unknown);
raises :class:`~iceview.errors.ViewExpansionError` when the SQL's output cannot be read into the
view's stored schema."""

Inline = Callable[[str, str, tuple[str, ...], bool], str]
"""``inline(sql, catalog, namespace, outer) -> sql``: calls of catalog SQL UDFs in ``sql`` (the
query, ``outer``, or a view's body, its views already expanded) inlined, names resolved against
``catalog`` and ``namespace`` (:class:`iceview.sql.inline.FunctionInliner`)."""

LaterCheck = Callable[["ResolvedView", str, int, Sequence[str]], "str | None"]
"""``check_later(view, view SQL, column count, column names) -> guard or None``: see
:class:`ViewExpander`."""


# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rewritten:
    text: str
    width: int | None
    probe: str = ""
    """``text`` with each view inside replaced by a stand-in of its (checked) output types: what
    ``check_output`` analyses, so that a chain of views costs one level per view."""


class ViewExpander:
    """Expands view references for one engine. Reusable and stateless between calls (each
    :meth:`expand` memoises resolutions and expansions only for its own duration).

    * ``resolve``: qualified name (catalog first) → :class:`ResolvedView` or ``None``.
    * ``known_catalogs``: catalog names (or a predicate) for the qualification rules.
    * ``dialect``: the engine's SQL dialect (``spark``, ``duckdb``, any sqlglot dialect).
    * ``is_shadowed``: name as written in the outer query → whether a temporary view hides it.
    * ``type_name``: Iceberg type → the engine's type name (default: built-in for the dialect).
    * ``translate``: ``(sql, from_dialect, to_dialect) → sql`` for views whose SQL is in another
      dialect; it gets the view's SQL with every relation name qualified by the view's defaults.
      Without it such a view raises :class:`~iceview.errors.TranslationError`.
    * ``map_table``: qualified table name → the name to use in the engine, or ``None`` to keep it
      (inside views the qualified name is used). Called for tables, not views.
    * ``column_count``: expanded view SQL → its number of columns, for views whose width is not
      visible in the SQL (``SELECT *``); without it the schema's width is assumed.
    * ``check_output``: ``(view, view SQL) → column count or None``, called once per view and
      expansion, innermost views first, with the view's SQL in which the views inside it are
      stand-ins of their checked types (``SELECT CAST(NULL AS T) AS c, ...``); it raises
      :class:`~iceview.errors.ViewExpansionError` when the output cannot be read into the view's
      schema. Its count wins over the others.
    * ``check_later``: when given, a view whose column count is visible in its SQL is not checked
      during expansion: ``check_later(view, view SQL, count, columns)`` is called instead
      (innermost views first), and the caller must make sure of the check before it trusts the
      expansion: run ``check_output`` on the view, for example while the engine analyses the
      expansion, or return a *guard*: an SQL condition over ``columns`` (the names the view's query
      columns have in the expansion), added as ``WHERE <guard>`` under the view's casts, that the
      engine's analysis of the expansion refuses unless the check passes. A view whose count is not
      visible is checked at once.
    * ``inline``: ``(sql, catalog, namespace, outer) -> sql``, run on the query and on each view's body
      once its views are expanded: the engine's inlining of catalog SQL UDF calls
      (:class:`iceview.sql.inline.FunctionInliner`), names resolved with the SQL's own defaults.
    * ``inline_tables``: the same, run first, before views are expanded: calls of table functions
      in ``FROM`` replaced by subqueries of their bodies, whose views are then expanded.
    * ``max_depth``: the deepest nesting of views allowed.
    * ``case_sensitive``: how CTE names and column qualifiers are matched.
    """

    def __init__(
        self,
        resolve: Resolver,
        *,
        known_catalogs: CatalogTest,
        dialect: str = "spark",
        is_shadowed: Callable[[tuple[str, ...]], bool] | None = None,
        type_name: TypeNamer | None = None,
        translate: Callable[[str, str, str], str] | None = None,
        map_table: Callable[[tuple[str, ...]], Sequence[str] | None] | None = None,
        column_count: Callable[[str], int | None] | None = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
        case_sensitive: bool = False,
        check_output: OutputCheck | None = None,
        check_later: LaterCheck | None = None,
        inline: Inline | None = None,
        inline_tables: Inline | None = None,
    ) -> None:
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.resolve = resolve
        self.is_catalog = is_catalog_function(known_catalogs)
        self.dialect = dialect
        self.is_shadowed = is_shadowed
        self.type_name = type_name
        self.translate = translate
        self.map_table = map_table
        self.column_count = column_count
        self.check_output = check_output
        self.check_later = check_later
        self.inline = inline
        self.inline_tables = inline_tables
        self.max_depth = max_depth
        self.case_sensitive = case_sensitive

    # ------------------------------------------------------------------ public

    def expand(self, sql: str, *, current_catalog: str, current_namespace: Sequence[str]) -> str:
        """``sql`` (one statement in the engine's dialect) with every view reference expanded.
        Names in ``sql`` are resolved with the session's ``current_catalog`` and
        ``current_namespace``, as the engine would. Write targets (``INSERT INTO v``) are left alone.

        Raises :class:`~iceview.errors.SQLParseError` if sqlglot cannot parse ``sql``,
        :class:`~iceview.errors.ViewCycleError`, :class:`~iceview.errors.TranslationError` or
        :class:`~iceview.errors.ViewExpansionError` for a view that cannot be expanded."""
        prefix = statement_prefix(sql, self.dialect)
        if prefix:
            # EXPLAIN ... / DESCRIBE [QUERY] ...: expand the statement they wrap
            inner = self.expand(
                sql[prefix:], current_catalog=current_catalog, current_namespace=current_namespace
            )
            return sql[:prefix] + inner
        run = _Run(self)
        return run.rewrite(
            sql, self.dialect, current_catalog, tuple(current_namespace), chain=(), outer=True
        ).text

    def is_query(self, sql: str) -> bool:
        """Whether ``sql`` is a plain query (``SELECT``, a set operation, ...), whose analysis by
        the engine has no side effects. Raises :class:`~iceview.errors.SQLParseError` if it does
        not parse."""
        if statement_prefix(sql, self.dialect):
            return False
        return analyse(sql, self.dialect, what="query", case_sensitive=self.case_sensitive).is_query

    def view_query(self, view: ResolvedView) -> str:
        """A ``SELECT`` of the view's columns, expanded: what reading the view returns."""
        run = _Run(self)
        return run.view_select(view, chain=())

    # ------------------------------------------------------------------ cycles at CREATE OR REPLACE

    def find_cycle(
        self,
        view: Sequence[str],
        sql: str,
        *,
        current_catalog: str,
        current_namespace: Sequence[str],
        dialect: str | None = None,
    ) -> tuple[tuple[str, ...], ...] | None:
        """The cycle that replacing ``view`` (full name, catalog first) with the query ``sql`` would
        create, or ``None``. The path starts and ends with ``view``; names in ``sql`` appear as
        written, names inside other views as qualified, as in Iceberg-Spark's message. Views are
        compared by their resolved names, so ``v`` written for ``cat.ns.v`` is found too."""
        target = tuple(view)
        seen_ok: set[tuple[str, ...]] = set()
        on_path: set[tuple[str, ...]] = set()

        def walk(
            text: str,
            d: str,
            catalog: str,
            namespace: tuple[str, ...],
            path: tuple[tuple[str, ...], ...],
            outer: bool,
        ) -> tuple[tuple[str, ...], ...] | None:
            analysis = analyse(
                text, d, what="view SQL" if not outer else "query", case_sensitive=self.case_sensitive
            )
            for rel in analysis.relations:
                written = rel.written
                if outer and self.is_shadowed is not None and self.is_shadowed(written):
                    continue
                q = qualify_parts(
                    written,
                    default_catalog=catalog,
                    default_namespace=namespace,
                    known_catalogs=self.is_catalog,
                )
                rv = self.resolve(q)
                if rv is None:
                    continue
                step = (*path, written if outer else q)
                if rv.name == target:
                    return step
                if rv.name in seen_ok or rv.name in on_path:
                    continue  # a cycle elsewhere is reported when the view is read
                if len(step) > self.max_depth:
                    raise ViewExpansionError(depth_message(self.max_depth, step))
                on_path.add(rv.name)
                try:
                    found = walk(rv.sql, rv.dialect, rv.default_catalog, rv.default_namespace, step, False)
                except SQLParseError as e:
                    raise ViewExpansionError(f"Invalid SQL in view {'.'.join(rv.name)}: {e}") from e
                finally:
                    on_path.discard(rv.name)
                if found is not None:
                    return found
                seen_ok.add(rv.name)
            return None

        return walk(sql, dialect or self.dialect, current_catalog, tuple(current_namespace), (target,), True)

    def check_cycle(
        self,
        view: Sequence[str],
        sql: str,
        *,
        current_catalog: str,
        current_namespace: Sequence[str],
        dialect: str | None = None,
    ) -> None:
        """Raise :class:`~iceview.errors.ViewCycleError` with Iceberg-Spark's message if replacing
        ``view`` with ``sql`` creates a cycle (see :meth:`find_cycle`)."""
        cycle = self.find_cycle(
            view, sql, current_catalog=current_catalog, current_namespace=current_namespace, dialect=dialect
        )
        if cycle is not None:
            raise ViewCycleError(cycle_message(view, cycle), tuple(view), cycle)


class _Run:
    """The state of one expansion: memoised resolutions and view bodies."""

    def __init__(self, expander: ViewExpander) -> None:
        self.x = expander
        self.resolved: dict[tuple[str, ...], ResolvedView | None] = {}
        self.bodies: dict[tuple[str, ...], _Rewritten] = {}
        self.widths: dict[tuple[str, ...], int | None] = {}
        self.guards: dict[tuple[str, ...], str] = {}
        self._type_name: TypeNamer | None = expander.type_name

    def type_name(self) -> TypeNamer:
        if self._type_name is None:
            self._type_name = type_namer(self.x.dialect)
        return self._type_name

    def resolve(self, parts: tuple[str, ...]) -> ResolvedView | None:
        if parts not in self.resolved:
            self.resolved[parts] = self.x.resolve(parts)
        return self.resolved[parts]

    def q(self, name: str) -> str:
        return quote_identifier(name, self.x.dialect)

    # ------------------------------------------------------------------

    def rewrite(
        self,
        sql: str,
        dialect: str,
        catalog: str,
        namespace: tuple[str, ...],
        *,
        chain: tuple[tuple[str, ...], ...],
        outer: bool,
    ) -> _Rewritten:
        x = self.x
        if x.inline_tables is not None:
            sql = x.inline_tables(sql, catalog, namespace, outer)
        analysis = analyse(
            sql, dialect, what="query" if outer else "view SQL", case_sensitive=x.case_sensitive
        )
        edits: list[Edit] = []
        stand_ins: dict[int, tuple[str, str]] = {}  # edit index -> (view subquery, its stand-in)
        # names of views expanded without an alias: the qualifiers their columns may be written with
        unaliased: list[tuple[tuple[str, ...], str]] = []
        for rel in analysis.relations:
            written = rel.written
            if outer and x.is_shadowed is not None and x.is_shadowed(written):
                continue
            if not rel.spark_lexable and x.dialect.lower() in SPARK_LEXER:
                continue  # Spark's parser refuses the name (e.g. an unquoted vüé): left for its error
            qualified = qualify_parts(
                written, default_catalog=catalog, default_namespace=namespace, known_catalogs=x.is_catalog
            )
            start, end = rel.start, rel.end
            view = self.resolve(qualified)
            if view is None:
                new_name: Sequence[str] | None = x.map_table(qualified) if x.map_table is not None else None
                if new_name is None and not outer:
                    new_name = qualified
                if new_name is not None and tuple(new_name) != written:
                    if start is None or end is None:
                        raise ViewExpansionError(
                            f"Cannot rewrite {'.'.join(written)}: its position in the SQL is unknown"
                        )
                    edits.append((start, end, render_name(tuple(new_name), x.dialect)))
                    renamed = tuple(new_name)[-1].lower() != written[-1].lower()
                    if renamed and not rel.aliased and rel.table_form_at is None and rel.alias_at is not None:
                        # the engine's name for the table (DuckDB's registered Arrow table) is not
                        # what its columns are qualified with: keep the written name as its alias
                        alias = f" AS {self.q(written[-1])}"
                        if rel.alias_at == end:
                            edits[-1] = (start, end, edits[-1][2] + alias)
                        else:
                            edits.append((rel.alias_at, rel.alias_at, alias))
                        unaliased.append((written if outer else qualified, written[-1]))
                continue
            if start is None or end is None or rel.alias_at is None:
                raise ViewExpansionError(
                    f"Cannot expand view {'.'.join(written)}: its position in the SQL is unknown"
                )
            if rel.versioned:
                raise ViewExpansionError(f"Cannot time travel view {'.'.join(view.name)}")
            subquery = "(" + self.view_select(view, chain=chain) + ")"
            stand_ins[len(edits)] = (subquery, "(" + self.stand_in(view) + ")")
            if rel.table_form_at is not None:  # TABLE v: a query of its own
                alias = written[-1]
                edits.append((rel.table_form_at, end, f"SELECT * FROM {subquery} AS {self.q(alias)}"))
                unaliased.append((written if outer else qualified, alias))
            elif rel.aliased:
                edits.append((start, end, subquery))
            else:
                alias = written[-1]
                if rel.alias_at == end:
                    edits.append((start, end, f"{subquery} AS {self.q(alias)}"))
                else:
                    edits.append((start, end, subquery))
                    edits.append((rel.alias_at, rel.alias_at, f" AS {self.q(alias)}"))
                unaliased.append((written if outer else qualified, alias))
        if unaliased:
            edits.extend(self._column_edits(analysis, unaliased))
        if outer:
            return _Rewritten(self.inline(apply_edits(sql, edits), catalog, namespace, True), None)
        # a view body sits in parentheses: drop trailing semicolons and comments
        body = sql[: analysis.cut]
        probe = ""
        if x.check_output is not None:
            probe_edits = [
                (a, b, text.replace(*stand_ins[k], 1) if k in stand_ins else text)
                for k, (a, b, text) in enumerate(edits)
            ]
            probe = self.inline(apply_edits(body, probe_edits), catalog, namespace, False)
        text = self.inline(apply_edits(body, edits), catalog, namespace, False)
        return _Rewritten(text, analysis.width, probe)

    def inline(self, sql: str, catalog: str, namespace: tuple[str, ...], outer: bool) -> str:
        if self.x.inline is None:
            return sql
        return self.x.inline(sql, catalog, namespace, outer)

    def view_select(self, view: ResolvedView, *, chain: tuple[tuple[str, ...], ...]) -> str:
        x = self.x
        if view.name in chain:
            start = chain.index(view.name)
            cycle = (*chain[start:], view.name)
            raise ViewCycleError(cycle_message(view.name, cycle), view.name, cycle)
        if len(chain) >= x.max_depth:
            raise ViewExpansionError(depth_message(x.max_depth, (*chain, view.name)))
        body = self.bodies.get(view.name)
        if body is None:
            body = self._body(view, (*chain, view.name))
            self.bodies[view.name] = body
        fields = view.schema.fields
        if not fields:
            raise ViewExpansionError(f"View {'.'.join(view.name)} has no columns")
        width = body.width
        if x.check_output is not None:
            if view.name not in self.widths:
                if x.check_later is not None and width is not None:
                    columns = [self.q(f"__c{i}") for i in range(width)]
                    guard = x.check_later(view, body.probe, width, columns)
                    if guard is not None:
                        self.guards[view.name] = guard
                    self.widths[view.name] = None
                else:
                    self.widths[view.name] = x.check_output(view, body.probe)
            checked = self.widths[view.name]
            if checked is not None:
                width = checked
        if width is None and x.column_count is not None:
            width = x.column_count(body.text)
        if width is None:
            width = len(fields)
        if width < len(fields):
            raise ViewExpansionError(
                f"View {'.'.join(view.name)} cannot be read: its SQL returns {width} column"
                f"{'s' if width != 1 else ''} but its schema has {len(fields)} "
                f"({', '.join(f.name for f in fields)})"
            )
        namer = self.type_name()
        inner = [self.q(f"__c{i}") for i in range(width)]
        try:
            casts = ", ".join(
                f"CAST({inner[i]} AS {namer(f.field_type)}) AS {self.q(f.name)}" for i, f in enumerate(fields)
            )
        except TranslationError as e:
            raise TranslationError(f"Cannot read view {'.'.join(view.name)}: {e}") from e
        where = f" WHERE {self.guards[view.name]}" if view.name in self.guards else ""
        return f"SELECT {casts} FROM (\n{body.text}\n) AS {self.q('__v')}({', '.join(inner)}){where}"

    def stand_in(self, view: ResolvedView) -> str:
        """A one-row ``SELECT`` with the view's output names and types (``CAST(NULL AS T) AS c``):
        what a view already checked looks like to the analysis of the view around it."""
        namer = self.type_name()
        cols = ", ".join(
            f"CAST(NULL AS {namer(f.field_type)}) AS {self.q(f.name)}" for f in view.schema.fields
        )
        return f"SELECT {cols}"

    def _body(self, view: ResolvedView, chain: tuple[tuple[str, ...], ...]) -> _Rewritten:
        x = self.x
        sql = view.sql
        if view.dialect.lower() != x.dialect.lower():
            if x.translate is None:
                raise TranslationError(
                    f"View {'.'.join(view.name)} has SQL for dialect {view.dialect}, not {x.dialect}; "
                    "pass translate= to opt into translation"
                )
            # the hook sees every relation fully qualified (as iceview's own translations write
            # them), so it can look up schemas without knowing the view's default namespace
            try:
                sql = qualify(
                    sql,
                    default_catalog=view.default_catalog,
                    default_namespace=view.default_namespace,
                    known_catalogs=x.is_catalog,
                    dialect=view.dialect.lower(),
                )
            except SQLParseError as e:
                raise ViewExpansionError(f"Invalid SQL in view {'.'.join(view.name)}: {e}") from e
            sql = x.translate(sql, view.dialect, x.dialect)
        try:
            return self.rewrite(
                sql, x.dialect, view.default_catalog, view.default_namespace, chain=chain, outer=False
            )
        except SQLParseError as e:
            raise ViewExpansionError(f"Invalid SQL in view {'.'.join(view.name)}: {e}") from e

    def _column_edits(self, analysis: Analysis, unaliased: list[tuple[tuple[str, ...], str]]) -> list[Edit]:
        """``ns.v.col`` → ``v.col`` for views replaced by a subquery aliased ``v``."""
        if self.x.case_sensitive:
            names = [(parts, alias) for parts, alias in unaliased]
        else:
            names = [(tuple(p.lower() for p in parts), alias) for parts, alias in unaliased]
        edits: list[Edit] = []
        for qualifier in analysis.qualifiers:
            key = qualifier.key
            for parts, alias in names:
                if len(key) <= len(parts) and parts[-len(key) :] == key:
                    edits.append((qualifier.start, qualifier.end, self.q(alias)))
                    break
        return edits


# --------------------------------------------------------------------------------------------------
# functional API


def expand(
    sql: str,
    *,
    resolve: Resolver,
    current_catalog: str,
    current_namespace: Sequence[str],
    known_catalogs: CatalogTest,
    dialect: str = "spark",
    is_shadowed: Callable[[tuple[str, ...]], bool] | None = None,
    type_name: TypeNamer | None = None,
    translate: Callable[[str, str, str], str] | None = None,
    map_table: Callable[[tuple[str, ...]], Sequence[str] | None] | None = None,
    column_count: Callable[[str], int | None] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    case_sensitive: bool = False,
    check_output: OutputCheck | None = None,
) -> str:
    """:meth:`ViewExpander.expand` in one call; see :class:`ViewExpander` for the options."""
    return ViewExpander(
        resolve,
        known_catalogs=known_catalogs,
        dialect=dialect,
        is_shadowed=is_shadowed,
        type_name=type_name,
        translate=translate,
        map_table=map_table,
        column_count=column_count,
        max_depth=max_depth,
        case_sensitive=case_sensitive,
        check_output=check_output,
    ).expand(sql, current_catalog=current_catalog, current_namespace=current_namespace)


def find_cycle(
    view: Sequence[str],
    sql: str,
    *,
    resolve: Resolver,
    current_catalog: str,
    current_namespace: Sequence[str],
    known_catalogs: CatalogTest,
    dialect: str = "spark",
    is_shadowed: Callable[[tuple[str, ...]], bool] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> tuple[tuple[str, ...], ...] | None:
    """:meth:`ViewExpander.find_cycle` in one call."""
    return ViewExpander(
        resolve, known_catalogs=known_catalogs, dialect=dialect, is_shadowed=is_shadowed, max_depth=max_depth
    ).find_cycle(view, sql, current_catalog=current_catalog, current_namespace=current_namespace)


def check_cycle(
    view: Sequence[str],
    sql: str,
    *,
    resolve: Resolver,
    current_catalog: str,
    current_namespace: Sequence[str],
    known_catalogs: CatalogTest,
    dialect: str = "spark",
    is_shadowed: Callable[[tuple[str, ...]], bool] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> None:
    """:meth:`ViewExpander.check_cycle` in one call: raises
    :class:`~iceview.errors.ViewCycleError` with Iceberg-Spark's message."""
    ViewExpander(
        resolve, known_catalogs=known_catalogs, dialect=dialect, is_shadowed=is_shadowed, max_depth=max_depth
    ).check_cycle(view, sql, current_catalog=current_catalog, current_namespace=current_namespace)
