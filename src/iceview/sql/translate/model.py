"""The values a translation deals in: the dialects, an issue, a result, the refusal error and the
version-summary keys that record a translation."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from pyiceberg.schema import Schema
from sqlglot import exp

from iceview._version import __version__
from iceview.errors import TranslationError

DIALECTS = ("spark", "trino", "duckdb")
"""The dialects :func:`translate` reads and writes."""

PROVENANCE_KEY = "iceview.translated-from"
"""Version-summary key: the dialect the added representations were translated from."""
PROVENANCE_VERSION_KEY = "iceview.translator-version"
"""Version-summary key: the iceview version that translated them."""

TableSchemas: TypeAlias = Mapping[tuple[str, ...], Schema]
"""Schemas of the relations a query reads (tables and views), by qualified name, catalog first."""


@dataclass(frozen=True)
class TranslationIssue:
    """Why a construct cannot be translated safely. ``code`` is a stable short name (e.g.
    ``ansi-cast``), ``construct`` the SQL of the construct in the source dialect."""

    code: str
    construct: str
    reason: str

    def __str__(self) -> str:
        return f"{self.construct}: {self.reason} [{self.code}]"


@dataclass(frozen=True)
class Translation:
    """The result of :func:`translate`: the SQL in the target dialect and, with ``strict=False``,
    the issues that strict mode would have refused (empty when the translation is safe)."""

    sql: str
    source: str
    target: str
    warnings: tuple[TranslationIssue, ...] = ()

    @property
    def safe(self) -> bool:
        return not self.warnings


class UnsafeTranslationError(TranslationError):
    """A translation refused: ``issues`` lists every construct and reason; the message names the
    first ones."""

    def __init__(self, source: str, target: str, issues: Sequence[TranslationIssue]) -> None:
        self.source = source
        self.target = target
        self.issues = tuple(issues)
        shown = "; ".join(str(i) for i in self.issues[:3])
        more = f" (and {len(self.issues) - 3} more)" if len(self.issues) > 3 else ""
        super().__init__(f"Cannot translate {source} SQL to {target}: {shown}{more}")

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(i.code for i in self.issues)


def short(node: exp.Expr, dialect: str, limit: int = 120) -> str:
    """A construct's SQL for an issue, cut at ``limit`` characters."""
    text = node.sql(dialect=dialect)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def provenance_summary(source: str) -> dict[str, str]:
    """The version-summary keys that record a translation: ``iceview.translated-from`` (the
    source dialect) and ``iceview.translator-version``."""
    return {PROVENANCE_KEY: source.lower(), PROVENANCE_VERSION_KEY: __version__}


def known_catalogs_of(*names: str | None, extra: Collection[str] = ()) -> frozenset[str]:
    """A set of catalog names for :func:`translate`'s ``known_catalogs``."""
    return frozenset(n for n in (*names, *extra) if n)
