"""The two shortcuts SparkViews takes on a classic (non-Connect) session, through its JVM.

Everything else in :mod:`iceview.spark` uses Spark's public Python API, which works the same on
classic Spark and on Spark Connect. On a classic session, two questions asked on every read cost
more through that API than the work they ask for, because each Py4J round trip costs ~30-80 us:

* **The statement itself.** ``spark.sql(text)`` without arguments still builds an empty argument
  array in the JVM (a class lookup, an ``ArrayList``, ``toArray``, and the deletion of both proxies
  later): about 0.5 ms on this machine (2026-11-29), beside 4-6 ms of Spark's analysis of a
  one-view query. :func:`run_sql` calls ``SparkSession.sql(String)``, the same parse and analysis
  with no arguments, in one round trip; Spark's errors arrive as the same PySpark exceptions
  (PySpark converts them for every Py4J call).
* **Whether a name is a temporary view.** ``spark.catalog.tableExists`` looks a name that is not a
  temporary view up in the catalog (~1.5 ms); the session's ``SessionCatalog`` answers from its own
  map (:func:`session_catalog`).

Both fall back to the public API for a Spark Connect session (``None`` / ``spark.sql``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyspark.sql.dataframe import DataFrame
from pyspark.sql.session import SparkSession as ClassicSession

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["is_classic", "run_sql", "session_catalog"]


def is_classic(spark: SparkSession) -> bool:
    """Whether ``spark`` is a classic session (a JVM in this process's reach), not Spark Connect."""
    return isinstance(spark, ClassicSession)


def session_catalog(spark: SparkSession) -> Any | None:
    """The JVM ``SessionCatalog`` of a classic session, which holds its temporary views; ``None``
    for Spark Connect, or when the JVM does not give it."""
    if not is_classic(spark):
        return None
    try:
        return spark._jsparkSession.sessionState().catalog()
    except Exception:
        return None


def run_sql(spark: SparkSession, text: str) -> DataFrame:
    """``spark.sql(text)``: on a classic session in one Py4J round trip (see the module's
    documentation), elsewhere through ``spark.sql``."""
    if is_classic(spark):
        jsession = getattr(spark, "_jsparkSession", None)
        if jsession is not None:
            return DataFrame(jsession.sql(text), spark)
    return spark.sql(text)
