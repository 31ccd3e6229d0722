"""iceview.sql.expand's ``check_output`` hook: the engine's check of each view's query against the
stored schema (Iceberg-Spark's up-cast rules for Spark), called once per view, innermost first; its
column count sets the alias list (a ``SELECT *`` widened by new columns) and its errors propagate."""

from __future__ import annotations

import pytest
from pyiceberg.types import LongType, StringType

from iceview.errors import ViewExpansionError
from iceview.sql import ResolvedView, ViewExpander, expand
from sql.views_support import Views

KNOWN = {"prod", "spark_catalog"}


@pytest.fixture
def views() -> Views:
    v = Views()
    v.add("prod.db.base", "SELECT * FROM events", [("id", LongType()), ("name", StringType())])
    v.add("prod.db.mid", "SELECT * FROM base", [("id", LongType()), ("name", StringType())])
    v.add("prod.db.top", "SELECT name FROM mid JOIN base USING (id)", [("name", StringType())])
    return v


def test_hook_sees_each_view_once_innermost_first_and_sets_the_width(views: Views) -> None:
    seen: list[tuple[str, str]] = []

    def check(view: ResolvedView, sql: str) -> int | None:
        seen.append((".".join(view.name), sql))
        return 3 if view.name[-1] == "base" else None

    x = ViewExpander(views.resolve, known_catalogs=KNOWN, check_output=check)
    out = x.expand("SELECT * FROM top", current_catalog="prod", current_namespace=["db"])
    assert [name for name, _ in seen] == ["prod.db.base", "prod.db.mid", "prod.db.top"]
    # base's query returns 3 columns (the table gained one): 3 aliases, the first 2 are read
    assert out.count("AS `__v`(`__c0`, `__c1`, `__c2`)") == 2  # base is expanded twice, checked once
    assert "CAST(`__c2`" not in out
    # the hook sees each view with the (checked) views inside it as stand-ins of their types
    assert dict(seen)["prod.db.base"] == "SELECT * FROM prod.db.events"
    assert dict(seen)["prod.db.mid"] == (
        "SELECT * FROM (SELECT CAST(NULL AS BIGINT) AS `id`, CAST(NULL AS STRING) AS `name`) AS `base`"
    )
    top = dict(seen)["prod.db.top"]
    assert "events" not in top and top.count("SELECT CAST(NULL AS BIGINT) AS `id`") == 2


def test_hook_errors_propagate_from_any_depth(views: Views) -> None:
    def check(view: ResolvedView, sql: str) -> int | None:
        if view.name[-1] == "base":
            raise ViewExpansionError(f"View {'.'.join(view.name)} cannot be read: column id narrowed")
        return None

    with pytest.raises(ViewExpansionError, match=r"prod\.db\.base cannot be read: column id narrowed"):
        expand(
            "SELECT * FROM top",
            resolve=views.resolve,
            current_catalog="prod",
            current_namespace=["db"],
            known_catalogs=KNOWN,
            check_output=check,
        )


def test_hook_count_below_the_schema_is_a_typed_error(views: Views) -> None:
    x = ViewExpander(views.resolve, known_catalogs=KNOWN, check_output=lambda view, sql: 1)
    with pytest.raises(
        ViewExpansionError, match=r"prod\.db\.base cannot be read: its SQL returns 1 column but"
    ):
        x.expand("SELECT * FROM base", current_catalog="prod", current_namespace=["db"])


def test_keyword_name_parts_after_a_dot_are_names(views: Views) -> None:
    views.add("prod.db.outer", "SELECT s.order FROM prod.db.join", [("order", LongType())])
    x = ViewExpander(views.resolve, known_catalogs=KNOWN)
    out = x.expand("SELECT * FROM prod.db.outer", current_catalog="prod", current_namespace=["db"])
    assert "FROM prod.db.join" in out and "SELECT s.order FROM" in out and "AS `outer`" in out


