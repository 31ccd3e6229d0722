"""The engines ``iceview sql`` runs a query with: DuckDB (in this process) and Spark (a local
session with Iceberg's Spark runtime), both reading the views and tables of one catalog.

DuckDB: :class:`iceview.duckdb.DuckDBViews` expands the views and reads the tables through PyIceberg.

Spark: a local ``SparkSession`` (``iceview.spark.local_session``, Iceberg's Spark runtime from
Maven through :mod:`iceview.spark.jars`) in which the catalog's database is Iceberg ``SparkCatalog`` ``<name>``,
so Spark reads the tables itself; :class:`iceview.spark.SparkViews` expands the views (registered
mode). The catalog is registered read-only in spirit: ``jdbc.init-catalog-tables=false``, and
``iceview sql`` runs queries only. For a SQLite catalog that already holds views,
``local_session(catalog)`` refuses (Iceberg 1.10.2's ``JdbcCatalog`` keeps a read lock on the file
while its JVM lives); the session here lives for one query and writes nothing, and iceview itself
only reads meanwhile, so that lock harms nothing. ``sqlite="virtual"`` would not do: Spark would not
see the catalog's tables at all.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import decimal
import math
import os
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from iceview.cli.errors import CliError, NotFound, one_line
from iceview.cli.interrupts import cancellable
from iceview.cli.status import step

if TYPE_CHECKING:
    from iceview.catalog import Catalog
    from iceview.sql import Translation, TranslationIssue

__all__ = ["ENGINES", "Result", "cell_text", "json_value", "run_duckdb", "run_spark", "unique_names"]

ENGINES = ("duckdb", "spark")

# Spark's log4j2 configuration for the CLI's session: errors only, and no "Setting default log
# level" notice (printed when the level of the logger that initialises logging differs from the
# root logger's)
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c: %m%n
logger.org.name = org
logger.org.level = error
"""


@dataclass
class Result:
    """The rows of a query, and the issues of translations made with ``--lenient``."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    warnings: list[TranslationIssue] = field(default_factory=list)


# ----------------------------------------------------------------------------- DuckDB


def run_duckdb(
    catalog: Catalog, query: str, namespace: tuple[str, ...], *, translate: bool, strict: bool
) -> Result:
    """Run ``query`` (DuckDB SQL) in a new in-memory DuckDB over the catalog's views and tables."""
    try:
        from iceview.duckdb import DuckDBViews

        engine = DuckDBViews(catalog, namespace=namespace, translate=translate, strict=strict)
    except ImportError as e:
        raise CliError(f"the duckdb engine is not available: {e}") from e
    import duckdb

    def run() -> tuple[list[str], list[tuple[Any, ...]]]:
        relation = engine.sql(query)
        if relation is None:  # a statement without a result
            return [], []
        return list(relation.columns), [tuple(r) for r in relation.fetchall()]

    try:
        _check_names(catalog, query, namespace, engine.known_catalogs)
        try:
            with step("running the query in DuckDB (Ctrl-C cancels it)"):
                columns, rows = cancellable(run, lambda: _interrupt(engine.connection, duckdb))
        except duckdb.InterruptException:
            raise KeyboardInterrupt from None  # DuckDB cancelled the query on Ctrl-C
        except duckdb.CatalogException as e:
            raise NotFound(f"duckdb: {_first_line(str(e))}") from e
        except duckdb.Error as e:
            raise CliError(f"duckdb: {one_line(str(e))}") from e
        warnings = [issue for t in engine.warnings for issue in t.warnings]
    finally:
        # an in-memory database: nothing to lose if closing fails, as it can right after a
        # cancelled query ("connection is busy"), which must not hide the interrupt
        with contextlib.suppress(duckdb.Error):
            engine.close()
    return Result(columns, rows, warnings)


def _interrupt(connection: Any, duckdb: Any) -> None:
    """Cancel what runs on ``connection``; between two of its calls DuckDB may answer "busy"
    instead, and the caller tries again."""
    with contextlib.suppress(duckdb.Error):
        connection.interrupt()


def _check_names(
    catalog: Catalog, query: str, namespace: tuple[str, ...], known_catalogs: frozenset[str]
) -> None:
    """Refuse a name that points into a namespace of the catalog where no such table or view
    exists. (DuckDB would report ``default.nope`` as a syntax error: ``default`` is a keyword
    there, and only the names iceview replaces get quoted.)"""
    from iceview.cli.names import format_name
    from iceview.errors import SQLParseError
    from iceview.sql import find_references, qualify_parts

    try:
        references = find_references(query, "duckdb")
    except SQLParseError:
        return  # DuckDBViews says what is wrong
    for ref in references:
        if len(ref.parts) < 2:
            continue  # one-part names: DuckDB's own message is clear
        parts = qualify_parts(
            ref.parts,
            default_catalog=catalog.name,
            default_namespace=namespace,
            known_catalogs=known_catalogs,
        )
        if parts[0] != catalog.name or len(parts) < 3:
            continue
        ident = parts[1:]
        if (
            catalog.namespace_exists(ident[:-1])
            and not catalog.view_exists(ident)
            and not catalog.table_exists(ident)
        ):
            raise NotFound(
                f"table or view {format_name(ref.parts)} does not exist in catalog {catalog.name!r}"
            )


# ----------------------------------------------------------------------------- Spark


