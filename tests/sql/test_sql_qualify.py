"""iceview.sql.qualify: Iceberg-Spark's qualification of a view's relation names."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from iceview.sql import find_references, qualify, qualify_parts
from sql.conftest import TPCH_QUERIES

KNOWN = {"prod", "spark_catalog", "other"}


def q(sql: str, ns: tuple[str, ...] = ("default",), dialect: str = "spark", **kw: bool) -> str:
    return qualify(
        sql, default_catalog="prod", default_namespace=ns, known_catalogs=KNOWN, dialect=dialect, **kw
    )


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("t",), ("prod", "default", "t")),
        (("db", "t"), ("prod", "db", "t")),
        (("prod", "db", "t"), ("prod", "db", "t")),
        (("other", "t"), ("other", "t")),
        (("spark_catalog", "db", "t"), ("spark_catalog", "db", "t")),
        (("a", "b", "c", "t"), ("prod", "a", "b", "c", "t")),
        (("prod",), ("prod", "default", "prod")),  # a 1-part name is never a catalog
        (("PROD", "db", "t"), ("prod", "PROD", "db", "t")),  # catalogs match exactly
    ],
)
def test_qualify_parts(parts: tuple[str, ...], expected: tuple[str, ...]) -> None:
    assert (
        qualify_parts(parts, default_catalog="prod", default_namespace=("default",), known_catalogs=KNOWN)
        == expected
    )


def test_multi_level_and_empty_namespace() -> None:
    assert qualify_parts(("t",), default_catalog="c", default_namespace=("a", "b"), known_catalogs={"c"}) == (
        "c",
        "a",
        "b",
        "t",
    )
    assert qualify_parts(("t",), default_catalog="c", default_namespace=(), known_catalogs={"c"}) == (
        "c",
        "t",
    )
    # a predicate instead of a collection, e.g. Spark's case-insensitive spark_catalog
    assert qualify_parts(
        ("SPARK_CATALOG", "db", "t"),
        default_catalog="c",
        default_namespace=(),
        known_catalogs=lambda name: name.lower() == "spark_catalog",
    ) == ("SPARK_CATALOG", "db", "t")


def test_spec_example() -> None:
    sql = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM events\nGROUP BY 2"
    assert q(sql) == "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM prod.`default`.events\nGROUP BY 2"
    assert (
        q(sql, ("other_db",))
        == "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM prod.other_db.events\nGROUP BY 2"
    )
    already = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM prod.default.events\nGROUP BY 2"
    assert q(already) == already  # untouched, byte for byte


def test_everything_but_names_is_kept() -> None:
    sql = (
        "select /*+ BROADCAST(t) */ a -- c\n, `b` from t /* x */ where c in (select c from db.u)  order by 1"
    )
    assert q(sql, ("ns",)) == (
        "select /*+ BROADCAST(t) */ a -- c\n, `b` from prod.ns.t /* x */ where c in (select c from prod.db.u)  order by 1"
    )


def test_ctes_are_not_qualified_and_scoping_holds() -> None:
    sql = "WITH t AS (SELECT * FROM t) SELECT * FROM t JOIN x.t ON true WHERE EXISTS (SELECT 1 FROM t)"
    assert q(sql, ("ns",)) == (
        "WITH t AS (SELECT * FROM prod.ns.t) SELECT * FROM t JOIN prod.x.t ON true WHERE EXISTS (SELECT 1 FROM t)"
    )


def test_quoting() -> None:
    sql = "SELECT * FROM `my table` JOIN `we``ird`.t ON true JOIN `select` ON true"
    out = q(sql, ("my ns",))
    assert out == (
        "SELECT * FROM prod.`my ns`.`my table` JOIN prod.`we``ird`.t ON true JOIN prod.`my ns`.`select` ON true"
    )
    tree = sqlglot.parse_one(out, read="spark")
    assert [tuple(p.name for p in t.parts) for t in tree.find_all(exp.Table)] == [
        ("prod", "my ns", "my table"),
        ("prod", "we`ird", "t"),
        ("prod", "my ns", "select"),
    ]
    assert q("SELECT * FROM t", ("ns",), always_quote=True) == "SELECT * FROM `prod`.`ns`.`t`"


def test_duckdb() -> None:
    sql = 'SELECT * FROM "My T" JOIN s.u ON true'
    assert q(sql, ("main",), dialect="duckdb") == 'SELECT * FROM prod.main."My T" JOIN prod.s.u ON true'


def test_aliases_survive() -> None:
    assert q("SELECT x.a FROM t AS x JOIN u y ON x.a = y.a", ("ns",)) == (
        "SELECT x.a FROM prod.ns.t AS x JOIN prod.ns.u y ON x.a = y.a"
    )


@pytest.mark.parametrize("name", sorted(TPCH_QUERIES))
def test_tpch_qualified_names_parse_back(name: str) -> None:
    sql = TPCH_QUERIES[name]
    out = q(sql, ("tpch", "sf1"))
    refs = find_references(out)
    assert refs, name
    assert all(r.parts[:3] == ("prod", "tpch", "sf1") and len(r.parts) == 4 for r in refs)
    assert len(find_references(sql)) == len(refs)
    # only names changed: sqlglot reads the same tree as when the names are qualified on its tree
    assert sqlglot.parse_one(out, read="spark").sql("spark") == _qualified_by_sqlglot(sql)


def _qualified_by_sqlglot(sql: str) -> str:
    """The same qualification done on sqlglot's tree, generated: a cross-check of the text edits."""
    tree = sqlglot.parse_one(sql, read="spark")
    cte_names = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        if table.name.lower() in cte_names and not table.db:
            continue
        new = exp.Table(
            this=exp.Dot(this=exp.to_identifier("sf1"), expression=exp.to_identifier(table.name)),
            db=exp.to_identifier("tpch"),
            catalog=exp.to_identifier("prod"),
            alias=table.args.get("alias"),
        )
        table.replace(new)
    return tree.sql("spark")
