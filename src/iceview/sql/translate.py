"""Safe dialect translation of view SQL between Spark, Trino and DuckDB, on top of sqlglot.

:func:`translate` turns a view's SQL from one dialect into another and refuses what it cannot carry
over without changing the meaning. sqlglot alone is not enough: its Spark dialect models non-ANSI
Spark, it passes unknown functions through, and some constructs are dropped or left invalid
(``docs/translation.md`` lists the traps). The steps:

1. qualify the relation names with the version's defaults (:func:`iceview.sql.qualify`), so the
   output has no names that the target engine would resolve differently;
2. parse in the source dialect; with table schemas, let sqlglot qualify the columns, expand ``*``
   and annotate types (the type-aware rules need them);
3. check the source tree against the rules below, and rewrite the few constructs that have an
   exact counterpart sqlglot gets wrong (``trunc`` units, ``DECIMAL`` without precision);
4. generate in the target dialect with ``unsupported_level=RAISE``;
5. re-parse the output in the target dialect and check that nothing was dropped (relations,
   projections, clauses) and, for Trino, that every function exists there.

Every refusal names the construct and the reason (:class:`TranslationIssue`). ``strict=True``
raises :class:`UnsafeTranslationError` (a :class:`~iceview.errors.TranslationError`) with all of
them; ``strict=False`` returns the SQL with the issues as warnings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import sqlglot
from pyiceberg.schema import Schema
from sqlglot import exp
from sqlglot.errors import ErrorLevel, OptimizeError, ParseError, SqlglotError, UnsupportedError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify as sqlglot_qualify
from sqlglot.schema import MappingSchema

import iceview
from iceview.errors import SQLParseError, TranslationError
from iceview.sql.qualify import CatalogTest, qualify
from iceview.sql.types import spark_type_name

__all__ = [
    "DIALECTS",
    "PROVENANCE_KEY",
    "PROVENANCE_VERSION_KEY",
    "TableSchemas",
    "Translation",
    "TranslationIssue",
    "UnsafeTranslationError",
    "allowed_functions",
    "translate",
    "translation_hook",
]

DIALECTS = ("spark", "trino", "duckdb")
"""The dialects :func:`translate` reads and writes."""

PROVENANCE_KEY = "iceview.translated-from"
"""Version-summary key: the dialect the added representations were translated from."""
PROVENANCE_VERSION_KEY = "iceview.translator-version"
"""Version-summary key: the iceview version that translated them."""

TableSchemas: TypeAlias = Mapping[tuple[str, ...], Schema]
"""Schemas of the relations a query reads (tables and views), by qualified name, catalog first."""


@dataclass(frozen=True)
class TranslationIssue:
    """Why a construct cannot be translated safely. ``code`` is a stable short name (e.g.
    ``ansi-cast``), ``construct`` the SQL of the construct in the source dialect."""

    code: str
    construct: str
    reason: str

    def __str__(self) -> str:
        return f"{self.construct}: {self.reason} [{self.code}]"


@dataclass(frozen=True)
class Translation:
    """The result of :func:`translate`: the SQL in the target dialect and, with ``strict=False``,
    the issues that strict mode would have refused (empty when the translation is safe)."""

    sql: str
    source: str
    target: str
    warnings: tuple[TranslationIssue, ...] = ()

    @property
    def safe(self) -> bool:
        return not self.warnings


class UnsafeTranslationError(TranslationError):
    """A translation refused: ``issues`` lists every construct and reason; the message names the
    first ones."""

    def __init__(self, source: str, target: str, issues: Sequence[TranslationIssue]) -> None:
        self.source = source
        self.target = target
        self.issues = tuple(issues)
        shown = "; ".join(str(i) for i in self.issues[:3])
        more = f" (and {len(self.issues) - 3} more)" if len(self.issues) > 3 else ""
        super().__init__(f"Cannot translate {source} SQL to {target}: {shown}{more}")

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(i.code for i in self.issues)


# --------------------------------------------------------------------------------------------------
# allow-lists: sqlglot expression classes whose translation was checked (for DuckDB: executed
# against Spark 3.5.9 by tests/translate/test_corpus.py), per target dialect

_COMMON = frozenset(
    {
        # aggregates
        "Count",
        "Sum",
        "Avg",
        "Min",
        "Max",
        "CountIf",
        "LogicalAnd",
        "LogicalOr",
        "Stddev",
        "StddevSamp",
        "StddevPop",
        "Variance",
        "VariancePop",
        "ArrayAgg",
        # logic (sqlglot models these as functions)
        "And",
        "Or",
        "Not",
        "Exists",
        # windows
        "RowNumber",
        "Rank",
        "DenseRank",
        "Lag",
        "Lead",
        "Ntile",
        "PercentRank",
        "CumeDist",
        "FirstValue",
        "LastValue",
        # conditionals
        "Coalesce",
        "If",
        "Case",
        "Nullif",
        # numbers
        "Abs",
        "Ceil",
        "Floor",
        "Round",
        "Sqrt",
        "Ln",
        "Exp",
        "Pow",
        "Sign",
        "Mod",
        "IntDiv",
        # strings
        "Upper",
        "Lower",
        "Trim",
        "Length",
        "Reverse",
        "Replace",
        "StrPosition",
        "Left",
        "Right",
        "Substring",
        "Concat",
        "ConcatWs",
        "Repeat",
        # dates
        "Year",
        "Month",
        "Day",
        "DayOfMonth",
        "Quarter",
        "Hour",
        "Minute",
        "Second",
        "WeekOfYear",
        "TsOrDsToDate",
        "TsOrDsAdd",
        "DateDiff",
        "LastDay",
        "DateTrunc",
        "TimestampTrunc",
        "TimeToStr",
        "TimeStrToTime",
        "Extract",
        "AddMonths",
        # arrays and structs
        "ArrayContains",
        "Array",
        "Explode",
        "Struct",
        # casts (checked by their own rules)
        "Cast",
        "TryCast",
    }
)

_ALLOWED: dict[str, frozenset[str]] = {
    "duckdb": _COMMON | {"Greatest", "Least", "MD5", "Pad"},
    # no Trino server here: only what sqlglot's Trino output was read for; Greatest/Least return
    # NULL on any NULL argument in Trino (Spark skips NULLs), MD5 needs varbinary there
    "trino": _COMMON - {"Left", "Right", "Repeat", "AddMonths", "LastDay"},
    "spark": frozenset(
        {
            "Count",
            "Sum",
            "Avg",
            "Min",
            "Max",
            "RowNumber",
            "Rank",
            "DenseRank",
            "Lag",
            "Lead",
            "Coalesce",
            "If",
            "Case",
            "Nullif",
            "Abs",
            "Upper",
            "Lower",
            "Trim",
            "Length",
            "Replace",
            "Year",
            "Month",
            "Day",
            "Cast",
            "TryCast",
        }
    ),
}


def allowed_functions(target: str) -> frozenset[str]:
    """The sqlglot expression classes (by name) allowed in a translation into ``target``."""
    return _ALLOWED.get(target.lower(), frozenset())


# functions of the source whose meaning cannot be carried over, with the reason (checked first, so
# the reason is specific rather than "not on the allow-list")
_REFUSED_FUNCTIONS: dict[str, tuple[str, str]] = {
    "FromJson": (
        "from_json",
        "Spark's from_json (schema string, PERMISSIVE mode) has no equivalent; sqlglot passes it through unchanged and invalid",
    ),
    "JSONExtractScalar": (
        "json",
        "JSON path functions differ in error handling and path syntax between engines",
    ),
    "JSONFormat": ("json", "to_json's text form differs between engines"),
    "ApproxQuantile": ("approximate", "approximate aggregates use different algorithms in each engine"),
    "ApproxDistinct": ("approximate", "approximate aggregates use different algorithms in each engine"),
    "Quantile": ("approximate", "percentile interpolation differs between engines"),
    "First": ("nondeterministic", "first() without an order returns an arbitrary row"),
    "Last": ("nondeterministic", "last() without an order returns an arbitrary row"),
    "ArgMax": ("nondeterministic", "max_by returns an arbitrary row among ties"),
    "ArgMin": ("nondeterministic", "min_by returns an arbitrary row among ties"),
    "ArrayUniqueAgg": ("nondeterministic", "collect_set's element order is engine-specific"),
    "Rand": ("nondeterministic", "random numbers differ between engines"),
    "Uuid": ("nondeterministic", "random values differ between engines"),
    "ArraySize": (
        "size-of-null",
        "Spark's size(NULL) is -1 in legacy mode (spark.sql.legacy.sizeOfNull) and NULL in ANSI mode",
    ),
    "DayOfWeek": ("dayofweek", "day-of-week numbering differs (Spark 1=Sunday, DuckDB 0=Sunday)"),
    "RegexpReplace": (
        "regex",
        "Java regular expressions and replacement references ($1) differ from RE2 (DuckDB) and Joni (Trino)",
    ),
    "RegexpExtract": ("regex", "Java regular expressions differ from RE2 (DuckDB) and Joni (Trino)"),
    "RegexpLike": ("regex", "Java regular expressions differ from RE2 (DuckDB) and Joni (Trino)"),
    "RegexpSplit": ("regex", "Spark's split() takes a Java regular expression and a limit; engines differ"),
    "RegexpILike": ("regex", "Java regular expressions differ from RE2 (DuckDB) and Joni (Trino)"),
    "Initcap": ("initcap", "initcap's word boundaries differ between engines"),
    "StrToUnix": ("time-zone", "unix_timestamp depends on the session time zone"),
    "UnixToStr": ("time-zone", "from_unixtime depends on the session time zone"),
    "_ExplodeOuter": (
        "outer-explode",
        "OUTER explode keeps rows with empty or NULL arrays; CROSS JOIN UNNEST drops them",
    ),
    "ExplodeOuter": (
        "outer-explode",
        "OUTER explode keeps rows with empty or NULL arrays; CROSS JOIN UNNEST drops them",
    ),
    "Posexplode": ("posexplode", "positions are 0-based in Spark and 1-based in WITH ORDINALITY"),
    "PosexplodeOuter": (
        "outer-explode",
        "OUTER explode keeps rows with empty or NULL arrays; CROSS JOIN UNNEST drops them",
    ),
    "Inline": ("explode", "inline() of structs is not translated reliably"),
    "Stack": ("explode", "stack() has no equivalent"),
    "MonthsBetween": (
        "months-between",
        "months_between's rounding (8 digits, day-of-month rules) has no equivalent",
    ),
    "SafeDivide": ("ansi-division", "try_divide is not translated"),
}

_REFUSED_ANONYMOUS: dict[str, tuple[str, str]] = {
    "hash": ("hash", "Spark's hash() is Murmur3 with seed 42; no other engine computes the same values"),
    "xxhash64": (
        "hash",
        "Spark's xxhash64() is seeded with 42 and hashes Spark's binary encoding; other engines differ",
    ),
    "crc32": ("hash", "hash functions are not translated"),
    "from_json": ("from_json", "Spark's from_json has no equivalent"),
    "explode_outer": ("outer-explode", "OUTER explode keeps rows with empty or NULL arrays"),
    "posexplode_outer": ("outer-explode", "OUTER explode keeps rows with empty or NULL arrays"),
    "inline_outer": ("outer-explode", "OUTER explode keeps rows with empty or NULL arrays"),
}

# trunc / date_trunc units as Spark spells them -> the unit every target understands
_TRUNC_UNITS = {
    "YEAR": "YEAR",
    "YYYY": "YEAR",
    "YY": "YEAR",
    "QUARTER": "QUARTER",
    "MONTH": "MONTH",
    "MM": "MONTH",
    "MON": "MONTH",
    "WEEK": "WEEK",
    "DAY": "DAY",
    "DD": "DAY",
    "HOUR": "HOUR",
    "MINUTE": "MINUTE",
    "SECOND": "SECOND",
}

_DATE_TRUNC_UNITS = {k: v for k, v in _TRUNC_UNITS.items() if v in ("YEAR", "QUARTER", "MONTH", "WEEK")}

# date_format patterns whose mapping to strftime/Trino's DATE_FORMAT is exact
# (sqlglot has already turned Spark's pattern into strftime codes)
_SAFE_FORMAT = re.compile(r"(%Y|%m|%d|%H|%M|%S|strict|[-/:. T_])*\Z")

# functions known to exist in Trino (its documentation, release 4xx); used to check sqlglot's
# output, since no Trino server is at hand
TRINO_FUNCTIONS = frozenset(
    [
        "abs",
        "acos",
        "approx_distinct",
        "approx_percentile",
        "arbitrary",
        "array_agg",
        "array_distinct",
        "array_join",
        "array_max",
        "array_min",
        "array_position",
        "array_sort",
        "arrays_overlap",
        "avg",
        "bool_and",
        "bool_or",
        "cardinality",
        "cast",
        "cbrt",
        "ceil",
        "ceiling",
        "coalesce",
        "concat",
        "concat_ws",
        "contains",
        "corr",
        "count",
        "count_if",
        "cume_dist",
        "current_date",
        "current_timestamp",
        "date",
        "date_add",
        "date_diff",
        "date_format",
        "date_parse",
        "date_trunc",
        "day",
        "day_of_month",
        "day_of_week",
        "day_of_year",
        "dense_rank",
        "element_at",
        "every",
        "exp",
        "extract",
        "first_value",
        "floor",
        "format",
        "from_iso8601_date",
        "greatest",
        "hour",
        "if",
        "last_day_of_month",
        "last_value",
        "lag",
        "lead",
        "least",
        "length",
        "ln",
        "log",
        "log10",
        "log2",
        "lower",
        "lpad",
        "ltrim",
        "max",
        "max_by",
        "min",
        "min_by",
        "minute",
        "mod",
        "month",
        "nth_value",
        "ntile",
        "nullif",
        "percent_rank",
        "pow",
        "power",
        "quarter",
        "rank",
        "regexp_extract",
        "regexp_like",
        "regexp_replace",
        "replace",
        "reverse",
        "round",
        "row_number",
        "rpad",
        "rtrim",
        "second",
        "sign",
        "split",
        "sqrt",
        "stddev",
        "stddev_pop",
        "stddev_samp",
        "strpos",
        "substr",
        "substring",
        "sum",
        "to_hex",
        "trim",
        "truncate",
        "try",
        "try_cast",
        "upper",
        "var_pop",
        "var_samp",
        "variance",
        "week",
        "week_of_year",
        "year",
        "year_of_week",
    ]
)

# --------------------------------------------------------------------------------------------------


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
    :class:`~iceview.errors.TranslationError`."""
    return _translate(
        sql,
        source,
        target,
        qualify_with=(default_catalog, tuple(default_namespace)),
        known_catalogs=known_catalogs,
        schemas=schemas,
        strict=strict,
    )


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
    issues = _Checker(src, dst, typed is not None, qualified=qualify_with is not None).check(work)
    if src == "spark":
        issues.extend(_spark_trunc_units(text))
    _rewrite(work, src)

    try:
        out = work.sql(dialect=dst, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError as e:
        issues.append(
            TranslationIssue("unsupported", _short(work, src), f"sqlglot cannot express it in {dst}: {e}")
        )
        out = work.sql(dialect=dst, unsupported_level=ErrorLevel.IGNORE)
    try:
        reparsed = sqlglot.parse_one(out, read=dst)
    except (ParseError, SqlglotError) as e:
        raise TranslationError(
            f"Cannot translate {src} SQL to {dst}: the output does not parse in {dst}: {e}"
        ) from e
    issues.extend(_compare(work, reparsed, src, dst))
    issues = _dedupe(issues)
    if issues and strict:
        raise UnsafeTranslationError(src, dst, issues)
    return Translation(out, src, dst, tuple(issues))


def _dedupe(issues: Iterable[TranslationIssue]) -> list[TranslationIssue]:
    seen: dict[tuple[str, str], TranslationIssue] = {}
    for i in issues:
        seen.setdefault((i.code, i.construct), i)
    return list(seen.values())


def _short(node: exp.Expr, dialect: str, limit: int = 120) -> str:
    text = node.sql(dialect=dialect)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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


def _rewrite(tree: exp.Expr, src: str) -> None:
    """Exact rewrites of what sqlglot generates wrongly: ``trunc`` units, bare ``DECIMAL``."""
    for node in list(tree.find_all(exp.DateTrunc, exp.TimestampTrunc)):
        unit = node.args.get("unit")
        if isinstance(unit, (exp.Literal, exp.Var)) and unit.name.upper() in _TRUNC_UNITS:
            node.set("unit", exp.Literal.string(_TRUNC_UNITS[unit.name.upper()]))
    if src == "spark":
        for dt in list(tree.find_all(exp.DataType)):
            if dt.this == exp.DataType.Type.DECIMAL and not dt.expressions:
                # Spark's DECIMAL is DECIMAL(10, 0); DuckDB's is DECIMAL(18, 3)
                dt.set(
                    "expressions",
                    [
                        exp.DataTypeParam(this=exp.Literal.number(10)),
                        exp.DataTypeParam(this=exp.Literal.number(0)),
                    ],
                )


# --------------------------------------------------------------------------------------------------
# the rules

_T = exp.DataType.Type
_INTEGERS = {_T.TINYINT, _T.SMALLINT, _T.INT, _T.BIGINT}
_FLOATS = {_T.FLOAT, _T.DOUBLE}
_TEXT = {_T.TEXT, _T.VARCHAR, _T.CHAR}
_INT_BITS = {_T.TINYINT: 8, _T.SMALLINT: 16, _T.INT: 32, _T.BIGINT: 64}
_INT_DIGITS = {_T.TINYINT: 3, _T.SMALLINT: 5, _T.INT: 10, _T.BIGINT: 19}
_TIMESTAMPS = {_T.TIMESTAMP, _T.TIMESTAMPTZ, _T.TIMESTAMPLTZ, _T.TIMESTAMPNTZ, _T.DATETIME}
_INT_LITERAL = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL_LITERAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)\Z")
_DATE_LITERAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")


