"""Exceptions raised by :mod:`iceview.spark`, with Iceberg-Spark's (and Spark's) messages.

Each class derives from PySpark's own exception *and* :class:`~iceview.errors.IceviewError`, so a
pipeline that catches ``pyspark.errors.AnalysisException`` around ``spark.sql(...)`` catches the same
failures from :meth:`SparkViews.sql <iceview.spark.SparkViews.sql>`, on classic Spark and on Spark
Connect. ``str(e)`` is ``[ERROR_CLASS] message`` when Spark has an error class for the failure, else
the bare message, as PySpark prints Spark's own errors.
"""

from __future__ import annotations

from pyspark.errors import (
    AnalysisException,
    IllegalArgumentException,
    ParseException,
    UnsupportedOperationException,
)

from iceview.errors import IceviewError, ViewExpansionError

__all__ = [
    "SparkViewsAnalysisError",
    "SparkViewsExpansionError",
    "SparkViewsIllegalArgumentError",
    "SparkViewsParseError",
    "SparkViewsUnsupportedOperationError",
    "view_already_exists",
    "view_not_found",
]


class _Mixin(IceviewError):
    """Keeps ``message`` and ``error_class`` readable whichever PySpark version is installed."""

    message: str
    error_class: str | None

    def _setup(self, message: str, error_class: str | None) -> None:
        self.message = message
        self.error_class = error_class

    def __str__(self) -> str:
        return f"[{self.error_class}] {self.message}" if self.error_class else self.message

    def getErrorClass(self) -> str | None:
        return self.error_class

    def getCondition(self) -> str | None:
        return self.error_class


class SparkViewsAnalysisError(_Mixin, AnalysisException):
    """A statement that Spark (or Iceberg-Spark) would reject at analysis."""

    def __init__(self, message: str, error_class: str | None = None) -> None:
        AnalysisException.__init__(self, message)
        self._setup(message, error_class)


class SparkViewsExpansionError(_Mixin, ViewExpansionError, AnalysisException):
    """A view that cannot be read from its query as Iceberg-Spark reads it: a column that would be
    narrowed or reinterpreted (``CANNOT_UP_CAST_DATATYPE``), or fewer query columns than the view's
    schema. Both an :class:`~iceview.errors.ViewExpansionError` and a PySpark ``AnalysisException``."""

    def __init__(self, message: str, error_class: str | None = None) -> None:
        AnalysisException.__init__(self, message)
        self._setup(message, error_class)


class SparkViewsParseError(_Mixin, ParseException):
    """A statement Spark's parser rejects (e.g. ``provider`` in ``ALTER VIEW ... SET TBLPROPERTIES``)."""

    def __init__(self, message: str, error_class: str | None = None) -> None:
        ParseException.__init__(self, message)
        self._setup(message, error_class)


class SparkViewsUnsupportedOperationError(_Mixin, UnsupportedOperationException):
    """Iceberg's ``UnsupportedOperationException`` (e.g. ``Cannot set reserved property: 'k'``)."""

    def __init__(self, message: str, error_class: str | None = None) -> None:
        UnsupportedOperationException.__init__(self, message)
        self._setup(message, error_class)


class SparkViewsIllegalArgumentError(_Mixin, IllegalArgumentException):
    """Iceberg's ``IllegalArgumentException`` (e.g. ``Unsupported format in USING: csv``)."""

    def __init__(self, message: str, error_class: str | None = None) -> None:
        IllegalArgumentException.__init__(self, message)
        self._setup(message, error_class)


def view_already_exists(quoted_ident: str) -> SparkViewsAnalysisError:
    """Spark's ``ViewAlreadyExistsException`` for ``ns.v`` (namespace and name, no catalog)."""
    return SparkViewsAnalysisError(
        f"Cannot create view {quoted_ident} because it already exists.\n"
        "Choose a different name, drop or replace the existing object, or add the IF NOT EXISTS "
        "clause to tolerate pre-existing objects.",
        "VIEW_ALREADY_EXISTS",
    )


def view_not_found(quoted_ident: str) -> SparkViewsAnalysisError:
    """Spark's ``NoSuchViewException`` for ``ns.v``."""
    return SparkViewsAnalysisError(
        f"The view {quoted_ident} cannot be found. Verify the spelling and correctness of the schema "
        "and catalog.\nIf you did not qualify the name with a schema, verify the current_schema() "
        "output, or qualify the name with the correct schema and catalog.\n"
        "To tolerate the error on drop use DROP VIEW IF EXISTS.",
        "VIEW_NOT_FOUND",
    )
