"""Calls of catalog SQL UDFs inlined into an engine's SQL (iceview.sql.inline), without an engine:
which definition a call takes, the text that replaces it, and every refusal with its code.

What the inlined SQL returns is proven by running it: tests/duckdb/test_duckdb_functions.py
and tests/spark/test_spark_functions.py."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from iceview.errors import (
    AmbiguousFunctionCallError,
    FunctionInliningError,
    NoMatchingDefinitionError,
    SQLParseError,
)
from iceview.sql.inline import FunctionInliner, maybe_calls
from iceview.sql.udf_typing import UNKNOWN, literal_type
from iceview.udf import (
    DefinitionVersion,
    FunctionMetadata,
    FunctionMetadataBuilder,
    FunctionParameter,
    SQLRepresentation,
    parse_type,
)

CATALOG = "c"
NS = ("ns",)


def function(
    *definitions: tuple[Sequence[tuple[str, str]], Any, Mapping[str, str]], **options: Any
) -> FunctionMetadata:
    """A function of ``(parameters, return type, {dialect: body})`` definitions; ``options`` apply
    to every version (``on_null_input``), ``function_type`` to every definition."""
    builder = FunctionMetadataBuilder().set_location("s3://b/f")
    function_type = options.pop("function_type", "udf")
    for params, returns, bodies in definitions:
        version = DefinitionVersion(
            1,
            tuple(SQLRepresentation(d, s) for d, s in bodies.items()),
            int(time.time() * 1000),
            **options,
        )
        builder.add_definition(
            [FunctionParameter(n, parse_type(t)) for n, t in params],
            parse_type(returns),
            version,
            function_type=function_type,
        )
    return builder.build()


ADD_ONE = function(
    ([("x", "int")], "int", {"spark": "x + 1", "duckdb": "x + 1"}),
    ([("x", "long")], "long", {"spark": "x + 2", "duckdb": "x + 2"}),
    ([("x", "double")], "double", {"spark": "x + 1.5", "duckdb": "x + 1.5"}),
    ([("x", "decimal(10,2)")], "decimal(11,2)", {"spark": "x + 1", "duckdb": "x + 1"}),
)
FRUITS = {
    "type": "struct",
    "fields": [{"name": "name", "type": "string"}, {"name": "color", "type": "string"}],
}
FUNCTIONS: dict[tuple[str, ...], FunctionMetadata] = {
    (CATALOG, "ns", "add_one"): ADD_ONE,
    (CATALOG, "ns", "greet"): function(
        (
            [("name", "string"), ("n", "int")],
            "string",
            {"spark": "repeat(name, n)", "duckdb": "repeat(name, n)"},
        )
    ),
    (CATALOG, "ns", "strict_add"): function(
        ([("a", "int"), ("b", "int")], "int", {"spark": "a + b", "duckdb": "a + b"}),
        on_null_input="return-null",
    ),
    (CATALOG, "ns", "twice"): function(([("x", "double")], "double", {"spark": "x + x", "duckdb": "x + x"})),
    (CATALOG, "ns", "once"): function(([("x", "double")], "double", {"spark": "x * 2", "duckdb": "x * 2"})),
    (CATALOG, "ns", "wrap"): function(([("x", "int")], "int", {"spark": "add_one(x) * 2"})),
    (CATALOG, "ns", "loop"): function(([("x", "int")], "int", {"spark": "ns.loop(x)"})),
    (CATALOG, "ns", "ping"): function(([("x", "int")], "int", {"spark": "pong(x) + 1"})),
    (CATALOG, "ns", "pong"): function(([("x", "int")], "int", {"spark": "ping(x) + 1"})),
    (CATALOG, "ns", "inject"): function(([("x", "int")], "int", {"spark": "x FROM secret --"})),
    (CATALOG, "ns", "inject_trino"): function(([("x", "int")], "int", {"trino": "x FROM secret --"})),
    (CATALOG, "ns", "aliased"): function(([("x", "int")], "int", {"spark": "x + 1 AS y"})),
    (CATALOG, "ns", "agg"): function(([("x", "int")], "long", {"spark": "sum(x)"})),
    (CATALOG, "ns", "sub"): function(([("x", "int")], "long", {"spark": "(SELECT count(*) FROM t) + x"})),
    (CATALOG, "ns", "stray"): function(([("x", "int")], "int", {"spark": "x + y"})),
    (CATALOG, "ns", "two"): function(([("x", "int")], "int", {"spark": "x; SELECT 1"})),
    (CATALOG, "ns", "trino_only"): function(([("x", "double")], "double", {"trino": "x * 2"})),
    (CATALOG, "ns", "overflowing"): function(([("x", "int")], "int", {"trino": "x * 2"})),
    (CATALOG, "other", "f"): function(([("x", "int")], "int", {"spark": "x - 1", "duckdb": "x - 1"})),
    (CATALOG, "ns", "fruits_by_color"): function(
        ([("c", "string")], FRUITS, {"spark": "SELECT name, color FROM fruits WHERE color = c"}),
        function_type="udtf",
    ),
    (CATALOG, "ns", "shadowed"): function(
        ([("color", "string")], FRUITS, {"spark": "SELECT name, color FROM fruits WHERE color = color"}),
        function_type="udtf",
    ),
    (CATALOG, "ns", "starry"): function(
        ([("c", "string")], FRUITS, {"spark": "SELECT * FROM fruits WHERE color = c"}), function_type="udtf"
    ),
    (CATALOG, "ns", "unknown_source"): function(
        ([("c", "string")], FRUITS, {"spark": "SELECT name, color FROM mystery WHERE color = c"}),
        function_type="udtf",
    ),
    (CATALOG, "ns", "snowy"): function(
        ([("c", "string")], FRUITS, {"snowflake": "SELECT name, color FROM fruits WHERE color = c"}),
        function_type="udtf",
    ),
    (CATALOG, "ns", "nested_params"): function(
        (
            [("p", "int"), ("q", "long")],
            {"type": "struct", "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "long"}]},
            {
                "spark": "SELECT a, b FROM t WHERE a = p AND b > (SELECT max(b) - q FROM t AS u WHERE u.a <> p)"
            },
        ),
        function_type="udtf",
    ),
    (CATALOG, "ns", "bigger"): function(
        (
            [("n", "int")],
            {"type": "struct", "fields": [{"name": "b", "type": "int"}]},
            {"spark": "SELECT add_one(a) AS b FROM t WHERE a > n"},
        ),
        function_type="udtf",
    ),
    (CATALOG, "ns", "ratios"): function(
        (
            [("n", "int")],
            {"type": "struct", "fields": [{"name": "r", "type": "int"}]},
            {"spark": "SELECT a / n AS r FROM t"},
        ),
        function_type="udtf",
    ),
    (CATALOG, "ns", "long_ratios"): function(
        (
            [("n", "int")],
            {"type": "struct", "fields": [{"name": "r", "type": "int"}]},
            {
                "spark": "SELECT CAST((a + b + a + b + a + b + a + b + a + b + a + b + a) / n AS INT) AS r FROM t"
            },
        ),
        function_type="udtf",
    ),
    (CATALOG, "ns", "strict_fruits"): function(
        ([("c", "string")], FRUITS, {"spark": "SELECT name, color FROM fruits WHERE color = c"}),
        function_type="udtf",
        on_null_input="return-null",
    ),
}
TABLES = {
    ("t",): {"a": "int", "b": "bigint", "d": "decimal(10,2)", "x": "double", "s": "string", "dt": "date"},
    ("c", "ns", "t"): {"a": "int", "b": "bigint", "d": "decimal(10,2)", "x": "double", "s": "string"},
}
RELATIONS = {
    (CATALOG, "ns", "fruits"): {"name": "string", "color": "string"},
    (CATALOG, "ns", "t"): TABLES[("t",)],
}
SPARK_BUILTINS = frozenset({"repeat", "sum", "upper", "rand", "coalesce"})


def inliner(dialect: str = "spark", **overrides: Any) -> FunctionInliner:
    options: dict[str, Any] = {
        "known_catalogs": {CATALOG},
        "dialect": dialect,
        "column_types": lambda written: TABLES.get(tuple(written)),
        "relation_types": lambda qualified: RELATIONS.get(tuple(qualified)),
        "builtin": lambda name: name.lower() in SPARK_BUILTINS,
    }
    options.update(overrides)
    return FunctionInliner(lambda q: FUNCTIONS.get(tuple(q)), **options)


def inline(sql: str, dialect: str = "spark", **overrides: Any) -> str:
    return inliner(dialect, **overrides).inline(sql, catalog=CATALOG, namespace=NS)


def tables(sql: str, dialect: str = "spark", **overrides: Any) -> str:
    return inliner(dialect, **overrides).expand_tables(sql, catalog=CATALOG, namespace=NS)


def refused(code: str, sql: str, *, table: bool = False) -> str:
    with pytest.raises(FunctionInliningError) as e:
        (tables if table else inline)(sql)
    assert e.value.code == code, str(e.value)
    assert str(e.value).startswith(code + ": ")
    return str(e.value)


# ---------------------------------------------------------------------------------------------- resolution


@pytest.mark.parametrize(
    ("argument", "body", "cast"),
    [
        ("a", "+ 1", "INT"),  # int column: exact
        ("b", "+ 2", "BIGINT"),  # bigint: exact long
        ("x", "+ 1.5", "DOUBLE"),
        ("d", "+ 1", "DECIMAL(10, 2)"),
        ("1", "+ 1", "INT"),
        ("3000000000", "+ 2", "BIGINT"),  # past 32 bits: long
        ("1.25", "+ 1", "DECIMAL(10, 2)"),  # decimal(3,2) widens to decimal(10,2) only
        ("1e0", "+ 1.5", "DOUBLE"),
        ("CAST(a AS SMALLINT)", "+ 1", "INT"),  # smallint is Iceberg's int
        ("a + 1", "+ 1", "INT"),  # integer arithmetic keeps int
        ("a * b", "+ 2", "BIGINT"),  # int and long: long
        ("-5", "+ 1", "INT"),
        ("CAST(x AS FLOAT)", "+ 1.5", "DOUBLE"),  # float widens to double, nothing else
    ],
)
def test_the_definition_a_call_takes(argument: str, body: str, cast: str) -> None:
    out = inline(f"SELECT ns.add_one({argument}) AS r FROM t")
    assert f"CAST(({argument}) AS {cast}) {body}" in out, out


def test_an_int_column_prefers_long_to_decimal_and_double() -> None:
    only_wide = function(
        ([("x", "long")], "long", {"spark": "x"}),
        ([("x", "decimal(12,0)")], "decimal(12,0)", {"spark": "x"}),
        ([("x", "double")], "double", {"spark": "x"}),
    )
    out = FunctionInliner(lambda q: only_wide, known_catalogs={CATALOG}, dialect="spark").inline(
        "SELECT ns.f(CAST(a AS INT)) AS r", catalog=CATALOG, namespace=NS
    )
    assert out == "SELECT CAST((CAST((CAST(a AS INT)) AS BIGINT)) AS BIGINT) AS r"


def test_a_lossy_conversion_is_never_chosen() -> None:
    # a long into int, double or decimal(10,2) would lose values: no definition takes it but long's
    assert "AS BIGINT) + 2" in inline("SELECT ns.add_one(b) FROM t")
    with pytest.raises(NoMatchingDefinitionError, match=r"ns\.greet\(string, long\)"):
        inline("SELECT ns.greet(s, b) FROM t")
    with pytest.raises(NoMatchingDefinitionError):
        inline("SELECT ns.add_one(s) FROM t")  # a string is never cast to a number


def test_an_untyped_null_with_overloads_is_ambiguous_and_a_cast_decides() -> None:
    with pytest.raises(AmbiguousFunctionCallError):
        inline("SELECT ns.add_one(NULL)")
    assert "AS BIGINT) + 2" in inline("SELECT ns.add_one(CAST(NULL AS BIGINT))")
    # one definition only: NULL fits it
    assert inline("SELECT ns.once(NULL) AS r") == "SELECT CAST((CAST((NULL) AS DOUBLE) * 2) AS DOUBLE) AS r"


def test_named_arguments_take_the_definition_with_those_names_in_its_order() -> None:
    out = inline("SELECT ns.greet(n => 3, name => 'é') AS g")
    assert out == "SELECT CAST((REPEAT(CAST(('é') AS STRING), CAST((3) AS INT))) AS STRING) AS g"
    refused("UDF_CALL_FORM", "SELECT ns.greet('é', n => 3)")


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("0", "int"),
        ("2147483647", "int"),
        ("2147483648", "long"),
        ("9223372036854775807", "long"),
        ("9223372036854775808", "decimal(19,0)"),
        ("1.5", "decimal(2,1)"),
        ("0.05", "decimal(2,2)"),
        ("100.", "decimal(3,0)"),
        ("1e3", "double"),
        ("1.5E-2", "double"),
    ],
)
def test_literal_types_are_those_every_engine_gives(literal: str, expected: str) -> None:
    assert str(literal_type(exp.Literal.number(literal))) == expected


def test_a_literal_past_38_digits_has_no_type() -> None:
    assert literal_type(exp.Literal.number("1" * 39)) is UNKNOWN


# ---------------------------------------------------------------------------------------------- the text


def test_only_the_call_changes_and_a_projection_keeps_its_name() -> None:
    sql = "SELECT  a, /* keep */ ns.add_one(a), ns.add_one(a) AS named FROM t WHERE ns.add_one(a) > 1 -- tail"
    out = inline(sql)
    call = "CAST((CAST((a) AS INT) + 1) AS INT)"
    assert out == (
        f"SELECT  a, /* keep */ {call} AS `ns.add_one(a)`, {call} AS named FROM t WHERE {call} > 1 -- tail"
    )


def test_duckdb_spelling() -> None:
    out = inline("SELECT ns.add_one(d) FROM t", "duckdb")
    assert out == 'SELECT CAST((CAST((d) AS DECIMAL(10, 2)) + 1) AS DECIMAL(11, 2)) AS "ns.add_one(d)" FROM t'


def test_return_null_checks_every_argument_once() -> None:
    out = inline("SELECT ns.strict_add(a, 2) AS r FROM t")
    assert out == (
        "SELECT CAST((CASE WHEN (a) IS NULL OR (2) IS NULL THEN NULL ELSE (CAST((a) AS INT) + CAST((2) AS INT)) END)"
        " AS INT) AS r FROM t"
    )


def test_nested_calls_inline_innermost_first_and_bodies_resolve_in_their_namespace() -> None:
    out = inline("SELECT other.f(ns.add_one(a)) AS r FROM t")
    assert out == "SELECT CAST((CAST((CAST((CAST((a) AS INT) + 1) AS INT)) AS INT) - 1) AS INT) AS r FROM t"
    # wrap's body calls add_one by a one-part name: the function's namespace, not the caller's
    out = inliner().inline("SELECT ns.wrap(1) AS r", catalog=CATALOG, namespace=("other",))
    assert "+ 1" in out and "* 2" in out


def test_three_part_names_and_names_of_other_catalogs() -> None:
    assert "+ 1" in inline("SELECT c.ns.add_one(1) AS r")
    assert inline("SELECT spark_catalog.ns.add_one(1) AS r") == "SELECT spark_catalog.ns.add_one(1) AS r"


def test_one_part_names_are_builtins_first_and_only_with_a_builtin_test() -> None:
    assert "+ 1" in inline("SELECT add_one(1) AS r")
    assert inline("SELECT upper(s), rand() FROM t") == "SELECT upper(s), rand() FROM t"
    assert inline("SELECT add_one(1) AS r", builtin=None) == "SELECT add_one(1) AS r"
    shadow = inline("SELECT add_one(1) AS r", builtin=lambda name: name == "add_one")
    assert shadow == "SELECT add_one(1) AS r"


def test_a_body_in_another_dialect_is_translated_by_the_view_rules() -> None:
    out = inline("SELECT ns.trino_only(x) AS r FROM t")
    # the conversion to the return type is translated with the body (the source dialect's meaning)
    assert out == "SELECT CAST((CAST((CAST((x) AS DOUBLE) * 2) AS DOUBLE)) AS DOUBLE) AS r FROM t"
    # the translator's refusal is the call's: Trino raises on int overflow, legacy Spark wraps
    message = refused("UDF_BODY_TRANSLATION_REFUSED", "SELECT ns.overflowing(a) FROM t")
    assert "integer-overflow" in message and "__iceview" not in message


def test_maybe_calls_is_a_cheap_prefilter() -> None:
    assert maybe_calls("SELECT ns.f(1)")
    assert not maybe_calls("SELECT count(*), upper(a) FROM t WHERE a IN (1, 2)", one_part=True)
    assert maybe_calls("SELECT add_one(a) FROM t", one_part=True)
    assert not maybe_calls("SELECT add_one(a) FROM t")
    # a relation's column names after AS are no call (the expander writes AS "__v"("__c0", ...))
    assert not maybe_calls('SELECT * FROM (SELECT 1) AS "__v"("__c0")', "duckdb", one_part=True)
    assert not maybe_calls("SELECT * FROM (VALUES (1)) as  v(a)", "duckdb", one_part=True)
    assert maybe_calls('SELECT "add_one"(a) AS x FROM t', "duckdb", one_part=True)


# ---------------------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("code", "sql"),
    [
        ("UDF_ARGUMENT_UNTYPED", "SELECT ns.add_one(d * 2) FROM t"),  # decimal arithmetic: engines differ
        ("UDF_ARGUMENT_UNTYPED", "SELECT ns.add_one(x + 1) FROM t"),
        ("UDF_ARGUMENT_UNTYPED", "SELECT ns.add_one(zz) FROM unknown_table"),
        ("UDF_ARGUMENT_UNTYPED", "SELECT ns.add_one(CASE WHEN a > 0 THEN a ELSE 0 END) FROM t"),
        ("UDF_NONDETERMINISTIC_ARGUMENT", "SELECT ns.twice(CAST(rand() AS DOUBLE))"),
        ("UDF_NONDETERMINISTIC_ARGUMENT", "SELECT ns.strict_add(CAST(rand() * 10 AS INT), 1)"),
        ("UDF_BODY_UNSUPPORTED", "SELECT ns.agg(a) FROM t"),
        ("UDF_BODY_UNSUPPORTED", "SELECT ns.sub(a) FROM t"),
        ("UDF_BODY_UNSUPPORTED", "SELECT ns.two(a) FROM t"),
        ("UDF_BODY_UNSUPPORTED", "SELECT ns.inject(a) FROM t"),
        ("UDF_BODY_UNSUPPORTED", "SELECT ns.aliased(a) FROM t"),  # a body is one expression, nothing more
        ("UDF_BODY_UNSUPPORTED", "SELECT ns.inject_trino(a) FROM t"),
        ("UDF_BODY_UNKNOWN_NAME", "SELECT ns.stray(a) FROM t"),
        ("UDF_CALL_FORM", "SELECT ns.add_one(DISTINCT a) FROM t"),
        ("UDF_CALL_FORM", "SELECT ns.add_one(a) OVER (ORDER BY a) FROM t"),
        ("UDF_TABLE_FUNCTION", "SELECT ns.fruits_by_color('red')"),
        ("UDF_NESTING", "SELECT ns.loop(1)"),
        ("UDF_NESTING", "SELECT ns.ping(1)"),
    ],
)
def test_refusals_are_named(code: str, sql: str) -> None:
    refused(code, sql)


def test_a_nondeterministic_argument_read_once_is_inlined() -> None:
    assert "rand()" in inline("SELECT ns.once(CAST(rand() AS DOUBLE)) AS r")


def test_a_scalar_function_in_from_is_refused() -> None:
    refused("UDF_CALL_FORM", "SELECT * FROM ns.add_one(1)", table=True)


def test_a_function_without_a_body_for_any_dialect_is_refused() -> None:
    bodyless = function(([("x", "int")], "int", {"snowflake": "x"}))
    with pytest.raises(FunctionInliningError) as e:
        FunctionInliner(lambda q: bodyless, known_catalogs={CATALOG}, dialect="duckdb").inline(
            "SELECT ns.f(1)", catalog=CATALOG, namespace=NS
        )
    assert e.value.code in ("UDF_BODY_TRANSLATION_REFUSED", "UDF_NO_DIALECT")


def test_sql_that_does_not_parse_is_a_parse_error() -> None:
    with pytest.raises(SQLParseError):
        inline("SELECT ns.add_one(1 FROM")


# ---------------------------------------------------------------------------------------------- table functions


def test_a_table_function_becomes_a_subquery_of_its_body() -> None:
    out = tables("SELECT * FROM ns.fruits_by_color('red') ORDER BY name")
    assert out == (
        "SELECT * FROM (SELECT CAST(`__c0` AS STRING) AS `name`, CAST(`__c1` AS STRING) AS `color` FROM (\n"
        "SELECT name, color FROM c.ns.fruits WHERE color = CAST(('red') AS STRING)\n"
        ") AS `__f`(`__c0`, `__c1`)) AS `fruits_by_color` ORDER BY name"
    )
    aliased = tables("SELECT f.name FROM fruits_by_color('red') AS f")
    assert aliased.endswith(") AS `__f`(`__c0`, `__c1`)) AS f")


def test_a_table_function_with_return_null_returns_no_rows_for_a_null_argument() -> None:
    out = tables("SELECT * FROM ns.strict_fruits(CAST(NULL AS STRING)) AS f")
    assert "WHERE NOT ((CAST(NULL AS STRING)) IS NULL))" in out


def test_lateral_table_function() -> None:
    out = tables("SELECT t.s, x.name FROM t, LATERAL ns.fruits_by_color(t.s) AS x")
    assert "LATERAL (SELECT CAST(`__c0` AS STRING) AS `name`" in out
    assert "CAST((t.s) AS STRING)" in out and out.endswith(") AS x")


def test_a_column_of_the_body_wins_over_a_parameter_of_its_name() -> None:
    # the spec's own example shape: 'color = color' compares the column with itself
    out = tables("SELECT * FROM ns.shadowed('red')")
    assert "WHERE color = color" in out


@pytest.mark.parametrize(
    ("code", "sql"),
    [
        ("UDF_BODY_UNSUPPORTED", "SELECT * FROM ns.starry('red')"),  # width not visible
        ("UDF_PARAMETER_AMBIGUOUS", "SELECT * FROM ns.unknown_source('red')"),
        ("UDF_ARGUMENT_UNTYPED", "SELECT * FROM ns.fruits_by_color(x * 2) AS f, t"),
    ],
)
def test_table_function_refusals(code: str, sql: str) -> None:
    refused(code, sql, table=True)


def test_a_table_function_without_a_body_any_engine_reads_is_refused() -> None:
    with pytest.raises(FunctionInliningError) as e:
        tables("SELECT * FROM ns.snowy('red')", "duckdb")
    # snowflake is no dialect the translator reads
    assert e.value.code == "UDF_BODY_TRANSLATION_REFUSED", str(e.value)
    assert "The snowflake body of table function ns.snowy(string) cannot be translated to duckdb" in str(
        e.value
    )


@pytest.mark.parametrize(
    ("dialect", "where"),
    [
        ("duckdb", "WHERE fruits.color = CAST(('red') AS VARCHAR)"),
        ("trino", "WHERE color = CAST(('red') AS VARCHAR)"),
    ],
)
def test_a_table_function_body_of_another_dialect_is_translated(dialect: str, where: str) -> None:
    out = tables("SELECT * FROM ns.fruits_by_color('red') AS f", dialect)
    assert out.startswith('SELECT * FROM (SELECT CAST("__c0" AS VARCHAR) AS "name"'), out
    assert f"FROM c.ns.fruits AS fruits {where}\n" in out, out
    assert "__iceview_args" not in out and "__a0" not in out


def test_a_translated_table_body_keeps_its_columns_over_parameters_of_their_name() -> None:
    out = tables("SELECT * FROM ns.shadowed('red')", "duckdb")
    assert "WHERE fruits.color = fruits.color" in out and "'red'" not in out


def test_a_translated_table_body_reads_each_parameter_where_it_did() -> None:
    # a parameter in a nested scope and twice: each use becomes the argument, nothing else does
    out = tables("SELECT * FROM t, LATERAL ns.nested_params(t.a, 3) AS n", "duckdb", spark_ansi=True)
    # t.a names a relation of the body too: the arguments are computed beside it and read by name
    assert 'CAST((t.a) AS INTEGER) AS "__a0", CAST((3) AS BIGINT) AS "__a1"' in out, out
    assert out.count('."__a0"') == 2 and out.count('."__a1"') == 1, out
    assert "WHERE u.a <> " in out and '__iceview_args"' not in out


def test_calls_in_a_table_body_of_another_dialect_are_inlined_before_it_is_translated() -> None:
    inliner_ = inliner("duckdb", spark_ansi=True)
    out = inliner_.expand_tables("SELECT * FROM ns.bigger(2) AS f", catalog=CATALOG, namespace=NS)
    assert "add_one" not in out and "TRY_CAST((t.a) AS INT) + 1) AS INT) AS b" in out, out
    assert {(u.function[-1], u.definition_id) for u in inliner_.used} == {
        ("add_one", "int"),
        ("bigger", "int"),
    }


@pytest.mark.parametrize("function", ["ratios", "long_ratios"])
def test_a_table_body_the_translator_refuses_is_refused_with_its_codes(function: str) -> None:
    with pytest.raises(FunctionInliningError) as e:
        tables(f"SELECT * FROM ns.{function}(2) AS r", "duckdb", spark_ansi=True)
    assert e.value.code == "UDF_BODY_TRANSLATION_REFUSED"
    message = str(e.value)
    # the parameter's name stands where the translator quoted it, even in a construct it cut short
    assert "ansi-division" in message and "/ n" in message, message
    assert "__iceview" not in message and "__a0" not in message, message


# ---------------------------------------------------------------------------------------------- generated calls


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "b", "x", "d", "1", "2.50", "CAST(NULL AS INT)", "ns.add_one(a)"]),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["spark", "duckdb"]),
)
def test_every_call_is_replaced_and_the_rest_kept(arguments: list[str], dialect: str) -> None:
    """However calls nest and mix, none is left, each argument is cast to the parameter type the
    resolution chose, and the text around them is kept."""
    calls = [f"ns.add_one({a})" for a in arguments]
    sql = "SELECT " + ", ".join(f"{c} AS r{i}" for i, c in enumerate(calls)) + " FROM t WHERE a = 1"
    out = inline(sql, dialect)
    assert "add_one" not in out
    assert out.startswith("SELECT CAST((") and out.endswith(" FROM t WHERE a = 1")
    assert [f"AS r{i}" in out for i in range(len(calls))] == [True] * len(calls)


def test_columns_of_a_derived_table_are_typed_without_any_known_table() -> None:
    sql = "SELECT ns.add_one(i1) AS r FROM (SELECT CAST(NULL AS BIGINT) AS i1) AS v"
    assert "AS BIGINT) + 2" in inline(sql, column_types=None)


def test_a_nested_projection_is_named_after_the_call_as_written() -> None:
    out = inline("SELECT ns.add_one(ns.add_one(a)) FROM t")
    assert out.endswith(" AS `ns.add_one(ns.add_one(a))` FROM t") and out.count(" AS `") == 1


def test_a_body_that_calls_a_missing_function_is_refused_by_name() -> None:
    missing = function(([("x", "int")], "int", {"spark": "gone(x) + 1"}))
    functions = {(CATALOG, "ns", "fm"): missing}
    inliner = FunctionInliner(
        lambda q: functions.get(tuple(q)),
        known_catalogs={CATALOG},
        dialect="spark",
        builtin=lambda name: name in SPARK_BUILTINS,
    )
    with pytest.raises(FunctionInliningError) as e:
        inliner.inline("SELECT ns.fm(1)", catalog=CATALOG, namespace=NS)
    assert e.value.code == "UDF_NO_SUCH_FUNCTION" and "c.ns.gone" in str(e.value)


def test_functions_that_call_each_other_many_times_are_bounded() -> None:
    fan = {(CATALOG, "ns", "f0"): function(([("x", "int")], "int", {"spark": "x + 1"}))}
    for k in range(1, 12):
        body = " + ".join([f"f{k - 1}(x)"] * 4)
        fan[(CATALOG, "ns", f"f{k}")] = function(([("x", "int")], "int", {"spark": body}))
    with pytest.raises(FunctionInliningError) as e:
        FunctionInliner(
            lambda q: fan.get(tuple(q)), known_catalogs={CATALOG}, dialect="spark", builtin=lambda n: False
        ).inline("SELECT ns.f11(1)", catalog=CATALOG, namespace=NS)
    assert e.value.code == "UDF_NESTING"
