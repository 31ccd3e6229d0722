"""Trino 476 and the other ways iceview writes views, on the REST catalog (``iceview serve``) and the
JDBC catalog (PostgreSQL) that Trino shares with iceview and with Spark (``docs/trino.md``).

* Views that SparkViews (Spark 3.5.9 with Iceberg 1.10.2: the session's ``java_spark``) and the
  command line (``add-dialect``, ``dialects sync``) write over a table Trino made, with the ``trino``
  dialect derived, and nested views (Trino's under Spark's and Spark's under Trino's): Trino lists,
  describes, shows and runs them, and returns the rows Spark returns.
* Trino's ``CREATE OR REPLACE VIEW`` of a view whose dialects are derived
  (``iceview.derive-dialects``): what Trino keeps and drops; ``iceview serve`` derives the other
  dialects in the same commit; on JDBC, ``iceview dialects sync`` derives them afterwards.

Spark's catalogs have Trino's names (``iceview_rest``, ``iceview_jdbc``): a view Trino writes names
its tables with Trino's catalog, and Spark resolves the same names. The served catalog of ``iceview
serve`` is called ``served``: its derivations write that name unless the view maps it to Trino's
(``iceview.trino.catalog-names``; the server does not see a client catalog's properties).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_trino_views import ROWS, SCHEMA, by_id, items_table, trino_catalog

from fixtures.iceview_serve import SERVED
from fixtures.java_session import JavaSpark
from fixtures.trino_server import JDBC_CATALOG, REST_CATALOG, TrinoCatalogs
from iceview.cli.app import cli
from iceview.spec import validate

pytestmark = [pytest.mark.trino, pytest.mark.postgres, pytest.mark.java]

KINDS = ["rest", "jdbc"]
TRINO_NAME = "iceview.trino.catalog-name"
TRINO_NAMES = "iceview.trino.catalog-names"
DERIVE = "iceview.derive-dialects"


@pytest.fixture(scope="module")
def spark(java_spark: JavaSpark, trino: TrinoCatalogs) -> JavaSpark:
    """The session's Spark with Iceberg's catalogs ``iceview_rest`` (``type=rest`` on the ``iceview
    serve`` Trino uses) and ``iceview_jdbc`` (``type=jdbc`` on Trino's PostgreSQL tables)."""
    java_spark.add_rest_catalog(REST_CATALOG, trino.rest_uri)
    java_spark.add_catalog(JDBC_CATALOG, trino.jdbc_java_url, trino.jdbc_warehouse, user=trino.jdbc_user)
    return java_spark


def ours(trino: TrinoCatalogs, kind: str) -> Any:
    """iceview's catalog with Trino's name, which tells translations that name (``iceview.trino.catalog-name``)."""
    if kind == "rest":
        return trino.iceview_rest(**{TRINO_NAME: REST_CATALOG})
    return trino.iceview_jdbc(**{TRINO_NAME: JDBC_CATALOG})


def served_names(kind: str) -> dict[str, str]:
    """View properties: on REST, ``iceview serve`` derives with its own catalog name (``served``),
    which Trino knows as ``iceview_rest``."""
    return {TRINO_NAMES: f"{SERVED}={REST_CATALOG}"} if kind == "rest" else {}


def dialects(view: Any) -> tuple[str, ...]:
    return tuple(view.metadata.current_version.dialects)


def canon(rows: list[list[Any]]) -> list[list[Any]]:
    return sorted((list(r) for r in rows), key=repr)


def spark_rows(views: Any, sql: str) -> list[list[Any]]:
    return canon([list(r) for r in views.sql(sql).collect()])


def spark_union(run: Any, catalog: str, schema: str, shape: dict[str, list[str]]) -> list[tuple[str, ...]]:
    """The rows of views ``shape`` (name: columns) in one Spark query, each as (view, column as text...)."""
    query = " UNION ALL ".join(
        f"SELECT '{name}' AS view, array({', '.join(f'CAST({c} AS STRING)' for c in columns)}) AS r "
        f"FROM {catalog}.{schema}.{name}"
        for name, columns in shape.items()
    )
    return sorted(((row[0], *row[1]) for row in run(query).collect()), key=repr)


def as_text(rows: dict[str, list[list[Any]]]) -> list[tuple[str, ...]]:
    """Trino's rows as :func:`spark_union` gives them."""
    return sorted(
        ((name, *(None if v is None else str(v) for v in row)) for name, rs in rows.items() for row in rs),
        key=repr,
    )


def causes(info: dict[str, Any] | None) -> str:
    """The messages of a Trino failure and of its causes, one a line."""
    lines = []
    while info:
        lines.append(f"{info.get('type')}: {info.get('message')}")
        info = info.get("cause")
    return "\n".join(lines)


def cli_home(trino: TrinoCatalogs, home: Path) -> dict[str, str]:
    """``iceview -c iceview_rest`` / ``-c iceview_jdbc``, each telling translations Trino's name."""
    home.mkdir(exist_ok=True)
    (home / ".pyiceberg.yaml").write_text(
        "catalog:\n"
        f"  {REST_CATALOG}:\n    type: rest\n    uri: {trino.rest_uri}\n"
        f"    {TRINO_NAME}: {REST_CATALOG}\n"
        f"  {JDBC_CATALOG}:\n    type: sql\n    uri: {trino.jdbc_url}\n    warehouse: {trino.jdbc_warehouse}\n"
        f"    {TRINO_NAME}: {JDBC_CATALOG}\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYICEBERG_", "ICEVIEW_"))}
    return {**env, "PYICEBERG_HOME": str(home)}


