"""Translations of a version's SQL into other dialects (``docs/translation.md``): which
representation they start from, and every refused dialect reported at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from pyiceberg.schema import Schema

from iceview.errors import DialectsRefusedError, InvalidArgumentError, SQLParseError, TranslationError
from iceview.spec import SQLRepresentation

__all__ = ["SchemaLookup", "source_representation", "translate_representations"]

SchemaLookup = Callable[[str, str], Mapping[tuple[str, ...], Schema]]
"""``(sql, dialect) -> {qualified name: schema}`` of the relations the SQL reads."""


def source_representation(
    representations: Sequence[SQLRepresentation], source: str | None = None
) -> SQLRepresentation:
    """The representation translations start from: ``source`` when given (it must be there), else
    ``spark`` when there is one, else the first."""
    if source is not None:
        for rep in representations:
            if rep.dialect.lower() == source.lower():
                return rep
        have = ", ".join(r.dialect for r in representations) or "none"
        raise InvalidArgumentError(
            f"Cannot translate from {source}: the version has no SQL for it (its dialects: {have})"
        )
    for rep in representations:
        if rep.dialect.lower() == "spark":
            return rep
    return representations[0]


def translate_representations(
    representations: Sequence[SQLRepresentation],
    dialects: Iterable[str],
    *,
    default_catalog: str,
    default_namespace: Sequence[str],
    known_catalogs: Iterable[str] = (),
    schemas: SchemaLookup | None = None,
    source: str | None = None,
    strict: bool = True,
    view_schema: Schema | None = None,
    summary: Mapping[str, str] | None = None,
    properties: Mapping[str, str] | None = None,
    catalog_name: str | None = None,
    catalog_properties: Mapping[str, str] | None = None,
) -> list[SQLRepresentation]:
    """New representations for the ``dialects`` that ``representations`` lack, translated from
    ``source`` (default: :func:`source_representation`) with :func:`iceview.sql.translate`.
    Dialects are compared lower-cased; one already present is not translated again. With the view's
    ``view_schema``, a ``trino`` translation names and types its columns as Trino's view contract
    requires. The version's ``summary`` and the view's ``properties`` say which semantics its Spark
    SQL has (:func:`iceview.sql.translate.spark_ansi_mode`: the ``iceview.spark-ansi`` setting,
    else the Spark default of the ``engine-version`` that wrote it); when neither tells, what ANSI
    and legacy Spark disagree on is refused. A ``trino`` translation writes catalog names as Trino
    knows them (:func:`iceview.sql.translate.trino_catalogs.trino_catalog_names` of catalog
    ``catalog_name``'s ``catalog_properties`` and the view's ``properties``). When one
    dialect is refused for unsafe constructs its ``UnsafeTranslationError`` is raised; otherwise
    :class:`DialectsRefusedError` names every refused dialect with its error."""
    from iceview.sql.translate import UnsafeTranslationError, spark_ansi_mode, translate
    from iceview.sql.translate.trino_catalogs import trino_catalog_names

    spark_ansi = spark_ansi_mode(summary, properties)
    trino_names = trino_catalog_names(catalog_name or default_catalog, catalog_properties or {}, properties)
    src = source_representation(representations, source)
    present = {r.dialect.lower() for r in representations}
    wanted: list[str] = []
    for d in dialects:
        name = d.strip().lower()
        if not name:
            raise InvalidArgumentError("Invalid dialect: blank")
        if name not in present and name not in wanted:
            wanted.append(name)
    if not wanted:
        return []
    known = {default_catalog, *known_catalogs}
    relation_schemas = None
    if schemas is not None:
        try:
            relation_schemas = schemas(src.sql, src.dialect.lower())
        except SQLParseError:
            relation_schemas = None  # translate() refuses SQL that does not parse, per dialect
    out: list[SQLRepresentation] = []
    refused: dict[str, TranslationError] = {}
    for d in wanted:
        try:
            result = translate(
                src.sql,
                src.dialect.lower(),
                d,
                default_catalog=default_catalog,
                default_namespace=default_namespace,
                known_catalogs=known,
                schemas=relation_schemas,
                strict=strict,
                view_schema=view_schema,
                spark_ansi=spark_ansi,
                catalog_names=trino_names if d == "trino" else None,
            )
        except TranslationError as e:
            refused[d] = e
            continue
        out.append(SQLRepresentation(result.sql, d))
    only = next(iter(refused.values()), None)
    if len(refused) == 1 and isinstance(only, UnsafeTranslationError):
        raise only  # it names its target itself
    if refused:
        raise DialectsRefusedError(src.dialect.lower(), refused)
    return out
