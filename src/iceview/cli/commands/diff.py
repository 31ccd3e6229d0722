"""``iceview diff VIEW A [B]``: what changed between two versions of a view."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import click
from rich.text import Text

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.describe import namespace_text
from iceview.cli.errors import CliUsageError, NotFound
from iceview.cli.schemas import SchemaDiff, diff_schemas
from iceview.cli.targets import Target, load_target, require_version
from iceview.cli.times import iso_utc
from iceview.spec import SQLRepresentation, ViewVersion


def version_argument(target: Target, text: str) -> int:
    """A version id, or ``current``."""
    if text.lower() == "current":
        return target.metadata.current_version.version_id  # raises if it names no version
    try:
        version_id = int(text)
    except ValueError:
        raise CliUsageError(f"invalid version {text!r}: give a version id or 'current'") from None
    require_version(target, version_id)
    return version_id


def previous_version(target: Target) -> int:
    """The version that was current before the current one (by the version log, if it is still
    retained), else the newest older one."""
    md = target.metadata
    current = md.current_version_id
    for entry in reversed(list(md.history)):
        if entry.version_id != current and entry.version_id in md.version_ids:
            return entry.version_id
    older = [v for v in md.version_ids if v < current]
    if not older:
        raise NotFound(f"{target.label} has only version {current}: there is no previous version to compare")
    return max(older)


@dataclass(frozen=True)
class SqlChange:
    dialect: str
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def unified(self, a: int, b: int) -> str:
        lines = difflib.unified_diff(
            (self.before or "").splitlines(),
            (self.after or "").splitlines(),
            fromfile=f"version {a} ({self.dialect})" if self.before is not None else "/dev/null",
            tofile=f"version {b} ({self.dialect})" if self.after is not None else "/dev/null",
            lineterm="",
        )
        return "\n".join(lines)


def sql_changes(a: ViewVersion, b: ViewVersion) -> list[SqlChange]:
    """Per dialect (matched case-insensitively), the SQL of both versions."""
    found: dict[str, list[str | None]] = {}
    names: dict[str, str] = {}
    for index, version in enumerate((a, b)):
        for rep in version.representations:
            if isinstance(rep, SQLRepresentation):
                key = rep.dialect.lower()
                names.setdefault(key, rep.dialect)
                found.setdefault(key, [None, None])[index] = rep.sql
    return [SqlChange(names[k], v[0], v[1]) for k, v in found.items()]


def _mapping_diff(a: dict[str, str], b: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {
        "added": {k: v for k, v in b.items() if k not in a},
        "removed": {k: v for k, v in a.items() if k not in b},
        "changed": {k: {"from": a[k], "to": b[k]} for k in a if k in b and a[k] != b[k]},
    }


@command("diff", "Compare two versions of a view.")
@click.argument("view", shell_complete=completion.views)
@click.argument("a", metavar="[A]", required=False)
@click.argument("b", metavar="[B]", required=False, default="current")
@common_options
@pass_state
def diff(state: State, view: str, a: str | None, b: str) -> None:
    """Show what changed from version A to version B of VIEW (B defaults to the current version;
    without A, the version that was current before it): the schema column by column, a unified diff
    of the SQL per dialect, the summary and the default namespace and catalog. Versions are ids or
    'current'; VIEW may be a metadata file."""
    target = load_target(state, view)
    md = target.metadata
    va = md.version(version_argument(target, a) if a is not None else previous_version(target))
    vb = md.version(version_argument(target, b))
    assert va is not None and vb is not None
    schema_a = md.schema_by_id(va.schema_id)
    schema_b = md.schema_by_id(vb.schema_id)
    schema = diff_schemas(schema_a, schema_b) if schema_a is not None and schema_b is not None else None
    sql = sql_changes(va, vb)
    summary = _mapping_diff(dict(va.summary), dict(vb.summary))
    if state.out.is_json:
        state.out.json(_json(target, va, vb, schema, sql, summary))
    else:
        _text(target, va, vb, schema, sql, summary, state)


def _side(version: ViewVersion) -> dict[str, Any]:
    return {
        "version-id": version.version_id,
        "timestamp-ms": version.timestamp_ms,
        "time": iso_utc(version.timestamp_ms),
        "schema-id": version.schema_id,
    }


def _json(
    target: Target,
    va: ViewVersion,
    vb: ViewVersion,
    schema: SchemaDiff | None,
    sql: list[SqlChange],
    summary: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    return {
        "view": target.label if target.kind == "view" else None,
        "metadata-file": target.metadata.metadata_file_location,
        "from": _side(va),
        "to": _side(vb),
        "schema": None if schema is None else schema.to_dict(),
        "sql": {
            c.dialect: {
                "from": c.before,
                "to": c.after,
                "changed": c.changed,
                "diff": c.unified(va.version_id, vb.version_id) if c.changed else "",
            }
            for c in sql
        },
        "summary": summary,
        "default-namespace": {
            "from": list(va.default_namespace),
            "to": list(vb.default_namespace),
            "changed": va.default_namespace != vb.default_namespace,
        },
        "default-catalog": {
            "from": va.default_catalog,
            "to": vb.default_catalog,
            "changed": va.default_catalog != vb.default_catalog,
        },
    }


def _text(
    target: Target,
    va: ViewVersion,
    vb: ViewVersion,
    schema: SchemaDiff | None,
    sql: list[SqlChange],
    summary: dict[str, dict[str, Any]],
    state: State,
) -> None:
    out = state.out
    out.line((target.label, "bold cyan"), f": version {va.version_id} -> version {vb.version_id}")
    for version in (va, vb):
        out.line(
            f"  version {version.version_id}: {version.operation}, {state.time(version.timestamp_ms)}, "
            f"schema {version.schema_id}"
        )

    out.blank()
    if schema is None:
        out.line(("Schema", "bold"), ": cannot compare, a version names a schema that does not exist")
    elif schema.empty:
        out.line(("Schema", "bold"), ": no changes")
    else:
        out.line(("Schema", "bold"))
        for column in schema.added:
            required = "required" if column.required else "optional"
            out.line(("  + ", "green"), (column.path, "green"), f"  {column.type} ({required})")
        for column in schema.removed:
            out.line(("  - ", "red"), (column.path, "red"), f"  {column.type}")
        for path, changes in schema.changed:
            parts = "; ".join(f"{k}: {_show(x)} -> {_show(y)}" for k, (x, y) in changes.items())
            out.line(("  ~ ", "yellow"), (path, "yellow"), f"  {parts}")
        if schema.order is not None:
            out.line(
                ("  ~ ", "yellow"),
                f"column order: {', '.join(schema.order[0])} -> {', '.join(schema.order[1])}",
            )

    for change in sql:
        out.blank()
        if not change.changed:
            out.line(("SQL", "bold"), " (", (change.dialect, "bold magenta"), "): no changes")
            continue
        out.line(("SQL", "bold"), " (", (change.dialect, "bold magenta"), ")")
        out.code(change.unified(va.version_id, vb.version_id), "diff")

    out.blank()
    if not any(summary.values()):
        out.line(("Summary", "bold"), ": no changes")
    else:
        out.line(("Summary", "bold"))
        for key, value in summary["added"].items():
            out.line(("  + ", "green"), f"{key}={value}")
        for key, value in summary["removed"].items():
            out.line(("  - ", "red"), f"{key}={value}")
        for key, change in summary["changed"].items():
            out.line(("  ~ ", "yellow"), f"{key}: {change['from']} -> {change['to']}")

    out.blank()
    for label, before, after in (
        ("Default namespace", namespace_text(va.default_namespace), namespace_text(vb.default_namespace)),
        ("Default catalog", va.default_catalog or "(none)", vb.default_catalog or "(none)"),
    ):
        if before == after:
            out.line((label, "bold"), f": {before} (unchanged)")
        else:
            out.line((label, "bold"), ": ", Text(before, style="red"), " -> ", Text(after, style="green"))


def _show(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "required" if value else "optional"
    return str(value)
