"""The DuckDB binding check: a DuckDB translation is bound (``EXPLAIN``) in an empty in-memory
DuckDB that has the schemas of the relations the query reads, so that no translation that fails on
first use is handed out. Runs only when ``duckdb`` is importable and schemas are known."""

from __future__ import annotations

import importlib.util
from typing import Any

from iceview.errors import TranslationError
from iceview.sql._text import quote_identifier
from iceview.sql.translate.model import TableSchemas, TranslationIssue
from iceview.sql.types import duckdb_type_name

BIND_CODES = frozenset({"does-not-bind"})
"""The refusal code of the binding check."""


def duckdb_available() -> bool:
    return importlib.util.find_spec("duckdb") is not None


def _q(name: str) -> str:
    return quote_identifier(name, "duckdb")


def _create(con: Any, schemas: TableSchemas) -> bool:
    """The relations as empty tables (three-part names only); False when DuckDB cannot hold them."""
    attached: set[str] = set()
    for name, schema in schemas.items():
        parts = tuple(name)
        if len(parts) != 3:
            return False
        catalog, namespace, table = parts
        if catalog not in attached:
            con.execute(f"ATTACH ':memory:' AS {_q(catalog)}")
            attached.add(catalog)
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {_q(catalog)}.{_q(namespace)}")
        try:
            columns = ", ".join(f"{_q(f.name)} {duckdb_type_name(f.field_type)}" for f in schema.fields)
        except TranslationError:
            return False
        con.execute(f"CREATE TABLE {_q(catalog)}.{_q(namespace)}.{_q(table)} ({columns})")
    return True


def _refusal(code: str, sql: str, what: str, e: Exception) -> list[TranslationIssue]:
    first = str(e).splitlines()[0] if str(e) else type(e).__name__
    return [TranslationIssue(code, sql if len(sql) <= 120 else sql[:117] + "...", f"DuckDB {what}: {first}")]


def _parse_issues(con: Any, sql: str) -> list[TranslationIssue]:
    """``does-not-parse`` when DuckDB's parser rejects ``sql`` (what can be checked without schemas)."""
    import duckdb

    try:
        con.extract_statements(sql)
    except duckdb.Error as e:
        return _refusal("does-not-parse", sql, "does not parse it", e)
    return []


def bind_issues(sql: str, schemas: TableSchemas | None) -> list[TranslationIssue]:
    """``does-not-bind`` when DuckDB cannot bind ``sql`` against ``schemas`` (empty tables);
    without them, ``does-not-parse`` when DuckDB cannot parse it."""
    if not duckdb_available():
        return []
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        try:
            if not schemas or not _create(con, schemas):
                return _parse_issues(con, sql)
        except duckdb.Error:
            return _parse_issues(con, sql)  # e.g. a catalog named like one of DuckDB's own databases
        try:
            con.execute(f"EXPLAIN {sql}")
        except duckdb.Error as e:
            return _refusal("does-not-bind", sql, "cannot bind it", e)
        return []
    finally:
        con.close()
