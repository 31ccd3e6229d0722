"""A view's SQL for the engine that reads it: its own representation for the engine's dialect, or,
when it has none, another one translated safely (``docs/translation.md``).

Both engines (:class:`~iceview.spark.SparkViews`, :class:`~iceview.duckdb.DuckDBViews`) read a
view through :func:`engine_sql`, so a view that Iceberg Java, Trino or DuckDB wrote in its own
dialect reads the same way in each, and a refusal says the same thing: which view, which dialects
it has, and which construct could not be translated.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from pyiceberg.schema import Schema

from iceview.errors import MissingDialectError, TranslationError, ViewTranslationRefusedError
from iceview.spec import SQLRepresentation, ViewMetadata

__all__ = ["EngineSQL", "engine_sql"]

SchemaLookup = Callable[[str, str, str | None, Sequence[str]], Mapping[tuple[str, ...], Schema]]
"""``(sql, dialect, default_catalog, default_namespace) -> {qualified name: schema}``."""


@dataclass(frozen=True)
class EngineSQL:
    """What an engine runs for a view: ``sql`` in ``dialect`` and, when it was translated, the
    :class:`~iceview.sql.translate.Translation` (its warnings, with ``strict=False``)."""

    sql: str
    dialect: str
    translation: object | None = None


def engine_sql(
    name: str,
    metadata: ViewMetadata,
    dialect: str,
    *,
    default_catalog: str,
    translate: bool = True,
    schemas: SchemaLookup | None = None,
    known_catalogs: Collection[str] = (),
    strict: bool = True,
    spark_ansi: bool | None = None,
    prepare: Callable[[str, str, str, tuple[str, ...]], str] | None = None,
) -> EngineSQL:
    """The SQL an engine of ``dialect`` runs for view ``name`` (qualified, for messages).

    The view's own ``dialect`` representation when it has one. Otherwise, with ``translate``,
    another one (``spark``, else ``trino``, else ``duckdb``, else the first) translated with
    :func:`iceview.sql.translate`: names qualified with the version's defaults (the default catalog
    falls back to ``default_catalog``), relation ``schemas`` for the type-aware rules, and
    ``spark_ansi`` for what ANSI and legacy Spark disagree on. A refusal raises
    :class:`~iceview.errors.ViewTranslationRefusedError` naming the view, the dialects it has and
    each refused construct (``codes``).
    Without ``translate``, a view without ``dialect`` SQL raises ``MissingDialectError``.
    ``prepare(sql, source dialect, catalog, namespace)`` rewrites the source SQL before it is
    translated: the engines inline the catalog's SQL UDF calls there, in the source dialect, so
    that the translator proves the functions' bodies with the rest of the query."""
    from iceview.sql.translate import translate as translate_sql
    from iceview.sql.translate import translation_source

    version = metadata.current_version
    own = version.sql_for(dialect)
    if own is not None:
        assert isinstance(own, SQLRepresentation)
        return EngineSQL(own.sql, dialect)
    dialects = tuple(version.dialects)
    if not translate:
        raise MissingDialectError(
            name, dialect, dialects, "reading it by translation is turned off (translate=False)"
        )
    rep = translation_source(version, besides=dialect)
    if rep is None:
        raise MissingDialectError(name, dialect, dialects, "it has no SQL to translate")
    assert isinstance(rep, SQLRepresentation)
    source = rep.dialect.lower()
    catalog = version.default_catalog or default_catalog
    namespace = tuple(version.default_namespace)
    try:
        sql = prepare(rep.sql, source, catalog, namespace) if prepare is not None else rep.sql
        relation_schemas = schemas(sql, source, catalog, namespace) if schemas is not None else None
        result = translate_sql(
            sql,
            source,
            dialect,
            default_catalog=catalog,
            default_namespace=namespace,
            known_catalogs={*known_catalogs, catalog},
            schemas=relation_schemas,
            strict=strict,
            spark_ansi=spark_ansi,
        )
    except TranslationError as e:
        raise ViewTranslationRefusedError(name, dialect, dialects, source, e) from e
    return EngineSQL(result.sql, dialect, result)
