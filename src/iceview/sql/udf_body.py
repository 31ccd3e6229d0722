"""A SQL UDF's body made ready to inline into one engine's SQL.

The UDF spec stores a scalar function's body as one SQL expression over its parameters, per
dialect. To inline it, iceview takes the body for the engine's dialect, or translates another
dialect's body with the view translator (:func:`iceview.sql.translate.translate`): the body is
translated as ``SELECT <body> FROM <a relation whose columns are the parameters>``, so the same
type-keyed rules, and the same refusals, apply to a function's body as to a view's query.

The body is then checked and turned into a template: every parameter reference becomes a
placeholder, calls of catalog functions inside it are qualified with the function's own catalog and
namespace (so they resolve where the function lives, not where it is called), and the uses of each
parameter are counted (an argument used twice is evaluated twice). A body is refused
(:class:`~iceview.errors.FunctionInliningError`) when it is not one expression, reads a relation,
aggregates or windows (an inlined aggregate would change the query around the call), or names
anything but its parameters.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField
from sqlglot import exp

from iceview.errors import FunctionInliningError, SQLParseError, TranslationError
from iceview.sql._text import parse_one_statement, parse_with_tokens, quote_identifier
from iceview.sql.translate.model import translation_source
from iceview.sql.types import type_namer
from iceview.sql.udf_types import to_iceberg
from iceview.udf.model import FunctionDefinition

__all__ = [
    "BodyTemplate",
    "CallQualifier",
    "CallSite",
    "body_template",
    "call_sites",
    "called_names",
    "one_expression",
    "translate_scalar_body",
    "translation_refused",
]

CallQualifier = Callable[[tuple[str, ...], str, tuple[str, ...]], "tuple[str, ...] | None"]
"""``(name as written, catalog, namespace) -> qualified name`` when the call names a catalog
function, else ``None``."""

_ARGS = ("__iceview", "__iceview", "__iceview_args")
_RESULT = "__iceview_result"


@dataclass(frozen=True)
class BodyTemplate:
    """A body in the engine's dialect with ``placeholders[i]`` standing for parameter ``i``, and
    how often each parameter is read."""

    text: str
    placeholders: tuple[str, ...]
    uses: tuple[int, ...]
    calls: frozenset[tuple[str, ...]] = frozenset()
    """The qualified names of the catalog functions the body calls."""
    relations: frozenset[str] = frozenset()
    """A table function body's relation names and aliases (lower-cased)."""
    columns: frozenset[str] | None = frozenset()
    """The columns of a table function body's relations (lower-cased); ``None``: not all known."""

    def fill(self, arguments: Sequence[str]) -> str:
        text = self.text
        for placeholder, argument in zip(self.placeholders, arguments, strict=True):
            text = text.replace(placeholder, argument)
        return text


@dataclass(frozen=True)
class CallSite:
    """A call by a name that may be a catalog function's: ``written`` is the name as written,
    ``top`` the node the call is (``Dot`` for ``ns.f(...)``, else the call itself), ``start``
    where its name starts and ``name_end`` where it ends (inclusive); ``in_from`` for a call in
    ``FROM`` or after ``LATERAL`` (a table function's place)."""

    call: exp.Anonymous
    top: exp.Expr
    written: tuple[str, ...]
    start: int | None
    name_end: int | None
    in_from: bool


def called_names(sql: str, dialect: str) -> list[tuple[str, ...]]:
    """The names of the calls in ``sql`` (of ``dialect``) that sqlglot does not know as functions
    of the dialect, as written, each once: the calls that may name catalog functions. SQL that does
    not parse raises :class:`~iceview.errors.SQLParseError`."""
    tree, _ = parse_with_tokens(sql, dialect, what="view SQL")
    return list(dict.fromkeys(site.written for site in call_sites(tree)))


