"""Run queries over Iceberg views in DuckDB (optional extra: ``pip install iceview[duckdb]``).

::

    from iceview.catalog import load_catalog
    from iceview.duckdb import DuckDBViews

    catalog = load_catalog("prod", uri="postgresql+psycopg://...", warehouse="s3://...")
    engine = DuckDBViews(catalog, namespace="db")                  # other dialects translated safely
    engine.sql("SELECT * FROM daily_events WHERE n > 10").fetchall()
    engine = DuckDBViews(catalog, namespace="db", translate=False)  # duckdb SQL only

Views are expanded by :class:`iceview.sql.ViewExpander` (the same rules as the Spark path:
qualification with each view's defaults, nesting, cycle detection, ordinal binding and casts to the
stored schema). A view's ``duckdb`` representation is used when it has one; another dialect is
translated with :func:`iceview.sql.translate` (refused, with the construct named, when it could
change the results), unless ``translate=False``. Tables are read
through PyIceberg scans of the same catalog (its ``iceberg_tables`` rows are shared with Iceberg
Java's ``JdbcCatalog`` and PyIceberg's ``SqlCatalog``) and registered in DuckDB as Arrow tables;
nothing is downloaded at run time.

``duckdb`` is imported lazily, when an engine is made.
"""

from iceview.duckdb.engine import DuckDBViews

__all__ = ["DuckDBViews"]
