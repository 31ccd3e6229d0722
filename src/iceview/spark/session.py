"""``local_session``: a local Spark session with Iceberg's Spark runtime (1.10.2 unless configured,
from Maven: :mod:`iceview.spark.jars`), sharing an iceview catalog's database, for demos, notebooks
and tests (see docs/spark.md).

With a PostgreSQL catalog nothing special is needed. With an embedded **SQLite** catalog, Iceberg
1.10.2's ``JdbcCatalog`` has a bug (fixed upstream after 1.10.2, apache/iceberg PR #15463): when it
initialises on a database whose ``iceberg_tables`` already has the ``iceberg_type`` column, it
leaves a ``getColumns`` result set open, and that keeps a SQLite lock for as long as the JVM lives.
Every write from another process then fails with ``database is locked`` (journal mode) or Java
works on a stale snapshot (WAL). When Java initialises a database *without* that column, it adds the
column itself and holds no lock; reads and writes from both sides then work (measured in
docs/spark.md). So ``local_session``, for a SQLite catalog:

* if the database holds no table or view yet, removes the ``iceberg_type`` column and has the JVM
  initialise the catalog at once with ``jdbc.init-catalog-tables=false`` (Java's check for existing
  tables leaks the same way), which adds the column back (``sqlite="reset-empty"``, the default);
* if it holds tables or views, raises :class:`SQLiteLockError` explaining the choices (PostgreSQL,
  a fresh file, running Java and Python one after the other, or ``sqlite="virtual"``);
* with ``sqlite="virtual"``, does not give Spark the SQLite catalog at all: views are read through
  :class:`~iceview.spark.SparkViews` in virtual mode and tables come from Spark's own catalogs.

Nothing is retried silently: a locked database fails after the catalog's ``sqlite.timeout``.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from iceview.catalog.interface import Catalog
from iceview.catalog.properties import property_as_bool
from iceview.catalog.sql import SqlCatalog
from iceview.errors import IceviewError, InvalidArgumentError
from iceview.spark.jars import runtime_jars, spark_conf

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "ICEBERG_EXTENSIONS",
    "SQLiteLockError",
    "UnsupportedCatalogError",
    "iceberg_catalog_conf",
    "local_session",
]

ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"


class SQLiteLockError(IceviewError, RuntimeError):
    """The SQLite catalog cannot be shared with a live Iceberg 1.10.2 JVM (see the module doc)."""


class UnsupportedCatalogError(InvalidArgumentError):
    """The catalog cannot be shared with an Iceberg catalog in Spark: it is neither an iceview SQL
    catalog (:class:`~iceview.catalog.sql.SqlCatalog`, shared through Iceberg's ``JdbcCatalog``) on
    SQLite or PostgreSQL, nor a REST catalog (``RESTCatalog``), nor a Hive Metastore catalog
    (``HiveCatalog``). A ``ValueError``, as before."""


def _jdbc(catalog: Catalog) -> tuple[str, dict[str, str]]:
    """The JDBC URL and ``jdbc.*`` properties of an iceview SQL catalog."""
    if not isinstance(catalog, SqlCatalog):
        raise UnsupportedCatalogError(
            f"{catalog!r} is not a SQL catalog (type {catalog.catalog_type!r}): Spark cannot share it "
            "through Iceberg's JdbcCatalog"
        )
    url = catalog.url
    backend = url.get_backend_name()
    extra: dict[str, str] = {}
    if backend == "sqlite":
        return "jdbc:sqlite:" + str(Path(url.database or "").absolute()), extra
    if backend == "postgresql":
        port = f":{url.port}" if url.port else ""
        if url.username:
            extra["jdbc.user"] = url.username
        if url.password:
            extra["jdbc.password"] = str(url.password)
        return f"jdbc:postgresql://{url.host}{port}/{url.database}", extra
    raise UnsupportedCatalogError(f"Iceberg's JdbcCatalog cannot use a {backend} database from iceview")


def iceberg_catalog_conf(catalog: Catalog, name: str | None = None) -> dict[str, str]:
    """Spark conf that registers ``catalog``'s store as Iceberg ``SparkCatalog`` ``name``: a SQL
    catalog's database as type ``jdbc`` (``jdbc.schema-version=V1``), a REST catalog's server as
    type ``rest``, a Hive catalog's metastore as type ``hive``; always ``cache-enabled=false``, so
    Spark sees iceview's writes at once."""
    name = name or catalog.name
    prefix = f"spark.sql.catalog.{name}"
    if catalog.catalog_type == "rest":
        return _rest_conf(catalog, prefix)
    if catalog.catalog_type == "hive":
        return _hive_conf(catalog, prefix)
    uri, extra = _jdbc(catalog)
    warehouse = catalog.properties.get("warehouse")
    conf = {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "jdbc",
        f"{prefix}.uri": uri,
        f"{prefix}.jdbc.schema-version": "V1",
        f"{prefix}.cache-enabled": "false",
    }
    if warehouse:
        conf[f"{prefix}.warehouse"] = warehouse
    conf.update({f"{prefix}.{k}": v for k, v in extra.items()})
    return conf


# REST client properties Iceberg Java and PyIceberg spell alike (docs/catalogs.md)
_REST_KEYS = ("uri", "warehouse", "prefix", "credential", "token", "scope", "oauth2-server-uri")


def _rest_conf(catalog: Catalog, prefix: str) -> dict[str, str]:
    """Iceberg's ``RESTCatalog`` on the same server, with the same credentials and headers."""
    conf = {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "rest",
        f"{prefix}.cache-enabled": "false",
    }
    for key, value in catalog.properties.items():
        if key in _REST_KEYS or key.startswith("header."):
            conf[f"{prefix}.{key}"] = value
    return conf


# Hive catalog properties Iceberg Java reads as catalog properties under the same names
_HIVE_KEYS = ("uri", "warehouse")
# and those it reads from the catalog's Hadoop configuration (``spark.sql.catalog.<name>.hadoop.<key>``):
# the lock mode, and the keys that start with one of _HIVE_HADOOP_KEYS
_HIVE_LOCK_ENABLED = "iceberg.engine.hive.lock-enabled"
_HIVE_HADOOP_KEYS = ("iceberg.hive.", "hive.metastore.client.socket.timeout")


def _hive_conf(catalog: Catalog, prefix: str) -> dict[str, str]:
    """Iceberg's ``HiveCatalog`` on the same metastore (``uri``) and ``warehouse``.

    Java reads the lock mode and the lock, property-size and socket settings from the catalog's
    Hadoop configuration, not from its properties; Iceberg-Spark gives each catalog the session's
    plus its own ``hadoop.<key>`` entries. So iceview's ``iceberg.engine.hive.lock-enabled`` (set
    either way, default true: Java's swaps under a lock carry no compare-and-swap expectation, so a
    Java writer with locks beside one without them can lose commits), ``iceberg.hive.*`` and
    ``hive.metastore.client.socket.timeout`` go there."""
    conf = {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "hive",
        f"{prefix}.cache-enabled": "false",
    }
    props = catalog.properties
    for key in _HIVE_KEYS:
        if props.get(key):
            conf[f"{prefix}.{key}"] = props[key]
    locks = str(property_as_bool(props, _HIVE_LOCK_ENABLED, True)).lower()
    conf[f"{prefix}.hadoop.{_HIVE_LOCK_ENABLED}"] = locks
    for key, value in props.items():
        if key.startswith(_HIVE_HADOOP_KEYS):
            conf[f"{prefix}.hadoop.{key}"] = value
    return conf


def _prepare_sqlite(path: Path, mode: str) -> None:
    if not path.exists():
        return
    con = sqlite3.connect(path, timeout=30)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "iceberg_tables" not in tables:
            return
        columns = {r[1].lower() for r in con.execute("PRAGMA table_info(iceberg_tables)")}
        if "iceberg_type" not in columns:
            return
        (rows,) = con.execute("SELECT count(*) FROM iceberg_tables").fetchone()
        if rows or mode == "strict":
            raise SQLiteLockError(
                f"{path} is a catalog with views support ({rows} tables/views), and Iceberg 1.10.2's JdbcCatalog would lock this "
                "SQLite file for as long as Spark runs (fixed after 1.10.2, apache/iceberg PR #15463), so "
                "iceview could not write views meanwhile. Use PostgreSQL, a new SQLite file, run Spark and "
                "iceview one after the other, or local_session(..., sqlite='virtual')."
            )
        if mode == "reset-empty":
            with con:
                con.execute("ALTER TABLE iceberg_tables DROP COLUMN iceberg_type")
    finally:
        con.close()


def local_session(
    catalog: Catalog | None = None,
    *,
    name: str | None = None,
    iceberg: bool = True,
    extensions: bool = True,
    sqlite: str = "reset-empty",
    master: str = "local[2]",
    app_name: str = "iceview",
    conf: Mapping[str, str] | None = None,
    iceberg_version: str | None = None,
    packages: bool = True,
) -> SparkSession:
    """Start (or return) a local Spark session.

    ``iceberg``: put Iceberg's Spark runtime and the JDBC drivers on ``spark.jars.packages``
    (:func:`iceview.spark.jars.spark_conf`; ``iceberg_version``, else ``$ICEVIEW_ICEBERG_VERSION``,
    else 1.10.2), downloading them from Maven into iceview's Ivy cache first when they are not there
    (:class:`~iceview.spark.jars.MissingJarsError` when they cannot be had), and, with
    ``extensions``, Iceberg's SQL extensions. ``packages=False`` puts the same jars, as files from
    that cache, on ``spark.jars`` instead: Spark then runs no Ivy resolution at start, which prints
    its report on stderr each time (Iceberg-Spark's own view support). With a ``catalog``
    (an iceview SQL, REST or Hive catalog) its store becomes Iceberg ``SparkCatalog`` ``name``
    (default ``catalog.name``; :func:`iceberg_catalog_conf`), so :class:`~iceview.spark.SparkViews`
    runs in registered mode. ``sqlite``:
    ``"reset-empty"`` (default), ``"strict"`` (never change the file; refuse a file Java would
    lock) or ``"virtual"`` (do not register a SQLite catalog in Spark); see the module doc.
    """
    if sqlite not in ("reset-empty", "strict", "virtual"):
        raise ValueError(f"sqlite must be 'reset-empty', 'strict' or 'virtual', not {sqlite!r}")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    settings: dict[str, str] = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.warehouse.dir": tempfile.mkdtemp(prefix="iceview-spark-warehouse-"),
    }
    register = False
    if iceberg:
        # resolved here first so that a missing download fails with Ivy's reason, not a dead JVM
        jars = runtime_jars(iceberg_version)
        if packages:
            settings.update(spark_conf(iceberg_version))
        else:
            settings["spark.jars"] = ",".join(jars)
        if extensions:
            settings["spark.sql.extensions"] = ICEBERG_EXTENSIONS
        if catalog is not None and catalog.catalog_type in ("rest", "hive"):
            settings.update(iceberg_catalog_conf(catalog, name))
        elif catalog is not None:
            uri, _ = _jdbc(catalog)
            register = True
            if uri.startswith("jdbc:sqlite:"):
                if sqlite == "virtual":
                    register = False
                else:
                    _prepare_sqlite(Path(uri[len("jdbc:sqlite:") :]), sqlite)
            if register:
                settings.update(iceberg_catalog_conf(catalog, name))
                if uri.startswith("jdbc:sqlite:") and Path(uri[len("jdbc:sqlite:") :]).exists():
                    # the tables exist: Java's table check would leak a result set too
                    settings[f"spark.sql.catalog.{name or catalog.name}.jdbc.init-catalog-tables"] = "false"
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if register and catalog is not None:
        # initialise Iceberg's JdbcCatalog now (it adds the iceberg_type column back on SQLite)
        spark.sql(f"SHOW NAMESPACES IN `{(name or catalog.name).replace('`', '``')}`").collect()
    return spark
