"""Property-based tests of the builder and the reader (hypothesis)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pyiceberg.schema import Schema
from pyiceberg.types import DateType, IntegerType, ListType, LongType, NestedField, StringType, StructType

from iceview.errors import IceviewError, InvalidMetadataError
from iceview.spec import SQLRepresentation, ViewMetadata, ViewVersion, validate

DATA = Path(__file__).parent.parent / "data"
SEEDS = [
    (DATA / "spec" / "appendix-a-newer-2.metadata.json").read_bytes(),
    (
        DATA / "golden" / "java-1.10.2" / "23-view-default.many_versions-after-many-versions-12.metadata.json"
    ).read_bytes(),
    (DATA / "corpus" / "iceberg-java" / "ValidViewMetadata.json").read_bytes(),
]

SCHEMAS = [
    Schema(NestedField(1, "id", LongType(), required=True), schema_id=3),
    Schema(NestedField(1, "id", LongType(), required=True, doc="the id"), NestedField(2, "d", DateType())),
    Schema(
        NestedField(0, "s", StructType(NestedField(2, "x", IntegerType()))),
        NestedField(1, "l", ListType(3, StringType(), element_required=False)),
        schema_id=7,
    ),
]
DIALECTS = ["spark", "trino", "duckdb", "Spark", "TRINO"]

names = st.text(alphabet="abcxyz_é🧊 \"'\\\n", min_size=1, max_size=8)
sql_text = st.text(min_size=0, max_size=20)


@st.composite
def versions(draw: st.DrawFn) -> ViewVersion:
    dialects = draw(st.lists(st.sampled_from(DIALECTS), max_size=3))
    reps = tuple(SQLRepresentation(draw(sql_text), d) for d in dialects)
    return ViewVersion(
        version_id=draw(st.integers(-2, 6)),
        timestamp_ms=draw(st.integers(-1, 10**13)),
        schema_id=draw(st.integers(-1, 3)),
        summary=draw(
            st.dictionaries(st.sampled_from(["engine-name", "engine-version", "x"]), names, max_size=2)
        ),
        representations=reps,
        default_namespace=tuple(draw(st.lists(names, max_size=2))),
        default_catalog=draw(st.one_of(st.none(), names)),
    )


operations = st.one_of(
    st.tuples(st.just("set_location"), st.sampled_from(["s3://b/v", "file:/w/ns/v", "s3://b/v2"])),
    st.tuples(
        st.just("set_properties"),
        st.dictionaries(
            st.sampled_from(["comment", "version.history.num-entries", "replace.drop-dialect.allowed", "k"]),
            st.sampled_from(["1", "2", "3", "true", "TRUE", "false", "x", "0", "é"]),
            max_size=2,
        ),
    ),
    st.tuples(
        st.just("remove_properties"), st.lists(st.sampled_from(["comment", "k", "missing"]), max_size=2)
    ),
    st.tuples(st.just("add_schema"), st.sampled_from(SCHEMAS)),
    st.tuples(st.just("add_version"), versions()),
    st.tuples(st.just("set_current_version"), st.tuples(versions(), st.sampled_from(SCHEMAS))),
    st.tuples(st.just("set_current_version_id"), st.integers(-1, 8)),
    st.tuples(
        st.just("assign_uuid"), st.sampled_from(["fa6506c3-7681-40c8-86dc-e36561f83385", "not-a-uuid"])
    ),
    st.tuples(st.just("upgrade_format_version"), st.integers(0, 2)),
)


def run(builder: Any, ops: list[tuple[str, Any]]) -> None:
    for name, arg in ops:
        try:
            if name == "set_current_version":
                builder.set_current_version(*arg)
            else:
                getattr(builder, name)(arg)
        except IceviewError:
            pass  # a refused step leaves the builder usable, as in Java


def check(md: ViewMetadata) -> None:
    text = md.to_json()
    again = ViewMetadata.from_json(text)
    assert again == md
    assert again.to_json() == text
    assert ViewMetadata.from_json(md.to_json(pretty=True)) == md
    assert validate(md) == [], validate(md)
    assert again.schema is not None
    assert again.current_version.version_id == md.current_version_id


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(first=st.lists(operations, max_size=12), later=st.lists(st.lists(operations, max_size=6), max_size=3))
def test_any_successful_builder_sequence_round_trips_and_validates_clean(
    first: list[tuple[str, Any]], later: list[list[tuple[str, Any]]]
) -> None:
    builder = ViewMetadata.builder()
    if first and first[0][0] != "set_location":  # most runs start like a create, some do not
        builder.set_location("s3://b/v").set_current_version(
            ViewVersion(1, 1, 0, {}, (SQLRepresentation("select 1", "spark"),), ("ns",)), SCHEMAS[0]
        )
    run(builder, first)
    try:
        md = builder.build()
    except IceviewError:
        assume(False)
        return
    check(md)
    for ops in later:  # further builds from the result, like successive commits
        builder = ViewMetadata.build_from(md)
        run(builder, ops)
        try:
            md = builder.build()
        except IceviewError:
            continue
        check(md)


def _mutate(doc: Any, rnd: Any, depth: int = 0) -> Any:
    """Replace one randomly chosen node of a JSON value with something of another shape."""
    replacements = [None, 0, -1, 2**31, 2**63, 1.5, True, "", "x", [], {}, [None], {"type": "sql"}]
    if isinstance(doc, dict) and doc:
        key = rnd.choice(sorted(doc))
        out = dict(doc)
        if rnd.random() < 0.25:
            del out[key]
        elif rnd.random() < 0.5 or depth > 6:
            out[key] = rnd.choice(replacements)
        else:
            out[key] = _mutate(doc[key], rnd, depth + 1)
        return out
    if isinstance(doc, list) and doc:
        i = rnd.randrange(len(doc))
        out_list = list(doc)
        out_list[i] = _mutate(doc[i], rnd, depth + 1) if rnd.random() < 0.6 else rnd.choice(replacements)
        return out_list
    return rnd.choice(replacements)


def _exercise(md: ViewMetadata) -> None:
    """Use everything a caller may use: only InvalidMetadataError may come out."""
    for use in (
        lambda: md.to_json(),
        lambda: md.to_json(pretty=True),
        lambda: md.schemas,
        lambda: md.schema,
        lambda: md.current_version,
        lambda: md.sql_for("spark", fallback=True),
        lambda: md.history.version_at(10**12),
        lambda: validate(md),
    ):
        with contextlib.suppress(InvalidMetadataError):
            use()


@settings(max_examples=400, deadline=None)
@given(seed=st.sampled_from(SEEDS), rnd=st.randoms(use_true_random=False), rounds=st.integers(1, 4))
def test_mutated_documents_only_raise_invalid_metadata_error(seed: bytes, rnd: Any, rounds: int) -> None:
    doc = json.loads(seed)
    for _ in range(rounds):
        doc = _mutate(doc, rnd)
    try:
        md = ViewMetadata.from_json(json.dumps(doc))
    except InvalidMetadataError:
        return
    _exercise(md)


@settings(max_examples=400, deadline=None)
@given(seed=st.sampled_from(SEEDS), data=st.data())
def test_random_byte_damage_only_raises_invalid_metadata_error(seed: bytes, data: st.DataObject) -> None:
    raw = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 6))):
        position = data.draw(st.integers(0, len(raw) - 1))
        kind = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if kind == "flip":
            raw[position] = data.draw(st.integers(0, 255))
        elif kind == "cut":
            del raw[position:]
            if not raw:
                break
        else:
            raw[position:position] = data.draw(st.binary(min_size=1, max_size=4))
    try:
        md = ViewMetadata.from_json(bytes(raw))
    except InvalidMetadataError:
        return
    _exercise(md)


@given(st.binary(max_size=200))
def test_arbitrary_bytes_only_raise_invalid_metadata_error(raw: bytes) -> None:
    with pytest.raises(InvalidMetadataError):
        ViewMetadata.from_json(raw)
