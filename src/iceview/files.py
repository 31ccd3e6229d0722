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
from typing import Any
from urllib.parse import unquote, urlparse

from pyiceberg.io import PY_IO_IMPL, FileIO, InputFile, InputStream, OutputFile, OutputStream, load_file_io

from iceview.errors import (
    InvalidArgumentError,
    InvalidMetadataError,
    InvalidNameError,
    LocationOutsideWarehouseError,
    NotFoundError,
    UnsupportedOperationError,
)
from iceview.spec import ViewMetadata

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
    "read_metadata",
    "same_file",
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


def _is_local(location: str) -> bool:
    """A bare path (or none, ``""``) or a ``file:`` URI."""
    if os.path.splitdrive(location)[0]:  # C:\\... on Windows
        return True
    return urlparse(location).scheme in ("", "file")


def _local_path(location: str) -> str:
    """The path of a bare path or a ``file:`` URI (``file:/p``, ``file:///p``), as PyIceberg's
    FileIOs read it: a bare path is made absolute, and nothing is unquoted."""
    parsed = urlparse(location)
    if parsed.scheme != "file" or os.path.splitdrive(location)[0]:
        return os.path.abspath(location)
    return parsed.path


class _LocalFile:
    """What a local input file and a local output file share: the path, its size, existence."""

    def __init__(self, location: str) -> None:
        super().__init__(location)  # type: ignore[call-arg] # InputFile's or OutputFile's
        self._path = _local_path(location)

    def __len__(self) -> int:
        return os.path.getsize(self._path)

    def exists(self) -> bool:
        return os.path.exists(self._path)


class _LocalInputFile(_LocalFile, InputFile):
    def open(self, seekable: bool = True) -> InputStream:
        return open(self._path, "rb")


class _AtomicLocalStream:
    """What :meth:`_LocalOutputFile.create` hands out: bytes go to a hidden temporary file beside
    the target (``.<name>.<hex>.tmp``: never taken for a metadata file), which appears under the
    target's name, whole, only when the stream is closed without an exception. A writer that fails
    (or is killed) mid-write leaves no file at the target; one that fails with an exception leaves
    no temporary file either.

    The target appears by ``os.link`` (which fails on an existing name, so exclusive creation is
    still decided by the operating system), or by ``os.replace`` with ``overwrite``. Where a file
    system has no hard links, an existence check and ``os.rename`` stand in."""

    def __init__(self, path: str, overwrite: bool) -> None:
        self._path = path
        self._overwrite = overwrite
        folder, name = os.path.split(path)
        self._temp = os.path.join(folder, f".{name}.{uuidlib.uuid4().hex[:16]}.tmp")
        self._file = open(self._temp, "xb")  # noqa: SIM115 - closed by close() or __exit__
        self._done = False

    def write(self, b: bytes) -> int:
        return self._file.write(b)

    def tell(self) -> int:
        return self._file.tell()

    def flush(self) -> None:
        self._file.flush()

    @property
    def closed(self) -> bool:
        return self._done

    def close(self) -> None:
        """Finish: the bytes reach the disk, then the target's name."""
        if self._done:
            return
        self._done = True
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._publish()
        except BaseException:
            self._discard()
            raise

    def abort(self) -> None:
        """Give up: the temporary file goes, the target is not touched."""
        if self._done:
            return
        self._done = True
        self._discard()

    def _publish(self) -> None:
        if self._overwrite:
            os.replace(self._temp, self._path)
            return
        try:
            os.link(self._temp, self._path)  # FileExistsError if the name is taken
        except FileExistsError:
            raise
        except OSError:  # no hard links here (some network and FAT file systems)
            if os.path.lexists(self._path):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), self._path) from None
            os.rename(self._temp, self._path)
            return
        os.unlink(self._temp)

    def _discard(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self._temp)

    def __enter__(self) -> _AtomicLocalStream:
        return self

    def __exit__(
        self, exctype: type[BaseException] | None, excinst: BaseException | None, exctb: Any
    ) -> None:
        if exctype is None:
            self.close()
        else:
            self.abort()

    def __del__(self) -> None:  # dropped without close(): nothing is published
        with contextlib.suppress(Exception):
            self.abort()


class _LocalOutputFile(_LocalFile, OutputFile):
    def to_input_file(self) -> InputFile:
        return _LocalInputFile(self.location)

    def create(self, overwrite: bool = False) -> OutputStream:
        """Open for writing, making missing folders; the file appears whole, under its name, when
        the stream is closed (:class:`_AtomicLocalStream`). Without ``overwrite`` an existing file
        is ``FileExistsError``: here already when it exists, and decided by the operating system
        (a hard link cannot replace a name) when another writer got there in between."""
        if len(os.fsencode(self._path)) >= _PATH_MAX:
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), self._path[:300])
        folder = os.path.dirname(self._path)
        if folder:
            _make_folders(folder)
        if not overwrite and os.path.lexists(self._path):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), self._path)
        return _AtomicLocalStream(self._path, overwrite)


_PATH_MAX = 4096  # Linux's PATH_MAX; os.makedirs recurses once per missing folder


def _make_folders(folder: str) -> None:
    """``os.makedirs(folder, exist_ok=True)`` without recursion (a path of 3,000 folders overflowed
    Python's stack)."""
    missing: list[str] = []
    while folder and not os.path.isdir(folder):
        missing.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for path in reversed(missing):
        try:
            os.mkdir(path)
        except FileExistsError:
            if not os.path.isdir(path):
                raise


class LocalFileIO(FileIO):
    """PyIceberg's FileIO interface over the local file system, for metadata files in local paths
    and ``file:`` URIs: plain file operations, so that reading one metadata file does not load
    PyArrow (about half a second of start-up for every command). Other locations (a view whose
    metadata lies in ``s3://`` in a catalog with a local warehouse) go to PyIceberg's FileIO for
    them, with the same properties."""

    def __init__(self, properties: Mapping[str, str] | None = None) -> None:
        super().__init__(dict(properties or {}))
        self._others: dict[str, FileIO] = {}

    def _other(self, location: str) -> FileIO | None:
        if _is_local(location):
            return None
        scheme = urlparse(location).scheme
        if scheme not in self._others:
            self._others[scheme] = load_file_io(dict(self.properties), location)
        return self._others[scheme]

    def new_input(self, location: str) -> InputFile:
        other = self._other(location)
        return other.new_input(location) if other is not None else _LocalInputFile(location)

    def new_output(self, location: str) -> OutputFile:
        other = self._other(location)
        return other.new_output(location) if other is not None else _LocalOutputFile(location)

    def delete(self, location: str | InputFile | OutputFile) -> None:
        """Delete a file; ``FileNotFoundError`` if there is none."""
        name = location if isinstance(location, str) else location.location
        other = self._other(name)
        if other is not None:
            other.delete(name)
            return
        os.remove(_local_path(name))

    def __getstate__(self) -> dict[str, Any]:
        return {"properties": dict(self.properties)}  # the delegates are made again when needed

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["properties"])  # type: ignore[misc]


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
