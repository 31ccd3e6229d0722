"""Local metadata files appear whole or not at all: ``LocalFileIO`` writes to a hidden temporary
file beside the target and links it into place when the stream closes. A writer that fails or is
killed mid-write leaves no file (empty or partial) at the target's name; one that fails with an
exception leaves no temporary file either; an existing file still fails exclusive creation."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iceview import files, localfs
from iceview.errors import InvalidArgumentError
from iceview.files import LocalFileIO, read_metadata, write_metadata

DATA = Path(__file__).parent.parent / "data"
GOLDEN_GZ = DATA / "golden" / "java-1.10.2" / "gz"
NAME = "00001-0f5e4a55-9c33-4f4e-f5cf-3f0e0b6f3c1e.gz.metadata.json"


def metadata() -> files.ViewMetadata:
    return read_metadata(str(sorted(GOLDEN_GZ.glob("default.event_agg/*"))[-1]))


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_write_that_fails_halfway_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "metadata" / NAME
    real_write = localfs._AtomicLocalStream.write

    def half_then_full_disk(self: localfs._AtomicLocalStream, b: bytes) -> int:
        real_write(self, b[: len(b) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(localfs._AtomicLocalStream, "write", half_then_full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_metadata(metadata(), str(target))
    assert listing(target.parent) == []  # no partial file, no temporary file
    monkeypatch.undo()
    write_metadata(metadata(), str(target))  # the name is free
    assert read_metadata(str(target)) == metadata()
    assert listing(target.parent) == [NAME]


def test_nothing_appears_before_the_stream_is_closed(tmp_path: Path) -> None:
    target = tmp_path / NAME
    stream = LocalFileIO().new_output(str(target)).create()
    stream.write(b"{}")
    assert not target.exists()
    stream.close()
    assert target.read_bytes() == b"{}"
    assert listing(tmp_path) == [NAME]


def test_a_stream_left_by_an_exception_is_discarded(tmp_path: Path) -> None:
    target = tmp_path / NAME
    with pytest.raises(KeyboardInterrupt), LocalFileIO().new_output(str(target)).create() as stream:
        stream.write(b"{partial")
        raise KeyboardInterrupt
    assert listing(tmp_path) == []


def test_exclusive_creation_is_kept(tmp_path: Path) -> None:
    target = tmp_path / NAME
    target.write_bytes(b"first")
    io = LocalFileIO()
    # an existing file: the same error as before, at create()
    with pytest.raises(FileExistsError):
        io.new_output(str(target)).create()
    with pytest.raises(InvalidArgumentError, match="Metadata file already exists"):
        write_metadata(metadata(), str(target), io, overwrite=False)
    # another writer takes the name while this one writes: the operating system refuses the link
    target.unlink()
    stream = io.new_output(str(target)).create()
    stream.write(b"second")
    target.write_bytes(b"other writer")
    with pytest.raises(FileExistsError):
        stream.close()
    assert target.read_bytes() == b"other writer"
    assert listing(tmp_path) == [NAME]
    # overwrite replaces, in one step
    with io.new_output(str(target)).create(overwrite=True) as stream:
        stream.write(b"third")
    assert target.read_bytes() == b"third" and listing(tmp_path) == [NAME]


def test_without_hard_links_a_checked_rename_stands_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: str, dst: str) -> None:
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / NAME
    write_metadata(metadata(), str(target), overwrite=False)
    assert read_metadata(str(target)) == metadata() and listing(tmp_path) == [NAME]
    with pytest.raises(InvalidArgumentError, match="already exists"):
        write_metadata(metadata(), str(target), overwrite=False)
    assert listing(tmp_path) == [NAME]


CHILD = """
import sys, time
from iceview.files import LocalFileIO
stream = LocalFileIO().new_output(sys.argv[1]).create()
stream.write(b"{" + b" " * 1_000_000)
stream.flush()
print("writing", flush=True)
while True:
    stream.write(b" " * 1_000_000)
    time.sleep(0.01)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL on this platform")
def test_a_writer_killed_mid_write_leaves_no_file_at_the_target(tmp_path: Path) -> None:
    target = tmp_path / "metadata" / NAME
    target.parent.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "writing\n"
        time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert not target.exists()
    # what the kill left is hidden and not named like a metadata file
    left = listing(target.parent)
    assert len(left) == 1 and left[0].startswith(".") and not left[0].endswith(".metadata.json"), left
