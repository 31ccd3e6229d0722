"""The evidence for Trino (iceview.sql.translate.trino_reference, trino_rules): every function class
accepted with Trino on either side has a documented reference or is refused, each reference names
Trino's documentation and a verdict the rules table gives, and the rules that follow from Trino's
documented semantics rewrite or refuse what differs from Spark's."""

from __future__ import annotations

import re

import pytest
import sqlglot
from pyiceberg.schema import Schema
from sqlglot import exp

from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate import RULES
from iceview.sql.translate.allowlists import ALLOWED, allowed_functions
from iceview.sql.translate.pipeline import PIPELINE_CODES
from iceview.sql.translate.policy import Context, Refuse
from iceview.sql.translate.trino_reference import (
    DOCS,
    REFERENCES,
    TRINO_SOURCE_UNREFERENCED,
    TRINO_TARGET_UNREFERENCED,
    accepted_from_trino,
    accepted_into_trino,
)
from translate.edge_data import CATALOG, EDGE, NAME, NAMESPACE


def _rule_for(name: str, source: str, target: str) -> object:
    node = getattr(exp, name)()
    return RULES.lookup(node, Context(source, target))


def test_every_construct_accepted_into_trino_has_a_reference() -> None:
    missing = sorted(accepted_into_trino() - set(REFERENCES))
    assert not missing, f"on Trino's allow-list without a documented reference: {missing}"


@pytest.mark.parametrize("target", ["spark", "duckdb"])
def test_every_construct_accepted_from_trino_has_a_reference_or_is_refused(target: str) -> None:
    for name in sorted(allowed_functions(target, "trino")):
        rule = _rule_for(name, "trino", target)
        refused = rule is not None and isinstance(rule.policy, Refuse)  # type: ignore[attr-defined]
        if name in TRINO_SOURCE_UNREFERENCED:
            assert refused, f"{name} has no Trino reference but is translated from Trino into {target}"
        else:
            assert name in REFERENCES, name


@pytest.mark.parametrize(("source", "target"), [("spark", "trino"), ("trino", "spark"), ("trino", "duckdb")])
def test_every_rule_that_lets_a_call_through_in_a_trino_direction_has_a_reference(
    source: str, target: str
) -> None:
    for rule in RULES:
        if rule.applies_to(source, target) and not isinstance(rule.policy, Refuse):
            for name in rule.construct.exact_names:
                if name in allowed_functions(target, source):
                    assert name in REFERENCES, f"{rule} lets {name} through without a Trino reference"


@pytest.mark.parametrize("name", sorted(TRINO_TARGET_UNREFERENCED))
def test_what_trino_does_not_document_is_refused_into_trino(name: str) -> None:
    rule = _rule_for(name, "spark", "trino")
    assert rule is not None and isinstance(rule.policy, Refuse), name  # type: ignore[attr-defined]
    assert rule.policy.code == "trino-unreferenced"  # type: ignore[attr-defined]


def test_references_name_trino_docs_and_real_codes() -> None:
    codes = set(RULES.codes()) | PIPELINE_CODES
    for name, ref in REFERENCES.items():
        assert ref.url.startswith(DOCS + "/") and ref.url.endswith(".html"), name
        assert len(ref.fact) > 10, name
        for verdict_code in re.findall(r"(?:refused|checked)(?: from Trino)?: ([a-z][a-z_-]*)", ref.verdict):
            if verdict_code == "to_date":  # a check without a code of its own (to_date_check)
                continue
            assert verdict_code in codes, (name, verdict_code)
    assert accepted_from_trino() >= ALLOWED["spark"]


@pytest.mark.parametrize("target", ["spark", "duckdb"])
def test_trinos_greatest_is_null_when_an_argument_is(target: str) -> None:
    out = translate(
        "SELECT greatest(i, l) AS c FROM edge.db.t",
        "trino",
        target,
        default_catalog=CATALOG,
        default_namespace=[NAMESPACE],
        schemas={NAME: EDGE},
    ).sql
    assert "IS NULL OR" in out and out.count("IS NULL") == 2, out  # the CASE, once


# --------------------------------------------------------------------------------------------------
# the rules that follow from the documents


def _to_trino(sql: str, **kw: object) -> str:
    return translate(
        sql,
        "spark",
        "trino",
        default_catalog=CATALOG,
        default_namespace=[NAMESPACE],
        schemas={NAME: EDGE},
        **kw,  # type: ignore[arg-type]
    ).sql


def _codes(sql: str, source: str = "spark", target: str = "trino", **kw: object) -> set[str]:
    try:
        translate(
            sql,
            source,
            target,
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: EDGE},
            **kw,  # type: ignore[arg-type]
        )
    except UnsafeTranslationError as e:
        return set(e.codes)
    return set()


