"""View catalogs: where the metadata pointer of each view lives, and the atomic swap of it.

``load_catalog(name, **props)`` (PyIceberg's configuration conventions) returns a
:class:`~iceview.catalog.interface.Catalog`; the SQL catalog (:mod:`iceview.catalog.sql`) shares its
database with Iceberg Java's ``JdbcCatalog`` and PyIceberg's ``SqlCatalog``; the REST catalog
(:mod:`iceview.catalog.rest`) speaks the Iceberg REST protocol to any REST catalog server.
"""

from iceview.catalog.config import load_catalog
from iceview.catalog.interface import Catalog, NamespacePropertiesUpdate
from iceview.catalog.metastore import MetastoreViewCatalog
from iceview.catalog.operations import ViewOperations
from iceview.catalog.rest import RestCatalog
from iceview.catalog.sql import SqlCatalog
from iceview.identifiers import ViewIdentifier

__all__ = [
    "Catalog",
    "MetastoreViewCatalog",
    "NamespacePropertiesUpdate",
    "RestCatalog",
    "SqlCatalog",
    "ViewIdentifier",
    "ViewOperations",
    "load_catalog",
]
