"""Trino 476 and iceview on the same catalogs (``fixtures.trino_server``; ``docs/trino.md``).

Both ways, on both of Trino's Iceberg catalog kinds: ``iceberg.catalog.type=rest`` on ``iceview
serve`` and ``iceberg.catalog.type=jdbc`` on the PostgreSQL tables iceview's SQL catalog writes.
Trino makes the tables (data with NULLs, decimals and non-ASCII text); iceview writes views Trino
lists, shows and runs; Trino's view DDL writes views iceview loads, validates and shows the history of.
"""

from __future__ import annotations

import itertools
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pyiceberg.schema import Schema
from pyiceberg.types import DecimalType, IntegerType, NestedField, StringType

from fixtures.trino_server import JDBC_CATALOG, OAUTH_CATALOG, REST_CATALOG, TrinoCatalogs
from iceview.cli.app import cli
from iceview.spec import validate

pytestmark = [pytest.mark.trino, pytest.mark.postgres]

ROWS = [[1, "Zoë", Decimal("12.50")], [2, None, Decimal("-0.01")], [3, "東京 ☃", None]]
SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "amount", DecimalType(10, 2), required=False),
)
_numbers = itertools.count()


KINDS = ["rest", "jdbc", "oauth"]
"""Trino's catalogs: on ``iceview serve``, on PostgreSQL, on ``iceview serve --auth-file`` (OAuth2)."""


def iceview_catalog(trino: TrinoCatalogs, kind: str, **properties: str) -> Any:
    if kind == "rest":
        return trino.iceview_rest(**properties)
    if kind == "oauth":
        return trino.iceview_oauth(**properties)
    return trino.iceview_jdbc(**properties)


def trino_catalog(kind: str) -> str:
    return {"rest": REST_CATALOG, "jdbc": JDBC_CATALOG, "oauth": OAUTH_CATALOG}[kind]


def items_table(trino: TrinoCatalogs, kind: str) -> str:
    """A fresh schema with table ``items`` (:data:`ROWS`), made by Trino; the schema's name."""
    catalog = trino_catalog(kind)
    schema = f"s{os.getpid()}_{next(_numbers)}"
    trino.query(f"CREATE SCHEMA {catalog}.{schema}")
    trino.query(f"CREATE TABLE {catalog}.{schema}.items (id INTEGER, name VARCHAR, amount DECIMAL(10, 2))")
    trino.query(
        f"INSERT INTO {catalog}.{schema}.items VALUES "
        "(1, 'Zoë', DECIMAL '12.50'), (2, NULL, DECIMAL '-0.01'), (3, '東京 ☃', NULL)"
    )
    return schema


def by_id(rows: list[list[Any]]) -> list[list[Any]]:
    return sorted(rows, key=lambda r: r[0])


