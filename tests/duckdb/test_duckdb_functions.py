"""SQL UDFs in DuckDB (iceview.duckdb): views and queries that call the catalog's functions return
the rows computed in Python (tests/udf/engine_cases.py), from bodies in DuckDB's dialect and from
Spark bodies translated with the view rules; what cannot be inlined is refused by name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest

from iceview.catalog.sql import SqlCatalog
from iceview.errors import AmbiguousFunctionCallError, FunctionInliningError, NoMatchingDefinitionError
from iceview.function.changes import NewDefinition
from udf.engine_cases import (
    EXPECTED,
    NS,
    VIEWS,
    normalise,
    sqlite_lake,
)

duckdb = pytest.importorskip("duckdb")
from iceview.duckdb import DuckDBViews  # noqa: E402


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqlCatalog]:
    catalog = sqlite_lake(tmp_path_factory.mktemp("duckdb-functions"))
    try:
        yield catalog
    finally:
        catalog.close()


@pytest.fixture
def views(lake: SqlCatalog) -> Iterator[DuckDBViews]:
    with DuckDBViews(lake, namespace=NS) as v:
        yield v


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_views_calling_functions_return_the_expected_rows(views: DuckDBViews, view: str) -> None:
    assert normalise(views.execute(f"SELECT * FROM {view}")) == normalise(EXPECTED[view])


def test_a_query_calls_functions_and_names_its_columns_after_the_calls(views: DuckDBViews) -> None:
    relation = views.sql("SELECT id, fn.add_one(i), label(s, 7) AS lab FROM edge ORDER BY id")
    assert relation.columns == ["id", "fn.add_one(i)", "lab"]
    rows = relation.fetchall()
    assert rows[0] == (1, 2, "é:7")
    assert rows[1] == (2, None, "∅:7")


def test_a_table_function_in_a_query_and_in_a_correlated_subquery(views: DuckDBViews) -> None:
    assert sorted(views.execute("SELECT id FROM fn.by_color('yellow')")) == [(4,)]
    rows = views.execute(
        "SELECT e.id, (SELECT count(*) FROM by_color(e.color) AS b) AS n FROM edge AS e ORDER BY e.id"
    )
    assert rows == [(1, 2), (2, 0), (3, 2), (4, 1), (5, 0)]


def test_a_changed_function_is_read_fresh(lake: SqlCatalog, views: DuckDBViews) -> None:
    lake.create_function((NS, "bump"), NewDefinition([("x", "int")], "int", {"duckdb": "x + 10"}))
    try:
        assert views.execute("SELECT bump(1)") == [(11,)]
        function = lake.load_function((NS, "bump"))
        function.replace_definition("int", {"duckdb": "x + 20"})
        assert views.execute("SELECT bump(1)") == [(21,)]
    finally:
        lake.drop_function((NS, "bump"))
    with pytest.raises(duckdb.Error):  # gone: DuckDB's own error for an unknown function
        views.execute("SELECT bump(1)")


@pytest.mark.parametrize(
    ("sql", "error", "code"),
    [
        ("SELECT add_one(NULL)", AmbiguousFunctionCallError, None),
        ("SELECT add_one('x')", NoMatchingDefinitionError, None),
        ("SELECT add_one(x * 2) FROM edge", FunctionInliningError, "UDF_ARGUMENT_UNTYPED"),
        ("SELECT add_one(i) OVER () FROM edge", FunctionInliningError, "UDF_CALL_FORM"),
        ("SELECT by_color('red')", FunctionInliningError, "UDF_TABLE_FUNCTION"),
        ("SELECT * FROM add_one(1)", FunctionInliningError, "UDF_CALL_FORM"),
        ("SELECT safe_ratio(random(), 2.0e0)", FunctionInliningError, "UDF_ARGUMENT_UNTYPED"),
        (
            "SELECT safe_ratio(CAST(random() AS DOUBLE), 2.0e0)",
            FunctionInliningError,
            "UDF_NONDETERMINISTIC_ARGUMENT",
        ),
    ],
)
def test_refusals(views: DuckDBViews, sql: str, error: type[Exception], code: str | None) -> None:
    with pytest.raises(error) as e:
        views.execute(sql)
    if code is not None:
        assert getattr(e.value, "code", None) == code


def test_a_macro_of_the_same_name_wins_over_the_catalog(views: DuckDBViews) -> None:
    views.connection.execute("CREATE MACRO label(a, b) AS 'macro'")
    assert views.execute("SELECT label('a', 1)") == [("macro",)]
    # inside a view, names are the view's: the macro is DuckDB's own function then too
    assert views.execute("SELECT fn.label('a', 1)") == [("a:1",)]


def test_duckdb_functions_of_any_arity_and_table_macros_win_too(views: DuckDBViews) -> None:
    # DuckDB's own name wins even when its arguments do not fit (DuckDB then says so) ...
    views.connection.execute("CREATE MACRO add_one(a, b, c) AS 'three'")
    with pytest.raises(duckdb.BinderException):
        views.execute("SELECT add_one(1)")
    # ... and in FROM a table macro wins over the catalog's table function
    assert sorted(views.execute("SELECT id FROM by_color('yellow')")) == [(4,)]
    views.connection.execute("CREATE MACRO by_color(c) AS TABLE SELECT 42 AS id")
    assert views.execute("SELECT id FROM by_color('yellow')") == [(42,)]
    assert sorted(views.execute("SELECT id FROM fn.by_color('yellow')")) == [(4,)]


def rows_of(relation: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in relation.fetchall()]


# ---------------------------------------------------------------------------------------------- found by
# the blind outside check of the inlining (each failed before its fix)


@pytest.fixture(scope="module")
def capture(lake: SqlCatalog) -> SqlCatalog:
    """``fn.t(a, s)`` and ``fn.u(id, s, zz)``, and table functions over ``t`` whose callers' names
    (``t``, ``s``) are also the body's."""
    tables = lake.table_catalog()
    t = tables.create_table((NS, "t"), schema=_schema(("a", "int"), ("s", "string")))
    t.append(pa.table({"a": pa.array([1, None], pa.int32()), "s": ["é", None]}))
    u = tables.create_table((NS, "u"), schema=_schema(("id", "int"), ("s", "string"), ("zz", "int")))
    u.append(
        pa.table({"id": pa.array([1, 2], pa.int32()), "s": ["é", "b"], "zz": pa.array([5, 6], pa.int32())})
    )
    tables.engine.dispose()
    returns = {"type": "struct", "fields": [{"name": "a", "type": "int"}]}
    lake.create_function(
        (NS, "tf"),
        NewDefinition(
            [("c", "string")], returns, {"duckdb": "SELECT a FROM t WHERE s = c"}, function_type="udtf"
        ),
    )
    lake.create_function(
        (NS, "tf_leak"),
        NewDefinition(
            [("c", "string")],
            returns,
            {"duckdb": "SELECT a FROM t WHERE s = c AND zz = 5"},
            function_type="udtf",
        ),
    )
    lake.create_function(
        (NS, "commented"), NewDefinition([("x", "string")], "string", {"spark": "x -- a note"})
    )
    lake.create_function((NS, "ñandú"), NewDefinition([("x", "int")], "int", {"duckdb": "x + 1000"}))
    # found by the blind check of translated table bodies: a parameter in HAVING, a parameter both
    # projected and ordered by, an unknown name in the SELECT list; each in both dialects
    groups = {"type": "struct", "fields": [{"name": "s", "type": "string"}, {"name": "n", "type": "long"}]}
    pair = {"type": "struct", "fields": [{"name": "id", "type": "int"}, {"name": "v", "type": "int"}]}
    for dialect in ("duckdb", "spark"):
        lake.create_function(
            (NS, f"having_{dialect}"),
            NewDefinition(
                [("p", "int")],
                groups,
                {dialect: "SELECT s, count(*) FROM u GROUP BY s HAVING count(*) >= p"},
                function_type="udtf",
            ),
        )
        lake.create_function(
            (NS, f"ordered_{dialect}"),
            NewDefinition(
                [("p", "int")],
                pair,
                {dialect: "SELECT id, p FROM u ORDER BY p, id DESC LIMIT 1"},
                function_type="udtf",
            ),
        )
        lake.create_function(
            (NS, f"leak_{dialect}"),
            NewDefinition(
                [("p", "int")],
                returns,
                {dialect: "SELECT a FROM (SELECT zz FROM u WHERE id >= p) AS q"},
                function_type="udtf",
            ),
        )
    return lake