def run_cli(env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("kind", KINDS)
def test_trino_reads_views_spark_and_the_cli_write(
    trino: TrinoCatalogs, spark: JavaSpark, kind: str, tmp_path: Path
) -> None:
    from iceview.spark import SparkViews

    catalog = trino_catalog(kind)
    schema = items_table(trino, kind)
    cat = ours(trino, kind)
    views = SparkViews(spark.spark, cat)
    derive = {DERIVE: "trino", **served_names(kind)}
    props = ", ".join(f"'{k}' = '{v}'" for k, v in derive.items())

    # (a) SparkViews over Trino's table, unqualified names in the session's current namespace
    spark.spark.sql(f"USE {catalog}.{schema}")
    try:
        views.sql(
            "CREATE VIEW spark_v (id, label COMMENT 'name or a dash', amount) COMMENT 'by SparkViews' "
            f"TBLPROPERTIES ({props}) AS SELECT id, coalesce(name, '—'), amount FROM items WHERE id <> 1"
        )
        # (c) a Trino view under a Spark view
        trino.query(
            "CREATE VIEW trino_v AS SELECT id, name, amount FROM items WHERE amount IS NOT NULL",
            catalog=catalog,
            schema=schema,
        )
        views.sql(
            f"CREATE VIEW over_trino TBLPROPERTIES ({props}) AS "
            "SELECT id, name, amount FROM trino_v WHERE name IS NOT NULL"
        )
    finally:
        spark.spark.sql("USE spark_catalog.default")
    # ... and a Spark view under a Trino view
    trino.query(
        f"CREATE VIEW over_spark AS SELECT label, amount FROM {catalog}.{schema}.spark_v WHERE id > 1",
        catalog=catalog,
        schema=schema,
    )

    spark_v = cat.load_view((schema, "spark_v"))
    assert dialects(spark_v) == ("spark", "trino")
    assert spark_v.metadata.current_version.summary["iceview.derived-dialects"] == "trino"
    assert f"{catalog}.{schema}.items" in spark_v.sql_for("trino").sql
    over_trino = cat.load_view((schema, "over_trino")).sql_for("trino")
    assert over_trino is not None and f"{catalog}.{schema}.trino_v" in over_trino.sql

    # (b) the command line: add-dialect, and set-property + dialects sync, on spark-only views
    for name, columns, where in (
        ("cli_added", ("id", "amount"), "amount > 0 OR amount IS NULL"),
        ("cli_synced", ("id", "name"), "name IS NOT NULL OR id = 2"),
    ):
        sql = f"SELECT {', '.join(columns)} FROM items WHERE {where}"
        cat.create_view(
            (schema, name),
            schema=SCHEMA.select(*columns),
            queries={"spark": sql},
            default_namespace=(schema,),
            properties=served_names(kind),
        )
    env = cli_home(trino, tmp_path / "home")
    added = run_cli(env, "-c", catalog, "add-dialect", f"{schema}.cli_added", "trino")
    assert "adds trino (translated from spark)" in added
    run_cli(env, "-c", catalog, "set-property", f"{schema}.cli_synced", DERIVE, "trino")
    synced = run_cli(env, "-c", catalog, "dialects", "sync", f"{schema}.cli_synced")
    assert "version 2 derives trino" in synced
    for name in ("cli_added", "cli_synced"):
        trino_sql = cat.load_view((schema, name)).sql_for("trino")
        assert trino_sql is not None and f"{catalog}.{schema}.items" in trino_sql.sql

    # Trino lists, describes and shows every view
    made = ["cli_added", "cli_synced", "over_spark", "over_trino", "spark_v", "trino_v"]
    shown = {r[0] for r in trino.query(f"SHOW TABLES FROM {catalog}.{schema}")}
    assert shown == {"items", *made}
    listed = trino.query(
        f"SELECT table_name FROM {catalog}.information_schema.views "
        f"WHERE table_schema = '{schema}' ORDER BY table_name"
    )
    assert [r[0] for r in listed] == made
    columns = trino.query(
        f"SELECT table_name, column_name, data_type FROM {catalog}.information_schema.columns "
        f"WHERE table_schema = '{schema}' AND table_name <> 'items' ORDER BY table_name, ordinal_position"
    )
    assert columns == [
        ["cli_added", "id", "integer"],
        ["cli_added", "amount", "decimal(10,2)"],
        ["cli_synced", "id", "integer"],
        ["cli_synced", "name", "varchar"],
        ["over_spark", "label", "varchar"],
        ["over_spark", "amount", "decimal(10,2)"],
        ["over_trino", "id", "integer"],
        ["over_trino", "name", "varchar"],
        ["over_trino", "amount", "decimal(10,2)"],
        ["spark_v", "id", "integer"],
        ["spark_v", "label", "varchar"],
        ["spark_v", "amount", "decimal(10,2)"],
        ["trino_v", "id", "integer"],
        ["trino_v", "name", "varchar"],
        ["trino_v", "amount", "decimal(10,2)"],
    ]
    creates = {n: trino.query(f"SHOW CREATE VIEW {catalog}.{schema}.{n}")[0][0] for n in made}
    for name, create in creates.items():
        assert create.startswith(f"CREATE VIEW {catalog}.{schema}.{name}"), create
    assert "COMMENT 'by SparkViews'" in creates["spark_v"]

    # the same rows in Trino and in Spark: SparkViews everywhere (a view without spark SQL is
    # translated from its trino SQL), Iceberg-Spark itself where every view read has spark SQL
    (id1, name1, amount1), (id2, _, amount2), (id3, name3, amount3) = ROWS
    expected = {
        "spark_v": [[id2, "—", amount2], [id3, name3, amount3]],
        "trino_v": [[id1, name1, amount1], [id2, None, amount2]],
        "over_trino": [[id1, name1, amount1]],
        "over_spark": [["—", amount2], [name3, amount3]],
        "cli_added": [[id1, amount1], [id3, amount3]],
        "cli_synced": [[id1, name1], [id2, None], [id3, name3]],
    }
    in_trino = {n: canon(trino.query(f"SELECT * FROM {catalog}.{schema}.{n}")) for n in made}
    assert in_trino == {n: canon(rows) for n, rows in expected.items()}
    # one Spark query each way (a Spark job costs about a second here)
    shape = {n: [c[1] for c in columns if c[0] == n] for n in made}
    assert spark_union(views.sql, catalog, schema, shape) == as_text(in_trino)
    with_spark_sql = {n: shape[n] for n in ("cli_added", "cli_synced", "spark_v")}
    assert spark_union(spark.spark.sql, catalog, schema, with_spark_sql) == as_text(
        {n: in_trino[n] for n in with_spark_sql}
    )
    assert by_id(trino.query(f"SELECT id, name, amount FROM {catalog}.{schema}.items")) == ROWS


@pytest.mark.parametrize("kind", KINDS)
def test_trino_replaces_a_view_with_derived_dialects(
    trino: TrinoCatalogs, spark: JavaSpark, kind: str, tmp_path: Path
) -> None:
    """Trino's ``CREATE OR REPLACE VIEW`` keeps the view's properties, writes a version with Trino's
    SQL only; ``iceview serve`` derives the other dialects in that commit, and refuses a replace that
    would lose hand-written SQL; on JDBC ``iceview dialects sync`` derives them afterwards."""
    from iceview.spark import SparkViews

    catalog = trino_catalog(kind)
    schema = items_table(trino, kind)
    cat = ours(trino, kind)
    views = SparkViews(spark.spark, cat)
    spark_sql = "SELECT id, name, amount FROM items WHERE id <> 2"
    for name, derive in (("every", "duckdb,spark,trino"), ("spark_by_hand", "duckdb,trino")):
        created = cat.create_view(
            (schema, name),
            schema=SCHEMA,
            queries={"spark": spark_sql},
            default_namespace=(schema,),
            properties={DERIVE: derive, "comment": "by iceview", "owner": "Zoë", **served_names(kind)},
        )
        assert dialects(created) == ("spark", "duckdb", "trino")
        assert by_id(trino.query(f"SELECT * FROM {catalog}.{schema}.{name}")) == [ROWS[0], ROWS[2]]

    replace = "CREATE OR REPLACE VIEW {} AS SELECT id, name, amount * 2 AS doubled FROM items WHERE id > 1"
    trino.query(replace.format("every"), catalog=catalog, schema=schema)
    rows = [[2, None, ROWS[1][2] * 2], [3, ROWS[2][1], None]]  # amount * 2 of -0.01 and NULL
    assert by_id(trino.query(f"SELECT * FROM {catalog}.{schema}.every")) == rows

    view = cat.load_view((schema, "every"))
    assert validate(view.metadata) == []
    assert [e.version_id for e in view.history] == [1, 2]
    version = view.metadata.current_version
    trino_sql = version.representations[0]
    assert trino_sql.dialect == "trino"
    assert trino_sql.sql.split() == [
        *("SELECT", "id", ",", "name", ",", "(amount", "*", "2)", "doubled", "FROM", "items"),
        *("WHERE", "(id", ">", "1)"),
    ]
    # Trino's version: its session's catalog and schema, its summary, a new schema of required columns
    assert version.default_catalog == catalog
    assert version.default_namespace == (schema,)
    assert {k: v for k, v in version.summary.items() if not k.startswith("iceview.")} == {
        "engine-name": "trino",
        "engine-version": "476",
        "iceberg-version": version.summary["iceberg-version"],
    }
    assert version.summary["iceberg-version"].startswith("Apache Iceberg 1.9.1")
    assert version.schema_id == 1
    assert [(f.name, str(f.field_type), f.required) for f in view.schema.fields] == [
        ("id", "int", True),
        ("name", "string", True),
        ("doubled", "decimal(20, 2)", True),
    ]
    # the view's properties are kept (merged), Trino adds its own
    assert view.properties == {
        DERIVE: "duckdb,spark,trino",
        "comment": "by iceview",
        "owner": "Zoë",
        "replace.drop-dialect.allowed": "true",
        "trino.run-as-owner": "iceview",
        **served_names(kind),
    }
    native = f"SELECT * FROM {catalog}.{schema}.every"
    env = cli_home(trino, tmp_path / "home")
    if kind == "rest":
        # iceview serve derived the other dialects from Trino's SQL in the same commit
        assert [r.dialect for r in version.representations] == ["trino", "duckdb", "spark"]
        assert version.summary["iceview.derived-dialects"] == "duckdb,spark"
        assert version.summary["iceview.translated-from"] == "trino"
        assert f"{catalog}.{schema}.items" in view.sql_for("spark").sql
    else:
        # Trino wrote PostgreSQL itself: only its SQL, which Iceberg-Spark runs as Spark SQL (Java's
        # sqlFor falls back to the first representation; this SQL happens to mean the same in Spark)
        assert [r.dialect for r in version.representations] == ["trino"]
        assert not any(k.startswith("iceview.") for k in version.summary)
        assert canon([list(r.values()) for r in spark.sql(native)]) == canon(rows)
        synced = run_cli(env, "-c", catalog, "dialects", "sync", f"{schema}.every")
        assert "version 3 derives duckdb, spark (was version 2)" in synced
        view = cat.load_view((schema, "every"))
        assert [e.version_id for e in view.history] == [1, 2, 3]
        assert [r.dialect for r in view.metadata.current_version.representations] == [
            "trino",
            "duckdb",
            "spark",
        ]
        assert view.metadata.current_version.schema_id == 1
    assert run_cli(env, "-c", catalog, "dialects", "sync", f"{schema}.every").endswith("nothing changed\n")
    assert canon([list(r.values()) for r in spark.sql(native)]) == canon(rows)
    assert spark_rows(views, native) == canon(rows)

    # a view whose spark SQL is hand-written (derive-dialects without spark)
    if kind == "rest":
        # iceview serve refuses a version that loses hand-written SQL: Trino's replace fails
        with pytest.raises(Exception, match="ICEBERG_CATALOG_ERROR") as failed:
            trino.query(replace.format("spark_by_hand"), catalog=catalog, schema=schema)
        assert "Failed to create view" in str(failed.value)
        why = causes(failed.value.failure_info)  # type: ignore[attr-defined]
        assert "loss of hand-written view dialects (spark)" in why, why
        kept = cat.load_view((schema, "spark_by_hand"))
        assert [e.version_id for e in kept.history] == [1]
        assert kept.sql_for("spark").sql == spark_sql
    else:
        # Java's guard is off (replace.drop-dialect.allowed=true): the spark SQL is lost; sync
        # derives duckdb only, and Spark reads the view through SparkViews' translation
        trino.query(replace.format("spark_by_hand"), catalog=catalog, schema=schema)
        assert dialects(cat.load_view((schema, "spark_by_hand"))) == ("trino",)
        synced = run_cli(env, "-c", catalog, "dialects", "sync", f"{schema}.spark_by_hand")
        assert "version 3 derives duckdb (was version 2)" in synced
        assert dialects(cat.load_view((schema, "spark_by_hand"))) == ("trino", "duckdb")
        query = f"SELECT * FROM {catalog}.{schema}.spark_by_hand"
        assert spark_rows(views, query) == canon(trino.query(query)) == canon(rows)
