"""Listing a namespace's views one page at a time (``Catalog.list_views_page``), on SQLite and on
PostgreSQL: the SQL catalog asks its database for the page (keyset paging on the primary key), the
interface's default lists the namespace and cuts the page out. Both walk a namespace completely, in
order, without repeats, whatever the page size, and a page is stable when views are added or
dropped behind it."""

from __future__ import annotations

from typing import Any

import pytest
from catalog_support import SCHEMA, TABLE_SCHEMA, CatalogEnv

from iceview.catalog import Catalog, ViewPage
from iceview.catalog.sql import SqlCatalog
from iceview.errors import NoSuchNamespaceError

# ASCII names only where the order is compared: a PostgreSQL database orders names by its collation
NAMES = ["a", "a_1", "b", "v00", "v01", "v10", "v2", "z"]
PAGING = [SqlCatalog.list_views_page, Catalog.list_views_page]
"""The SQL catalog's own paging and the interface's default, on the same catalog."""


def create(catalog: SqlCatalog, ident: Any) -> None:
    catalog.create_view(ident, schema=SCHEMA, queries={"spark": "SELECT 1 AS id"}, default_namespace=("ns",))


def walk(list_page: Any, catalog: SqlCatalog, namespace: str, size: int) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    after = None
    while True:
        page = list_page(catalog, namespace, after=after, limit=size)
        assert isinstance(page, ViewPage)
        assert len(page.identifiers) <= size
        found += page.identifiers
        if not page.more:
            return found
        assert page.identifiers, "a page that says more follows is not empty"
        after = page.identifiers[-1][-1]


@pytest.fixture
def filled(catalog: SqlCatalog, tables: Any) -> SqlCatalog:
    catalog.create_namespace("ns")
    catalog.create_namespace("other")
    catalog.create_namespace(("ns", "inner"))
    for name in NAMES:
        create(catalog, ("ns", name))
    create(catalog, ("other", "m"))  # other namespaces, and tables, are not listed
    create(catalog, ("ns", "inner", "deep"))
    tables.create_table("ns.t", schema=TABLE_SCHEMA)
    return catalog


@pytest.mark.parametrize("list_page", PAGING, ids=["sql", "default"])
@pytest.mark.parametrize("size", [1, 3, 8, 9, 1000])
def test_pages_walk_the_namespace_in_order(filled: SqlCatalog, list_page: Any, size: int) -> None:
    assert walk(list_page, filled, "ns", size) == [("ns", n) for n in NAMES] == filled.list_views("ns")


@pytest.mark.parametrize("list_page", PAGING, ids=["sql", "default"])
def test_a_page_after_a_name_that_is_not_there(filled: SqlCatalog, list_page: Any) -> None:
    page = list_page(filled, "ns", after="v05", limit=2)
    assert page == ViewPage([("ns", "v10"), ("ns", "v2")], True)
    assert list_page(filled, "ns", after="v2", limit=5) == ViewPage([("ns", "z")], False)
    assert list_page(filled, "ns", after="z", limit=5) == ViewPage([], False)
    assert list_page(filled, "ns", after="zz", limit=5) == ViewPage([], False)
    assert list_page(filled, "ns", after="", limit=1) == ViewPage([("ns", "a")], True)
    assert list_page(filled, "other", after=None, limit=1) == ViewPage([("other", "m")], False)
    assert list_page(filled, ("ns", "inner"), after=None, limit=9) == ViewPage(
        [("ns", "inner", "deep")], False
    )


@pytest.mark.parametrize("list_page", PAGING, ids=["sql", "default"])
def test_pages_are_stable_when_views_come_and_go(filled: SqlCatalog, list_page: Any) -> None:
    first = list_page(filled, "ns", after=None, limit=3)
    assert [i[-1] for i in first.identifiers] == ["a", "a_1", "b"]
    create(filled, ("ns", "a_0"))  # behind the cursor: not seen, nothing shifts
    filled.drop_view(("ns", "b"))  # the cursor's own name gone: the next page starts after it all the same
    filled.drop_view(("ns", "v01"))
    create(filled, ("ns", "v05"))  # ahead of the cursor: seen
    second = list_page(filled, "ns", after="b", limit=3)
    assert [i[-1] for i in second.identifiers] == ["v00", "v05", "v10"]
    assert second.more


@pytest.mark.parametrize("list_page", PAGING, ids=["sql", "default"])
def test_names_beyond_ascii_and_the_root_namespace(
    catalog: SqlCatalog, list_page: Any, env: CatalogEnv
) -> None:
    catalog.create_namespace("ns")
    names = ["Straße", "café", "日本", "naïve", "ÅB", "x y"]
    for name in names:
        create(catalog, ("ns", name))
    create(catalog, ("root_view",))
    for size in (1, 2, 7):
        walked = [i[-1] for i in walk(list_page, catalog, "ns", size)]
        assert sorted(walked) == sorted(names) and len(set(walked)) == len(names)
        if env.backend == "sqlite" or list_page is Catalog.list_views_page:
            assert walked == sorted(names)  # SQLite compares UTF-8 bytes: code point order, as Python
    assert walk(list_page, catalog, (), 1) == [("root_view",)]


@pytest.mark.parametrize("list_page", PAGING, ids=["sql", "default"])
def test_a_missing_namespace_and_a_bad_limit(catalog: SqlCatalog, list_page: Any) -> None:
    with pytest.raises(NoSuchNamespaceError, match=r"^Namespace does not exist: nope$"):
        list_page(catalog, "nope", after=None, limit=5)
    catalog.create_namespace("empty")
    assert list_page(catalog, "empty", after=None, limit=5) == ViewPage([], False)
    with pytest.raises(ValueError, match="limit must be at least 1: 0"):
        list_page(catalog, "empty", after=None, limit=0)
