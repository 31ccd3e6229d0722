"""iceview: Apache Iceberg views for Python and PySpark."""
__version__ = "0.1.0"
