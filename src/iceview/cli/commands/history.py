"""``iceview history VIEW``: the version log (which version was current when) and the versions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click
from rich.text import Text

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.describe import dialects_text, engine, namespace_text, version_json
from iceview.cli.functions import FunctionTarget, function_history_json, print_function_history
from iceview.cli.output import fit_columns, table
from iceview.cli.targets import Target, load_view_or_function
from iceview.cli.times import iso_utc
from iceview.spec import ViewMetadata


@dataclass(frozen=True)
class Period:
    """A version-log entry: ``version_id`` was current from ``start`` until ``end`` (None: now)."""

    version_id: int
    start: int
    end: int | None
    rollback: bool  # back to a version older than one that was current before
    retained: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "version-id": self.version_id,
            "timestamp-ms": self.start,
            "from": iso_utc(self.start),
            "until": None if self.end is None else iso_utc(self.end),
            "current": self.end is None,
            "rollback": self.rollback,
            "retained": self.retained,
        }


def periods(md: ViewMetadata) -> list[Period]:
    """The version log as periods, oldest first. The last one is current."""
    log = list(md.history)
    retained = set(md.version_ids)
    out: list[Period] = []
    newest = None
    for i, entry in enumerate(log):
        end = log[i + 1].timestamp_ms if i + 1 < len(log) else None
        rollback = newest is not None and entry.version_id < newest
        out.append(Period(entry.version_id, entry.timestamp_ms, end, rollback, entry.version_id in retained))
        newest = entry.version_id if newest is None else max(newest, entry.version_id)
    return out


@command("history", "Show the version log of a view or a function.", tabular=True)
@click.argument("view", metavar="NAME", shell_complete=completion.views)
@click.option("--function", "function", is_flag=True, help="NAME is a SQL UDF (function), not a view.")
@common_options
@pass_state
def history(state: State, view: str, function: bool) -> None:
    """Show the version log of NAME: for a view, which version was current when (times in UTC),
    rollbacks marked, and the versions it retains; for a function, its definition log (each
    definition's current version from when) and each definition's versions. NAME is a view or
    function name or a metadata file (see 'iceview show')."""
    found = load_view_or_function(state, view, function)
    if isinstance(found, FunctionTarget):
        if state.out.is_json:
            state.out.json(function_history_json(found))
        else:
            print_function_history(found, state)
        return
    target = found
    md = target.metadata
    log = periods(md)
    if state.out.is_json:
        state.out.json(
            {
                "view": target.label if target.kind == "view" else None,
                "metadata-file": md.metadata_file_location,
                "current-version-id": md.current_version_id,
                "history": [p.to_json() for p in log],
                "versions": [version_json(v) for v in sorted(md.versions, key=lambda v: v.version_id)],
            }
        )
        return
    if state.out.is_tabular:  # the version log, one period per row
        fields = ["version-id", "from", "until", "current", "rollback", "retained"]
        state.out.delimited(
            fields,
            [[_field(p.to_json()[f]) for f in fields] for p in log],
        )
        return
    _text(target, log, state)


def _field(value: object) -> object:
    return str(value).lower() if isinstance(value, bool) else value


def _text(target: Target, log: list[Period], state: State) -> None:
    md = target.metadata
    out = state.out
    out.line((target.label, "bold cyan"), f": current version {md.current_version_id}")
    out.blank()
    grid = table(f"current from ({state.zone})", "until", "version", "note", title="Version log")
    for period in log:
        notes: list[tuple[str, str]] = []
        if period.rollback:
            notes.append(("rollback", "bold yellow"))
        if period.end is None:
            notes.append(("current", "bold green"))
        if not period.retained:
            notes.append(("expired", "dim"))
        note = Text(", ").join(Text(text, style=style) for text, style in notes)
        grid.add_row(
            state.time(period.start),
            "now" if period.end is None else state.time(period.end),
            Text(str(period.version_id), style="bold" if period.end is None else ""),
            note,
        )
    fit_columns(grid, out.console.width)
    out.print(grid)
    out.blank()
    versions = table(
        "version",
        f"created ({state.zone})",
        "operation",
        "schema",
        "engine",
        "dialects",
        "default namespace",
        title="Versions",
    )
    for version in sorted(md.versions, key=lambda v: v.version_id):
        versions.add_row(
            str(version.version_id),
            state.time(version.timestamp_ms),
            version.operation,
            str(version.schema_id),
            engine(version.summary),
            dialects_text(version),
            namespace_text(version.default_namespace),
        )
    fit_columns(versions, out.console.width)
    out.print(versions)
    from iceview.view.derived import derived_dialects, refusals

    if any(derived_dialects(v) or refusals(v) for v in md.versions):
        out.line(
            ("dialects", "dim"), ": * derived from the version's own SQL, ! refused (iceview.derive-dialects)"
        )
