"""The rules the edge suite found (iceview.sql.translate.edges), without an engine: each refusal's
code, each rewrite's output, and the DuckDB binding check (does-not-bind)."""

from __future__ import annotations

import pytest

from iceview.sql import Translation, UnsafeTranslationError, translate
from translate.edge_data import CATALOG, EDGE, NAME, NAMESPACE


def tr(sql: str, target: str = "duckdb", source: str = "spark") -> Translation:
    return translate(
        sql, source, target, default_catalog=CATALOG, default_namespace=[NAMESPACE], schemas={NAME: EDGE}
    )


def refused(sql: str, target: str = "duckdb", source: str = "spark") -> tuple[str, ...]:
    with pytest.raises(UnsafeTranslationError) as e:
        tr(sql, target, source)
    return e.value.codes


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("SELECT i + 1 FROM t", "integer-overflow"),
        ("SELECT l * i FROM t", "integer-overflow"),
        ("SELECT -l FROM t", "integer-overflow"),
        ("SELECT abs(i) FROM t", "integer-overflow"),
        ("SELECT sum(l) FROM t", "integer-overflow"),
        ("SELECT round(i, -1) FROM t", "integer-overflow"),
        ("SELECT dec10 * dec10 FROM t", "decimal-overflow"),
        ("SELECT dec10 / 7 FROM t", "decimal-division"),
        ("SELECT avg(dec10) FROM t", "decimal-division"),
        ("SELECT dec2 div 2 FROM t", "div-semantics"),
        ("SELECT ceil(d), floor(f) FROM t", "float-to-integer"),
        ("SELECT sign(d) FROM t", "nan-semantics"),
        ("SELECT ln(d) FROM t", "libm"),
        ("SELECT exp(i) FROM t", "libm"),
        ("SELECT stddev(i) FROM t", "floating-aggregate"),
        ("SELECT var_pop(dec2) FROM t", "floating-aggregate"),
        ("SELECT upper(s) FROM t", "unicode-case"),
        ("SELECT lower('İ') FROM t", "unicode-case"),
        ("SELECT left(s, -1) FROM t", "substring-position"),
        ("SELECT substring(s, 2, id) FROM t", "substring-position"),
        ("SELECT lpad(s, 4, '') FROM t", "pad"),
        ("SELECT reverse(arr) FROM t", "array-function"),
        ("SELECT extract(SECOND FROM ts) FROM t", "extract-field"),
        ("SELECT try_cast(s AS INT) FROM t", "try-cast-text"),
        ("SELECT md5(i) FROM t", "does-not-bind"),
    ],
)
def test_edge_refusals(sql: str, code: str) -> None:
    assert code in refused(sql)


def test_safe_neighbours_still_translate() -> None:
    # integer literals, small decimal divisions and averages, decimal ceil, ASCII literals
    out = tr(
        "SELECT 1 + 2 AS a, d + 1 AS b, dec2 / 3 AS c, avg(dec2) AS e, ceil(dec2) AS f, sign(i) AS g, "
        "upper('abc') AS h, left(s, 2) AS k, lpad(s, 5, '*') AS m, reverse(s) AS n FROM t GROUP BY d, dec2, i, s"
    )
    assert out.safe


def test_count_if_is_zero_over_no_rows() -> None:
    assert "COALESCE(COUNT_IF(t.i > 0), 0)" in tr("SELECT count_if(i > 0) AS c FROM t").sql
    window = tr("SELECT count_if(b) OVER (PARTITION BY grp) AS c FROM t").sql
    assert "COALESCE(COUNT_IF(t.b) OVER (PARTITION BY t.grp), 0)" in window


def test_day_of_week_is_sunday_one() -> None:
    assert "(EXTRACT(DAYOFWEEK FROM t.dt) + 1)" in tr("SELECT extract(DOW FROM dt) AS c FROM t").sql
    # Trino's DOW is ISO (Monday 1): refused there
    assert "extract-field" in refused("SELECT extract(DOW FROM dt) AS c FROM t", "trino")


def test_decimal_products_are_widened_to_sparks_precision() -> None:
    # DuckDB types DECIMAL(10, 2) * DECIMAL(10, 2) as DECIMAL(18, 4), Spark as DECIMAL(21, 4)
    assert "CAST(t.dec2 AS DECIMAL(38, 2)) * t.dec2" in tr("SELECT dec2 * dec2 AS c FROM t").sql
    assert "CAST(t.dec2 AS DECIMAL(38, 2)) * t.i" in tr("SELECT dec2 * i AS c FROM t").sql
    # within 18 digits nothing changes
    assert "t.dec0 * t.dec0" in tr("SELECT dec0 * dec0 AS c FROM t").sql


