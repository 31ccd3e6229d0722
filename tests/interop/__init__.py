"""Interoperability with Apache Iceberg Java 1.10.2 (the ``java`` marker; see docs/interop.md)."""
