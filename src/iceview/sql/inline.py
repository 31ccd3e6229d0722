"""Calls of catalog SQL UDFs inlined into an engine's SQL.

No engine here runs Iceberg SQL UDFs itself (Spark 3.5 has no SQL functions; DuckDB's macros and
Trino's routines are not Iceberg's), so iceview replaces each call ``ns.f(a, b)`` (a function of
the catalog, named with its namespace) by the function's body, in the engine's dialect::

    CAST((<body with each parameter p_i replaced by CAST((a_i) AS <p_i's type>)>) AS <return type>)

* **Which definition**: the UDF spec's resolution rules (:func:`iceview.udf.resolve_definition`) on
  the arguments' types. A type is taken only where it is proven the same in every engine: a column
  of a relation whose types the engine gave (``column_types``), a literal (``1`` int, ``1.5``
  decimal(2,1), ``1e0`` double, ``'x'`` string, ``NULL`` untyped), a ``CAST``, and integer
  ``+``/``-``/``*`` of those; any other expression of a non-numeric type sqlglot infers (strings,
  booleans, dates, timestamps). Anything else is refused (``UDF_ARGUMENT_UNTYPED``): cast it.
* **on-null-input return-null**: ``CASE WHEN a_1 IS NULL OR ... THEN NULL ELSE <body> END``.
* **An argument read twice** (a parameter used twice, or checked for NULL and used) is evaluated
  twice: refused when it is not deterministic (``rand()``, ``uuid()``, ...;
  ``UDF_NONDETERMINISTIC_ARGUMENT``).
* Calls nested in arguments are inlined first; calls inside a body resolve in the function's own
  namespace. Nesting deeper than :data:`MAX_NESTING` is refused (``UDF_NESTING``: a function that
  calls itself).
* Table functions (``udtf``) in ``FROM`` or after ``LATERAL`` become a subquery of their body
  (:mod:`iceview.sql.udtf_body`). Calls with ``DISTINCT``, ``*``, a window, ``FILTER`` or a mix of
  named and positional arguments are refused (``UDF_CALL_FORM``).
* :mod:`iceview.sql.udf_names` tells cheaply which SQL may call a catalog function at all.

Everything of the SQL outside the calls is kept byte for byte; argument texts too.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.tokenizer_core import Token, TokenType

from iceview.errors import FunctionInliningError, SQLParseError, TranslationError
from iceview.sql._text import (
    apply_edits,
    parse_with_tokens,
    quote_identifier,
)
from iceview.sql.qualify import CatalogTest, is_catalog_function, qualify, qualify_parts
from iceview.sql.types import type_namer
from iceview.sql.udf_body import BodyTemplate, CallSite, body_template, call_sites
from iceview.sql.udf_calls import call_arguments, captured, check_form, short
from iceview.sql.udf_names import maybe_calls, nondeterministic, sqlglot_builtins
from iceview.sql.udf_types import schema_of, to_iceberg
from iceview.sql.udf_typing import UNKNOWN, ArgumentTyper, ColumnTypes
from iceview.sql.udtf_body import table_body_template
from iceview.sql.udtf_translate import translate_table_body
from iceview.udf import types as ut
from iceview.udf.model import FunctionDefinition, FunctionMetadata
from iceview.udf.resolve import resolve_definition

__all__ = [
    "MAX_NESTING",
    "ColumnTypes",
    "FunctionInliner",
    "FunctionLookup",
    "UsedDefinition",
    "maybe_calls",
    "source_preparer",
    "sqlglot_builtins",
]

MAX_NESTING = 16
_BODY_ARGS = ("__iceview", "__iceview", "__iceview_body_args")
"""The stand-in relation of a body's parameters while the calls in the body are inlined."""
MAX_CALLS = 500
"""At most this many calls are inlined in one statement (functions that call each other several
times grow exponentially)."""
MAX_TEXT = 512 * 1024

FunctionLookup = Callable[[tuple[str, ...]], "FunctionMetadata | None"]
"""Qualified name (catalog first) -> the catalog function's metadata, or ``None``: not a function."""


@dataclass(frozen=True, order=True)
class UsedDefinition:
    """A function definition version an inliner used: the function's qualified name (catalog
    first), the definition's id and its version."""

    function: tuple[str, ...]
    definition_id: str
    version_id: int


