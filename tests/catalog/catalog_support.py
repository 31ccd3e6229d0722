"""Shared values for the catalog tests (ViewCatalogTests' fixtures, in Python)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

from iceview.catalog.sql import SqlCatalog

# ViewCatalogTests.SCHEMA / OTHER_SCHEMA
SCHEMA = Schema(
    NestedField(3, "id", IntegerType(), required=True, doc="unique ID"),
    NestedField(4, "data", StringType(), required=True),
    schema_id=5,
)
OTHER_SCHEMA = Schema(NestedField(1, "some_id", IntegerType(), required=True), schema_id=7)

# a schema PyIceberg can make tables with
TABLE_SCHEMA = Schema(NestedField(1, "id", IntegerType(), required=False), schema_id=0)


def file_path(location: str) -> str:
    """A local path from a ``file:`` URI (or a path)."""
    if location.startswith("file://"):
        return location[len("file://") :]
    if location.startswith("file:"):
        return location[len("file:") :]
    return location


CATALOG_NAME = "testCatalog"

# ViewCatalogTests' catalog properties
VIEW_CATALOG_PROPERTIES = {
    "view-default.key1": "catalog-default-key1",
    "view-default.key2": "catalog-default-key2",
    "view-default.key3": "catalog-default-key3",
    "view-override.key3": "catalog-override-key3",
    "view-override.key4": "catalog-override-key4",
}


@dataclass
class CatalogEnv:
    """Where a test's catalog lives: the database URL (SQLAlchemy), the warehouse, the backend."""

    backend: str
    url: str
    warehouse: Path
    jdbc_url: str | None = None
    jdbc_user: str | None = None

    @property
    def warehouse_uri(self) -> str:
        return "file://" + str(self.warehouse)

    def catalog(self, name: str = CATALOG_NAME, **props: str) -> SqlCatalog:
        merged = {"uri": self.url, "warehouse": self.warehouse_uri, **props}
        return SqlCatalog(name, **merged)

    def pyiceberg(self, name: str = CATALOG_NAME, **props: str) -> Any:
        from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog

        return PyIcebergSqlCatalog(name, uri=self.url, warehouse=self.warehouse_uri, **props)


def metadata_files(path: Path) -> list[str]:
    """The metadata file names under a folder, sorted."""
    if not path.exists():
        return []
    return sorted(n for n in os.listdir(path) if ".metadata.json" in n)
