"""``SparkViews``: Iceberg views in PySpark, through Spark's public SQL API only.

Every statement goes through :meth:`SparkViews.sql`:

* the view statements (``CREATE [OR REPLACE] VIEW``, ``ALTER VIEW``, ``DROP VIEW``, ``SHOW VIEWS``,
  ``DESCRIBE``, ``SHOW CREATE TABLE``, ``SHOW TBLPROPERTIES``) that name a view of the iceview
  catalog are carried out by iceview, with Iceberg-Spark 1.10's semantics, records and messages;
* ``USE`` switches a *virtual* current catalog when the iceview catalog is not a Spark catalog;
* everything else is sent to ``spark.sql`` after view expansion: each reference to an iceview view
  becomes a subquery built as Iceberg-Spark's ``ResolveViews`` builds it (:mod:`iceview.sql.expand`).

Nothing here touches ``spark._jvm``, ``_jsparkSession`` or the ``SparkContext``: only
``spark.sql``, ``spark.table``, ``spark.createDataFrame``, ``spark.conf`` and ``spark.catalog``,
which work the same on classic Spark and on Spark Connect.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql import types as st

import iceview
from iceview.catalog.base import Catalog
from iceview.catalog.identifiers import ViewIdentifier, to_identifier
from iceview.errors import (
    InvalidIdentifierError,
    NoSuchViewError,
    SQLParseError,
    TableAlreadyExistsError,
    ViewAlreadyExistsError,
    ViewCycleError,
    ViewUUIDMismatchError,
)
from iceview.spark import _format
from iceview.spark.errors import (
    SparkViewsAnalysisError,
    SparkViewsIllegalArgumentError,
    SparkViewsParseError,
    SparkViewsUnsupportedOperationError,
    view_already_exists,
    view_not_found,
)
from iceview.spark.types import to_iceberg_schema
from iceview.spec import ViewMetadata
from iceview.sql import (
    AlterViewAs,
    AlterViewRename,
    AlterViewSetProperties,
    AlterViewUnsetProperties,
    CreateView,
    DescribeView,
    DropView,
    ResolvedView,
    ShowCreateTable,
    ShowTblProperties,
    ShowViews,
    Statement,
    ViewColumn,
    ViewExpander,
    find_function_calls,
    find_references,
    parse_statement,
    qualify_parts,
    render_name,
)
from iceview.sql._text import leading_words

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from iceview.catalog.base import ViewOperations
    from iceview.view import View

__all__ = ["ENGINE_NAME", "ICEVIEW_VERSION_KEY", "SparkViews", "Translate", "split_name"]

ENGINE_NAME = "spark"
ICEVIEW_VERSION_KEY = "iceview-version"
SESSION_CATALOG = "spark_catalog"
_ALLOWED_PROVIDERS = ("iceberg", "parquet", "avro", "orc")
_TABLE_RESERVED = ("provider", "location")
"""Dropped from TBLPROPERTIES at CREATE (``provider`` checked, ``location`` is the view location)."""
_ALTER_RESERVED = ("format-version", _format.QUERY_COLUMN_NAMES)
"""Iceberg's ``SparkCatalog.alterView`` refuses to set or unset these."""
_QUERY_WORDS = frozenset(
    {"SELECT", "WITH", "FROM", "VALUES", "TABLE", "INSERT", "MERGE", "CREATE", "EXPLAIN"}
)

Translate = Callable[[str, str, str], str]
"""``(sql, from_dialect, to_dialect) -> sql``: translation of a view whose SQL is in another dialect."""

NameLike = str | Sequence[str]


# ----------------------------------------------------------------------------- names


def split_name(text: str) -> tuple[str, ...]:
    """A Spark multi-part name (``a.b.c``, back-quotes allowed: `` `a.b`.c ``) as its parts."""
    parts: list[str] = []
    cur: list[str] = []
    i, n = 0, len(text.strip())
    s = text.strip()
    quoted_part = False
    while i < n:
        ch = s[i]
        if ch == "`":
            j = i + 1
            while j < n:
                if s[j] == "`":
                    if j + 1 < n and s[j + 1] == "`":
                        cur.append("`")
                        j += 2
                        continue
                    break
                cur.append(s[j])
                j += 1
            if j >= n:
                raise SQLParseError(f"Unclosed back-quote in name: {text}", text, i)
            quoted_part = True
            i = j + 1
        elif ch == ".":
            parts.append("".join(cur))
            cur, quoted_part = [], False
            i += 1
        elif ch.isspace() and not quoted_part and not cur:
            i += 1
        else:
            cur.append(ch)
            i += 1
    parts.append("".join(cur).strip() if not quoted_part else "".join(cur))
    if any(p == "" for p in parts):
        raise SQLParseError(f"Invalid name: {text!r}", text, 0)
    return tuple(parts)


def _parts(name: NameLike) -> tuple[str, ...]:
    return split_name(name) if isinstance(name, str) else tuple(name)


