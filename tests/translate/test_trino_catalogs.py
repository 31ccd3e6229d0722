"""Catalog names in Trino (iceview.sql.translate.trino_catalogs): the mapping set per catalog or per
view, and the refusal when a translated name would not resolve in Trino."""

from __future__ import annotations

import re

import pytest
import sqlglot
from sqlglot import exp

from iceview.catalog.properties import TRINO_CATALOG_NAME, TRINO_CATALOG_NAMES
from iceview.errors import InvalidArgumentError
from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate.trino_catalogs import parse_catalog_names, trino_catalog_names

SQL = "SELECT o.id FROM orders AS o JOIN other.db.x AS x ON o.id = x.id"


def _tables(sql: str) -> list[str]:
    return sorted(
        ".".join(p.name for p in t.parts) for t in sqlglot.parse_one(sql, read="trino").find_all(exp.Table)
    )


def _translate(names: dict[str, str] | None) -> str:
    return translate(
        SQL,
        "spark",
        "trino",
        default_catalog="prod",
        default_namespace=["db"],
        known_catalogs={"prod", "other"},
        catalog_names=names,
    ).sql


def test_the_property_names_are_the_catalog_layers() -> None:
    assert TRINO_CATALOG_NAME == "iceview.trino.catalog-name"
    assert TRINO_CATALOG_NAMES == "iceview.trino.catalog-names"


def test_mapping_per_catalog_then_per_view() -> None:
    assert trino_catalog_names("prod", {}) is None
    assert trino_catalog_names("prod", {TRINO_CATALOG_NAME: " iceberg "}) == {"prod": "iceberg"}
    props = {TRINO_CATALOG_NAME: "iceberg", TRINO_CATALOG_NAMES: "other=lake"}
    assert trino_catalog_names("prod", props) == {"prod": "iceberg", "other": "lake"}
    view = {TRINO_CATALOG_NAMES: "prod=ice2, other = lake2"}
    assert trino_catalog_names("prod", props, view) == {"prod": "ice2", "other": "lake2"}


@pytest.mark.parametrize("text", ["prod", "prod=", "=iceberg", "prod=a, prod=b"])
def test_bad_mappings_name_the_property_and_where(text: str) -> None:
    with pytest.raises(
        InvalidArgumentError, match=re.escape("iceview.trino.catalog-names in the view's properties")
    ):
        parse_catalog_names(text, "the view's properties")
    with pytest.raises(InvalidArgumentError, match="catalog 'prod'"):
        trino_catalog_names("prod", {TRINO_CATALOG_NAMES: text})


def test_blank_catalog_name_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="blank"):
        trino_catalog_names("prod", {TRINO_CATALOG_NAME: " "})


def test_names_use_the_trino_catalogs() -> None:
    assert _tables(_translate({"prod": "iceberg", "other": "lake"})) == ["iceberg.db.orders", "lake.db.x"]
    # without a mapping the names keep the source's catalogs, unchecked
    assert _tables(_translate(None)) == ["other.db.x", "prod.db.orders"]


def test_an_unmapped_catalog_is_refused() -> None:
    with pytest.raises(UnsafeTranslationError) as e:
        _translate({"prod": "iceberg"})
    assert e.value.codes == ("trino-catalog-unknown",) or set(e.value.codes) == {"trino-catalog-unknown"}
    assert "'other'" in str(e.value) and "iceview.trino.catalog-names" in str(e.value)


def test_an_unmapped_catalog_is_a_warning_when_not_strict() -> None:
    out = translate(
        SQL,
        "spark",
        "trino",
        default_catalog="prod",
        default_namespace=["db"],
        known_catalogs={"prod", "other"},
        catalog_names={"prod": "iceberg"},
        strict=False,
    )
    assert [w.code for w in out.warnings] == ["trino-catalog-unknown"]
    assert out.warnings[0].construct == "other.db.x"
