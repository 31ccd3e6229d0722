"""What one statement of :class:`~iceview.spark.SparkViews` learns from Spark, asked for at most once:
the current catalog and namespace, which names are catalogs, the temporary views that shadow
iceview's views, and the views its names resolve to; plus the expansion and the DDL target built
on them. Temporary functions and the temporary views a new view must not read are checked here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from iceview.errors import InvalidIdentifierError
from iceview.identifiers import ViewIdentifier, to_identifier
from iceview.spark import _format
from iceview.spark.access import AccessHost, Chain, ViewAccess
from iceview.spark.errors import SparkViewsAnalysisError
from iceview.spark.memo import ExpansionMemo, Recorder
from iceview.spark.probes import ProbeCache, analyse_together
from iceview.spark.upcast import check_output
from iceview.sql import (
    ResolvedView,
    ViewExpander,
    find_function_calls,
    find_references,
    qualify_parts,
    render_name,
)
from iceview.sql.inline import FunctionInliner, maybe_calls
from iceview.sql.udf_body import BodyTemplate

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from iceview.udf import FunctionMetadata

__all__ = ["Call", "ViewsHost", "check_temporary"]


class ViewsHost(AccessHost, Protocol):
    """A :class:`~iceview.spark.SparkViews` as its parts (statement state, DDL, output) see it:
    they are handed the facade but do not import its module, so no import cycle forms."""

    spark: SparkSession
    table_catalog: str
    max_depth: int
    _access: ViewAccess
    _probes: ProbeCache
    _expansions: ExpansionMemo
    _function_bodies: dict[tuple[object, ...], BodyTemplate]

    @property
    def engine_version(self) -> str: ...

    @property
    def registered(self) -> bool: ...

    def summary(self) -> dict[str, str]: ...

    def _is_spark_catalog(self, name: str) -> bool: ...

    def _global_temp_db(self) -> str: ...

    def _current(self) -> tuple[str, tuple[str, ...]]: ...

    def _list_temp_views(self) -> frozenset[tuple[str, str]]: ...

    def _temp_view_answer(self, written: Sequence[str]) -> bool | None: ...

    def _temp_functions(self) -> frozenset[str]: ...

    def _system_functions(self) -> frozenset[str]: ...

    def _empty_result(self) -> DataFrame: ...

    def _spark_name(self, call: Call, parts: tuple[str, ...]) -> tuple[str, ...]: ...

    def _pass(self, text: str | None, fallback: str) -> DataFrame: ...


@dataclass
class Call:
    """What one statement learns from Spark, asked for at most once."""

    views: ViewsHost
    defer_shadowing: bool = False
    """Expand as if no temporary view shadows a view, and list in :attr:`deferred` the names whose
    check (:meth:`check_shadowed`) was put off."""
    deferred: list[tuple[str, ...]] = field(default_factory=list)
    defer_checks: bool = False
    """Expand without waiting for the up-cast checks of views whose column count is visible in
    their SQL, and list them in :attr:`deferred_checks` (:meth:`run_checks` runs them)."""
    deferred_checks: list[tuple[ResolvedView, str, int]] = field(default_factory=list)
    guard_checks: bool = False
    """With :attr:`defer_checks`: a view whose probe passed before is checked by a guard in the
    expansion (:class:`iceview.spark.probes.ProbeCache`) instead, listed in :attr:`guarded`."""
    guarded: list[tuple[tuple[str, ...], str]] = field(default_factory=list)
    _current: tuple[str, tuple[str, ...]] | None = None
    _temp_views: frozenset[tuple[str, str]] | None = None
    _catalogs: dict[str, bool] = field(default_factory=dict)
    _resolved: dict[tuple[str, ...], ResolvedView | None] = field(default_factory=dict)
    _chains: dict[tuple[str, ...], Chain] = field(default_factory=dict)
    """Qualified name -> the views it is read through, from the views resolved so far (the first
    view found to read a name decides: expansion resolves each name once per statement)."""
    _shadowed: dict[tuple[str, ...], bool] = field(default_factory=dict)
    _functions: dict[tuple[str, ...], FunctionMetadata | None] = field(default_factory=dict)
    _columns: dict[tuple[str, ...], tuple[tuple[str, str], ...] | None] = field(default_factory=dict)
    _temp_functions: frozenset[str] | None = None
    _relations: dict[tuple[str, ...], tuple[tuple[str, str], ...] | None] = field(default_factory=dict)

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
            chain = self._chains.get(qualified, ())
            view = self.views._access.resolve(qualified, chain)
            self._resolved[qualified] = view
            if view is not None:
                self._chain_references(view, chain)
        return self._resolved[qualified]

    def _chain_references(self, view: ResolvedView, chain: Chain) -> None:
        """Note that what ``view`` reads (qualified as expansion qualifies a view's names) is read
        through ``chain`` and ``view``: expansion resolves those names while it expands ``view``,
        and the resolver is given nothing but the name."""
        through = (*chain, to_identifier(view.name[1:]))
        for written in self.views._access.references(view):
            qualified = qualify_parts(
                written,
                default_catalog=view.default_catalog,
                default_namespace=view.default_namespace,
                known_catalogs=self.is_catalog,
            )
            if qualified[0] == self.views.name:
                self._chains.setdefault(qualified, through)

    def resolve_function(self, qualified: tuple[str, ...]) -> FunctionMetadata | None:
        """The catalog's SQL UDF a call's qualified name names, read once per statement."""
        if qualified not in self._functions:
            self._functions[qualified] = self.views._access.load_function(qualified)
        return self._functions[qualified]

    def column_types(self, written: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
        """A relation's columns and their Spark types (as Spark analyses ``spark.table``), for
        typing the arguments of SQL UDF calls; ``None`` when Spark cannot read it."""
        if written not in self._columns:
            try:
                schema = self.views.spark.table(render_name(written, "spark")).schema
                found: tuple[tuple[str, str], ...] | None = tuple(
                    (f.name, f.dataType.simpleString()) for f in schema.fields
                )
            except Exception:
                found = None
            self._columns[written] = found
        return self._columns[written]

    def is_builtin_function(self, name: str, outer: bool) -> bool:
        """Whether a one-part call ``name`` is Spark's own function: a built-in one, or in the
        statement itself (``outer``) a temporary one (temporary functions are not visible inside
        views, whose other one-part names Iceberg-Spark qualifies with the view's namespace)."""
        key = name.lower()
        if key in self.views._system_functions():
            return True
        return outer and key in self._session_functions()

    def _session_functions(self) -> frozenset[str]:
        if self._temp_functions is None:
            self._temp_functions = self.views._temp_functions()
        return self._temp_functions

    def relation_types(self, qualified: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
        """A relation's columns and their Spark types by its qualified name, before expansion: a
        view's or table's of the iceview catalog from the catalog, else as Spark reads it."""
        if qualified not in self._relations:
            found: tuple[tuple[str, str], ...] | None = None
            v = self.views
            if qualified[0] == v.name:
                types = v._access.catalog_types(qualified, "spark")
                found = tuple(types.items()) if types is not None else None
            if found is None:
                mapped = None if v.registered else self.map_table(qualified)
                found = self.column_types(tuple(mapped) if mapped is not None else qualified)
            self._relations[qualified] = found
        return self._relations[qualified]

    def inliner(self, via: Call | Recorder, outer: bool) -> FunctionInliner:
        v = self.views
        return FunctionInliner(
            via.resolve_function,
            known_catalogs=via.is_catalog,
            dialect="spark",
            column_types=lambda written: dict(found) if (found := via.column_types(written)) else None,
            spark_ansi=v.ansi_enabled,
            bodies=v._function_bodies,
            builtin=lambda name: via.is_builtin_function(name, outer),
            relation_types=lambda qualified: (
                dict(found) if (found := via.relation_types(qualified)) else None
            ),
        )

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

    def expander(self, recorder: Recorder | None = None) -> ViewExpander:
        """The expander of this statement; its questions go through ``recorder`` when given."""
        v = self.views
        via: Call | Recorder = self if recorder is None else recorder
        inliners = (
            (self.inliner(via, False), self.inliner(via, True)) if v.catalog.supports_functions() else None
        )

        def inline(sql: str, catalog: str, namespace: tuple[str, ...], outer: bool) -> str:
            if inliners is None or not maybe_calls(sql, "spark", one_part=True):
                return sql
            return inliners[outer].inline(sql, catalog=catalog, namespace=namespace)

        def inline_tables(sql: str, catalog: str, namespace: tuple[str, ...], outer: bool) -> str:
            if inliners is None or not maybe_calls(sql, "spark", one_part=True):
                return sql
            return inliners[outer].expand_tables(sql, catalog=catalog, namespace=namespace)

        return ViewExpander(
            via.resolve,
            known_catalogs=via.is_catalog,
            dialect="spark",
            is_shadowed=via.is_shadowed,
            translate=v.translate if callable(v.translate) else None,
            map_table=None if v.registered else self.map_table,
            max_depth=v.max_depth,
            check_output=via.check_output,
            check_later=via.check_later if self.defer_checks else None,
            inline=inline,
            inline_tables=inline_tables,
        )

    def check_later(self, view: ResolvedView, sql: str, width: int, columns: Sequence[str]) -> str | None:
        """A guard for the view's check when one can be had, else the check is put off to
        :attr:`deferred_checks`."""
        if self.guard_checks:
            guard = self.views._probes.guard(view, sql, width, columns)
            if guard is not None:
                self.guarded.append((view.name, sql))
                return guard
        self.deferred_checks.append((view, sql, width))
        return None

    def run_checks(self, checks: Sequence[tuple[ResolvedView, str, int]]) -> bool:
        """Run deferred up-cast checks, innermost first: a failure raises as it would have during
        expansion. Whether every view returned the column count the expansion assumed.

        Two or more checks cost one Spark analysis: every probe is analysed in one query
        (:func:`iceview.spark.probes.analyse_together`). Only when Spark refuses that query is
        each probe analysed alone, so the same check fails first, with the same error."""
        outputs = None
        if len(checks) > 1:
            outputs = analyse_together(self.views.spark, [sql for _, sql, _ in checks])
        same = True
        for i, (view, sql, width) in enumerate(checks):
            if outputs is not None:
                checked: int | None = check_output(view.name, view.schema, outputs[i])
                self.views._probes.remember(view, sql, outputs[i])
            else:
                checked = self.check_output(view, sql)
            same = same and (checked is None or checked == width)
        return same

    def check_output(self, view: ResolvedView, sql: str) -> int | None:
        """Iceberg-Spark's reading of a view's query into its schema (by position, ``UpCast``
        only; :func:`iceview.spark.upcast.check_output`) on Spark's analysis of the expanded query
        ``sql``. Returns its column count, or ``None`` when Spark cannot analyse it (then Spark
        reports that error when it analyses the whole statement)."""
        try:
            output = self.views.spark.sql(sql).schema
        except Exception:
            return None
        width = check_output(view.name, view.schema, output)
        self.views._probes.remember(view, sql, output)
        return width

    def expand(self, sql: str) -> str:
        """``sql`` with its views expanded; replayed from :class:`~iceview.spark.memo.ExpansionMemo`
        when every answer it was built on is still the same."""
        catalog, namespace = self.current
        v = self.views
        if callable(v.translate):  # a caller's hook: its answers are not ours to remember
            return self.expander().expand(sql, current_catalog=catalog, current_namespace=namespace)
        key = (
            sql,
            catalog,
            namespace,
            self.defer_shadowing,
            self.defer_checks,
            self.guard_checks,
            v.registered,
            v.max_depth,
            v.table_catalog,
        )
        marks = (len(self.deferred), len(self.deferred_checks), len(self.guarded))
        text = v._expansions.replay(key, self)
        if text is not None:
            return text
        del self.deferred[marks[0] :], self.deferred_checks[marks[1] :], self.guarded[marks[2] :]
        recorder = Recorder(self)
        text = self.expander(recorder).expand(sql, current_catalog=catalog, current_namespace=namespace)
        v._expansions.remember(key, recorder, text)
        return text

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


def check_temporary(query: str, view_name: str, call: Call) -> None:
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
        temp_functions = call.views._temp_functions()
        found: list[str] = []
        for fn in calls:
            if fn.lower() in temp_functions and fn not in found:
                found.append(fn)
        if found:
            raise SparkViewsAnalysisError(
                f"Cannot create view {view_name} that references temporary function: [{', '.join(found)}]"
            )