def _type_of(node: exp.Expr) -> exp.DataType | None:
    t = node.type if hasattr(node, "type") else None
    if t is None or t.this in (_T.UNKNOWN, _T.NULL):
        return None
    return t


def _decimal_params(t: exp.DataType) -> tuple[int, int] | None:
    params = [p.this for p in t.expressions if isinstance(p, exp.DataTypeParam)]
    try:
        if len(params) == 2:
            return int(params[0].name), int(params[1].name)
        if len(params) == 1:
            return int(params[0].name), 0
    except (ValueError, AttributeError):
        return None
    return (10, 0)


def _literal_cast_is_safe(value: exp.Literal, to: exp.DataType) -> bool:
    """A string or number literal cast to a type that both engines read the same way."""
    text = value.name.strip() if value.is_string else value.name
    kind = to.this
    if kind in _TEXT:
        return True
    if kind in _INTEGERS:
        if not _INT_LITERAL.match(text):
            return False
        bits = _INT_BITS[kind]
        return bool(-(2 ** (bits - 1)) <= int(text) < 2 ** (bits - 1))
    if kind in _FLOATS:
        return bool(_DECIMAL_LITERAL.match(text))
    if kind == _T.DECIMAL:
        params = _decimal_params(to)
        if params is None or not _DECIMAL_LITERAL.match(text):
            return False
        p, s = params
        whole, _, frac = text.lstrip("+-").partition(".")
        return len(whole.lstrip("0")) <= p - s and len(frac) <= s
    if kind == _T.DATE:
        return bool(_DATE_LITERAL.match(text))
    return False


