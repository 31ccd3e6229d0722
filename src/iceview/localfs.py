"""The local file system as PyIceberg's FileIO: :class:`LocalFileIO` reads and writes metadata files
in local paths and ``file:`` URIs with plain file operations (no PyArrow to load), and writes each
file whole or not at all (a hidden temporary file, then a link or a rename)."""

from __future__ import annotations

import contextlib
import errno
import os
import uuid as uuidlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

from pyiceberg.io import FileIO, InputFile, InputStream, OutputFile, OutputStream, load_file_io

__all__ = ["LocalFileIO", "is_local", "local_path"]


def is_local(location: str) -> bool:
    """A bare path (or none, ``""``) or a ``file:`` URI."""
    if os.path.splitdrive(location)[0]:  # C:\\... on Windows
        return True
    return urlparse(location).scheme in ("", "file")


def local_path(location: str) -> str:
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
        self._path = local_path(location)

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
        if is_local(location):
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
        os.remove(local_path(name))

    def __getstate__(self) -> dict[str, Any]:
        return {"properties": dict(self.properties)}  # the delegates are made again when needed

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["properties"])  # type: ignore[misc]