_USE = re.compile(r"^\s*USE\s+(?:(?:NAMESPACE|DATABASE|SCHEMA)\s+)?(?P<name>.+?)\s*;?\s*$", re.I | re.S)
_SET_CATALOG = re.compile(r"^\s*SET\s+CATALOG\s+(?P<name>.+?)\s*;?\s*$", re.I | re.S)


def _parse_use(text: str) -> tuple[str, tuple[str, ...]] | None:
    """``("use", parts)`` for ``USE [NAMESPACE] a.b``, ``("catalog", (c,))`` for ``SET CATALOG c``."""
    words = leading_words(text, 2)
    if not words:
        return None
    if words[0] == "USE":
        m = _USE.match(text)
        if m:
            try:
                return "use", split_name(m.group("name"))
            except SQLParseError:
                return None
    if words[0] == "SET" and len(words) > 1 and words[1] == "CATALOG":
        m = _SET_CATALOG.match(text)
        if m:
            name = m.group("name").strip()
            if len(name) >= 2 and name[0] == name[-1] and name[0] in "'\"":
                return "catalog", (name[1:-1],)
            try:
                return "catalog", split_name(name)
            except SQLParseError:
                return None
    return None


# ----------------------------------------------------------------------------- per-call state


@dataclass
class _Call:
    """What one statement learns from Spark, asked for at most once."""

    views: SparkViews
    defer_shadowing: bool = False
    """Expand as if no temporary view shadows a view, and list in :attr:`deferred` the names whose
    check (:meth:`check_shadowed`) was put off."""
    deferred: list[tuple[str, ...]] = field(default_factory=list)
    _current: tuple[str, tuple[str, ...]] | None = None
    _temp_views: frozenset[tuple[str, str]] | None = None
    _catalogs: dict[str, bool] = field(default_factory=dict)
    _resolved: dict[tuple[str, ...], ResolvedView | None] = field(default_factory=dict)
    _shadowed: dict[tuple[str, ...], bool] = field(default_factory=dict)

    @property
    def current(self) -> tuple[str, tuple[str, ...]]:
        if self._current is None:
            self._current = self.views._current()
        return self._current

    def is_catalog(self, name: str) -> bool:
        if name == self.views.name:
            return True
        found = self._catalogs.get(name)
        if found is None:
            found = self.views._is_spark_catalog(name)
            self._catalogs[name] = found
        return found

    def qualify(self, parts: Sequence[str]) -> tuple[str, ...]:
        catalog, namespace = self.current
        return qualify_parts(
            parts, default_catalog=catalog, default_namespace=namespace, known_catalogs=self.is_catalog
        )

    def temp_views(self) -> frozenset[tuple[str, str]]:
        """``(namespace, name)`` of the temporary views, lower-cased: ``("", v)`` for local ones,
        ``("global_temp", v)`` for global ones."""
        if self._temp_views is None:
            self._temp_views = self.views._list_temp_views()
        return self._temp_views

    def temp_view_key(self, written: Sequence[str]) -> tuple[str, str] | None:
        """The :meth:`temp_views` entry ``written`` would be, or ``None`` if no temporary view can
        be written so: a temporary view is written ``v`` (local) or ``global_temp.v`` (global)."""
        if len(written) == 1:
            return ("", written[0].lower())
        if len(written) == 2 and written[0].lower() == self.views._global_temp_db().lower():
            return (written[0].lower(), written[1].lower())
        return None

    def is_temp_view(self, written: Sequence[str]) -> bool:
        """Does ``written`` (as in the SQL) name a temporary view (Spark's ``isTempView``)?"""
        key = self.temp_view_key(written)
        if key is None:
            return False
        if self._temp_views is None:
            answer = self.views._temp_view_answer(written)
            if answer is not None:
                return answer
        return key in self.temp_views()

    def resolve(self, qualified: tuple[str, ...]) -> ResolvedView | None:
        if qualified not in self._resolved:
            self._resolved[qualified] = self.views._resolve(qualified)
        return self._resolved[qualified]

    def is_shadowed(self, written: tuple[str, ...]) -> bool:
        if self.temp_view_key(written) is None:
            return False
        # only names that would otherwise be one of our views need asking Spark
        if self.resolve(self.qualify(written)) is None:
            return False
        known = self._shadowed.get(written)
        if known is not None:
            return known
        if self.defer_shadowing:
            if written not in self.deferred:
                self.deferred.append(written)
            return False
        return self.check_shadowed(written)

    def check_shadowed(self, written: tuple[str, ...]) -> bool:
        """Ask Spark whether a temporary view has the name ``written``; the answer is kept."""
        found = self.is_temp_view(written)
        self._shadowed[written] = found
        return found

    def check_all_shadowed(self, names: Sequence[tuple[str, ...]]) -> bool:
        """:meth:`check_shadowed` for every name (all are answered); whether any is shadowed."""
        return any([self.check_shadowed(n) for n in names])  # a list: every name is asked

    def map_table(self, qualified: tuple[str, ...]) -> Sequence[str] | None:
        """Virtual catalog only: tables named in our catalog live in the table catalog."""
        if qualified and qualified[0] == self.views.name:
            return (self.views.table_catalog, *qualified[1:])
        return None

    def expander(self) -> ViewExpander:
        v = self.views
        return ViewExpander(
            self.resolve,
            known_catalogs=self.is_catalog,
            dialect="spark",
            is_shadowed=self.is_shadowed,
            translate=v.translate,
            map_table=None if v.registered else self.map_table,
            max_depth=v.max_depth,
        )

    def expand(self, sql: str) -> str:
        catalog, namespace = self.current
        return self.expander().expand(sql, current_catalog=catalog, current_namespace=namespace)

    def target(self, written: Sequence[str], *, temp_first: bool = True) -> ViewIdentifier | None:
        """The iceview identifier a DDL statement's name stands for, or ``None`` when the name is
        a temporary view or belongs to another catalog (then Spark handles the statement)."""
        if temp_first and self.is_temp_view(written):
            return None
        qualified = self.qualify(written)
        if qualified[0] != self.views.name or len(qualified) < 2:
            return None
        try:
            return to_identifier(qualified[1:])
        except InvalidIdentifierError:
            return None


