"""Round trip: a view created by Iceberg-Spark (spark SQL only) gets trino and duckdb added by
iceview; Iceberg-Spark still reads it, Iceberg Java parses the new metadata, and it validates."""

from __future__ import annotations

from typing import Any

import pytest
import sqlglot

from iceview.duckdb import DuckDBViews
from iceview.files import read_metadata
from iceview.spec import validate
from iceview.sql.translate import PROVENANCE_KEY, PROVENANCE_VERSION_KEY
from translate.conftest import CATALOG, CorpusEnv
from translate.corpus import NAMESPACE

pytestmark = [pytest.mark.java, pytest.mark.postgres]


def test_spark_view_gets_trino_and_duckdb(corpus_env: CorpusEnv, java_spark: Any, java_oracle: Any) -> None:
    spark = corpus_env.spark
    name = f"{CATALOG}.{NAMESPACE}.rt_revenue"
    spark.sql(f"DROP VIEW IF EXISTS {name}")
    spark.sql(
        f"CREATE VIEW {name} COMMENT 'revenue' AS SELECT c.country, sum(o.amount) AS revenue, "
        f"count(*) AS n FROM {CATALOG}.{NAMESPACE}.orders o JOIN {CATALOG}.{NAMESPACE}.customers c "
        "ON o.customer_id = c.customer_id GROUP BY c.country"
    )
    before = sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()), key=repr)
    view = corpus_env.catalog.load_view((NAMESPACE, "rt_revenue"))
    assert view.current_version.dialects == ("spark",)
    old_version = view.current_version
    view.add_dialects(["trino", "duckdb"])

    version = view.current_version
    assert version.version_id == old_version.version_id + 1
    assert version.dialects == ("spark", "trino", "duckdb")
    assert version.sql_for("spark") == old_version.sql_for("spark")
    assert version.schema_id == old_version.schema_id
    assert version.default_namespace == old_version.default_namespace
    assert version.summary[PROVENANCE_KEY] == "spark"
    assert PROVENANCE_VERSION_KEY in version.summary
    assert view.properties["comment"] == "revenue"
    trino_sql = version.sql_for("trino")
    assert trino_sql is not None
    sqlglot.parse_one(trino_sql.sql, read="trino")
    # the new metadata file validates and Iceberg Java parses it
    location = view.metadata_location
    assert location is not None
    assert list(validate(read_metadata(location))) == []
    info = java_spark.view_info(CATALOG, f"{NAMESPACE}.rt_revenue")
    dialects = [r["dialect"] for r in info["current_version"]["representations"]]
    assert dialects == ["spark", "trino", "duckdb"]
    assert info["current_version"]["summary"][PROVENANCE_KEY] == "spark"
    java_oracle.read_file(location)
    # Iceberg-Spark still reads it (it picks the spark representation), with the same rows
    after = sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()), key=repr)
    assert after == before
    # and DuckDB reads the duckdb one
    with DuckDBViews(corpus_env.catalog, namespace=NAMESPACE, tables=corpus_env.tables) as engine:
        duck = sorted(engine.read_view((NAMESPACE, "rt_revenue")).fetchall(), key=repr)
    assert sorted(before, key=repr) == [tuple(r) for r in duck]
    # adding dialects again is a no-op: no new version
    view.add_dialects(["trino"])
    assert view.refresh().current_version.version_id == version.version_id
    # Iceberg-Spark replacing the view with spark only trips the drop-dialect guard
    with pytest.raises(Exception, match="loss of view dialects"):
        spark.sql(f"CREATE OR REPLACE VIEW {name} AS SELECT 1 AS country, 2 AS revenue, 3 AS n")
