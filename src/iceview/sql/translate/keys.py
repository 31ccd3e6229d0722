"""The property and version-summary keys of translation, without the translator: modules that only
read or write these keys (catalog properties, derived dialects) need not load sqlglot."""

from __future__ import annotations

__all__ = [
    "INLINED_FUNCTIONS_KEY",
    "PROVENANCE_KEY",
    "PROVENANCE_VERSION_KEY",
    "SPARK_ANSI_KEY",
    "TRINO_CATALOG_NAME",
    "TRINO_CATALOG_NAMES",
]

PROVENANCE_KEY = "iceview.translated-from"
"""Version-summary key: the dialect the added representations were translated from."""
PROVENANCE_VERSION_KEY = "iceview.translator-version"
"""Version-summary key: the iceview version that translated them."""

INLINED_FUNCTIONS_KEY = "iceview.inlined-functions"
"""Version-summary key: the SQL UDF definitions inlined into the derived representations, a JSON
list of ``{"namespace": [...], "name": ..., "definition-id": ..., "version-id": ...}``."""

SPARK_ANSI_KEY = "iceview.spark-ansi"
"""View property (or version-summary key) that says which semantics the view's Spark SQL has:
``true`` for ``spark.sql.ansi.enabled=true``, ``false`` for legacy (non-ANSI) Spark."""

TRINO_CATALOG_NAME = "iceview.trino.catalog-name"
"""Catalog property: the name of this catalog in Trino (e.g. ``iceberg``)."""

TRINO_CATALOG_NAMES = "iceview.trino.catalog-names"
"""Catalog or view property: ``source=trino`` catalog-name pairs, comma-separated."""
