"""Catalog names in Trino: which Trino catalog a source engine's catalog is (Spark's ``prod`` is
often Trino's ``iceberg``), set once per catalog or per view, and the check that every name of a
``trino`` translation starts with a known Trino catalog (``trino-catalog-unknown``).

Properties (documented in ``docs/translation.md``):

* :data:`TRINO_CATALOG_NAME` (catalog property): the name Trino gives *this* catalog;
* :data:`TRINO_CATALOG_NAMES` (catalog or view property): ``source=trino`` pairs separated by
  commas, e.g. ``prod=iceberg, other=lake``; a view's pairs override the catalog's.
"""

from __future__ import annotations

from collections.abc import Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from iceview.errors import InvalidArgumentError
from iceview.sql.translate.keys import TRINO_CATALOG_NAME, TRINO_CATALOG_NAMES
from iceview.sql.translate.model import TranslationIssue

__all__ = [
    "TRINO_CATALOG_NAME",
    "TRINO_CATALOG_NAMES",
    "parse_catalog_names",
    "trino_catalog_names",
    "unknown_catalog_issues",
]


def parse_catalog_names(text: str, where: str) -> dict[str, str]:
    """The pairs of a :data:`TRINO_CATALOG_NAMES` value; ``where`` names its origin in errors."""
    names: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        source, sep, target = item.partition("=")
        source, target = source.strip(), target.strip()
        if not sep or not source or not target:
            raise InvalidArgumentError(
                f"Invalid {TRINO_CATALOG_NAMES} in {where}: {item.strip()!r} is not 'source=trino'"
            )
        if names.get(source, target) != target:
            raise InvalidArgumentError(
                f"Invalid {TRINO_CATALOG_NAMES} in {where}: {source!r} is mapped to both "
                f"{names[source]!r} and {target!r}"
            )
        names[source] = target
    return names


def trino_catalog_names(
    catalog_name: str,
    catalog_properties: Mapping[str, str],
    view_properties: Mapping[str, str] | None = None,
) -> dict[str, str] | None:
    """The source-to-Trino catalog-name mapping for views of the catalog ``catalog_name``: its
    :data:`TRINO_CATALOG_NAME`, then its :data:`TRINO_CATALOG_NAMES`, then the view's
    :data:`TRINO_CATALOG_NAMES` (later ones win). None when none of them is set (then names are
    written as the source engine calls its catalogs, unchecked)."""
    names: dict[str, str] = {}
    found = False
    own = catalog_properties.get(TRINO_CATALOG_NAME)
    if own is not None:
        if not own.strip():
            raise InvalidArgumentError(f"Invalid {TRINO_CATALOG_NAME} of catalog {catalog_name!r}: blank")
        names[catalog_name] = own.strip()
        found = True
    for props, where in (
        (catalog_properties, f"the properties of catalog {catalog_name!r}"),
        (view_properties or {}, "the view's properties"),
    ):
        text = props.get(TRINO_CATALOG_NAMES)
        if text is not None:
            names.update(parse_catalog_names(text, where))
            found = True
    return names if found else None


def unknown_catalog_issues(sql: str, catalog_names: Mapping[str, str]) -> list[TranslationIssue]:
    """Why the names of a ``trino`` translation would not resolve: a relation whose catalog part is
    none of ``catalog_names``' Trino catalogs (code ``trino-catalog-unknown``). CTE names and
    unqualified names are left to the other checks (``unqualified-name``)."""
    known = set(catalog_names.values())
    try:
        tree = sqlglot.parse_one(sql, read="trino")
    except SqlglotError:
        return []  # the view contract reports SQL that does not parse
    issues: list[TranslationIssue] = []
    for table in tree.find_all(exp.Table):
        catalog = table.args.get("catalog")
        if not isinstance(catalog, exp.Identifier) or catalog.name in known:
            continue
        name = ".".join(p.name for p in table.parts)
        issues.append(
            TranslationIssue(
                "trino-catalog-unknown",
                name,
                f"no Trino catalog name is known for catalog {catalog.name!r} (known: "
                f"{', '.join(sorted(known)) or 'none'}); set {TRINO_CATALOG_NAMES} on the catalog or the view",
            )
        )
    return issues
