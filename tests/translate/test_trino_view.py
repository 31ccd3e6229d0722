"""Trino's view contract (iceview.sql.translate.trino_view): a trino translation made with the view's
schema returns exactly its columns, named as stored and cast to the stored Trino types; the checker
parses the output with sqlglot's Trino dialect and finds what Trino would call stale."""

from __future__ import annotations

import sqlglot
from pyiceberg.schema import Schema
from pyiceberg.types import (
    DateType,
    DecimalType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
)

from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate.trino_rules import TRINO_RULE_CODES
from iceview.sql.translate.trino_view import align_to_view, trino_type_name, view_contract_issues
from translate.corpus import CASES, CUSTOMERS, EQUAL, NAMESPACE, ORDERS

SCHEMAS = {
    ("cat", NAMESPACE, "orders"): ORDERS,
    ("cat", NAMESPACE, "customers"): CUSTOMERS,
    ("cat", NAMESPACE, "per_customer"): Schema(
        NestedField(1, "customer_id", IntegerType()),
        NestedField(2, "n", LongType()),
        NestedField(3, "total", DecimalType(20, 2)),
    ),
}

# the README demo's shape: Spark's count is a bigint, the stored column an int; unnamed expressions
DAILY = Schema(
    NestedField(1, "event_count", IntegerType(), required=False),
    NestedField(2, "event_date", DateType(), required=False),
)


def test_columns_are_named_and_cast_as_stored() -> None:
    out = translate(
        "SELECT count(1), CAST(ts AS DATE) FROM orders GROUP BY 2",
        "spark",
        "trino",
        default_catalog="cat",
        default_namespace=[NAMESPACE],
        schemas=SCHEMAS,
        view_schema=DAILY,
    ).sql
    outer = sqlglot.parse_one(out, read="trino")
    assert [p.alias for p in outer.selects] == ["event_count", "event_date"]
    assert [p.this.to.sql("trino") for p in outer.selects] == ["INTEGER", "DATE"]
    assert view_contract_issues(out, DAILY) == []


def test_the_checker_finds_stale_views() -> None:
    bare = "SELECT COUNT(1) AS _col_0, order_date AS event_date FROM cat.corpus.orders GROUP BY 2"
    reasons = [i.reason for i in view_contract_issues(bare, DAILY)]
    assert any("'_col_0'" in r for r in reasons)  # the name differs
    assert any("'event_date' is not cast" in r for r in reasons)  # a type is not proven
    assert view_contract_issues("SELECT 1 AS event_count", DAILY)[0].reason.startswith("the query returns 1")
    assert view_contract_issues(align_to_view("SELECT 1, 2", DAILY) + ";", DAILY)[0].code == "view-contract"


def test_trino_types_follow_the_iceberg_connector() -> None:
    nested = StructType(NestedField(1, "a", LongType()), NestedField(2, "b", ListType(3, StringType())))
    assert trino_type_name(nested) == 'ROW("a" BIGINT, "b" ARRAY(VARCHAR))'
    assert trino_type_name(TimestampType()) == "TIMESTAMP(6)"
    assert trino_type_name(DecimalType(10, 2)) == "DECIMAL(10, 2)"


def test_every_corpus_translation_into_trino_meets_the_contract() -> None:
    checked = 0
    for case in CASES:
        if (case.trino or case.expect) != EQUAL:
            continue
        tree = sqlglot.parse_one(case.sql, read="spark")
        # a schema with the right number of columns: their names from the query, all strings
        names = [p.alias_or_name or f"c{k}" for k, p in enumerate(tree.selects)]
        if any(isinstance(p, sqlglot.exp.Star) for p in tree.selects) or len(set(names)) != len(names):
            continue
        schema = Schema(*(NestedField(k + 1, n, StringType(), required=False) for k, n in enumerate(names)))
        try:
            out = translate(
                case.sql,
                "spark",
                "trino",
                default_catalog="cat",
                default_namespace=[NAMESPACE],
                schemas=SCHEMAS,
                view_schema=schema,
            )
        except UnsafeTranslationError as e:
            # refused by what Trino's documentation says (trino_rules.py): not a contract failure
            if set(e.codes) <= TRINO_RULE_CODES:
                continue
            raise AssertionError(f"{case.name}: {e}") from e
        assert view_contract_issues(out.sql, schema) == [], case.name
        checked += 1
    assert checked > 30


def test_catalog_names_are_the_targets() -> None:
    out = translate(
        "SELECT o.order_id FROM orders AS o JOIN prod.other.x AS x ON o.order_id = x.id",
        "spark",
        "trino",
        default_catalog="prod",
        default_namespace=[NAMESPACE],
        catalog_names={"prod": "iceberg"},
    ).sql
    tables = sorted(
        ".".join(p.name for p in t.parts)
        for t in sqlglot.parse_one(out, read="trino").find_all(sqlglot.exp.Table)
    )
    assert tables == ["iceberg.corpus.orders", "iceberg.other.x"]
