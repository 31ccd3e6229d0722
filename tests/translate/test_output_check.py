"""The output check an engine layer installs (``set_output_check``): translations into Spark are
parsed by the Spark session's own parser where one is at hand (``iceview.spark.parse_check``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate import set_output_check


@pytest.fixture
def no_check() -> Iterator[None]:
    yield
    set_output_check("spark", None)


def _to_spark(sql: str) -> str:
    return translate(sql, "duckdb", "spark", default_catalog="c", default_namespace=["db"]).sql


def test_an_installed_check_refuses_what_it_rejects(no_check: None) -> None:
    seen: list[str] = []

    def check(sql: str) -> str | None:
        seen.append(sql)
        return "no" if "t2" in sql else None

    set_output_check("spark", check)
    assert _to_spark("SELECT a FROM t") == "SELECT a FROM c.db.t"
    with pytest.raises(UnsafeTranslationError) as e:
        _to_spark("SELECT a FROM t2")
    assert e.value.codes == ("does-not-parse",)
    assert seen == ["SELECT a FROM c.db.t", "SELECT a FROM c.db.t2"]
    set_output_check("spark", None)
    assert _to_spark("SELECT a FROM t2") == "SELECT a FROM c.db.t2"


def test_duckdb_only_syntax_is_refused_into_spark() -> None:
    cases = {
        "SELECT a FROM t UNION ALL BY NAME SELECT a FROM u": "by-name",
        "SELECT a SIMILAR TO 'x.*' AS m FROM t": "similar-to",
        "SELECT a GLOB 'x*' AS m FROM t": "glob",
        "SELECT a > ALL (SELECT b FROM u) AS m FROM t": "quantified-subquery",
        "SELECT a = ANY (SELECT b FROM u) AS m FROM t": "quantified-subquery",
        "SELECT t.a FROM t ASOF JOIN u ON t.a >= u.a": "asof-join",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r": "recursive-cte",
    }
    for sql, code in cases.items():
        with pytest.raises(UnsafeTranslationError) as e:
            _to_spark(sql)
        assert code in e.value.codes, (sql, e.value.codes)


@pytest.mark.java
def test_the_spark_parser_check(java_spark: Any, no_check: None) -> None:
    from iceview.spark.parse_check import install_parse_check, spark_parse_error

    spark = java_spark.spark
    assert spark_parse_error(spark, "SELECT a FROM c.db.t") is None
    # what sqlglot would pass through unchanged, were it not refused by the rules
    assert spark_parse_error(spark, "SELECT a GLOB 'x*' FROM t") is not None
    # Spark reads ASOF as t's alias and runs a plain join: only the rules' asof-join refusal catches it
    assert spark_parse_error(spark, "SELECT * FROM t ASOF JOIN u ON t.a >= u.a") is None
    install_parse_check(spark)
    assert _to_spark("SELECT a FROM t") == "SELECT a FROM c.db.t"
