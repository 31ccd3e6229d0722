"""Translations of a version's SQL into other dialects (``docs/translation.md``): which
representation they start from, and every refused dialect reported at once."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pyiceberg.schema import Schema

from iceview.errors import DialectsRefusedError, InvalidArgumentError, SQLParseError, TranslationError
from iceview.spec import SQLRepresentation

if TYPE_CHECKING:
    from iceview.sql.inline import UsedDefinition

__all__ = [
    "FunctionSource",
    "SchemaLookup",
    "function_preparer",
    "inlined_functions_summary",
    "source_representation",
    "translate_representations",
]

SchemaLookup = Callable[[str, str], Mapping[tuple[str, ...], Schema]]
"""``(sql, dialect) -> {qualified name: schema}`` of the relations the SQL reads."""


class FunctionSource(Protocol):
    """Where a view's SQL UDF calls are resolved from: a catalog (:class:`iceview.catalog.Catalog`)."""

    name: str

    def supports_functions(self) -> bool: ...

    def namespace_exists(self, namespace: tuple[str, ...]) -> bool: ...

    def find_function(self, identifier: tuple[str, ...]) -> Any: ...

    def relation_types(
        self, identifier: tuple[str, ...], dialect: str, *, tables: Any = None
    ) -> dict[str, str] | None: ...


def inlined_functions_summary(used: Iterable[UsedDefinition]) -> dict[str, str]:
    """The version-summary entry (:data:`iceview.sql.translate.keys.INLINED_FUNCTIONS_KEY`) that
    records the function definitions a translation inlined; none when it inlined none."""
    from iceview.sql.translate.keys import INLINED_FUNCTIONS_KEY

    entries = [
        {
            "namespace": list(u.function[1:-1]),
            "name": u.function[-1],
            "definition-id": u.definition_id,
            "version-id": u.version_id,
        }
        for u in sorted(set(used))
    ]
    return (
        {INLINED_FUNCTIONS_KEY: json.dumps(entries, ensure_ascii=False, separators=(",", ":"))}
        if entries
        else {}
    )


def function_preparer(
    functions: FunctionSource,
    functions_as: Iterable[str],
    known_catalogs: Iterable[str],
    spark_ansi: bool | None,
    tables: Any,
    used: set[UsedDefinition] | None,
) -> Callable[[str, str, str, tuple[str, ...]], str]:
    """``prepare(sql, dialect, catalog, namespace) -> sql``: the calls of the functions of
    ``functions`` (a catalog, also known by the names ``functions_as``) inlined
    (:func:`iceview.sql.inline.source_preparer`); the definitions used are added to ``used``."""
    from iceview.sql.inline import source_preparer

    names = {functions.name, *functions_as}

    def lookup(qualified: tuple[str, ...]) -> Any:
        return (
            functions.find_function(qualified[1:]) if qualified[0] in names and len(qualified) > 2 else None
        )

    def types(dialect: str) -> Callable[[tuple[str, ...]], dict[str, str] | None]:
        def of(qualified: tuple[str, ...]) -> dict[str, str] | None:
            if qualified[0] not in names or len(qualified) < 3:
                return None
            return functions.relation_types(qualified[1:], dialect, tables=tables)

        return of

    return source_preparer(
        lookup, types, known_catalogs=frozenset({*known_catalogs, *names}), spark_ansi=spark_ansi, used=used
    )


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
    functions: FunctionSource | None = None,
    functions_as: Iterable[str] = (),
    tables: Any = None,
    used: set[UsedDefinition] | None = None,
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
    :class:`DialectsRefusedError` names every refused dialect with its error.

    With ``functions`` (the view's catalog, when it keeps SQL UDFs), the calls of its functions
    are inlined into the source SQL first, in the source's dialect
    (:func:`iceview.sql.inline.source_preparer`; ``functions_as`` are more names the SQL may call
    that catalog by; ``tables`` is a PyIceberg catalog for the column types of tables), so the translations run everywhere and the translator proves the bodies with
    the rest of the query; the definitions used are added to ``used``. A call that cannot be
    inlined raises :class:`~iceview.errors.FunctionInliningError` or a
    :class:`~iceview.errors.FunctionResolutionError`."""
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
    text = src.sql
    if functions is not None and functions.supports_functions():
        prepare = function_preparer(functions, functions_as, known, spark_ansi, tables, used)
        with contextlib.suppress(SQLParseError):  # translate() refuses it, per dialect
            text = prepare(src.sql, src.dialect.lower(), default_catalog, tuple(default_namespace))
    relation_schemas = None
    if schemas is not None:
        try:
            relation_schemas = schemas(text, src.dialect.lower())
        except SQLParseError:
            relation_schemas = None  # translate() refuses SQL that does not parse, per dialect
    out: list[SQLRepresentation] = []
    refused: dict[str, TranslationError] = {}
    for d in wanted:
        try:
            result = translate(
                text,
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
