from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"
TPCH_DIR = DATA / "tpch"
TPCH_QUERIES = {p.stem: p.read_text() for p in sorted(TPCH_DIR.glob("q*.sql"))}


@pytest.fixture(scope="session")
def tpch_duckdb() -> Iterator[Any]:
    """An in-memory DuckDB with TPC-H tables in ``cat.tpch`` (catalog ``cat``, schema ``tpch``)."""
    duckdb = pytest.importorskip("duckdb")
    from sql.tpch_data import create_tpch

    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.execute("ATTACH ':memory:' AS cat")
    con.execute("CREATE SCHEMA cat.tpch")
    create_tpch(con, "cat.tpch")
    yield con
    con.close()