def _cast_value_issue(frm: exp.DataType, to: exp.DataType) -> str | None:
    """Why a conversion that succeeds gives different values in different engines, or None."""
    f, t = frm.this, to.this
    if f in _FLOATS and t in _INTEGERS | {_T.DECIMAL}:
        return "floating-point to integer/decimal rounds in DuckDB and Trino but truncates in Spark"
    if f == _T.DECIMAL and t in _INTEGERS:
        return "decimal to integer rounds in DuckDB and Trino but truncates in Spark"
    if t in _TEXT and (f in _FLOATS or f in _TIMESTAMPS):
        return "the text form of floating-point numbers and timestamps differs between engines"
    if (f in _TIMESTAMPS or t in _TIMESTAMPS) and (f != t) and {f, t} != {_T.DATE, _T.TIMESTAMPNTZ}:
        return "conversions to and from time-zone-aware timestamps depend on the session time zone"
    return None


def _cast_cannot_fail(frm: exp.DataType, to: exp.DataType) -> bool:
    """Whether a conversion succeeds for every value (so ANSI and legacy mode agree)."""
    f, t = frm.this, to.this
    if frm == to or (f == t and f not in (_T.DECIMAL,)):
        return True
    if t in _TEXT:
        return True
    if f == _T.BOOLEAN and t in _INTEGERS:
        return True
    if f in _INTEGERS and t in _INTEGERS:
        return _INT_BITS[f] <= _INT_BITS[t]
    if f in _INTEGERS and t in _FLOATS:
        return True
    if f in _INTEGERS and t == _T.DECIMAL:
        params = _decimal_params(to)
        return params is not None and params[0] - params[1] >= _INT_DIGITS[f]
    if f == _T.DECIMAL and t == _T.DECIMAL:
        a, b = _decimal_params(frm), _decimal_params(to)
        return a is not None and b is not None and b[1] >= a[1] and b[0] - b[1] >= a[0] - a[1]
    if f == _T.DECIMAL and t in _FLOATS:
        return True
    if f == _T.FLOAT and t == _T.DOUBLE:
        return True
    # a date widens to midnight, a zone-less timestamp narrows to its date: total in every engine
    return {f, t} == {_T.DATE, _T.TIMESTAMPNTZ}


