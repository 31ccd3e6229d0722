"""``iceview sql "QUERY" [--engine duckdb|spark] [--no-translate]``: run a query over the catalog's
views and tables, and print the rows (a table; ``--output json``: a list of row objects).

Queries only: the command never changes the catalog. See :mod:`iceview.cli.engines` for how each
engine reads the catalog.
"""

from __future__ import annotations

import decimal
import logging

import click

from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.engines import ENGINES, Result, cell_text, json_value, run_duckdb, run_spark, unique_names
from iceview.cli.errors import CliUsageError, TranslationRefused, warn
from iceview.cli.names import parse_namespace
from iceview.cli.suggest import no_such_namespace
from iceview.cli.translation import read_text, refused
from iceview.errors import MissingDialectError, TranslationError, ViewTranslationRefusedError


@command("sql", "Run a query over the catalog's views with DuckDB or Spark.", tabular=True)
@click.argument("query")
@click.option(
    "--engine",
    type=click.Choice(ENGINES, case_sensitive=False),
    default="duckdb",
    show_default=True,
    help="duckdb (in this process) or spark (a local Spark with Iceberg's runtime; ~10 s to start).",
)
@click.option(
    "--translate/--no-translate",
    "translate_views",
    default=True,
    show_default=True,
    help="Read views that have no SQL for the engine's dialect by translating their SQL (the default; "
    "--no-translate: such a view is an error, exit 7).",
)
@click.option(
    "--lenient",
    is_flag=True,
    help="Translate unsafe constructs too, with warnings (not with --no-translate).",
)
@click.option(
    "--namespace",
    "-n",
    metavar="NS",
    help="The current namespace: where names without one are looked up (default: default).",
)
@common_options
@pass_state
def sql(
    state: State, query: str, engine: str, translate_views: bool, lenient: bool, namespace: str | None
) -> None:
    """Run QUERY ('-': read it from stdin) with DuckDB or Spark over the views and tables of the
    catalog, and print the rows. Views are read from their SQL for the engine's dialect (duckdb or
    spark); a view without one is read by translating another (refused, exit 7, when a construct
    could change the results; --no-translate: not translated, exit 7). QUERY is in the engine's dialect and must be a
    query: iceview sql does not change the catalog."""
    from iceview.sql import UnsafeTranslationError

    ctx = click.get_current_context()
    engine = engine.lower()
    if lenient and not translate_views:
        raise CliUsageError("--lenient cannot be used with --no-translate", ctx)
    text = read_text(query, "query")
    _require_query(text, engine, ctx)
    levels = parse_namespace(namespace) if namespace is not None else ("default",)
    if not levels:
        raise CliUsageError("--namespace cannot be empty", ctx)
    catalog = state.catalog()
    if namespace is not None and not catalog.namespace_exists(levels):
        raise no_such_namespace(catalog, levels)
    strict = not lenient
    try:
        if engine == "spark":
            result = run_spark(
                catalog, text, levels, translate=translate_views, strict=strict, debug=state.debug
            )
        else:
            result = run_duckdb(catalog, text, levels, translate=translate_views, strict=strict)
    except UnsafeTranslationError as e:
        raise refused("", e) from e
    except ViewTranslationRefusedError as e:
        raise refused(f"{e.problem}: ", e.refusal) from e
    except MissingDialectError as e:
        message = e.problem
        if not translate_views:
            message += "; drop --no-translate to read it by translating its SQL"
        raise TranslationRefused(message) from e
    except TranslationError as e:
        raise TranslationRefused(str(e)) from e
    _print(state, result)
    for issue in result.warnings:
        warn(f"unsafe translation: {issue}")


_ABOUT_WORDS = {"DESCRIBE", "DESC", "EXPLAIN", "SUMMARIZE", "SHOW"}
_EXPLAIN_OPTIONS = {"ANALYZE", "EXTENDED", "FORMATTED", "CODEGEN", "COST"}


def _require_query(text: str, engine: str, ctx: click.Context) -> None:
    """Refuse statements other than one query (CREATE, INSERT, ALTER, CALL, ...) or a read-only
    DESCRIBE, EXPLAIN or SHOW (SUMMARIZE in DuckDB). SQL that does not parse is left to the engine,
    which says what is wrong with it."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)  # "falling back to parsing as a 'Command'"
    try:
        statements = [s for s in sqlglot.parse(text, read=engine) if s is not None]
    except SqlglotError:
        return
    finally:
        logger.setLevel(level)
    if len(statements) > 1:
        raise CliUsageError(f"give one query, not {len(statements)} statements", ctx)
    if not statements or isinstance(statements[0], (exp.Query, exp.Values, exp.Describe)):
        return
    words = text.split()
    kind = words[0].upper()
    if kind == "SHOW" and engine == "duckdb":
        raise CliUsageError(
            "SHOW in DuckDB lists DuckDB's own objects, not the catalog's: use 'iceview tables', "
            "'iceview list' or 'iceview namespaces' (or --engine spark)",
            ctx,
        )
    if kind in _ABOUT_WORDS and (engine == "duckdb" or kind != "SUMMARIZE"):
        if kind == "EXPLAIN":  # EXPLAIN ANALYZE runs its statement: it must be a query too
            rest = words[1:]
            while rest and rest[0].upper() in _EXPLAIN_OPTIONS:
                rest = rest[1:]
            _require_query(text.split(None, len(words) - len(rest))[-1] if rest else "", engine, ctx)
        return
    raise CliUsageError(
        f"iceview sql does not change the catalog: it runs queries (SELECT, WITH, VALUES, ...) "
        f"and DESCRIBE, EXPLAIN and SHOW, not {kind}",
        ctx,
    )


def _print(state: State, result: Result) -> None:
    count = len(result.rows)
    as_json = None
    if state.out.is_json:  # built only when asked for: a result may be large
        names = unique_names(result.columns)
        as_json = [{name: json_value(v) for name, v in zip(names, row, strict=True)} for row in result.rows]
    state.out.rows(
        result.columns,
        ([cell_text(v) for v in row] for row in result.rows),
        as_json,
        right=[_numeric([row[i] for row in result.rows]) for i in range(len(result.columns))],
        footer=f"{count} row{'' if count == 1 else 's'}",
    )


def _numeric(values: list[object]) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(
        isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool) for v in present
    )
