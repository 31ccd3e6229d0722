"""A table function's body translated into another engine's dialect by the view translator.

A ``udtf`` body is a query whose parameters may appear in any of its scopes. The translator types a
query by the schemas of the relations it reads, so each parameter is given it as a scalar subquery
of a one-row stand-in relation whose columns have the parameters' declared types::

    ... WHERE color = (SELECT __a0 FROM <catalog>.__iceview_<nonce>.__iceview_args_<nonce>)

The query is then translated as a view's query is, by the same type-keyed rules and with the same
refusals, and each stand-in subquery of the translation becomes the parameter's placeholder again.
The stand-in's namespace carries a random nonce, so no relation of the body can be taken for it.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping

from pyiceberg.schema import Schema
from pyiceberg.types import NestedField
from sqlglot import exp

from iceview.errors import FunctionInliningError, SQLParseError, TranslationError
from iceview.sql._text import parse_one_statement, quote_identifier, render_name
from iceview.sql.qualify import CatalogTest
from iceview.sql.references import relation_nodes, table_identifiers
from iceview.sql.types import type_namer
from iceview.sql.udf_body import BodyTemplate, translation_refused
from iceview.sql.udf_types import schema_of, to_iceberg
from iceview.udf.model import FunctionDefinition

__all__ = ["InlineSource", "RelationTypes", "translate_table_body"]

RelationTypes = Callable[[tuple[str, ...]], "Mapping[str, str] | None"]
"""A relation's qualified name (catalog first) -> its columns' types spelled in ``dialect`` of
:func:`translate_table_body`, or ``None`` when unknown."""


InlineSource = Callable[[str, tuple[str, ...], Mapping[str, str]], str]
"""``(body in its own dialect, the stand-in relation's name, its columns' types spelled in that
dialect) -> the body with the calls of catalog functions in it inlined``."""


def translate_table_body(
    shown: str,
    function: tuple[str, ...],
    definition: FunctionDefinition,
    template: BodyTemplate,
    source: str,
    target: str,
    *,
    known_catalogs: CatalogTest,
    relation_types: RelationTypes | None,
    types_dialect: str,
    spark_ansi: bool | None,
    inline_source: InlineSource | None = None,
) -> str:
    """``template`` (a table function's body in ``source``, its parameters as placeholders)
    translated into ``target``, the placeholders kept. ``relation_types`` gives the types of the
    relations the body reads, spelled in ``types_dialect``; ``inline_source`` inlines the calls of
    catalog functions in the body (in ``source``) before it is translated. Refused with
    ``UDF_BODY_TRANSLATION_REFUSED``."""
    from iceview.sql.translate import translate

    catalog, namespace = function[0], function[1:-1]
    nonce = secrets.token_hex(6)
    stand_in = (catalog, f"__iceview_{nonce}", f"__iceview_args_{nonce}")
    columns = [f"__a{i}" for i in range(len(definition.parameters))]
    types = [to_iceberg(p.type) for p in definition.parameters]
    try:
        namer = type_namer(source)
        relation = render_name(stand_in, source, always_quote=True)
        stand_ins = [f"(SELECT {quote_identifier(c, source)} FROM {relation})" for c in columns]
        text = template.fill(stand_ins)
        if inline_source is not None:
            # typed for the calls' arguments: a CAST is typed where a subquery is not
            own = {c: namer(t) for c, t in zip(columns, types, strict=True)}
            typed = template.fill([f"CAST({s} AS {own[c]})" for s, c in zip(stand_ins, columns, strict=True)])
            inlined = inline_source(typed, stand_in, own)
            text = text if inlined == typed else inlined
        schemas = _schemas(text, source, stand_in, relation_types, types_dialect)
        schemas[stand_in] = Schema(
            *(
                NestedField(i + 1, c, t, required=False)
                for i, (c, t) in enumerate(zip(columns, types, strict=True))
            )
        )
        done = translate(
            text,
            source,
            target,
            default_catalog=catalog,
            default_namespace=namespace,
            known_catalogs=known_catalogs,
            schemas=schemas,
            spark_ansi=spark_ansi,
        )
        out = parse_one_statement(done.sql, target, what="function body")
    except FunctionInliningError:
        raise
    except (TranslationError, SQLParseError) as e:
        what = f"The {source} body of table function {shown}"
        shown_error = _without(str(e), [p.name for p in definition.parameters])
        raise translation_refused(e, what, target, shown_error) from None
    for sub in list(out.find_all(exp.Subquery)):
        index = _stand_in_index(sub, stand_in, columns)
        if index is not None:
            sub.replace(exp.column(template.placeholders[index]))
    result = str(out.sql(dialect=target))
    if nonce in result:  # a stand-in's column taken out of its subquery (DuckDB's QUALIFY into Spark)
        raise FunctionInliningError(
            "UDF_BODY_TRANSLATION_REFUSED",
            f"The {source} body of table function {shown} cannot be translated to {target}: the "
            "translation moved a parameter where it cannot be told apart",
        )
    return result


def _schemas(
    text: str,
    dialect: str,
    stand_in: tuple[str, ...],
    relation_types: RelationTypes | None,
    types_dialect: str,
) -> dict[tuple[str, ...], Schema]:
    """The schemas of the relations the body reads, where they are known."""
    out: dict[tuple[str, ...], Schema] = {}
    if relation_types is None:
        return out
    for node, is_cte in relation_nodes(parse_one_statement(text, dialect, what="function body")):
        idents = None if is_cte else table_identifiers(node)
        if idents is None:
            continue
        parts = tuple(i.name for i in idents)
        if parts == stand_in or parts in out:
            continue
        types = relation_types(parts)
        schema = None if types is None else schema_of(types, types_dialect)
        if schema is not None:
            out[parts] = schema
    return out


def _stand_in_index(sub: exp.Subquery, stand_in: tuple[str, ...], columns: list[str]) -> int | None:
    """Which parameter ``sub`` stands for, when it is a stand-in subquery: one projection of a
    column of the stand-in relation, and nothing else."""
    query = sub.this
    if not isinstance(query, exp.Select) or len(query.expressions) != 1:
        return None
    if any(query.args.get(k) for k in query.args if k not in ("expressions", "from_")):
        return None
    source = query.args.get("from_")
    table = source.this if isinstance(source, exp.From) else None
    if not isinstance(table, exp.Table):
        return None
    idents = table_identifiers(table)
    if idents is None or tuple(i.name for i in idents)[-2:] != stand_in[-2:]:
        return None
    projected = query.expressions[0]
    column = projected.this if isinstance(projected, exp.Alias) else projected
    if not isinstance(column, exp.Column) or column.name not in columns:
        return None
    return columns.index(column.name)


def _without(message: str, parameters: list[str]) -> str:
    """A translator's message with each stand-in subquery shown as the parameter it stands for
    (also where the message cut it short: as the parameter when it can be told, else as
    ``<argument>``)."""

    def name(m: re.Match[str]) -> str:
        return parameters[int(m.group(1))] + ("..." if m.group(2) == "..." else "")

    def cut(m: re.Match[str]) -> str:
        return (parameters[0] if len(parameters) == 1 else "<argument>") + m.group(1)

    message = _STAND_IN.sub(name, message)
    message = _CUT_STAND_IN.sub(cut, message)
    return _NONCE.sub("<argument>", message)


_STAND_IN = re.compile(r"\(SELECT\s[^()]*?__a(\d+)\b[^()]*?(\)|\.\.\.|$)")
_CUT_STAND_IN = re.compile(r"\(SELECT\s[^()]*?__iceview[^()]*?(\.\.\.|$)")
_NONCE = re.compile(r"[^\s(),]*__iceview_(?:args_)?[0-9a-f]{12}[^\s(),]*")