def _nonzero_literal(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Neg):
        return _nonzero_literal(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.name) != 0
        except ValueError:
            return False
    return False


def _guarded_divisor(node: exp.Expr) -> bool:
    """``NULLIF(x, 0)``: a divisor that is never zero."""
    while isinstance(node, exp.Paren):
        node = node.this
    if not isinstance(node, exp.Nullif):
        return False
    zero = node.expression
    return isinstance(zero, exp.Literal) and not zero.is_string and _is_zero(zero.name)


def _is_zero(text: str) -> bool:
    try:
        return float(text) == 0
    except ValueError:
        return False


def _func_key(node: exp.Func) -> str:
    return type(node).__name__


class _Checker:
    def __init__(self, src: str, dst: str, typed: bool, *, qualified: bool = True) -> None:
        self.qualified = qualified
        self.src = src
        self.dst = dst
        self.typed = typed
        self.spark = "spark" in (src, dst)
        self.issues: list[TranslationIssue] = []

    def add(self, code: str, node: exp.Expr, reason: str) -> None:
        self.issues.append(TranslationIssue(code, _short(node, self.src), reason))

    def check(self, tree: exp.Expr) -> list[TranslationIssue]:
        allowed = allowed_functions(self.dst)
        for node in tree.walk():
            if isinstance(node, exp.TableSample):
                self.add("tablesample", node, "sampling is random and each engine samples differently")
            elif isinstance(node, exp.Pivot):
                if self.dst == "trino":
                    self.add("pivot", node, "Trino has no PIVOT/UNPIVOT (sqlglot would drop it silently)")
                elif self.src != "spark" or node.args.get("unpivot"):
                    self.add("pivot", node, "PIVOT/UNPIVOT is translated only from Spark to DuckDB")
            elif isinstance(node, exp.Lateral):
                if node.args.get("outer"):
                    self.add(
                        "outer-explode",
                        node,
                        "LATERAL VIEW OUTER keeps rows with empty or NULL arrays; CROSS JOIN UNNEST drops them",
                    )
                elif node.args.get("view") and not isinstance(node.this, exp.Explode):
                    self.add("lateral-view", node, "only LATERAL VIEW explode(array) is translated")
            elif isinstance(node, exp.Table):
                self._table(node)
            elif isinstance(node, exp.Bracket):
                self.add(
                    "array-index",
                    node,
                    "array subscripts are 0-based in Spark and out-of-range access returns NULL or fails depending on ANSI mode",
                )
            elif isinstance(node, (exp.Div, exp.IntDiv, exp.Mod)):
                self._division(node)
            elif isinstance(node, exp.RegexpLike):
                self.add("regex", node, "Java regular expressions differ from RE2 (DuckDB) and Joni (Trino)")
            elif isinstance(node, exp.Like):
                self._like(node)
            elif isinstance(
                node, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Add, exp.Sub, exp.Mul)
            ):
                self._implicit(node)
            if isinstance(node, exp.Func):
                self._function(node, allowed)
        return self.issues

    def _table(self, node: exp.Table) -> None:
        if isinstance(node.this, exp.Func):
            return
        parts = [p for p in node.parts if isinstance(p, exp.Identifier)]
        if len(node.parts) > 3 and self.dst in ("trino", "duckdb"):
            self.add(
                "nested-namespace", node, f"{self.dst} names have at most three parts (catalog.schema.table)"
            )
        elif (
            self.qualified
            and len(parts) < 3
            and self.dst in ("trino", "duckdb")
            and node.name
            and not self._is_cte(node)
        ):
            self.add(
                "unqualified-name",
                node,
                "the name is not fully qualified, so the target engine would resolve it with its own defaults",
            )
        if node.args.get("version") is not None:
            self.add("time-travel", node, "time travel is not translated")

    @staticmethod
    def _is_cte(node: exp.Table) -> bool:
        if node.args.get("db") or node.args.get("catalog"):
            return False
        name = node.name.lower()
        parent = node.parent
        while parent is not None:
            with_ = parent.args.get("with_") or parent.args.get("with")
            if isinstance(with_, exp.With) and any(
                c.alias_or_name.lower() == name for c in with_.expressions
            ):
                return True
            parent = parent.parent
        return False

    def _function(self, node: exp.Func, allowed: frozenset[str]) -> None:
        key = _func_key(node)
        if isinstance(node, exp.Anonymous):
            name = node.name.lower()
            code, reason = _REFUSED_ANONYMOUS.get(
                name, ("function", f"{name}() is not on the allow-list for {self.dst}")
            )
            self.add(code, node, reason)
            return
        refused = _REFUSED_FUNCTIONS.get(key)
        if refused is not None:
            self.add(refused[0], node, refused[1])
            return
        if key not in allowed:
            self.add("function", node, f"{node.sql_name().lower()}() is not on the allow-list for {self.dst}")
            return
        if isinstance(node, exp.Cast):
            self._cast(node)
        elif isinstance(node, (exp.DateTrunc, exp.TimestampTrunc)):
            unit = node.args.get("unit")
            # Spark's trunc(date, fmt) knows only year, quarter, month and week (other units give
            # NULL); date_trunc(fmt, ts) knows them all
            units = (
                _DATE_TRUNC_UNITS if isinstance(node, exp.DateTrunc) and self.src == "spark" else _TRUNC_UNITS
            )
            if not isinstance(unit, (exp.Literal, exp.Var)) or unit.name.upper() not in units:
                self.add(
                    "trunc-unit",
                    node,
                    f"the truncation unit must be one of {', '.join(sorted(units))}; sqlglot passes other spellings through unchanged",
                )
        elif isinstance(node, exp.TimeToStr):
            fmt = node.args.get("format")
            if self.src != "spark" or not isinstance(fmt, exp.Literal) or not _SAFE_FORMAT.match(fmt.name):
                self.add(
                    "date-format",
                    node,
                    "only date_format patterns made of yyyy, MM, dd, HH, mm, ss and separators are translated exactly",
                )
        elif isinstance(node, exp.Substring):
            start = node.args.get("start")
            if start is not None and not (
                isinstance(start, exp.Literal) and _INT_LITERAL.match(start.name) and int(start.name) > 0
            ):
                self.add(
                    "substring-position",
                    node,
                    "a start position that may be 0 or negative means different things in Spark and DuckDB/Trino",
                )
        elif isinstance(node, exp.Round):
            operand = _type_of(node.this)
            if operand is None or operand.this in _FLOATS:
                self.add(
                    "round-floating",
                    node,
                    "rounding a floating-point (or untyped) value: Spark rounds the decimal text HALF_UP, DuckDB and Trino round the binary value",
                )
        elif isinstance(node, exp.TsOrDsToDate):
            operand = _type_of(node.this)
            if (
                node.args.get("format") is not None
                or operand is None
                or operand.this
                not in ({_T.DATE, _T.TIMESTAMPNTZ} | ({_T.TIMESTAMP} if self.src != "spark" else set()))
            ):
                self.add(
                    "ansi-cast",
                    node,
                    "parsing text as a date fails in ANSI mode and returns NULL in legacy mode (and formats differ)",
                )
        elif isinstance(node, exp.Explode) and not isinstance(node.parent, exp.Lateral):
            self.add("explode", node, "explode() is translated only in LATERAL VIEW")
        elif isinstance(node, exp.Explode):
            t = _type_of(node.this)
            if t is None or t.this != _T.ARRAY:
                self.add("explode", node, "explode() of a map or an untyped value is not translated")
        elif isinstance(node, exp.ArrayAgg) and self.dst == "trino":
            self.add("function", node, "collect_list's NULL handling is not checked for Trino")
        elif isinstance(node, exp.ConcatWs) and self.dst == "trino":
            for arg in node.expressions[1:]:
                t = _type_of(arg)
                if t is None or t.this not in _TEXT:
                    self.add(
                        "concat-ws",
                        node,
                        "Trino's concat_ws takes only strings (arrays are flattened in Spark)",
                    )
                    break

    def _cast(self, node: exp.Cast) -> None:
        to = node.args.get("to")
        if not isinstance(to, exp.DataType):
            return
        operand = node.this
        explicit_try = isinstance(node, exp.TryCast) and bool(node.args.get("safe"))
        if isinstance(operand, exp.Null):
            return
        if isinstance(operand, exp.Literal):
            if not _literal_cast_is_safe(operand, to) and not explicit_try:
                self.add("ansi-cast", node, "the literal does not convert the same way in every engine")
            return
        frm = _type_of(operand)
        if frm is None:
            if explicit_try:
                self.add(
                    "cast-semantics",
                    node,
                    "the operand's type is unknown (pass the table schemas), so the conversion may differ between engines (e.g. double to int rounds in DuckDB and truncates in Spark)",
                )
            elif self.spark:
                self.add(
                    "ansi-cast",
                    node,
                    "the operand's type is unknown (pass the table schemas), so the cast may fail: Spark's ANSI mode raises, legacy mode returns NULL",
                )
            return
        value_issue = _cast_value_issue(frm, to)
        if value_issue is not None:
            self.add("cast-semantics", node, value_issue)
            return
        if self.spark and not explicit_try and not _cast_cannot_fail(frm, to):
            self.add(
                "ansi-cast",
                node,
                f"a cast from {frm.sql(self.src)} to {to.sql(self.src)} may fail: Spark's ANSI mode raises, legacy mode returns NULL",
            )

    def _division(self, node: exp.Binary) -> None:
        divisor = node.expression
        if _nonzero_literal(divisor) or _guarded_divisor(divisor):
            if self.src == "trino" and isinstance(node, exp.Div):
                self._integer_division(node)
            return
        if self.spark:
            self.add(
                "ansi-division",
                node,
                "a divisor that may be zero: Spark's ANSI mode raises, legacy mode returns NULL (write NULLIF(x, 0) to make it explicit)",
            )
        elif self.src == "trino" and isinstance(node, exp.Div):
            self._integer_division(node)

    def _integer_division(self, node: exp.Binary) -> None:
        a, b = _type_of(node.this), _type_of(node.expression)
        if a is None or b is None or (a.this in _INTEGERS and b.this in _INTEGERS):
            self.add("integer-division", node, "Trino's / truncates integers; DuckDB's and Spark's do not")

    def _like(self, node: exp.Like) -> None:
        pattern = node.expression
        if node.args.get("escape") is None and (not isinstance(pattern, exp.Literal) or "\\" in pattern.name):
            self.add(
                "like-escape",
                node,
                "Spark's LIKE escapes with a backslash by default, DuckDB's and Trino's have no default escape",
            )

    def _implicit(self, node: exp.Binary) -> None:
        a, b = _type_of(node.this), _type_of(node.expression)
        if a is None or b is None:
            return
        text_a, text_b = a.this in _TEXT, b.this in _TEXT
        if text_a != text_b:
            self.add(
                "implicit-cast",
                node,
                "comparing or combining text with another type relies on implicit conversions that differ between engines",
            )


