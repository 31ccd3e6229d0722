"""Fixtures for the catalog tests: a SQL catalog on SQLite and on a real PostgreSQL server.

``catalog`` is parametrized over both databases (``[sqlite]`` and ``[postgres]``); the PostgreSQL
server comes from ``fixtures.postgres`` (Debian's binaries, started once per session). ``tables`` is
PyIceberg 0.12's own ``SqlCatalog`` on the same database and warehouse, used to make real tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from catalog_support import VIEW_CATALOG_PROPERTIES, CatalogEnv

from iceview.catalog.sql import SqlCatalog

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def env(request: pytest.FixtureRequest, tmp_path: Path) -> CatalogEnv:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    if request.param == "sqlite":
        return CatalogEnv(
            "sqlite", f"sqlite:///{tmp_path}/catalog.db", warehouse, f"jdbc:sqlite:{tmp_path}/catalog.db"
        )
    db = request.getfixturevalue("postgres_database")
    return CatalogEnv("postgres", db.url, warehouse, db.jdbc_url, db.user)


@pytest.fixture
def catalog(env: CatalogEnv) -> Iterator[SqlCatalog]:
    cat = env.catalog(**VIEW_CATALOG_PROPERTIES)
    try:
        yield cat
    finally:
        cat.close()


@pytest.fixture
def tables(env: CatalogEnv, catalog: SqlCatalog) -> Iterator[Any]:
    """PyIceberg's SqlCatalog on the same database (created after ours, so ours made the tables)."""
    cat = env.pyiceberg()
    try:
        yield cat
    finally:
        cat.engine.dispose()
