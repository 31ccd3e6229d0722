"""The view DDL of :class:`~iceview.spark.SparkViews`: ``CREATE [OR REPLACE] VIEW``, ``ALTER VIEW
... AS``, ``ALTER VIEW ... SET|UNSET TBLPROPERTIES``, ``ALTER VIEW ... RENAME TO`` and ``DROP VIEW``,
with Iceberg-Spark 1.10's semantics, records and messages. A statement whose name is not a view of
the iceview catalog (a temporary view, another catalog's) is handed to Spark."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql import types as st

from iceview.errors import (
    NoSuchViewError,
    SQLParseError,
    TableAlreadyExistsError,
    ViewAlreadyExistsError,
    ViewCycleError,
)
from iceview.identifiers import to_identifier
from iceview.spark import _format
from iceview.spark.access import ViewAccess
from iceview.spark.call import Call, ViewsHost, check_temporary
from iceview.spark.errors import (
    SparkViewsAnalysisError,
    SparkViewsIllegalArgumentError,
    SparkViewsParseError,
    SparkViewsUnsupportedOperationError,
    parse_error_from,
    view_already_exists,
    view_not_found,
)
from iceview.spark.names import ENGINE_NAME, sql_id
from iceview.spark.types import to_iceberg_schema
from iceview.sql import (
    AlterViewAs,
    AlterViewRename,
    AlterViewSetProperties,
    AlterViewUnsetProperties,
    CreateView,
    DropView,
    Statement,
    parse_statement,
    render_name,
)
from iceview.view import ViewDefinition

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from iceview.view import View

__all__ = ["ViewDDL", "parse_view_statement", "render_create"]

_ALLOWED_PROVIDERS = ("iceberg", "parquet", "avro", "orc")
_TABLE_RESERVED = ("provider", "location")
"""Dropped from TBLPROPERTIES at CREATE (``provider`` checked, ``location`` is the view location)."""
_ALTER_RESERVED = ("format-version", _format.QUERY_COLUMN_NAMES)
"""Iceberg's ``SparkCatalog.alterView`` refuses to set or unset these."""


def parse_view_statement(text: str) -> Statement | None:
    """:func:`iceview.sql.parse_statement` with Spark's exception: a view statement Spark's parser
    would refuse raises :class:`~iceview.spark.SparkViewsParseError` (a PySpark ``ParseException``)
    with Spark's error class, message and position."""
    try:
        return parse_statement(text)
    except SQLParseError as e:
        raise parse_error_from(e) from e


