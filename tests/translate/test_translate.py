"""iceview.sql.translate without an engine: the refusal rules, strict=False, qualification, and the
Trino output of the whole corpus (no Trino server: every statement must parse in sqlglot's trino
dialect and pass the rules)."""

from __future__ import annotations

import pytest
import sqlglot
from pyiceberg.schema import Schema
from pyiceberg.types import DecimalType, IntegerType, LongType, NestedField

from iceview.errors import TranslationError
from iceview.sql import Translation, UnsafeTranslationError, translate, translation_hook
from iceview.sql.translate import TRINO_FUNCTIONS, allowed_functions
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


def tr(sql: str, target: str = "duckdb", *, source: str = "spark", strict: bool = True) -> Translation:
    return translate(
        sql,
        source,
        target,
        default_catalog="cat",
        default_namespace=[NAMESPACE],
        schemas=SCHEMAS,
        strict=strict,
    )


def codes(sql: str, target: str = "duckdb", source: str = "spark") -> tuple[str, ...]:
    with pytest.raises(UnsafeTranslationError) as e:
        tr(sql, target, source=source)
    return e.value.codes


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_corpus_into_trino(case) -> None:  # type: ignore[no-untyped-def]
    want = case.trino or case.expect
    try:
        result = tr(case.sql, "trino")
    except UnsafeTranslationError as e:
        assert want != EQUAL, f"refused: {e}"
        assert want in e.codes, str(e)
        assert str(e).startswith("Cannot translate spark SQL to trino: ")
        return
    assert want == EQUAL
    tree = sqlglot.parse_one(result.sql, read="trino")
    assert tree is not None
    # no name is left for Trino to resolve with its own defaults
    for table in tree.find_all(sqlglot.exp.Table):
        if table.name and not isinstance(table.this, sqlglot.exp.Func) and table.args.get("db") is not None:
            assert table.catalog == "cat"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_corpus_into_duckdb_without_engine(case) -> None:  # type: ignore[no-untyped-def]
    try:
        result = tr(case.sql, "duckdb")
    except UnsafeTranslationError as e:
        assert case.expect in e.codes, str(e)
        return
    assert case.expect == EQUAL
    sqlglot.parse_one(result.sql, read="duckdb")


@pytest.mark.parametrize(
    ("sql", "target", "code"),
    [
        ("SELECT * FROM orders PIVOT (sum(qty) FOR status IN ('open'))", "trino", "pivot"),
        ("SELECT from_json(note, 'a INT') FROM orders", "duckdb", "from_json"),
        ("SELECT hash(note) FROM orders", "trino", "hash"),
        ("SELECT xxhash64(note) FROM orders", "duckdb", "hash"),
        ("SELECT trunc(order_date, 'Q') FROM orders", "duckdb", "trunc-unit"),
        ("SELECT date_trunc('fortnight', ts) FROM orders", "duckdb", "trunc-unit"),
        ("SELECT x FROM orders LATERAL VIEW OUTER explode(tags) t AS x", "trino", "outer-explode"),
        ("SELECT * FROM orders TABLESAMPLE (10 PERCENT)", "duckdb", "tablesample"),
        ("SELECT soundex(note) FROM orders", "duckdb", "function"),
        ("SELECT CAST(note AS DATE) FROM orders", "duckdb", "ansi-cast"),
        ("SELECT qty / customer_id FROM orders", "trino", "ansi-division"),
        ("SELECT qty % customer_id FROM orders", "duckdb", "ansi-division"),
    ],
)
def test_refusals_name_the_reason(sql: str, target: str, code: str) -> None:
    assert code in codes(sql, target)


def test_error_names_construct_and_reason() -> None:
    with pytest.raises(UnsafeTranslationError) as e:
        tr("SELECT order_id, hash(note) AS h FROM orders")
    err = e.value
    assert isinstance(err, TranslationError)
    assert err.issues[0].construct == "HASH(orders.note)"
    assert "Murmur3" in err.issues[0].reason
    assert "HASH(orders.note)" in str(err) and "[hash]" in str(err)


def test_non_strict_returns_sql_and_warnings() -> None:
    result = tr("SELECT hash(note) AS h, CAST(note AS INT) AS i FROM orders", strict=False)
    assert not result.safe
    assert {w.code for w in result.warnings} == {"hash", "ansi-cast"}
    assert result.sql.startswith("SELECT HASH(orders.note)")
    ok = tr("SELECT order_id FROM orders", strict=False)
    assert ok.safe and ok.warnings == ()