def test_spark_trim_trims_spaces_only_in_trino() -> None:
    out = sqlglot.parse_one(_to_trino("SELECT trim(s) AS a, ltrim(s) AS b FROM t"), read="trino")
    trims = list(out.find_all(exp.Trim))
    assert [t.args["expression"].name for t in trims] == [" ", " "]
    assert "TRIM(BOTH ' ' FROM" in out.sql("trino")


def test_sum_is_widened_to_sparks_result_type() -> None:
    out = _to_trino("SELECT sum(i) AS a, sum(dec2) AS b FROM t", spark_ansi=True)
    assert "SUM(CAST(t.i AS BIGINT))" in out.replace('"', "")
    assert "SUM(CAST(t.dec2 AS DECIMAL(20, 2)))" in out.replace('"', "")


def test_div_of_integers_is_trinos_integer_division() -> None:
    out = _to_trino("SELECT l div 7 AS q FROM t")
    assert "CAST(t.l AS BIGINT) / CAST(7 AS BIGINT)" in out.replace('"', "")
    assert "DOUBLE" not in out
    nested = _to_trino(
        "SELECT sum(i) div 7 AS q, (l div 7) div 3 AS r FROM t GROUP BY l", spark_ansi=True
    ).replace('"', "")
    # rewrites inside rewritten operands still apply
    assert "CAST((CAST(t.l AS BIGINT) / CAST(7 AS BIGINT)) AS BIGINT) / CAST(3 AS BIGINT)" in nested
    assert "CAST(SUM(CAST(t.i AS BIGINT)) AS BIGINT) / CAST(7 AS BIGINT)" in nested


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("SELECT replace(s, '', 'x') AS c FROM t", "replace-empty"),
        ("SELECT replace(s, grp, 'x') AS c FROM t", "replace-empty"),
        ("SELECT concat(s, d) AS c FROM t", "concat-text"),
        ("SELECT concat(s, ts) AS c FROM t", "concat-text"),
        ("SELECT avg(dec2) AS c FROM t", "decimal-avg"),
        ("SELECT max(d) AS c FROM t", "nan-ordering"),
        ("SELECT id FROM t WHERE d IN (SELECT d FROM t)", "nan-semantics"),
        ("SELECT pow(d, 2) AS c FROM t", "libm"),
        ("SELECT round(dec2, 1) AS c FROM t", "trino-unreferenced"),
        ("SELECT dec2 / 3 AS c FROM t", "decimal-division"),
        ("SELECT struct(i, s) AS c FROM t", "trino-unreferenced"),
    ],
)
def test_documented_differences_are_refused_into_trino(sql: str, code: str) -> None:
    assert code in _codes(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT concat(s, i, dec2, dt) AS c FROM t",
        "SELECT replace(s, 'a', 'b') AS c FROM t",
        "SELECT avg(i) AS c FROM t",
        "SELECT max(dec2) AS c, min(s) AS e FROM t",
        "SELECT id FROM t WHERE i > 1",
        "SELECT i / 3 AS c FROM t",
        "SELECT date_format(ts, 'yyyy-MM-dd') AS c FROM t",
    ],
)
def test_documented_equal_semantics_are_kept(sql: str) -> None:
    assert _codes(sql, spark_ansi=True) == set()


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT left(s, 2) AS c FROM t", "SUBSTR(t.s, 1, 2)"),
        ("SELECT right(s, 2) AS c FROM t", "SUBSTR(t.s, GREATEST(LENGTH(t.s) - 2 + 1, 1))"),
        ("SELECT md5(s) AS c FROM t", "LOWER(TO_HEX(MD5(TO_UTF8(t.s))))"),
        ("SELECT last_day(dt) AS c FROM t", "LAST_DAY_OF_MONTH(t.dt)"),
        ("SELECT add_months(dt, -1) AS c FROM t", "DATE_ADD('month', -1, t.dt)"),
        (
            "SELECT dayofweek(dt) AS c FROM t",
            "((DAY_OF_WEEK(CAST(CAST(t.dt AS TIMESTAMP) AS DATE)) % 7) + 1)",
        ),
        ("SELECT array_contains(arr, 'x') AS c FROM t", "CONTAINS(t.arr, 'x')"),
        ("SELECT substring(s, 0, 2) AS c FROM t", "SUBSTR(t.s, 1, 2)"),
    ],
)
def test_spark_functions_trino_spells_otherwise_are_rewritten(sql: str, expected: str) -> None:
    out = translate(
        sql, "spark", "trino", default_catalog=CATALOG, default_namespace=[NAMESPACE], schemas={NAME: EDGE}
    ).sql
    assert f"SELECT {expected} AS c FROM" in out, out


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("SELECT md5(i) AS c FROM t", "md5-input"),
        ("SELECT add_months(ts, 1) AS c FROM t", "date-add"),
        ("SELECT right(upper('ab'), 1) AS c FROM t", "substring-position"),
        ("SELECT right(s, -1) AS c FROM t", "substring-position"),
        ("SELECT dayofweek(s) AS c FROM t", "ansi-cast"),  # Spark reads the text as a date first
    ],
)
def test_spark_functions_trino_spells_otherwise_are_refused_where_unproven(sql: str, code: str) -> None:
    assert code in _codes(sql)


