"""Metadata files: names, the gzip codec, and reading and writing through PyIceberg's FileIO, so
that local paths, ``file:`` URIs and object stores (``s3://`` ...) all work the same way.

File names follow Iceberg Java: ``{version:05d}-{uuid}{.gz}.metadata.json``, where the version is
one more than the one in the current file's name (``-1`` when it has none, so a new view's first
file is ``00000-...``). gzip is chosen from the name: ``*.gz.metadata.json`` or, for compatibility,
``*.metadata.json.gz``.

Local paths, ``file:`` URIs and "no location" are read and written by :class:`LocalFileIO`
(PyIceberg's FileIO interface over plain file operations: no PyArrow to load, and the same with or
without pyarrow installed); other locations by PyIceberg's choice (:func:`pyiceberg.io.load_file_io`),
and ``py-io-impl`` always wins.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import os
import re
import sys
import uuid as uuidlib
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from pyiceberg.io import PY_IO_IMPL, FileIO, load_file_io

from iceview.errors import (
    InvalidArgumentError,
    InvalidMetadataError,
    InvalidNameError,
    LocationOutsideWarehouseError,
    NotFoundError,
    UnsupportedOperationError,
)
from iceview.localfs import LocalFileIO
from iceview.localfs import is_local as _is_local
from iceview.localfs import local_path as _local_path
from iceview.spec import ViewMetadata

if TYPE_CHECKING:
    from iceview.udf import FunctionMetadata

__all__ = [
    "ALLOW_EXTERNAL_LOCATIONS",
    "LOCATION_PROPERTIES",
    "METADATA_COMPRESSION",
    "METADATA_COMPRESSION_DEFAULT",
    "WRITE_METADATA_LOCATION",
    "Codec",
    "ListedFile",
    "LocalFileIO",
    "check_in_warehouse",
    "check_location_properties",
    "codec_for",
    "confinement_root",
    "delete_file",
    "file_io_for",
    "is_location_property",
    "list_metadata_files",
    "metadata_dir",
    "new_metadata_location",
    "parse_version",
    "read_function_metadata",
    "read_metadata",
    "same_file",
    "write_function_metadata",
    "write_metadata",
]

METADATA_COMPRESSION = "write.metadata.compression-codec"
METADATA_COMPRESSION_DEFAULT = "gzip"
WRITE_METADATA_LOCATION = "write.metadata.path"

ALLOW_EXTERNAL_LOCATIONS = "iceview.allow-external-locations"
"""Catalog property: ``true`` lets a catalog write and delete outside its ``warehouse`` (default
``false``). ``iceview serve`` sets it on the catalogs it serves from ``--allow-external-locations``."""

LOCATION_PROPERTIES = (
    "write.data.path",
    "write.metadata.path",
    "write.object-storage.path",
    "write.folder-storage.path",
)
"""Properties that move where a view's or table's files are written; every other ``write.*.path``
or ``write.*.location`` key counts too (:func:`is_location_property`)."""

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


# ----------------------------------------------------------------------------- the warehouse


def confinement_root(properties: Mapping[str, str]) -> str | None:
    """The warehouse a catalog with these properties may write and delete in, or None when nothing
    is confined: the catalog has no ``warehouse`` (there is no root to confine to, so any location
    is taken as given, as before), or ``iceview.allow-external-locations`` is ``true``. Only for
    catalogs that write files (a REST client's ``warehouse`` names a catalog, not a folder)."""
    warehouse = properties.get("warehouse")
    if not warehouse or properties.get(ALLOW_EXTERNAL_LOCATIONS, "false").strip().lower() == "true":
        return None
    return warehouse


def is_location_property(key: str) -> bool:
    """Whether a view or table property names a place files are written: the
    :data:`LOCATION_PROPERTIES`, and any other ``write.*.path`` or ``write.*.location``."""
    return key in LOCATION_PROPERTIES or (key.startswith("write.") and key.endswith((".path", ".location")))


def check_in_warehouse(location: str, warehouse: str | None, role: str) -> str:
    """The warehouse confinement rule: ``location`` (a view's or table's location, a
    ``write.*.path`` property, a metadata file to write, register or delete) must lie inside
    ``warehouse``; returns it unchanged, else raises :class:`LocationOutsideWarehouseError` naming
    ``role`` and the location. ``warehouse`` None (see :func:`confinement_root`) allows anything.

    Local locations (bare paths, relative ones from the working directory, ``file:/p``,
    ``file:///p``, ``file://localhost/p``) are compared as the files they are: made absolute,
    ``..`` resolved and symlinks followed (:func:`os.path.realpath`, which resolves the longest
    prefix that exists). A ``file:`` URI with a host is read two ways (the host ignored, as
    :class:`LocalFileIO` and Java do; the host as the first folder of a relative path, as
    PyArrow's FileIO does) and both must be inside. Other schemes (``s3://``, ``gs://``, ...) must
    have the warehouse's scheme and bucket, a key under its key, and no ``..`` segment (percent-
    encoded or not), query or fragment. Nothing is unquoted for local files, as no FileIO does.
    A location that cannot be read at all (NUL, a malformed URI) is outside, and so is a local one
    with ``?`` or ``#``, which FileIOs split off or keep as they please."""
    if warehouse is None:
        return location
    roots = _places(warehouse)
    places = _places(location)
    if not roots or not places or not all(any(_under(place, root) for root in roots) for place in places):
        raise LocationOutsideWarehouseError(role, location, warehouse)
    return location


def check_location_properties(properties: Mapping[str, str], warehouse: str | None, what: str) -> None:
    """:func:`check_in_warehouse` for every location property (:func:`is_location_property`) of a
    view's or table's ``properties``; ``what`` starts the role (``view``, ``table``)."""
    for key, value in properties.items():
        if is_location_property(key):
            check_in_warehouse(value, warehouse, f"{what} {key}")


def _places(location: str) -> list[tuple[str, str, str]]:
    """Every (scheme, bucket, path) a FileIO could read ``location`` as; local files are
    ``("", "", real path)``. Empty when it cannot be read."""
    if "\x00" in location or not location:
        return []
    try:
        parsed = urlparse(location)
        if not _is_local(location):
            if parsed.query or parsed.fragment or parsed.params or "\\" in location or not parsed.netloc:
                return []
            if any(unquote(segment) in ("..", ".") for segment in parsed.path.split("/")):
                return []
            return [(parsed.scheme, parsed.netloc, parsed.path.rstrip("/") or "/")]
        if "?" in location or "#" in location:
            # FileIOs differ on whether these end the path (file:///wh/a?/b is /wh/a to urlparse,
            # wh/a?/b to the OS): a file named with them could be another file (";" is literal to all)
            return []
        if parsed.scheme != "file" or os.path.splitdrive(location)[0]:
            paths = [location]
        else:
            paths = [parsed.path] + ([parsed.netloc + parsed.path] if parsed.netloc else [])
        # realpath, not abspath first: "link/.." is the parent of the link's target, as the OS reads it
        return [("", "", os.path.realpath(path)) for path in paths]
    except (OSError, ValueError):
        return []


def _under(place: tuple[str, str, str], root: tuple[str, str, str]) -> bool:
    if place[:2] != root[:2]:
        return False
    sep = os.sep if not place[0] else "/"
    base = root[2].rstrip(sep)
    return place[2] == root[2] or place[2] == base or place[2].startswith(base + sep)


@dataclass(frozen=True)
class ListedFile:
    """A file found by :func:`list_metadata_files`: its location (the folder's spelling and its
    name), size in bytes and modification time (seconds since the epoch)."""

    location: str
    size: int
    modified: float


def list_metadata_files(folder: str) -> list[ListedFile]:
    """The metadata files (names with ``.metadata.json``) directly in ``folder``, a local path or
    ``file:`` URI; regular files only (a symlink is not listed), sorted by name. A folder that does
    not exist has none. Other schemes are :class:`UnsupportedOperationError` (no FileIO lists)."""
    if not _is_local(folder):
        raise UnsupportedOperationError(f"Cannot list {folder}: only local folders can be listed")
    path = _local_path(folder)
    found: list[ListedFile] = []
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    for entry in entries:
        if _SUFFIX not in entry.name or not entry.is_file(follow_symlinks=False):
            continue
        info = entry.stat(follow_symlinks=False)
        found.append(ListedFile(f"{folder.rstrip('/')}/{entry.name}", info.st_size, info.st_mtime))
    return found


def same_file(a: str, b: str) -> bool:
    """Whether two locations name the same file: equal, or local and the same real path
    (``file:/p``, ``file:///p`` and ``/p`` are one file)."""
    if a == b:
        return True
    if not (_is_local(a) and _is_local(b)) or "\x00" in a + b:
        return False
    return os.path.realpath(_local_path(a)) == os.path.realpath(_local_path(b))


def file_io_for(location: str, properties: Mapping[str, str] | None = None) -> FileIO:
    """The FileIO for a location: ``location`` is a file, or a warehouse, or ``""`` for none.

    ``py-io-impl`` always wins. Otherwise local paths, ``file:`` URIs and ``""`` get
    :class:`LocalFileIO`, and other locations PyIceberg's choice (:func:`pyiceberg.io.load_file_io`:
    PyArrow, or fsspec, with the ``s3.*``, ``gcs.*``, ... properties).
    """
    props = dict(properties or {})
    if props.get(PY_IO_IMPL) or not _is_local(location):
        return load_file_io(props, location)
    return LocalFileIO(props)


def read_metadata(
    location: str, io: FileIO | None = None, properties: Mapping[str, str] | None = None
) -> ViewMetadata:
    """Read a view metadata file. The result's ``metadata_file_location`` is ``location``.

    Raises :class:`NotFoundError` if the file does not exist, and :class:`InvalidMetadataError`
    (naming the file) if it is not valid view metadata, including corrupt gzip.
    """
    raw = _read_json(location, io or file_io_for(location, properties))
    try:
        return ViewMetadata.from_json(raw, metadata_location=location)
    except InvalidMetadataError as e:
        raise e.with_location(location) from None


def read_function_metadata(
    location: str, io: FileIO | None = None, properties: Mapping[str, str] | None = None
) -> FunctionMetadata:
    """Read a SQL UDF metadata file (:mod:`iceview.udf`), as :func:`read_metadata` reads a view's."""
    from iceview.udf import function_metadata_from_json

    raw = _read_json(location, io or file_io_for(location, properties))
    try:
        return function_metadata_from_json(raw, metadata_location=location)
    except InvalidMetadataError as e:
        raise e.with_location(location) from None


def _read_json(location: str, io: FileIO) -> bytes:
    """The bytes of a metadata file, gunzipped when its name says gzip."""
    codec = codec_for(location)
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
    return bytes(raw)


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
    _write_json(metadata.to_json().encode(), location, io or file_io_for(location, properties), overwrite)


def write_function_metadata(
    metadata: FunctionMetadata,
    location: str,
    io: FileIO | None = None,
    *,
    overwrite: bool = True,
    properties: Mapping[str, str] | None = None,
) -> None:
    """Write SQL UDF metadata (strictly: :func:`iceview.udf.function_metadata_to_json` refuses what
    ``validate`` finds), as :func:`write_metadata` writes a view's."""
    from iceview.udf import function_metadata_to_json

    data = function_metadata_to_json(metadata).encode()
    _write_json(data, location, io or file_io_for(location, properties), overwrite)


def _write_json(data: bytes, location: str, io: FileIO, overwrite: bool) -> None:
    codec = codec_for(location)
    # PyArrow's output streams compress on their own when a name ends in ".gz"
    if codec is Codec.GZIP and not (location.endswith(".gz") and _compresses_by_extension(io)):
        data = gzip.compress(data, mtime=0)
    try:
        with io.new_output(location).create(overwrite=overwrite) as stream:
            stream.write(data)
    except FileExistsError:
        raise InvalidArgumentError(f"Metadata file already exists: {location}") from None
    except OSError as e:
        if e.errno == errno.ENAMETOOLONG or "File name too long" in str(e):  # PyArrow: in the text only
            # the caller's location, not the server's disk: nothing was written, nothing committed
            shown = location if len(location) <= 300 else location[:300] + "..."
            raise InvalidNameError(
                f"Cannot write metadata file {shown}: the path, or a name in it, is longer than "
                "the file system allows"
            ) from None
        raise


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
