"""PySpark integration: create, replace and query Iceberg views with Spark SQL.

Works on classic Spark and on Spark Connect, with or without Iceberg's Spark runtime, through the
public DataFrame / SQL / catalog API only (no ``_jvm``)::

    from iceview.spark import SparkViews
    views = SparkViews(spark, iceview.load_catalog("prod"))
    views.sql("CREATE OR REPLACE VIEW prod.db.v AS SELECT id FROM prod.db.t")
    views.sql("SELECT * FROM prod.db.v").show()

See docs/spark.md.

The names below are imported on first use (module ``__getattr__``), so importing a submodule such
as ``iceview.spark.jars`` (Iceberg's runtime from Maven, standard library only) does not load the SQL layer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# public name -> the submodule that defines it
_EXPORTS: dict[str, str] = {
    "SparkViewsAnalysisError": "errors",
    "SparkViewsExpansionError": "errors",
    "SparkViewsIllegalArgumentError": "errors",
    "SparkViewsParseError": "errors",
    "SparkViewsUnsupportedOperationError": "errors",
    "SQLiteLockError": "session",
    "UnsupportedCatalogError": "session",
    "iceberg_catalog_conf": "session",
    "local_session": "session",
    "spark_simple_string": "types",
    "to_iceberg_schema": "types",
    "to_iceberg_type": "types",
    "ENGINE_NAME": "views",
    "ICEVIEW_VERSION_KEY": "views",
    "SparkViews": "views",
    "Translate": "views",
    "split_name": "views",
}

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
