"""PySpark integration: create, replace and query Iceberg views with Spark SQL.

Works on classic Spark and on Spark Connect, with or without Iceberg's Spark runtime, through the
public DataFrame / SQL / catalog API only (no ``_jvm``)::

    from iceview.spark import SparkViews
    views = SparkViews(spark, iceview.load_catalog("prod"))
    views.sql("CREATE OR REPLACE VIEW prod.db.v AS SELECT id FROM prod.db.t")
    views.sql("SELECT * FROM prod.db.v").show()

See docs/spark.md.
"""

from iceview.spark.errors import (
    SparkViewsAnalysisError,
    SparkViewsExpansionError,
    SparkViewsIllegalArgumentError,
    SparkViewsParseError,
    SparkViewsUnsupportedOperationError,
)
from iceview.spark.session import (
    SQLiteLockError,
    UnsupportedCatalogError,
    iceberg_catalog_conf,
    local_session,
)
from iceview.spark.types import spark_simple_string, to_iceberg_schema, to_iceberg_type
from iceview.spark.views import ENGINE_NAME, ICEVIEW_VERSION_KEY, SparkViews, Translate, split_name

__all__ = [
    "ENGINE_NAME",
    "ICEVIEW_VERSION_KEY",
    "SQLiteLockError",
    "SparkViews",
    "SparkViewsAnalysisError",
    "SparkViewsExpansionError",
    "SparkViewsIllegalArgumentError",
    "SparkViewsParseError",
    "SparkViewsUnsupportedOperationError",
    "Translate",
    "UnsupportedCatalogError",
    "iceberg_catalog_conf",
    "local_session",
    "spark_simple_string",
    "split_name",
    "to_iceberg_schema",
    "to_iceberg_type",
]
