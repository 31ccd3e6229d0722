"""Metadata files: names, codecs, reading and writing through PyIceberg's FileIO."""

from __future__ import annotations

import gzip
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from pyiceberg.io import FileIO
from pyiceberg.io.fsspec import FsspecFileIO
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField

from iceview.errors import InvalidArgumentError, InvalidMetadataError, NotFoundError
from iceview.files import (
    Codec,
    LocalFileIO,
    codec_for,
    delete_file,
    file_io_for,
    metadata_dir,
    new_metadata_location,
    parse_version,
    read_metadata,
    write_metadata,
)
from iceview.spec import ViewMetadata

DATA = Path(__file__).parent.parent / "data"
GOLDEN_GZ = DATA / "golden" / "java-1.10.2" / "gz"


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("v1.metadata.json", Codec.NONE),
        ("v1.gz.metadata.json", Codec.GZIP),
        ("00000-abc.gz.metadata.json", Codec.GZIP),
        ("s3://b/x.gz/00001-abc.metadata.json", Codec.NONE),
        ("v1.metadata.json.gz", Codec.GZIP),
    ],
)
def test_codec_from_file_name(name: str, codec: Codec) -> None:
    assert codec_for(name) is codec


def test_name_without_metadata_json_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match=r"^/x/v1\.json is not a valid metadata file$"):
        codec_for("/x/v1.json")


def test_codec_names() -> None:
    assert Codec.from_name("GZIP") is Codec.GZIP
    assert Codec.from_name("none").extension == ".metadata.json"
    with pytest.raises(InvalidArgumentError, match=r"^Invalid codec name: zstd$"):
        Codec.from_name("zstd")


@pytest.mark.parametrize(
    ("location", "version"),
    [
        (None, -1),
        ("s3://b/v/metadata/00000-abc.gz.metadata.json", 0),
        ("file:/w/v/metadata/00041-u.metadata.json", 41),
        ("/w/v/metadata/v1.metadata.json", -1),
        ("/w/v/metadata/abc-u.metadata.json", -1),
    ],
)
def test_parse_version(location: str | None, version: int) -> None:
    assert parse_version(location) == version


def test_new_file_names_follow_java() -> None:
    first = new_metadata_location("s3://b/w/ns/v/", {}, None)
    assert first.startswith("s3://b/w/ns/v/metadata/00000-") and first.endswith(".gz.metadata.json")
    nxt = new_metadata_location("s3://b/w/ns/v", {"write.metadata.compression-codec": "none"}, first)
    assert nxt.startswith("s3://b/w/ns/v/metadata/00001-")
    assert nxt.endswith(".metadata.json") and not nxt.endswith(".gz.metadata.json")
    custom = new_metadata_location("s3://b/w/ns/v", {"write.metadata.path": "s3://other/meta/"}, nxt)
    assert custom.startswith("s3://other/meta/00002-")
    assert metadata_dir("s3://b/v", {}) == "s3://b/v/metadata"


def test_every_golden_gzip_file_reads(tmp_path: Path) -> None:
    files = sorted(GOLDEN_GZ.glob("*/*.gz.metadata.json"))
    assert len(files) == 21
    for f in files:
        md = read_metadata(str(f))
        assert md.metadata_file_location == str(f)
        assert md.to_json() == gzip.decompress(f.read_bytes()).decode()


@pytest.mark.parametrize(
    "name", ["00000-a.gz.metadata.json", "00000-a.metadata.json", "00000-a.metadata.json.gz"]
)
def test_write_then_read(tmp_path: Path, name: str) -> None:
    md = read_metadata(str(sorted(GOLDEN_GZ.glob("default.event_agg/*"))[-1]))
    for location in (str(tmp_path / "plain" / name), f"file:{tmp_path}/uri/{name}"):
        write_metadata(md, location)
        raw = Path(location.removeprefix("file:")).read_bytes()
        assert (raw[:2] == b"\x1f\x8b") == (codec_for(name) is Codec.GZIP)
        back = read_metadata(location)
        assert back == md and back.metadata_file_location == location


