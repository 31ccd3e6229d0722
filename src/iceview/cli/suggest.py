"""What a name that is not there might have meant: "did you mean", and "is a table, not a view" or
"is a namespace" where that is what the catalog holds under the name.

The look-ups only add a hint: if one of them fails (an unreachable catalog, a namespace without
permission), the error is reported without the hint.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from iceview.catalog.walk import walk
from iceview.cli.errors import NotFound
from iceview.cli.names import format_name
from iceview.errors import IceviewError

if TYPE_CHECKING:
    from iceview.catalog import Catalog

__all__ = ["no_such_namespace", "no_such_view"]

_MAX_CANDIDATES = 5_000  # names looked at for a suggestion, so that a huge catalog stays quick


def _close(word: str, candidates: Iterable[str]) -> list[str]:
    pool = list(itertools.islice(candidates, _MAX_CANDIDATES))
    lowered = {c.lower(): c for c in pool}
    exact_case = lowered.get(word.lower())
    if exact_case is not None and exact_case != word:
        return [exact_case]
    return difflib.get_close_matches(word, pool, n=3, cutoff=0.6)


def _did_you_mean(names: Sequence[str]) -> str:
    if not names:
        return ""
    return "; did you mean " + " or ".join(names) + "?"


def no_such_view(catalog: Catalog, levels: Sequence[str]) -> NotFound:
    """The error for a view ``levels`` that the catalog does not hold, with what it is instead (a
    table, a namespace) or the closest view names."""
    label = format_name(levels)
    where = f"in catalog {catalog.name!r}"
    name = tuple(levels)
    try:
        if len(name) > 1 and catalog.table_exists(name):
            namespace = format_name(name[:-1])
            return NotFound(
                f"{label} is a table, not a view, {where} (iceview works on views; "
                f"see the tables with 'iceview tables {namespace}')"
            )
        if catalog.namespace_exists(name):
            return NotFound(
                f"{label} is a namespace, not a view, {where} (its views: 'iceview list {label}')"
            )
        parent = name[:-1]
        if parent and not catalog.namespace_exists(parent):
            siblings = {ns[-1]: format_name(ns) for ns in catalog.list_namespaces(parent[:-1])}
            hint = _did_you_mean([siblings[n] for n in _close(parent[-1], siblings)])
            return NotFound(f"view {label} does not exist {where}: no namespace {format_name(parent)}{hint}")
        if parent:  # names in the same namespace, compared by their last part
            views = {v[-1]: format_name(v) for v in catalog.list_views(parent)}
            hint = _did_you_mean([views[n] for n in _close(name[-1], views)])
        else:  # a bare name: the views of that name, or close to it, in any namespace
            everywhere = list(itertools.islice(walk(catalog, "views"), _MAX_CANDIDATES))
            found = [format_name(v) for v in everywhere if v[-1] == name[-1]]
            if found:
                return NotFound(
                    f"view {label} does not exist {where}: a view name starts with its namespace"
                    + _did_you_mean(found[:3])
                )
            hint = _did_you_mean(_close(label, (format_name(v) for v in everywhere)))
    except IceviewError:
        hint = ""
    return NotFound(f"view {label} does not exist {where}{hint}")


def no_such_namespace(catalog: Catalog, levels: Sequence[str]) -> NotFound:
    """The error for a namespace that the catalog does not hold, with the closest names."""
    label = format_name(levels)
    try:
        siblings = {ns[-1]: format_name(ns) for ns in catalog.list_namespaces(tuple(levels[:-1]))}
        hint = _did_you_mean([siblings[n] for n in _close(levels[-1], siblings)]) if levels else ""
    except IceviewError:
        hint = ""
    return NotFound(f"namespace {label} does not exist in catalog {catalog.name!r}{hint}")
