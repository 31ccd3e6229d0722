"""The kinds of metadata a catalog keeps one pointer for: views and SQL UDFs (functions).

Both are self-contained metadata files swapped atomically behind a name, changed by updates plus
requirements. One :class:`ViewOperations`-style pointer (:mod:`iceview.catalog.operations`) and one
commit loop (:mod:`iceview.catalog.commit`) serve both; a :class:`MetadataKind` says what differs:
how a file is read and written, how updates apply, and which errors name the kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from iceview.errors import (
    AlreadyExistsError,
    DialectDropError,
    FunctionAlreadyExistsError,
    FunctionUUIDMismatchError,
    IceviewError,
    InvalidUpdateError,
    NoSuchFunctionError,
    NoSuchViewError,
    ViewAlreadyExistsError,
    ViewUUIDMismatchError,
)

if TYPE_CHECKING:
    from pyiceberg.io import FileIO

    from iceview.spec import ViewMetadata
    from iceview.udf import FunctionMetadata

__all__ = ["FUNCTION", "VIEW", "Metadata", "MetadataKind"]


class Metadata(Protocol):
    """What the pointer and the commit loop need of a metadata value."""

    @property
    def location(self) -> str | None: ...

    @property
    def properties(self) -> Mapping[str, str]: ...

    @property
    def metadata_file_location(self) -> str | None: ...

    @property
    def changes(self) -> tuple[Any, ...]: ...

    def with_metadata_file_location(self, metadata_file_location: str | None) -> Any: ...


M = TypeVar("M", bound=Metadata)


@dataclass(frozen=True)
class MetadataKind(Generic[M]):
    """One kind of metadata: its name in messages, its file codec, its ``apply`` and its errors."""

    noun: str
    """``view`` or ``function``, as messages name it."""
    read: Callable[[str, FileIO], M]
    """Read a metadata file (``NotFoundError``, ``InvalidMetadataError``)."""
    write: Callable[[M, str, FileIO], None]
    """Write a new metadata file; an existing one is refused."""
    apply: Callable[[M | None, Sequence[Any]], M]
    """Apply updates to a base (None: a new one)."""
    uuid: Callable[[M], str]
    assert_create: Callable[[], type]
    """The requirement class that makes a commit a create."""
    no_such: type[IceviewError]
    already_exists: type[AlreadyExistsError]
    uuid_mismatch: type[IceviewError]
    apply_errors: tuple[type[Exception], ...]
    """What ``apply`` raises for an update that does not apply to a base (a conflict when the base
    is a refreshed one)."""

    @property
    def title(self) -> str:
        return self.noun.capitalize()

    def check_same(self, current: M | None, refreshed: M, identifier: object, location: str | None) -> None:
        """The spec's uuid rule: a refresh that finds metadata of another uuid than ``current``'s
        (the name now holds another view or function) raises :attr:`uuid_mismatch`."""
        if current is not None and self.uuid(refreshed).lower() != self.uuid(current).lower():
            raise self.uuid_mismatch(
                f"{self.title} UUID does not match: current={self.uuid(current)} != "
                f"refreshed={self.uuid(refreshed)} ({self.noun} {identifier}, metadata file {location})"
            )


# The format is imported when first used, so that listing names does not load it.


def _read_view(location: str, io: FileIO) -> ViewMetadata:
    from iceview import files

    return files.read_metadata(location, io=io)


def _write_view(metadata: ViewMetadata, location: str, io: FileIO) -> None:
    from iceview import files

    files.write_metadata(metadata, location, io=io, overwrite=False)


def _apply_view(base: ViewMetadata | None, updates: Sequence[Any]) -> ViewMetadata:
    from iceview.spec import apply

    return apply(base, updates)


def _view_create() -> type:
    from iceview.spec import AssertCreate

    return AssertCreate


def _read_function(location: str, io: FileIO) -> FunctionMetadata:
    from iceview import files

    return files.read_function_metadata(location, io=io)


def _write_function(metadata: FunctionMetadata, location: str, io: FileIO) -> None:
    from iceview import files

    files.write_function_metadata(metadata, location, io=io, overwrite=False)


def _apply_function(base: FunctionMetadata | None, updates: Sequence[Any]) -> FunctionMetadata:
    from iceview.udf import apply

    return apply(base, updates)


def _function_create() -> type:
    from iceview.udf import AssertCreate

    return AssertCreate


VIEW: MetadataKind[ViewMetadata] = MetadataKind(
    noun="view",
    read=_read_view,
    write=_write_view,
    apply=_apply_view,
    uuid=lambda m: m.uuid,
    assert_create=_view_create,
    no_such=NoSuchViewError,
    already_exists=ViewAlreadyExistsError,
    uuid_mismatch=ViewUUIDMismatchError,
    apply_errors=(InvalidUpdateError, DialectDropError),
)

FUNCTION: MetadataKind[FunctionMetadata] = MetadataKind(
    noun="function",
    read=_read_function,
    write=_write_function,
    apply=_apply_function,
    uuid=lambda m: m.function_uuid,
    assert_create=_function_create,
    no_such=NoSuchFunctionError,
    already_exists=FunctionAlreadyExistsError,
    uuid_mismatch=FunctionUUIDMismatchError,
    apply_errors=(InvalidUpdateError,),
)
