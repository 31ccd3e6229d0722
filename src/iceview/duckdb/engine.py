"""The DuckDB engine: view expansion plus PyIceberg tables registered as Arrow tables."""

from __future__ import annotations

import importlib
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from iceview.catalog.interface import Catalog, close_table_catalog
from iceview.errors import MissingDialectError, NoSuchViewError
from iceview.identifiers import NamespaceLike
from iceview.spec import SQLRepresentation, ViewMetadata
from iceview.sql import ResolvedView, ViewExpander, render_name, type_namer
from iceview.sql.inline import FunctionInliner, maybe_calls, source_preparer
from iceview.sql.translate import Translation, spark_ansi_mode, translation_source
from iceview.sql.udf_body import BodyTemplate
from iceview.view.reading import engine_sql

__all__ = ["DuckDBViews"]

DIALECT = "duckdb"
_DUCKDB_CATALOGS = frozenset({"memory", "system", "temp"})


_ABOUT = re.compile(
    r"\s*(?P<keyword>(?:DESCRIBE|DESC|SUMMARIZE)(?:\s+TABLE)?|EXPLAIN(?:\s+ANALYZE)?)\s+(?P<subject>.+)\Z",
    re.I | re.S,
)
"""Statements about a query: DuckDB runs them on the expanded query (``TABLE`` is dropped)."""
_QUERY_START = re.compile(r"\s*(\(|SELECT\b|WITH\b|FROM\b|VALUES\b|TABLE\b)", re.I)


def _import_duckdb() -> Any:
    try:
        return importlib.import_module("duckdb")
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("iceview.duckdb needs DuckDB: pip install 'iceview[duckdb]'") from e


def _namespace(namespace: NamespaceLike | None) -> tuple[str, ...]:
    if namespace is None:
        return ()
    if isinstance(namespace, str):
        return tuple(namespace.split(".")) if namespace else ()
    return tuple(namespace)