def _spark_trunc_units(sql: str) -> list[TranslationIssue]:
    """``trunc``/``date_trunc`` units as written: sqlglot normalises some spellings on parsing (``'Q'``
    becomes ``QUARTER``) that Spark does not know (it returns NULL for them)."""
    from sqlglot.tokenizer_core import Token, TokenType

    try:
        tokens = sqlglot.Dialect.get_or_raise("spark").tokenize(sql)
    except SqlglotError:
        return []
    issues: list[TranslationIssue] = []
    for i, tok in enumerate(tokens[:-1]):
        name = tok.text.lower()
        if name not in ("trunc", "date_trunc") or tokens[i + 1].token_type != TokenType.L_PAREN:
            continue
        depth = 0
        args: list[list[Token]] = []
        current: list[Token] = []
        for t in tokens[i + 1 :]:
            if t.token_type == TokenType.L_PAREN:
                depth += 1
                if depth == 1:
                    continue
            elif t.token_type == TokenType.R_PAREN:
                depth -= 1
                if depth == 0:
                    break
            if depth == 1 and t.token_type == TokenType.COMMA:
                args.append(current)
                current = []
            else:
                current.append(t)
        args.append(current)
        unit_arg = args[-1] if name == "trunc" else args[0]
        units = _DATE_TRUNC_UNITS if name == "trunc" else _TRUNC_UNITS
        if len(unit_arg) == 1 and unit_arg[0].token_type == TokenType.STRING:
            unit = unit_arg[0].text
            if unit.upper() not in units:
                issues.append(
                    TranslationIssue(
                        "trunc-unit",
                        f"{name}(..., '{unit}')",
                        f"Spark's {name} does not know the unit '{unit}' (it returns NULL); units: {', '.join(sorted(units))}",
                    )
                )
    return issues


