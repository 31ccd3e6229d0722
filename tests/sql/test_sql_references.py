"""iceview.sql.references: relation names of a query, with CTE scoping."""

from __future__ import annotations

import pytest

from iceview.errors import SQLParseError
from iceview.sql import FunctionCall, find_function_calls, find_references
from sql.conftest import TPCH_QUERIES


def names(sql: str, dialect: str = "spark", **kw: bool) -> list[tuple[str, ...]]:
    return [r.parts for r in find_references(sql, dialect, **kw)]


def test_from_join_and_parts() -> None:
    sql = "SELECT * FROM t JOIN ns.u AS x ON t.a = x.a LEFT JOIN cat.ns.v ON true, `c`.`n1`.`n2`.`w w`"
    refs = find_references(sql)
    assert [r.parts for r in refs] == [("t",), ("ns", "u"), ("cat", "ns", "v"), ("c", "n1", "n2", "w w")]
    assert [r.alias for r in refs] == [None, "x", None, None]
    assert refs[3].quoted == (True, True, True, True)
    assert [sql[r.start : r.end] for r in refs if r.start is not None and r.end is not None] == [
        "t",
        "ns.u",
        "cat.ns.v",
        "`c`.`n1`.`n2`.`w w`",
    ]


def test_subqueries_of_every_kind() -> None:
    sql = """
        SELECT (SELECT max(b) FROM scalar_t) AS m
        FROM (SELECT * FROM derived_t) d
        WHERE a IN (SELECT a FROM in_t)
          AND EXISTS (SELECT 1 FROM exists_t WHERE exists_t.a = d.a)
          AND NOT EXISTS (SELECT 1 FROM not_exists_t)
          AND a = ANY (SELECT a FROM any_t)
        GROUP BY 1 HAVING count(*) > (SELECT count(*) FROM having_t)
    """
    assert sorted(names(sql)) == sorted(
        [
            ("scalar_t",),
            ("derived_t",),
            ("in_t",),
            ("exists_t",),
            ("not_exists_t",),
            ("any_t",),
            ("having_t",),
        ]
    )


def test_set_operations_and_parenthesised_joins() -> None:
    sql = "(SELECT a FROM t1) UNION ALL SELECT a FROM (t2 JOIN t3 USING (a)) INTERSECT SELECT a FROM t4 EXCEPT SELECT a FROM t5"
    assert names(sql) == [("t1",), ("t2",), ("t3",), ("t4",), ("t5",)]


def test_cte_shadows_one_part_names_in_its_scope() -> None:
    sql = "WITH v AS (SELECT * FROM base) SELECT * FROM v JOIN ns.v ON true JOIN other ON true"
    assert names(sql) == [("base",), ("ns", "v"), ("other",)]
    refs = find_references(sql, include_ctes=True)
    assert [(r.parts, r.cte) for r in refs] == [
        (("base",), False),
        (("v",), True),
        (("ns", "v"), False),
        (("other",), False),
    ]


def test_cte_names_are_case_insensitive() -> None:
    assert names("WITH Abc AS (SELECT 1) SELECT * FROM aBC") == []
    assert names("WITH Abc AS (SELECT 1) SELECT * FROM aBC", case_sensitive=True) == [("aBC",)]


def test_cte_body_does_not_see_itself_unless_recursive() -> None:
    assert names("WITH v AS (SELECT * FROM v) SELECT * FROM v") == [("v",)]
    assert names("WITH RECURSIVE r AS (SELECT 1 UNION ALL SELECT * FROM r) SELECT * FROM r", "duckdb") == []


def test_later_ctes_see_earlier_ones() -> None:
    sql = "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM a) SELECT * FROM a, b"
    # the first CTE's b is the table b; the second CTE's a is the CTE
    assert names(sql) == [("b",)]


def test_nested_scopes() -> None:
    sql = """
        WITH x AS (SELECT * FROM t1)
        SELECT * FROM x
        WHERE EXISTS (WITH y AS (SELECT * FROM x) SELECT * FROM y JOIN z ON true)
          AND a IN (SELECT a FROM y)
          AND b IN (WITH x AS (SELECT * FROM x) SELECT b FROM x)
    """
    # y is only a CTE inside the EXISTS; the inner x's body reads the outer CTE x
    assert names(sql) == [("t1",), ("z",), ("y",)]


def test_subquery_alias_does_not_shadow() -> None:
    assert names("SELECT * FROM (SELECT 1) AS t, t") == [("t",)]