def _schema(*fields: tuple[str, str]) -> Any:
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField, StringType

    kinds = {"int": IntegerType(), "string": StringType()}
    return Schema(*(NestedField(i + 1, n, kinds[t], required=False) for i, (n, t) in enumerate(fields)))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT t.id, q.a FROM u AS t, LATERAL tf(t.s) AS q ORDER BY 1", [(1, 1)]),
        ("SELECT u.id, q.a FROM u, LATERAL tf(s) AS q ORDER BY 1", [(1, 1)]),
        ("SELECT t.id, (SELECT count(*) FROM tf(t.s)) FROM u AS t ORDER BY 1", [(1, 1), (2, 0)]),
        ("SELECT * FROM tf('é')", [(1,)]),
    ],
)
def test_a_table_function_argument_is_the_callers_not_the_bodys(
    capture: SqlCatalog, sql: str, expected: list[tuple[Any, ...]]
) -> None:
    with DuckDBViews(capture, namespace=NS) as views:
        assert views.execute(sql) == expected


def test_a_table_function_body_cannot_read_its_callers_columns(capture: SqlCatalog) -> None:
    with DuckDBViews(capture, namespace=NS) as views, pytest.raises(FunctionInliningError) as e:
        views.execute("SELECT u.id, q.a FROM u, LATERAL tf_leak(u.s) AS q")
    assert e.value.code == "UDF_BODY_UNKNOWN_NAME" and "zz" in str(e.value)


