"""View catalogs: where the metadata pointer of each view lives, and the atomic swap of it.

``load_catalog(name, **props)`` (PyIceberg's configuration conventions) returns a
:class:`~iceview.catalog.interface.Catalog`; the SQL catalog (:mod:`iceview.catalog.sql`) shares its
database with Iceberg Java's ``JdbcCatalog`` and PyIceberg's ``SqlCatalog``; the REST catalog
(:mod:`iceview.catalog.rest`) speaks the Iceberg REST protocol to any REST catalog server.

The names below are imported when first used, so that a caller of one catalog type does not load the
other's client libraries (SQLAlchemy, or PyIceberg's REST session).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceview._lazy import lazy_names

if TYPE_CHECKING:
    from iceview.catalog.config import load_catalog
    from iceview.catalog.interface import Catalog, NamespacePropertiesUpdate, ViewPage
    from iceview.catalog.metastore import MetastoreViewCatalog
    from iceview.catalog.operations import ViewOperations
    from iceview.catalog.rest import RestCatalog
    from iceview.catalog.sql import SqlCatalog
    from iceview.identifiers import ViewIdentifier

_WHERE: dict[str, str] = {
    "load_catalog": "iceview.catalog.config",
    "Catalog": "iceview.catalog.interface",
    "NamespacePropertiesUpdate": "iceview.catalog.interface",
    "ViewPage": "iceview.catalog.interface",
    "MetastoreViewCatalog": "iceview.catalog.metastore",
    "ViewOperations": "iceview.catalog.operations",
    "RestCatalog": "iceview.catalog.rest",
    "SqlCatalog": "iceview.catalog.sql",
    "ViewIdentifier": "iceview.identifiers",
}
"""Each public name -> the module that defines it."""


__getattr__ = lazy_names(__name__, _WHERE, globals())


__all__ = [
    "Catalog",
    "MetastoreViewCatalog",
    "NamespacePropertiesUpdate",
    "RestCatalog",
    "SqlCatalog",
    "ViewIdentifier",
    "ViewOperations",
    "ViewPage",
    "load_catalog",
]