def call_sites(tree: exp.Expr) -> Iterator[CallSite]:
    """Every call of ``tree`` that sqlglot does not know as a function of the dialect: dotted
    (``ns.f(...)``, read by sqlglot as a ``Dot`` whose right side is the call), one-part, or in
    ``FROM`` (``FROM ns.tf(...)``, a ``Table`` whose name is the call)."""
    for anon in tree.find_all(exp.Anonymous):
        parent = anon.parent
        end = anon.meta.get("end")
        if isinstance(parent, exp.Dot) and parent.expression is anon:
            idents: list[exp.Identifier] = []
            left: exp.Expr = parent.this
            while isinstance(left, exp.Dot) and isinstance(left.expression, exp.Identifier):
                idents.insert(0, left.expression)
                left = left.this
            if isinstance(left, exp.Column) and not left.table:
                left = left.this
            if not isinstance(left, exp.Identifier):
                continue
            idents.insert(0, left)
            start = idents[0].meta.get("start")
            lateral = isinstance(parent.parent, exp.Lateral)
            yield CallSite(anon, parent, (*(i.name for i in idents), anon.name), start, end, lateral)
        elif isinstance(parent, exp.Table) and parent.this is anon:
            prefix = [
                p
                for p in (parent.args.get("catalog"), parent.args.get("db"))
                if isinstance(p, exp.Identifier)
            ]
            first = prefix[0].meta.get("start") if prefix else anon.meta.get("start")
            yield CallSite(anon, parent, (*(p.name for p in prefix), anon.name), first, end, True)
        else:
            lateral = isinstance(parent, exp.Lateral)
            yield CallSite(anon, anon, (anon.name,), anon.meta.get("start"), end, lateral)


def body_template(
    name: str,
    function: tuple[str, ...],
    definition: FunctionDefinition,
    dialect: str,
    *,
    qualify_call: CallQualifier,
    spark_ansi: bool | None,
    inline_source: Callable[[str, str], str] | None = None,
) -> BodyTemplate:
    """The current version's body of ``definition`` of the function ``function`` (qualified,
    catalog first; ``name`` as the call wrote it, for messages) as a template in ``dialect``. A body
    of another dialect is translated; ``inline_source(body, its dialect)`` first inlines the calls
    of catalog functions in it (the translator knows no catalog function)."""
    version = definition.current_version
    rep = version.sql_for(dialect)
    if rep is not None:
        text = rep.sql
    else:
        found = translation_source(version, besides=dialect)
        if found is None:
            raise FunctionInliningError(
                "UDF_NO_DIALECT",
                f"Function {name}({definition.signature()}) has no SQL body "
                f"(dialects: {', '.join(version.dialects) or 'none'})",
            )
        source = found.dialect.lower()
        body = found.sql if inline_source is None else inline_source(found.sql, source)
        text = _translated(name, definition, body, source, dialect, spark_ansi)
    return _template(name, function, definition, text, dialect, qualify_call)


def one_expression(text: str, dialect: str, shown: str) -> exp.Expr:
    """The one SQL expression a scalar body is: ``UDF_BODY_UNSUPPORTED`` when it is not exactly
    one expression (an alias, a ``FROM``, a second statement, ...)."""
    try:
        tree = parse_one_statement(f"SELECT {text}\n", dialect, what="function body")
    except SQLParseError:
        tree = None
    if (
        not isinstance(tree, exp.Select)
        or len(tree.expressions) != 1
        or any(tree.args.get(k) for k in tree.args if k != "expressions")
    ):
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED", f"The {dialect} body of function {shown} is not one SQL expression"
        )
    expression: exp.Expr = tree.expressions[0]
    if isinstance(expression, exp.Alias):  # "x + 1 AS y" is not an expression
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED",
            f"The {dialect} body of function {shown} is not one SQL expression (it has an alias)",
        )
    return expression


def translate_scalar_body(
    definition: FunctionDefinition,
    body: str,
    source: str,
    target: str,
    *,
    spark_ansi: bool | None = None,
    name: str = "",
) -> str:
    """A scalar function's ``body`` (one expression over its parameters, in ``source``) in
    ``target``, by the view translator: the body is translated as ``SELECT CAST((<body>) AS
    <return type>) FROM <a relation of the parameters>``, so the conversion to the return type keeps
    the source dialect's meaning. Raises the translator's :class:`~iceview.errors.TranslationError` (with
    its ``issues``) when it refuses, :class:`~iceview.errors.FunctionInliningError` when the body
    is not one expression."""
    from iceview.sql.translate import UnsafeTranslationError, translate

    shown = f"{name}({definition.signature()})"
    one_expression(body, source, shown)
    fields = [
        NestedField(i + 1, p.name, to_iceberg(p.type), required=False)
        for i, p in enumerate(definition.parameters)
    ]
    # a function without parameters still reads a relation with columns: the translator types by it
    schema = Schema(
        *(fields or [NestedField(1, "__iceview_none", IntegerType(), required=False)])
    )  # the conversion to the return type is the body's own dialect's (legacy Spark's CAST returns
    # NULL where DuckDB's raises), so it is translated with the body
    returns = type_namer(source)(to_iceberg(definition.return_type))
    # on lines of their own: a comment at the end of the body cannot swallow what follows
    query = f"SELECT CAST((\n{body}\n) AS {returns}) AS {quote_identifier(_RESULT, source)} FROM {'.'.join(_ARGS)}"
    try:
        done = translate(
            query,
            source,
            target,
            default_catalog=_ARGS[0],
            default_namespace=_ARGS[1:2],
            known_catalogs={_ARGS[0]},
            schemas={_ARGS: schema},
            spark_ansi=spark_ansi,
        )
    except UnsafeTranslationError as e:
        # the constructs as the body wrote them, without the stand-in relation's name
        issues = [
            dataclasses.replace(i, construct=i.construct.replace(f"{_ARGS[-1]}.", "")) for i in e.issues
        ]
        raise UnsafeTranslationError(e.source, e.target, issues) from None
    tree = parse_one_statement(done.sql, target, what="function body")
    source_relation = tree.args.get("from_") if isinstance(tree, exp.Select) else None
    if (
        not isinstance(tree, exp.Select)
        or len(tree.expressions) != 1
        or source_relation is None
        or any(tree.args.get(k) for k in tree.args if k not in ("expressions", "from_"))
    ):
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED", f"The body of function {shown} is not one expression after translation"
        )
    expression = tree.expressions[0]
    if isinstance(expression, exp.Alias):
        expression = expression.this
    for column in expression.find_all(exp.Column):
        if column.table:
            column.set("table", None)
            column.set("db", None)
            column.set("catalog", None)
    return str(expression.sql(target))


