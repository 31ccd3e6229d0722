"""Metadata files: names, codecs, reading and writing through PyIceberg's FileIO."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from iceview.errors import InvalidArgumentError, InvalidMetadataError, NotFoundError
from iceview.files import (
    Codec,
    codec_for,
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