def test_decimal_avg_and_division_are_exact_in_duckdb() -> None:
    # Spark rounds the exact quotient half up; DuckDB's double falls on either side of a tie
    # (5.55 / 160 = 0.0346875; an avg over 32 rows), so the quotient is computed in HUGEINTs
    avg = tr("SELECT avg(dec2) AS c FROM t").sql
    assert "AVG(" not in avg and "SUM(t.dec2)" in avg and "COUNT(t.dec2)" in avg and "// " in avg
    assert avg.endswith("AS DECIMAL(14, 6)) END AS c FROM edge.db.t AS t")
    assert "AS DECIMAL(9, 4)) END" in tr("SELECT avg(dec0) AS c FROM t").sql
    window = tr("SELECT avg(dec2) OVER (PARTITION BY grp) AS c FROM t").sql
    assert (
        "SUM(t.dec2) OVER (PARTITION BY t.grp)" in window
        and "COUNT(t.dec2) OVER (PARTITION BY t.grp)" in window
    )
    # DECIMAL(10, 2) / 3 (an integer literal is DECIMAL(1, 0) beside a decimal): DECIMAL(14, 6)
    quotient = tr("SELECT dec2 / 3 AS c FROM t").sql
    assert "AS DECIMAL(14, 6))" in quotient and " / " not in quotient and "CASE WHEN 3 = 0" not in quotient
    assert "CASE WHEN NULLIF(t.dec0, 0) = 0 THEN NULL" in tr("SELECT dec2 / NULLIF(dec0, 0) AS c FROM t").sql
    # a floating-point sum depends on the order of addition (found by the generated queries)
    assert "floating-aggregate" in refused("SELECT avg(d) AS c FROM t")
    # beyond what 128-bit integers hold: refused
    assert "decimal-division" in refused("SELECT dec10 / NULLIF(dec10, 0) AS c FROM t")


def test_exact_decimal_quotients_round_half_up_in_duckdb() -> None:
    from decimal import ROUND_HALF_UP
    from decimal import Decimal as D

    from sqlglot import exp

    import duckdb
    from iceview.sql.translate.exact_decimals import exact_quotient

    con = duckdb.connect()
    cases = [("5.55", 2, "160", 0, (14, 6)), ("-5.55", 2, "160", 0, (14, 6)), ("7.77", 2, "-800", 0, (14, 6))]
    cases += [
        ("0.01", 2, "32", 0, (14, 6)),
        ("99999999.99", 2, "0.07", 2, (21, 10)),
        ("1", 0, "3", 0, (7, 6)),
    ]
    for a, sa, b, sb, result in cases:
        a_node = exp.Cast(this=exp.Literal.string(a), to=exp.DataType.build(f"DECIMAL(12, {sa})"))
        b_node = exp.Cast(this=exp.Literal.string(b), to=exp.DataType.build(f"DECIMAL(12, {sb})"))
        sql = exact_quotient(a_node, b_node, sa, sb, result).sql("duckdb")
        got = con.execute(f"SELECT {sql}").fetchone()[0]
        want = (D(a) / D(b)).quantize(D(1).scaleb(-result[1]), rounding=ROUND_HALF_UP)
        assert got == want, (a, b, got, want)
    zero = exp.Cast(this=exp.Literal.string("0"), to=exp.DataType.build("DECIMAL(12, 0)"))
    one = exp.Cast(this=exp.Literal.string("1"), to=exp.DataType.build("DECIMAL(12, 0)"))
    assert (
        con.execute(f"SELECT {exact_quotient(one, zero, 0, 0, (13, 6)).sql('duckdb')}").fetchone()[0] is None
    )


def test_decimal_products_are_widened_by_sparks_types_of_their_operands() -> None:
    # found by an outside check: the widening cast took sqlglot's scale of a compound operand
    assert (
        "CAST(CAST(t.dec2 AS DECIMAL(38, 2)) * t.dec2 AS DECIMAL(38, 4)) * t.dec2"
        in tr("SELECT dec2 * dec2 * dec2 AS c FROM t").sql
    )
    assert "CAST(t.dec2 * 1.5 AS DECIMAL(38, 3)) * t.dec2" in tr("SELECT dec2 * 1.5 * dec2 AS c FROM t").sql
    assert "CAST(t.i * 1.5 AS DECIMAL(38, 1)) * t.dec2" in tr("SELECT i * 1.5 * dec2 AS c FROM t").sql


def test_what_an_outside_check_found_between_spark_and_duckdb() -> None:
    assert "bit-shift" in refused("SELECT shiftleft(i, 2) AS c FROM t")
    assert "bit-shift" in refused("SELECT shiftright(l, 65) AS c FROM t")
    assert "bit-shift" in refused("SELECT i >> 33 AS c FROM t", "spark", "duckdb")
    assert "substring-position" in refused("SELECT substring(s, 3, -2) AS c FROM t", "spark", "duckdb")
    for interval in ("'1 month 1 day'", "'1.5 hours'", "'01:30:00'", "(i) DAY"):
        assert "interval-literal" in refused(
            f"SELECT ts + INTERVAL {interval} AS c FROM t", "spark", "duckdb"
        ), interval
    hinted = tr("WITH c AS MATERIALIZED (SELECT id FROM t) SELECT id FROM c", "spark", "duckdb").sql
    assert "MATERIALIZED" not in hinted