# ----------------------------------------------------------------------------- SparkViews


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

    ``translate`` opts into reading views that have no ``spark`` SQL: it gets ``(sql, dialect,
    "spark")`` and returns Spark SQL. Without it such a view raises
    :class:`~iceview.errors.TranslationError` naming the dialects it has.
    """

    def __init__(
        self,
        spark: SparkSession,
        catalog: Catalog,
        *,
        name: str | None = None,
        translate: Translate | None = None,
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
        self._ops: dict[ViewIdentifier, ViewOperations] = {}
        self._known_catalogs: set[str] = {SESSION_CATALOG}
        self._spark_version: str | None = None
        self._registered: bool | None = None
        self._empty: DataFrame | None = None
        self._global_temp: str | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def __repr__(self) -> str:
        mode = "registered" if self.registered else "virtual"
        return f"SparkViews({self.name!r}, {mode}, catalog={self.catalog!r})"

    # ------------------------------------------------------------------ session facts

    @property
    def spark_version(self) -> str:
        if self._spark_version is None:
            self._spark_version = str(self.spark.version)
        return self._spark_version

    @property
    def engine_version(self) -> str:
        """``Spark <version>``: the ``engine_version`` / ``create_engine_version`` property."""
        return f"Spark {self.spark_version}"

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

    def _temp_view_answer(self, written: Sequence[str]) -> bool | None:
        """Whether ``written`` names a temporary view, or ``None`` when Spark gives no clear answer
        (then :meth:`_list_temp_views`, ~20 ms, decides).

        ``spark.catalog.tableExists`` first: false unless a temporary view or a table has the name,
        and errors stay in the JVM (a failed ``getTable`` costs ~8 ms more in PySpark's error
        conversion). Spark resolves temporary views first, so for one this takes ~0.2 ms; for other
        names Spark goes on to the catalog. When it is true, ``getTable(...).isTemporary`` tells a
        temporary view from a table."""
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

    def _empty_result(self) -> DataFrame:
        if self._empty is None:
            self._empty = self.spark.createDataFrame([], st.StructType([]))
        return self._empty

    # ------------------------------------------------------------------ catalog access

    def _load(self, ident: ViewIdentifier) -> ViewMetadata | None:
        """The view's current metadata (fresh from the catalog), or ``None`` if there is no view."""
        new_ops = getattr(self.catalog, "new_view_ops", None)
        if new_ops is None:
            try:
                return self.catalog.load_view(ident).metadata
            except NoSuchViewError:
                return None
        for _ in range(2):
            ops = self._ops.get(ident)
            if ops is None:
                ops = new_ops(ident)
                self._ops[ident] = ops
            try:
                return ops.refresh()
            except NoSuchViewError:
                self._ops.pop(ident, None)
                return None
            except ViewUUIDMismatchError:  # dropped and created again: start over
                self._ops.pop(ident, None)
        return None

    def _load_required(self, ident: ViewIdentifier) -> ViewMetadata:
        metadata = self._load(ident)
        if metadata is None:
            raise view_not_found(_format.quoted(ident.levels))
        return metadata

    def _resolve(self, qualified: tuple[str, ...]) -> ResolvedView | None:
        if len(qualified) < 2 or qualified[0] != self.name:
            return None
        try:
            ident = to_identifier(qualified[1:])
        except InvalidIdentifierError:
            return None
        metadata = self._load(ident)
        if metadata is None:
            return None
        return ResolvedView.from_metadata(
            qualified, metadata, dialect=ENGINE_NAME, allow_other_dialect=self.translate is not None
        )

    def _full_name(self, ident: ViewIdentifier) -> str:
        """Iceberg's ``View.name()``: ``<catalog>.<ns>.<name>``, unquoted."""
        return ".".join((self.name, *ident.levels))

    # ------------------------------------------------------------------ public: SQL

    def sql(
        self, text: str, args: Mapping[str, Any] | Sequence[Any] | None = None, **kwargs: Any
    ) -> DataFrame:
        """Run one statement: view statements by iceview, the rest by Spark after view expansion.
        ``args``/``kwargs`` are passed to ``spark.sql`` for statements Spark runs."""
        stmt = parse_statement(text)
        if stmt is not None:
            return self._statement(stmt, text, _Call(self))
        use = _parse_use(text)
        if use is not None:
            return self._use(use[0], use[1], text)
        return self._run(text, _Call(self), args, kwargs)

    def expand(self, text: str) -> str:
        """The statement as it is sent to Spark: view references replaced by subqueries."""
        return _Call(self).expand(text)

    def table(self, identifier: NameLike) -> DataFrame:
        """A view (or, if it is not a view of this catalog, a table) as a DataFrame."""
        call = _Call(self)
        parts = _parts(identifier)
        ident = call.target(parts)
        if ident is not None:
            resolved = call.resolve((self.name, *ident.levels))
            if resolved is not None:
                return self.spark.sql(call.expander().view_query(resolved))
        return self.spark.table(render_name(self._spark_name(call, parts), "spark"))

    def _spark_name(self, call: _Call, parts: tuple[str, ...]) -> tuple[str, ...]:
        """The name Spark knows a non-view relation by (mapped out of a virtual catalog)."""
        if self.registered or call.is_temp_view(parts):
            return parts
        mapped = call.map_table(call.qualify(parts))
        return tuple(mapped) if mapped is not None else parts

    def _run(
        self, text: str, call: _Call, args: Any = None, kwargs: Mapping[str, Any] | None = None
    ) -> DataFrame:
        """Expand ``text`` and hand it to Spark.

        Whether a temporary view shadows one of our views is a Spark round trip that costs about
        as much as Spark loading the view (for a name that is no temporary view, Spark looks it up
        in the catalog too). For a plain query, whose analysis has no side effects, iceview
        therefore expands as if nothing were shadowed and asks Spark in a second thread while Spark
        analyses the expansion; in the rare case that a temporary view does shadow a view, that
        analysis is thrown away and the query is expanded again. Other statements ask first."""

        def run(sql: str) -> DataFrame:
            if args is not None:
                return self.spark.sql(sql, args, **(kwargs or {}))
            return self.spark.sql(sql, **(kwargs or {}))

        call.defer_shadowing = True
        expanded = self._expand(text, call)
        pending, call.deferred = call.deferred, []
        call.defer_shadowing = False
        if not pending:
            return run(expanded)
        if call.expander().is_query(text):
            check = self._pool().submit(call.check_all_shadowed, pending)
            try:
                speculative = run(expanded)
            except Exception:
                if not check.result():
                    raise
            else:
                if not check.result():
                    return speculative
        elif not call.check_all_shadowed(pending):
            return run(expanded)
        return run(self._expand(text, call))

    @staticmethod
    def _expand(text: str, call: _Call) -> str:
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
        parts = _parts(namespace)
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

    def _statement(self, stmt: Statement, text: str | None, call: _Call) -> DataFrame:
        if isinstance(stmt, CreateView):
            self._create(stmt, text, call)
            return self._empty_result()
        if isinstance(stmt, AlterViewAs):
            return self._alter_as(stmt, text, call)
        if isinstance(stmt, AlterViewSetProperties):
            return self._set_properties(stmt, text, call)
        if isinstance(stmt, AlterViewUnsetProperties):
            return self._unset_properties(stmt, text, call)
        if isinstance(stmt, AlterViewRename):
            return self._rename(stmt, text, call)
        if isinstance(stmt, DropView):
            return self._drop(stmt, text, call)
        if isinstance(stmt, ShowViews):
            return self._show_views(stmt, text, call)
        if isinstance(stmt, DescribeView):
            return self._describe(stmt, text, call)
        if isinstance(stmt, ShowCreateTable):
            return self._show_create(stmt, text, call)
        if isinstance(stmt, ShowTblProperties):
            return self._show_properties(stmt, text, call)
        raise AssertionError(f"unhandled statement {stmt!r}")  # pragma: no cover

    def _pass(self, text: str | None, fallback: str) -> DataFrame:
        """Hand a statement that is not about an iceview view to Spark."""
        return self.spark.sql(text if text is not None else fallback)

    # ------------------------------------------------------------------ CREATE

    def _create(self, stmt: CreateView, text: str | None, call: _Call) -> View | None:
        ident = call.target(stmt.name, temp_first=False)
        if ident is None:
            self._pass(text, _render_create(stmt))
            return None
        if stmt.schema_binding is not None:
            raise SparkViewsAnalysisError(
                f"WITH SCHEMA {stmt.schema_binding} is not supported for Iceberg views", "UNSUPPORTED_FEATURE"
            )
        full = (self.name, *ident.levels)
        view_name = _format.quoted(full)
        catalog, namespace = call.current
        self._check_temporary(stmt.query, view_name, call)
        # analysis: Spark resolves the query with the session's catalog and namespace
        schema = self.spark.sql(call.expand(stmt.query)).schema
        data_names = [f.name for f in schema.fields]
        columns = stmt.columns
        if columns:
            if len(columns) != len(data_names):
                raise _arity_error(view_name, [c.name for c in columns], data_names)
            names = [c.name for c in columns]
        else:
            names = data_names
        _check_duplicates(names)
        if stmt.or_replace:
            try:
                call.expander().check_cycle(
                    full, stmt.query, current_catalog=catalog, current_namespace=namespace
                )
            except ViewCycleError as e:
                raise SparkViewsAnalysisError(str(e)) from e
        aliased = st.StructType(
            [
                st.StructField(
                    names[i],
                    f.dataType,
                    f.nullable,
                    _with_comment(f.metadata, columns[i].comment if columns else None),
                )
                for i, f in enumerate(schema.fields)
            ]
        )
        iceberg_schema = to_iceberg_schema(aliased)
        properties, location = _create_properties(stmt.properties)
        if stmt.comment is not None:
            properties["comment"] = stmt.comment
        properties["create_engine_version"] = self.engine_version
        properties["engine_version"] = self.engine_version
        properties[_format.QUERY_COLUMN_NAMES] = ",".join(data_names)
        kwargs: dict[str, Any] = dict(
            schema=iceberg_schema,
            queries=[(ENGINE_NAME, stmt.query)],
            default_namespace=namespace,
            default_catalog=None if catalog == self.name else catalog,
            properties=properties,
            location=location,
            summary=self.summary(),
        )
        if stmt.or_replace:
            return self.catalog.create_or_replace_view(ident, **kwargs)
        try:
            return self.catalog.create_view(ident, **kwargs)
        except (ViewAlreadyExistsError, TableAlreadyExistsError) as e:
            if stmt.if_not_exists:
                return None
            raise view_already_exists(_format.quoted(ident.levels)) from e

    def summary(self) -> dict[str, str]:
        """The version summary iceview writes from Spark."""
        return {
            "engine-name": ENGINE_NAME,
            "engine-version": self.spark_version,
            ICEVIEW_VERSION_KEY: iceview.__version__,
        }

    def _check_temporary(self, query: str, view_name: str, call: _Call) -> None:
        """Iceberg-Spark's ``Cannot create view ... that references temporary view|function``."""
        temp: list[str] = []
        for ref in find_references(query):
            if call.is_temp_view(ref.parts):
                shown = _format.quoted(ref.parts)
                if shown not in temp:
                    temp.append(shown)
        if temp:
            raise SparkViewsAnalysisError(
                f"Cannot create view {view_name} that references temporary view: [{', '.join(temp)}]"
            )
        calls = [c.parts[0] for c in find_function_calls(query) if len(c.parts) == 1]
        if calls:
            temp_functions = self._temp_functions()
            found: list[str] = []
            for fn in calls:
                if fn.lower() in temp_functions and fn not in found:
                    found.append(fn)
            if found:
                raise SparkViewsAnalysisError(
                    f"Cannot create view {view_name} that references temporary function: [{', '.join(found)}]"
                )

    # ------------------------------------------------------------------ ALTER VIEW AS

    def _alter_as(self, stmt: AlterViewAs, text: str | None, call: _Call) -> DataFrame:
        ident = call.target(stmt.name)
        if ident is None:
            return self._pass(text, f"ALTER VIEW {render_name(stmt.name, 'spark')} AS {stmt.query}")
        metadata = self._load(ident)
        if metadata is None:
            raise view_not_found(_format.quoted(ident.levels))
        full = (self.name, *ident.levels)
        catalog, namespace = call.current
        self._check_temporary(stmt.query, _format.quoted(full), call)
        schema = self.spark.sql(call.expand(stmt.query)).schema
        names = [f.name for f in schema.fields]
        _check_duplicates(names)
        try:
            call.expander().check_cycle(
                full, stmt.query, current_catalog=catalog, current_namespace=namespace
            )
        except ViewCycleError as e:
            raise SparkViewsAnalysisError(str(e)) from e
        self.catalog.replace_view(
            ident,
            schema=to_iceberg_schema(schema),
            queries=[(ENGINE_NAME, stmt.query)],
            default_namespace=namespace,
            default_catalog=None if catalog == self.name else catalog,
            properties={"engine_version": self.engine_version, _format.QUERY_COLUMN_NAMES: ",".join(names)},
            summary=self.summary(),
        )
        return self._empty_result()

    # ------------------------------------------------------------------ properties

    def _set_properties(self, stmt: AlterViewSetProperties, text: str | None, call: _Call) -> DataFrame:
        for key, clause in (("provider", "USING"), ("location", "LOCATION")):
            if key in stmt.properties:
                raise SparkViewsParseError(
                    f"The feature is not supported: {key} is a reserved table property, please use the "
                    f"{clause} clause to specify it.",
                    "UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY",
                )
        ident = call.target(stmt.name)
        if ident is None:
            return self._pass(text, "ALTER VIEW ... SET TBLPROPERTIES")
        view = self._load_view(ident)
        update = view.update_properties()
        for key, value in stmt.properties.items():
            if key in _ALTER_RESERVED:
                raise SparkViewsUnsupportedOperationError(f"Cannot set reserved property: '{key}'")
            update.set(key, value)
        update.commit()
        return self._empty_result()

    def _unset_properties(self, stmt: AlterViewUnsetProperties, text: str | None, call: _Call) -> DataFrame:
        ident = call.target(stmt.name)
        if ident is None:
            return self._pass(text, "ALTER VIEW ... UNSET TBLPROPERTIES")
        view = self._load_view(ident)
        if not stmt.if_exists:
            shown = dict(_format.spark_view_properties(view.metadata))
            for key in stmt.keys:
                if key not in shown:
                    raise SparkViewsAnalysisError(f"Cannot remove property that is not set: '{key}'")
        update = view.update_properties()
        for key in stmt.keys:
            if key in _ALTER_RESERVED:
                raise SparkViewsUnsupportedOperationError(f"Cannot unset reserved property: '{key}'")
            update.remove(key)
        update.commit()
        return self._empty_result()

    def _load_view(self, ident: ViewIdentifier) -> View:
        try:
            return self.catalog.load_view(ident)
        except NoSuchViewError as e:
            raise view_not_found(_format.quoted(ident.levels)) from e

    # ------------------------------------------------------------------ RENAME / DROP

    def _rename(self, stmt: AlterViewRename, text: str | None, call: _Call) -> DataFrame:
        ident = call.target(stmt.name)
        if ident is None or self._load(ident) is None:
            if ident is not None and not self.registered:
                raise view_not_found(_format.quoted(ident.levels))
            return self._pass(
                text,
                f"ALTER VIEW {render_name(stmt.name, 'spark')} RENAME TO {render_name(stmt.new_name, 'spark')}",
            )
        target = call.qualify(stmt.new_name)
        if target[0] != self.name:
            raise SparkViewsAnalysisError(
                f"Cannot move view between catalogs: from={self.name} and to={target[0]}"
            )
        new_ident = to_identifier(target[1:])
        try:
            self.catalog.rename_view(ident, new_ident)
        except (ViewAlreadyExistsError, TableAlreadyExistsError) as e:
            raise view_already_exists(_format.quoted(new_ident.levels)) from e
        except NoSuchViewError as e:
            raise view_not_found(_format.quoted(ident.levels)) from e
        return self._empty_result()

    def _drop(self, stmt: DropView, text: str | None, call: _Call) -> DataFrame:
        ident = call.target(stmt.name)
        if ident is None:
            exists = " IF EXISTS" if stmt.if_exists else ""
            return self._pass(text, f"DROP VIEW{exists} {render_name(stmt.name, 'spark')}")
        dropped = self.catalog.drop_view(ident)
        if not dropped and not stmt.if_exists:
            raise view_not_found(_format.quoted(ident.levels))
        self._ops.pop(ident, None)
        return self._empty_result()

    # ------------------------------------------------------------------ SHOW / DESCRIBE

    def _show_views(self, stmt: ShowViews, text: str | None, call: _Call) -> DataFrame:
        gt = self._global_temp_db()
        if stmt.namespace is None:
            catalog, namespace = call.current
        elif call.is_catalog(stmt.namespace[0]):
            catalog, namespace = stmt.namespace[0], stmt.namespace[1:]
        else:
            catalog, namespace = call.current[0], stmt.namespace
        if catalog != self.name or (namespace and namespace[0].lower() == gt.lower()):
            if catalog == self.name:  # global temporary views live in the session catalog
                like = f" LIKE '{stmt.pattern}'" if stmt.pattern is not None else ""
                return self.spark.sql(
                    f"SHOW VIEWS IN {SESSION_CATALOG}.{render_name(namespace, 'spark')}{like}"
                )
            return self._pass(text, "SHOW VIEWS")
        names = [v[-1] for v in self.catalog.list_views(namespace)]
        names.sort()
        if stmt.pattern is not None:
            keep = set(_format.filter_pattern(names, stmt.pattern))
            names = [n for n in names if n in keep]
        shown_ns = _format.quoted(namespace)
        rows: list[tuple[str, str, bool]] = [(shown_ns, n, False) for n in names]
        local = sorted(name for ns, name in call.temp_views() if ns == "")
        if stmt.pattern is not None:
            local = _format.filter_pattern(local, stmt.pattern)
        rows += [("", n, True) for n in local]
        schema = st.StructType(
            [
                st.StructField("namespace", st.StringType(), False),
                st.StructField("viewName", st.StringType(), False),
                st.StructField("isTemporary", st.BooleanType(), False),
            ]
        )
        return self.spark.createDataFrame(rows, schema)

    def _describe(self, stmt: DescribeView, text: str | None, call: _Call) -> DataFrame:
        ident = call.target(stmt.name)
        metadata = self._load(ident) if ident is not None else None
        if ident is None or metadata is None:
            return self._pass_relation(text, call, stmt.name, _describe_text(stmt))
        if stmt.column is not None:
            raise SparkViewsAnalysisError(
                f"A column or function parameter with name {_sql_id(stmt.column)} cannot be resolved. ",
                "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
            )
        rows = _format.describe_rows(
            self._full_name(ident), metadata, extended=stmt.extended or stmt.formatted
        )
        schema = st.StructType(
            [
                st.StructField("col_name", st.StringType(), False),
                st.StructField("data_type", st.StringType(), False),
                st.StructField("comment", st.StringType(), True),
            ]
        )
        return self.spark.createDataFrame(rows, schema)

    def _show_create(self, stmt: ShowCreateTable, text: str | None, call: _Call) -> DataFrame:
        ident = call.target(stmt.name)
        metadata = self._load(ident) if ident is not None else None
        if ident is None or metadata is None:
            return self._pass_relation(text, call, stmt.name, "SHOW CREATE TABLE {}")
        rep = metadata.sql_for(ENGINE_NAME, fallback=True)
        if rep is None:
            raise SparkViewsAnalysisError(f"Cannot load SQL for view {self._full_name(ident)}")
        text_out = _format.show_create_view(self._full_name(ident), metadata, rep.sql)
        schema = st.StructType([st.StructField("createtab_stmt", st.StringType(), False)])
        return self.spark.createDataFrame([(text_out,)], schema)

    def _show_properties(self, stmt: ShowTblProperties, text: str | None, call: _Call) -> DataFrame:
        ident = call.target(stmt.name)
        metadata = self._load(ident) if ident is not None else None
        if ident is None or metadata is None:
            key = f" ({_format.escape_single_quoted(stmt.key)})" if stmt.key is not None else ""
            return self._pass_relation(text, call, stmt.name, "SHOW TBLPROPERTIES {}" + key)
        rows = _format.show_properties_rows(self._full_name(ident), metadata, stmt.key)
        schema = st.StructType(
            [st.StructField("key", st.StringType(), False), st.StructField("value", st.StringType(), False)]
        )
        return self.spark.createDataFrame(rows, schema)

    def _pass_relation(
        self, text: str | None, call: _Call, name: tuple[str, ...], template: str
    ) -> DataFrame:
        """DESCRIBE / SHOW of something that is not an iceview view: Spark's, with a virtual
        catalog's names mapped to the table catalog."""
        spark_name = self._spark_name(call, name)
        if text is not None and spark_name == name:
            return self.spark.sql(text)
        return self.spark.sql(template.format(render_name(spark_name, "spark")))

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
            raise SparkViewsParseError("CREATE VIEW with both IF NOT EXISTS and REPLACE is not allowed.")
        cols = tuple(ViewColumn(c) if isinstance(c, str) else ViewColumn(c[0], c[1]) for c in (columns or ()))
        stmt = CreateView(
            name=_parts(name),
            query=query,
            columns=cols,
            comment=comment,
            properties=dict(properties or {}),
            or_replace=replace,
            if_not_exists=if_not_exists,
        )
        return self._create(stmt, None, _Call(self))

    def create_or_replace_view(self, name: NameLike, query: str, **kwargs: Any) -> View | None:
        """``CREATE OR REPLACE VIEW``; see :meth:`create_view`."""
        return self.create_view(name, query, replace=True, **kwargs)

    def alter_view_as(self, name: NameLike, query: str) -> None:
        """``ALTER VIEW name AS query``: a new version with the new query (Iceberg-Spark refuses this
        statement; iceview supports it). Properties, comment and location are kept."""
        self._alter_as(AlterViewAs(_parts(name), query), None, _Call(self))

    def set_properties(self, name: NameLike, properties: Mapping[str, str]) -> None:
        """``ALTER VIEW name SET TBLPROPERTIES (...)``."""
        self._set_properties(AlterViewSetProperties(_parts(name), dict(properties)), None, _Call(self))

    def unset_properties(self, name: NameLike, keys: Iterable[str], *, if_exists: bool = False) -> None:
        """``ALTER VIEW name UNSET TBLPROPERTIES [IF EXISTS] (...)``."""
        self._unset_properties(
            AlterViewUnsetProperties(_parts(name), tuple(keys), if_exists), None, _Call(self)
        )

    def rename_view(self, name: NameLike, new_name: NameLike) -> None:
        """``ALTER VIEW name RENAME TO new_name``."""
        self._rename(AlterViewRename(_parts(name), _parts(new_name)), None, _Call(self))

    def drop_view(self, name: NameLike, *, if_exists: bool = False) -> None:
        """``DROP VIEW [IF EXISTS] name``."""
        self._drop(DropView(_parts(name), if_exists), None, _Call(self))

    def show_views(self, namespace: NameLike | None = None, pattern: str | None = None) -> DataFrame:
        """``SHOW VIEWS [IN namespace] [LIKE pattern]``: rows (namespace, viewName, isTemporary)."""
        ns = _parts(namespace) if namespace is not None else None
        return self._show_views(ShowViews(ns, pattern), None, _Call(self))

    def describe(self, name: NameLike, *, extended: bool = False) -> DataFrame:
        """``DESCRIBE [EXTENDED] name``: rows (col_name, data_type, comment)."""
        return self._describe(DescribeView(_parts(name), extended=extended), None, _Call(self))

    def show_create_table(self, name: NameLike) -> DataFrame:
        """``SHOW CREATE TABLE name``: one row (createtab_stmt)."""
        return self._show_create(ShowCreateTable(_parts(name)), None, _Call(self))

    def show_tblproperties(self, name: NameLike, key: str | None = None) -> DataFrame:
        """``SHOW TBLPROPERTIES name [(key)]``: rows (key, value)."""
        return self._show_properties(ShowTblProperties(_parts(name), key), None, _Call(self))


