"""The public entry points, :func:`translate` and :func:`translation_hook`, and the pipeline they
run: qualify, parse, type, apply the rules table, generate, re-parse and compare."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import sqlglot
from pyiceberg.schema import Schema
from sqlglot import exp
from sqlglot.errors import ErrorLevel, OptimizeError, ParseError, SqlglotError, UnsupportedError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify as sqlglot_qualify
from sqlglot.schema import MappingSchema

from iceview.errors import SQLParseError, TranslationError
from iceview.sql.qualify import CatalogTest, qualify
from iceview.sql.translate.bind import bind_issues
from iceview.sql.translate.compare import compare
from iceview.sql.translate.model import (
    DIALECTS,
    TableSchemas,
    Translation,
    TranslationIssue,
    UnsafeTranslationError,
    short,
)
from iceview.sql.translate.names import (
    NAMES_CODES,
    capture_issues,
    spark_subquery_issues,
    star_issues,
    written_name_issues,
)
from iceview.sql.translate.policy import Context
from iceview.sql.translate.rules import RULES, SOURCE_TEXT_CHECKS
from iceview.sql.translate.signatures import GATE_CODES, gate
from iceview.sql.translate.trino_gate import TRINO_GATE_CODES, trino_gate
from iceview.sql.translate.trino_view import align_to_view, trino_output_issues
from iceview.sql.types import spark_type_name

OutputCheck = Callable[[str], "str | None"]
"""A check of an output in its dialect: the reason it is refused, or None."""

_OUTPUT_CHECKS: dict[str, OutputCheck] = {}


def set_output_check(dialect: str, check: OutputCheck | None) -> None:
    """Install (or, with None, remove) a check of every translation into ``dialect``, run after the
    rules and the comparison found nothing: e.g. the Spark engine layer (:mod:`iceview.spark`)
    parses the output with its session's own parser, which ``iceview.sql`` cannot import. What the
    check rejects is refused as ``does-not-parse``."""
    if check is None:
        _OUTPUT_CHECKS.pop(dialect, None)
    else:
        _OUTPUT_CHECKS[dialect] = check


def translate(
    sql: str,
    source: str,
    target: str,
    *,
    default_catalog: str,
    default_namespace: Sequence[str],
    strict: bool = True,
    known_catalogs: CatalogTest | None = None,
    schemas: TableSchemas | None = None,
    view_schema: Schema | None = None,
    spark_ansi: bool | None = None,
    catalog_names: Mapping[str, str] | None = None,
) -> Translation:
    """Translate a view's query from ``source`` to ``target`` (``spark``, ``trino``, ``duckdb``).

    Relation names are first qualified with ``default_catalog`` / ``default_namespace`` by
    Iceberg-Spark's rules (``known_catalogs``: the catalog names a name may start with; default:
    ``default_catalog`` only). ``schemas`` gives the schemas of the tables and views the query reads;
    with them columns are qualified, ``*`` is expanded and the type-aware rules (casts, rounding,
    implicit conversions) can prove a construct safe; without them such constructs are refused.

    Returns a :class:`Translation`. With ``strict=True`` (the default) any unsafe construct raises
    :class:`UnsafeTranslationError`; with ``strict=False`` the issues are returned as warnings.
    SQL that cannot be parsed, or output that does not parse in the target dialect, always raises
    :class:`~iceview.errors.TranslationError`.

    ``spark_ansi`` says whether the Spark side runs with ``spark.sql.ansi.enabled`` (Spark 4's
    default) or not (Spark 3.5's); unknown (None), what the two modes disagree on is refused. With
    ``True``, integer arithmetic that may overflow is translated (ANSI Spark raises as the targets do).

    ``catalog_names`` maps the source engine's catalog names to the target's (e.g. Spark's ``prod``
    is Trino's ``iceberg``): the output's qualified names use the target's. Into Trino, a relation
    whose catalog the mapping does not name is refused (``trino-catalog-unknown``); see
    :func:`~iceview.sql.translate.trino_catalogs.trino_catalog_names` for the properties that set it.

    ``view_schema`` (the view's stored schema) makes a ``trino`` translation meet Trino's view
    contract: its columns are cast to the stored types and named as stored, and the result is
    checked (:mod:`.trino_view`, code ``view-contract``)."""
    result = _translate(
        sql,
        source,
        target,
        qualify_with=(default_catalog, tuple(default_namespace)),
        known_catalogs=known_catalogs,
        schemas=schemas,
        strict=strict,
        spark_ansi=spark_ansi,
        catalog_names=catalog_names,
    )
    if result.target != "trino" or result.source == "trino":
        return result
    # every trino output is checked: Trino's view contract and its catalog names (trino_view.py)
    aligned, issues = result.sql, []
    try:
        if view_schema is not None:
            aligned = align_to_view(result.sql, view_schema)
    except TranslationError as e:
        issues = [TranslationIssue("view-contract", result.sql[:120], str(e))]
    else:
        issues = trino_output_issues(aligned, view_schema, catalog_names)
    if not issues and aligned == result.sql:
        return result
    if issues and strict:
        raise UnsafeTranslationError(result.source, result.target, issues)
    return Translation(aligned, result.source, result.target, result.warnings + tuple(issues))


def translation_hook(
    *,
    strict: bool = True,
    schemas: TableSchemas | Callable[[], TableSchemas] | None = None,
    on_warning: Callable[[Translation], None] | None = None,
) -> Callable[[str, str, str], str]:
    """A ``translate=`` hook for :class:`~iceview.sql.ViewExpander` (and the engines built on it,
    such as ``SparkViews`` and :mod:`iceview.duckdb`): ``(sql, from_dialect, to_dialect) -> sql``.

    The expander qualifies a translated view's names with the view's own defaults right after this
    hook returns, so the hook does not qualify them itself. ``on_warning`` sees every translation
    that had warnings (only with ``strict=False``)."""

    def hook(sql: str, source: str, target: str) -> str:
        known = schemas() if callable(schemas) else schemas
        result = _translate(
            sql, source, target, qualify_with=None, known_catalogs=None, schemas=known, strict=strict
        )
        if result.warnings and on_warning is not None:
            on_warning(result)
        return result.sql

    return hook


# --------------------------------------------------------------------------------------------------


def _dialect(name: str, role: str) -> str:
    d = name.lower().strip()
    if d not in DIALECTS:
        raise TranslationError(
            f"Cannot translate {role} dialect {name!r}: supported are {', '.join(DIALECTS)}"
        )
    return d


def _translate(
    sql: str,
    source: str,
    target: str,
    *,
    qualify_with: tuple[str, tuple[str, ...]] | None,
    known_catalogs: CatalogTest | None,
    schemas: TableSchemas | None,
    strict: bool,
    spark_ansi: bool | None = None,
    catalog_names: Mapping[str, str] | None = None,
) -> Translation:
    src = _dialect(source, "from")
    dst = _dialect(target, "to")
    text = sql
    if qualify_with is not None:
        catalog, namespace = qualify_with
        known: CatalogTest = known_catalogs if known_catalogs is not None else {catalog}
        try:
            text = qualify(
                sql, default_catalog=catalog, default_namespace=namespace, known_catalogs=known, dialect=src
            )
        except SQLParseError as e:
            raise TranslationError(f"Cannot translate {src} SQL: {e}") from e
    try:
        parsed = sqlglot.parse(text, read=src)
    except (ParseError, SqlglotError) as e:
        raise TranslationError(f"Cannot translate {src} SQL: it does not parse: {e}") from e
    statements = [s for s in parsed if s is not None]
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise TranslationError(f"Cannot translate {src} SQL: a view's SQL must be one query")
    tree: exp.Expr = statements[0]
    if src == dst:
        return Translation(text, src, dst)

    typed = _typed_tree(tree, src, schemas)
    work = typed if typed is not None else tree.copy()
    ctx = Context(
        src, dst, typed=typed is not None, qualified=qualify_with is not None, spark_ansi=spark_ansi
    )
    # a name the engines resolve otherwise than the typing did: read before any rewrite
    captured = capture_issues(work, schemas if typed is not None else None, src)
    captured += written_name_issues(tree, src) + spark_subquery_issues(work, dst, src)
    captured += star_issues(tree, work, src, typed is not None)
    gate(work, ctx)  # type signatures, read before any rewrite; listed after the rules' own codes
    trino_gate(work, ctx)
    gated = list(ctx.issues)
    ctx.issues.clear()
    issues = RULES.apply(work, ctx)  # checks every node, then rewrites
    # a construct the rules refuse is named once: not again in each site around it
    refused = {i.construct for i in issues}
    issues.extend(i for i in gated if not any(r in i.construct for r in refused))
    issues.extend(captured)
    for check in SOURCE_TEXT_CHECKS.get(src, ()):
        issues.extend(check(text))
    if catalog_names:
        _rename_catalogs(work, catalog_names)
    if dst == "trino":
        _microsecond_timestamps(work)

    try:
        out = work.sql(dialect=dst, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError as e:
        issues.append(
            TranslationIssue("unsupported", short(work, src), f"sqlglot cannot express it in {dst}: {e}")
        )
        out = work.sql(dialect=dst, unsupported_level=ErrorLevel.IGNORE)
    try:
        reparsed = sqlglot.parse_one(out, read=dst)
    except (ParseError, SqlglotError) as e:
        raise TranslationError(
            f"Cannot translate {src} SQL to {dst}: the output does not parse in {dst}: {e}"
        ) from e
    issues.extend(compare(work, reparsed, src, dst))
    if dst == "duckdb" and not issues and qualify_with is not None:
        # never hand out SQL that fails on first use (the hook's names are qualified later)
        issues.extend(bind_issues(out, schemas))
    output_check = _OUTPUT_CHECKS.get(dst)
    if output_check is not None and not issues:
        reason = output_check(out)
        if reason is not None:
            issues.append(TranslationIssue("does-not-parse", out[:120], f"{dst} does not parse it: {reason}"))
    issues = _dedupe(issues)
    if issues and strict:
        raise UnsafeTranslationError(src, dst, issues)
    return Translation(out, src, dst, tuple(issues))


PIPELINE_CODES = (
    frozenset({"unsupported", "does-not-bind", "does-not-parse", "view-contract", "trino-catalog-unknown"})
    | GATE_CODES
    | TRINO_GATE_CODES
    | NAMES_CODES
)
"""The refusal codes the pipeline itself gives (besides the rules' and the comparison's)."""


_TIMESTAMP_TYPES = frozenset(
    {exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPNTZ, exp.DataType.Type.TIMESTAMPTZ}
)


def _microsecond_timestamps(tree: exp.Expr) -> None:
    """Trino's ``TIMESTAMP`` without a precision holds milliseconds; Spark's, DuckDB's and Iceberg's
    hold microseconds, so every timestamp type written for Trino says ``(6)``."""
    for t in tree.find_all(exp.DataType):
        if t.this in _TIMESTAMP_TYPES and not t.expressions:
            t.set("expressions", [exp.DataTypeParam(this=exp.Literal.number(6))])


def _rename_catalogs(tree: exp.Expr, names: Mapping[str, str]) -> None:
    """The catalog part of every qualified name, as the target engine calls that catalog."""
    for table in tree.find_all(exp.Table):
        catalog = table.args.get("catalog")
        if isinstance(catalog, exp.Identifier) and catalog.name in names:
            table.set("catalog", exp.to_identifier(names[catalog.name], quoted=catalog.quoted))


def _dedupe(issues: Iterable[TranslationIssue]) -> list[TranslationIssue]:
    seen: dict[tuple[str, str], TranslationIssue] = {}
    for i in issues:
        seen.setdefault((i.code, i.construct), i)
    return list(seen.values())


def _sqlglot_schema(schemas: TableSchemas | None) -> MappingSchema | None:
    if not schemas:
        return None
    nested: dict[str, Any] = {}
    for name, schema in schemas.items():
        parts = tuple(name)
        if len(parts) != 3:
            continue  # sqlglot's schemas have catalog.db.table; deeper names stay untyped
        columns: dict[str, str] = {}
        for f in schema.fields:
            try:
                columns[f.name] = spark_type_name(f.field_type)
            except TranslationError:
                columns[f.name] = "UNKNOWN"
        nested.setdefault(parts[0], {}).setdefault(parts[1], {})[parts[2]] = columns
    try:
        return MappingSchema(nested, dialect="spark", normalize=True)
    except SqlglotError:
        return None


def _typed_tree(tree: exp.Expr, dialect: str, schemas: TableSchemas | None) -> exp.Expr | None:
    """The tree with columns qualified, ``*`` expanded and types annotated, or None when sqlglot's
    optimizer cannot do it (then every type is unknown)."""
    schema = _sqlglot_schema(schemas)
    if schema is None:
        return None
    try:
        q = sqlglot_qualify(
            tree.copy(),
            schema=schema,
            dialect=dialect,
            validate_qualify_columns=False,
            quote_identifiers=False,
            identify=False,
        )
        return annotate_types(q, schema=schema, dialect=dialect)
    except (OptimizeError, SqlglotError, KeyError, ValueError, RecursionError):
        return None