@pytest.mark.parametrize("dialect", ["duckdb", "spark"])
def test_parameters_in_having_and_in_a_projection_ordered_by(capture: SqlCatalog, dialect: str) -> None:
    # the spark bodies are translated; each parameter is replaced wherever it is written
    with DuckDBViews(capture, namespace=NS) as views:
        assert views.execute(f"SELECT * FROM having_{dialect}(1) ORDER BY 1") == [("b", 1), ("é", 1)]
        assert views.execute(f"SELECT * FROM having_{dialect}(2)") == []
        assert views.execute(f"SELECT * FROM ordered_{dialect}(7)") == [(2, 7)]


@pytest.mark.parametrize("dialect", ["duckdb", "spark"])
def test_an_unknown_name_in_a_bodys_select_list_is_refused(capture: SqlCatalog, dialect: str) -> None:
    # u has no column a: the caller's t.a must not be read through the body
    with DuckDBViews(capture, namespace=NS) as views, pytest.raises(FunctionInliningError) as e:
        views.execute(f"SELECT t.a, q.a FROM t, LATERAL leak_{dialect}(1) AS q")
    assert e.value.code == "UDF_BODY_UNKNOWN_NAME" and "names a," in str(e.value)


def test_odd_but_valid_calls(capture: SqlCatalog) -> None:
    with DuckDBViews(capture, namespace=NS) as views:
        assert views.execute("SELECT commented('v')") == [("v",)]  # the comment swallows nothing
        assert views.execute("SELECT ñandú(1)") == [(1001,)]
        assert views.execute("SELECT add_one(-2147483648)") == [(-2147483647,)]  # an int literal
        many = ", ".join(f"add_one({k})" for k in range(200))
        assert views.execute(f"SELECT {many}") == [tuple(k + 1 for k in range(200))]
        with pytest.raises(FunctionInliningError) as e:
            views.execute("SELECT add_one(a) FILTER (WHERE a > 0) FROM t")
        assert e.value.code == "UDF_CALL_FORM"


# ---------------------------------------------------------------------------------------------- found by
# the blind outside check of derived dialects


@pytest.fixture
def nested(tmp_path: Any) -> Iterator[SqlCatalog]:
    """``fn.w2`` (a Spark body) calls ``other.wrap(tag(v))``; ``other.wrap`` calls ``fn.tag``."""
    from udf.engine_cases import VIEWS as CASES

    catalog = sqlite_lake(tmp_path)
    catalog.create_namespace("other")
    catalog.create_function(
        (NS, "tag"), [NewDefinition([("v", "string")], "string", {"spark": "concat('[', v, ']')"})]
    )
    catalog.create_function(
        ("other", "wrap"), [NewDefinition([("v", "string")], "string", {"spark": "fn.tag(v)"})]
    )
    catalog.create_function(
        (NS, "w2"), [NewDefinition([("v", "string")], "string", {"spark": "other.wrap(tag(v))"})]
    )
    schema, _ = CASES["v_table"]
    catalog.create_view(
        (NS, "vw"),
        schema=schema,
        queries={"spark": "SELECT id, w2(color) AS s FROM edge"},
        default_namespace=(NS,),
    )
    try:
        yield catalog
    finally:
        catalog.close()


def test_calls_nested_in_a_body_of_another_dialect_are_inlined_before_it_is_translated(
    nested: SqlCatalog,
) -> None:
    expected = [(1, "[[red]]"), (2, None), (3, "[[red]]"), (4, "[[yellow]]"), (5, None)]
    with DuckDBViews(nested, namespace=NS) as views:
        # the Spark bodies are translated for DuckDB once the calls in them are inlined (in Spark)
        assert views.execute("SELECT id, w2(color) FROM edge ORDER BY id") == expected
        # a Spark view is inlined in Spark, then translated: the inner call is renamed with the outer
        assert views.execute("SELECT * FROM vw ORDER BY id") == expected
        # a body that holds another function's body is read fresh: a replaced inner body is run
        nested.load_function((NS, "tag")).replace_definition("string", {"spark": "concat('<', v, '>')"})
        assert views.execute("SELECT id, w2(color) FROM edge WHERE id = 1") == [(1, "<<red>>")]