# ----------------------------------------------------------------------------- helpers


def _sql_id(parts: Sequence[str]) -> str:
    """Spark's ``toSQLId``: every part back-quoted."""
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


def _arity_error(
    view_name: str, view_columns: Sequence[str], data_columns: Sequence[str]
) -> SparkViewsAnalysisError:
    few = len(view_columns) > len(data_columns)
    sub = "NOT_ENOUGH_DATA_COLUMNS" if few else "TOO_MANY_DATA_COLUMNS"
    reason = "not enough data columns" if few else "too many data columns"
    return SparkViewsAnalysisError(
        f"Cannot create view {view_name}, the reason is {reason}:\n"
        f"View columns: {', '.join(view_columns)}.\nData columns: {', '.join(data_columns)}.",
        f"CREATE_VIEW_COLUMN_ARITY_MISMATCH.{sub}",
    )


def _check_duplicates(names: Sequence[str]) -> None:
    """Spark's ``checkColumnNameDuplication`` (case-insensitive, the default resolver: the name is
    reported lower-cased)."""
    seen: set[str] = set()
    for n in names:
        key = n.lower()
        if key in seen:
            raise SparkViewsAnalysisError(
                f"The column {_sql_id([key])} already exists. Consider to choose another name or rename the "
                "existing column.",
                "COLUMN_ALREADY_EXISTS",
            )
        seen.add(key)