def test_table_query_form_and_identifier_clause_are_view_references(views: Views) -> None:
    views.add("prod.db.tb", "TABLE base", [("id", LongType()), ("name", StringType())])
    views.add("prod.db.ib", "SELECT * FROM IDENTIFIER('base') WHERE id > 0", [("id", LongType())])
    x = ViewExpander(views.resolve, known_catalogs=KNOWN)
    out = x.expand("TABLE tb", current_catalog="prod", current_namespace=["db"])
    assert out.startswith("SELECT * FROM (SELECT CAST(`__c0` AS BIGINT) AS `id`")
    assert out.endswith(") AS `__v`(`__c0`, `__c1`)) AS `tb`")
    assert "SELECT * FROM prod.db.events" in out and "AS `base`" in out and "TABLE" not in out
    out = x.expand(
        "SELECT * FROM IDENTIFIER('prod.db.ib') AS z", current_catalog="prod", current_namespace=["x"]
    )
    assert "IDENTIFIER" not in out and out.endswith(") AS z") and "AS `base` WHERE id > 0" in out
    # outer tables keep their form; tables inside views are qualified in it
    out = x.expand(
        "SELECT * FROM (TABLE tb) UNION TABLE events", current_catalog="prod", current_namespace=["db"]
    )
    assert out.endswith(" UNION TABLE events")
    views.add("prod.db.te", "TABLE events", [("id", LongType())])
    assert "\nTABLE prod.db.events\n" in x.expand(
        "SELECT * FROM te", current_catalog="prod", current_namespace=["db"]
    )


def test_names_spark_cannot_lex_are_left_to_spark(views: Views) -> None:
    views.add("prod.db.vüé", "SELECT 1", [("one", LongType())])
    x = ViewExpander(views.resolve, known_catalogs=KNOWN)
    # unquoted: Spark's parser refuses it, so it is left as written for Spark's own error
    assert x.expand("SELECT * FROM db.vüé", current_catalog="prod", current_namespace=["db"]) == (
        "SELECT * FROM db.vüé"
    )
    assert "AS `vüé`" in x.expand("SELECT * FROM db.`vüé`", current_catalog="prod", current_namespace=["db"])
    # other dialects lex it as a name
    views.add("prod.db.wüé", "SELECT 2", [("two", LongType())], dialect="duckdb")
    duck = ViewExpander(views.resolve, known_catalogs=KNOWN, dialect="duckdb")
    assert "SELECT 2" in duck.expand("SELECT * FROM db.wüé", current_catalog="prod", current_namespace=["db"])


def test_check_later_puts_checks_off_and_may_return_a_guard() -> None:
    v = Views()
    v.add("prod.db.base", "SELECT id, name FROM events", [("id", LongType()), ("name", StringType())])
    v.add("prod.db.mid", "SELECT id, name FROM base", [("id", LongType()), ("name", StringType())])
    checked: list[str] = []
    later: list[tuple[str, str, int, list[str]]] = []

    def check(view: ResolvedView, sql: str) -> int | None:
        checked.append(view.name[-1])
        return None

    def check_later(view: ResolvedView, sql: str, width: int, columns: list[str]) -> str | None:
        later.append((view.name[-1], sql, width, list(columns)))
        return "TRUE OR guarded(`__c0`)" if view.name[-1] == "base" else None

    x = ViewExpander(v.resolve, known_catalogs=KNOWN, check_output=check, check_later=check_later)
    out = x.expand("SELECT * FROM mid", current_catalog="prod", current_namespace=["db"])
    assert checked == []  # both widths are visible: nothing is checked during expansion
    assert [(name, width, cols) for name, _, width, cols in later] == [
        ("base", 2, ["`__c0`", "`__c1`"]),
        ("mid", 2, ["`__c0`", "`__c1`"]),
    ]
    assert later[1][1] == (
        "SELECT id, name FROM (SELECT CAST(NULL AS BIGINT) AS `id`, CAST(NULL AS STRING) AS `name`) AS `base`"
    )
    # the guard sits under base's casts, over base's query; mid has none
    assert out.count(" WHERE TRUE OR guarded(`__c0`)") == 1
    assert (
        "FROM (\nSELECT id, name FROM prod.db.events\n) AS `__v`(`__c0`, `__c1`) WHERE TRUE OR guarded(`__c0`)"
        in out
    )
    assert out.endswith("AS `__v`(`__c0`, `__c1`)) AS `mid`")