class ViewDDL:
    """The DDL statements of a :class:`~iceview.spark.SparkViews` (its ``views``)."""

    def __init__(self, views: ViewsHost, access: ViewAccess) -> None:
        self.views = views
        self.access = access

    # ------------------------------------------------------------------ CREATE

    def create(self, stmt: CreateView, text: str | None, call: Call) -> View | None:
        v = self.views
        ident = call.target(stmt.name, temp_first=False)
        if ident is None:
            v._pass(text, render_create(stmt))
            return None
        if stmt.schema_binding is not None:
            raise SparkViewsAnalysisError(
                f"WITH SCHEMA {stmt.schema_binding} is not supported for Iceberg views", "UNSUPPORTED_FEATURE"
            )
        full = (v.name, *ident.levels)
        view_name = _format.quoted(full)
        catalog, namespace = call.current
        check_temporary(stmt.query, view_name, call)
        # analysis: Spark resolves the query with the session's catalog and namespace
        schema = v.spark.sql(call.expand(stmt.query)).schema
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
        properties["create_engine_version"] = v.engine_version
        properties["engine_version"] = v.engine_version
        properties[_format.QUERY_COLUMN_NAMES] = ",".join(data_names)
        definition = ViewDefinition.of(
            schema=iceberg_schema,
            queries=[(ENGINE_NAME, stmt.query)],
            default_namespace=namespace,
            default_catalog=None if catalog == v.name else catalog,
            properties=properties,
            location=location,
            summary=v.summary(),
        )
        if stmt.or_replace:
            return v.catalog.create_or_replace_view(ident, definition)
        try:
            return v.catalog.create_view(ident, definition)
        except (ViewAlreadyExistsError, TableAlreadyExistsError) as e:
            if stmt.if_not_exists:
                return None
            raise view_already_exists(_format.quoted(ident.levels)) from e

    # ------------------------------------------------------------------ ALTER VIEW AS

    def alter_as(self, stmt: AlterViewAs, text: str | None, call: Call) -> DataFrame:
        v = self.views
        ident = call.target(stmt.name)
        if ident is None:
            return v._pass(text, f"ALTER VIEW {render_name(stmt.name, 'spark')} AS {stmt.query}")
        metadata = self.access.load(ident)
        if metadata is None:
            raise view_not_found(_format.quoted(ident.levels))
        full = (v.name, *ident.levels)
        catalog, namespace = call.current
        check_temporary(stmt.query, _format.quoted(full), call)
        schema = v.spark.sql(call.expand(stmt.query)).schema
        names = [f.name for f in schema.fields]
        _check_duplicates(names)
        try:
            call.expander().check_cycle(
                full, stmt.query, current_catalog=catalog, current_namespace=namespace
            )
        except ViewCycleError as e:
            raise SparkViewsAnalysisError(str(e)) from e
        definition = ViewDefinition.of(
            schema=to_iceberg_schema(schema),
            queries=[(ENGINE_NAME, stmt.query)],
            default_namespace=namespace,
            default_catalog=None if catalog == v.name else catalog,
            properties={"engine_version": v.engine_version, _format.QUERY_COLUMN_NAMES: ",".join(names)},
            summary=v.summary(),
        )
        v.catalog.replace_view(ident, definition)
        return v._empty_result()

    # ------------------------------------------------------------------ properties

    def set_properties(self, stmt: AlterViewSetProperties, text: str | None, call: Call) -> DataFrame:
        v = self.views
        for key, clause in (("provider", "USING"), ("location", "LOCATION")):
            if key in stmt.properties:
                raise SparkViewsParseError(
                    f"The feature is not supported: {key} is a reserved table property, please use the "
                    f"{clause} clause to specify it.",
                    "UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY",
                )
        ident = call.target(stmt.name)
        if ident is None:
            return v._pass(text, "ALTER VIEW ... SET TBLPROPERTIES")
        view = self.access.load_view(ident)
        update = view.update_properties()
        for key, value in stmt.properties.items():
            if key in _ALTER_RESERVED:
                raise SparkViewsUnsupportedOperationError(f"Cannot set reserved property: '{key}'")
            update.set(key, value)
        update.commit()
        return v._empty_result()

    def unset_properties(self, stmt: AlterViewUnsetProperties, text: str | None, call: Call) -> DataFrame:
        v = self.views
        ident = call.target(stmt.name)
        if ident is None:
            return v._pass(text, "ALTER VIEW ... UNSET TBLPROPERTIES")
        view = self.access.load_view(ident)
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
        return v._empty_result()

    # ------------------------------------------------------------------ RENAME / DROP

    def rename(self, stmt: AlterViewRename, text: str | None, call: Call) -> DataFrame:
        v = self.views
        ident = call.target(stmt.name)
        if ident is None or self.access.load(ident) is None:
            if ident is not None and not v.registered:
                raise view_not_found(_format.quoted(ident.levels))
            return v._pass(
                text,
                f"ALTER VIEW {render_name(stmt.name, 'spark')} RENAME TO {render_name(stmt.new_name, 'spark')}",
            )
        target = call.qualify(stmt.new_name)
        if target[0] != v.name:
            raise SparkViewsAnalysisError(
                f"Cannot move view between catalogs: from={v.name} and to={target[0]}"
            )
        new_ident = to_identifier(target[1:])
        try:
            v.catalog.rename_view(ident, new_ident)
        except (ViewAlreadyExistsError, TableAlreadyExistsError) as e:
            raise view_already_exists(_format.quoted(new_ident.levels)) from e
        except NoSuchViewError as e:
            raise view_not_found(_format.quoted(ident.levels)) from e
        return v._empty_result()

    def drop(self, stmt: DropView, text: str | None, call: Call) -> DataFrame:
        v = self.views
        ident = call.target(stmt.name)
        if ident is None:
            exists = " IF EXISTS" if stmt.if_exists else ""
            return v._pass(text, f"DROP VIEW{exists} {render_name(stmt.name, 'spark')}")
        dropped = v.catalog.drop_view(ident)
        if not dropped and not stmt.if_exists:
            raise view_not_found(_format.quoted(ident.levels))
        self.access.forget(ident)
        return v._empty_result()


# ----------------------------------------------------------------------------- helpers


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
                f"The column {sql_id([key])} already exists. Consider to choose another name or rename the "
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


def render_create(stmt: CreateView) -> str:
    """The ``CREATE VIEW`` statement Spark runs when the name is not a view of the iceview catalog
    (the Python API builds the statement, not its text)."""
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
