"""``iceview catalogs``: the configured catalogs."""

from __future__ import annotations

from rich.text import Text

from iceview.cli.config import CatalogConfig, configured_catalogs, redact
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.output import table


def _row(config: CatalogConfig, default: str) -> dict[str, object]:
    return {
        "name": config.name,
        "default": config.name.lower() == default.lower(),
        "configured": config.configured,
        "type": config.type,
        "uri": redact(config.properties.get("uri", "")) or None,
        "warehouse": config.properties.get("warehouse"),
    }


@command("catalogs", "List the configured catalogs.", tabular=True)
@common_options
@pass_state
def catalogs(state: State) -> None:
    """List the configured catalogs (with --catalog NAME: only that one)."""
    sources, found = configured_catalogs()
    if state.catalog_name is not None:
        from iceview.cli.config import catalog_config

        wanted = catalog_config(state.catalog_name)
        found = [c for c in found if c.name.lower() == wanted.name.lower()] or [wanted]
    rows = [_row(c, sources.default_name) for c in found]
    out = state.out
    if out.is_json:
        out.json(
            {
                "config-file": sources.file,
                "searched": list(sources.searched),
                "default-catalog": sources.default_name,
                "catalogs": rows,
            }
        )
        return
    columns = ["name", "type", "uri", "warehouse"]
    if out.is_tabular:
        out.delimited(
            [*columns, "default", "configured"],
            [
                [*(row[c] for c in columns), str(row["default"]).lower(), str(row["configured"]).lower()]
                for row in rows
            ],
        )
        return
    out.line(
        ("configuration: ", "bold"),
        sources.file or "no .pyiceberg.yaml found",
        " + PYICEBERG_CATALOG__* variables",
    )
    if not rows:
        out.line(f"no catalogs configured; looked in {sources.describe()}")
        return
    grid = table(*columns)
    for row in rows:
        name = Text(str(row["name"]))
        if row["default"]:
            name.append(" (default)", style="dim")
        if not row["configured"]:
            name.append(" (not configured)", style="dim")
        grid.add_row(name, str(row["type"]), str(row["uri"] or ""), str(row["warehouse"] or ""))
    out.blank()
    out.print(grid)
