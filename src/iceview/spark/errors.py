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

from iceview.errors import IceviewError, SQLParseError, ViewExpansionError
from iceview.sql.ddl import SparkSyntaxError

__all__ = [
    "SparkViewsAnalysisError",
    "SparkViewsExpansionError",
    "SparkViewsIllegalArgumentError",
    "SparkViewsParseError",
    "SparkViewsUnsupportedOperationError",
    "parse_error_from",
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
        # Spark prints no class for its legacy errors ("Operation not allowed: ...")
        if self.error_class and not self.error_class.startswith("_LEGACY_ERROR"):
            return f"[{self.error_class}] {self.message}"
        return self.message

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
    """A statement Spark's parser rejects (e.g. ``provider`` in ``ALTER VIEW ... SET TBLPROPERTIES``,
    a view name Spark's lexer refuses such as ``v$``); one made by :func:`parse_error_from` has
    Spark's error class, message and position, and iceview's ``SQLParseError`` as its cause."""

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


def parse_error_from(e: SQLParseError) -> SparkViewsParseError:
    """Spark's ``ParseException`` for a view statement iceview's parser refused: Spark's error class
    (``PARSE_SYNTAX_ERROR`` unless the error names another), and the message as Spark prints it:
    ``message(line L, pos P)`` and the ``== SQL ==`` block pointing at the position."""
    error_class = e.error_class if isinstance(e, SparkSyntaxError) else "PARSE_SYNTAX_ERROR"
    message = e.message
    if e.line is not None and e.pos is not None:
        message += f"(line {e.line}, pos {e.pos})"
        if e.sql is not None:
            lines = e.sql.split("\n")
            above, below = lines[: e.line], lines[e.line :]
            message += "\n\n== SQL ==\n" + "".join(f"{x}\n" for x in above) + "-" * e.pos + "^^^\n"
            message += "".join(f"{x}\n" for x in below)
    error = SparkViewsParseError(message, error_class)
    error.__cause__ = e
    return error


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
