"""Run queries over Iceberg views in DuckDB (optional extra: ``pip install iceview[duckdb]``).

::

    from iceview.catalog import load_catalog
    from iceview.duckdb import DuckDBViews

    catalog = load_catalog("prod", uri="postgresql+psycopg://...", warehouse="s3://...")
    engine = DuckDBViews(catalog, namespace="db")                 # duckdb SQL only
    engine.sql("SELECT * FROM daily_events WHERE n > 10").fetchall()
    engine = DuckDBViews(catalog, namespace="db", translate=True)  # opt into translating spark SQL

Views are expanded by :class:`iceview.sql.ViewExpander` (the same rules as the Spark path:
qualification with each view's defaults, nesting, cycle detection, ordinal binding and casts to the
stored schema). A view's ``duckdb`` representation is used when it has one; any other dialect is
translated with :func:`iceview.sql.translate` only when ``translate=`` opts in. Tables are read
through PyIceberg scans of the same catalog (its ``iceberg_tables`` rows are shared with Iceberg
Java's ``JdbcCatalog`` and PyIceberg's ``SqlCatalog``) and registered in DuckDB as Arrow tables;
nothing is downloaded at run time.

``duckdb`` is imported lazily, when an engine is made.
"""

from iceview.duckdb.engine import DuckDBViews

__all__ = ["DuckDBViews"]
