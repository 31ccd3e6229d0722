"""Views' parts in the shapes the commands print: JSON values with fixed keys, and short texts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from iceview.cli.names import format_name
from iceview.cli.times import iso_utc
from iceview.spec import SQLRepresentation, ViewMetadata, ViewVersion

__all__ = ["engine", "namespace_text", "schema_json", "summary_text", "version_json"]


def namespace_text(levels: Sequence[str]) -> str:
    return format_name(levels) if levels else "(root)"


def engine(summary: Mapping[str, str]) -> str:
    """``spark 3.5.1`` from a version summary, or ``-``."""
    name = summary.get("engine-name", "")
    version = summary.get("engine-version", "")
    return f"{name} {version}".strip() or "-"


def summary_text(summary: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in summary.items()) or "(empty)"


def representations_json(version: ViewVersion) -> list[dict[str, Any]]:
    """The version's representations; each SQL one says whether iceview derived it
    (``iceview.derive-dialects``, ``docs/translation.md``)."""
    from iceview.view.derived import derived_dialects

    derived = derived_dialects(version)
    out: list[dict[str, Any]] = []
    for rep in version.representations:
        if isinstance(rep, SQLRepresentation):
            out.append(
                {
                    "type": "sql",
                    "dialect": rep.dialect,
                    "sql": rep.sql,
                    "derived": rep.dialect.lower() in derived,
                }
            )
        else:
            out.append(dict(rep.to_dict()))
    return out


def dialects_text(version: ViewVersion) -> str:
    """The version's dialects for a table: derived ones marked ``*``, refused ones ``!``."""
    from iceview.view.derived import derived_dialects, refusals

    derived = derived_dialects(version)
    names = [f"{d}*" if d.lower() in derived else d for d in version.dialects]
    names += [f"!{d}" for d in refusals(version)]
    return ", ".join(names) or "-"


def version_json(version: ViewVersion) -> dict[str, Any]:
    return {
        "version-id": version.version_id,
        "timestamp-ms": version.timestamp_ms,
        "time": iso_utc(version.timestamp_ms),
        "schema-id": version.schema_id,
        "summary": dict(version.summary),
        "default-namespace": list(version.default_namespace),
        "default-catalog": version.default_catalog,
        "representations": representations_json(version),
    }


def schema_json(metadata: ViewMetadata, schema_id: int) -> dict[str, Any] | None:
    """The schema's JSON as the metadata file holds it (normalised), or None if there is none."""
    ids = metadata.schema_ids
    if schema_id not in ids:
        return None
    return dict(metadata.schema_json(ids.index(schema_id)))
