"""What a REST catalog last returned for one view or function: the source a ``View`` or
``Function`` handle reads, refreshed by loading it again, with the spec's uuid rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from iceview.catalog.kinds import Metadata, MetadataKind
from iceview.identifiers import ViewIdentifier

__all__ = ["RestOperations"]

M = TypeVar("M", bound=Metadata)


class RestOperations(Generic[M]):
    """One entity's metadata as the REST catalog last returned it; ``load`` fetches it again."""

    def __init__(
        self, kind: MetadataKind[M], identifier: ViewIdentifier, metadata: M | None, load: Callable[[], M]
    ) -> None:
        self.kind = kind
        self._identifier = identifier
        self._current = metadata
        self._load = load

    @property
    def identifier(self) -> ViewIdentifier:
        return self._identifier

    def current(self) -> M | None:
        """The metadata as last loaded or committed."""
        return self._current if self._current is not None else self.refresh()

    def refresh(self) -> M | None:
        """Load it again. The kind's not-found error if it is gone, its uuid-mismatch error if the
        name now holds another one."""
        self.update(self._load())
        return self._current

    def update(self, metadata: M) -> None:
        self.kind.check_same(self._current, metadata, self._identifier, metadata.metadata_file_location)
        self._current = metadata