@dataclass
class _Call:
    site: CallSite
    written: str
    qualified: tuple[str, ...]
    metadata: FunctionMetadata
    start: int
    end: int
    arguments: list[str]
    names: list[str | None]
    alias: str | None
    """The call's own text when it is a projection without an alias (the column's name); for a
    table function without an alias, its name."""
    alias_edit: str = ""
    """`` AS <alias>`` for a projection call: inserted after the call in the first round when the
    call itself waits for inner calls, so that its name is its text as written."""


@dataclass(frozen=True)
class _Resolved:
    definition: FunctionDefinition
    arguments: list[str]
    """The argument texts in the definition's parameter order."""


class FunctionInliner:
    """Inlines calls of the functions ``lookup`` finds into SQL of ``dialect`` (``spark``,
    ``duckdb``, ``trino``).

    * ``column_types`` gives the types of relations' columns, for typing arguments.
    * ``spark_ansi`` is the Spark semantics a body translated from or to Spark assumes (None:
      unknown, so what the modes disagree on is refused).
    * With ``builtin`` (a name -> whether the engine has a function of that name), a call by a
      one-part name that is not the engine's names a function of the current namespace, as
      Iceberg-Spark qualifies a view's functions; without it only dotted names are resolved.
    * ``relation_types`` gives the column types of a relation by its qualified name (catalog
      first), before views are expanded and tables renamed for the engine: for table functions'
      arguments, and to tell a table function body's parameters from its columns.
    * ``bodies`` is a cache of prepared scalar bodies to share between inliners (a version's body
      never changes).
    """

    def __init__(
        self,
        lookup: FunctionLookup,
        *,
        known_catalogs: CatalogTest,
        dialect: str,
        column_types: ColumnTypes | None = None,
        spark_ansi: bool | None = None,
        bodies: dict[tuple[object, ...], BodyTemplate] | None = None,
        builtin: Callable[[str], bool] | None = None,
        relation_types: ColumnTypes | None = None,
    ) -> None:
        self.lookup = lookup
        self.builtin = builtin
        self.is_catalog = is_catalog_function(known_catalogs)
        self.dialect = dialect.lower()
        self.spark_ansi = spark_ansi
        self.relation_types = relation_types
        self._typer = ArgumentTyper(self.dialect, column_types)
        self._namer = type_namer(self.dialect)
        self.used: set[UsedDefinition] = set()
        """Every definition version this inliner has inlined."""
        # a version's body never changes: its template is kept by function, definition and version
        self._bodies: dict[tuple[object, ...], BodyTemplate] = {} if bodies is None else bodies

    # ------------------------------------------------------------------ public

    def inline(self, sql: str, *, catalog: str, namespace: Sequence[str], what: str = "query") -> str:
        """``sql`` with every call of a catalog scalar function inlined; names resolve against
        ``catalog`` and ``namespace``. Raises :class:`~iceview.errors.FunctionInliningError` or a
        :class:`~iceview.errors.FunctionResolutionError` for a call it cannot inline."""
        return self._rounds(sql, catalog, tuple(namespace), what, tables=False)

    def expand_tables(self, sql: str, *, catalog: str, namespace: Sequence[str], what: str = "query") -> str:
        """``sql`` with every table function call in ``FROM`` (``FROM ns.tf(...) [AS t]``)
        replaced by a subquery of its body, as a view is; names resolve against ``catalog`` and
        ``namespace``. Relation names in the bodies are fully qualified, so the views among them
        can be expanded afterwards."""
        return self._rounds(sql, catalog, tuple(namespace), what, tables=True)

    def qualify_call(
        self, written: tuple[str, ...], catalog: str, namespace: tuple[str, ...]
    ) -> tuple[str, ...] | None:
        """The name a call in a function's body resolves to: a dotted name qualified as a
        relation name is, a one-part name that is not the engine's in ``namespace``."""
        if len(written) > 1:
            return qualify_parts(
                written, default_catalog=catalog, default_namespace=namespace, known_catalogs=self.is_catalog
            )
        if self.builtin is None or self.builtin(written[0]):
            return None
        return (catalog, *namespace, written[0])

    # ------------------------------------------------------------------ rounds

    def _rounds(self, sql: str, catalog: str, namespace: tuple[str, ...], what: str, *, tables: bool) -> str:
        inlined = 0
        limit = max(len(sql) * 64, MAX_TEXT)
        for depth in range(MAX_NESTING + 1):
            if inlined > MAX_CALLS or len(sql) > limit:
                raise FunctionInliningError(
                    "UDF_NESTING",
                    f"Inlining this statement's function calls would take more than {MAX_CALLS} calls or "
                    f"{limit} characters (do the functions call each other many times?)",
                )
            if not maybe_calls(sql, self.dialect, one_part=self.builtin is not None):
                return sql
            try:
                tree, tokens = parse_with_tokens(sql, self.dialect, what=what)
            except (SQLParseError, RecursionError):
                if depth == 0:
                    raise
                raise FunctionInliningError(
                    "UDF_NESTING", "Function calls nest too deeply to inline (does a function call itself?)"
                ) from None
            calls = self._calls(sql, tree, tokens, catalog, namespace, tables=tables)
            if not calls:
                return sql
            innermost = [
                c
                for c in calls
                if not any(o is not c and c.start <= o.start and o.end <= c.end for o in calls)
            ]
            columns = self._catalog_first(catalog, namespace) if tables else None
            types = self._typer.argument_types(tree, [c.site.call for c in innermost], columns)
            if tables:
                edits = [(c.start, c.end, self._table(c, types[i])) for i, c in enumerate(innermost)]
            else:
                edits = [(c.start, c.end, self._scalar(c, types[i])) for i, c in enumerate(innermost)]
                if depth == 0:  # a projection keeps the name of the call as it was written
                    edits.extend(
                        (c.end, c.end, c.alias_edit) for c in calls if c.alias_edit and c not in innermost
                    )
            inlined += len(edits)
            sql = apply_edits(sql, edits)
        raise FunctionInliningError(
            "UDF_NESTING", f"Function calls nest deeper than {MAX_NESTING} (does a function call itself?)"
        )

    def _catalog_first(self, catalog: str, namespace: tuple[str, ...]) -> ColumnTypes:
        """Before views are expanded and tables renamed for the engine, a relation's columns are
        those of its qualified name (``relation_types``)."""

        def column_types(written: tuple[str, ...]) -> Mapping[str, str] | None:
            if self.relation_types is None:
                return None
            qualified = qualify_parts(
                written, default_catalog=catalog, default_namespace=namespace, known_catalogs=self.is_catalog
            )
            return self.relation_types(qualified)

        return column_types

    def _calls(
        self,
        sql: str,
        tree: exp.Expr,
        tokens: list[Token],
        catalog: str,
        namespace: tuple[str, ...],
        *,
        tables: bool,
    ) -> list[_Call]:
        """The calls of catalog functions in ``tree``: in ``FROM`` with ``tables``, else elsewhere."""
        first = {t.start: k for k, t in enumerate(tokens)}
        found: list[_Call] = []
        for site in call_sites(tree):
            if site.in_from != tables or (len(site.written) == 1 and self.builtin is None):
                continue
            if len(site.written) > 1:
                qualified = qualify_parts(
                    site.written,
                    default_catalog=catalog,
                    default_namespace=namespace,
                    known_catalogs=self.is_catalog,
                )
            else:
                qualified = (catalog, *namespace, site.written[0])
            metadata = self.lookup(qualified)
            # the engine's own function wins; asked only for a name the catalog holds (DuckDB's
            # list of functions costs more than a look-up)
            if metadata is None or (
                len(site.written) == 1 and self.builtin is not None and self.builtin(site.written[0])
            ):
                continue
            shown = ".".join(site.written)
            index = first.get(int(site.start)) if site.start is not None else None
            if index is None:
                raise FunctionInliningError(
                    "UDF_CALL_FORM", f"Cannot inline {shown}: its position in the SQL is unknown"
                )
            check_form(shown, site)
            open_at = next(k for k in range(index, len(tokens)) if tokens[k].token_type == TokenType.L_PAREN)
            close_at, arguments, names = call_arguments(sql, tokens, open_at)
            begin, end = tokens[index].start, tokens[close_at].end + 1
            if site.in_from:
                holder = site.top.parent if isinstance(site.top.parent, exp.Lateral) else site.top
                alias = None if holder.args.get("alias") else site.written[-1]
            elif isinstance(site.top.parent, exp.Select) and site.top.arg_key == "expressions":
                alias = " ".join(sql[begin:end].split())
            else:
                alias = None
            alias_edit = f" AS {quote_identifier(alias, self.dialect)}" if alias and not site.in_from else ""
            found.append(
                _Call(site, shown, qualified, metadata, begin, end, arguments, names, alias, alias_edit)
            )

        return found

    # ------------------------------------------------------------------ resolution

    def _resolve(self, call: _Call, types: list[object]) -> _Resolved:
        if any(t is UNKNOWN for t in types):
            unknown = [call.arguments[i] for i, t in enumerate(types) if t is UNKNOWN]
            raise FunctionInliningError(
                "UDF_ARGUMENT_UNTYPED",
                f"Cannot resolve {call.written}(...): the type of {short(unknown[0])} is not known the "
                "same in every engine; cast it to the parameter's type",
            )
        known = [
            t if isinstance(t, (ut.PrimitiveType, ut.ListType, ut.MapType, ut.StructType)) else None
            for t in types
        ]
        if call.names and all(n is not None for n in call.names):
            named = {str(n): t for n, t in zip(call.names, known, strict=True)}
            definition = resolve_definition(call.metadata, named=named, function=call.written)
            order = {str(n).casefold(): i for i, n in enumerate(call.names)}
            arguments = [call.arguments[order[p.name.casefold()]] for p in definition.parameters]
        else:
            definition = resolve_definition(call.metadata, known, function=call.written)
            arguments = list(call.arguments)
        self.used.add(UsedDefinition(call.qualified, definition.definition_id, definition.current_version_id))
        return _Resolved(definition, arguments)

    def _filled(self, call: _Call, resolved: _Resolved, template: BodyTemplate) -> tuple[str, bool]:
        """The body with its parameters filled, and whether NULL arguments give NULL."""
        definition = resolved.definition
        return_null = definition.current_version.on_null_input == "return-null"
        for i, text in enumerate(resolved.arguments):
            reads = template.uses[i] + (1 if return_null else 0)
            if reads > 1 and nondeterministic(text):
                raise FunctionInliningError(
                    "UDF_NONDETERMINISTIC_ARGUMENT",
                    f"Cannot inline {call.written}(...): its argument {short(text)} is not deterministic "
                    f"and the body reads it {reads} times; compute it in a subquery first",
                )
        casts = [
            f"CAST(({text}) AS {self._type_name(p.type)})"
            for text, p in zip(resolved.arguments, definition.parameters, strict=True)
        ]
        return template.fill(casts), return_null and bool(resolved.arguments)

    def _nulls(self, resolved: _Resolved) -> str:
        return " OR ".join(f"({text}) IS NULL" for text in resolved.arguments)

    # ------------------------------------------------------------------ scalar functions

    def _scalar(self, call: _Call, types: list[object]) -> str:
        resolved = self._resolve(call, types)
        definition = resolved.definition
        if definition.function_type == "udtf":
            raise FunctionInliningError(
                "UDF_TABLE_FUNCTION",
                f"{call.written}({definition.signature()}) is a table function; call it in FROM",
            )
        template = self._scalar_template(call, definition)
        if call.qualified in template.calls:
            raise FunctionInliningError(
                "UDF_NESTING",
                f"Cannot inline {call.written}({definition.signature()}): its body calls itself",
            )
        self._check_called(call, definition, template)
        body, return_null = self._filled(call, resolved, template)
        if return_null:
            body = f"CASE WHEN {self._nulls(resolved)} THEN NULL ELSE ({body}) END"
        inlined = f"CAST(({body}) AS {self._type_name(definition.return_type)})"
        if call.alias is not None:
            inlined += f" AS {quote_identifier(call.alias, self.dialect)}"
        return inlined

    def _scalar_template(self, call: _Call, definition: FunctionDefinition) -> BodyTemplate:
        version = definition.current_version
        key = (
            self.dialect,
            self.spark_ansi,
            self.builtin is None,
            call.qualified,
            str(call.metadata.function_uuid),
            definition.definition_id,
            version.version_id,
        )
        found = self._bodies.get(key)
        if found is None:
            nested = False

            def inline_source(body: str, source: str) -> str:
                nonlocal nested
                out = self._inline_body(call.qualified, definition, body, source)
                nested = nested or out != body
                return out

            found = body_template(
                call.written,
                call.qualified,
                definition,
                self.dialect,
                qualify_call=self.qualify_call,
                spark_ansi=self.spark_ansi,
                inline_source=inline_source,
            )
            if not nested:  # a body holding other functions' bodies is as fresh as they are
                self._bodies[key] = found
        return found

    def _in_dialect(
        self, dialect: str, column_types: ColumnTypes, relation_types: ColumnTypes | None = None
    ) -> FunctionInliner:
        """An inliner like this one for a body written in ``dialect``; what it inlines is recorded
        in this one's :attr:`used` by the caller."""
        return FunctionInliner(
            self.lookup,
            known_catalogs=self.is_catalog,
            dialect=dialect,
            column_types=column_types,
            spark_ansi=self.spark_ansi,
            builtin=sqlglot_builtins(dialect) if self.builtin is not None else None,
            relation_types=relation_types,
        )

    def _inline_body(
        self, function: tuple[str, ...], definition: FunctionDefinition, body: str, source: str
    ) -> str:
        """A scalar body of ``source`` (another dialect than the engine's) with the calls of catalog
        functions in it inlined in ``source``, in the function's namespace, before it is
        translated: its parameters typed as the definition declares them."""
        if not maybe_calls(body, source, one_part=self.builtin is not None):
            return body
        namer = type_namer(source)
        types = {p.name: namer(to_iceberg(p.type)) for p in definition.parameters}

        def column_types(written: tuple[str, ...]) -> Mapping[str, str] | None:
            return types if tuple(w.lower() for w in written) == _BODY_ARGS else None

        inner = self._in_dialect(source, column_types)
        head, tail = "SELECT (\n", f"\n) FROM {'.'.join(_BODY_ARGS)}"
        out = inner.inline(
            head + body + tail, catalog=function[0], namespace=function[1:-1], what="function body"
        )
        self.used |= inner.used
        if not (out.startswith(head) and out.endswith(tail)):
            raise FunctionInliningError(
                "UDF_BODY_UNSUPPORTED", f"Cannot inline the calls in the body of {'.'.join(function)}"
            )
        return out[len(head) : len(out) - len(tail)]

    def _inline_table_body(
        self,
        function: tuple[str, ...],
        body: str,
        source: str,
        stand_in: tuple[str, ...],
        own: Mapping[str, str],
    ) -> str:
        """A table function's body of ``source`` (another dialect than the engine's), its
        parameters read from the relation ``stand_in`` (columns ``own``), with the calls of catalog
        functions in it inlined in ``source`` before it is translated."""
        if not maybe_calls(body, source, one_part=self.builtin is not None):
            return body
        relation_types = self.relation_types
        namer = type_namer(source)

        def types_in_source(qualified: tuple[str, ...]) -> Mapping[str, str] | None:
            if qualified == stand_in:
                return own
            found = relation_types(qualified) if relation_types is not None else None
            schema = None if found is None else schema_of(found, self.dialect)
            return None if schema is None else {f.name: namer(f.field_type) for f in schema.fields}

        # the body's relation names are qualified: as written they are the names the types are by
        inner = self._in_dialect(source, types_in_source, types_in_source)
        catalog, namespace = function[0], function[1:-1]
        out = inner.expand_tables(body, catalog=catalog, namespace=namespace, what="function body")
        out = inner.inline(out, catalog=catalog, namespace=namespace, what="function body")
        self.used |= inner.used
        return out

    # ------------------------------------------------------------------ table functions

    def _table(self, call: _Call, types: list[object]) -> str:
        resolved = self._resolve(call, types)
        definition = resolved.definition
        if definition.function_type != "udtf":
            raise FunctionInliningError(
                "UDF_CALL_FORM",
                f"{call.written}({definition.signature()}) is a scalar function, not a table function",
            )
        template = table_body_template(
            call.written,
            call.qualified,
            definition,
            self.dialect,
            known_catalogs=self.is_catalog,
            relation_columns=self._relation_columns,
            qualify_call=self.qualify_call,
            translation=lambda shown, source_template, source: translate_table_body(
                shown,
                call.qualified,
                definition,
                source_template,
                source,
                self.dialect,
                known_catalogs=self.is_catalog,
                relation_types=self.relation_types,
                types_dialect=self.dialect,
                spark_ansi=self.spark_ansi,
                inline_source=lambda body, stand_in, own: self._inline_table_body(
                    call.qualified, body, source, stand_in, own
                ),
            ),
        )
        self._check_called(call, definition, template)
        fields = definition.return_type.fields if isinstance(definition.return_type, ut.StructType) else ()
        inner = [quote_identifier(f"__c{i}", self.dialect) for i in range(len(fields))]
        columns = ", ".join(
            f"CAST({inner[i]} AS {self._type_name(t)}) AS {quote_identifier(name, self.dialect)}"
            for i, (name, t) in enumerate(fields)
        )
        body_alias = f"{quote_identifier('__f', self.dialect)}({', '.join(inner)})"
        if not any(captured(text, self.dialect, template) for text in resolved.arguments):
            body, return_null = self._filled(call, resolved, template)
            where = f" WHERE NOT ({self._nulls(resolved)})" if return_null else ""
            text = f"(SELECT {columns} FROM (\n{body}\n) AS {body_alias}{where})"
        else:
            # an argument names something the body's own relations could also name: it is computed
            # in a relation of its own, outside the body, and the body reads it from there
            args = quote_identifier(f"__iceview_args_{secrets.token_hex(4)}", self.dialect)
            names = [quote_identifier(f"__a{i}", self.dialect) for i in range(len(resolved.arguments))]
            values = ", ".join(
                f"CAST(({text}) AS {self._type_name(p.type)}) AS {names[i]}"
                for i, (text, p) in enumerate(zip(resolved.arguments, definition.parameters, strict=True))
            )
            body = template.fill([f"{args}.{n}" for n in names])
            nulls = " OR ".join(f"{args}.{n} IS NULL" for n in names)
            where = (
                f" WHERE NOT ({nulls})"
                if definition.current_version.on_null_input == "return-null" and names
                else ""
            )
            text = (
                f"(SELECT {columns} FROM (SELECT {values}) AS {args}, "
                f"LATERAL (\n{body}\n) AS {body_alias}{where})"
            )
        if call.alias is not None:
            text += f" AS {quote_identifier(call.alias, self.dialect)}"
        return text

    def _check_called(self, call: _Call, definition: FunctionDefinition, template: BodyTemplate) -> None:
        """A function the body calls by a name of this catalog must exist: left to the engine, its
        qualified name would be read as something else (Spark: a namespace of its session catalog)."""
        for name in sorted(template.calls):
            if name[0] == call.qualified[0] and self.lookup(name) is None:
                raise FunctionInliningError(
                    "UDF_NO_SUCH_FUNCTION",
                    f"Cannot inline {call.written}({definition.signature()}): its body calls "
                    f"{'.'.join(name)}, which does not exist",
                )

    def _relation_columns(self, qualified: tuple[str, ...]) -> frozenset[str] | None:
        found = self.relation_types(qualified) if self.relation_types is not None else None
        return None if found is None else frozenset(name.lower() for name in found)

    def _type_name(self, t: ut.DataType) -> str:
        return self._namer(to_iceberg(t))


