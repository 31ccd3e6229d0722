"""What ``translate``, ``add-dialect`` and ``sql --translate`` share: choosing the SQL to start
from, the names and schemas :func:`iceview.sql.translate` needs, and refusals as text and JSON.

``add-dialect`` commits through :meth:`iceview.view.View.add_dialects`; ``translate`` prints what
:func:`iceview.sql.translate` makes of a view's SQL with the same source representation
(:func:`iceview.view.source_representation`), defaults, known catalogs and relation schemas, so
``iceview translate VIEW --to trino`` prints the SQL that ``iceview add-dialect VIEW trino`` would
store.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from iceview.cli.errors import CliUsageError, NotFound, TranslationRefused, refusal_message

if TYPE_CHECKING:
    from pyiceberg.schema import Schema

    from iceview.catalog import Catalog
    from iceview.cli.targets import Target
    from iceview.errors import TranslationError
    from iceview.function.dialects import FunctionDialectsRefusedError
    from iceview.spec import SQLRepresentation
    from iceview.sql import Translation, TranslationIssue

__all__ = [
    "DIALECTS",
    "Source",
    "function_refusals_json",
    "inlined_sql",
    "issues_json",
    "issues_of",
    "read_text",
    "refusals",
    "refused",
    "relation_schemas",
    "run",
    "source_representation",
    "text_source",
    "view_source",
]

DIALECTS = ("spark", "trino", "duckdb")  # iceview.sql.translate.DIALECTS, without importing sqlglot


@dataclass(frozen=True)
class Source:
    """SQL to translate, with what :func:`iceview.sql.translate` needs to know about it."""

    sql: str
    dialect: str
    default_catalog: str
    default_namespace: tuple[str, ...]
    known_catalogs: frozenset[str]
    schemas: Mapping[tuple[str, ...], Schema] | None
    view_schema: Schema | None = None  # a view's stored schema: Trino output follows its contract
    spark_ansi: bool | None = None  # the semantics of a view's Spark SQL (None: not known)
    trino_catalog_names: Mapping[str, str] | None = None  # source catalog -> Trino catalog


def read_text(value: str, what: str) -> str:
    """An argument, or stdin when it is ``-``."""
    if value != "-":
        return value
    text = sys.stdin.read()
    if not text.strip():
        raise CliUsageError(f"no {what} on stdin", click.get_current_context())
    return text


def relation_schemas(
    catalog: Catalog | None,
    sql: str,
    dialect: str,
    *,
    default_catalog: str | None,
    default_namespace: Sequence[str],
) -> Mapping[tuple[str, ...], Schema] | None:
    """The schemas of the catalog's tables and views that ``sql`` reads (``None`` without a
    catalog). SQL that does not parse gets none: :func:`iceview.sql.translate` then says why it
    cannot translate it."""
    from iceview.errors import SQLParseError

    if catalog is None:
        return None
    try:
        return catalog.relation_schemas(
            sql, dialect, default_catalog=default_catalog, default_namespace=default_namespace
        )
    except SQLParseError:
        return None


def source_representation(target: Target, dialect: str | None) -> SQLRepresentation:
    """The representation of the view's current version to translate, as
    :meth:`~iceview.view.View.add_dialects` chooses it: ``dialect``'s, else ``spark``'s, else the
    first."""
    from iceview.errors import InvalidArgumentError
    from iceview.spec import SQLRepresentation
    from iceview.view import source_representation as choose

    current = target.metadata.current_version
    reps = [r for r in current.representations if isinstance(r, SQLRepresentation)]
    if not reps:
        raise TranslationRefused(f"{target.label} has no SQL representation to translate")
    try:
        return choose(reps, dialect)
    except InvalidArgumentError:  # no SQL for `dialect`
        have = ", ".join(r.dialect for r in reps)
        raise NotFound(f"{target.label} has no SQL for dialect {dialect} (its dialects: {have})") from None


def inlined_sql(
    catalog: Catalog | None,
    sql: str,
    dialect: str,
    default_catalog: str,
    default_namespace: Sequence[str],
    spark_ansi: bool | None,
) -> str:
    """``sql`` with the calls of the catalog's SQL UDFs inlined, as ``add-dialect`` translates it
    (:func:`iceview.view.dialects.function_preparer`); as it is when the catalog keeps no functions
    or the SQL does not parse (the translation refuses it then)."""
    from iceview.errors import SQLParseError
    from iceview.view.dialects import function_preparer

    if catalog is None or not catalog.supports_functions():
        return sql
    names = {catalog.name, default_catalog}
    prepare = function_preparer(catalog, names, names, spark_ansi, None, None)
    try:
        return prepare(sql, dialect, default_catalog, tuple(default_namespace))
    except SQLParseError:
        return sql


def view_source(catalog: Catalog, target: Target, dialect: str | None) -> Source:
    """The current SQL of a catalog view, with the view's defaults and the schemas of what it
    reads."""
    from iceview.sql.translate import spark_ansi_mode
    from iceview.sql.translate.trino_catalogs import trino_catalog_names

    rep = source_representation(target, dialect)
    version = target.metadata.current_version
    default_catalog = version.default_catalog or catalog.name
    namespace = tuple(version.default_namespace)
    spark_ansi = spark_ansi_mode(version.summary, target.metadata.properties)
    sql = inlined_sql(catalog, rep.sql, rep.dialect.lower(), default_catalog, namespace, spark_ansi)
    return Source(
        sql=sql,
        dialect=rep.dialect.lower(),
        default_catalog=default_catalog,
        default_namespace=namespace,
        known_catalogs=frozenset({catalog.name, default_catalog}),
        schemas=relation_schemas(
            catalog,
            sql,
            rep.dialect.lower(),
            default_catalog=version.default_catalog,
            default_namespace=namespace,
        ),
        view_schema=target.metadata.schema,
        spark_ansi=spark_ansi,
        trino_catalog_names=trino_catalog_names(catalog.name, catalog.properties, target.metadata.properties),
    )


def text_source(
    catalog: Catalog | None, sql: str, dialect: str, default_catalog: str, default_namespace: tuple[str, ...]
) -> Source:
    """SQL text, named relative to ``default_catalog`` and ``default_namespace``, with the calls of
    the catalog's SQL UDFs inlined."""
    sql = inlined_sql(catalog, sql, dialect, default_catalog, default_namespace, None)
    return Source(
        sql=sql,
        dialect=dialect,
        default_catalog=default_catalog,
        default_namespace=default_namespace,
        known_catalogs=frozenset({default_catalog} | ({catalog.name} if catalog is not None else set())),
        schemas=relation_schemas(
            catalog, sql, dialect, default_catalog=default_catalog, default_namespace=default_namespace
        ),
    )


