"""Spark's lexer rules for names (``iceview.sql._spark_lexer``) and the query forms that read
relations: digit-first names, ``IDENTIFIER('...')`` after a comma of a ``FROM`` list, and ``TABLE v``
as the source of ``INSERT`` / ``CREATE TABLE ... AS``. The expected tokens and messages are Spark
3.5.9's (``parseMultipartIdentifier`` and ``spark.sql`` in the JVM)."""

from __future__ import annotations

import pytest
from pyiceberg.types import LongType, StringType

from iceview.errors import SQLParseError
from iceview.sql import CreateView, DropView, expand, find_references, parse_statement, qualify
from iceview.sql._spark_lexer import is_spark_identifier, spark_token
from iceview.sql.ddl import SparkSyntaxError

from .views_support import Views


@pytest.mark.parametrize(
    ("text", "kind", "token"),
    [
        ("1v", "word", "1v"),
        ("1e3x", "word", "1e3x"),
        ("1e", "word", "1e"),
        ("1dx", "word", "1dx"),
        ("1bdx", "word", "1bdx"),
        ("1b", "word", "1b"),
        ("1_000", "word", "1_000"),
        ("0x1f", "word", "0x1f"),
        ("_1", "word", "_1"),
        ("123", "number", "123"),
        ("1e3", "number", "1e3"),
        ("1E3", "number", "1E3"),
        ("1e+3", "number", "1e+3"),
        ("1e-3x", "number", "1e-3"),
        ("1d", "number", "1d"),
        ("1f", "number", "1f"),
        ("1s", "number", "1s"),
        ("1y", "number", "1y"),
        ("1l", "number", "1l"),
        ("1bd", "number", "1bd"),
        ("1e3bd", "number", "1e3bd"),
        ("1.5", "number", "1.5"),
        ("1.", "number", "1."),
        ("12.x", "number", "12"),  # the decimal needs no letter after it
        ("1.5x", "number", "1"),
        (".1 ", "number", ".1"),
        (".1e3d", "number", ".1e3d"),
        (".1v", "dot", "."),
        ("`a``b`", "quoted", "`a``b`"),
        ("$", "other", "$"),
        ("é", "other", "é"),
        ("<=x", "op", "<="),
        ("-w", "minus", "-"),
        ("  -- c\n /* a /* nested */ b */ x", "word", "x"),
        ("", "eof", ""),
    ],
)
def test_tokens_as_sparks_lexer_reads_them(text: str, kind: str, token: str) -> None:
    tok = spark_token(text, 0)
    assert (tok.kind, tok.text) == (kind, token)


def test_is_spark_identifier() -> None:
    assert is_spark_identifier("1v") and is_spark_identifier("a_1")
    assert not is_spark_identifier("123") and not is_spark_identifier("v$") and not is_spark_identifier("vé")


@pytest.mark.parametrize(
    ("sql", "name"),
    [
        ("CREATE VIEW 1v AS SELECT 1", ("1v",)),
        ("CREATE VIEW ns.1e3x AS SELECT 1", ("ns", "1e3x")),
        ("CREATE VIEW ns.1_ AS SELECT 1", ("ns", "1_")),
        ("CREATE VIEW cat.ns.1dx AS SELECT 1", ("cat", "ns", "1dx")),
        ("CREATE VIEW ns . v1 AS SELECT 1", ("ns", "v1")),
        ("CREATE VIEW ns.`1` AS SELECT 1", ("ns", "1")),
    ],
)
def test_digit_first_names_are_names(sql: str, name: tuple[str, ...]) -> None:
    stmt = parse_statement(sql)
    assert isinstance(stmt, CreateView) and stmt.name == name and stmt.query == "SELECT 1"


def test_digit_first_column_names_and_drop() -> None:
    stmt = parse_statement("CREATE VIEW v (1c COMMENT 'x', `2d`) AS SELECT 1, 2")
    assert isinstance(stmt, CreateView)
    assert [c.name for c in stmt.columns] == ["1c", "2d"]
    assert parse_statement("DROP VIEW ns.1v") == DropView(("ns", "1v"), False)


