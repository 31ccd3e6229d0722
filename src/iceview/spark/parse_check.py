"""The check iceview's translations into Spark get where a Spark session is at hand: the output is
parsed by the session's own SQL parser (nothing runs), so SQL that sqlglot passes through but Spark
cannot read (DuckDB's ``GLOB``, ``ASOF JOIN``, ...) is refused as ``does-not-parse`` instead of
being handed out. Installed by :class:`~iceview.spark.SparkViews` through
:func:`iceview.sql.translate.set_output_check` (``iceview.sql`` does not import Spark)."""

from __future__ import annotations

from typing import Any

from iceview.sql.translate.pipeline import set_output_check


def spark_parse_error(spark: Any, sql: str) -> str | None:
    """Why the session's parser rejects ``sql``, or None (also when the parser cannot be reached)."""
    try:
        parser = spark._jsparkSession.sessionState().sqlParser()
    except Exception:
        return None
    try:
        parser.parsePlan(sql)
    except Exception as e:
        text = str(e)
        if "ParseException" in text or "PARSE_SYNTAX_ERROR" in text:
            lines = [ln for ln in text.splitlines() if ln.strip()]
            return next((ln for ln in lines if "PARSE" in ln or "Syntax" in ln), lines[0] if lines else text)[
                :300
            ]
        return None  # the session is gone, or another failure: no verdict
    return None


def install_parse_check(spark: Any) -> None:
    """Every later translation into Spark is parsed with ``spark``'s parser."""
    set_output_check("spark", lambda sql: spark_parse_error(spark, sql))