def _spark_conf(catalog: Catalog) -> dict[str, str]:
    from iceview.spark import iceberg_catalog_conf

    try:
        conf = iceberg_catalog_conf(catalog)
    except ValueError as e:
        raise CliError(f"the spark engine cannot use catalog {catalog.name!r}: {e}") from e
    prefix = f"spark.sql.catalog.{catalog.name}"
    conf[f"{prefix}.jdbc.init-catalog-tables"] = "false"  # never create catalog tables
    if conf.get(f"{prefix}.uri", "").startswith("jdbc:sqlite:"):
        conf[f"{prefix}.clients"] = "1"  # one pooled connection: the JVM cannot lock itself out
    return conf


@contextlib.contextmanager
def _quiet_spark(debug: bool) -> Iterator[None]:
    """Spark's own log on stderr: errors only, unless --debug or $SPARK_CONF_DIR is set."""
    if debug or os.environ.get("SPARK_CONF_DIR"):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="iceview-spark-conf-") as conf_dir:
        with open(os.path.join(conf_dir, "log4j2.properties"), "w", encoding="utf-8") as f:
            f.write(_LOG4J2)
        os.environ["SPARK_CONF_DIR"] = conf_dir
        try:
            yield
        finally:
            os.environ.pop("SPARK_CONF_DIR", None)


def _spark_hook(
    catalog: Catalog, strict: bool, warnings: list[TranslationIssue]
) -> Callable[[str, str, str], str]:
    """A ``translate=`` hook for SparkViews that looks up the schemas of the relations each view
    reads (names the view's SQL qualifies fully: iceview's translations always do)."""
    from iceview.cli.translation import relation_schemas
    from iceview.sql import translation_hook

    def collect(result: Translation) -> None:
        warnings.extend(result.warnings)

    def hook(sql: str, source: str, target: str) -> str:
        schemas = relation_schemas(catalog, sql, source, default_catalog=None, default_namespace=())
        return translation_hook(strict=strict, schemas=schemas, on_warning=collect)(sql, source, target)

    return hook


def run_spark(
    catalog: Catalog,
    query: str,
    namespace: tuple[str, ...],
    *,
    translate: bool,
    strict: bool,
    debug: bool = False,
) -> Result:
    """Run ``query`` (Spark SQL) in a local Spark session with Iceberg's runtime (see the module
    doc); the session is stopped afterwards."""
    try:
        from pyspark.sql import SparkSession

        from iceview.spark import SparkViews, local_session
    except ImportError as e:
        raise CliError(f"the spark engine is not available: {e} (pip install 'iceview[spark]')") from e
    from iceview.spark.jars import MissingJarsError
    from iceview.sql import render_name

    if SparkSession.getActiveSession() is not None:
        # getOrCreate would return it, with other settings, and stopping it would break its owner
        raise CliError("the spark engine starts its own Spark, but this process already runs a Spark session")
    conf = _spark_conf(catalog)
    warnings: list[TranslationIssue] = []
    with _quiet_spark(debug), step("starting Spark (this takes a while the first time)"):
        try:
            # packages=False: the jars as files, so that Ivy's resolution report does not fill stderr
            spark = local_session(
                None, iceberg=True, extensions=False, app_name="iceview sql", conf=conf, packages=False
            )
        except MissingJarsError as e:
            raise CliError(f"the spark engine is not available: {e}") from e
        except Exception as e:  # no Java, a JVM that did not start
            raise CliError(f"cannot start Spark: {_first_line(str(e)) or type(e).__name__}") from e
    try:
        hook = _spark_hook(catalog, strict, warnings) if translate else None
        views = SparkViews(spark, catalog, translate=hook if hook is not None else False)
        use = [catalog.name, *namespace] if catalog.namespace_exists(namespace) else [catalog.name]
        views.sql("USE " + render_name(use, "spark", always_quote=True))
        try:
            with step("running the query in Spark (Ctrl-C cancels it)"):
                frame = views.sql(query)
                columns = list(frame.columns)
                rows = [tuple(r) for r in frame.collect()]
        except Exception as e:
            raise _spark_error(e) from e
    finally:
        spark.stop()
    return Result(columns, rows, warnings)


def _spark_error(error: Exception) -> Exception:
    """Spark's analysis and parse errors as one line (without the plan); others unchanged."""
    from pyspark.errors import PySparkException

    if not isinstance(error, PySparkException):
        return error  # iceview's errors, and the JVM's that PySpark does not convert
    error_class = error.getErrorClass() or ""
    message = _first_line(str(error).strip())
    if error_class.startswith("TABLE_OR_VIEW_NOT_FOUND"):
        return NotFound(f"spark: {message}")
    return CliError(f"spark: {message}")


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].strip()


# ----------------------------------------------------------------------------- values


def unique_names(columns: Sequence[str]) -> list[str]:
    """Column names made unique for JSON objects: a repeated ``n`` becomes ``n_2``, ``n_3``..."""
    seen: set[str] = set()
    out: list[str] = []
    for name in columns:
        candidate, i = name, 1
        while candidate in seen:
            i += 1
            candidate = f"{name}_{i}"
        seen.add(candidate)
        out.append(candidate)
    return out


def json_value(value: Any) -> Any:
    """A result value as JSON: numbers and strings as they are, decimals as strings (exact), dates
    and times in ISO-8601, binary in base64, structs and maps as objects, arrays as lists,
    non-finite floats as strings."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    as_dict = getattr(value, "asDict", None)  # a Spark Row (struct)
    if callable(as_dict):
        return {str(k): json_value(v) for k, v in as_dict().items()}
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_value(v) for v in value]
    return str(value)


def cell_text(value: Any) -> str | None:
    """A result value for the text table (``None`` for SQL NULL)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time, decimal.Decimal, float, int, str)):
        return str(value)
    import json

    converted = json_value(value)
    return converted if isinstance(converted, str) else json.dumps(converted, ensure_ascii=False)
