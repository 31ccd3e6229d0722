"""The one commit loop behind every catalog's :meth:`~iceview.catalog.Catalog.commit_view` and
:meth:`~iceview.catalog.Catalog.commit_function` (views and SQL UDFs alike: the kind, from
:mod:`iceview.catalog.kinds`, says whose ``apply`` runs).

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
from typing import Any, TypeVar

from iceview.catalog.kinds import VIEW, Metadata, MetadataKind
from iceview.catalog.properties import RetryPolicy
from iceview.errors import CommitFailedError

M = TypeVar("M", bound=Metadata)

__all__ = ["commit_with_retries"]


class _RequirementFailed(Exception):
    """Carries a failed requirement out of the retry loop, which would otherwise retry it."""

    def __init__(self, error: CommitFailedError) -> None:
        self.error = error


def commit_with_retries(
    first: M,
    refresh: Callable[[], M],
    requirements: Sequence[Any],
    updates: Sequence[Any],
    swap: Callable[[M, M, Sequence[Any]], M],
    prepare: Callable[[M, Sequence[Any]], Sequence[Any]] | None = None,
    *,
    kind: MetadataKind[M] = VIEW,  # type: ignore[assignment]
) -> M:
    """Commit ``updates`` on top of ``first`` (then of ``refresh()`` after each conflict) through
    ``swap(base, new, updates)``; returns the committed metadata (``base`` itself for an empty
    change). ``prepare(base, updates)``, when given, makes the updates of each attempt from the
    caller's (derived dialects: :func:`iceview.view.derived.derive_updates`); ``swap`` gets those.
    ``refresh`` raises ``NoSuchViewError`` (``NoSuchFunctionError``) when it is gone. ``kind``
    says whose metadata it is (:mod:`iceview.catalog.kinds`: its ``apply`` and its messages)."""
    pending = [first]

    def attempt() -> M:
        refreshed = not pending
        base = pending.pop() if pending else refresh()
        try:
            for requirement in requirements:
                requirement.validate(base)
        except CommitFailedError as e:
            raise _RequirementFailed(e) from e
        attempt_updates = updates if prepare is None else prepare(base, updates)
        try:
            new = kind.apply(base, attempt_updates)
        except kind.apply_errors as e:
            if not refreshed:
                raise
            raise CommitFailedError(
                f"Cannot commit: a concurrent change to the {kind.noun} conflicts with this one ({e})"
            ) from e
        if not new.changes:
            return base
        RetryPolicy.check_changed(base.properties, new.properties)
        return swap(base, new, attempt_updates)

    try:
        return RetryPolicy.from_properties(first.properties, lenient=True).run(attempt)
    except _RequirementFailed as e:
        raise e.error from None
