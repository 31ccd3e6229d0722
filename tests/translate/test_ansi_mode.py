"""Which semantics a view's Spark SQL has (ANSI or legacy Spark): from the ``iceview.spark-ansi``
setting or the ``engine-version`` that wrote the version, passed through ``translate_representations``;
and, when it is not known, every construct the two modes disagree on is refused."""

from __future__ import annotations

import pytest

from iceview.errors import InvalidArgumentError
from iceview.spec import SQLRepresentation
from iceview.sql import UnsafeTranslationError, translate
from iceview.sql.translate import SPARK_ANSI_KEY, spark_ansi_mode
from iceview.view import translate_representations
from translate.edge_data import CATALOG, EDGE, NAME, NAMESPACE


@pytest.mark.parametrize(
    ("summary", "properties", "mode"),
    [
        ({"engine-name": "spark", "engine-version": "3.5.9"}, None, False),
        ({"engine-name": "Spark", "engine-version": "3.3.2"}, None, False),
        ({"engine-name": "spark", "engine-version": "2.4.8"}, None, False),
        ({"engine-name": "spark", "engine-version": "4.0.1"}, None, True),
        ({"engine-name": "Spark", "engineVersion": "4.1.0"}, None, True),  # the spec's spelling
        ({"engine-name": "spark", "engine-version": "Spark 4.0.0"}, None, True),
        ({"engine-name": "spark", "engine-version": "unknown"}, None, None),
        ({"engine-name": "spark"}, None, None),
        ({"engine-name": "iceview", "engine-version": "4.0.0"}, None, None),
        ({"engine-name": "trino", "engine-version": "470"}, None, None),
        (None, None, None),
        # the explicit setting wins over the engine's default; the summary's over the property
        ({"engine-name": "spark", "engine-version": "3.5.9"}, {SPARK_ANSI_KEY: "true"}, True),
        ({"engine-name": "spark", "engine-version": "4.0.1"}, {SPARK_ANSI_KEY: "FALSE"}, False),
        ({SPARK_ANSI_KEY: "false"}, {SPARK_ANSI_KEY: "true"}, False),
        (None, {SPARK_ANSI_KEY: " true "}, True),
    ],
)
def test_mode_from_engine_version_or_setting(
    summary: dict[str, str] | None, properties: dict[str, str] | None, mode: bool | None
) -> None:
    assert spark_ansi_mode(summary, properties) is mode


def test_a_bad_setting_is_named() -> None:
    with pytest.raises(InvalidArgumentError, match=r"view property iceview\.spark-ansi='yes'"):
        spark_ansi_mode(None, {SPARK_ANSI_KEY: "yes"})
    with pytest.raises(InvalidArgumentError, match="version summary"):
        spark_ansi_mode({SPARK_ANSI_KEY: "1"})


# constructs whose translation ANSI and legacy Spark disagree on (the rows differ in one mode)
DISAGREEING = [
    "SELECT i + 1 AS c FROM t",
    "SELECT l * 2 AS c FROM t",
    "SELECT -i AS c FROM t",
    "SELECT abs(l) AS c FROM t",
    "SELECT sum(l) AS c FROM t",
    "SELECT round(i, -1) AS c FROM t",
]


def _translate(sql: str, source: str, target: str, spark_ansi: bool | None) -> str | None:
    try:
        return translate(
            sql,
            source,
            target,
            default_catalog=CATALOG,
            default_namespace=[NAMESPACE],
            schemas={NAME: EDGE},
            spark_ansi=spark_ansi,
        ).sql
    except UnsafeTranslationError:
        return None


@pytest.mark.parametrize("sql", DISAGREEING)
def test_unknown_mode_refuses_what_the_modes_disagree_on(sql: str) -> None:
    assert _translate(sql, "spark", "duckdb", True) is not None
    assert _translate(sql, "spark", "duckdb", False) is None
    assert _translate(sql, "spark", "duckdb", None) is None


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT i + 1 AS c FROM t",
        "SELECT CAST(s AS INT) AS c FROM t",
        "SELECT i / id AS c FROM t",
        "SELECT sum(l) AS c FROM t",
        "SELECT avg(dec2) AS c FROM t",
        "SELECT upper(s) AS c FROM t",
    ],
)
def test_unknown_mode_is_never_less_strict_than_a_known_one(sql: str) -> None:
    # whatever translates without knowing the mode translates the same way in both modes
    unknown = _translate(sql, "spark", "duckdb", None)
    if unknown is not None:
        assert _translate(sql, "spark", "duckdb", True) == unknown
        assert _translate(sql, "spark", "duckdb", False) == unknown


def _representations(
    summary: dict[str, str] | None, properties: dict[str, str] | None = None
) -> list[SQLRepresentation]:
    return translate_representations(
        [SQLRepresentation("SELECT id, i + 1 AS c FROM t", "spark")],
        ["duckdb"],
        default_catalog=CATALOG,
        default_namespace=[NAMESPACE],
        schemas=lambda sql, dialect: {NAME: EDGE},
        summary=summary,
        properties=properties,
    )


def test_translate_representations_takes_the_mode_from_the_version() -> None:
    # Spark 4 wrote it: ANSI, so integer arithmetic raises on overflow as DuckDB does
    added = _representations({"engine-name": "spark", "engine-version": "4.0.1"})
    assert [r.dialect for r in added] == ["duckdb"]
    assert "t.i + 1" in added[0].sql
    # Spark 3.5 wrote it (legacy: wraps around) or nobody knows: refused
    for summary in ({"engine-name": "spark", "engine-version": "3.5.9"}, None):
        with pytest.raises(UnsafeTranslationError) as e:
            _representations(summary)
        assert "integer-overflow" in e.value.codes
    # the view says it is ANSI SQL
    assert _representations(None, {SPARK_ANSI_KEY: "true"})
    with pytest.raises(InvalidArgumentError):
        _representations(None, {SPARK_ANSI_KEY: "maybe"})