def test_names_are_qualified_first() -> None:
    out = translate(
        "SELECT id FROM t JOIN other.u ON t.id = u.id JOIN prod.x.y ON 1 = 1",
        "spark",
        "trino",
        default_catalog="prod",
        default_namespace=["db"],
    ).sql
    tables = sorted(
        ".".join(p.name for p in t.parts)
        for t in sqlglot.parse_one(out, read="trino").find_all(sqlglot.exp.Table)
    )
    assert tables == ["prod.db.t", "prod.other.u", "prod.x.y"]


def test_nested_namespaces_cannot_go_to_trino() -> None:
    with pytest.raises(UnsafeTranslationError) as e:
        translate("SELECT 1 AS x FROM t", "spark", "trino", default_catalog="c", default_namespace=["a", "b"])
    assert "nested-namespace" in e.value.codes


def test_casts_need_types() -> None:
    # without schemas a column's type is unknown, so a cast may fail in ANSI mode
    with pytest.raises(UnsafeTranslationError) as e:
        translate(
            "SELECT CAST(a AS BIGINT) FROM t", "spark", "duckdb", default_catalog="c", default_namespace=["n"]
        )
    assert e.value.codes == ("ansi-cast",)
    # literals that convert the same everywhere are fine
    out = translate(
        "SELECT CAST('2024-01-02' AS DATE) AS d, CAST('12' AS INT) AS i FROM t",
        "spark",
        "duckdb",
        default_catalog="c",
        default_namespace=["n"],
    )
    assert out.safe
    # an explicit TRY_CAST never fails, but with the schema it is checked for value differences
    assert "TRY_CAST(orders.qty AS BIGINT)" in tr("SELECT TRY_CAST(qty AS BIGINT) AS q FROM orders").sql
    assert "cast-semantics" in codes("SELECT TRY_CAST(price AS INT) AS p FROM orders")


def test_bare_decimal_gets_sparks_precision() -> None:
    assert "DECIMAL(10, 0)" in tr("SELECT CAST(qty AS DECIMAL) AS d FROM orders").sql


def test_other_directions() -> None:
    # duckdb -> trino: both raise on failed casts, so only the allow-list applies
    out = tr("SELECT status AS u, CAST(qty AS BIGINT) AS q FROM orders", "trino", source="duckdb")
    sqlglot.parse_one(out.sql, read="trino")
    # ... but DuckDB's case mapping is newer than Trino's: upper('ß') is 'ẞ' (the generator, seed 6)
    assert "unicode-case" in codes("SELECT upper(note) AS u FROM orders", "trino", source="duckdb")
    # trino -> duckdb: integer division truncates in Trino
    assert "integer-division" in codes("SELECT qty / 2 AS h FROM orders", "duckdb", source="trino")
    # into spark: a failing cast would become NULL in legacy mode
    assert "ansi-cast" in codes("SELECT CAST(note AS INTEGER) AS i FROM orders", "spark", source="trino")
    assert tr("SELECT trim(note) AS u FROM orders", "spark", source="duckdb").sql.startswith("SELECT TRIM(")
    # duckdb -> spark: case mapping of text differs (found on edge data, test_edge_duckdb.py)
    assert "unicode-case" in codes("SELECT upper(note) AS u FROM orders", "spark", source="duckdb")


def test_same_dialect_only_qualifies() -> None:
    out = translate("SELECT hash(x) FROM t", "spark", "spark", default_catalog="c", default_namespace=["n"])
    assert out.sql == "SELECT hash(x) FROM c.n.t"


def test_unknown_dialect_and_bad_sql() -> None:
    with pytest.raises(TranslationError, match="supported are spark, trino, duckdb"):
        translate("SELECT 1", "spark", "mysql", default_catalog="c", default_namespace=[])
    with pytest.raises(TranslationError, match=r"does not parse|Cannot translate"):
        translate("SELECT FROM WHERE (", "spark", "duckdb", default_catalog="c", default_namespace=[])
    with pytest.raises(TranslationError, match="one query"):
        translate("INSERT INTO t VALUES (1)", "spark", "duckdb", default_catalog="c", default_namespace=[])


def test_hook_for_view_expander() -> None:
    seen: list[Translation] = []
    hook = translation_hook(strict=False, schemas=SCHEMAS, on_warning=seen.append)
    assert hook("SELECT order_id FROM orders", "spark", "duckdb").startswith("SELECT orders.order_id")
    hook("SELECT hash(note) FROM orders", "spark", "duckdb")
    assert [w.code for w in seen[0].warnings] == ["hash"]
    with pytest.raises(UnsafeTranslationError):
        translation_hook()("SELECT hash(note) FROM orders", "spark", "duckdb")