def source_preparer(
    lookup: FunctionLookup,
    relation_types: Callable[[str], ColumnTypes],
    *,
    known_catalogs: CatalogTest,
    spark_ansi: bool | None = None,
    used: set[UsedDefinition] | None = None,
) -> Callable[[str, str, str, tuple[str, ...]], str]:
    """``prepare(sql, dialect, catalog, namespace) -> sql`` for :func:`iceview.view.reading.engine_sql`:
    a view's SQL in its own dialect with relation names qualified and the catalog's function calls
    inlined (table functions expanded), before it is translated for another engine.
    ``relation_types(dialect)`` gives column types by qualified name, spelled in ``dialect``.
    The definitions inlined are added to ``used``."""

    def prepare(sql: str, dialect: str, catalog: str, namespace: tuple[str, ...]) -> str:
        dialect = dialect.lower()
        if not maybe_calls(sql, dialect, one_part=True):
            return sql
        try:
            types = relation_types(dialect)
            inliner = FunctionInliner(
                lookup,
                known_catalogs=known_catalogs,
                dialect=dialect,
                column_types=types,
                relation_types=types,
                spark_ansi=spark_ansi,
                builtin=sqlglot_builtins(dialect),
            )
        except TranslationError:  # no type names for the dialect: the translator decides
            return sql
        text = qualify(
            sql,
            default_catalog=catalog,
            default_namespace=namespace,
            known_catalogs=known_catalogs,
            dialect=dialect,
        )
        text = inliner.expand_tables(text, catalog=catalog, namespace=namespace, what="view SQL")
        text = inliner.inline(text, catalog=catalog, namespace=namespace, what="view SQL")
        if used is not None:
            used.update(inliner.used)
        return text

    return prepare
