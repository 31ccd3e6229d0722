"""Shell completion (click's): commands and options by click itself, and here the names that live
in the catalog: catalogs for ``--catalog``, namespaces, and view names. A completion never fails
loudly: a catalog that cannot be opened completes nothing.

``eval "$(_ICEVIEW_COMPLETE=bash_source iceview)"`` (``zsh_source``, ``fish_source``) turns it on;
docs/cli.md says where to put it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import click
from click.shell_completion import CompletionItem

from iceview.catalog.walk import walk
from iceview.cli.names import format_name

if TYPE_CHECKING:
    from iceview.catalog import Catalog

__all__ = ["CATALOG_KEY", "catalogs", "namespaces", "views"]

_LIMIT = 2_000  # names offered at most, so that a huge catalog answers quickly


CATALOG_KEY = "iceview.catalog"
"""Where ``--catalog`` leaves its value in ``ctx.meta`` (shared by the whole command line)."""


def _catalog(ctx: click.Context) -> Catalog | None:
    try:
        from iceview.cli.config import open_catalog

        return open_catalog(ctx.meta.get(CATALOG_KEY))
    except Exception:
        return None


def _items(names: Iterable[str], incomplete: str) -> list[CompletionItem]:
    out: list[CompletionItem] = []
    for name in names:
        if name.startswith(incomplete):
            out.append(CompletionItem(name))
            if len(out) >= _LIMIT:
                break
    return out


def _complete(views: bool) -> Callable[[click.Context, click.Parameter, str], list[CompletionItem]]:
    def complete(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        catalog = _catalog(ctx)
        if catalog is None:
            return []
        try:
            names = walk(catalog, "views" if views else "namespaces")
            return _items((format_name(name) for name in names), incomplete)
        except Exception:
            return []
        finally:
            catalog.close()

    return complete


views = _complete(views=True)
"""Complete a view name."""
namespaces = _complete(views=False)
"""Complete a namespace."""


def catalogs(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Complete a configured catalog's name."""
    from iceview.cli.config import config_sources

    try:
        sources = config_sources()
    except click.ClickException:
        return []
    return _items(dict.fromkeys([*sources.names, sources.default_name]), incomplete)
