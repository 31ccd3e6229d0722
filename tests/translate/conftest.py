"""Fixtures for the translation tests: one PostgreSQL catalog shared by PyIceberg (tables), Iceberg
Java in the test process's Spark session (``java_spark``) and iceview; and the corpus report."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from iceview.catalog.sql import SqlCatalog
from translate.corpus import CUSTOMERS, NAMESPACE, ORDERS, customers_data, orders_data
from translate.corpus_sources import EDGE_EVENTS, edge_events_data

CATALOG = "tcorpus"


@dataclass
class CorpusReport:
    equal: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    trino_ok: int = 0
    trino_refused: int = 0
    seconds: float = 0.0
    ran: bool = False

    def line(self) -> str:
        return (
            f"iceview translation corpus (spark -> duckdb): {len(self.equal)} translated and equal, "
            f"{len(self.refused)} refused with a named reason, {len(self.failed)} failed; "
            f"trino: {self.trino_ok} translated (parse in sqlglot's trino dialect), "
            f"{self.trino_refused} refused; {self.seconds:.1f} s"
        )


REPORT = CorpusReport()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    from translate.test_directions import DIRECTION_LINES
    from translate.test_edge import REPORT_LINES

    for line in REPORT_LINES:
        terminalreporter.write_sep("-", "translation edge suite")
        terminalreporter.write_line(line)
    if DIRECTION_LINES:
        terminalreporter.write_sep("-", "translation directions (spark, trino, duckdb)")
        for line in DIRECTION_LINES:
            terminalreporter.write_line(line)
    if REPORT.ran:
        terminalreporter.write_sep("-", "translation corpus")
        terminalreporter.write_line(REPORT.line())
        for f in REPORT.failed:
            terminalreporter.write_line(f"  FAILED {f}")


@dataclass
class CorpusEnv:
    catalog: SqlCatalog
    tables: Any
    spark: Any
    warehouse: Path


@pytest.fixture(scope="package")
def corpus_env(
    java_spark: Any, postgres_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CorpusEnv]:
    from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog

    db = postgres_server.create_database()
    warehouse = tmp_path_factory.mktemp("corpus-warehouse")
    uri = "file://" + str(warehouse)
    tables = PyIcebergSqlCatalog(CATALOG, uri=db.url, warehouse=uri)
    tables.create_namespace(NAMESPACE)
    tables.create_table(f"{NAMESPACE}.customers", schema=CUSTOMERS).append(customers_data())
    tables.create_table(f"{NAMESPACE}.orders", schema=ORDERS).append(orders_data())
    tables.create_table(f"{NAMESPACE}.edge_events", schema=EDGE_EVENTS).append(edge_events_data())
    catalog = SqlCatalog(CATALOG, uri=db.url, warehouse=uri)
    java_spark.add_catalog(CATALOG, db.jdbc_url, warehouse, user=db.user)
    try:
        yield CorpusEnv(catalog, tables, java_spark.spark, warehouse)
    finally:
        catalog.close()
        tables.engine.dispose()
