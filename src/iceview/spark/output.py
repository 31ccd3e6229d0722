"""What :class:`~iceview.spark.SparkViews` shows of views: ``SHOW VIEWS``, ``DESCRIBE [EXTENDED]``,
``SHOW CREATE TABLE`` and ``SHOW TBLPROPERTIES``, as DataFrames with Iceberg-Spark 1.10's rows
(formatted by :mod:`iceview.spark._format`). Names that are not views of the iceview catalog are
Spark's business."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import types as st

from iceview.spark import _format
from iceview.spark.access import ViewAccess
from iceview.spark.call import Call, ViewsHost
from iceview.spark.errors import SparkViewsAnalysisError
from iceview.spark.names import ENGINE_NAME, SESSION_CATALOG, sql_id
from iceview.sql import DescribeView, ShowCreateTable, ShowTblProperties, ShowViews, render_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


__all__ = ["ViewOutput"]


class ViewOutput:
    """The SHOW and DESCRIBE statements of a :class:`~iceview.spark.SparkViews` (its ``views``)."""

    def __init__(self, views: ViewsHost, access: ViewAccess) -> None:
        self.views = views
        self.access = access

    def show_views(self, stmt: ShowViews, text: str | None, call: Call) -> DataFrame:
        v = self.views
        gt = v._global_temp_db()
        if stmt.namespace is None:
            catalog, namespace = call.current
        elif call.is_catalog(stmt.namespace[0]):
            catalog, namespace = stmt.namespace[0], stmt.namespace[1:]
        else:
            catalog, namespace = call.current[0], stmt.namespace
        if catalog != v.name or (namespace and namespace[0].lower() == gt.lower()):
            if catalog == v.name:  # global temporary views live in the session catalog
                like = f" LIKE '{stmt.pattern}'" if stmt.pattern is not None else ""
                return v.spark.sql(f"SHOW VIEWS IN {SESSION_CATALOG}.{render_name(namespace, 'spark')}{like}")
            return v._pass(text, "SHOW VIEWS")
        names = [ident[-1] for ident in v.catalog.list_views(namespace)]
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
        return v.spark.createDataFrame(rows, schema)

    def describe(self, stmt: DescribeView, text: str | None, call: Call) -> DataFrame:
        v = self.views
        ident = call.target(stmt.name)
        metadata = self.access.load(ident) if ident is not None else None
        if ident is None or metadata is None:
            return self.pass_relation(text, call, stmt.name, _describe_text(stmt))
        if stmt.column is not None:
            raise SparkViewsAnalysisError(
                f"A column or function parameter with name {sql_id(stmt.column)} cannot be resolved. ",
                "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
            )
        rows = _format.describe_rows(
            self.access.full_name(ident), metadata, extended=stmt.extended or stmt.formatted
        )
        schema = st.StructType(
            [
                st.StructField("col_name", st.StringType(), False),
                st.StructField("data_type", st.StringType(), False),
                st.StructField("comment", st.StringType(), True),
            ]
        )
        return v.spark.createDataFrame(rows, schema)

    def show_create(self, stmt: ShowCreateTable, text: str | None, call: Call) -> DataFrame:
        v = self.views
        ident = call.target(stmt.name)
        metadata = self.access.load(ident) if ident is not None else None
        if ident is None or metadata is None:
            return self.pass_relation(text, call, stmt.name, "SHOW CREATE TABLE {}")
        full_name = self.access.full_name(ident)
        rep = metadata.sql_for(ENGINE_NAME, fallback=True)
        if rep is None:
            raise SparkViewsAnalysisError(f"Cannot load SQL for view {full_name}")
        text_out = _format.show_create_view(full_name, metadata, rep.sql)
        schema = st.StructType([st.StructField("createtab_stmt", st.StringType(), False)])
        return v.spark.createDataFrame([(text_out,)], schema)

    def show_properties(self, stmt: ShowTblProperties, text: str | None, call: Call) -> DataFrame:
        v = self.views
        ident = call.target(stmt.name)
        metadata = self.access.load(ident) if ident is not None else None
        if ident is None or metadata is None:
            key = f" ({_format.escape_single_quoted(stmt.key)})" if stmt.key is not None else ""
            return self.pass_relation(text, call, stmt.name, "SHOW TBLPROPERTIES {}" + key)
        rows = _format.show_properties_rows(self.access.full_name(ident), metadata, stmt.key)
        schema = st.StructType(
            [st.StructField("key", st.StringType(), False), st.StructField("value", st.StringType(), False)]
        )
        return v.spark.createDataFrame(rows, schema)

    def pass_relation(self, text: str | None, call: Call, name: tuple[str, ...], template: str) -> DataFrame:
        """DESCRIBE / SHOW of something that is not an iceview view: Spark's, with a virtual
        catalog's names mapped to the table catalog."""
        v = self.views
        spark_name = v._spark_name(call, name)
        if text is not None and spark_name == name:
            return v.spark.sql(text)
        return v.spark.sql(template.format(render_name(spark_name, "spark")))


def _describe_text(stmt: DescribeView) -> str:
    word = " EXTENDED" if stmt.extended else (" FORMATTED" if stmt.formatted else "")
    column = " " + render_name(stmt.column, "spark") if stmt.column is not None else ""
    return "DESCRIBE TABLE" + word + " {}" + column.replace("{", "{{").replace("}", "}}")