def _trino_substr(s: str, start: int) -> str:
    # Trino's substr(string, start): 1-based, negative from the end, '' past the end or at 0
    n = len(s)
    if start == 0 or abs(start) > n + (start > 0):
        return ""
    return s[start - 1 :] if start > 0 else s[n + start :]


def test_the_right_rewrite_is_sparks_right_under_trinos_substr() -> None:
    for s in ("", "a", "ab", "Straße"):
        for n in range(0, 9):
            spark_right = s[len(s) - n :] if 0 < n <= len(s) else (s if n > len(s) else "")
            assert _trino_substr(s, max(len(s) - n + 1, 1)) == spark_right, (s, n)


@pytest.mark.parametrize(
    ("sql", "target", "code"),
    [
        ("SELECT trim(s) AS c FROM edge.db.t", "spark", "trim-whitespace"),
        ("SELECT trim(s) AS c FROM edge.db.t", "duckdb", "trim-whitespace"),
        ("SELECT upper(s) AS c FROM edge.db.t", "spark", "unicode-case"),
        ("SELECT avg(dec2) AS c FROM edge.db.t", "duckdb", "decimal-avg"),
        ("SELECT min(d) AS c FROM edge.db.t", "spark", "nan-ordering"),
        ("SELECT i + 1 AS c FROM edge.db.t", "spark", "integer-overflow"),
        ("SELECT round(d) AS c FROM edge.db.t", "duckdb", "function"),
        ("SELECT dec2 / 3 AS c FROM edge.db.t", "spark", "decimal-division"),
        ("SELECT greatest(d, 1.0) AS c FROM edge.db.t", "duckdb", "nan-semantics"),
        ("SELECT greatest(i + 1, l) AS c FROM edge.db.t", "spark", "greatest-null"),
        ("SELECT date_add('hour', 1, ts) AS c FROM edge.db.t", "spark", "date-add"),
        ("SELECT date_add('day', 1, ts) AS c FROM edge.db.t", "duckdb", "date-add"),
        ("SELECT date_diff('month', dt, dt) AS c FROM edge.db.t", "spark", "date-diff"),
        ("SELECT strpos(s, 'a', 2) AS c FROM edge.db.t", "spark", "strpos-instance"),
        ("SELECT hour(tstz) AS c FROM edge.db.t", "spark", "time-zone"),
        ("SELECT date_trunc('day', tstz) AS c FROM edge.db.t", "duckdb", "time-zone"),
        ("SELECT extract(DOW FROM dt) AS c FROM edge.db.t", "spark", "extract-field"),
    ],
)
def test_documented_differences_are_refused_from_trino(sql: str, target: str, code: str) -> None:
    assert code in _codes(sql, "trino", target)


def test_trino_overflow_matches_ansi_spark() -> None:
    assert _codes("SELECT i + 1 AS c FROM edge.db.t", "trino", "spark", spark_ansi=True) == set()
    assert _codes("SELECT trim(BOTH ' ' FROM s) AS c FROM edge.db.t", "trino", "spark") == set()


def test_a_schema_is_needed_for_type_dependent_trino_rules() -> None:
    try:
        translate(
            "SELECT avg(x) AS a FROM t",
            "spark",
            "trino",
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: Schema()},
        )
    except UnsafeTranslationError as e:
        assert "decimal-avg" in e.codes
    else:
        raise AssertionError("avg of an unknown type was translated into Trino")


