"""Trino's view contract: Trino runs a view only if its query returns exactly the view schema's
columns, in order, each named as stored (ignoring case) and of a type Trino coerces implicitly to
the stored one (``StatementAnalyzer.checkViewStaleness``); otherwise ``VIEW_IS_STALE``.

:func:`align_to_view` makes a translation meet it: the query becomes a subquery whose columns are
cast to the Trino types of the stored columns and aliased to their names.
:func:`view_contract_issues` checks a ``trino`` representation against a view schema, parsing it
with sqlglot's Trino dialect (no Trino server here): the column count, each name, and that each
column's type (proven by a cast, or a NULL) is one Trino coerces implicitly to the stored type
(:func:`~.trino_types.can_coerce`). :func:`trino_output_issues` adds the catalog-name check
(:mod:`.trino_catalogs`); :func:`~iceview.sql.translate.translate` runs it on every ``trino`` output.
"""

from __future__ import annotations

from collections.abc import Mapping

import sqlglot
from pyiceberg.schema import Schema
from sqlglot import exp
from sqlglot.errors import SqlglotError

from iceview.errors import TranslationError
from iceview.sql.translate.model import TranslationIssue
from iceview.sql.translate.trino_catalogs import unknown_catalog_issues
from iceview.sql.translate.trino_types import can_coerce
from iceview.sql.types import trino_type_name

__all__ = [
    "VIEW_CONTRACT_CODES",
    "align_to_view",
    "trino_output_issues",
    "trino_type_name",
    "view_contract_issues",
]

VIEW_CONTRACT_CODES = frozenset({"view-contract", "trino-catalog-unknown"})


def _q(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql("trino")


def align_to_view(sql: str, schema: Schema) -> str:
    """``sql`` (Trino) with its columns cast to the stored types and named as the view's schema."""
    fields = schema.fields
    inner = [f"__c{k}" for k in range(len(fields))]
    casts = ", ".join(
        f"CAST({_q(c)} AS {trino_type_name(f.field_type)}) AS {_q(f.name)}"
        for c, f in zip(inner, fields, strict=True)
    )
    return f"SELECT {casts} FROM ({sql}) AS {_q('__v')}({', '.join(_q(c) for c in inner)})"


def view_contract_issues(sql: str, schema: Schema) -> list[TranslationIssue]:
    """Why Trino would find the view stale: not one query, a column count or name that differs
    from the schema's, or a column whose type Trino would not coerce to the stored one. A column's
    type is proven by a cast (or a NULL); no Trino server computes an expression's type here, so
    any other column is reported as not proven."""

    def issue(reason: str) -> list[TranslationIssue]:
        return [TranslationIssue("view-contract", sql if len(sql) <= 120 else sql[:117] + "...", reason)]

    if sql.rstrip().endswith(";"):
        return issue("Trino's view SQL is one bare query, without a trailing ';'")
    try:
        statements = [s for s in sqlglot.parse(sql, read="trino") if s is not None]
    except SqlglotError as e:
        return issue(f"it does not parse in Trino's dialect: {e}")
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        return issue("Trino's view SQL must be one query")
    query = statements[0]
    projections = query.selects
    fields = schema.fields
    if len(projections) != len(fields) or any(isinstance(p, exp.Star) for p in projections):
        return issue(f"the query returns {len(projections)} columns, the view's schema has {len(fields)}")
    problems: list[TranslationIssue] = []
    for p, f in zip(projections, fields, strict=True):
        name = p.alias_or_name if isinstance(p, (exp.Alias, exp.Column)) else ""
        if name.lower() != f.name.lower():
            problems += issue(f"column {f.name!r} is returned as {name or 'an unnamed expression'!r}")
            continue
        value = p.this if isinstance(p, exp.Alias) else p
        try:
            stored = exp.DataType.build(trino_type_name(f.field_type), dialect="trino")
        except (TranslationError, SqlglotError) as e:
            problems += issue(f"column {f.name!r}: {e}")
            continue
        if isinstance(value, exp.Null):
            continue
        if not isinstance(value, exp.Cast):
            problems += issue(f"column {f.name!r} is not cast to the stored type {stored.sql('trino')}")
        elif not can_coerce(value.to, stored):
            problems += issue(
                f"column {f.name!r} is {value.to.sql('trino')}, which Trino does not coerce to the "
                f"stored type {stored.sql('trino')}"
            )
    return problems


def trino_output_issues(
    sql: str, schema: Schema | None, catalog_names: Mapping[str, str] | None
) -> list[TranslationIssue]:
    """Every check of a ``trino`` output: the view contract against ``schema`` (when known) and,
    with a catalog-name mapping, that every relation names a known Trino catalog."""
    issues = view_contract_issues(sql, schema) if schema is not None else []
    if catalog_names is not None:
        issues += unknown_catalog_issues(sql, catalog_names)
    return issues