def test_write_targets_and_functions_are_not_references() -> None:
    assert names("INSERT INTO target SELECT * FROM source") == [("source",)]
    assert names("INSERT OVERWRITE TABLE target SELECT * FROM source") == [("source",)]
    assert names("CREATE TABLE target AS SELECT * FROM source") == [("source",)]
    assert names("MERGE INTO target USING source ON target.a = source.a WHEN MATCHED THEN DELETE") == [
        ("source",)
    ]
    assert names("SELECT * FROM range(10)") == []
    assert names("SELECT * FROM read_parquet('x.parquet')", "duckdb") == []
    assert names("SELECT * FROM VALUES (1), (2) AS v(a)") == []
    assert names("SELECT * FROM t LATERAL VIEW explode(arr) e AS x") == [("t",)]
    assert names("SELECT * FROM t PIVOT (sum(x) FOR y IN ('a', 'b'))") == [("t",)]


def test_duckdb_dialect() -> None:
    sql = 'FROM "My Table" t SELECT * WHERE t.a IN (SELECT a FROM memory.main.u)'
    refs = find_references(sql, "duckdb")
    assert [r.parts for r in refs] == [("My Table",), ("memory", "main", "u")]
    assert refs[0].quoted == (True,)


def test_deep_nesting_does_not_recurse() -> None:
    sql = "SELECT * FROM t0"
    for i in range(1, 40):
        sql = f"SELECT * FROM ({sql}) AS s{i} JOIN t{i} ON true WHERE a IN (SELECT a FROM u{i})"
    assert len(names(sql)) == 79
    wide = "SELECT * FROM t WHERE " + " OR ".join(f"a IN (SELECT a FROM u{i})" for i in range(2000))
    assert len(names(wide)) == 2001


def test_parse_errors() -> None:
    with pytest.raises(SQLParseError) as info:
        find_references("SELECT * FROM (SELECT 1")
    assert info.value.line == 1
    with pytest.raises(SQLParseError):
        find_references("SELECT 1; SELECT 2")


def test_function_calls() -> None:
    calls = find_function_calls("SELECT my_udf(a), upper(b), db.f2(c), cat.db.f3(d), count(*) FROM t")
    assert calls == [FunctionCall(("my_udf",)), FunctionCall(("db", "f2")), FunctionCall(("cat", "db", "f3"))]


TPCH_TABLES = {
    "q01": {"lineitem"},
    "q02": {"part", "supplier", "partsupp", "nation", "region"},
    "q03": {"customer", "orders", "lineitem"},
    "q04": {"orders", "lineitem"},
    "q05": {"customer", "orders", "lineitem", "supplier", "nation", "region"},
    "q06": {"lineitem"},
    "q07": {"supplier", "lineitem", "orders", "customer", "nation"},
    "q08": {"part", "supplier", "lineitem", "orders", "customer", "nation", "region"},
    "q09": {"part", "supplier", "lineitem", "partsupp", "orders", "nation"},
    "q10": {"customer", "orders", "lineitem", "nation"},
    "q11": {"partsupp", "supplier", "nation"},
    "q12": {"orders", "lineitem"},
    "q13": {"customer", "orders"},
    "q14": {"lineitem", "part"},
    "q15": {"lineitem", "supplier"},
    "q16": {"partsupp", "part", "supplier"},
    "q17": {"lineitem", "part"},
    "q18": {"customer", "orders", "lineitem"},
    "q19": {"lineitem", "part"},
    "q20": {"supplier", "nation", "partsupp", "part", "lineitem"},
    "q21": {"supplier", "lineitem", "orders", "nation"},
    "q22": {"customer", "orders"},
}
TPCH_COUNTS = {"q02": 9, "q07": 6, "q08": 8, "q11": 6, "q15": 2, "q17": 3, "q20": 5, "q21": 6, "q22": 3}


def test_tpch_corpus_is_complete() -> None:
    assert sorted(TPCH_QUERIES) == [f"q{i:02d}" for i in range(1, 23)]


@pytest.mark.parametrize("q", sorted(TPCH_TABLES))
def test_tpch_references(q: str) -> None:
    refs = find_references(TPCH_QUERIES[q])
    assert {r.parts[0] for r in refs} == TPCH_TABLES[q]
    assert all(len(r.parts) == 1 for r in refs)
    if q in TPCH_COUNTS:
        assert len(refs) == TPCH_COUNTS[q]
    # q15's revenue0 is a CTE
    ctes = [r for r in find_references(TPCH_QUERIES[q], include_ctes=True) if r.cte]
    assert [r.parts for r in ctes] == ([("revenue0",), ("revenue0",)] if q == "q15" else [])