def test_allow_lists_are_per_target() -> None:
    assert "Greatest" in allowed_functions("duckdb") and "Greatest" not in allowed_functions("trino")
    assert "date_trunc" in TRINO_FUNCTIONS


def test_zone_less_timestamp_to_date_is_safe_but_zoned_is_not() -> None:
    # ts is an Iceberg `timestamp` (no zone): its date is the same in every engine, and the cast
    # cannot fail, so it translates; a cast of a zoned value would depend on the session time zone
    out = tr("SELECT CAST(ts AS DATE) AS d, count(1) AS n FROM orders GROUP BY 1")
    assert out.safe and "CAST(orders.ts AS DATE)" in out.sql
    assert "cast-semantics" in codes("SELECT CAST(CAST(ts AS TIMESTAMP) AS DATE) AS d FROM orders")


def test_a_rewrite_inside_a_rewritten_call_is_kept() -> None:
    """Rewrites apply deepest first: ``array_contains`` becomes a CASE holding copies of its
    arguments, and the literal start 0 of a ``substr`` inside it (Spark's 0 is 1) must reach them."""
    out = tr("SELECT array_contains(tags, substr(' 42 ', 0, 2)) FROM orders").sql
    assert out.count("SUBSTRING(' 42 ', 1, 2)") == 2
    assert "SUBSTRING(' 42 ', 0" not in out


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT order_id FROM orders WHERE NOT NULL IN (SELECT qty FROM orders)",
        "SELECT order_id FROM orders WHERE (amount - NULL) NOT IN (SELECT amount FROM orders)",
    ],
)
def test_a_null_value_in_a_subquery_is_refused(sql: str) -> None:
    """Spark folds ``NULL IN (SELECT ...)`` to NULL even for an empty subquery; the others give FALSE."""
    assert codes(sql) == ("in-subquery-null",)
    assert codes(sql, "spark", "duckdb") == ("in-subquery-null",)


def test_integer_arithmetic_from_duckdb_becomes_sparks_try_functions() -> None:
    """DuckDB raises on every integer overflow it computes, but skips values Spark computes (the
    cheaper conjunct first, projections under a LIMIT): Spark's try_* give the same values where
    DuckDB computed them, and NULL rather than an ANSI error where it did not."""
    out = tr(
        "SELECT qty + 1, qty * order_id, -qty, abs(qty) FROM orders WHERE 1 < abs(qty) AND qty - 2 > qty",
        "spark",
        source="duckdb",
    ).sql
    assert "TRY_ADD(orders.qty, 1)" in out
    assert "TRY_MULTIPLY(orders.qty, orders.order_id)" in out
    assert "TRY_SUBTRACT(0, orders.qty)" in out
    assert "IF(orders.qty < 0, TRY_SUBTRACT(0, orders.qty), orders.qty)" in out
    assert "TRY_SUBTRACT(orders.qty, 2) > orders.qty" in out
    assert codes("SELECT abs(qty + 1) FROM orders", "spark", "duckdb") == ("integer-overflow",)


@pytest.mark.parametrize("source", ["spark", "duckdb"])
def test_decimal_unification_is_checked_against_duckdbs_types_too(source: str) -> None:
    """DuckDB's sum of a DECIMAL(10, 2) is a DECIMAL(38, 2) (Spark's a DECIMAL(20, 2)), and beside a
    DECIMAL(4, 3) DuckDB keeps 38 digits and drops the third decimal place."""
    target = "duckdb" if source == "spark" else "spark"
    sql = "SELECT 1.555 AS c FROM orders UNION ALL SELECT sum(amount) FROM orders"
    assert codes(sql, target, source) == ("type-signature",)
    assert tr(sql.replace("1.555", "1.5"), target, source=source).sql.startswith("SELECT")


def test_a_sum_of_rounded_integers_from_duckdb_is_summed_as_a_hugeint() -> None:
    """DuckDB's round of a BIGINT is a BIGINT, summed in HUGEINT; Spark's BIGINT sum overflows."""
    out = tr("SELECT sum(round(order_id)) FROM orders", "spark", source="duckdb").sql
    assert "SUM(CAST(ROUND(orders.order_id) AS DECIMAL(38, 0)))" in out