@pytest.mark.parametrize(
    ("sql", "message", "error_class"),
    [
        # numbers where a name goes
        ("CREATE VIEW 123 AS SELECT 1", "Syntax error at or near '123'. (line 1, pos 12)", None),
        ("CREATE VIEW 1e3 AS SELECT 1", "Syntax error at or near '1e3'. (line 1, pos 12)", None),
        ("CREATE VIEW 1d AS SELECT 1", "Syntax error at or near '1d'. (line 1, pos 12)", None),
        ("CREATE VIEW 1L AS SELECT 1", "Syntax error at or near '1L'. (line 1, pos 12)", None),
        ("CREATE VIEW 1e+3 AS SELECT 1", "Syntax error at or near '1e+3'. (line 1, pos 12)", None),
        ("CREATE VIEW 1.5 AS SELECT 1", "Syntax error at or near '1.5'. (line 1, pos 12)", None),
        ("CREATE VIEW dv.ns.1L AS SELECT 1", "Syntax error at or near '1L'. (line 1, pos 18)", None),
        # a decimal takes the dot: `ns.123` is `ns` and `.123`
        (
            "CREATE VIEW dv.ns.123 AS SELECT 1",
            "Syntax error at or near '.123': extra input '.123'. (line 1, pos 17)",
            None,
        ),
        (
            "CREATE VIEW dv.ns.1d AS SELECT 1",
            "Syntax error at or near '.1d': extra input '.1d'. (line 1, pos 17)",
            None,
        ),
        ("DROP VIEW dv.ns.1.5", "Syntax error at or near '.1'. (line 1, pos 15)", None),
        ("ALTER VIEW dv.ns.123 RENAME TO dv.ns.x", "Syntax error at or near '.123'. (line 1, pos 16)", None),
        # characters Spark has no token for; "extra input" when leaving it out would parse
        (
            "CREATE VIEW v$ AS SELECT 1",
            "Syntax error at or near '$': extra input '$'. (line 1, pos 13)",
            None,
        ),
        (
            "CREATE VIEW dv.ns.v$ (a) AS SELECT 1",
            "Syntax error at or near '$': extra input '$'. (line 1, pos 19)",
            None,
        ),
        (
            "CREATE VIEW dv.ns.v $ AS SELECT 1",
            "Syntax error at or near '$': extra input '$'. (line 1, pos 20)",
            None,
        ),
        (
            "CREATE VIEW dv.ns.v<= AS SELECT 1",
            "Syntax error at or near '<=': extra input '<='. (line 1, pos 19)",
            None,
        ),
        ("CREATE VIEW dv.ns.a$b AS SELECT 1", "Syntax error at or near '$'. (line 1, pos 19)", None),
        ("CREATE VIEW dv.ns.v$$ AS SELECT 1", "Syntax error at or near '$'. (line 1, pos 19)", None),
        ("CREATE VIEW dv.ns.v$ . x AS SELECT 1", "Syntax error at or near '$'. (line 1, pos 19)", None),
        ("CREATE VIEW $v AS SELECT 1", "Syntax error at or near '$'. (line 1, pos 12)", None),
        (
            "CREATE VIEW dv.ns.v? AS SELECT 1",
            "Syntax error at or near '?': extra input '?'. (line 1, pos 19)",
            None,
        ),
        ("DROP VIEW dv.ns.v$", "Syntax error at or near '$': extra input '$'. (line 1, pos 17)", None),
        ("DROP VIEW dv.ns.v$;", "Syntax error at or near '$': extra input '$'. (line 1, pos 17)", None),
        ("DROP VIEW dv.ns.v$ IF", "Syntax error at or near '$'. (line 1, pos 17)", None),
        (
            "DROP VIEW IF EXISTS dv.ns.v$",
            "Syntax error at or near '$': extra input '$'. (line 1, pos 27)",
            None,
        ),
        # ALTER VIEW's form is known only after the name: no "extra input" there
        ("ALTER VIEW dv.ns.v$ RENAME TO dv.ns.w", "Syntax error at or near '$'. (line 1, pos 18)", None),
        (
            "ALTER VIEW dv.ns.v$ SET TBLPROPERTIES ('a'='b')",
            "Syntax error at or near '$'. (line 1, pos 18)",
            None,
        ),
        (
            "ALTER VIEW dv.ns.cm RENAME TO dv.ns.w$",
            "Syntax error at or near '$': extra input '$'. (line 1, pos 37)",
            None,
        ),
        ("ALTER VIEW dv.ns.cm RENAME TO dv.ns.1L", "Syntax error at or near '1L'. (line 1, pos 36)", None),
        # view columns
        (
            "CREATE VIEW dv.ns.x (a, b$) AS SELECT 1, 2",
            "Syntax error at or near '$': extra input '$'. (line 1, pos 25)",
            None,
        ),
        (
            "CREATE VIEW dv.ns.x (a COMMENT 'c', b$) AS SELECT 1, 2",
            "Syntax error at or near '$': extra input '$'. (line 1, pos 37)",
            None,
        ),
        (
            "CREATE VIEW dv.ns.x (a, 1e3) AS SELECT 1, 2",
            "Syntax error at or near '1e3'. (line 1, pos 24)",
            None,
        ),
        (
            "CREATE VIEW dv.ns.x (a, .5) AS SELECT 1, 2",
            "Syntax error at or near '.5'. (line 1, pos 24)",
            None,
        ),
        ("CREATE VIEW dv.ns.x (a-b) AS SELECT 1", "Syntax error at or near '-'. (line 1, pos 22)", None),
        # a-b: Spark's INVALID_IDENTIFIER, at the '-'
        (
            "CREATE VIEW dv.ns.v-w AS SELECT 1",
            "The identifier v-w is invalid. Please, consider quoting it with back-quotes as `v-w`. (line 1, pos 19)",
            "INVALID_IDENTIFIER",
        ),
        (
            "CREATE VIEW dv.ns.`v`-w AS SELECT 1",
            "The identifier v-w is invalid. Please, consider quoting it with back-quotes as `v-w`. (line 1, pos 21)",
            "INVALID_IDENTIFIER",
        ),
        (
            "CREATE VIEW dv.ns.v - w-z AS SELECT 1",
            "The identifier v-w-z is invalid. Please, consider quoting it with back-quotes as `v-w-z`. (line 1, pos 20)",
            "INVALID_IDENTIFIER",
        ),
        ("CREATE VIEW dv.ns.v-1 AS SELECT 1", "Syntax error at or near '-'. (line 1, pos 19)", None),
        (
            "DROP VIEW a.b-c.d",
            "The identifier b-c is invalid. Please, consider quoting it with back-quotes as `b-c`. (line 1, pos 13)",
            "INVALID_IDENTIFIER",
        ),
        (
            "ALTER VIEW dv.ns.v1 RENAME TO dv.ns.v-w",
            "The identifier v-w is invalid. Please, consider quoting it with back-quotes as `v-w`. (line 1, pos 37)",
            "INVALID_IDENTIFIER",
        ),
        # the other errors of Spark's parser for view statements, with Spark's classes
        (
            "CREATE VIEW v TBLPROPERTIES ('a') AS SELECT 1",
            "Operation not allowed: Values must be specified for key(s): [a]. (line 1, pos 28)",
            "_LEGACY_ERROR_TEMP_0035",
        ),
        (
            "CREATE OR REPLACE VIEW IF NOT EXISTS v AS SELECT 1",
            "CREATE VIEW with both IF NOT EXISTS and REPLACE is not allowed. (line 1, pos 0)",
            "_LEGACY_ERROR_TEMP_0052",
        ),
        (
            "CREATE VIEW v TBLPROPERTIES ('a.b'='1', 'a.b'='2') AS SELECT 1",
            "Found duplicate keys `a`.`b`. (line 1, pos 28)",
            "DUPLICATE_KEY",
        ),
    ],
)
def test_errors_are_sparks(sql: str, message: str, error_class: str | None) -> None:
    with pytest.raises(SparkSyntaxError) as info:
        parse_statement(sql)
    assert str(info.value) == message
    assert info.value.error_class == (error_class or "PARSE_SYNTAX_ERROR")
    assert isinstance(info.value, SQLParseError)