# --------------------------------------------------------------------------------------------------
# after generation: was anything dropped?


def _relations(tree: exp.Expr) -> list[str]:
    names = []
    for t in tree.find_all(exp.Table):
        if isinstance(t.this, exp.Func) or not t.name:
            continue
        names.append(".".join(p.name.lower() for p in t.parts))
    return sorted(names)


def _clauses(tree: exp.Expr) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for node in tree.find_all(
        exp.Where,
        exp.Group,
        exp.Having,
        exp.Order,
        exp.Limit,
        exp.Join,
        exp.Window,
        exp.Union,
        exp.Intersect,
        exp.Except,
        exp.Distinct,
    ):
        k = type(node).__name__
        counts[k] = counts.get(k, 0) + 1
    return sorted(counts.items())


_NOT_CALLS = (
    exp.Cast,
    exp.Case,
    exp.Paren,
    exp.Unnest,
    exp.Array,
    exp.Struct,
    exp.Extract,
    exp.Filter,
    exp.If,
    exp.Exists,
    exp.And,
    exp.Or,
    exp.Not,
)


def _compare(before: exp.Expr, after: exp.Expr, src: str, dst: str) -> list[TranslationIssue]:
    issues: list[TranslationIssue] = []
    construct = _short(before, src)
    if _relations(before) != _relations(after):
        issues.append(
            TranslationIssue(
                "dropped",
                construct,
                f"the {dst} output reads other relations ({', '.join(_relations(after))}) than the input ({', '.join(_relations(before))})",
            )
        )
    b, a = dict(_clauses(before)), dict(_clauses(after))
    # LATERAL VIEW becomes a join
    b_joins = b.get("Join", 0) + sum(1 for _ in before.find_all(exp.Lateral))
    for k in set(b) | set(a):
        want = b_joins if k == "Join" else b.get(k, 0)
        if a.get(k, 0) < want:
            issues.append(
                TranslationIssue(
                    "dropped", construct, f"the {dst} output has fewer {k} clauses than the input"
                )
            )
    if (
        isinstance(before, exp.Select)
        and isinstance(after, exp.Select)
        and len(before.expressions) != len(after.expressions)
    ):
        issues.append(
            TranslationIssue(
                "dropped",
                construct,
                f"the {dst} output has {len(after.expressions)} columns, the input {len(before.expressions)}",
            )
        )
    if dst == "trino":
        for f in after.find_all(exp.Func):
            if isinstance(f, _NOT_CALLS):
                continue
            name = (
                f.name.lower()
                if isinstance(f, exp.Anonymous)
                else f.sql(dialect="trino").split("(", 1)[0].strip().lower()
            )
            if name and re.fullmatch(r"[a-z_][a-z0-9_]*", name) and name not in TRINO_FUNCTIONS:
                issues.append(
                    TranslationIssue("unknown-function", _short(f, dst), f"{name}() is not a Trino function")
                )
    return issues


def provenance_summary(source: str) -> dict[str, str]:
    """The version-summary keys that record a translation: ``iceview.translated-from`` (the
    source dialect) and ``iceview.translator-version``."""
    return {PROVENANCE_KEY: source.lower(), PROVENANCE_VERSION_KEY: iceview.__version__}


def known_catalogs_of(*names: str | None, extra: Collection[str] = ()) -> frozenset[str]:
    """A set of catalog names for :func:`translate`'s ``known_catalogs``."""
    return frozenset(n for n in (*names, *extra) if n)


__all__ += ["TRINO_FUNCTIONS", "known_catalogs_of", "provenance_summary"]