@pytest.mark.parametrize("kind", KINDS)
def test_trino_reads_views_iceview_writes(trino: TrinoCatalogs, kind: str) -> None:
    catalog = trino_catalog(kind)
    schema = items_table(trino, kind)
    ours = iceview_catalog(trino, kind)
    # Trino SQL written by hand: unqualified names resolve through default-catalog, which must be
    # Trino's name of the catalog (without one Trino ignores default-namespace)
    ours.create_view(
        (schema, "by_hand"),
        schema=SCHEMA,
        queries={"trino": "SELECT id, name, amount FROM items"},
        default_namespace=(schema,),
        default_catalog=catalog,
        properties={"comment": "written by iceview"},
    )
    # Spark SQL translated by iceview: the catalog says what Trino calls it, so the trino SQL names
    # Trino's catalog (the REST client is called `prod`, as Spark's catalog would be)
    mapping = {"iceview.trino.catalog-name": catalog}
    prod = (
        trino.iceview_rest("prod", **mapping) if kind == "rest" else iceview_catalog(trino, kind, **mapping)
    )
    translated = prod.create_view(
        (schema, "translated"),
        schema=SCHEMA,
        queries={"spark": "SELECT id, name, amount FROM items"},
        default_namespace=(schema,),
        dialects=["trino", "duckdb"],
    )
    assert f"{catalog}.{schema}.items" in translated.sql_for("trino").sql
    # a Spark-only view: listed by SHOW TABLES, left out of information_schema.views, not runnable
    ours.create_view(
        (schema, "spark_only"),
        schema=SCHEMA,
        queries={"spark": "SELECT id, name, amount FROM items"},
        default_namespace=(schema,),
    )

    shown = {r[0] for r in trino.query(f"SHOW TABLES FROM {catalog}.{schema}")}
    assert shown == {"items", "by_hand", "translated", "spark_only"}
    views = trino.query(
        f"SELECT table_name, view_definition FROM {catalog}.information_schema.views "
        f"WHERE table_schema = '{schema}' ORDER BY table_name"
    )
    assert [v[0] for v in views] == ["by_hand", "translated"]
    assert views[0][1] == "SELECT id, name, amount FROM items"
    create = trino.query(f"SHOW CREATE VIEW {catalog}.{schema}.by_hand")[0][0]
    assert create.startswith(f"CREATE VIEW {catalog}.{schema}.by_hand")
    assert "COMMENT 'written by iceview'" in create
    for view in ("by_hand", "translated"):
        assert by_id(trino.query(f"SELECT * FROM {catalog}.{schema}.{view}")) == ROWS
    columns = trino.query(f"DESCRIBE {catalog}.{schema}.translated")
    assert [c[:2] for c in columns] == [["id", "integer"], ["name", "varchar"], ["amount", "decimal(10,2)"]]
    with pytest.raises(Exception, match=r"ICEBERG_UNSUPPORTED_VIEW_DIALECT|Cannot read unsupported dialect"):
        trino.query(f"SELECT * FROM {catalog}.{schema}.spark_only")


def cli_env(trino: TrinoCatalogs, home: Path) -> dict[str, str]:
    """An environment in which ``iceview -c iceview_rest`` / ``-c iceview_jdbc`` are the shared catalogs."""
    home.mkdir(exist_ok=True)
    (home / ".pyiceberg.yaml").write_text(
        "catalog:\n"
        f"  {REST_CATALOG}:\n    type: rest\n    uri: {trino.rest_uri}\n"
        f"  {JDBC_CATALOG}:\n    type: sql\n    uri: {trino.jdbc_url}\n    warehouse: {trino.jdbc_warehouse}\n"
        f"  {OAUTH_CATALOG}:\n    type: rest\n    uri: {trino.oauth_uri}\n    credential: {trino.oauth_credential}\n"
        f"    oauth2-server-uri: {trino.oauth_uri.rstrip('/')}/v1/oauth/tokens\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYICEBERG_", "ICEVIEW_"))}
    return {**env, "PYICEBERG_HOME": str(home)}


