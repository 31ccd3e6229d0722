"""iceview.spark without a Spark session: type conversion, output formats, names, catalog access."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField
from pyspark.sql import types as st

from iceview.catalog.sql import SqlCatalog
from iceview.identifiers import to_identifier
from iceview.spark import (
    SparkViewsUnsupportedOperationError,
    UnsupportedCatalogError,
    iceberg_catalog_conf,
    split_name,
    to_iceberg_schema,
)
from iceview.spark._format import filter_pattern, scala_hashmap_order
from iceview.spark.access import ViewAccess
from iceview.spark.names import parse_use
from iceview.spark.types import spark_simple_string
from iceview.view import ViewDefinition


def test_ids_follow_iceberg_post_order() -> None:
    # the struct of tests/spark/conftest.py TYPES_DDL, as Iceberg-Spark numbered it (checked there too)
    inner = st.StructType(
        [
            st.StructField("x", st.StringType()),
            st.StructField("y", st.MapType(st.StringType(), st.IntegerType())),
        ]
    )
    struct = st.StructType(
        [
            st.StructField("id", st.LongType(), False),
            st.StructField(
                "st",
                st.StructType(
                    [st.StructField("a", st.IntegerType()), st.StructField("b", st.ArrayType(inner))]
                ),
            ),
            st.StructField("arr", st.ArrayType(st.IntegerType(), False), metadata={"comment": "an array"}),
        ]
    )
    schema = to_iceberg_schema(struct)
    fields = {f.name: f for f in schema.fields}
    assert [f.field_id for f in schema.fields] == [0, 1, 2]
    assert fields["id"].required and not fields["st"].required
    st_type = fields["st"].field_type
    a, b = st_type.fields
    # y's map key/value first (3, 4), then x, y (5, 6), then b's element (7), then a, b (8, 9), then arr's element
    assert (a.field_id, b.field_id) == (8, 9)
    element = b.field_type.element_type
    assert [f.field_id for f in element.fields] == [5, 6]
    assert (element.fields[1].field_type.key_id, element.fields[1].field_type.value_id) == (3, 4)
    assert b.field_type.element_id == 7
    assert fields["arr"].field_type.element_id == 10 and fields["arr"].field_type.element_required
    assert fields["arr"].doc == "an array"
    assert spark_simple_string(st_type) == "struct<a:int,b:array<struct<x:string,y:map<string,int>>>>"


@pytest.mark.parametrize(
    ("spark_type", "iceberg"),
    [
        (st.ByteType(), "int"),
        (st.ShortType(), "int"),
        (st.TimestampType(), "timestamptz"),
        (st.TimestampNTZType(), "timestamp"),
        (st.CharType(3), "string"),
        (st.VarcharType(3), "string"),
        (st.DecimalType(10, 2), "decimal(10, 2)"),
        (st.BinaryType(), "binary"),
        (st.DateType(), "date"),
    ],
)
def test_primitive_types(spark_type: st.DataType, iceberg: str) -> None:
    schema = to_iceberg_schema(st.StructType([st.StructField("c", spark_type)]))
    assert str(schema.fields[0].field_type) == iceberg


def test_unsupported_type() -> None:
    with pytest.raises(SparkViewsUnsupportedOperationError, match="Not a supported type: interval"):
        to_iceberg_schema(st.StructType([st.StructField("c", st.DayTimeIntervalType())]))


def test_scala_hashmap_order_matches_spark() -> None:
    # SHOW TBLPROPERTIES orders of the Iceberg 1.10.2 / Spark 3.5.9 transcript
    assert scala_hashmap_order(["provider", "location", "format-version", "owner-team"]) == [
        "location",
        "provider",
        "owner-team",
        "format-version",
    ]
    assert scala_hashmap_order(["provider", "location", "format-version", "k"]) == [
        "location",
        "provider",
        "format-version",
        "k",
    ]


def test_filter_pattern_is_sparks() -> None:
    names = ["v1", "v2", "V_all", "other"]
    assert filter_pattern(names, "v*") == ["V_all", "v1", "v2"]
    assert filter_pattern(names, "v1|oth*") == ["other", "v1"]


def test_names_and_use() -> None:
    assert split_name("a.`b.c`.`d``e`") == ("a", "b.c", "d`e")
    assert split_name(" prod.db ") == ("prod", "db")
    assert parse_use("USE prod.db") == ("use", ("prod", "db"))
    assert parse_use("use namespace `x y`;") == ("use", ("x y",))
    assert parse_use("SET CATALOG 'prod'") == ("catalog", ("prod",))
    assert parse_use("SELECT 1") is None


# ----------------------------------------------------------------------------- catalog access


@pytest.fixture
def sql_catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    cat = SqlCatalog("prod", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/wh")
    cat.create_namespace("db")
    try:
        yield cat
    finally:
        cat.close()


def _definition(sql: str) -> ViewDefinition:
    schema = Schema(NestedField(1, "x", LongType(), required=False))
    return ViewDefinition.of(schema=schema, queries=[("spark", sql)], default_namespace=("db",))


def test_view_access_refreshes_without_reading_an_unchanged_file(sql_catalog: SqlCatalog) -> None:
    views = SimpleNamespace(catalog=sql_catalog, name="prod", translate=None)
    access = ViewAccess(views)  # type: ignore[arg-type]
    ident = to_identifier("db.v")
    assert access.load(ident) is None
    sql_catalog.create_view(ident, _definition("SELECT 1 AS x"))
    first = access.load(ident)
    assert first is not None
    assert access.load(ident) is first  # the pointer did not move: the file is not read again
    sql_catalog.replace_view(ident, _definition("SELECT 2 AS x"))
    second = access.load(ident)
    assert second is not None and second is not first
    assert second.current_version.sql_for("spark").sql == "SELECT 2 AS x"  # type: ignore[union-attr]
    # dropped and created again: another view (another uuid) under the same name
    sql_catalog.drop_view(ident)
    sql_catalog.create_view(ident, _definition("SELECT 3 AS x"))
    third = access.load(ident)
    assert third is not None and third.uuid != second.uuid
    resolved = access.resolve(("prod", "db", "v"))
    assert resolved is not None and resolved.sql == "SELECT 3 AS x"
    assert access.resolve(("other", "db", "v")) is None
    sql_catalog.drop_view(ident)
    assert access.load(ident) is None
    assert access.resolve(("prod", "db", "v")) is None


def test_sql_and_rest_catalogs_can_be_shared_with_spark(sql_catalog: SqlCatalog) -> None:
    conf = iceberg_catalog_conf(sql_catalog)
    assert conf["spark.sql.catalog.prod.uri"].startswith("jdbc:sqlite:")
    # a REST catalog becomes Iceberg's RESTCatalog with the REST properties Java spells alike
    rest = SimpleNamespace(
        name="lake",
        catalog_type="rest",
        properties={
            "uri": "http://127.0.0.1:8181/",
            "credential": "id:secret",
            "header.X-Team": "data",
            "rest-page-size": "10",
        },
    )
    assert iceberg_catalog_conf(rest) == {  # type: ignore[arg-type]
        "spark.sql.catalog.lake": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.lake.type": "rest",
        "spark.sql.catalog.lake.cache-enabled": "false",
        "spark.sql.catalog.lake.uri": "http://127.0.0.1:8181/",
        "spark.sql.catalog.lake.credential": "id:secret",
        "spark.sql.catalog.lake.header.X-Team": "data",
    }
    # (a Hive catalog is shared too: tests/spark/test_spark_hive.py)
    other = SimpleNamespace(name="glue", catalog_type="glue", properties={})
    with pytest.raises(UnsupportedCatalogError, match="not a SQL catalog"):
        iceberg_catalog_conf(other)  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # as before the typed error
        iceberg_catalog_conf(other)  # type: ignore[arg-type]