def test_sparks_decimal_result_types() -> None:
    from iceview.sql.translate.edges import spark_avg_type, spark_bounded, spark_divide_type

    assert spark_divide_type((10, 2), (1, 0)) == (14, 6)
    assert spark_divide_type((38, 10), (1, 0)) == (38, 10)  # 40 digits: 28 integer digits kept, scale 12 cut
    assert spark_divide_type((38, 0), (38, 0)) == (38, 6)  # never below min(scale, 6)
    assert spark_bounded(39, 2) == (38, 2)
    assert spark_avg_type((10, 2)) == (14, 6)
    assert spark_avg_type((38, 10)) == (38, 14)


def test_array_contains_keeps_sparks_nulls_in_duckdb() -> None:
    out = tr("SELECT array_contains(arr, s) AS c FROM t").sql
    assert (
        "CASE WHEN t.arr IS NULL OR t.s IS NULL THEN NULL WHEN ARRAY_CONTAINS(t.arr, t.s) THEN TRUE "
        "WHEN LENGTH(t.arr) > LIST_COUNT(t.arr) THEN NULL ELSE FALSE END"
    ) in out


def test_dayofweek_is_sunday_one_into_duckdb() -> None:
    assert "(DAYOFWEEK(t.dt) + 1)" in tr("SELECT dayofweek(dt) AS c FROM t").sql
    assert refused("SELECT dayofweek(s) AS c FROM t")  # Spark casts text to a date first: ansi-cast
    # into Trino sqlglot's (day_of_week(x) % 7) + 1 renumbers Trino's ISO days (trino_rules.py)
    assert "% 7) + 1)" in tr("SELECT dayofweek(dt) AS c FROM t", "trino").sql


def from_duckdb(sql: str) -> Translation:
    return translate(
        sql, "duckdb", "spark", default_catalog=CATALOG, default_namespace=[NAMESPACE], schemas={NAME: EDGE}
    )


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("SELECT avg(dec2) AS c FROM t", "decimal-division"),
        ("SELECT dec2 / 3 AS c FROM t", "decimal-division"),
        ("SELECT dec2 - dec10 AS c FROM t", "decimal-overflow"),
        ("SELECT dec10 * dec2 AS c FROM t", "decimal-overflow"),
        ("SELECT dec2 // 2 AS c FROM t", "div-semantics"),
        ("SELECT d // 2 AS c FROM t", "div-semantics"),
        ("SELECT upper(s) AS c FROM t", "unicode-case"),
        ("SELECT TRY_CAST(s AS INTEGER) AS c FROM t", "try-cast-text"),
    ],
)
def test_refusals_from_duckdb_into_spark(sql: str, code: str) -> None:
    with pytest.raises(UnsafeTranslationError) as e:
        from_duckdb(sql)
    assert code in e.value.codes


def test_rewrites_from_duckdb_into_spark() -> None:
    # DuckDB sums integers in HUGEINT (a view stores DECIMAL(38, 0)); Spark's BIGINT sum wraps
    assert "SUM(CAST(t.l AS DECIMAL(38, 0)))" in from_duckdb("SELECT sum(l) AS c FROM t").sql
    assert "SUM(CAST(t.i AS DECIMAL(38, 0)))" in from_duckdb("SELECT sum(i) AS c FROM t").sql
    assert "SUM(t.dec2)" in from_duckdb("SELECT sum(dec2) AS c FROM t").sql
    # what the edge suite proved is kept
    out = from_duckdb(
        "SELECT b AND i > 0 AS a, NOT b AS n, avg(i) AS v, i // 2 AS h, dec2 + dec2 AS p FROM t GROUP BY b, i, dec2"
    )
    assert out.safe


def test_binding_needs_qualified_names_and_schemas() -> None:
    # without schemas nothing is bound: md5 of a column of no known type is refused by its
    # signature, not by the binding check; with schemas, md5 of an INT does not bind in DuckDB
    with pytest.raises(UnsafeTranslationError) as e:
        translate(
            "SELECT md5(s) AS h FROM t",
            "spark",
            "duckdb",
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
        )
    assert e.value.codes == ("type-signature",)
    assert translate(
        "SELECT md5('x') AS h FROM t",
        "spark",
        "duckdb",
        default_catalog=CATALOG,
        default_namespace=[NAMESPACE],
    ).safe
    assert tr("SELECT md5(s) AS h FROM t").safe


def test_known_ansi_mode_lets_integer_arithmetic_through() -> None:
    def ansi(sql: str) -> str:
        return translate(
            sql,
            "spark",
            "duckdb",
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: EDGE},
            spark_ansi=True,
        ).sql

    # ANSI Spark raises on overflow as DuckDB does; legacy or unknown mode wraps: refused
    assert "t.i + 1" in ansi("SELECT i + 1 AS c FROM t")
    assert "SUM(t.l)" in ansi("SELECT sum(l) AS c FROM t")
    assert "integer-overflow" in refused("SELECT i + 1 AS c FROM t")
    with pytest.raises(UnsafeTranslationError):
        translate(
            "SELECT i + 1 AS c FROM t",
            "spark",
            "duckdb",
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: EDGE},
            spark_ansi=False,
        )
