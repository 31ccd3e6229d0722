"""``iceview sql "..." --engine duckdb|spark``: run a query that may read views.

Not available yet: the Spark and DuckDB engines come with the PySpark and cross-engine work.
"""

from __future__ import annotations

import click

from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import NotAvailable

ENGINES = ("duckdb", "spark")


@command("sql", "Run SQL with Spark or DuckDB (not available yet).")
@click.argument("query")
@click.option("--engine", type=click.Choice(ENGINES), help="The engine that runs the query.")
@common_options
@pass_state
def sql(state: State, query: str, engine: str | None) -> None:
    """Run QUERY with the Spark or DuckDB engine, reading the catalog's views (not available yet)."""
    raise NotAvailable("sql: the Spark and DuckDB engines are not available in this version")
