"""``SparkViews``: Iceberg views in PySpark, through Spark's public SQL API only.

Every statement goes through :meth:`SparkViews.sql`:

* the view statements (``CREATE [OR REPLACE] VIEW``, ``ALTER VIEW``, ``DROP VIEW``, ``SHOW VIEWS``,
  ``DESCRIBE``, ``SHOW CREATE TABLE``, ``SHOW TBLPROPERTIES``) that name a view of the iceview
  catalog are carried out by iceview, with Iceberg-Spark 1.10's semantics, records and messages;
* ``USE`` switches a *virtual* current catalog when the iceview catalog is not a Spark catalog;
* everything else is sent to ``spark.sql`` after view expansion: each reference to an iceview view
  becomes a subquery built as Iceberg-Spark's ``ResolveViews`` builds it (:mod:`iceview.sql.expand`).

This module is the facade: the session facts, the statement dispatch, ``USE`` and the Python API.
The work is split by job: :mod:`iceview.spark.call` (one statement's state: names, temporary views
and shadowing), :mod:`iceview.spark.access` (reading the catalog), :mod:`iceview.spark.ddl` (CREATE,
ALTER, RENAME, DROP), :mod:`iceview.spark.output` (SHOW, DESCRIBE) and :mod:`iceview.spark.names`.

Nothing here touches ``spark._jvm``, ``_jsparkSession`` or the ``SparkContext``: only
``spark.sql``, ``spark.table``, ``spark.createDataFrame``, ``spark.conf`` and ``spark.catalog``,
which work the same on classic Spark and on Spark Connect, and the two shortcuts of a classic
session in :mod:`iceview.spark.classic` (the statement, and the temporary-view question).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from pyspark.sql import types as st

from iceview._version import __version__
from iceview.catalog.interface import Catalog
from iceview.errors import SQLParseError
from iceview.spark.access import ViewAccess
from iceview.spark.call import Call
from iceview.spark.classic import run_sql, session_catalog
from iceview.spark.ddl import ViewDDL, parse_view_statement
from iceview.spark.errors import SparkViewsParseError
from iceview.spark.memo import ExpansionMemo
from iceview.spark.names import (
    ENGINE_NAME,
    ICEVIEW_VERSION_KEY,
    SESSION_CATALOG,
    NameLike,
    Translate,
    parse_use,
    parts_of,
    split_name,
)
from iceview.spark.output import ViewOutput
from iceview.spark.probes import MAX_GUARDED, ProbeCache, ensure_analysed
from iceview.sql import (
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
    ViewColumn,
    leading_words,
    render_name,
)
from iceview.sql.udf_body import BodyTemplate

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from iceview.view import View

__all__ = ["ENGINE_NAME", "ICEVIEW_VERSION_KEY", "SparkViews", "Translate", "split_name"]

_QUERY_WORDS = frozenset(
    {"SELECT", "WITH", "FROM", "VALUES", "TABLE", "INSERT", "MERGE", "CREATE", "EXPLAIN"}
)


class SparkViews:
    """Iceberg views of an iceview ``catalog`` in a Spark session (classic or Spark Connect).

    ``name`` is the catalog name view identifiers use in SQL (default ``catalog.name``).

    * If ``name`` is a Spark catalog (with Iceberg's runtime: an Iceberg ``SparkCatalog`` on the
      same JDBC database, or ``spark_catalog`` itself), names resolve exactly as Spark resolves them:
      ``v`` and ``db.v`` against Spark's current catalog and namespace, ``name.db.v`` always; tables
      are Spark's business.
    * Otherwise ``name`` is *virtual*: ``name.db.v`` always reaches the view, and after
      ``views.sql("USE name.db")`` so do ``db.v`` and ``v``; tables named in the virtual catalog are
      read from ``table_catalog`` (default ``spark_catalog``) with the same namespace and name.

    A view without ``spark`` SQL is read by translating another of its representations
    (``trino``, else ``duckdb``, else the first; :func:`iceview.view.reading.engine_sql`) with the
    schemas of what it reads, from the catalog, and the session's ``spark.sql.ansi.enabled``; an
    unsafe construct raises :class:`~iceview.errors.ViewTranslationRefusedError` naming the view,
    its dialects and the construct. ``translate=False`` turns that off (such a view raises
    :class:`~iceview.errors.MissingDialectError`); or pass a hook ``(sql, dialect, "spark") -> sql``.
    """

    def __init__(
        self,
        spark: SparkSession,
        catalog: Catalog,
        *,
        name: str | None = None,
        translate: bool | Translate = True,
        table_catalog: str = SESSION_CATALOG,
        max_depth: int = 100,
    ) -> None:
        self.spark = spark
        self.catalog = catalog
        self.name = name if name is not None else catalog.name
        self.translate = translate
        self.table_catalog = table_catalog
        self.max_depth = max_depth
        self._virtual: tuple[str, tuple[str, ...]] | None = None
        self._known_catalogs: set[str] = {SESSION_CATALOG}
        self._spark_version: str | None = None
        self._registered: bool | None = None
        self._empty: DataFrame | None = None
        self._global_temp: str | None = None
        self._jcatalog: tuple[SparkSession, Any] | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._access = ViewAccess(self)
        self._probes = ProbeCache()
        self._expansions = ExpansionMemo()
        self._function_bodies: dict[tuple[object, ...], BodyTemplate] = {}
        self._builtins: tuple[SparkSession, frozenset[str]] | None = None
        self._ddl = ViewDDL(self, self._access)
        self._output = ViewOutput(self, self._access)
        if translate is not False:
            from iceview.spark.parse_check import install_parse_check

            install_parse_check(spark)

    def __repr__(self) -> str:
        mode = "registered" if self.registered else "virtual"
        return f"SparkViews({self.name!r}, {mode}, catalog={self.catalog!r})"

    # ------------------------------------------------------------------ session facts

    @property
    def ansi_enabled(self) -> bool | None:
        """The session's ``spark.sql.ansi.enabled`` (None when it cannot be read)."""
        try:
            value = self.spark.conf.get("spark.sql.ansi.enabled")
        except Exception:
            return None
        return None if value is None else str(value).lower() == "true"

    @property
    def spark_version(self) -> str:
        if self._spark_version is None:
            self._spark_version = str(self.spark.version)
        return self._spark_version

    @property
    def engine_version(self) -> str:
        """``Spark <version>``: the ``engine_version`` / ``create_engine_version`` property."""
        return f"Spark {self.spark_version}"

    def summary(self) -> dict[str, str]:
        """The version summary iceview writes from Spark."""
        return {
            "engine-name": ENGINE_NAME,
            "engine-version": self.spark_version,
            ICEVIEW_VERSION_KEY: __version__,
        }

    @property
    def registered(self) -> bool:
        """Whether ``name`` is a Spark catalog (else it is virtual)."""
        if self._registered is None:
            self._registered = self._is_spark_catalog(self.name)
        return self._registered

    def _is_spark_catalog(self, name: str) -> bool:
        if name in self._known_catalogs:
            return True
        try:
            found = self.spark.conf.get(f"spark.sql.catalog.{name}", None) is not None
        except Exception:
            found = False
        if found:
            self._known_catalogs.add(name)
        return found

    def _global_temp_db(self) -> str:
        if self._global_temp is None:
            try:
                value = self.spark.conf.get("spark.sql.globalTempDatabase", "global_temp")
            except Exception:
                value = None
            self._global_temp = value or "global_temp"
        return self._global_temp

    def _spark_current(self) -> tuple[str, tuple[str, ...]]:
        catalog = str(self.spark.catalog.currentCatalog())
        database = self.spark.catalog.currentDatabase()
        namespace = split_name(database) if database else ()
        return catalog, namespace

    def _current(self) -> tuple[str, tuple[str, ...]]:
        if self._virtual is not None:
            return self._virtual
        return self._spark_current()

    @property
    def current_catalog(self) -> str:
        """The session's current catalog as iceview sees it (virtual after ``USE <name>...``)."""
        return self._current()[0]

    @property
    def current_namespace(self) -> tuple[str, ...]:
        return self._current()[1]

    def _list_temp_views(self) -> frozenset[tuple[str, str]]:
        gt = self._global_temp_db()
        rows = self.spark.sql(f"SHOW VIEWS IN {SESSION_CATALOG}.{render_name([gt], 'spark')}").collect()
        return frozenset((str(r[0]).lower(), str(r[1]).lower()) for r in rows if bool(r[2]))

    def _session_catalog(self) -> Any | None:
        """The JVM ``SessionCatalog`` of a classic session (``None`` for Spark Connect), kept per
        session object: it holds the session's temporary views."""
        spark = self.spark
        if self._jcatalog is not None and self._jcatalog[0] is spark:
            return self._jcatalog[1]
        found = session_catalog(spark)
        self._jcatalog = (spark, found)
        return found

    def _temp_view_answer(self, written: Sequence[str]) -> bool | None:
        """Whether ``written`` names a temporary view, or ``None`` when Spark gives no clear answer
        (then :meth:`_list_temp_views`, ~20 ms, decides).

        A classic session asks its ``SessionCatalog`` for the temporary view itself (Spark's
        ``lookupTempView``: the name formatted as the session's case sensitivity says, local or in
        the global temporary database): two Py4J round trips, ~0.25 ms, and no catalog lookup.

        Otherwise ``spark.catalog.tableExists`` first: false unless a temporary view or a table has
        the name, and errors stay in the JVM (a failed ``getTable`` costs ~8 ms more in PySpark's
        error conversion). Spark resolves temporary views first, so for one this takes ~0.2 ms; for
        other names Spark goes on to the catalog (~1.5 ms). When it is true,
        ``getTable(...).isTemporary`` tells a temporary view from a table."""
        jcatalog = self._session_catalog()
        if jcatalog is not None and 1 <= len(written) <= 2:
            try:
                if len(written) == 1:
                    return bool(jcatalog.getTempView(written[0]).isDefined())
                if written[0].lower() == self._global_temp_db().lower():
                    return bool(jcatalog.getGlobalTempView(written[1]).isDefined())
            except Exception:
                pass  # ask as for a Connect session
        name = render_name(written, "spark")
        try:
            if not self.spark.catalog.tableExists(name):
                return False
            return bool(self.spark.catalog.getTable(name).isTemporary)
        except Exception:
            return None

    def _temp_functions(self) -> frozenset[str]:
        """Names (lower-cased) of the temporary functions of the session."""
        rows = self.spark.sql(f"SHOW USER FUNCTIONS IN {SESSION_CATALOG}.default").collect()
        return frozenset(str(r[0]).lower() for r in rows if "." not in str(r[0]))

    def _system_functions(self) -> frozenset[str]:
        """Names (lower-cased) of Spark's built-in functions, asked once per session object."""
        if self._builtins is None or self._builtins[0] is not self.spark:
            rows = self.spark.sql("SHOW SYSTEM FUNCTIONS").collect()
            self._builtins = (self.spark, frozenset(str(r[0]).lower() for r in rows))
        return self._builtins[1]

    def _empty_result(self) -> DataFrame:
        if self._empty is None:
            self._empty = self.spark.createDataFrame([], st.StructType([]))
        return self._empty

    # ------------------------------------------------------------------ public: SQL

    def sql(
        self, text: str, args: Mapping[str, Any] | Sequence[Any] | None = None, **kwargs: Any
    ) -> DataFrame:
        """Run one statement: view statements by iceview, the rest by Spark after view expansion.
        ``args``/``kwargs`` are passed to ``spark.sql`` for statements Spark runs."""
        stmt = parse_view_statement(text)
        if stmt is not None:
            return self._statement(stmt, text, Call(self))
        use = parse_use(text)
        if use is not None:
            return self._use(use[0], use[1], text)
        return self._run(text, Call(self), args, kwargs)

    def expand(self, text: str) -> str:
        """The statement as it is sent to Spark: view references replaced by subqueries."""
        return Call(self).expand(text)

    def table(self, identifier: NameLike) -> DataFrame:
        """A view (or, if it is not a view of this catalog, a table) as a DataFrame."""
        call = Call(self)
        parts = parts_of(identifier)
        ident = call.target(parts)
        if ident is not None:
            resolved = call.resolve((self.name, *ident.levels))
            if resolved is not None:
                return self.spark.sql(call.expander().view_query(resolved))
        return self.spark.table(render_name(self._spark_name(call, parts), "spark"))

    def _spark_name(self, call: Call, parts: tuple[str, ...]) -> tuple[str, ...]:
        """The name Spark knows a non-view relation by (mapped out of a virtual catalog)."""
        if self.registered or call.is_temp_view(parts):
            return parts
        mapped = call.map_table(call.qualify(parts))
        return tuple(mapped) if mapped is not None else parts

    def _run(
        self, text: str, call: Call, args: Any = None, kwargs: Mapping[str, Any] | None = None
    ) -> DataFrame:
        """Expand ``text`` and hand it to Spark.

        Whether a temporary view shadows one of our views: a classic session's ``SessionCatalog``
        answers in line (:meth:`_temp_view_answer`). Elsewhere (Spark Connect) the question costs
        about as much as Spark loading the view (for a name that is no temporary view, Spark looks
        it up in the catalog too); so for a plain query, whose analysis has no side effects,
        iceview expands as if nothing were shadowed and asks Spark in a second thread while Spark
        analyses the expansion; in the rare case that a temporary view does shadow a view, that
        analysis is thrown away and the query is expanded again. A statement read again is not
        expanded again while nothing it was built on changed (:mod:`iceview.spark.memo`). The
        up-cast check of each view (a Spark analysis of the view's level, see
        :mod:`iceview.spark.upcast`) runs in a thread too, for every view whose column count the SQL shows: a failed check wins over Spark's
        answer, as it would have come first. Other statements ask and check first.

        All the checks run in that thread cost one Spark analysis (:mod:`iceview.spark.probes`).
        When there are few of them and each view was read before with the same probe, none is
        run: a guard in the expansion makes Spark's analysis of the expansion prove the check. If Spark refuses a guarded
        expansion, it is thrown away and the query is expanded with every check run first, so the
        error reported is the one the checks or Spark give without guards."""

        def run(sql: str) -> DataFrame:
            if args is not None:
                return self.spark.sql(sql, args, **(kwargs or {}))
            if kwargs:
                return self.spark.sql(sql, **kwargs)
            return run_sql(self.spark, sql)

        query = self._is_query(text, call)
        # a classic session answers the temporary-view question in ~0.25 ms: asked in line
        call.defer_shadowing = self._session_catalog() is None
        call.defer_checks = True
        call.guard_checks = query
        expanded = self._expand(text, call)
        if call.guarded and (len(call.guarded) > MAX_GUARDED or call.deferred_checks):
            # a probe is analysed anyway, or the guards would cost more than it: no guards
            call.deferred, call.deferred_checks, call.guarded = [], [], []
            call.guard_checks = False
            expanded = self._expand(text, call)  # the views are resolved already: cheap
        pending, call.deferred = call.deferred, []
        checks, call.deferred_checks = call.deferred_checks, []
        guarded, call.guarded = call.guarded, []
        call.defer_shadowing = call.defer_checks = call.guard_checks = False
        if not pending and not checks and not guarded:
            return run(expanded)

        refused = False
        if query:
            pool = self._pool()
            shadowed = pool.submit(call.check_all_shadowed, pending) if pending else None
            checked = pool.submit(call.run_checks, checks) if checks else None

            def stands() -> bool:
                """No temporary view shadows a view, and every view passes its up-cast check (a
                failure raises) with the column count the expansion assumed."""
                if shadowed is not None and shadowed.result():
                    return False  # the checks were of views the query does not read
                return checked is None or checked.result()

            try:
                speculative = run(expanded)
                if guarded:
                    ensure_analysed(self.spark, speculative)
            except Exception:
                refused = bool(guarded)
                if not refused and stands():  # a failed check raises here, before Spark's error
                    raise
            else:
                if stands():
                    return speculative
        elif not call.check_all_shadowed(pending) and call.run_checks(checks):
            return run(expanded)
        if not refused:
            return run(self._expand(text, call))
        self._probes.refused(guarded)
        try:
            return run(self._expand(text, call))
        except Exception:
            self._probes.clear_refusal(guarded)  # refused without the guards too
            raise

    @staticmethod
    def _is_query(text: str, call: Call) -> bool:
        try:
            return call.expander().is_query(text)
        except SQLParseError:
            return False

    @staticmethod
    def _expand(text: str, call: Call) -> str:
        try:
            return call.expand(text)
        except SQLParseError:
            words = leading_words(text, 1)
            if words and (words[0] in _QUERY_WORDS or text.lstrip().startswith("(")):
                raise
            return text  # a command sqlglot does not know: Spark's business

    def _pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="iceview-spark")
            return self._executor

    # ------------------------------------------------------------------ USE

    def use(self, namespace: NameLike) -> None:
        """``USE <namespace>``: ``name[.ns]`` switches to the (virtual) iceview catalog."""
        parts = parts_of(namespace)
        self._use("use", parts, "USE " + render_name(parts, "spark"))

    def _use(self, kind: str, parts: tuple[str, ...], text: str) -> DataFrame:
        if not self.registered:
            if parts[0] == self.name:
                namespace = parts[1:] if kind == "use" and len(parts) > 1 else ("default",)
                self._virtual = (self.name, tuple(namespace))
                return self._empty_result()
            if kind == "use" and self._virtual is not None and not self._is_spark_catalog(parts[0]):
                self._virtual = (self.name, tuple(parts))
                return self._empty_result()
        self._virtual = None
        return self.spark.sql(text)

    # ------------------------------------------------------------------ dispatch

    def _statement(self, stmt: Statement, text: str | None, call: Call) -> DataFrame:
        if isinstance(stmt, CreateView):
            self._ddl.create(stmt, text, call)
            return self._empty_result()
        if isinstance(stmt, AlterViewAs):
            return self._ddl.alter_as(stmt, text, call)
        if isinstance(stmt, AlterViewSetProperties):
            return self._ddl.set_properties(stmt, text, call)
        if isinstance(stmt, AlterViewUnsetProperties):
            return self._ddl.unset_properties(stmt, text, call)
        if isinstance(stmt, AlterViewRename):
            return self._ddl.rename(stmt, text, call)
        if isinstance(stmt, DropView):
            return self._ddl.drop(stmt, text, call)
        if isinstance(stmt, ShowViews):
            return self._output.show_views(stmt, text, call)
        if isinstance(stmt, DescribeView):
            return self._output.describe(stmt, text, call)
        if isinstance(stmt, ShowCreateTable):
            return self._output.show_create(stmt, text, call)
        if isinstance(stmt, ShowTblProperties):
            return self._output.show_properties(stmt, text, call)
        raise AssertionError(f"unhandled statement {stmt!r}")  # pragma: no cover

    def _pass(self, text: str | None, fallback: str) -> DataFrame:
        """Hand a statement that is not about an iceview view to Spark."""
        return run_sql(self.spark, text if text is not None else fallback)

    # ------------------------------------------------------------------ public: Python API

    def create_view(
        self,
        name: NameLike,
        query: str,
        *,
        columns: Iterable[str | tuple[str, str | None]] | None = None,
        comment: str | None = None,
        properties: Mapping[str, str] | None = None,
        replace: bool = False,
        if_not_exists: bool = False,
    ) -> View | None:
        """``CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(columns)] [COMMENT] [TBLPROPERTIES] AS
        query``. ``columns`` are names or ``(name, comment)`` pairs. Returns the view (``None`` when
        IF NOT EXISTS found one, or when the name is not in this catalog and Spark created it)."""
        if replace and if_not_exists:
            raise SparkViewsParseError(
                "CREATE VIEW with both IF NOT EXISTS and REPLACE is not allowed.", "_LEGACY_ERROR_TEMP_0052"
            )
        cols = tuple(ViewColumn(c) if isinstance(c, str) else ViewColumn(c[0], c[1]) for c in (columns or ()))
        stmt = CreateView(
            name=parts_of(name),
            query=query,
            columns=cols,
            comment=comment,
            properties=dict(properties or {}),
            or_replace=replace,
            if_not_exists=if_not_exists,
        )
        return self._ddl.create(stmt, None, Call(self))

    def create_or_replace_view(self, name: NameLike, query: str, **kwargs: Any) -> View | None:
        """``CREATE OR REPLACE VIEW``; see :meth:`create_view`."""
        return self.create_view(name, query, replace=True, **kwargs)

    def alter_view_as(self, name: NameLike, query: str) -> None:
        """``ALTER VIEW name AS query``: a new version with the new query (Iceberg-Spark refuses this
        statement; iceview supports it). Properties, comment and location are kept."""
        self._ddl.alter_as(AlterViewAs(parts_of(name), query), None, Call(self))

    def set_properties(self, name: NameLike, properties: Mapping[str, str]) -> None:
        """``ALTER VIEW name SET TBLPROPERTIES (...)``."""
        self._ddl.set_properties(AlterViewSetProperties(parts_of(name), dict(properties)), None, Call(self))

    def unset_properties(self, name: NameLike, keys: Iterable[str], *, if_exists: bool = False) -> None:
        """``ALTER VIEW name UNSET TBLPROPERTIES [IF EXISTS] (...)``."""
        self._ddl.unset_properties(
            AlterViewUnsetProperties(parts_of(name), tuple(keys), if_exists), None, Call(self)
        )

    def rename_view(self, name: NameLike, new_name: NameLike) -> None:
        """``ALTER VIEW name RENAME TO new_name``."""
        self._ddl.rename(AlterViewRename(parts_of(name), parts_of(new_name)), None, Call(self))

    def drop_view(self, name: NameLike, *, if_exists: bool = False) -> None:
        """``DROP VIEW [IF EXISTS] name``."""
        self._ddl.drop(DropView(parts_of(name), if_exists), None, Call(self))

    def show_views(self, namespace: NameLike | None = None, pattern: str | None = None) -> DataFrame:
        """``SHOW VIEWS [IN namespace] [LIKE pattern]``: rows (namespace, viewName, isTemporary)."""
        ns = parts_of(namespace) if namespace is not None else None
        return self._output.show_views(ShowViews(ns, pattern), None, Call(self))

    def describe(self, name: NameLike, *, extended: bool = False) -> DataFrame:
        """``DESCRIBE [EXTENDED] name``: rows (col_name, data_type, comment)."""
        return self._output.describe(DescribeView(parts_of(name), extended=extended), None, Call(self))

    def show_create_table(self, name: NameLike) -> DataFrame:
        """``SHOW CREATE TABLE name``: one row (createtab_stmt)."""
        return self._output.show_create(ShowCreateTable(parts_of(name)), None, Call(self))

    def show_tblproperties(self, name: NameLike, key: str | None = None) -> DataFrame:
        """``SHOW TBLPROPERTIES name [(key)]``: rows (key, value)."""
        return self._output.show_properties(ShowTblProperties(parts_of(name), key), None, Call(self))