@pytest.mark.parametrize("kind", KINDS)
def test_iceview_reads_views_trino_writes(trino: TrinoCatalogs, kind: str, tmp_path: Path) -> None:
    catalog = trino_catalog(kind)
    schema = items_table(trino, kind)
    ours = iceview_catalog(trino, kind)

    def loaded(name: str) -> Any:
        view = ours.load_view((schema, name))
        assert validate(view.metadata) == []
        return view

    trino.query(
        "CREATE VIEW v COMMENT 'by Trino' AS SELECT id, name FROM items", catalog=catalog, schema=schema
    )
    view = loaded("v")
    version = view.metadata.current_version
    assert [(r.dialect, r.sql.split()) for r in version.representations] == [
        ("trino", ["SELECT", "id", ",", "name", "FROM", "items"])
    ]
    assert version.default_catalog == catalog  # Trino writes its session catalog
    assert version.default_namespace == (schema,)
    assert version.summary["engine-name"] == "trino"
    assert version.summary["engine-version"] == "476"
    assert view.properties["comment"] == "by Trino"
    assert [f.name for f in view.schema.fields] == ["id", "name"]
    assert [e.version_id for e in view.history] == [1]

    trino.query(
        "CREATE OR REPLACE VIEW v AS SELECT id, amount FROM items WHERE id < 3",
        catalog=catalog,
        schema=schema,
    )
    view = loaded("v")
    assert [e.version_id for e in view.history] == [1, 2]
    assert [f.name for f in view.schema.fields] == ["id", "amount"]
    assert "WHERE (id < 3)" in view.sql_for("trino").sql

    trino.query(f"COMMENT ON VIEW {catalog}.{schema}.v IS 'Zoë''s view'")
    view = loaded("v")
    assert view.properties["comment"] == "Zoë's view"
    assert [e.version_id for e in view.history] == [1, 2]  # a property change, no new version

    trino.query(f"ALTER VIEW {catalog}.{schema}.v RENAME TO {catalog}.{schema}.w")
    assert not ours.view_exists((schema, "v"))
    view = loaded("w")
    assert [e.version_id for e in view.history] == [1, 2]

    # iceview's command line sees the same view
    runner = CliRunner()
    env = cli_env(trino, tmp_path / "home")
    history = runner.invoke(cli, ["-c", catalog, "history", f"{schema}.w"], env=env, catch_exceptions=False)
    assert history.exit_code == 0, history.output
    assert "current version 2" in history.output
    assert "Trino 476" in history.output or "trino" in history.output.lower()
    lint = runner.invoke(cli, ["-c", catalog, "lint", f"{schema}.w"], env=env, catch_exceptions=False)
    assert lint.exit_code == 0, lint.output

    # what Trino wrote, iceview reads back in Trino
    assert by_id(trino.query(f"SELECT * FROM {catalog}.{schema}.w")) == [
        [1, Decimal("12.50")],
        [2, Decimal("-0.01")],
    ]
    trino.query(f"DROP VIEW {catalog}.{schema}.w")
    assert not ours.view_exists((schema, "w"))
    assert ours.list_views((schema,)) == []


@pytest.mark.parametrize("kind", ["rest"])
def test_iceview_views_are_never_stale(trino: TrinoCatalogs, kind: str) -> None:
    """A translated view names and casts its columns as stored: when the table gains a column,
    Trino still runs it; a Trino view of ``SELECT *`` (and a hand-written iceview one) goes stale."""
    catalog = trino_catalog(kind)
    schema = items_table(trino, kind)
    prod = iceview_catalog(trino, kind, **{"iceview.trino.catalog-name": catalog})
    prod.create_view(
        (schema, "all_items"),
        schema=SCHEMA,
        queries={"spark": "SELECT * FROM items"},
        default_namespace=(schema,),
        dialects=["trino"],
    )
    prod.create_view(
        (schema, "star_by_hand"),
        schema=SCHEMA,
        queries={"trino": "SELECT * FROM items"},
        default_namespace=(schema,),
        default_catalog=catalog,
    )
    trino.query(f"CREATE VIEW {catalog}.{schema}.trino_star AS SELECT * FROM {catalog}.{schema}.items")
    for view in ("all_items", "star_by_hand", "trino_star"):
        assert by_id(trino.query(f"SELECT * FROM {catalog}.{schema}.{view}")) == ROWS

    trino.query(f"ALTER TABLE {catalog}.{schema}.items ADD COLUMN note VARCHAR")
    trino.query(f"INSERT INTO {catalog}.{schema}.items VALUES (4, 'ß', DECIMAL '1.00', 'new')")
    expected = [*ROWS, [4, "ß", Decimal("1.00")]]
    assert by_id(trino.query(f"SELECT * FROM {catalog}.{schema}.all_items")) == expected
    for stale in ("star_by_hand", "trino_star"):
        with pytest.raises(Exception, match="VIEW_IS_STALE"):
            trino.query(f"SELECT * FROM {catalog}.{schema}.{stale}")