class DuckDBViews:
    """Queries over the views and tables of one iceview catalog, run in DuckDB.

    * ``catalog``: the view catalog (:class:`iceview.catalog.SqlCatalog`, ...); its name is the
      catalog part of qualified names (``<catalog>.<namespace>.<name>``).
    * ``namespace``: the current namespace for names in your queries.
    * ``connection``: a DuckDB connection to use (default: a new in-memory one).
    * ``tables``: PyIceberg's catalog holding the tables (default: ``catalog.table_catalog()``,
      PyIceberg's ``SqlCatalog`` on the same database and warehouse).
    * ``translate``: a view without ``duckdb`` SQL is read by translating another of its
      representations (``spark``, else ``trino``, else the first; :func:`iceview.view.reading.engine_sql`)
      with :func:`iceview.sql.translate`, with the view's defaults, the schemas of the relations it
      reads (from the catalog), so the type-aware rules apply, and the Spark semantics its version
      records (:func:`iceview.sql.translate.spark_ansi_mode`). With ``strict`` (default) unsafe SQL
      raises :class:`~iceview.errors.ViewTranslationRefusedError` (the view, its dialects, each
      construct); without it the issues are collected in :attr:`warnings` (each translation
      once). ``False`` reads only ``duckdb`` representations; or pass any
      ``(sql, from_dialect, to_dialect) -> sql`` hook (:func:`iceview.sql.translation_hook`).
    * ``known_catalogs``: more catalog names a qualified name may start with.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        namespace: NamespaceLike | None = None,
        connection: Any = None,
        tables: Any = None,
        translate: bool | Callable[[str, str, str], str] = True,
        strict: bool = True,
        known_catalogs: Collection[str] = (),
        max_depth: int = 100,
    ) -> None:
        duckdb = _import_duckdb()
        self.catalog = catalog
        self.namespace = _namespace(namespace)
        self.connection = connection if connection is not None else duckdb.connect()
        self._owns_connection = connection is None
        self._tables = tables
        self._owns_tables = False
        self.known_catalogs = frozenset({catalog.name, *known_catalogs, *_DUCKDB_CATALOGS})
        self.warnings: list[Translation] = []
        self.strict = strict
        # True: translate in _resolved (with the view's defaults and schemas); a hook: the expander's
        hook: Callable[[str, str, str], str] | None = None if isinstance(translate, bool) else translate
        self._hook = hook
        self.translates = translate is not False
        self._registered: dict[tuple[str, ...], tuple[str, int | None]] = {}
        self._counter = itertools.count()
        self.expander = ViewExpander(
            self._resolve,
            known_catalogs=self.known_catalogs,
            dialect=DIALECT,
            type_name=type_namer(DIALECT),
            translate=hook,
            map_table=self._map_table,
            column_count=self._column_count,
            max_depth=max_depth,
            inline=self._inline,
            inline_tables=self._inline_tables,
        )
        self._function_bodies: dict[tuple[object, ...], BodyTemplate] = {}
        # per statement: functions read once, and which one-part names are DuckDB's
        self._statement_functions: dict[tuple[str, ...], Any] = {}
        self._statement_builtins: dict[str, bool] = {}

    # ------------------------------------------------------------------ queries

    def expand(self, query: str) -> str:
        """``query`` (DuckDB SQL) with its views expanded and its tables mapped to registered
        Arrow tables."""
        self._new_statement()
        return self.expander.expand(
            query, current_catalog=self.catalog.name, current_namespace=self.namespace
        )

    def sql(self, query: str) -> Any:
        """Run ``query`` (DuckDB SQL; views and tables of the catalog by name): a DuckDB relation
        (``.fetchall()``, ``.arrow()``, ``.df()``, ``.columns``, ``.types``). ``DESCRIBE``,
        ``SUMMARIZE`` and ``EXPLAIN [ANALYZE]`` of a query, view or table run on the expanded query."""
        about = _ABOUT.match(query)
        if about is None:
            return self.connection.sql(self.expand(query))
        keyword = " ".join(w for w in about.group("keyword").split() if w.upper() != "TABLE")
        subject = about.group("subject").rstrip().rstrip(";")
        if not _QUERY_START.match(subject):  # a view or table name
            subject = f"SELECT * FROM {subject}"
        return self.connection.sql(f"{keyword} {self.expand(subject)}")

    def execute(self, query: str) -> list[tuple[Any, ...]]:
        """Run ``query`` and return its rows."""
        rows: list[tuple[Any, ...]] = self.sql(query).fetchall()
        return rows

    def view_query(self, identifier: str | Sequence[str]) -> str:
        """The DuckDB SQL that reading one view runs (expanded)."""
        parts = self._qualified(identifier)
        view = self._resolve(parts)
        if view is None:
            raise NoSuchViewError(f"View does not exist: {'.'.join(parts)}")
        self._new_statement()
        return self.expander.view_query(view)

    def read_view(self, identifier: str | Sequence[str]) -> Any:
        """A DuckDB relation of one view's rows."""
        return self.connection.sql(self.view_query(identifier))

    def close(self) -> None:
        if self._owns_connection:
            self.connection.close()
        if self._owns_tables and self._tables is not None:
            close_table_catalog(self._tables)

    def __enter__(self) -> DuckDBViews:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ hooks

    def _qualified(self, identifier: str | Sequence[str]) -> tuple[str, ...]:
        parts = tuple(identifier.split(".")) if isinstance(identifier, str) else tuple(identifier)
        if len(parts) == 1:
            return (self.catalog.name, *self.namespace, parts[0])
        if parts[0] in self.known_catalogs:
            return parts
        return (self.catalog.name, *parts)

    def _in_catalog(self, parts: tuple[str, ...]) -> tuple[str, ...] | None:
        if len(parts) >= 3 and parts[0] == self.catalog.name:
            return parts[1:]
        return None

    def _resolve(self, parts: tuple[str, ...]) -> ResolvedView | None:
        ident = self._in_catalog(parts)
        if ident is None or not self.catalog.view_exists(ident):
            return None
        metadata = self.catalog.load_view(ident).metadata
        return self._resolved(parts, metadata)

    def _resolved(self, name: tuple[str, ...], metadata: ViewMetadata) -> ResolvedView:
        version = metadata.current_version
        if self._hook is not None and version.sql_for(DIALECT) is None:
            rep = translation_source(version, besides=DIALECT)
            if rep is None:
                raise MissingDialectError(".".join(name), DIALECT, tuple(version.dialects))
            assert isinstance(rep, SQLRepresentation)
            # the expander's hook translates it
            return ResolvedView.with_sql(name, metadata, rep.sql, rep.dialect.lower())
        read = engine_sql(
            ".".join(name),
            metadata,
            DIALECT,
            default_catalog=name[0],
            translate=self.translates,
            schemas=self._schemas,
            known_catalogs=self.known_catalogs,
            strict=self.strict,
            spark_ansi=spark_ansi_mode(version.summary, metadata.properties),
            prepare=self._preparer(spark_ansi_mode(version.summary, metadata.properties)),
        )
        translation = read.translation
        # a view is resolved more than once per query (its columns, then the query itself)
        if isinstance(translation, Translation) and translation.warnings and translation not in self.warnings:
            self.warnings.append(translation)
        return ResolvedView.with_sql(name, metadata, read.sql, read.dialect)

    def _schemas(
        self, sql: str, dialect: str, default_catalog: str | None, default_namespace: Sequence[str]
    ) -> dict[tuple[str, ...], Any]:
        return self.catalog.relation_schemas(
            sql,
            dialect,
            default_catalog=default_catalog,
            default_namespace=default_namespace,
            tables=self._table_catalog(),
        )

    def _table_catalog(self) -> Any:
        if self._tables is None:
            self._tables = self.catalog.table_catalog()
            self._owns_tables = self._tables is not None
        return self._tables

    def _map_table(self, parts: tuple[str, ...]) -> Sequence[str] | None:
        ident = self._in_catalog(parts)
        if ident is None or not self.catalog.table_exists(ident):
            return None
        tables = self._table_catalog()
        if tables is None:
            return None
        table = tables.load_table(ident)
        snapshot = table.current_snapshot()
        snapshot_id = snapshot.snapshot_id if snapshot is not None else None
        known = self._registered.get(parts)
        if known is not None and known[1] == snapshot_id:
            return (known[0],)
        name = known[0] if known is not None else f"__iceview_{next(self._counter)}_{parts[-1]}"
        self.connection.register(name, table.scan().to_arrow())
        self._registered[parts] = (name, snapshot_id)
        return (name,)

    def _inline(self, sql: str, catalog: str, namespace: tuple[str, ...], outer: bool) -> str:
        """Calls of the catalog's SQL UDFs inlined (:class:`iceview.sql.inline.FunctionInliner`),
        each function read fresh once per statement. A one-part name that is no DuckDB function
        names one of the current namespace (of the view, inside a view)."""
        inliner = self._inliner(sql)
        return sql if inliner is None else inliner.inline(sql, catalog=catalog, namespace=namespace)

    def _inline_tables(self, sql: str, catalog: str, namespace: tuple[str, ...], outer: bool) -> str:
        """Calls of the catalog's table functions in ``FROM`` expanded as subqueries."""
        inliner = self._inliner(sql)
        return sql if inliner is None else inliner.expand_tables(sql, catalog=catalog, namespace=namespace)

    def _inliner(self, sql: str) -> FunctionInliner | None:
        if not maybe_calls(sql, DIALECT, one_part=True) or not self.catalog.supports_functions():
            return None
        return FunctionInliner(
            self._load_function,
            known_catalogs=self.known_catalogs,
            dialect=DIALECT,
            column_types=self._column_types,
            spark_ansi=None,
            bodies=self._function_bodies,
            builtin=self._is_duckdb_function,
            relation_types=self._relation_types,
        )

    def _preparer(self, spark_ansi: bool | None) -> Callable[[str, str, str, tuple[str, ...]], str] | None:
        """For a view read by translation: its functions inlined in its own dialect first."""
        if not self.catalog.supports_functions():
            return None
        return source_preparer(
            self._load_function,
            lambda dialect: lambda qualified: self._catalog_types(qualified, dialect),
            known_catalogs=self.known_catalogs,
            spark_ansi=spark_ansi,
        )

    def _new_statement(self) -> None:
        """Functions and macros may have changed since the last statement."""
        self._statement_functions.clear()
        self._statement_builtins.clear()

    def _load_function(self, parts: tuple[str, ...]) -> Any:
        """The catalog's function ``parts`` names, read once per statement."""
        if parts not in self._statement_functions:
            ident = self._in_catalog(parts)
            self._statement_functions[parts] = None if ident is None else self.catalog.find_function(ident)
        return self._statement_functions[parts]

    def _catalog_types(self, qualified: tuple[str, ...], dialect: str) -> dict[str, str] | None:
        """A view's or table's columns of the catalog, spelled in ``dialect``."""
        ident = self._in_catalog(qualified)
        return (
            None
            if ident is None
            else self.catalog.relation_types(ident, dialect, tables=self._table_catalog())
        )

    def _relation_types(self, qualified: tuple[str, ...]) -> dict[str, str] | None:
        """A relation's columns and DuckDB types by its qualified name, before expansion: from
        the catalog for its views and tables, else as DuckDB reads it."""
        found = self._catalog_types(qualified, DIALECT)
        return found if found is not None else self._column_types(qualified)

    def _is_duckdb_function(self, name: str) -> bool:
        """Whether DuckDB has a function or macro ``name`` (a one-part call's name as written):
        DuckDB binds ``SELECT name()`` (no rows are read) without a catalog error. Asked once per
        statement and name, only for a name the catalog holds; scanning ``duckdb_functions()``
        costs ~15 ms."""
        key = name.lower()
        known = self._statement_builtins.get(key)
        if known is None:
            try:
                self.connection.sql(f"SELECT {render_name((name,), DIALECT)}()")
                known = True
            except Exception as e:  # a binder error: it exists, for other arguments
                known = isinstance(e, _import_duckdb().BinderException)
            self._statement_builtins[key] = known
        return known

    def _column_types(self, written: tuple[str, ...]) -> dict[str, str] | None:
        try:
            relation = self.connection.sql(f"SELECT * FROM {render_name(written, DIALECT)} LIMIT 0")
            return {c: str(t) for c, t in zip(relation.columns, relation.types, strict=True)}
        except Exception:
            return None

    def _column_count(self, sql: str) -> int | None:
        try:
            return len(self.connection.sql(f"SELECT * FROM ({sql}) LIMIT 0").columns)
        except Exception:
            return None
