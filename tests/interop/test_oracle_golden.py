"""The Java oracle itself, on data Java wrote: proves the fixtures before iceview's code is involved."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from fixtures.java_session import JavaOracle

pytestmark = pytest.mark.java

DATA = Path(__file__).resolve().parent.parent / "data"
GOLDEN = DATA / "golden" / "java-1.10.2"
CORPUS = DATA / "corpus"
GOLDEN_FILES = sorted(GOLDEN.glob("*.metadata.json"))
GZ_FILES = sorted((GOLDEN / "gz").glob("*/*.gz.metadata.json"))


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def test_golden_data_is_there() -> None:
    assert len(GOLDEN_FILES) == 21, GOLDEN
    assert len(GZ_FILES) == 21, GOLDEN / "gz"


@pytest.mark.parametrize(
    "path", GOLDEN_FILES, ids=[p.name.removesuffix(".metadata.json") for p in GOLDEN_FILES]
)
def test_java_round_trips_golden_file(java_oracle: JavaOracle, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert java_oracle.error(text) is None
    compact = java_oracle.parse(text)
    assert json.loads(compact) == json.loads(text)
    assert compact == text  # these copies are byte for byte what Java writes
    pretty = java_oracle.pretty(text)
    assert pretty.startswith('{\n  "view-uuid" : ')
    assert json.loads(pretty) == json.loads(text)
    assert java_oracle.lazy_errors(text) == {"current_version": None, "schema": None}


@pytest.mark.parametrize("path", GZ_FILES, ids=[f"{p.parent.name}/{p.name[:5]}" for p in GZ_FILES])
def test_java_reads_gzip_file(java_oracle: JavaOracle, path: Path) -> None:
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"  # Java gzips view metadata by default
    assert java_oracle.read_file(path) == gzip.decompress(raw).decode("utf-8")


def test_gz_tree_holds_the_golden_files() -> None:
    flat = Counter(_canonical(json.loads(p.read_text(encoding="utf-8"))) for p in GOLDEN_FILES)
    packed = Counter(_canonical(json.loads(gzip.decompress(p.read_bytes()))) for p in GZ_FILES)
    assert flat == packed


def test_read_refuses_a_name_without_metadata_json(java_oracle: JavaOracle, tmp_path: Path) -> None:
    path = tmp_path / "view.json"
    path.write_bytes(GOLDEN_FILES[0].read_bytes())
    expected = f"java.lang.IllegalArgumentException: {path} is not a valid metadata file"
    assert java_oracle.read_error(path) == expected


# what corpus/README.md says Java does with each third-party file
CORPUS_EXPECTED: dict[str, tuple[str | None, dict[str, str | None] | None]] = {
    "iceberg-go/view-metadata.json": (None, {"current_version": None, "schema": None}),
    "iceberg-java/ValidViewMetadata.json": (None, {"current_version": None, "schema": None}),
    "iceberg-java/ViewMetadataMultipleSQLsForDialect.json": (None, {"current_version": None, "schema": None}),
    "iceberg-java/ViewMetadataInvalidCurrentSchema.json": (
        None,
        {
            "current_version": None,
            "schema": "java.lang.IllegalArgumentException: "
            "Cannot find current schema with id 1234 in schemas: [1]",
        },
    ),
    "iceberg-java/ViewMetadataInvalidCurrentVersion.json": (
        None,
        {
            "current_version": "java.lang.IllegalArgumentException: "
            "Cannot find current version 1234 in view versions: [1, 2]",
            "schema": "java.lang.IllegalArgumentException: "
            "Cannot find current version 1234 in view versions: [1, 2]",
        },
    ),
    "iceberg-java/ViewMetadataMissingCurrentVersion.json": (
        "java.lang.IllegalArgumentException: Cannot parse missing int: current-version-id",
        None,
    ),
    "iceberg-java/ViewMetadataMissingLocation.json": (
        "java.lang.IllegalArgumentException: Cannot parse missing string: location",
        None,
    ),
}


def test_corpus_is_complete() -> None:
    found = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("*/*.json"))
    assert found == sorted(CORPUS_EXPECTED)


@pytest.mark.parametrize("name", sorted(CORPUS_EXPECTED))
def test_java_on_corpus_file(java_oracle: JavaOracle, name: str) -> None:
    text = (CORPUS / name).read_text(encoding="utf-8")
    error, lazy = CORPUS_EXPECTED[name]
    assert java_oracle.error(text) == error
    if lazy is not None:
        assert java_oracle.lazy_errors(text) == lazy
        # Java writes back what it read, minus unknown keys such as current-schema-id
        written = json.loads(java_oracle.parse(text))
        original = json.loads(text)
        assert written == {k: v for k, v in original.items() if k in written}
        assert java_oracle.pretty(text).startswith('{\n  "view-uuid" : ')


def test_error_of_malformed_json(java_oracle: JavaOracle) -> None:
    expected = "java.lang.IllegalArgumentException: Cannot parse view metadata from non-object: []"
    assert java_oracle.error("[]") == expected
    error = java_oracle.error("{")
    assert error is not None and error.startswith("java.io.UncheckedIOException: ")