def test_write_refuses_to_overwrite_when_asked(tmp_path: Path) -> None:
    md = ViewMetadata.from_json((DATA / "spec" / "appendix-a-newer-1.metadata.json").read_bytes())
    location = str(tmp_path / "00000-a.metadata.json")
    write_metadata(md, location, overwrite=False)
    with pytest.raises(InvalidArgumentError, match="already exists"):
        write_metadata(md, location, overwrite=False)
    write_metadata(md, location)  # the default overwrites


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "00001-x.metadata.json")
    with pytest.raises(NotFoundError, match=r"00001-x\.metadata\.json"):
        read_metadata(missing)
    bad_gzip = tmp_path / "00001-x.gz.metadata.json"
    bad_gzip.write_bytes(b"{not gzip")
    with pytest.raises(InvalidMetadataError) as info:
        read_metadata(str(bad_gzip))
    assert info.value.location == str(bad_gzip) and "gzip" in info.value.message
    corrupt = tmp_path / "00002-x.metadata.json"
    corrupt.write_bytes(b'{"view-uuid": "u", "format-version": 1')
    with pytest.raises(InvalidMetadataError) as info:
        read_metadata(str(corrupt))
    assert str(corrupt) in str(info.value) and "malformed JSON" in info.value.message
    truncated = tmp_path / "00003-x.gz.metadata.json"
    truncated.write_bytes(gzip.compress(b'{"view-uuid": "u"}')[:-6])
    with pytest.raises(InvalidMetadataError):
        read_metadata(str(truncated))


# ----------------------------------------------------------------------------- without pyarrow
# `pip install iceview` has no pyarrow (an extra of PyIceberg), and PyIceberg then has no FileIO
# for a bare path. These tests hide pyarrow; scripts/plain_install.sh checks a real plain install.


@pytest.fixture
def no_pyarrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing pyarrow or PyIceberg's pyarrow module fails, as after a plain install."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "pyiceberg.io.pyarrow", None)  # type: ignore[arg-type]
    with pytest.raises(ImportError):
        import pyiceberg.io.pyarrow  # noqa: F401


def _locations(tmp_path: Path, name: str) -> list[str]:
    return [str(tmp_path / "plain" / name), f"file:{tmp_path}/uri/{name}", f"file://{tmp_path}/uri2/{name}"]


def test_local_files_use_localfileio_with_or_without_pyarrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for location in [*_locations(tmp_path, "x.metadata.json"), "", "relative/x.metadata.json"]:
        assert type(file_io_for(location, {"warehouse": str(tmp_path)})) is LocalFileIO, location
    # PyIceberg's own choice elsewhere: PyArrow when installed, else its fsspec FileIO
    assert type(file_io_for("s3://bucket/x.metadata.json")) is PyArrowFileIO
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "pyiceberg.io.pyarrow", None)  # type: ignore[arg-type]
        assert type(file_io_for("s3://bucket/x.metadata.json")) is FsspecFileIO
        assert type(file_io_for(str(tmp_path))) is LocalFileIO
    # pickles (a FileIO may be sent to workers)
    io = file_io_for("", {"k": "v"})
    again = pickle.loads(pickle.dumps(io))
    assert type(again) is LocalFileIO and again.properties == {"k": "v"}


def test_reading_local_metadata_does_not_load_pyarrow(tmp_path: Path) -> None:
    # half a second of every command's start-up (bench/bench_startup.py)
    location = str(sorted(GOLDEN_GZ.glob("default.event_agg/*"))[-1])
    code = (
        "import sys; from iceview.files import read_metadata; "
        f"read_metadata({location!r}); print('pyarrow' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n", done.stderr


def test_localfileio_hands_other_schemes_to_pyiceberg(tmp_path: Path) -> None:
    io = LocalFileIO({"s3.region": "eu-west-1"})
    remote = io.new_input("s3://bucket/ns/v/metadata/00000-a.metadata.json")
    assert type(remote).__module__ == "pyiceberg.io.pyarrow"
    assert remote.location == "s3://bucket/ns/v/metadata/00000-a.metadata.json"


def test_py_io_impl_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    io = file_io_for(str(tmp_path), {"py-io-impl": "pyiceberg.io.fsspec.FsspecFileIO"})
    assert type(io) is FsspecFileIO
    assert (
        type(file_io_for(str(tmp_path), {"py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"}))
        is PyArrowFileIO
    )
    # an impl that cannot load is PyIceberg's error, not silently replaced
    monkeypatch.setitem(sys.modules, "pyiceberg.io.pyarrow", None)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"Could not initialize FileIO: pyiceberg\.io\.pyarrow\.PyArrowFileIO"
    ):
        file_io_for(str(tmp_path), {"py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"})


