"""View catalogs: where the metadata pointer of each view lives, and the atomic swap of it.

``load_catalog(name, **props)`` (PyIceberg's configuration conventions) returns a
:class:`~iceview.catalog.base.Catalog`; the SQL catalog (:mod:`iceview.catalog.sql`) shares its
database with Iceberg Java's ``JdbcCatalog`` and PyIceberg's ``SqlCatalog``.
"""

from iceview.catalog.base import Catalog, MetastoreViewCatalog, NamespacePropertiesUpdate, ViewOperations
from iceview.catalog.config import load_catalog
from iceview.catalog.identifiers import ViewIdentifier
from iceview.catalog.sql import SqlCatalog

__all__ = [
    "Catalog",
    "MetastoreViewCatalog",
    "NamespacePropertiesUpdate",
    "SqlCatalog",
    "ViewIdentifier",
    "ViewOperations",
    "load_catalog",
]
