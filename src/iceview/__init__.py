"""iceview: Apache Iceberg views for Python and PySpark."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from iceview._version import __version__

if TYPE_CHECKING:
    from iceview.catalog.config import load_catalog

__all__ = ["__version__", "load_catalog"]


def __getattr__(name: str) -> Any:
    # lazy: importing iceview (e.g. for iceview.spec) does not import SQLAlchemy
    if name == "load_catalog":
        from iceview.catalog.config import load_catalog

        return load_catalog
    raise AttributeError(f"module 'iceview' has no attribute {name!r}")