def _translated(
    name: str, definition: FunctionDefinition, body: str, source: str, target: str, spark_ansi: bool | None
) -> str:
    try:
        return translate_scalar_body(definition, body, source, target, spark_ansi=spark_ansi, name=name)
    except FunctionInliningError:
        raise
    except TranslationError as e:
        raise translation_refused(
            e, f"The {source} body of function {name}({definition.signature()})", target
        ) from e


def translation_refused(
    error: Exception, what: str, target: str, message: str | None = None
) -> FunctionInliningError:
    """``UDF_BODY_TRANSLATION_REFUSED`` for a body (``what``) the translator refused with ``error``:
    its codes named, then ``message`` (default: the error's own)."""
    codes = sorted({str(getattr(i, "code", "")) for i in getattr(error, "issues", ())} - {""})
    return FunctionInliningError(
        "UDF_BODY_TRANSLATION_REFUSED",
        f"{what} cannot be translated to {target}{' (' + ', '.join(codes) + ')' if codes else ''}: "
        f"{error if message is None else message}",
    )


def _template(
    name: str,
    function: tuple[str, ...],
    definition: FunctionDefinition,
    text: str,
    dialect: str,
    qualify_call: CallQualifier,
) -> BodyTemplate:
    shown = f"{name}({definition.signature()})"
    expression = one_expression(text, dialect, shown)
    holder = exp.Paren(this=expression.pop() if expression.parent is not None else expression)
    expression = holder
    if expression.find(exp.Select, exp.Subquery, exp.Table) is not None:
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED",
            f"The body of function {shown} reads a relation; only expressions are inlined",
        )
    if expression.find(exp.AggFunc, exp.Window) is not None:
        raise FunctionInliningError(
            "UDF_BODY_UNSUPPORTED",
            f"The body of function {shown} aggregates; only scalar expressions are inlined",
        )
    calls: set[tuple[str, ...]] = set()
    # innermost first: an outer call is replaced by a copy, which must hold the inner ones renamed
    for site in reversed(list(call_sites(expression))):
        qualified = qualify_call(site.written, function[0], function[1:-1])
        if qualified is not None:
            calls.add(qualified)
            parts: list[exp.Expr] = [exp.Identifier(this=p, quoted=True) for p in qualified[:-1]]
            site.top.replace(exp.Dot.build([*parts, site.call.copy()]))
    params = {p.name.casefold(): i for i, p in enumerate(definition.parameters)}
    nonce = secrets.token_hex(6)
    placeholders = tuple(f"__iceview_{nonce}_{i}__" for i in range(len(definition.parameters)))
    uses = [0] * len(placeholders)
    for column in list(expression.find_all(exp.Column)):
        index = params.get(column.name.casefold()) if not column.table else None
        if index is None or isinstance(column.this, exp.Star):
            raise FunctionInliningError(
                "UDF_BODY_UNKNOWN_NAME",
                f"The body of function {shown} names {column.sql(dialect)}, which is not one of its "
                f"parameters ({', '.join(p.name for p in definition.parameters) or 'none'})",
            )
        uses[index] += 1
        column.replace(exp.column(placeholders[index]))
    return BodyTemplate(holder.this.sql(dialect), placeholders, tuple(uses), frozenset(calls))
