"""The one commit loop behind every catalog's :meth:`~iceview.catalog.Catalog.commit_view`.

Each attempt takes the view's metadata (the caller's first, then a fresh read), checks the
requirements against it (a failure is final: Java's ``ValidationFailureException`` is not retried),
applies the updates with :func:`iceview.spec.apply` (so every rule of the spec is checked before
anything is written or sent), and hands base and result to the catalog's ``swap``: a
compare-and-swap of the metadata pointer (SQL catalog) or a ``CommitViewRequest`` (REST client).
A ``CommitFailedError`` from ``swap`` is a conflict and is retried with the view's
``commit.retry.*`` properties. An empty change commits nothing, as Java's ``CatalogHandlers``.

Updates that applied to the caller's base but not to a refreshed one (a rollback to a version a
concurrent commit expired, a dialect a concurrent commit added and the replace would drop) failed
because of that concurrent change, not because the caller asked for something wrong: they are a
conflict (``CommitFailedError``, retried), never ``InvalidUpdateError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from iceview.catalog.properties import RetryPolicy
from iceview.errors import CommitFailedError, DialectDropError, InvalidUpdateError

if TYPE_CHECKING:
    from iceview.spec import ViewMetadata, ViewRequirement, ViewUpdate

__all__ = ["commit_with_retries"]


class _RequirementFailed(Exception):
    """Carries a failed requirement out of the retry loop, which would otherwise retry it."""

    def __init__(self, error: CommitFailedError) -> None:
        self.error = error


def commit_with_retries(
    first: ViewMetadata,
    refresh: Callable[[], ViewMetadata],
    requirements: Sequence[ViewRequirement],
    updates: Sequence[ViewUpdate],
    swap: Callable[[ViewMetadata, ViewMetadata, Sequence[ViewUpdate]], ViewMetadata],
    prepare: Callable[[ViewMetadata, Sequence[ViewUpdate]], Sequence[ViewUpdate]] | None = None,
) -> ViewMetadata:
    """Commit ``updates`` on top of ``first`` (then of ``refresh()`` after each conflict) through
    ``swap(base, new, updates)``; returns the committed metadata (``base`` itself for an empty
    change). ``prepare(base, updates)``, when given, makes the updates of each attempt from the
    caller's (derived dialects: :func:`iceview.view.derived.derive_updates`); ``swap`` gets those.
    ``refresh`` raises ``NoSuchViewError`` when the view is gone."""
    from iceview.spec import apply

    pending = [first]

    def attempt() -> ViewMetadata:
        refreshed = not pending
        base = pending.pop() if pending else refresh()
        try:
            for requirement in requirements:
                requirement.validate(base)
        except CommitFailedError as e:
            raise _RequirementFailed(e) from e
        attempt_updates = updates if prepare is None else prepare(base, updates)
        try:
            new = apply(base, attempt_updates)
        except (InvalidUpdateError, DialectDropError) as e:
            if not refreshed:
                raise
            raise CommitFailedError(
                f"Cannot commit: a concurrent change to the view conflicts with this one ({e})"
            ) from e
        if not new.changes:
            return base
        return swap(base, new, attempt_updates)

    try:
        return RetryPolicy.from_properties(first.properties).run(attempt)
    except _RequirementFailed as e:
        raise e.error from None
