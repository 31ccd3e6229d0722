"""``iceview serve``: an Iceberg REST catalog server over iceview's catalogs.

Views go through :meth:`iceview.catalog.Catalog.commit_view` (the one change path), tables
through PyIceberg's catalog on the same store. See ``docs/server.md``.
"""

from iceview.server.app import create_app, endpoints
from iceview.server.context import ServedCatalog, ServerSettings

__all__ = ["ServedCatalog", "ServerSettings", "create_app", "endpoints"]