@pytest.mark.parametrize(
    ("sql", "source", "target", "expected"),
    [
        # against a literal only "NaN is above c" differs, and the comparison stays a pushed-down filter
        ("SELECT id FROM t WHERE d > 3", "spark", "trino", "(t.d > 3 OR IS_NAN(t.d))"),
        ("SELECT id FROM t WHERE 3 >= d", "spark", "trino", "WHERE 3 >= t.d"),
        ("SELECT id FROM t WHERE d < 3 AND d = 1.5", "spark", "trino", "WHERE t.d < 3 AND t.d = 1.5"),
        ("SELECT t.id FROM t WHERE t.d > 3", "trino", "spark", "(t.d > 3 AND NOT ISNAN(t.d))"),
        ("SELECT t.id FROM t WHERE t.d < -3", "trino", "duckdb", "WHERE t.d < -3"),
        # a filter from Trino keeps its equi-join: FALSE and NULL both drop the row there
        (
            "SELECT a.id FROM t AS a JOIN t AS b ON a.d = b.d",
            "trino",
            "spark",
            "ON (a.d = b.d AND (NOT ISNAN(a.d) AND NOT ISNAN(b.d)))",
        ),
        # a value that cannot be NaN: nothing to guard (and a literal beside a literal is left alone)
        ("SELECT id FROM t WHERE 1.5 IN (d, 2.5)", "spark", "trino", "WHERE 1.5 IN (t.d, 2.5)"),
        ("SELECT id FROM t WHERE d IN (d + 1, 2.5)", "spark", "trino", "ELSE t.d = 2.5 END"),
        # a value: NULL beside NaN stays NULL
        (
            "SELECT t.d <> t.f AS c FROM t",
            "trino",
            "duckdb",
            "CASE WHEN t.d IS NULL OR t.f IS NULL THEN NULL WHEN ISNAN(t.d) OR ISNAN(t.f) THEN TRUE ELSE t.d <> t.f END",
        ),
        (
            "SELECT d = f AS c FROM t",
            "spark",
            "trino",
            "WHEN IS_NAN(t.d) OR IS_NAN(t.f) THEN CAST(IS_NAN(t.d) AS INTEGER) = CAST(IS_NAN(t.f) AS INTEGER)",
        ),
    ],
)
def test_floating_comparisons_are_guarded_not_refused(
    sql: str, source: str, target: str, expected: str
) -> None:
    out = translate(
        sql, source, target, default_catalog=CATALOG, default_namespace=[NAMESPACE], schemas={NAME: EDGE}
    ).sql
    assert expected in out, out


@pytest.mark.parametrize(
    ("sql", "source", "target", "code"),
    [
        ("SELECT t.id FROM t WHERE t.d IN (t.d, 1.5)", "trino", "spark", "self-comparison"),
        ("SELECT CASE t.b WHEN t.b THEN t.l END AS c FROM t", "trino", "duckdb", "self-comparison"),
        ("SELECT t.id FROM t WHERE t.d IN (SELECT u.d FROM t AS u)", "trino", "duckdb", "nan-semantics"),
        (
            "SELECT id FROM t AS o WHERE EXISTS (SELECT 1 FROM t AS u WHERE u.id = o.st.x)",
            "spark",
            "trino",
            "correlated-field",
        ),
        ("SELECT f - l AS c FROM t", "spark", "trino", "type-signature"),
        ("SELECT ARRAY(f, dec2) AS c FROM t", "spark", "trino", "type-signature"),
        ("SELECT EXTRACT(DAY FROM tstz) AS c FROM t", "spark", "trino", "time-zone"),
        ("SELECT avg(d) AS c FROM t", "spark", "trino", "floating-aggregate"),
        ("SELECT CAST(t.d AS DECIMAL(38, 0)) AS c FROM t", "trino", "duckdb", "cast-semantics"),
        ("SELECT t.ts + INTERVAL '0.000001' SECOND AS c FROM t", "trino", "spark", "interval-literal"),
        ("SELECT id FROM t WHERE date_add(dt, i) > dt", "spark", "trino", "date-add"),
        ("SELECT [b, id] AS c FROM t", "duckdb", "trino", "implicit-cast"),
        ("SELECT round(dec10, 1) AS c FROM t", "duckdb", "trino", "decimal-overflow"),
        ("SELECT CAST(s AS DATE) AS c FROM t", "duckdb", "trino", "try-cast-text"),
        ("SELECT sum(NULL) AS c FROM t", "duckdb", "trino", "implicit-cast"),
    ],
)
def test_what_running_trino_found_is_refused(sql: str, source: str, target: str, code: str) -> None:
    assert code in _codes(sql, source, target)


@pytest.mark.parametrize(
    ("sql", "source", "target", "expected"),
    [
        ("SELECT ceil(t.l) AS c FROM t", "trino", "duckdb", "SELECT t.l AS c"),
        ("SELECT ceil(t.dec2) AS c FROM t", "trino", "duckdb", "CAST(CEIL(t.dec2) AS DECIMAL(9, 0))"),
        ("SELECT ceil(l) AS c FROM t", "duckdb", "trino", "CEIL(CAST(t.l AS DOUBLE))"),
        ("SELECT floor(dec2) AS c FROM t", "duckdb", "trino", "CAST(FLOOR(t.dec2) AS DECIMAL(10, 0))"),
        (
            "SELECT date_trunc('hour', dt) AS c FROM t",
            "duckdb",
            "trino",
            "DATE_TRUNC('HOUR', CAST(t.dt AS TIMESTAMP(6)))",
        ),
    ],
)
def test_result_types_of_the_source_are_kept(sql: str, source: str, target: str, expected: str) -> None:
    out = translate(
        sql, source, target, default_catalog=CATALOG, default_namespace=[NAMESPACE], schemas={NAME: EDGE}
    ).sql
    assert expected in out, out
