"""iceview.sql.ddl: Spark's view statements."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from iceview.errors import SQLParseError
from iceview.sql import (
    AlterViewAs,
    AlterViewRename,
    AlterViewSetProperties,
    AlterViewUnsetProperties,
    CreateView,
    DescribeView,
    DropView,
    ShowCreateTable,
    ShowTblProperties,
    ShowViews,
    ViewColumn,
    parse_statement,
    split_statements,
    unescape_spark_string,
)

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "golden" / "java-1.10.2"

SPEC_CREATE = """CREATE OR REPLACE VIEW event_agg (
    event_count COMMENT 'Count of events',
    event_date)
COMMENT 'Daily event counts'
AS
SELECT
    COUNT(1), CAST(event_ts AS DATE)
FROM events
GROUP BY 2"""


def test_spec_example_is_stored_verbatim() -> None:
    stmt = parse_statement(SPEC_CREATE)
    assert stmt == CreateView(
        name=("event_agg",),
        query="SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM events\nGROUP BY 2",
        columns=(ViewColumn("event_count", "Count of events"), ViewColumn("event_date", None)),
        comment="Daily event counts",
        properties={},
        or_replace=True,
        if_not_exists=False,
        query_offset=SPEC_CREATE.index("SELECT"),
    )
    assert isinstance(stmt, CreateView)
    # columns unpack as (name, comment) pairs
    assert [tuple(c) for c in stmt.columns] == [("event_count", "Count of events"), ("event_date", None)]
    assert SPEC_CREATE[stmt.query_offset :] == stmt.query


def _transcript_steps() -> dict[str, str]:
    text = (GOLDEN / "transcript.md").read_text()
    steps: dict[str, str] = {}
    for m in re.finditer(r"^## (\S+) \([^)]*\)\n\n```sql\n(.*?)\n```", text, re.S | re.M):
        steps[m.group(1)] = m.group(2)
    return steps


def _golden_creates() -> list[tuple[str, str]]:
    out = []
    for path in sorted(GOLDEN.glob("*-view-*-after-*.metadata.json")):
        step = path.name.split("-after-", 1)[1].removesuffix(".metadata.json")
        out.append((step, path.name))
    return out


@pytest.mark.parametrize(("step", "file"), _golden_creates())
def test_query_text_matches_what_iceberg_spark_stored(step: str, file: str) -> None:
    """Every CREATE in the Iceberg 1.10.2 / Spark 3.5.9 transcript: our query text is the stored SQL."""
    sql = _transcript_steps()[step]
    data = json.loads((GOLDEN / file).read_text())
    version = next(v for v in data["versions"] if v["version-id"] == data["current-version-id"])
    stored = version["representations"][0]["sql"]
    stmt = parse_statement(sql)
    if isinstance(stmt, CreateView):
        assert stmt.query == stored
    else:  # ALTER ... TBLPROPERTIES steps keep the SQL of the version before
        assert isinstance(stmt, (AlterViewSetProperties, AlterViewUnsetProperties))


def test_transcript_statements() -> None:
    steps = _transcript_steps()
    assert parse_statement(steps["alter-set-tblproperties"]) == AlterViewSetProperties(
        ("prod", "default", "event_agg"), {"owner-team": "analytics", "sla": "daily"}
    )
    assert parse_statement(steps["alter-unset-tblproperties"]) == AlterViewUnsetProperties(
        ("prod", "default", "event_agg"), ("sla",), False
    )
    assert parse_statement(steps["show-views"]) == ShowViews(("prod", "default"), None)
    assert parse_statement(steps["show-tblproperties"]) == ShowTblProperties(("prod", "default", "event_agg"))
    assert parse_statement(steps["describe"]) == DescribeView(("prod", "default", "event_agg"))
    assert parse_statement(steps["describe-extended"]) == DescribeView(
        ("prod", "default", "event_agg"), extended=True
    )
    assert parse_statement(steps["show-create-table"]) == ShowCreateTable(("prod", "default", "event_agg"))
    assert parse_statement(steps["rename-view"]) == AlterViewRename(
        ("prod", "other_db", "ids"), ("prod", "other_db", "ids_renamed")
    )
    assert parse_statement(steps["drop-view-nested"]) == DropView(("prod", "default", "event_agg_busy"))
    assert parse_statement(steps["drop-view-if-exists-missing"]) == DropView(
        ("prod", "default", "nope"), True
    )
    assert parse_statement(steps["create-view-if-not-exists-noop"]) == CreateView(
        ("event_agg",), "SELECT 1 AS x", if_not_exists=True, query_offset=39
    )
    stmt = parse_statement(steps["create-view-over-view"])
    assert isinstance(stmt, CreateView)
    assert stmt.columns == (ViewColumn("busy_date", "day with >1 event"), ViewColumn("n"))
    # not ours
    for step in (
        "create-namespace-default",
        "create-table-events",
        "insert-events",
        "use-prod.default",
        "select-view",
        "show-tables-after-drop",
    ):
        assert parse_statement(steps[step]) is None, step


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE VIEW v COMMENT 'c' TBLPROPERTIES ('a'='1') AS SELECT 1",
        "CREATE VIEW v TBLPROPERTIES ('a'='1') COMMENT 'c' AS SELECT 1",
        "create view v tblproperties ('a' '1') comment \"c\" as select 1",
        "CREATE VIEW v\n  -- a comment\n  TBLPROPERTIES ( 'a' = '1' )\n  /* another */ COMMENT 'c'\nAS   SELECT 1  ;",
    ],
)
def test_clause_order_and_layout(sql: str) -> None:
    stmt = parse_statement(sql)
    assert isinstance(stmt, CreateView)
    assert (stmt.comment, dict(stmt.properties), stmt.query.lower()) == ("c", {"a": "1"}, "select 1")


def test_create_variants() -> None:
    stmt = parse_statement(
        "CREATE VIEW IF NOT EXISTS `cat`.`my ns`.`we``ird` (`a b` COMMENT 'x', c) AS (SELECT 1, 2)"
    )
    assert isinstance(stmt, CreateView)
    assert stmt.name == ("cat", "my ns", "we`ird")
    assert stmt.columns == (ViewColumn("a b", "x"), ViewColumn("c"))
    assert stmt.if_not_exists and not stmt.or_replace
    assert stmt.query == "(SELECT 1, 2)"

    stmt = parse_statement("CREATE VIEW MixedCase.View_1 AS WITH x AS (SELECT 1) SELECT * FROM x")
    assert isinstance(stmt, CreateView)
    assert stmt.name == ("MixedCase", "View_1")
    assert stmt.query == "WITH x AS (SELECT 1) SELECT * FROM x"

    for query in ("VALUES (1, 2)", "FROM t SELECT a", "TABLE t", "select/*+ BROADCAST(t) */ * from t"):
        stmt = parse_statement(f"CREATE VIEW v AS {query}")
        assert isinstance(stmt, CreateView)
        assert stmt.query == query

    stmt = parse_statement("CREATE VIEW IDENTIFIER('cat.`a.b`.v') AS SELECT 1")
    assert isinstance(stmt, CreateView)
    assert stmt.name == ("cat", "a.b", "v")

    stmt = parse_statement(
        "CREATE VIEW v TBLPROPERTIES (a.b = 1, 'c' = true, d 2.5) WITH SCHEMA TYPE EVOLUTION AS SELECT 1"
    )
    assert isinstance(stmt, CreateView)
    assert dict(stmt.properties) == {"a.b": "1", "c": "true", "d": "2.5"}
    assert stmt.schema_binding == "TYPE EVOLUTION"


def test_query_text_keeps_inner_comments_and_drops_outer_ones() -> None:
    sql = "CREATE VIEW v AS /* before */ SELECT a -- inner\n, b /* x */ FROM t -- after\n;\n-- trailing\n"
    stmt = parse_statement(sql)
    assert isinstance(stmt, CreateView)
    assert stmt.query == "SELECT a -- inner\n, b /* x */ FROM t"
    # the stored text of a string literal, a backquoted name and a nested comment are kept as written
    sql = "CREATE VIEW v AS SELECT 'a;b\\'c', `x;y` /* a /* nested */ ; */ FROM t"
    stmt = parse_statement(sql)
    assert isinstance(stmt, CreateView)
    assert stmt.query == "SELECT 'a;b\\'c', `x;y` /* a /* nested */ ; */ FROM t"


def test_string_literal_escapes() -> None:
    stmt = parse_statement(
        "CREATE VIEW v (x COMMENT 'it\\'s \\u0041\\101 \\n\\t\\%\\_\\q', y COMMENT r'raw\\n', z COMMENT \"dq\\\"\") "
        "COMMENT 'tab\\there' AS SELECT 1, 2, 3"
    )
    assert isinstance(stmt, CreateView)
    assert stmt.columns == (
        ViewColumn("x", "it's AA \n\t\\%\\_q"),
        ViewColumn("y", "raw\\n"),
        ViewColumn("z", 'dq"'),
    )
    assert stmt.comment == "tab\there"
    assert unescape_spark_string("'\\U0001F600'") == "\U0001f600"
    assert unescape_spark_string("'\\0\\Z\\b'") == "\x00\x1a\b"
    assert unescape_spark_string("'\\200'") == "200"  # octal escapes stop at \177... as Spark's [01][0-7]{2}


def test_alter_and_other_statements() -> None:
    assert parse_statement("ALTER VIEW v AS SELECT 2") == AlterViewAs(("v",), "SELECT 2", 16)
    assert parse_statement("alter view a.v select 2") == AlterViewAs(("a", "v"), "select 2", 15)
    assert parse_statement("ALTER VIEW v SET TBLPROPERTIES ('k' = 'v', 'n' = 1)") == AlterViewSetProperties(
        ("v",), {"k": "v", "n": "1"}
    )
    assert parse_statement(
        "ALTER VIEW v UNSET TBLPROPERTIES IF EXISTS ('a', b.c)"
    ) == AlterViewUnsetProperties(("v",), ("a", "b.c"), True)
    assert parse_statement("ALTER VIEW v RENAME TO w") == AlterViewRename(("v",), ("w",))
    assert parse_statement("DROP VIEW v") == DropView(("v",))
    assert parse_statement("SHOW VIEWS") == ShowViews()
    assert parse_statement("SHOW VIEWS FROM cat.ns LIKE 'ev*'") == ShowViews(("cat", "ns"), "ev*")
    assert parse_statement("show views in ns 'a|b'") == ShowViews(("ns",), "a|b")
    assert parse_statement("DESC v") == DescribeView(("v",))
    assert parse_statement("DESCRIBE TABLE EXTENDED v") == DescribeView(("v",), extended=True)
    assert parse_statement("DESCRIBE FORMATTED a.b.c") == DescribeView(("a", "b", "c"), formatted=True)
    assert parse_statement("DESCRIBE v col") == DescribeView(("v",), column=("col",))
    assert parse_statement("DESCRIBE extended") == DescribeView(("extended",))
    assert parse_statement("SHOW CREATE TABLE cat.ns.v") == ShowCreateTable(("cat", "ns", "v"))
    assert parse_statement("SHOW TBLPROPERTIES v ('comment')") == ShowTblProperties(("v",), "comment")
    assert parse_statement("SHOW TBLPROPERTIES v (a.b)") == ShowTblProperties(("v",), "a.b")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "  -- comment\n WITH a AS (SELECT 1) SELECT * FROM a",
        "CREATE TEMPORARY VIEW v AS SELECT 1",
        "CREATE OR REPLACE TEMP VIEW v AS SELECT 1",
        "CREATE GLOBAL TEMPORARY VIEW v AS SELECT 1",
        "CREATE TABLE t (a INT)",
        "CREATE OR REPLACE TABLE t AS SELECT 1",
        "CREATE MATERIALIZED VIEW mv AS SELECT 1",
        "DROP TABLE t",
        "ALTER TABLE t RENAME TO u",
        "SHOW TABLES",
        "SHOW CREATE TABLE t AS SERDE",
        "DESCRIBE FUNCTION upper",
        "DESCRIBE DATABASE db",
        "DESCRIBE QUERY SELECT 1",
        "DESCRIBE SELECT 1",
        "DESCRIBE t PARTITION (a = 1)",
        "ALTER VIEW v WITH SCHEMA BINDING",
        "INSERT INTO t SELECT * FROM v",
        "EXPLAIN SELECT * FROM v",
        "USE cat.ns",
        "",
        "   ",
    ],
)
def test_not_view_statements(sql: str) -> None:
    assert parse_statement(sql) is None


@pytest.mark.parametrize(
    ("sql", "message", "pos"),
    [
        ("CREATE VIEW v (a, ) AS SELECT 1", "Syntax error at or near ')': expected a column name", 18),
        ("CREATE VIEW v () AS SELECT 1", "Syntax error at or near ')': expected a column name", 15),
        ("CREATE VIEW v (a b) AS SELECT 1", "Syntax error at or near 'b': expected ',' or ')'", 17),
        ("CREATE VIEW v (a, b AS SELECT 1", "Syntax error at or near 'AS': expected ',' or ')'", 20),
        ("CREATE VIEW v (a COMMENT) AS SELECT 1", "expected a string after COMMENT for column a", 24),
        ("CREATE VIEW v AS", "Syntax error at or near end of input: expected a query after AS", 16),
        ("CREATE VIEW v AS DROP TABLE t", "Syntax error at or near 'DROP': expected a query", 17),
        (
            "CREATE VIEW v SELECT 1",
            "Syntax error at or near 'SELECT': expected COMMENT, TBLPROPERTIES or AS",
            14,
        ),
        ("CREATE VIEW AS SELECT 1", "expected COMMENT, TBLPROPERTIES or AS", 15),
        # Spark reports these at the statement (or at the property list), after parsing it
        ("CREATE VIEW v COMMENT 'a' COMMENT 'b' AS SELECT 1", "Found duplicate clauses: COMMENT. Please", 0),
        (
            "CREATE VIEW v PARTITIONED ON (a) AS SELECT 1",
            "Operation not allowed: CREATE VIEW ... PARTITIONED ON.",
            0,
        ),
        (
            "CREATE OR REPLACE VIEW IF NOT EXISTS v AS SELECT 1",
            "CREATE VIEW with both IF NOT EXISTS and REPLACE is not allowed.",
            0,
        ),
        ("CREATE VIEW v TBLPROPERTIES ('a'='1', 'a'='2') AS SELECT 1", "Found duplicate keys `a`.", 28),
        (
            "CREATE VIEW v TBLPROPERTIES ('a') AS SELECT 1",
            "Operation not allowed: Values must be specified for key(s): [a]",
            28,
        ),
        (
            "ALTER VIEW v UNSET TBLPROPERTIES ('a' = '1')",
            "Operation not allowed: Values should not be specified for key(s): [a]",
            33,
        ),
        ("CREATE VIEW v AS SELECT 1; SELECT 2", "expected one statement", 27),
        ("CREATE VIEW v AS SELECT 'unterminated", "Unterminated literal or comment: missing closing '", 24),
        ("CREATE VIEW `v AS SELECT 1", "Unterminated literal or comment", 12),
        ("DROP VIEW", "Syntax error at or near end of input: expected a view name", 9),
        ("DROP VIEW v w", "Syntax error at or near 'w': expected end of statement", 12),
        ("ALTER VIEW v RENAME TO", "expected the new view name", 22),
        ("SHOW VIEWS IN", "expected a namespace", 13),
        ("SHOW VIEWS LIKE", "expected a pattern string after LIKE", 15),
        ("DROP VIEW a.", "expected a name part after '.'", 12),
        ("DROP VIEW a.'b'", "Syntax error at or near ''b'': expected a name part after '.'", 12),
    ],
)
def test_errors_name_the_problem_and_position(sql: str, message: str, pos: int) -> None:
    with pytest.raises(SQLParseError) as info:
        parse_statement(sql)
    err = info.value
    assert message in err.message
    assert (err.line, err.pos, err.offset) == (1, pos, pos)
    assert f"(line 1, pos {pos})" in str(err)
    assert isinstance(err, ValueError)


def test_error_position_on_later_line() -> None:
    with pytest.raises(SQLParseError) as info:
        parse_statement("CREATE VIEW v (\n  a COMMENT 'x',\n  ,b) AS SELECT 1")
    assert (info.value.line, info.value.pos) == (3, 2)


def test_split_statements() -> None:
    script = "SELECT ';' AS x; -- one\nCREATE VIEW v AS SELECT 1 /* ; */ ;;\n\n SHOW VIEWS ;EXPLAIN SELECT 2"
    parts = split_statements(script)
    assert [p.text for p in parts] == [
        "SELECT ';' AS x",
        "CREATE VIEW v AS SELECT 1",
        "SHOW VIEWS",
        "EXPLAIN SELECT 2",
    ]
    assert all(script[p.offset : p.offset + len(p.text)] == p.text for p in parts)
    assert split_statements("  -- nothing\n ; ;") == []


def test_lexical_errors_in_other_statements_are_not_ours() -> None:
    assert parse_statement("CREATE OR REPLACE TABLE t AS SELECT 'unterminated") is None
    assert parse_statement("CREATE OR REPLACE TEMP VIEW t AS SELECT 'unterminated") is None
    with pytest.raises(SQLParseError):
        parse_statement("CREATE OR REPLACE VIEW t AS SELECT 'unterminated")


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        # Spark 3.5.9's own messages for these statements (checked in the JVM)
        ("CREATE VIEW vüé AS SELECT 1", "Syntax error at or near 'ü'. (line 1, pos 13)"),
        ("CREATE VIEW sv.a.vüé AS SELECT 1", "Syntax error at or near 'ü'. (line 1, pos 18)"),
        ("CREATE VIEW sv.a.vé AS SELECT 1", "Syntax error at or near 'é': extra input 'é'. (line 1, pos 18)"),
        ("CREATE VIEW sv.a.ü AS SELECT 1", "Syntax error at or near 'ü'. (line 1, pos 17)"),
        ("DROP VIEW vüé", "Syntax error at or near 'ü'. (line 1, pos 11)"),
    ],
)
def test_unquoted_names_follow_sparks_lexer(sql: str, message: str) -> None:
    with pytest.raises(SQLParseError) as info:
        parse_statement(sql)
    assert str(info.value) == message


def test_quoted_non_ascii_names_are_names() -> None:
    stmt = parse_statement("CREATE VIEW sv.a.`vüé` (`cé`) AS SELECT 1")
    assert isinstance(stmt, CreateView)
    assert stmt.name == ("sv", "a", "vüé") and stmt.columns[0].name == "cé"
