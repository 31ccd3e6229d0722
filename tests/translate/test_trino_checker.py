"""The checker of every ``trino`` output (iceview.sql.translate.trino_view, trino_types): Trino's
implicit coercions, and every Trino translation of the corpora (the equivalence corpus, the edge
evidence, the third-party view metadata) meeting the view contract with Trino catalog names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlglot
from pyiceberg.schema import Schema
from pyiceberg.types import DateType, IntegerType, NestedField, StringType, TimestampType
from sqlglot import exp

from iceview.errors import TranslationError
from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate.trino_types import can_coerce
from iceview.sql.translate.trino_view import trino_output_issues, view_contract_issues
from translate.corpus import CASES, NAMESPACE
from translate.edge_data import CATALOG, EDGE, NAME
from translate.edge_data import NAMESPACE as EDGE_NAMESPACE
from translate.test_edge import probes
from translate.test_trino_view import SCHEMAS

DATA = Path(__file__).resolve().parents[1] / "data" / "corpus"


def _t(name: str) -> exp.DataType:
    return exp.DataType.build(name, dialect="trino")


@pytest.mark.parametrize(
    ("source", "target", "coerced"),
    [
        ("INTEGER", "BIGINT", True),
        ("BIGINT", "INTEGER", False),  # the README demo: count(1) into an int column is stale
        ("TINYINT", "DECIMAL(3, 0)", True),
        ("INTEGER", "DECIMAL(9, 0)", False),
        ("BIGINT", "DOUBLE", True),
        ("DECIMAL(10, 2)", "DECIMAL(12, 4)", True),
        ("DECIMAL(10, 2)", "DECIMAL(10, 4)", False),
        ("DECIMAL(10, 2)", "DOUBLE", True),
        ("DOUBLE", "REAL", False),
        ("REAL", "DOUBLE", True),
        ("VARCHAR(5)", "VARCHAR", True),
        ("VARCHAR", "VARCHAR(5)", False),
        ("VARCHAR", "INTEGER", False),
        ("DATE", "TIMESTAMP(6)", True),
        ("TIMESTAMP(3)", "TIMESTAMP(6)", True),
        ("TIMESTAMP(6)", "TIMESTAMP(3)", False),
        ("TIMESTAMP(6)", "TIMESTAMP(6) WITH TIME ZONE", True),
        ("TIMESTAMP(6) WITH TIME ZONE", "TIMESTAMP(6)", False),
        ("ARRAY(INTEGER)", "ARRAY(BIGINT)", True),
        ("ARRAY(BIGINT)", "ARRAY(INTEGER)", False),
        ('ROW("a" INTEGER, "b" VARCHAR)', 'ROW("a" BIGINT, "b" VARCHAR)', True),
        ('ROW("a" INTEGER)', 'ROW("a" INTEGER, "b" VARCHAR)', False),
        ("MAP(VARCHAR, INTEGER)", "MAP(VARCHAR, BIGINT)", True),
        ("BOOLEAN", "VARCHAR", False),
    ],
)
def test_trinos_implicit_coercions(source: str, target: str, coerced: bool) -> None:
    assert can_coerce(_t(source), _t(target)) is coerced


DAILY = Schema(
    NestedField(1, "event_count", IntegerType(), required=False),
    NestedField(2, "event_date", DateType(), required=False),
)


def test_the_checker_verifies_coercibility() -> None:
    ok = 'SELECT CAST(1 AS SMALLINT) AS "event_count", CAST(x AS DATE) AS "Event_Date" FROM iceberg.a.b'
    assert view_contract_issues(ok, DAILY) == []
    assert view_contract_issues('SELECT NULL AS "event_count", CAST(x AS DATE) AS "event_date"', DAILY) == []
    stale = 'SELECT CAST(COUNT(1) AS BIGINT) AS "event_count", CAST(x AS DATE) AS "event_date"'
    [issue] = view_contract_issues(stale, DAILY)
    assert issue.code == "view-contract" and "BIGINT, which Trino does not coerce" in issue.reason
    assert [i.code for i in trino_output_issues(ok, DAILY, {"prod": "lake"})] == ["trino-catalog-unknown"]
    assert trino_output_issues(ok, DAILY, {"prod": "iceberg"}) == []


# --------------------------------------------------------------------------------------------------
# every Trino translation of the corpora


def _names(sql: str) -> list[str] | None:
    tree = sqlglot.parse_one(sql, read="spark")
    names = [p.alias_or_name for p in tree.selects]
    if any(isinstance(p, exp.Star) for p in tree.selects) or not all(names) or len(set(names)) != len(names):
        return None
    return names


def _check_all(items: list[tuple[str, str, str, str, dict[tuple[str, ...], Schema]]]) -> tuple[int, int]:
    """Translates each item into Trino with a view schema and a catalog mapping: every translation
    must pass the checker; returns (translated, refused)."""
    translated = refused = 0
    for label, sql, catalog, namespace, schemas in items:
        names = _names(sql) or []
        schema = Schema(*(NestedField(k + 1, n, StringType(), required=False) for k, n in enumerate(names)))
        mapping = {catalog: "iceberg"}
        try:
            out = translate(
                sql,
                "spark",
                "trino",
                default_catalog=catalog,
                default_namespace=[namespace] if namespace else [],
                schemas=schemas,
                view_schema=schema if names else None,
                catalog_names=mapping,
            )
        except UnsafeTranslationError as e:
            assert "view-contract" not in e.codes, f"{label}: {e}"
            assert "trino-catalog-unknown" not in e.codes, f"{label}: {e}"
            refused += 1
            continue
        except TranslationError:
            refused += 1
            continue
        assert trino_output_issues(out.sql, schema if names else None, mapping) == [], label
        for table in sqlglot.parse_one(out.sql, read="trino").find_all(exp.Table):
            if table.args.get("catalog") is not None:
                assert table.catalog == "iceberg", (label, out.sql)
        translated += 1
    return translated, refused


def test_every_corpus_translation_into_trino_passes_the_checker() -> None:
    translated, _ = _check_all([(c.name, c.sql, "cat", NAMESPACE, SCHEMAS) for c in CASES])
    assert translated > 30


def test_every_edge_translation_into_trino_passes_the_checker() -> None:
    translated, _ = _check_all(
        [(f"{p.construct}: {p.sql}", p.sql, CATALOG, EDGE_NAMESPACE, {NAME: EDGE}) for p in probes()]
    )
    assert translated > 150


def test_the_third_party_views_translate_into_trino_as_stored() -> None:
    # iceberg-go's file is the spec's example: the README demo's shape
    metadata = json.loads((DATA / "iceberg-go" / "view-metadata.json").read_text())
    events = Schema(NestedField(1, "event_ts", TimestampType(), required=False))
    schema = Schema(
        *(
            NestedField(
                f["id"], f["name"], {"int": IntegerType(), "date": DateType()}[f["type"]], required=False
            )
            for f in metadata["schemas"][0]["fields"]
        )
    )
    for version in metadata["versions"]:
        [rep] = version["representations"]
        out = translate(
            rep["sql"],
            rep["dialect"],
            "trino",
            default_catalog=version["default-catalog"],
            default_namespace=version["default-namespace"],
            schemas={("prod", "default", "events"): events},
            view_schema=schema,
            catalog_names={"prod": "iceberg"},
        ).sql
        assert trino_output_issues(out, schema, {"prod": "iceberg"}) == []
        assert 'AS "event_count"' in out and 'CAST("__c0" AS INTEGER)' in out
        tables = [
            ".".join(p.name for p in t.parts)
            for t in sqlglot.parse_one(out, read="trino").find_all(exp.Table)
        ]
        assert tables == ["iceberg.default.events"]
