"""The values a translation deals in: the dialects, an issue, a result, the refusal error and the
version-summary keys that record a translation."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias, TypeVar

from pyiceberg.schema import Schema
from sqlglot import exp

from iceview._version import __version__
from iceview.errors import InvalidArgumentError, TranslationError
from iceview.sql.translate.keys import PROVENANCE_KEY, PROVENANCE_VERSION_KEY, SPARK_ANSI_KEY

DIALECTS = ("spark", "trino", "duckdb")

SOURCE_PREFERENCE = DIALECTS
"""The order in which a version's representations are tried as the source of a translation."""

_Rep = TypeVar("_Rep", covariant=True)


class HasSQL(Protocol[_Rep]):
    """A view version or a function definition version: SQL per dialect."""

    def sql_for(self, dialect: str, *, fallback: bool = False) -> _Rep | None: ...


def translation_source(version: HasSQL[_Rep], *, besides: str | None = None) -> _Rep | None:
    """The representation of ``version`` to translate from: the first of
    :data:`SOURCE_PREFERENCE` it has (other than ``besides``), else its first whatever its dialect."""
    for dialect in SOURCE_PREFERENCE:
        if dialect != besides and (rep := version.sql_for(dialect)) is not None:
            return rep
    return version.sql_for(besides or "", fallback=True)


"""The dialects :func:`translate` reads and writes."""


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


_SPARK_VERSION = re.compile(r"(\d+)\.(\d+)")


def spark_ansi_mode(
    summary: Mapping[str, str] | None = None, properties: Mapping[str, str] | None = None
) -> bool | None:
    """Whether a view version's Spark SQL was written for ANSI Spark (None: not known).

    In order: the version summary's ``iceview.spark-ansi`` (``true``/``false``), the view property
    ``iceview.spark-ansi``, then the Spark default of the engine that wrote the version: a summary
    with ``engine-name`` ``spark`` and an ``engine-version`` of Spark 4 or later is ANSI (Spark 4.0
    turned ``spark.sql.ansi.enabled`` on by default), of Spark 3 or earlier is not. A session can
    change that setting, so the default is only what the version records when nothing says
    otherwise. Any other engine, or a version that cannot be read, gives None.

    A value of ``iceview.spark-ansi`` other than ``true`` or ``false`` raises
    :class:`~iceview.errors.InvalidArgumentError`."""
    for where, values in (("version summary", summary), ("view property", properties)):
        raw = (values or {}).get(SPARK_ANSI_KEY)
        if raw is None:
            continue
        flag = raw.strip().lower()
        if flag not in ("true", "false"):
            raise InvalidArgumentError(f"Invalid {where} {SPARK_ANSI_KEY}={raw!r}: expected true or false")
        return flag == "true"
    if summary is None or summary.get("engine-name", "").strip().lower() != "spark":
        return None
    # the spec's examples spell the key engineVersion
    version = summary.get("engine-version", summary.get("engineVersion", ""))
    match = _SPARK_VERSION.search(version)
    if match is None:
        return None
    return int(match.group(1)) >= 4