def test_a_syntax_error_wins_over_invalid_identifier() -> None:
    """Spark's parser reports syntax errors before its AST builder checks ``a-b``."""
    with pytest.raises(SparkSyntaxError) as info:
        parse_statement("CREATE VIEW v-w (a$) AS SELECT 1")
    assert info.value.error_class == "PARSE_SYNTAX_ERROR"
    # a statement that is not ours keeps its name for Spark
    assert parse_statement("ALTER VIEW v-w ADD COLUMNS (x int)") is None


# ------------------------------------------------------------------------------ query forms


@pytest.mark.parametrize(
    ("sql", "names"),
    [
        ("SELECT * FROM t, IDENTIFIER('v')", [("t",), ("v",)]),
        (
            "SELECT * FROM t AS a JOIN u ON a.x = u.x, IDENTIFIER('ns.v') w WHERE 1 IN (1, 2)",
            [("t",), ("u",), ("ns", "v")],
        ),
        ("SELECT * FROM (SELECT a, IDENTIFIER('c') FROM t), IDENTIFIER('v')", [("t",), ("v",)]),
        ("SELECT * FROM range(1, 2), IDENTIFIER('`a.b`.v')", [("a.b", "v")]),
        ("INSERT INTO t SELECT * FROM a, IDENTIFIER('b')", [("a",), ("b",)]),
        ("SELECT * FROM dv.ns.1v, 1e3x", [("dv", "ns", "1v"), ("1e3x",)]),
        ("INSERT INTO t TABLE s", [("s",)]),
        ("INSERT INTO TABLE t TABLE ns.s", [("ns", "s")]),
        ("INSERT INTO t (a, b) TABLE s", [("s",)]),
        ("INSERT OVERWRITE t TABLE s", [("s",)]),
        ("INSERT INTO t BY NAME TABLE s", [("s",)]),
        ("CREATE TABLE x AS TABLE s", [("s",)]),
    ],
)
def test_references_of_sparks_forms(sql: str, names: list[tuple[str, ...]]) -> None:
    assert [r.parts for r in find_references(sql)] == names


