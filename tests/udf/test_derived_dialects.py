"""Dialects translated for a view that calls SQL UDFs (``add_dialects``, ``create_view(dialects=)``
and the derived dialects of ``iceview.derive-dialects``): the calls are inlined into the source SQL
first, in its own dialect, so the translation runs in an engine that has no such functions, and
the version summary records the definition versions inlined (``iceview.inlined-functions``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from iceview.catalog.sql import SqlCatalog
from iceview.errors import DialectDropError, NoMatchingDefinitionError
from iceview.sql import UnsafeTranslationError
from iceview.sql.translate.keys import INLINED_FUNCTIONS_KEY
from udf.engine_cases import NS, VIEWS, sqlite_lake

DERIVE = "iceview.derive-dialects"
REFUSED = "iceview.derive-refused."


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqlCatalog]:
    catalog = sqlite_lake(tmp_path_factory.mktemp("derived-functions"))
    try:
        yield catalog
    finally:
        catalog.close()


def inlined(summary: dict[str, str]) -> list[tuple[str, str, int]]:
    return [
        (".".join([*e["namespace"], e["name"]]), e["definition-id"], e["version-id"])
        for e in json.loads(summary[INLINED_FUNCTIONS_KEY])
    ]


def copy_of(catalog: SqlCatalog, view: str, name: str) -> None:
    schema, queries = VIEWS[view]
    catalog.create_or_replace_view((NS, name), schema=schema, queries=queries, default_namespace=(NS,))


def test_add_dialects_inlines_the_calls_and_records_the_definitions(lake: SqlCatalog) -> None:
    copy_of(lake, "v_calls", "calls_copy")
    view = lake.load_view((NS, "calls_copy")).add_dialects(["trino"], source="duckdb")
    version = view.metadata.current_version
    trino = version.sql_for("trino").sql
    for name in ("add_one", "label"):
        assert name not in trino.lower()
    assert "lake.fn.edge" in trino
    # the decimal(3,2) literal widened to decimal(10,2); the int and the long columns; label
    assert inlined(version.summary) == [
        ("fn.add_one", "decimal(10,2)", 1),
        ("fn.add_one", "int", 1),
        ("fn.add_one", "long", 1),
        ("fn.label", "string,int", 1),
    ]


def test_a_table_function_is_expanded_and_recorded(lake: SqlCatalog) -> None:
    copy_of(lake, "v_table", "table_copy")
    view = lake.load_view((NS, "table_copy")).add_dialects(["trino"])
    trino = view.metadata.current_version.sql_for("trino").sql
    assert "by_color" not in trino and "lake.fn.edge" in trino
    assert inlined(view.metadata.current_version.summary) == [("fn.by_color", "string", 1)]


def test_what_the_inlined_sql_cannot_carry_is_refused_by_name(lake: SqlCatalog) -> None:
    copy_of(lake, "v_translated", "translated_copy")
    view = lake.load_view((NS, "translated_copy"))
    # safe_ratio's NULLIF over doubles: NULLIF(NaN, NaN) differs in Trino
    with pytest.raises(UnsafeTranslationError) as e:
        view.add_dialects(["trino"])
    assert "nan-semantics" in e.value.codes
    assert view.refresh().metadata.current_version.dialects == ("spark",)


def test_a_view_calling_nothing_records_no_functions(lake: SqlCatalog) -> None:
    schema, _ = VIEWS["v_table"]
    made = lake.create_or_replace_view(
        (NS, "plain_copy"),
        schema=schema,
        queries={"spark": "SELECT id, trim(s) AS s FROM edge"},
        default_namespace=(NS,),
        dialects=["trino"],
    )
    assert INLINED_FUNCTIONS_KEY not in made.metadata.current_version.summary


def test_create_view_with_dialects_inlines_too(lake: SqlCatalog) -> None:
    schema, queries = VIEWS["v_table"]
    made = lake.create_or_replace_view(
        (NS, "created_with_dialects"),
        schema=schema,
        queries={"duckdb": queries["duckdb"]},
        default_namespace=(NS,),
        dialects=["trino", "spark"],
    )
    version = made.metadata.current_version
    assert sorted(version.dialects) == ["duckdb", "spark", "trino"]
    assert "by_color" not in version.sql_for("spark").sql
    assert inlined(version.summary) == [("fn.by_color", "string", 1)]


def test_derived_dialects_inline_and_record_refusals_by_code(lake: SqlCatalog) -> None:
    schema, queries = VIEWS["v_table"]
    made = lake.create_or_replace_view(
        (NS, "derived"),
        schema=schema,
        queries={"duckdb": queries["duckdb"]},
        default_namespace=(NS,),
        properties={DERIVE: "trino,spark"},
    )
    version = made.metadata.current_version
    assert sorted(version.dialects) == ["duckdb", "spark", "trino"]
    assert inlined(version.summary) == [("fn.by_color", "string", 1)]
    # an argument whose type engines disagree on cannot be inlined: the dialect is left out, with
    # the reason's code recorded, and the view keeps its own SQL
    made = lake.create_or_replace_view(
        (NS, "derived"),
        schema=schema,
        queries={"duckdb": "SELECT id, label(s, abs(i)) AS s FROM edge"},
        default_namespace=(NS,),
        properties={DERIVE: "trino"},
    )
    version = made.metadata.current_version
    assert version.dialects == ("duckdb",)
    assert INLINED_FUNCTIONS_KEY not in version.summary
    assert version.summary[REFUSED + "trino"] == "UDF_ARGUMENT_UNTYPED"


def test_a_call_no_definition_takes_is_refused_before_anything_is_written(
    lake: SqlCatalog, tmp_path: Path
) -> None:
    schema, _ = VIEWS["v_table"]
    lake.create_or_replace_view(
        (NS, "no_definition"),
        schema=schema,
        queries={"spark": "SELECT id, label(s, s) AS s FROM edge"},
        default_namespace=(NS,),
    )
    view = lake.load_view((NS, "no_definition"))
    with pytest.raises(NoMatchingDefinitionError):
        view.add_dialects(["trino"])
    assert view.refresh().metadata.current_version.dialects == ("spark",)


# ---------------------------------------------------------------------------------------------- when
# a called function changes: lint reports it, sync_dialects translates again


def test_a_changed_function_makes_the_translation_stale_until_synced(lake: SqlCatalog) -> None:
    from iceview.function.changes import NewDefinition
    from iceview.view.functions import function_problems, stale_inlined

    lake.create_function(
        (NS, "twice"), NewDefinition([("x", "int")], "int", {"duckdb": "x * 2", "spark": "x * 2"})
    )
    schema, _ = VIEWS["v_table"]
    lake.create_or_replace_view(
        (NS, "uses_twice"),
        schema=schema,
        queries={"duckdb": "SELECT id, CAST(twice(i) AS VARCHAR) AS s FROM edge"},
        default_namespace=(NS,),
    )
    view = lake.load_view((NS, "uses_twice")).add_dialects(["trino"])
    assert "* 2" in view.metadata.current_version.sql_for("trino").sql
    assert stale_inlined(view.metadata.current_version, lake) == []
    assert function_problems(view.metadata, lake) == []

    lake.load_function((NS, "twice")).replace_definition(
        "int", {"duckdb": "x * 3", "spark": "x * 3"}, sync_views=False
    )
    stale = stale_inlined(view.refresh().metadata.current_version, lake)
    assert stale == ["fn.twice(int) version 1 was inlined; its current version is 2"]
    problems = function_problems(view.metadata, lake)
    assert [(p.code, p.path) for p in problems] == [("stale-inlined-function", "$.versions[1].summary")]

    # the view derives no dialects by property: the ones its version derived are derived again
    synced = view.sync_dialects()
    version = synced.metadata.current_version
    assert version.version_id == 3
    assert "* 3" in version.sql_for("trino").sql and "* 2" not in version.sql_for("trino").sql
    assert inlined(version.summary) == [("fn.twice", "int", 2)]
    assert stale_inlined(version, lake) == []

    lake.drop_function((NS, "twice"))
    assert stale_inlined(synced.refresh().metadata.current_version, lake) == [
        "fn.twice(int) version 2 was inlined; the function no longer exists"
    ]
    # translating again cannot make trino now, and a replace may not drop a dialect (Java's
    # replace.drop-dialect.allowed): nothing is committed, and lint keeps saying why
    with pytest.raises(DialectDropError):
        synced.sync_dialects()
    assert synced.refresh().metadata.current_version.version_id == 3


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("SELECT id, s FROM edge WHERE fn.nope(i) > 0", "missing-function"),
        ("SELECT id, label(s, s) AS s FROM edge", "no-matching-definition"),
        ("SELECT id, label(s, abs(i)) AS s FROM edge", "udf-argument-untyped"),
        ("SELECT id, s FROM edge WHERE add_one(i) > 0", None),
    ],
)
def test_lint_problems_of_a_view_with_its_functions(lake: SqlCatalog, sql: str, code: str | None) -> None:
    from iceview.view.functions import function_problems

    schema, _ = VIEWS["v_table"]
    view = lake.create_or_replace_view(
        (NS, "linted"), schema=schema, queries={"spark": sql}, default_namespace=(NS,)
    )
    problems = function_problems(view.metadata, lake)
    if code is None:
        assert problems == []
        return
    assert [p.code for p in problems] == [code]
    index = len(view.metadata.versions) - 1
    assert problems[0].path == f"$.versions[{index}].representations[0].sql"


def test_a_views_functions_are_its_dependencies(lake: SqlCatalog) -> None:
    from iceview.view.functions import called_functions

    assert called_functions(lake.load_view((NS, "v_calls")).metadata, lake) == [
        ("fn", "add_one"),
        ("fn", "label"),
    ]
    assert called_functions(lake.load_view((NS, "v_table")).metadata, lake) == [("fn", "by_color")]
    schema, _ = VIEWS["v_table"]
    plain = lake.create_or_replace_view(
        (NS, "calls_nothing"),
        schema=schema,
        queries={"spark": "SELECT id, date_format(dt, 'y') AS s FROM edge WHERE fn.nope(i) > 0"},
        default_namespace=(NS,),
    )
    assert called_functions(plain.metadata, lake) == []


# ---------------------------------------------------------------------------------------------- found by
# the blind outside check of derived dialects (each failed before its fix)


def test_adding_a_definition_that_calls_now_take_makes_the_translation_stale(lake: SqlCatalog) -> None:
    from iceview.function.changes import NewDefinition
    from iceview.view.functions import stale_inlined

    lake.create_function((NS, "kind"), NewDefinition([("x", "long")], "string", {"duckdb": "'long'"}))
    schema, _ = VIEWS["v_table"]
    lake.create_or_replace_view(
        (NS, "uses_kind"),
        schema=schema,
        queries={"duckdb": "SELECT id, kind(i) AS s FROM edge"},
        default_namespace=(NS,),
    )
    view = lake.load_view((NS, "uses_kind")).add_dialects(["trino"])
    assert stale_inlined(view.metadata.current_version, lake) == []
    lake.load_function((NS, "kind")).add_definition(
        NewDefinition([("x", "int")], "string", {"duckdb": "'int'"}), sync_views=False
    )
    assert stale_inlined(view.refresh().metadata.current_version, lake) == [
        "its calls now resolve to fn.kind(int) instead of fn.kind(long)"
    ]
    synced = view.sync_dialects().metadata.current_version
    assert "'int'" in synced.sql_for("trino").sql
    assert inlined(synced.summary) == [("fn.kind", "int", 1)]


def test_add_dialects_of_a_view_that_derives_its_dialects_says_where_they_go(lake: SqlCatalog) -> None:
    from iceview.errors import InvalidArgumentError

    schema, queries = VIEWS["v_table"]
    view = lake.create_or_replace_view(
        (NS, "derives_duckdb"),
        schema=schema,
        queries={"spark": queries["spark"]},
        default_namespace=(NS,),
        properties={DERIVE: "duckdb"},
    )
    before = view.metadata.current_version.version_id
    with pytest.raises(InvalidArgumentError, match=r"add trino to that property instead"):
        view.add_dialects(["trino"])
    assert view.refresh().metadata.current_version.version_id == before
    assert view.add_dialects(["duckdb"]).metadata.current_version.version_id == before  # has it


def test_refusal_codes_of_calls_no_definition_takes(lake: SqlCatalog) -> None:
    schema, _ = VIEWS["v_table"]
    for name, sql, code in [
        ("no_definition_derived", "SELECT id, label(s, s) AS s FROM edge", "UDF_NO_MATCHING_DEFINITION"),
        (
            "ambiguous_derived",
            "SELECT id, CAST(add_one(NULL) AS STRING) AS s FROM edge",
            "UDF_AMBIGUOUS_CALL",
        ),
    ]:
        made = lake.create_or_replace_view(
            (NS, name),
            schema=schema,
            queries={"duckdb": sql},
            default_namespace=(NS,),
            properties={DERIVE: "trino"},
        )
        assert made.metadata.current_version.summary[REFUSED + "trino"] == code


def test_calls_in_a_window_partition_and_in_order_by_of_a_grouped_query(lake: SqlCatalog) -> None:
    from iceview.duckdb import DuckDBViews

    with DuckDBViews(lake, namespace=NS) as views:
        assert views.execute(
            "SELECT id, count(*) OVER (PARTITION BY label(color, 0)) AS n FROM edge ORDER BY id"
        ) == [(1, 2), (2, 2), (3, 2), (4, 1), (5, 2)]
        assert views.execute(
            "SELECT label(color, 1) AS k, count(*) AS n FROM edge GROUP BY color ORDER BY label(color, 1)"
        ) == [("red:1", 2), ("yellow:1", 1), ("∅:1", 2)]
        with pytest.raises(Exception, match="UDF_CALL_FORM"):
            views.execute("SELECT label(color, 0) OVER (ORDER BY id) FROM edge")


def test_a_change_of_a_definition_derives_the_views_that_inlined_it_again(lake: SqlCatalog) -> None:
    """Through the Function handle, a replaced, added, rolled back or dropped definition re-derives
    the translated dialects of every view that inlined the function, in the view's own commit; a
    property change does not, and a view that cannot be derived again is reported, not committed."""
    from iceview.function.changes import NewDefinition
    from iceview.view.functions import stale_inlined

    function = lake.create_function(
        (NS, "thrice"), NewDefinition([("x", "int")], "int", {"duckdb": "x * 3", "spark": "x * 3"})
    )
    schema, _ = VIEWS["v_table"]
    for name in ("uses_thrice", "also_thrice"):
        lake.create_or_replace_view(
            (NS, name),
            schema=schema,
            queries={"duckdb": "SELECT id, CAST(thrice(i) AS VARCHAR) AS s FROM edge"},
            default_namespace=(NS,),
        )
        lake.load_view((NS, name)).add_dialects(["trino"])
    lake.create_or_replace_view(
        (NS, "no_thrice"),
        schema=schema,
        queries={"duckdb": "SELECT id, s FROM edge"},
        default_namespace=(NS,),
    )
    untouched = lake.load_view((NS, "no_thrice")).metadata_location

    function.update_properties({"owner": "me"})
    assert function.synced is None  # no definition changed: nothing to derive

    function.replace_definition("int", {"duckdb": "x * 4", "spark": "x * 4"})
    assert function.synced is not None
    assert sorted(function.synced.synced) == ["lake.fn.also_thrice", "lake.fn.uses_thrice"]
    assert function.synced.failed == ()
    for name in ("uses_thrice", "also_thrice"):
        version = lake.load_view((NS, name)).metadata.current_version
        assert version.version_id == 3 and "* 4" in version.sql_for("trino").sql
        assert inlined(version.summary) == [("fn.thrice", "int", 2)]
        assert stale_inlined(version, lake) == []
    assert lake.load_view((NS, "no_thrice")).metadata_location == untouched

    # a rollback derives them again too
    lake.drop_view((NS, "also_thrice"))
    rolled = function.set_current_version("int", 1)
    assert rolled.synced is not None and rolled.synced.synced == ("lake.fn.uses_thrice",)
    assert "* 3" in lake.load_view((NS, "uses_thrice")).metadata.current_version.sql_for("trino").sql

    # an overload no call can use any more than before: the views are in step, nothing is committed
    before = lake.load_view((NS, "uses_thrice")).metadata_location
    added = function.add_definition(NewDefinition([("x", "string")], "string", {"duckdb": "x || x"}))
    assert added.synced is not None and added.synced.in_step == ("lake.fn.uses_thrice",)
    assert lake.load_view((NS, "uses_thrice")).metadata_location == before

    # a body the view's dialects cannot take: the view is reported and keeps its version
    function.replace_definition("int", {"duckdb": "x * 5"})  # no spark or trino body: translated
    changed = function.replace_definition("int", {"snowflake": "x * 6"})
    assert changed.synced is not None and [v for v, _ in changed.synced.failed] == ["lake.fn.uses_thrice"]
    assert stale_inlined(lake.load_view((NS, "uses_thrice")).metadata.current_version, lake)