def _with_comment(metadata: Mapping[str, Any] | None, comment: str | None) -> dict[str, Any]:
    meta = dict(metadata or {})
    if comment is not None:
        meta["comment"] = comment
    return meta


def _create_properties(given: Mapping[str, str | None]) -> tuple[dict[str, str], str | None]:
    """``TBLPROPERTIES`` as Iceberg-Spark stores them (``Spark3Util.rebuildCreateProperties``):
    ``provider`` checked and turned into
    ``write.format.default``; ``location`` is returned separately (it becomes the view location)."""
    props = {k: v for k, v in given.items() if v is not None and k not in _TABLE_RESERVED}
    provider = given.get("provider")
    if provider is not None:
        lowered = provider.lower()
        if lowered not in _ALLOWED_PROVIDERS:
            raise SparkViewsIllegalArgumentError(f"Unsupported format in USING: {provider}")
        if lowered != "iceberg":
            props["write.format.default"] = lowered
    return props, given.get("location")


def _describe_text(stmt: DescribeView) -> str:
    word = " EXTENDED" if stmt.extended else (" FORMATTED" if stmt.formatted else "")
    column = " " + render_name(stmt.column, "spark") if stmt.column is not None else ""
    return "DESCRIBE TABLE" + word + " {}" + column.replace("{", "{{").replace("}", "}}")


def _render_create(stmt: CreateView) -> str:
    head = "CREATE " + ("OR REPLACE " if stmt.or_replace else "") + "VIEW "
    head += ("IF NOT EXISTS " if stmt.if_not_exists else "") + render_name(stmt.name, "spark")
    if stmt.columns:
        cols = []
        for c in stmt.columns:
            comment = f" COMMENT '{_format.escape_single_quoted(c.comment)}'" if c.comment is not None else ""
            cols.append(render_name([c.name], "spark") + comment)
        head += " (" + ", ".join(cols) + ")"
    if stmt.comment is not None:
        head += f" COMMENT '{_format.escape_single_quoted(stmt.comment)}'"
    if stmt.properties:
        props = ", ".join(
            f"'{_format.escape_single_quoted(k)}' = '{_format.escape_single_quoted(v or '')}'"
            for k, v in stmt.properties.items()
        )
        head += f" TBLPROPERTIES ({props})"
    return head + " AS " + stmt.query
