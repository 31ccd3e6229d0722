"""Metadata files: names, the gzip codec, and reading and writing through PyIceberg's FileIO, so
that local paths, ``file:`` URIs and object stores (``s3://`` ...) all work the same way.

File names follow Iceberg Java: ``{version:05d}-{uuid}{.gz}.metadata.json``, where the version is
one more than the one in the current file's name (``-1`` when it has none, so a new view's first
file is ``00000-...``). gzip is chosen from the name: ``*.gz.metadata.json`` or, for compatibility,
``*.metadata.json.gz``.

The FileIO is PyIceberg's choice (:func:`pyiceberg.io.load_file_io`), except for local files when
pyarrow is not installed: PyIceberg has no FileIO for a bare path then, so local paths, ``file:``
URIs and "no location" get PyIceberg's fsspec FileIO (fsspec is a core dependency of PyIceberg).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import re
import sys
import uuid as uuidlib
import zlib
from collections.abc import Mapping
from enum import Enum
from typing import Any
from urllib.parse import urlparse

from pyiceberg.io import PY_IO_IMPL, FileIO, load_file_io

from iceview.errors import InvalidArgumentError, InvalidMetadataError, NotFoundError
from iceview.spec import ViewMetadata

__all__ = [
    "METADATA_COMPRESSION",
    "METADATA_COMPRESSION_DEFAULT",
    "WRITE_METADATA_LOCATION",
    "Codec",
    "codec_for",
    "delete_file",
    "file_io_for",
    "metadata_dir",
    "new_metadata_location",
    "parse_version",
    "read_metadata",
    "write_metadata",
]

METADATA_COMPRESSION = "write.metadata.compression-codec"
METADATA_COMPRESSION_DEFAULT = "gzip"
WRITE_METADATA_LOCATION = "write.metadata.path"

_SUFFIX = ".metadata.json"


class Codec(Enum):
    """How a metadata file is compressed (Java's ``TableMetadataParser.Codec``)."""

    NONE = ""
    GZIP = ".gz"

    @property
    def extension(self) -> str:
        """The file name ending: ``.metadata.json`` or ``.gz.metadata.json``."""
        return self.value + _SUFFIX

    @staticmethod
    def from_name(name: str) -> Codec:
        """``none`` or ``gzip``, in any case."""
        try:
            return Codec[name.upper()]
        except (KeyError, AttributeError):
            raise InvalidArgumentError(f"Invalid codec name: {name}") from None


def codec_for(location: str) -> Codec:
    """The codec a file name implies. A name without ``.metadata.json`` is refused."""
    name = location.rsplit("/", 1)[-1]
    if _SUFFIX not in name:
        raise InvalidArgumentError(f"{location} is not a valid metadata file")
    if name.endswith(_SUFFIX + ".gz"):
        return Codec.GZIP
    return Codec.GZIP if name[: name.rindex(_SUFFIX)].endswith(".gz") else Codec.NONE


_VERSION = re.compile(r"(\d+)-")


def parse_version(metadata_location: str | None) -> int:
    """The number at the start of a metadata file's name, or -1 (Java's ``parseVersion``)."""
    if not metadata_location:
        return -1
    name = metadata_location.rsplit("/", 1)[-1]
    dash = name.find("-")
    if dash < 0:
        return -1
    try:
        return int(name[:dash]) if name[:dash].isascii() and name[:dash].isdigit() else -1
    except ValueError:
        return -1


def metadata_dir(location: str, properties: Mapping[str, str]) -> str:
    """Where new metadata files go: ``write.metadata.path`` if set, else ``<location>/metadata``."""
    custom = properties.get(WRITE_METADATA_LOCATION)
    if custom:
        return custom.rstrip("/")
    return location.rstrip("/") + "/metadata"


def new_metadata_location(
    location: str, properties: Mapping[str, str], current_metadata_location: str | None
) -> str:
    """The location of the next metadata file of a view (Java's ``newMetadataFilePath``)."""
    codec = Codec.from_name(properties.get(METADATA_COMPRESSION, METADATA_COMPRESSION_DEFAULT))
    version = parse_version(current_metadata_location) + 1
    name = f"{version:05d}-{uuidlib.uuid4()}{codec.extension}"
    return f"{metadata_dir(location, properties)}/{name}"


def file_io_for(location: str, properties: Mapping[str, str] | None = None) -> FileIO:
    """PyIceberg's FileIO for a location (``py-io-impl`` and storage properties are honoured).

    ``location`` is a file, or a warehouse, or ``""`` for none. ``py-io-impl`` always wins; else
    PyIceberg chooses (PyArrow for local files when pyarrow is installed). Without pyarrow,
    local paths, ``file:`` URIs and ``""`` get PyIceberg's fsspec FileIO, which the core install
    has, instead of PyIceberg's ``Could not load a FileIO`` error.
    """
    props = dict(properties or {})
    if props.get(PY_IO_IMPL) or not _is_local(location) or _pyarrow_file_io_available():
        return load_file_io(props, location)
    return _local_fsspec_file_io(props)


def _is_local(location: str) -> bool:
    """A bare path (or none, ``""``) or a ``file:`` URI."""
    if os.path.splitdrive(location)[0]:  # C:\... on Windows
        return True
    return urlparse(location).scheme in ("", "file")


def _pyarrow_file_io_available() -> bool:
    try:
        import pyiceberg.io.pyarrow  # noqa: F401
    except ImportError:  # pyarrow is an extra of PyIceberg, not a dependency
        return False
    return True


def _local_fsspec_file_io(properties: dict[str, str]) -> FileIO:
    """PyIceberg's ``FsspecFileIO``, with ``exists()`` fixed for ``file:`` URIs."""
    return _local_fsspec_file_io_class()(properties)


@functools.cache
def _local_fsspec_file_io_class() -> type[FileIO]:
    # Defined on first use: importing fsspec and PyIceberg's fsspec module takes a while
    from fsspec.implementations.local import LocalFileSystem  # type: ignore[import-untyped]
    from pyiceberg.io.fsspec import FsspecFileIO

    class _LocalFileSystem(LocalFileSystem):  # type: ignore[misc]
        # fsspec's LocalFileSystem.lexists does not strip "file:", so exists() of a file: URI is
        # always False (and create(overwrite=False) overwrites)
        def lexists(self, path: str, **kwargs: Any) -> bool:
            return bool(super().lexists(self._strip_protocol(path), **kwargs))

    class LocalFsspecFileIO(FsspecFileIO):
        """PyIceberg's fsspec FileIO; local paths and ``file:`` URIs go to a fixed LocalFileSystem."""

        def get_fs(self, scheme: str, hostname: str | None = None) -> Any:
            if scheme in ("", "file"):
                return _LocalFileSystem(auto_mkdir=True)
            return super().get_fs(scheme, hostname)

        def __reduce__(self) -> tuple[Any, ...]:
            return (_local_fsspec_file_io, (dict(self.properties),))

    LocalFsspecFileIO.__qualname__ = "LocalFsspecFileIO"  # for repr; pickled by __reduce__
    return LocalFsspecFileIO


def read_metadata(
    location: str, io: FileIO | None = None, properties: Mapping[str, str] | None = None
) -> ViewMetadata:
    """Read a metadata file. The result's ``metadata_file_location`` is ``location``.

    Raises :class:`NotFoundError` if the file does not exist, and :class:`InvalidMetadataError`
    (naming the file) if it is not valid view metadata, including corrupt gzip.
    """
    codec = codec_for(location)
    io = io or file_io_for(location, properties)
    try:
        with io.new_input(location).open() as stream:
            raw = stream.read()
    except FileNotFoundError:
        raise NotFoundError(f"Metadata file does not exist: {location}") from None
    except OSError as e:
        if "not found" in str(e).lower() or "no such file" in str(e).lower():
            raise NotFoundError(f"Metadata file does not exist: {location}") from None
        raise InvalidMetadataError(f"Failed to read json file: {location}: {e}", "$", location) from e
    if codec is Codec.GZIP:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise InvalidMetadataError(
                f"Failed to read json file: {location}: bad gzip data: {e}", "$", location
            ) from None
    try:
        return ViewMetadata.from_json(raw, metadata_location=location)
    except InvalidMetadataError as e:
        raise e.with_location(location) from None


def write_metadata(
    metadata: ViewMetadata,
    location: str,
    io: FileIO | None = None,
    *,
    overwrite: bool = True,
    properties: Mapping[str, str] | None = None,
) -> None:
    """Write ``metadata`` as compact JSON to ``location``, gzip chosen from the name. The catalog
    overwrites (each new file name holds a fresh uuid); ``overwrite=False`` refuses an existing file."""
    codec = codec_for(location)
    data = metadata.to_json().encode()
    io = io or file_io_for(location, properties)
    # PyArrow's output streams compress on their own when a name ends in ".gz"
    if codec is Codec.GZIP and not (location.endswith(".gz") and _compresses_by_extension(io)):
        data = gzip.compress(data, mtime=0)
    try:
        with io.new_output(location).create(overwrite=overwrite) as stream:
            stream.write(data)
    except FileExistsError:
        raise InvalidArgumentError(f"Metadata file already exists: {location}") from None


def _compresses_by_extension(io: FileIO) -> bool:
    # A PyArrowFileIO means its module is loaded; fsspec's FileIO writes bytes as they are. pyarrow
    # is optional for PyIceberg, and is not imported here just to answer no.
    module = sys.modules.get("pyiceberg.io.pyarrow")
    pyarrow_file_io = getattr(module, "PyArrowFileIO", None)
    return pyarrow_file_io is not None and isinstance(io, pyarrow_file_io)


def delete_file(location: str, io: FileIO | None = None, properties: Mapping[str, str] | None = None) -> None:
    """Delete a file; a file that is already gone is not an error."""
    io = io or file_io_for(location, properties)
    with contextlib.suppress(FileNotFoundError):
        io.delete(location)
