"""``iceview set-property`` and ``iceview unset-property``: change a view's properties."""

from __future__ import annotations

import click

from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import NotFound
from iceview.cli.interrupts import committing
from iceview.cli.targets import load_view


@command("set-property", "Set a view property.")
@click.argument("view", shell_complete=completion.views)
@click.argument("key")
@click.argument("value")
@common_options
@pass_state
def set_property(state: State, view: str, key: str, value: str) -> None:
    """Set property KEY of VIEW to VALUE."""
    target = load_view(state, view)
    assert target.view is not None
    previous = target.metadata.properties.get(key)
    changed = previous != value
    if changed:
        with committing("the property change"):
            target.view.update_properties().set(key, value).commit()
    out = state.out
    if out.is_json:
        out.json(
            {
                "view": target.label,
                "key": key,
                "value": value,
                "previous": previous,
                "changed": changed,
                "metadata-file": target.view.metadata_location,
            }
        )
        return
    if not changed:
        out.line((target.label, "bold cyan"), f": {key} is already {value!r}; nothing changed")
        return
    was = "not set before" if previous is None else f"was {previous!r}"
    out.line((target.label, "bold cyan"), f": {key} = {value!r} ({was})")


@command("unset-property", "Remove a view property.")
@click.argument("view", shell_complete=completion.views)
@click.argument("key")
@click.option("--if-exists", is_flag=True, help="Succeed without a change when KEY is not set.")
@common_options
@pass_state
def unset_property(state: State, view: str, key: str, if_exists: bool) -> None:
    """Remove property KEY from VIEW."""
    target = load_view(state, view)
    assert target.view is not None
    previous = target.metadata.properties.get(key)
    out = state.out
    if previous is None:
        if not if_exists:
            raise NotFound(f"{target.label} has no property {key!r} (use --if-exists to ignore this)")
        if out.is_json:
            out.json(
                {
                    "view": target.label,
                    "key": key,
                    "previous": None,
                    "changed": False,
                    "metadata-file": target.metadata.metadata_file_location,
                }
            )
        else:
            out.line((target.label, "bold cyan"), f": {key} is not set; nothing changed")
        return
    with committing("the property change"):
        target.view.update_properties().remove(key).commit()
    if out.is_json:
        out.json(
            {
                "view": target.label,
                "key": key,
                "previous": previous,
                "changed": True,
                "metadata-file": target.view.metadata_location,
            }
        )
        return
    out.line((target.label, "bold cyan"), f": removed {key} (was {previous!r})")
