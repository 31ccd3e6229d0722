"""``iceview dialects sync VIEW``: derive a view's dialects again (``iceview.derive-dialects``).

Where iceview is not on the write path (Iceberg-Spark writing a catalog's shared JDBC tables), a
new version carries only the SQL its engine wrote. ``sync`` derives the dialects the view's
property asks for from the current version's SQL and commits them in a new version
(:meth:`iceview.view.View.sync_dialects`); a view already in step is left alone.
"""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import IceviewGroup, State, command, common_options, pass_state
from iceview.cli.interrupts import committing
from iceview.cli.targets import load_view


@click.group("dialects", cls=IceviewGroup, short_help="Keep a view's derived dialects in step.")
def dialects() -> None:
    """A view's derived dialects (view property iceview.derive-dialects, docs/translation.md)."""


@command("sync", "Derive a view's dialects again from its current SQL.")
@click.argument("view", shell_complete=completion.views)
@common_options
@pass_state
def sync(state: State, view: str) -> None:
    """Derive the dialects VIEW's iceview.derive-dialects property asks for from its current SQL,
    in a new version, when the current version lacks them (e.g. after Iceberg-Spark replaced it on
    the shared JDBC tables). A dialect that cannot be translated safely is left out and the
    version summary records why. Nothing is committed when the view is in step."""
    from iceview.view.derived import derived_dialects, refusals

    target = load_view(state, view)
    assert target.view is not None
    before = target.metadata.current_version
    with committing("the dialects' sync"):
        synced = target.view.sync_dialects()
    after = synced.metadata.current_version
    changed = after.version_id != before.version_id
    derived = sorted(derived_dialects(after))
    refused = refusals(after)
    out = state.out
    if out.is_json:
        out.json(
            {
                "view": target.label,
                "changed": changed,
                "previous-version-id": before.version_id,
                "version-id": after.version_id,
                "dialects": list(after.dialects),
                "derived": derived,
                "refused": refused,
                "metadata-file": synced.metadata_location,
            }
        )
        return
    what = f"version {after.version_id} derives {', '.join(derived) or 'nothing'}"
    if refused:
        what += "; refused: " + "; ".join(f"{d} ({codes})" for d, codes in refused.items())
    if not changed:
        out.line((target.label, "bold cyan"), f": in step ({what}); nothing changed")
        return
    out.line((target.label, "bold cyan"), f": {what} (was version {before.version_id})")


dialects.add_command(sync)