def run(source: Source, target: str, *, strict: bool) -> Translation:
    """Translate; raises :class:`~iceview.errors.TranslationError` (``UnsafeTranslationError`` with
    the issues when strict)."""
    from iceview.sql import translate

    return translate(
        source.sql,
        source.dialect,
        target,
        default_catalog=source.default_catalog,
        default_namespace=source.default_namespace,
        strict=strict,
        known_catalogs=source.known_catalogs,
        schemas=source.schemas,
        view_schema=source.view_schema,
        spark_ansi=source.spark_ansi,
        catalog_names=source.trino_catalog_names if target == "trino" else None,
    )


def issues_json(issues: Sequence[TranslationIssue]) -> list[dict[str, str]]:
    return [{"code": i.code, "construct": i.construct, "reason": i.reason} for i in issues]


def issues_of(error: TranslationError) -> tuple[TranslationIssue, ...]:
    """The refused constructs of an unsafe translation (none for other refusals)."""
    from iceview.sql import UnsafeTranslationError

    return error.issues if isinstance(error, UnsafeTranslationError) else ()


def refusals(error: TranslationError, dialects: Sequence[str]) -> dict[str, TranslationError]:
    """Each refused dialect of a translation into ``dialects`` and its own error: every one of a
    :class:`~iceview.errors.DialectsRefusedError`, else the one ``error`` is about."""
    from iceview.errors import DialectsRefusedError
    from iceview.sql import UnsafeTranslationError

    if isinstance(error, DialectsRefusedError):
        return dict(error.errors)
    if isinstance(error, UnsafeTranslationError):
        return {error.target: error}
    return {", ".join(dialects): error}  # one of them, which the error does not say


def function_refusals_json(
    error: FunctionDialectsRefusedError, *, one_dialect: bool = False
) -> dict[str, Any]:
    """A function's refused bodies for ``--json``: each body's refused constructs, by
    ``<definition>/<dialect>`` (with ``one_dialect``: by definition alone)."""
    from iceview.errors import TranslationError

    return {
        (d if one_dialect else f"{d}/{dialect}"): issues_json(issues_of(e))
        if isinstance(e, TranslationError)
        else []
        for (d, dialect), e in error.refusals.items()
    }


def refused(prefix: str, error: TranslationError) -> TranslationRefused:
    """The CLI error for a refused translation: every construct (of every dialect), on one line."""
    return TranslationRefused(f"{prefix}{refusal_message(error)}")
