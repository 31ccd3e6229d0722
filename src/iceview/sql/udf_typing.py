"""The types of a SQL UDF call's arguments, as far as they are the same in every engine.

Resolution (:func:`iceview.udf.resolve_definition`) picks a definition by the arguments' types, so
a wrong type picks a wrong definition. A type is taken only where it is proven the same in Spark,
DuckDB and Trino:

* a column of a relation whose types the engine gave (``column_types``);
* a literal: ``1`` int (``long`` beyond 32 bits, ``decimal(n,0)`` beyond 64), ``1.5``
  ``decimal(2,1)``, ``1e0`` double, ``'x'`` string, ``TRUE`` boolean, ``NULL`` untyped;
* a ``CAST`` / ``TRY_CAST``, and the call of a function already inlined (a ``CAST`` too);
* integer ``+``, ``-``, ``*`` and negation of those (the wider of the two);
* any other expression whose type sqlglot infers as a string, boolean, date or timestamp.

Anything else is :data:`UNKNOWN` (decimal and floating arithmetic above all, whose result types
differ between engines), and the call is refused: the caller casts the argument.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from sqlglot import exp
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify as sqlglot_qualify
from sqlglot.schema import MappingSchema

from iceview.sql.references import relation_nodes, table_identifiers
from iceview.sql.udf_types import from_sqlglot
from iceview.udf import types as ut

__all__ = ["UNKNOWN", "ArgumentTyper", "ColumnTypes"]

ColumnTypes = Callable[[tuple[str, ...]], "Mapping[str, str] | None"]
"""A relation's name as written in the SQL -> its columns' types in the engine's dialect, or
``None`` when unknown."""

UNKNOWN = object()
"""An argument whose type is not proven the same in every engine."""

_INTEGRAL = ("int", "long")
_PROVEN_INFERRED = ("boolean", "string", "date", "timestamp", "timestamptz")
_INT32 = 2**31
_INT64 = 2**63
# sqlglot's optimizer also asserts on SQL it does not expect (ORDER BY 1 over SELECT *): then the
# arguments are typed without the schema, or not at all
_ERRORS = (OptimizeError, SqlglotError, KeyError, ValueError, RecursionError, AssertionError)


class ArgumentTyper:
    """Types the arguments of marked calls in one statement of ``dialect``."""

    def __init__(self, dialect: str, column_types: ColumnTypes | None) -> None:
        self.dialect = dialect
        self.column_types = column_types

    def argument_types(
        self, tree: exp.Expr, calls: list[exp.Anonymous], column_types: ColumnTypes | None = None
    ) -> list[list[object]]:
        """Each call's argument types (a call's arguments in order; named ones by value): a UDF
        type, ``None`` (an untyped ``NULL``) or :data:`UNKNOWN`. ``column_types`` replaces the
        typer's own for this statement."""
        texts = [call.sql(dialect=self.dialect) for call in calls]
        for k, call in enumerate(calls):
            call.meta["iceview_call"] = k
        typed = self._typed(tree, column_types or self.column_types)
        nodes: dict[int, exp.Anonymous] = {}
        for anon in typed.find_all(exp.Anonymous):
            mark = anon.meta.get("iceview_call")
            if isinstance(mark, int):
                nodes[mark] = anon
        out: list[list[object]] = []
        for k, call in enumerate(calls):
            # qualifying may put a projection's alias in place of a call of the same text (ORDER BY
            # of a grouped query): the same text in the same statement is typed as that one
            # (only when every call of that text is typed alike)
            if k in nodes:
                out.append(self._types_of(nodes[k]))
                continue
            same = [self._types_of(nodes[j]) for j, t in enumerate(texts) if t == texts[k] and j in nodes]
            out.append(same[0] if same and all(x == same[0] for x in same) else self._types_of(call))
        return out

    def _types_of(self, call: exp.Anonymous) -> list[object]:
        args = [a.expression if isinstance(a, exp.Kwarg) else a for a in call.expressions]
        return [self.type_of(a) for a in args]

    def _typed(self, tree: exp.Expr, column_types: ColumnTypes | None) -> exp.Expr:
        """A copy of ``tree`` with types annotated: each relation whose column types are known is
        renamed to a one-part stand-in (keeping its alias) so that one flat schema holds them."""
        copy = tree.copy()
        tables: dict[str, object] = {}
        if column_types is not None:
            for k, (node, is_cte) in enumerate(list(relation_nodes(copy, case_sensitive=False))):
                idents = table_identifiers(node)
                if is_cte or idents is None:
                    continue
                columns = column_types(tuple(i.name for i in idents))
                if not columns:
                    continue
                name = f"__iceview_t{k}"
                tables[name] = dict(columns)
                alias = node.alias or idents[-1].name
                node.replace(
                    exp.Table(
                        this=exp.to_identifier(name), alias=exp.TableAlias(this=exp.to_identifier(alias))
                    )
                )
        try:
            # qualified even without a known table: columns of derived tables get their types
            schema = MappingSchema(tables, dialect=self.dialect)
            copy = sqlglot_qualify(
                copy,
                schema=schema,
                dialect=self.dialect,
                validate_qualify_columns=False,
                quote_identifiers=False,
                identify=False,
            )
            return annotate_types(copy, schema=schema, dialect=self.dialect)
        except _ERRORS:
            try:
                return annotate_types(tree.copy(), dialect=self.dialect)
            except _ERRORS:
                return tree

    def type_of(self, node: exp.Expr) -> object:
        """The type of one (annotated) argument expression; see the module docstring."""
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.Null):
            return None
        if isinstance(node, exp.Boolean):
            return ut.PrimitiveType("boolean")
        if isinstance(node, exp.Literal):
            return literal_type(node)
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
            if node.this.this == str(_INT32):
                return ut.PrimitiveType("int")  # -2147483648 is an int literal
            return literal_type(node.this)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            return from_sqlglot(node.to, dialect=self.dialect) or UNKNOWN
        if isinstance(node, exp.Column):
            found = from_sqlglot(node.type, dialect=self.dialect) if node.type is not None else None
            return found if found is not None else UNKNOWN
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Neg)):
            operands = [node.this] if isinstance(node, exp.Neg) else [node.this, node.expression]
            names = [k.name if isinstance(k, ut.PrimitiveType) else None for k in map(self.type_of, operands)]
            if all(n in _INTEGRAL for n in names):
                return ut.PrimitiveType("long" if "long" in names else "int")
            return UNKNOWN
        inferred = from_sqlglot(node.type, dialect=self.dialect) if node.type is not None else None
        if isinstance(inferred, ut.PrimitiveType) and inferred.name in _PROVEN_INFERRED:
            return inferred
        return UNKNOWN


def literal_type(node: exp.Literal) -> object:
    """A literal's type, the same in Spark, DuckDB and Trino (:data:`UNKNOWN` past 38 digits)."""
    text = node.this
    if node.is_string:
        return ut.PrimitiveType("string")
    if re.fullmatch(r"\d+", text):
        value = int(text)
        if value < _INT32:
            return ut.PrimitiveType("int")
        if value < _INT64:
            return ut.PrimitiveType("long")
        digits = len(text.lstrip("0")) or 1
        return ut.PrimitiveType(f"decimal({digits},0)") if digits <= 38 else UNKNOWN
    m = re.fullmatch(r"(\d*)\.(\d*)", text)
    if m and (m.group(1) or m.group(2)):
        scale = len(m.group(2))
        precision = max(len(m.group(1).lstrip("0")) + scale, 1)
        return ut.PrimitiveType(f"decimal({precision},{scale})") if precision <= 38 else UNKNOWN
    if re.fullmatch(r"(\d+\.?\d*|\.\d+)[eE][+-]?\d+", text):
        return ut.PrimitiveType("double")
    return UNKNOWN