@pytest.mark.usefixtures("no_pyarrow")
@pytest.mark.parametrize(
    "name", ["00000-a.gz.metadata.json", "00000-a.metadata.json", "00000-a.metadata.json.gz"]
)
def test_write_then_read_without_pyarrow(tmp_path: Path, name: str) -> None:
    md = read_metadata(str(sorted(GOLDEN_GZ.glob("default.event_agg/*"))[-1]))
    for location in _locations(tmp_path, name):
        write_metadata(md, location)
        raw = Path(location.removeprefix("file://").removeprefix("file:")).read_bytes()
        if codec_for(name) is Codec.GZIP:  # compressed once, by us
            assert gzip.decompress(raw) == md.to_json().encode()
        else:
            assert raw == md.to_json().encode()
        back = read_metadata(location)
        assert back == md and back.metadata_file_location == location


@pytest.mark.usefixtures("no_pyarrow")
def test_exists_overwrite_and_delete_without_pyarrow(tmp_path: Path) -> None:
    md = ViewMetadata.from_json((DATA / "spec" / "appendix-a-newer-1.metadata.json").read_bytes())
    for location in _locations(tmp_path, "00000-a.gz.metadata.json"):
        io = file_io_for(location)
        assert not io.new_input(location).exists()
        write_metadata(md, location, io, overwrite=False)
        assert io.new_input(location).exists() and io.new_output(location).exists()
        with pytest.raises(InvalidArgumentError, match="already exists"):
            write_metadata(md, location, io, overwrite=False)
        delete_file(location, io)
        assert not io.new_input(location).exists()
        delete_file(location, io)  # already gone: not an error
        with pytest.raises(NotFoundError, match=r"00000-a\.gz\.metadata\.json"):
            read_metadata(location, io)
    bad_gzip = tmp_path / "00001-x.gz.metadata.json"
    bad_gzip.write_bytes(b"{not gzip")
    with pytest.raises(InvalidMetadataError, match="bad gzip data"):
        read_metadata(f"file://{bad_gzip}")


def test_localfileio_and_pyarrow_write_the_same_metadata(tmp_path: Path) -> None:
    md = read_metadata(str(sorted(GOLDEN_GZ.glob("default.event_agg/*"))[-1]))
    names = ["00000-a.gz.metadata.json", "00000-a.metadata.json", "00000-a.metadata.json.gz"]
    arrow_io = file_io_for("", {"py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"})
    for name in names:
        write_metadata(md, str(tmp_path / "arrow" / name), arrow_io)
        write_metadata(md, str(tmp_path / "local" / name))
        assert read_metadata(str(tmp_path / "arrow" / name)) == md
        assert read_metadata(str(tmp_path / "local" / name), arrow_io) == md
        arrow, local = ((tmp_path / d / name).read_bytes() for d in ("arrow", "local"))
        if name.endswith(".gz"):  # PyArrow's stream compresses this one, with its own header
            assert gzip.decompress(arrow) == gzip.decompress(local)
        else:
            assert arrow == local


@pytest.mark.usefixtures("no_pyarrow")
@pytest.mark.parametrize("uri", [False, True])
def test_catalog_without_pyarrow(tmp_path: Path, uri: bool) -> None:
    from iceview.catalog.sql import SqlCatalog

    warehouse = f"file://{tmp_path}/wh" if uri else str(tmp_path / "wh")
    catalog = SqlCatalog("plain", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=warehouse)
    try:
        io: FileIO = catalog.io
        assert isinstance(io, LocalFileIO)
        catalog.create_namespace("ns")
        schema = Schema(NestedField(1, "id", IntegerType(), required=False))
        view = catalog.create_view(
            "ns.v", schema=schema, queries={"spark": "SELECT 1 AS id"}, default_namespace="ns"
        )
        first = view.metadata.metadata_file_location
        assert first is not None and first.endswith(".gz.metadata.json")
        view.replace_version(schema=schema, queries={"spark": "SELECT 2 AS id"}, default_namespace="ns")
        view.set_current_version(1)
        loaded = catalog.load_view("ns.v")
        assert loaded.current_version.version_id == 1 and len(loaded.versions) == 2
        files = sorted((tmp_path / "wh" / "ns" / "v" / "metadata").iterdir())
        assert [f.name[:6] for f in files] == ["00000-", "00001-", "00002-"]
        assert all(gzip.decompress(f.read_bytes()).startswith(b"{") for f in files)
        current = loaded.metadata.metadata_file_location
        assert catalog.drop_view("ns.v")
        assert current is not None and not io.new_input(current).exists()
    finally:
        catalog.close()
