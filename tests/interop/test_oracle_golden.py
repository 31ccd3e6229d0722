"""The Java oracle itself, on data Java wrote: proves the fixtures before iceview's code is involved."""

from __future__ import annotations

import copy
import gzip
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


# What Java 1.10.2 does with duplicate ids, and with missing or null required members (issue 11,
# section 3). iceview's reader refuses the same documents; tests/spec/test_read_duplicates.py and
# tests/spec/test_codec.py hold its side, with its own text for the duplicates (Guava's embeds
# Java's toString of both entries; see docs/compatibility.md).
def _valid() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((CORPUS / "iceberg-java" / "ValidViewMetadata.json").read_text())
    return doc


def _damage(change: Callable[[dict[str, Any]], object]) -> str:
    doc = _valid()
    change(doc)
    return json.dumps(doc)


def _new_field(field_id: int, ftype: Any = "int") -> dict[str, Any]:
    return {"id": field_id, "name": "zz", "required": False, "type": ftype}


_IAE = "java.lang.IllegalArgumentException: "
_SAME_KEY = _IAE + "Multiple entries with same key: "
JAVA_READ_OUTCOMES: list[tuple[str, Callable[[dict[str, Any]], object], str | None, bool]] = [
    # (name, damage, Java's error, whether it is only a prefix of the error)
    (
        "dup-version",
        lambda d: d["versions"][1].__setitem__("version-id", 1),
        _SAME_KEY + "1=BaseViewVersion{",
        True,
    ),
    (
        "dup-schema",
        lambda d: d["schemas"].append(copy.deepcopy(d["schemas"][0])),
        _SAME_KEY + "0=table {",
        True,
    ),
    (
        "schema-without-id-is-0",
        lambda d: (d["schemas"].append(copy.deepcopy(d["schemas"][0])), d["schemas"][1].pop("schema-id")),
        _SAME_KEY + "0=table {",
        True,
    ),
    (
        "dup-field",
        lambda d: d["schemas"][0]["fields"].append(_new_field(1)),
        _SAME_KEY + "1=x and 1=zz",
        False,
    ),
    (
        "dup-list-element",
        lambda d: d["schemas"][0]["fields"].append(
            _new_field(100, {"type": "list", "element-id": 1, "element": "int", "element-required": False})
        ),
        _SAME_KEY + "1=zz.element and 1=x",
        False,
    ),
    (
        "dup-map-key-value",
        lambda d: d["schemas"][0]["fields"].append(
            _new_field(
                100,
                {
                    "type": "map",
                    "key-id": 101,
                    "key": "int",
                    "value-id": 101,
                    "value": "int",
                    "value-required": False,
                },
            )
        ),
        _SAME_KEY + "101=zz.key and 101=zz.value",
        False,
    ),
    (
        "dup-nested-struct",
        lambda d: d["schemas"][0]["fields"].append(
            _new_field(100, {"type": "struct", "fields": [{**_new_field(100), "name": "a"}]})
        ),
        _SAME_KEY + "100=zz.a and 100=zz",
        False,
    ),
    (
        "field-ids-may-repeat-across-schemas",
        lambda d: (
            d["schemas"].append(copy.deepcopy(d["schemas"][0])),
            d["schemas"][1].__setitem__("schema-id", 5),
        ),
        None,
        False,
    ),
    # Java's order: field ids while parsing schemas; version ids, then schema ids, once all is parsed
    (
        "dup-field-before-current-version-id",
        lambda d: (d["schemas"][0]["fields"].append(_new_field(1)), d.__setitem__("current-version-id", "x")),
        _SAME_KEY + "1=x and 1=zz",
        False,
    ),
    (
        "current-version-id-before-dup-schema",
        lambda d: (
            d["schemas"].append(copy.deepcopy(d["schemas"][0])),
            d.__setitem__("current-version-id", "x"),
        ),
        _IAE + 'Cannot parse to an integer value: current-version-id: "x"',
        False,
    ),
    (
        "dup-version-before-dup-schema",
        lambda d: (
            d["versions"][1].__setitem__("version-id", 1),
            d["schemas"].append(copy.deepcopy(d["schemas"][0])),
        ),
        _SAME_KEY + "1=BaseViewVersion{",
        True,
    ),
    (
        "dup-version-before-format-version",
        lambda d: (d["versions"][1].__setitem__("version-id", 1), d.__setitem__("format-version", 2)),
        _SAME_KEY + "1=BaseViewVersion{",
        True,
    ),
    # required members: JsonUtil.get checks hasNonNull, so null is missing too
    (
        "missing-default-namespace",
        lambda d: d["versions"][0].pop("default-namespace"),
        _IAE + "Cannot parse missing field: default-namespace",
        False,
    ),
    (
        "null-default-namespace",
        lambda d: d["versions"][0].__setitem__("default-namespace", None),
        _IAE + "Cannot parse missing field: default-namespace",
        False,
    ),
    (
        "default-namespace-not-an-array",
        lambda d: d["versions"][0].__setitem__("default-namespace", 3),
        _IAE + "Cannot parse string array from non-array: 3",
        False,
    ),
    # Java 1.10 reads non-text levels with asText(); iceview refuses them (docs/compatibility.md)
    (
        "default-namespace-with-non-text-levels",
        lambda d: d["versions"][0].__setitem__("default-namespace", [1, None, {}]),
        None,
        False,
    ),
    (
        "null-schemas",
        lambda d: d.__setitem__("schemas", None),
        _IAE + "Cannot parse missing field: schemas",
        False,
    ),
    (
        "null-versions",
        lambda d: d.__setitem__("versions", None),
        _IAE + "Cannot parse missing field: versions",
        False,
    ),
    (
        "null-version-log",
        lambda d: d.__setitem__("version-log", None),
        _IAE + "Cannot parse missing field: version-log",
        False,
    ),
    (
        "null-representations",
        lambda d: d["versions"][0].__setitem__("representations", None),
        _IAE + "Cannot parse missing field: representations",
        False,
    ),
    (
        "null-version",
        lambda d: d["versions"].__setitem__(0, None),
        _IAE + "Cannot parse view version from a non-object: null",
        False,
    ),
    (
        "null-history-entry",
        lambda d: d["version-log"].__setitem__(0, None),
        _IAE + "Cannot parse view history entry from non-object: null",
        False,
    ),
]


@pytest.mark.parametrize(
    ("name", "damage", "expected", "prefix"), JAVA_READ_OUTCOMES, ids=[o[0] for o in JAVA_READ_OUTCOMES]
)
def test_java_on_damaged_metadata(
    java_oracle: JavaOracle,
    name: str,
    damage: Callable[[dict[str, Any]], object],
    expected: str | None,
    prefix: bool,
) -> None:
    error = java_oracle.error(_damage(damage))
    if prefix:
        assert expected is not None and error is not None and error.startswith(expected), error
    else:
        assert error == expected
