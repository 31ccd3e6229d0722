"""iceview.sql.expand: view references replaced by subqueries (Spark dialect; sqlglot parses the output back)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlglot
from pyiceberg.types import DecimalType, IntegerType, ListType, LongType, NestedField, StringType, StructType
from sqlglot import exp

from iceview.errors import (
    MissingDialectError,
    SQLParseError,
    TranslationError,
    ViewCycleError,
    ViewExpansionError,
)
from iceview.spec import ViewMetadata
from iceview.sql import ResolvedView, ViewExpander, check_cycle, expand, find_cycle, find_references
from sql.views_support import Views

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "golden" / "java-1.10.2"
KNOWN = {"prod", "spark_catalog"}


def expander(views: Views, **kw: object) -> ViewExpander:
    return ViewExpander(views.resolve, known_catalogs=KNOWN, **kw)  # type: ignore[arg-type]


def run(views: Views, sql: str, ns: tuple[str, ...] = ("db",), **kw: object) -> str:
    return expander(views, **kw).expand(sql, current_catalog="prod", current_namespace=ns)


def parse_back(sql: str) -> exp.Expr:
    tree = sqlglot.parse_one(sql, read="spark")
    assert tree is not None
    return tree


@pytest.fixture
def views() -> Views:
    v = Views()
    v.add(
        "prod.db.v1",
        "SELECT name, id FROM events WHERE id > 1",
        [("label", StringType()), ("ident", LongType())],
    )
    v.add("prod.db.v2", "SELECT ident * 2, label FROM v1", [("double_id", LongType()), ("lbl", StringType())])
    # a view in another namespace whose defaults are its own
    v.add("prod.other.v3", "SELECT lbl FROM db.v2 JOIN events ON true", [("x", StringType())])
    return v


def test_one_view_exact_text(views: Views) -> None:
    out = run(views, "SELECT * FROM v1 WHERE ident > 0")
    assert out == (
        "SELECT * FROM (SELECT CAST(`__c0` AS STRING) AS `label`, CAST(`__c1` AS BIGINT) AS `ident` FROM (\n"
        "SELECT name, id FROM prod.db.events WHERE id > 1\n"
        ") AS `__v`(`__c0`, `__c1`)) AS `v1` WHERE ident > 0"
    )
    tree = parse_back(out)
    # sqlglot generates the same Spark SQL back (the alias list survives)
    assert tree.sql("spark") == out.replace("(\n", "(").replace("\n)", ")")
    sub = tree.find(exp.Subquery)
    assert sub is not None and sub.alias == "v1"
    inner = [s for s in tree.find_all(exp.Subquery) if s.alias == "__v"]
    assert [c.name for c in inner[0].args["alias"].columns] == ["__c0", "__c1"]
    casts = [(c.this.name, c.to.sql("spark")) for c in tree.find_all(exp.Cast)]
    assert casts == [("__c0", "STRING"), ("__c1", "BIGINT")]


def test_nesting_three_deep_each_with_its_own_defaults(views: Views) -> None:
    out = run(views, "SELECT x FROM prod.other.v3", ("elsewhere",))
    tree = parse_back(out)
    tables = sorted(".".join(p.name for p in t.parts) for t in tree.find_all(exp.Table))
    # v3's events is prod.other.events, v1's events is prod.db.events
    assert tables == ["prod.db.events", "prod.other.events"]
    aliases = [s.alias for s in tree.find_all(exp.Subquery) if s.alias != "__v"]
    assert sorted(aliases) == ["v1", "v2", "v3"]
    # ordinal binding at every level: one column list per view
    lists = [len(s.args["alias"].columns) for s in tree.find_all(exp.Subquery) if s.alias == "__v"]
    assert sorted(lists) == [1, 2, 2]


def test_references_resolve_with_the_session_defaults(views: Views) -> None:
    assert run(views, "SELECT * FROM v1", ("other",)) == "SELECT * FROM v1"  # prod.other.v1 is no view
    assert "AS `v1`" in run(views, "SELECT * FROM db.v1", ("other",))
    assert "AS `v1`" in run(views, "SELECT * FROM prod.db.v1", ("other",))
    assert run(views, "SELECT * FROM spark_catalog.db.v1") == "SELECT * FROM spark_catalog.db.v1"


def test_only_view_names_change(views: Views) -> None:
    sql = "select /*+ BROADCAST(e) */ e.a -- keep\nfrom   events e join v1 on e.a = v1.ident   order by 1"
    out = run(views, sql)
    start = sql.index("v1 on")
    assert out.startswith(sql[:start])
    assert out.endswith(sql[start + 2 :])  # outer tables are not qualified: Spark resolves them itself


def test_aliases(views: Views) -> None:
    out = run(views, "SELECT x.ident FROM v1 AS x JOIN v1 y ON true JOIN db.v1 z(a, b) ON z.a = x.label")
    tree = parse_back(out)
    assert sorted(s.alias for s in tree.find_all(exp.Subquery) if s.alias != "__v") == ["x", "y", "z"]
    assert out.count("SELECT name, id FROM prod.db.events") == 3
    assert "z(a, b)" in out


def test_qualified_column_references_are_rewritten(views: Views) -> None:
    out = run(views, "SELECT db.v1.ident, prod.db.v1.label, v1.ident, t.x.y FROM prod.db.v1, t")
    assert out.startswith("SELECT `v1`.ident, `v1`.label, v1.ident, t.x.y FROM (")
    # an aliased reference is not rewritten
    out = run(views, "SELECT db.v1.ident FROM v1 AS w")
    assert out.startswith("SELECT db.v1.ident FROM (")


def test_cte_shadows_views(views: Views) -> None:
    sql = "WITH v1 AS (SELECT 1 AS ident) SELECT * FROM v1"
    assert run(views, sql) == sql
    # a 2-part name is not shadowed
    assert "AS `v1`" in run(views, "WITH v1 AS (SELECT 1) SELECT * FROM v1, db.v1")
    # inside a view body, too
    views.add("prod.db.vc", "WITH v1 AS (SELECT 7 AS id) SELECT id FROM v1", [("id", IntegerType())])
    out = run(views, "SELECT * FROM vc")
    assert "SELECT name, id" not in out
    assert "WITH v1 AS (SELECT 7 AS id) SELECT id FROM v1" in out


def test_temp_views_shadow_only_outer_names(views: Views) -> None:
    shadowed = {("v1",)}
    out = run(views, "SELECT * FROM v1", is_shadowed=lambda p: p in shadowed)
    assert out == "SELECT * FROM v1"
    # v2's own reference to v1 is qualified, so the temp view does not hide it
    out = run(views, "SELECT * FROM v2", is_shadowed=lambda p: p in shadowed)
    assert "SELECT name, id FROM prod.db.events" in out


def test_write_targets_are_not_expanded(views: Views) -> None:
    out = run(views, "INSERT INTO v1 SELECT * FROM v2")
    assert out.startswith("INSERT INTO v1 SELECT * FROM (")
    out = run(views, "CREATE TABLE t AS SELECT * FROM v1")
    assert out.startswith("CREATE TABLE t AS SELECT * FROM (")


def test_subquery_expressions_and_set_operations(views: Views) -> None:
    sql = (
        "SELECT (SELECT max(ident) FROM v1) FROM t WHERE a IN (SELECT ident FROM v1) "
        "AND EXISTS (SELECT 1 FROM v2) UNION ALL SELECT ident FROM v1"
    )
    out = run(views, sql)
    refs = find_references(out)
    assert {r.parts for r in refs} == {("t",), ("prod", "db", "events")}
    assert len(refs) == 5


def test_read_time_cycle() -> None:
    v = Views()
    v.add("prod.db.a", "SELECT * FROM b", [("x", LongType())])
    v.add("prod.db.b", "SELECT * FROM prod.db.a", [("x", LongType())])
    v.add("prod.db.start", "SELECT * FROM a", [("x", LongType())])
    with pytest.raises(ViewCycleError) as info:
        run(v, "SELECT * FROM start")
    assert (
        str(info.value)
        == "Recursive cycle in view detected: prod.db.a (cycle: prod.db.a -> prod.db.b -> prod.db.a)"
    )
    assert info.value.cycle == (("prod", "db", "a"), ("prod", "db", "b"), ("prod", "db", "a"))
    v.add("prod.db.self", "SELECT * FROM self", [("x", LongType())])
    with pytest.raises(ViewCycleError, match=r"prod\.db\.self \(cycle: prod\.db\.self -> prod\.db\.self\)"):
        run(v, "SELECT * FROM self")


def test_cycle_in_a_subquery_expression() -> None:
    v = Views()
    v.add("prod.db.a", "SELECT 1 AS x WHERE EXISTS (SELECT * FROM b)", [("x", LongType())])
    v.add("prod.db.b", "WITH c AS (SELECT * FROM a) SELECT * FROM c", [("x", LongType())])
    with pytest.raises(ViewCycleError):
        run(v, "SELECT * FROM a")


def test_depth_is_bounded() -> None:
    v = Views()
    v.add("prod.db.v0", "SELECT 1 AS x", [("x", IntegerType())])
    for i in range(1, 6):
        v.add(f"prod.db.v{i}", f"SELECT x FROM v{i - 1}", [("x", IntegerType())])
    assert "SELECT 1 AS x" in run(v, "SELECT * FROM v5", max_depth=6)
    with pytest.raises(
        ViewExpansionError, match=r"deeper than the maximum of 5 views: prod\.db\.v5 -> .* -> prod\.db\.v0"
    ):
        run(v, "SELECT * FROM v5", max_depth=5)


def test_resolutions_and_bodies_are_memoised(views: Views) -> None:
    views.calls.clear()
    out = run(views, "SELECT * FROM v2 a, v2 b, v1 c")
    assert views.calls.count(("prod", "db", "v1")) == 1
    assert views.calls.count(("prod", "db", "v2")) == 1
    assert out.count("SELECT name, id FROM prod.db.events") == 3


def test_width_from_the_sql() -> None:
    v = Views()
    v.add("prod.db.wide", "SELECT a, b, c FROM t", [("a", LongType())])
    out = run(v, "SELECT * FROM wide")
    assert "AS `__v`(`__c0`, `__c1`, `__c2`)" in out
    assert out.count("CAST(") == 1
    v.add("prod.db.narrow", "SELECT a FROM t", [("a", LongType()), ("b", LongType())])
    with pytest.raises(ViewExpansionError, match=r"returns 1 column but its schema has 2 \(a, b\)"):
        run(v, "SELECT * FROM narrow")
    v.add("prod.db.star", "SELECT * FROM t", [("a", LongType()), ("b", LongType())])
    assert "AS `__v`(`__c0`, `__c1`)" in run(v, "SELECT * FROM star")
    seen: list[str] = []

    def count(sql: str) -> int:
        seen.append(sql)
        return 3

    assert "AS `__v`(`__c0`, `__c1`, `__c2`)" in run(v, "SELECT * FROM star", column_count=count)
    assert seen == ["SELECT * FROM prod.db.t"]
    v.add("prod.db.gen", "SELECT posexplode(arr) AS (p, x), explode(m) AS e FROM t", [("p", IntegerType())])
    assert "AS `__v`(`__c0`, `__c1`, `__c2`)" in run(v, "SELECT * FROM gen")
    v.add("prod.db.vals", "VALUES (1, 2), (3, 4)", [("a", IntegerType()), ("b", IntegerType())])
    assert "AS `__v`(`__c0`, `__c1`)" in run(v, "SELECT * FROM vals")
    v.add(
        "prod.db.u",
        "SELECT a, b FROM t UNION SELECT c, d FROM w",
        [("a", IntegerType()), ("b", IntegerType())],
    )
    assert "AS `__v`(`__c0`, `__c1`)" in run(v, "SELECT * FROM u")


def test_nested_types_in_casts() -> None:
    v = Views()
    struct = StructType(
        NestedField(1, "Inner Name", LongType()), NestedField(2, "tags", ListType(3, StringType()))
    )
    v.add("prod.db.n", "SELECT s, d FROM t", [("s", struct), ("Amount (EUR)", DecimalType(10, 2))])
    out = run(v, "SELECT * FROM n")
    assert "CAST(`__c0` AS STRUCT<`Inner Name`: BIGINT, `tags`: ARRAY<STRING>>) AS `s`" in out
    assert "CAST(`__c1` AS DECIMAL(10, 2)) AS `Amount (EUR)`" in out
    parse_back(out)


def test_tablesample_goes_before_the_alias_in_spark(views: Views) -> None:
    # Spark's grammar: '(' query ')' sample? tableAlias. sqlglot cannot read that order back, so the
    # text is checked; an explicit alias is kept where the user wrote it.
    out = run(views, "SELECT * FROM v1 TABLESAMPLE (10 PERCENT) REPEATABLE (3) WHERE true")
    assert out.endswith(") TABLESAMPLE (10 PERCENT) REPEATABLE (3) AS `v1` WHERE true")
    out = run(views, "SELECT * FROM v1 TABLESAMPLE (10 PERCENT) x WHERE true")
    assert out.endswith(") TABLESAMPLE (10 PERCENT) x WHERE true")


def test_time_travel_on_a_view_is_refused(views: Views) -> None:
    with pytest.raises(ViewExpansionError, match=r"Cannot time travel view prod\.db\.v1"):
        run(views, "SELECT * FROM v1 VERSION AS OF 3")


def test_view_body_trailing_semicolon_and_comments() -> None:
    v = Views()
    v.add(
        "prod.db.t1",
        "-- leading\nSELECT 1 AS x -- inner\n, 2 AS y ; -- trailing",
        [("x", IntegerType()), ("y", IntegerType())],
    )
    out = run(v, "SELECT * FROM t1")
    assert "(\n-- leading\nSELECT 1 AS x -- inner\n, 2 AS y\n) AS `__v`" in out
    parse_back(out)


def test_invalid_sql() -> None:
    v = Views()
    v.add("prod.db.bad", "SELEC nonsense FROM", [("x", IntegerType())])
    with pytest.raises(ViewExpansionError, match=r"Invalid SQL in view prod\.db\.bad"):
        run(v, "SELECT * FROM bad")
    with pytest.raises(SQLParseError):
        run(v, "SELECT * FROM (")


def test_other_dialects_need_translation() -> None:
    v = Views()
    v.add("prod.db.tv", 'SELECT "id" FROM t', [("id", LongType())], dialect="trino")
    with pytest.raises(TranslationError, match="has SQL for dialect trino, not spark; pass translate="):
        run(v, "SELECT * FROM tv")
    calls: list[tuple[str, str, str]] = []

    def translate(sql: str, source: str, target: str) -> str:
        calls.append((sql, source, target))
        return sqlglot.transpile(sql, read=source, write=target)[0]

    out = run(v, "SELECT * FROM tv", translate=translate)
    assert calls == [('SELECT "id" FROM prod.db.t', "trino", "spark")]  # qualified by the view's defaults
    assert "SELECT `id` FROM prod.db.t" in out


def test_map_table(views: Views) -> None:
    def to_session_catalog(parts: tuple[str, ...]) -> tuple[str, ...] | None:
        return ("spark_catalog", *parts[1:]) if parts[0] == "prod" else None

    out = run(views, "SELECT * FROM v1 JOIN events ON true", map_table=to_session_catalog)
    assert "FROM spark_catalog.db.events WHERE id > 1" in out
    assert out.endswith("JOIN spark_catalog.db.events ON true")


def test_type_name_hook(views: Views) -> None:
    out = run(views, "SELECT * FROM v1", type_name=lambda t: f"T_{t}")
    assert "CAST(`__c1` AS T_long)" in out


def test_functional_api(views: Views) -> None:
    out = expand(
        "SELECT * FROM v1",
        resolve=views.resolve,
        current_catalog="prod",
        current_namespace=["db"],
        known_catalogs=KNOWN,
    )
    assert out == run(views, "SELECT * FROM v1")
    select = expander(views).view_query(views.views[("prod", "db", "v1")])
    assert select.startswith("SELECT CAST(`__c0` AS STRING) AS `label`")
    parse_back(select)


def test_from_metadata() -> None:
    md = ViewMetadata.from_json(
        (GOLDEN / "07-view-default.event_agg_busy-after-create-view-over-view.metadata.json").read_text()
    )
    rv = ResolvedView.from_metadata(("prod", "default", "event_agg_busy"), md)
    assert rv.sql == "SELECT event_date, event_count FROM event_agg WHERE event_count > 1"
    assert (rv.dialect, rv.default_catalog, rv.default_namespace) == ("spark", "prod", ("default",))
    assert [f.name for f in rv.schema.fields] == ["busy_date", "n"]

    data = json.loads(md.to_json())
    data["versions"][0]["representations"][0]["dialect"] = "trino"
    data["versions"][0]["default-catalog"] = "other"
    trino = ViewMetadata.from_dict(data)
    with pytest.raises(
        TranslationError, match=r"has no SQL for dialect spark \(its dialects: trino\)"
    ) as info:
        ResolvedView.from_metadata(("prod", "default", "event_agg_busy"), trino)
    assert isinstance(info.value, MissingDialectError)
    assert (info.value.view, info.value.dialect, info.value.dialects) == (
        "prod.default.event_agg_busy",
        "spark",
        ("trino",),
    )
    rv = ResolvedView.from_metadata(("prod", "default", "event_agg_busy"), trino, allow_other_dialect=True)
    assert (rv.dialect, rv.default_catalog) == ("trino", "other")


# ---------------------------------------------------------------------------------------------
# CREATE OR REPLACE: Iceberg-Spark's cycle check (TestViews.createViewWithRecursiveCycle*)


@pytest.fixture
def cyc() -> Views:
    v = Views()
    v.add("cat.default.viewOne", "SELECT * FROM table", [("id", IntegerType())])
    v.add("cat.default.viewTwo", "SELECT * FROM viewOne", [("id", IntegerType())])
    return v


def cycle_of(views: Views, sql: str, view: str = "cat.default.viewOne") -> str:
    with pytest.raises(ViewCycleError) as info:
        check_cycle(
            tuple(view.split(".")),
            sql,
            resolve=views.resolve,
            current_catalog="cat",
            current_namespace=("default",),
            known_catalogs={"cat", "spark_catalog"},
        )
    return str(info.value)


def test_create_cycle_messages_match_iceberg(cyc: Views) -> None:
    v1 = "cat.default.viewOne"
    assert cycle_of(cyc, "SELECT * FROM cat.default.viewTwo") == (
        f"Recursive cycle in view detected: {v1} (cycle: {v1} -> cat.default.viewTwo -> {v1})"
    )
    cte = "WITH max_by_data AS (SELECT max(id) as max FROM viewTwo) SELECT max, count(1) AS count FROM max_by_data GROUP BY max"
    assert cycle_of(cyc, cte) == f"Recursive cycle in view detected: {v1} (cycle: {v1} -> viewTwo -> {v1})"
    sub = "SELECT * FROM table WHERE id = (SELECT id FROM viewTwo)"
    assert cycle_of(cyc, sub) == f"Recursive cycle in view detected: {v1} (cycle: {v1} -> viewTwo -> {v1})"


def test_create_cycle_stricter_than_iceberg(cyc: Views) -> None:
    # Iceberg compares names as written and misses a direct self-reference; we compare resolved names
    assert cycle_of(cyc, "SELECT * FROM viewOne") == (
        "Recursive cycle in view detected: cat.default.viewOne (cycle: cat.default.viewOne -> viewOne)"
    )


def test_no_cycle(cyc: Views) -> None:
    kw = {
        "resolve": cyc.resolve,
        "current_catalog": "cat",
        "current_namespace": ("default",),
        "known_catalogs": {"cat"},
    }
    assert (
        find_cycle(("cat", "default", "viewThree"), "SELECT * FROM viewTwo JOIN viewOne ON true", **kw)
        is None
    )  # type: ignore[arg-type]
    assert find_cycle(("cat", "default", "viewOne"), "SELECT * FROM table", **kw) is None  # type: ignore[arg-type]
    # a CTE named like the view hides it
    assert (
        find_cycle(("cat", "default", "viewOne"), "WITH viewTwo AS (SELECT 1) SELECT * FROM viewTwo", **kw)
        is None
    )  # type: ignore[arg-type]
    # so does a temporary view
    assert (
        find_cycle(
            ("cat", "default", "viewOne"),
            "SELECT * FROM viewTwo",
            is_shadowed=lambda p: p == ("viewTwo",),
            **kw,  # type: ignore[arg-type]
        )
        is None
    )


def test_create_cycle_deeper_and_quoted() -> None:
    v = Views()
    v.add("cat.ns.a", "SELECT * FROM b", [("x", IntegerType())])
    v.add("cat.ns.b", "SELECT * FROM `c d`", [("x", IntegerType())])
    v.add("cat.ns.c d", "SELECT * FROM t", [("x", IntegerType())])
    cycle = find_cycle(
        ("cat", "ns", "c d"),
        "SELECT * FROM ns.a",
        resolve=v.resolve,
        current_catalog="cat",
        current_namespace=("other",),
        known_catalogs={"cat"},
    )
    assert cycle == (("cat", "ns", "c d"), ("ns", "a"), ("cat", "ns", "b"), ("cat", "ns", "c d"))
    msg = cycle_of_with(v, ("cat", "ns", "c d"), "SELECT * FROM ns.a")
    assert (
        msg
        == "Recursive cycle in view detected: cat.ns.`c d` (cycle: cat.ns.c d -> ns.a -> cat.ns.b -> cat.ns.c d)"
    )


def cycle_of_with(views: Views, view: tuple[str, ...], sql: str) -> str:
    with pytest.raises(ViewCycleError) as info:
        ViewExpander(views.resolve, known_catalogs={"cat"}).check_cycle(
            view, sql, current_catalog="cat", current_namespace=("other",)
        )
    return str(info.value)


def test_existing_cycles_elsewhere_do_not_hang_find_cycle() -> None:
    v = Views()
    v.add("cat.ns.a", "SELECT * FROM b", [("x", IntegerType())])
    v.add("cat.ns.b", "SELECT * FROM a", [("x", IntegerType())])
    assert (
        find_cycle(
            ("cat", "ns", "new"),
            "SELECT * FROM a",
            resolve=v.resolve,
            current_catalog="cat",
            current_namespace=("ns",),
            known_catalogs={"cat"},
        )
        is None
    )


def test_explain_and_describe_query_wrap_a_statement(views: Views) -> None:
    for prefix in (
        "EXPLAIN ",
        "EXPLAIN EXTENDED ",
        "explain formatted\n",
        "DESCRIBE QUERY ",
        "DESC ",
        "DESCRIBE ",
    ):
        out = run(views, prefix + "SELECT * FROM v1")
        assert out.startswith(prefix + "SELECT * FROM (SELECT CAST(")
    assert run(views, "DESCRIBE v1") == "DESCRIBE v1"  # the view itself: the glue's DESCRIBE


def test_qualified_star_is_rewritten(views: Views) -> None:
    out = run(views, "SELECT db.v1.*, v1.* FROM db.v1")
    assert out.startswith("SELECT `v1`.*, v1.* FROM (")
    parse_back(out)


def test_parses_each_text_once_and_qualifies_it_each_time(views: Views) -> None:
    """What expansion takes from a parse is cached per text; names are still qualified (and views
    still resolved) on every call, with each call's defaults."""
    from iceview.sql import _analysis

    sql = "SELECT label FROM v1 JOIN events ON true /* parse-once */"
    _analysis._analyse.cache_clear()
    first = run(views, sql)
    misses = _analysis._analyse.cache_info().misses
    assert misses == 2  # the query and v1's SQL
    assert run(views, sql) == first
    assert _analysis._analyse.cache_info().misses == misses
    # the same text in another namespace: v1 is not a view there, events is another table
    elsewhere = run(views, sql, ("other",))
    assert "prod.other.v1" not in elsewhere and "FROM v1 JOIN events" in elsewhere
    assert run(views, sql.replace("FROM v1", "FROM db.v1"), ("other",)).count("prod.db.events") == 1
    # a view changed under the same query is seen at once
    views.add("prod.db.v1", "SELECT 'x', 7", [("label", StringType()), ("ident", LongType())])
    assert "SELECT 'x', 7" in run(views, sql)


def test_parse_errors_are_not_cached_and_name_their_sql(views: Views) -> None:
    views.add("prod.db.broken", "SELECT FROM WHERE (", [("a", StringType())])
    for _ in range(2):
        with pytest.raises(SQLParseError, match="Cannot parse query"):
            run(views, "SELECT FROM WHERE (")
        with pytest.raises(
            ViewExpansionError, match=r"Invalid SQL in view prod\.db\.broken: Cannot parse view SQL"
        ):
            run(views, "SELECT * FROM broken")
