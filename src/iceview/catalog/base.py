"""Kept for imports written before the catalog package was split by job:

* :mod:`iceview.catalog.interface`: the :class:`Catalog` interface;
* :mod:`iceview.catalog.metastore`: :class:`MetastoreViewCatalog` and its commit loop;
* :mod:`iceview.catalog.operations`: :class:`ViewOperations`, one view's pointer;
* :mod:`iceview.catalog.properties`: properties and the retry policy;
* :mod:`iceview.view`: definitions, changes and translations of views.
"""

from iceview.catalog.interface import Catalog, NamespacePropertiesUpdate
from iceview.catalog.metastore import MetastoreViewCatalog
from iceview.catalog.operations import ViewOperations, delete_file_quietly
from iceview.catalog.properties import (
    COMMIT_MAX_RETRY_WAIT_MS,
    COMMIT_MIN_RETRY_WAIT_MS,
    COMMIT_NUM_RETRIES,
    COMMIT_TOTAL_RETRY_TIME_MS,
    GC_ENABLED,
    VIEW_DEFAULT_PREFIX,
    VIEW_OVERRIDE_PREFIX,
    RetryPolicy,
    properties_with_prefix,
    property_as_bool,
    property_as_int,
)
from iceview.view import Queries, environment_summary, source_representation, translate_representations

__all__ = [
    "COMMIT_MAX_RETRY_WAIT_MS",
    "COMMIT_MIN_RETRY_WAIT_MS",
    "COMMIT_NUM_RETRIES",
    "COMMIT_TOTAL_RETRY_TIME_MS",
    "GC_ENABLED",
    "VIEW_DEFAULT_PREFIX",
    "VIEW_OVERRIDE_PREFIX",
    "Catalog",
    "MetastoreViewCatalog",
    "NamespacePropertiesUpdate",
    "Queries",
    "RetryPolicy",
    "ViewOperations",
    "delete_file_quietly",
    "environment_summary",
    "properties_with_prefix",
    "property_as_bool",
    "property_as_int",
    "source_representation",
    "translate_representations",
]
