"""Fixtures for the server tests: the app in-process on a fresh SQLite catalog."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog, load_catalog
from iceview.server import ServedCatalog, ServerSettings, create_app


def sqlite_catalog(path: Path, name: str = "srv", **props: str) -> SqlCatalog:
    catalog = load_catalog(
        name, type="sql", uri=f"sqlite:///{path}/catalog.db", warehouse=f"file://{path}/warehouse", **props
    )
    assert isinstance(catalog, SqlCatalog)
    return catalog


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    c = sqlite_catalog(tmp_path)
    yield c
    c.close()


@pytest.fixture
def client(catalog: SqlCatalog) -> Iterator[TestClient]:
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings(max_body_bytes=64 * 1024))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
