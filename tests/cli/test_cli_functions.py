"""``iceview functions``, and ``show``, ``history`` and ``rollback`` on SQL UDFs: by name (a name that
holds no view), with ``--function`` (a name that holds both), and a function metadata file."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from cli_support import Demo
from click.testing import Result

from iceview.function import NewDefinition

ADD_ONE = [
    NewDefinition([("x", "int")], "int", {"spark": "x + 1"}, doc="ints"),
    NewDefinition([("x", "decimal(9,2)")], "decimal(10,2)", {"spark": "x + 1", "trino": "x + 1"}),
]


@pytest.fixture
def with_functions(demo: Demo) -> Demo:
    """The demo catalog plus ``default.add_one`` (int: versions 1-3, 3 current; decimal: 1) and
    ``analytics.daily.users``, a function named as a view."""
    with demo.catalog() as catalog:
        fn = catalog.create_function("default.add_one", ADD_ONE, doc="Adds one: ünïcode")
        fn.replace_definition("int", {"spark": "x + 2"})
        fn.replace_definition("int", {"spark": "x + 3"}, on_null_input="return-null")
        catalog.create_function(
            "analytics.daily.users",
            NewDefinition([("n", "long")], "long", {"spark": "n"}),
            properties={"k": "v"},
        )
    return demo


def test_functions_lists_every_function(with_functions: Demo, run: Callable[..., Result]) -> None:
    listed = run("functions")
    assert listed.exit_code == 0, listed.output
    assert listed.output.split() == ["analytics.daily.users", "default.add_one"]
    only = run("functions", "default", "-o", "json")
    assert json.loads(only.output) == {
        "catalog": "demo",
        "namespace": "default",
        "functions": ["default.add_one"],
    }
    missing = run("functions", "nowhere")
    assert missing.exit_code != 0 and "nowhere" in missing.output


def test_show_a_function(with_functions: Demo, run: Callable[..., Result]) -> None:
    shown = run("show", "default.add_one")
    assert shown.exit_code == 0, shown.output
    text = shown.output
    assert "default.add_one" in text and "Adds one: ünïcode" in text
    assert "definition int: udf(x int) returns int" in text
    assert "definition decimal(9,2): udf(x decimal(9,2)) returns decimal(10,2)" in text
    assert "x + 3" in text and "x + 1" in text and "return-null" in text
    as_json = json.loads(run("show", "default.add_one", "-o", "json").output)
    assert as_json["function"] == "default.add_one"
    assert as_json["current-definition-versions"] == {"int": 3, "decimal(9,2)": 1}
    assert [d["definition-id"] for d in as_json["definitions"]] == ["int", "decimal(9,2)"]
    # a name that holds a view and a function: the view, unless --function
    view = json.loads(run("show", "analytics.daily.users", "-o", "json").output)
    assert "view-uuid" not in view and view["view"] == "analytics.daily.users"
    function = json.loads(run("show", "analytics.daily.users", "--function", "-o", "json").output)
    assert function["function"] == "analytics.daily.users" and function["properties"] == {"k": "v"}
    missing = run("show", "default.nope", "--function")
    assert missing.exit_code != 0 and "function default.nope does not exist" in missing.output


def test_show_and_history_of_a_function_metadata_file(
    with_functions: Demo, run: Callable[..., Result]
) -> None:
    with with_functions.catalog() as catalog:
        location = catalog.load_function("default.add_one").metadata_location
    assert location is not None
    shown = json.loads(run("show", location, "-o", "json").output)
    assert shown["function"] is None and shown["metadata-file"] == location
    assert shown["current-definition-versions"] == {"int": 3, "decimal(9,2)": 1}
    history = json.loads(run("history", location, "-o", "json").output)
    assert [p["definition-versions"] for p in history["history"]][-1] == {"int": 3, "decimal(9,2)": 1}


def test_history_of_a_function(with_functions: Demo, run: Callable[..., Result]) -> None:
    as_json = json.loads(run("history", "default.add_one", "-o", "json").output)
    assert [p["definition-versions"] for p in as_json["history"]] == [
        {"int": 1, "decimal(9,2)": 1},
        {"int": 2, "decimal(9,2)": 1},
        {"int": 3, "decimal(9,2)": 1},
    ]
    assert [p["current"] for p in as_json["history"]] == [False, False, True]
    assert [v["on-null-input"] for v in as_json["versions"]["int"]] == ["call", "call", "return-null"]
    text = run("history", "default.add_one").output
    assert "Definition log" in text and "Versions of int" in text and "3 (current)" in text
    csv = run("history", "default.add_one", "-o", "csv")
    assert csv.exit_code == 0, csv.output
    lines = csv.output.strip().splitlines()
    assert lines[0] == "from,until,current,definition-id,version-id"
    assert len(lines) == 1 + 3 * 2


def test_rollback_a_function(with_functions: Demo, run: Callable[..., Result]) -> None:
    ambiguous = run("rollback", "default.add_one", "--to", "1")
    assert ambiguous.exit_code != 0 and "give --definition" in ambiguous.output
    done = run("rollback", "default.add_one", "--definition", "int", "--to", "1")
    assert done.exit_code == 0, done.output
    assert "int 3 -> 1" in done.output
    again = run("rollback", "default.add_one", "--definition", "int", "--to", "1")
    assert "nothing changed" in again.output
    unknown = run("rollback", "default.add_one", "--definition", "int", "--to", "9")
    assert unknown.exit_code != 0 and "has no version 9" in unknown.output
    wrong = run("rollback", "default.add_one", "--definition", "string", "--to", "1")
    assert wrong.exit_code != 0 and "no definition 'string'" in wrong.output
    with with_functions.catalog() as catalog:
        fn = catalog.load_function("default.add_one")
        assert fn.metadata.current_definition_versions == {"int": 1, "decimal(9,2)": 1}
        second_entry = fn.history[1]
    # --at: every definition back to the versions of that time, in one commit
    at = run("rollback", "default.add_one", "--at", f"{second_entry.timestamp_ms}ms", "-o", "json")
    assert at.exit_code == 0, at.output
    result = json.loads(at.output)
    assert result["changed"] and result["current-definition-versions"] == {"int": 2, "decimal(9,2)": 1}
    # --definition on a view is a usage error
    assert run("rollback", "default.event_agg", "--to", "1", "--definition", "int").exit_code == 2


def test_add_dialect_to_a_function(with_functions: Demo, run: Callable[..., Result]) -> None:
    added = run("add-dialect", "default.add_one", "duckdb", "--definition", "decimal(9,2)", "-o", "json")
    assert added.exit_code == 0, added.output
    report = json.loads(added.output)
    assert report["changed"] is True
    assert report["new-versions"] == {"decimal(9,2)": 2}
    with with_functions.catalog() as catalog:
        md = catalog.load_function("default.add_one").metadata
    current = md.current_version("decimal(9,2)")
    assert current.sql_for("duckdb") is not None and current.sql_for("trino").sql == "x + 1"  # kept
    assert md.current_version("int").version_id == 3  # not chosen: untouched
    again = run("add-dialect", "default.add_one", "duckdb", "--definition", "decimal(9,2)")
    assert again.exit_code == 0 and "nothing changed" in again.output
    # int's body is legacy-Spark int arithmetic: refused, with the body's own words
    refused = run("add-dialect", "default.add_one", "duckdb")
    assert refused.exit_code == 7 and "x + 3" in refused.output and "__iceview" not in refused.output


def test_add_dialect_to_a_function_names_every_refusal_and_commits_nothing(
    with_functions: Demo, run: Callable[..., Result]
) -> None:
    with with_functions.catalog() as catalog:
        catalog.create_function(
            "default.wrapping",
            [
                NewDefinition([("x", "int")], "int", {"trino": "x * 2"}),
                NewDefinition([("x", "double")], "double", {"trino": "x * 2"}),
            ],
        )
        before = catalog.load_function("default.wrapping").metadata_location
    refused = run("add-dialect", "default.wrapping", "spark")
    assert refused.exit_code == 7, refused.output
    assert "nothing was committed" in refused.output and "(int) to spark" in refused.output
    with with_functions.catalog() as catalog:
        assert catalog.load_function("default.wrapping").metadata_location == before
    only = run("add-dialect", "default.wrapping", "spark", "--definition", "double", "-o", "json")
    assert only.exit_code == 0, only.output
    assert json.loads(only.output)["new-versions"] == {"double": 2}
    unknown = run("add-dialect", "default.wrapping", "spark", "--definition", "string")
    assert unknown.exit_code == 2 and "string" in unknown.output


def test_translate_a_function(with_functions: Demo, run: Callable[..., Result]) -> None:
    shown = run("translate", "default.add_one", "--to", "duckdb", "-o", "json")
    assert shown.exit_code == 7, shown.output  # int's legacy-Spark int arithmetic is refused
    assert "int" in json.loads(shown.output)["refused"]
    with with_functions.catalog() as catalog:
        catalog.create_function(
            "default.half", NewDefinition([("x", "double")], "double", {"spark": "x / 2"})
        )
    half = run("translate", "default.half", "--to", "trino", "-o", "json")
    assert half.exit_code == 0, half.output
    (body,) = json.loads(half.output)["bodies"]
    assert body["definition-id"] == "double" and body["source"] == "spark" and "x" in body["sql"]
    text = run("translate", "default.half", "--to", "duckdb")
    assert text.exit_code == 0 and "-- (double) from spark" in text.output