def test_identifier_outside_a_from_list_is_not_a_relation() -> None:
    # IDENTIFIER('c') names a column in a select list, a GROUP BY, ... : not a relation
    assert [r.parts for r in find_references("SELECT IDENTIFIER('c'), x FROM t")] == [("t",)]
    assert [r.parts for r in find_references("SELECT a FROM t GROUP BY a, IDENTIFIER('b')")] == [("t",)]


def test_identifier_span_covers_the_call() -> None:
    sql = "SELECT * FROM t, IDENTIFIER('ns.v') AS x"
    ref = find_references(sql)[1]
    assert sql[ref.start : ref.end] == "IDENTIFIER('ns.v')"  # type: ignore[misc]
    assert ref.alias == "x"


def test_qualify_comma_identifier_and_digit_names() -> None:
    out = qualify(
        "SELECT * FROM t, IDENTIFIER('b') JOIN 1v ON true",
        default_catalog="c",
        default_namespace=["n"],
        known_catalogs={"c"},
    )
    assert out == "SELECT * FROM c.n.t, c.n.b JOIN c.n.`1v` ON true"


def _views() -> Views:
    views = Views()
    views.add("prod.db.base", "SELECT id, s FROM prod.db.tbl", [("id", LongType()), ("s", StringType())])
    views.add(
        "prod.db.1v",
        "SELECT b.id, b.s FROM 1e3x AS x, IDENTIFIER('base') AS b WHERE x.id = b.id",
        [("id", LongType()), ("s", StringType())],
    )
    return views


@pytest.mark.parametrize(
    ("sql", "expected_start"),
    [
        (
            "SELECT * FROM t, IDENTIFIER('prod.db.base') b",
            "SELECT * FROM t, (SELECT CAST(`__c0` AS BIGINT) AS `id`",
        ),
        (
            "INSERT INTO t TABLE prod.db.base",
            "INSERT INTO t SELECT * FROM (SELECT CAST(`__c0` AS BIGINT) AS `id`",
        ),
        ("INSERT INTO TABLE t TABLE base", "INSERT INTO TABLE t SELECT * FROM (SELECT CAST("),
        ("CREATE TABLE x AS TABLE db.base", "CREATE TABLE x AS SELECT * FROM (SELECT CAST("),
    ],
)
def test_forms_expand(sql: str, expected_start: str) -> None:
    out = expand(
        sql,
        resolve=_views().resolver,
        current_catalog="prod",
        current_namespace=["db"],
        known_catalogs={"prod"},
    )
    assert out.startswith(expected_start)
    assert "prod.db.tbl" in out and "base" not in out.replace("AS `base`", "")


def test_digit_view_with_comma_identifier_expands_with_its_own_namespace() -> None:
    views = _views()
    out = expand(
        "SELECT * FROM prod.db.1v",
        resolve=views.resolver,
        current_catalog="prod",
        current_namespace=["x"],
        known_catalogs={"prod"},
    )
    assert views.calls[:1] == [("prod", "db", "1v")]
    assert ("prod", "db", "base") in views.calls  # IDENTIFIER('base') in the view: the view's namespace
    assert "prod.db.`1e3x` AS x" in out and "AS `1v`" in out and "prod.db.tbl" in out
