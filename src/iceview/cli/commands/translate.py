"""``iceview translate``: SQL of one dialect in another: SQL text (``--sql``) or a view's current SQL.

Prints the translated SQL (syntax-highlighted on a terminal), or refuses with every unsafe
construct and why (exit 7). ``--lenient`` prints the SQL anyway, with the issues as warnings on
stderr.
"""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import CatalogUnavailable, CliUsageError, TranslationRefused, warn
from iceview.cli.functions import load_function, names_a_function
from iceview.cli.names import parse_namespace
from iceview.cli.targets import load_view
from iceview.cli.translation import (
    DIALECTS,
    Source,
    function_refusals_json,
    issues_json,
    issues_of,
    read_text,
    refused,
    run,
    text_source,
    view_source,
)

DIALECT = click.Choice(DIALECTS, case_sensitive=False)


@command("translate", "Translate SQL text or a view's SQL into another dialect.")
@click.argument("view", required=False, metavar="[VIEW]", shell_complete=completion.views)
@click.option(
    "--sql", "sql_text", metavar="TEXT", help="SQL text to translate instead of a view ('-': stdin)."
)
@click.option("--to", "to_dialect", required=True, type=DIALECT, help="The dialect to translate to.")
@click.option(
    "--from",
    "from_dialect",
    type=DIALECT,
    help="The dialect of --sql (default: spark); for a view, which of its SQL to start from "
    "(default: spark, else its first).",
)
@click.option(
    "--default-namespace",
    metavar="NS",
    help="For --sql: the namespace of unqualified names (default: default).",
)
@click.option(
    "--default-catalog",
    metavar="NAME",
    help="For --sql: the catalog of names without one (default: the catalog's name).",
)
@click.option("--lenient", is_flag=True, help="Print the SQL even when a construct is unsafe, with warnings.")
@click.option("--function", "function", is_flag=True, help="VIEW is a SQL UDF (function), not a view.")
@common_options
@pass_state
def translate(
    state: State,
    view: str | None,
    sql_text: str | None,
    to_dialect: str,
    from_dialect: str | None,
    default_namespace: str | None,
    default_catalog: str | None,
    lenient: bool,
    function: bool,
) -> None:
    """Translate SQL text (--sql TEXT) or the current SQL of VIEW into another dialect (spark,
    trino, duckdb). Names are qualified first, with the view's defaults or with --default-catalog
    and --default-namespace. Constructs that could change the results are refused, each named with
    the reason (exit 7); --lenient prints the SQL anyway and the reasons as warnings. The schemas of
    the catalog's tables and views that the SQL reads let casts be checked; without them, casts of
    columns are refused.

    For a function (a name holding no view but a function, or --function), each definition's
    current body is translated, with its parameters' types."""
    ctx = click.get_current_context()
    target_dialect = to_dialect.lower()
    if view is not None and sql_text is None and (function or names_a_function(state, view)):
        if lenient or default_namespace is not None or default_catalog is not None:
            raise CliUsageError("--lenient and the --default-* options are not for functions", ctx)
        _translate_function(state, view, target_dialect, from_dialect)
        return
    if (view is None) == (sql_text is None):
        raise CliUsageError("give a VIEW or --sql TEXT (not both)", ctx)
    if view is not None:
        if default_namespace is not None or default_catalog is not None:
            raise CliUsageError(
                "--default-namespace and --default-catalog are for --sql: a view uses its own defaults", ctx
            )
        if any(c.isspace() for c in view) and "`" not in view:
            raise CliUsageError(f"{view!r} is not a view name; to translate SQL text, use --sql TEXT", ctx)
        target = load_view(state, view)
        label = target.label
        source = view_source(state.catalog(), target, from_dialect)
    else:
        assert sql_text is not None
        label = None
        source = _text_source(
            state,
            read_text(sql_text, "SQL"),
            (from_dialect or "spark").lower(),
            default_catalog,
            default_namespace,
        )
    _translate(state, label, source, target_dialect, strict=not lenient)


def _text_source(
    state: State, sql: str, dialect: str, default_catalog: str | None, default_namespace: str | None
) -> Source:
    """SQL text with the names it needs. The catalog is opened for the schemas of the relations
    the SQL reads; without ``--catalog``, a default catalog that cannot be opened only costs
    those (with a warning)."""
    from iceview.cli.config import config_sources

    catalog = None
    try:
        catalog = state.catalog()
    except CatalogUnavailable as e:
        if state.catalog_name is not None:
            raise
        warn(f"no table schemas: {e.format_message()}; casts of columns will be refused")
    name = default_catalog or (catalog.name if catalog is not None else config_sources().default_name)
    namespace = parse_namespace(default_namespace) if default_namespace is not None else ("default",)
    if not namespace:
        raise CliUsageError("--default-namespace cannot be empty", click.get_current_context())
    return text_source(catalog, sql, dialect, name, namespace)


def _translate(state: State, label: str | None, source: Source, target: str, *, strict: bool) -> None:
    from iceview.errors import TranslationError

    out = state.out
    base = {
        "view": label,
        "source": source.dialect,
        "target": target,
        "default-catalog": source.default_catalog,
        "default-namespace": list(source.default_namespace),
    }
    try:
        result = run(source, target, strict=strict)
    except TranslationError as e:
        prefix = f"{label}: " if label else ""
        if out.is_json:
            out.json(
                {
                    **base,
                    "sql": None,
                    "warnings": [],
                    "refused": issues_json(issues_of(e)),
                    "error": refused(prefix, e).format_message(),
                }
            )
            click.get_current_context().exit(TranslationRefused.exit_code)
        raise refused(prefix, e) from e
    if out.is_json:
        out.json({**base, "sql": result.sql, "warnings": issues_json(result.warnings), "refused": []})
        return
    out.code(result.sql, "sql")
    for issue in result.warnings:
        warn(f"unsafe: {issue}")


def _translate_function(state: State, name: str, target: str, source: str | None) -> None:
    from iceview.errors import InvalidArgumentError
    from iceview.function.dialects import FunctionDialectsRefusedError, translate_bodies

    found = load_function(state, name)
    out = state.out
    try:
        bodies = translate_bodies(found.metadata, [target], source=source, missing_only=False)
    except InvalidArgumentError as e:
        raise CliUsageError(str(e), click.get_current_context()) from e
    except FunctionDialectsRefusedError as e:
        message = f"{found.label}: {e}"
        if out.is_json:
            out.json(
                {
                    "function": found.label,
                    "target": target,
                    "refused": function_refusals_json(e, one_dialect=True),
                    "error": message,
                }
            )
            click.get_current_context().exit(TranslationRefused.exit_code)
        raise TranslationRefused(message) from e
    if out.is_json:
        out.json(
            {
                "function": found.label,
                "target": target,
                "bodies": [
                    {"definition-id": b.definition_id, "source": b.source, "sql": b.sql} for b in bodies
                ],
            }
        )
        return
    for b in bodies:
        out.line(f"-- ({b.definition_id}) from {b.source}")
        out.code(b.sql, "sql")
