"""The view metadata builder against Iceberg Java 1.10's ``ViewMetadata.Builder``.

Part 1 is our own version of every case of Java's ``TestViewMetadata`` (reference §6.2, cases 1-33),
one test function each, named after the Java test. Part 2 covers the builder rules of reference §1.2
that ``TestViewMetadata`` does not pin.

Timestamps are fixed values (Java uses ``System.currentTimeMillis()``) and ``_now_ms`` is patched
wherever the builder asks for the current time, so every expected state is exact.
"""

from __future__ import annotations

import re
import time
import uuid as uuidlib

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, LongType, NestedField, StringType

from iceview.errors import InvalidArgumentError, InvalidStateError, ValidationError
from iceview.spec import (
    AddSchema,
    AddViewVersion,
    AssignUUID,
    RemoveProperties,
    SetCurrentViewVersion,
    SetLocation,
    SetProperties,
    SQLRepresentation,
    UnknownRepresentation,
    UpgradeFormatVersion,
    VersionLogEntry,
    ViewMetadata,
    ViewVersion,
    apply,
)
from iceview.spec import builder as builder_module
from iceview.spec.builder import _expire_versions, _update_history, java_hash_set_order

TS = 1_700_000_000_000  # a fixed "creation time" for versions whose timestamp does not matter
NOW = 1_800_000_000_000  # what the patched clock returns
UUID = "fa6506c3-7681-40c8-86dc-e36561f83385"
DROP_ALLOWED = "replace.drop-dialect.allowed"
NUM_ENTRIES = "version.history.num-entries"


# ---------------------------------------------------------------------------------------- helpers


def schema_of(name: str = "x", schema_id: int = 0, field_id: int = 1) -> Schema:
    """Java's ``new Schema(schemaId, required(fieldId, name, long))``."""
    return Schema(NestedField(field_id, name, LongType(), required=True), schema_id=schema_id)


def schema_json(name: str = "x", schema_id: int = 0, field_id: int = 1) -> dict:
    return {
        "type": "struct",
        "schema-id": schema_id,
        "fields": [{"id": field_id, "name": name, "required": True, "type": "long"}],
    }


def new_view_version(version_id: int, sql: str, schema_id: int = 0, timestamp_ms: int = TS) -> ViewVersion:
    """Java's ``TestViewMetadata.newViewVersion``: catalog ``prod``, namespace ``default``, summary
    ``user=some-user``, one spark representation."""
    return ViewVersion(
        version_id=version_id,
        timestamp_ms=timestamp_ms,
        schema_id=schema_id,
        summary={"user": "some-user"},
        representations=(SQLRepresentation(sql, "spark"),),
        default_namespace=("default",),
        default_catalog="prod",
    )


def plain_version(
    version_id: int = 1,
    schema_id: int = 0,
    timestamp_ms: int = 23,
    representations: tuple = (),
    namespace: tuple[str, ...] = ("ns",),
) -> ViewVersion:
    """``ImmutableViewVersion.builder()`` with only the mandatory fields (empty summary)."""
    return ViewVersion(version_id, timestamp_ms, schema_id, {}, representations, namespace)


def spark(sql: str = "select * from tbl") -> SQLRepresentation:
    return SQLRepresentation(sql, "spark")


def trino(sql: str = "select * from tbl") -> SQLRepresentation:
    return SQLRepresentation(sql, "trino")


def dialect_version(*reps: SQLRepresentation, version_id: int = 1) -> ViewVersion:
    """The versions of the Java dialect-drop tests: empty namespace, schema 0."""
    return ViewVersion(version_id, TS, 0, {}, reps, ())


def exact(message: str) -> str:
    """A ``match`` pattern for exactly ``message``."""
    return "^" + re.escape(message) + "$"


def dialect_loss(previous: str, new: str) -> str:
    return exact(
        "Cannot replace view due to loss of view dialects (replace.drop-dialect.allowed=false):\n"
        f"Previous dialects: {previous}\n"
        f"New dialects: {new}"
    )


def assert_changes(metadata: ViewMetadata, expected: list) -> None:
    """The recorded changes are exactly ``expected``: same classes, same JSON (which includes the
    schema ids of ``AddSchema``, which PyIceberg's ``Schema.__eq__`` ignores) and equal objects
    (except ``AddSchema``, whose schema equality ignores the id)."""
    assert [type(c) for c in metadata.changes] == [type(e) for e in expected]
    assert [c.to_dict() for c in metadata.changes] == [e.to_dict() for e in expected]
    for got, want in zip(metadata.changes, expected, strict=True):
        if not isinstance(want, AddSchema):
            assert got == want


def ids(metadata: ViewMetadata) -> list[int]:
    return [v.version_id for v in metadata.versions]


def log(metadata: ViewMetadata) -> list[tuple[int, int]]:
    """The version log as ``(timestamp-ms, version-id)`` pairs."""
    return [(e.timestamp_ms, e.version_id) for e in metadata.version_log]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch the builder's clock; append to the returned list to move time forward."""
    times = [NOW]
    monkeypatch.setattr(builder_module, "_now_ms", lambda: times[-1])
    return times


def three_version_view(num_entries: str, current: int) -> tuple[ViewMetadata, list[ViewVersion]]:
    """Java's set-up for the history tests: num-entries, schema x, versions 1..3 added in one
    build, ``current`` made current."""
    v1 = new_view_version(1, "select * from ns.tbl", timestamp_ms=TS + 1)
    v2 = new_view_version(2, "select count(*) from ns.tbl", timestamp_ms=TS + 2)
    v3 = new_view_version(3, "select count(*) as count from ns.tbl", timestamp_ms=TS + 3)
    metadata = (
        ViewMetadata.builder()
        .set_properties({NUM_ENTRIES: num_entries})
        .set_location("location")
        .add_schema(schema_of())
        .add_version(v1)
        .add_version(v2)
        .add_version(v3)
        .set_current_version_id(current)
        .build()
    )
    return metadata, [v1, v2, v3]


# ============================================================ Part 1: TestViewMetadata, cases 1-33


def test_expiration() -> None:
    # 1. the versions' ids and timestamps purposely disagree: the decision is by id
    v1 = new_view_version(1, "select 1 as count", timestamp_ms=3000)
    v3 = new_view_version(3, "select count from t1", timestamp_ms=1000)
    v2 = new_view_version(2, "select count(1) as count from t2", timestamp_ms=2000)
    versions_by_id = {1: v1, 2: v2, 3: v3}

    assert _expire_versions(versions_by_id, 3, v1) == [v1, v3, v2]
    assert _expire_versions(versions_by_id, 2, v1) == [v1, v3]
    assert _expire_versions(versions_by_id, 1, v1) == [v1]
    # the current version is kept even when it has the lowest id; the rest are the highest ids
    assert _expire_versions(versions_by_id, 2, v2) == [v2, v3]
    assert _expire_versions(versions_by_id, 2, v3) == [v3, v2]


def test_update_history() -> None:
    # 2.
    one = VersionLogEntry(1001, 1)
    two = VersionLogEntry(1002, 2)
    three = VersionLogEntry(1003, 3)

    assert _update_history([one, two, three], {1, 2, 3}) == [one, two, three]
    # 1 is not retained: everything before it and it are dropped
    assert _update_history([three, two, one, two, three], {2, 3}) == [two, three]
    # 2 is not retained
    assert _update_history([one, two, three, one, three], {1, 3}) == [three, one, three]
    # the last entry refers to an expired version: nothing survives
    assert _update_history([one, two, three], {1, 2}) == []


def test_null_and_missing_fields() -> None:
    # 3.
    with pytest.raises(InvalidArgumentError, match=exact("Invalid location: null")):
        ViewMetadata.builder().build()

    with pytest.raises(InvalidArgumentError, match=exact("Invalid view: no versions were added")):
        ViewMetadata.builder().set_location("location").build()

    with pytest.raises(InvalidArgumentError, match=exact("Cannot set current version to unknown version: 1")):
        ViewMetadata.builder().set_location("location").set_current_version_id(1).build()

    with pytest.raises(InvalidArgumentError, match=exact("Cannot set uuid to null")):
        ViewMetadata.builder().assign_uuid(None).build()

    with pytest.raises(InvalidArgumentError, match=exact("Invalid location: null")):
        ViewMetadata.builder().set_location(None)


def test_unsupported_format_version() -> None:
    # 4. upgrading is accepted by the builder method and refused by build()
    with pytest.raises(InvalidArgumentError, match=exact("Unsupported format version: 23")):
        (
            ViewMetadata.builder()
            .upgrade_format_version(23)
            .set_location("location")
            .add_schema(schema_of())
            .add_version(plain_version())
            .set_current_version_id(1)
            .build()
        )

    with pytest.raises(InvalidArgumentError, match=exact("Cannot downgrade v1 view to v0")):
        ViewMetadata.builder().upgrade_format_version(0).set_location("location").set_current_version_id(
            1
        ).build()

    # the upgrade itself is recorded before build() refuses it
    builder = ViewMetadata.builder().upgrade_format_version(2).upgrade_format_version(2)
    assert builder._changes == [UpgradeFormatVersion(2)]
    with pytest.raises(InvalidArgumentError, match=exact("Cannot downgrade v2 view to v1")):
        builder.upgrade_format_version(1)


def test_empty_view_version() -> None:
    # 5.
    with pytest.raises(InvalidArgumentError, match=exact("Cannot set current version to unknown version: 1")):
        ViewMetadata.builder().set_location("location").set_current_version_id(1).build()


def test_empty_schemas() -> None:
    # 6.
    with pytest.raises(InvalidArgumentError, match=exact("Cannot add version with unknown schema: 1")):
        (
            ViewMetadata.builder()
            .set_location("location")
            .add_version(plain_version(schema_id=1))
            .set_current_version_id(1)
            .build()
        )


def test_invalid_current_version_id() -> None:
    # 7.
    with pytest.raises(
        InvalidArgumentError, match=exact("Cannot set current version to unknown version: 23")
    ):
        (
            ViewMetadata.builder()
            .set_location("location")
            .add_schema(schema_of())
            .add_version(plain_version())
            .set_current_version_id(23)
            .build()
        )


def test_invalid_current_schema_id() -> None:
    # 8. the schema is added with id 1 but re-id'd to 0, so neither 1 nor 23 exists
    builder = ViewMetadata.builder().set_location("location").add_schema(schema_of(schema_id=1))
    with pytest.raises(InvalidArgumentError, match=exact("Cannot add version with unknown schema: 23")):
        builder.add_version(plain_version(schema_id=23))
    with pytest.raises(InvalidArgumentError, match=exact("Cannot add version with unknown schema: 1")):
        builder.add_version(plain_version(schema_id=1))


def test_invalid_version_history_size_to_keep() -> None:
    # 9.
    with pytest.raises(
        InvalidArgumentError, match=exact("version.history.num-entries must be positive but was 0")
    ):
        (
            ViewMetadata.builder()
            .set_properties({NUM_ENTRIES: "0"})
            .set_location("location")
            .add_schema(schema_of(schema_id=1))
            .add_version(new_view_version(1, "select * from ns.tbl"))
            .add_version(new_view_version(2, "select count(*) from ns.tbl"))
            .add_version(new_view_version(3, "select count(*) as count from ns.tbl"))
            .set_current_version_id(3)
            .build()
        )

    with pytest.raises(
        InvalidArgumentError, match=exact("version.history.num-entries must be positive but was -3")
    ):
        (
            ViewMetadata.builder()
            .set_properties({NUM_ENTRIES: "-3"})
            .set_location("location")
            .add_schema(schema_of())
            .add_version(new_view_version(1, "select 1"))
            .set_current_version_id(1)
            .build()
        )


def test_view_version_history_normalization() -> None:
    # 10.
    original, (v1, v2, v3) = three_version_view("2", current=3)

    # the first build does not expire versions added in the builder
    assert original.versions == (v1, v2, v3)
    assert log(original) == [(v3.timestamp_ms, 3)]

    # a rebuild expires the oldest: current first, then descending ids
    rebuilt = ViewMetadata.build_from(original).build()
    assert rebuilt.versions == (v3, v2)
    assert log(rebuilt) == [(v3.timestamp_ms, 3)]
    assert rebuilt.changes == ()

    assert_changes(
        original,
        [
            SetProperties({NUM_ENTRIES: "2"}),
            SetLocation("location"),
            AddSchema(schema_of(schema_id=0), 1),
            AddViewVersion(v1.replace(schema_id=-1)),
            AddViewVersion(v2.replace(schema_id=-1)),
            AddViewVersion(v3.replace(schema_id=-1)),
            SetCurrentViewVersion(-1),
        ],
    )
    assert original.changes[2].schema.schema_id == 0


def test_view_version_history_is_correctly_retained(clock: list[int]) -> None:
    # 11.
    original, (v1, v2, v3) = three_version_view("2", current=3)
    assert original.versions == (v1, v2, v3)
    assert log(original) == [(v3.timestamp_ms, 3)]

    rebuilt = ViewMetadata.build_from(original).build()
    assert rebuilt.versions == (v3, v2)
    assert log(rebuilt) == [(v3.timestamp_ms, 3)]

    # v2 was not added in this build: its log entry has the current time
    updated = ViewMetadata.build_from(rebuilt).set_current_version_id(2).build()
    assert updated.versions == (v3, v2)
    assert updated.current_version_id == 2
    assert log(updated) == [(v3.timestamp_ms, 3), (NOW, 2)]
    assert_changes(updated, [SetCurrentViewVersion(2)])

    clock.append(NOW + 10)
    view = ViewMetadata.build_from(updated).set_current_version_id(3).build()
    assert view.versions == (v3, v2)
    assert log(view) == [(v3.timestamp_ms, 3), (NOW, 2), (NOW + 10, 3)]
    assert_changes(view, [SetCurrentViewVersion(3)])

    # version 1 has expired
    with pytest.raises(InvalidArgumentError, match=exact("Cannot set current version to unknown version: 1")):
        ViewMetadata.build_from(view).set_current_version_id(1).build()


def test_version_history_entry_maintain_correct_timeline(clock: list[int]) -> None:
    # 12.
    v1 = new_view_version(1, "select * from ns.tbl", timestamp_ms=1000)
    v2 = new_view_version(2, "select count(*) from ns.tbl", timestamp_ms=2000)
    v3 = new_view_version(3, "select count(*) as count from ns.tbl", timestamp_ms=3000)
    clock[:] = [5000]

    metadata = (
        ViewMetadata.builder()
        .set_location("location")
        .add_schema(schema_of())
        .add_version(v1)
        .add_version(v2)
        .set_current_version_id(1)
        .build()
    )
    assert log(metadata) == [(1000, 1)]

    # activating an existing version: the current time
    updated = ViewMetadata.build_from(metadata).set_current_version_id(2).build()
    assert log(updated) == [(1000, 1), (5000, 2)]

    # adding and activating in the same build: the version's own timestamp
    clock.append(6000)
    updated = ViewMetadata.build_from(updated).add_version(v3).set_current_version_id(3).build()
    assert log(updated) == [(1000, 1), (5000, 2), (3000, 3)]

    # a rollback: a new entry with the current time
    clock.append(7000)
    rolled_back = ViewMetadata.build_from(updated).set_current_version_id(1).build()
    assert log(rolled_back) == [(1000, 1), (5000, 2), (3000, 3), (7000, 1)]
    assert rolled_back.versions == (v1, v2, v3)


def test_version_history_entry_uses_the_real_clock() -> None:
    # 12, unpatched, as Java asserts it: a rollback's entry is later than every version timestamp
    v1 = new_view_version(1, "select * from ns.tbl", timestamp_ms=1000)
    v2 = new_view_version(2, "select count(*) from ns.tbl", timestamp_ms=2000)
    metadata = (
        ViewMetadata.builder()
        .set_location("location")
        .add_schema(schema_of())
        .add_version(v1)
        .add_version(v2)
        .set_current_version_id(1)
        .build()
    )
    before = time.time_ns() // 1_000_000
    updated = ViewMetadata.build_from(metadata).set_current_version_id(2).build()
    after = time.time_ns() // 1_000_000
    entry = updated.version_log[-1]
    assert entry.version_id == 2
    assert before <= entry.timestamp_ms <= after


def test_versions_added_in_current_build_are_retained() -> None:
    # 13.
    v1 = new_view_version(1, "select 1 as count", timestamp_ms=TS + 1)
    v2 = new_view_version(2, "select count from t1", timestamp_ms=TS + 2)
    v3 = new_view_version(3, "select count(1) as count from t2", timestamp_ms=TS + 3)

    metadata = (
        ViewMetadata.builder()
        .set_location("location")
        .add_schema(schema_of())
        .add_version(v1)
        .set_current_version_id(1)
        .set_properties({NUM_ENTRIES: "2"})
        .build()
    )
    assert metadata.versions == (v1,)

    # every version added in this build is kept, despite num-entries 2
    updated = ViewMetadata.build_from(metadata).add_version(v2).add_version(v3).build()
    assert updated.versions == (v1, v2, v3)
    assert updated.current_version_id == 1
    assert log(updated) == [(v1.timestamp_ms, 1)]
    # no schema was added in this build, so the versions are recorded with their real schema id
    assert_changes(updated, [AddViewVersion(v2), AddViewVersion(v3)])

    # a rebuild expires v2: current first, then the highest id
    updated = ViewMetadata.build_from(updated).build()
    assert updated.versions == (v1, v3)
    assert log(updated) == [(v1.timestamp_ms, 1)]


def test_view_metadata_and_metadata_changes() -> None:
    # 14.
    properties = {"key1": "prop1", "key2": "prop2"}
    schema_one = schema_of("x", schema_id=0)
    schema_two = schema_of("y", schema_id=1)
    v1 = new_view_version(1, "select * from ns.tbl", schema_id=0, timestamp_ms=TS + 1)
    v2 = new_view_version(2, "select count(*) from ns.tbl", schema_id=0, timestamp_ms=TS + 2)
    v3 = new_view_version(3, "select count(*) as count from ns.tbl", schema_id=1, timestamp_ms=TS + 3)

    metadata = (
        ViewMetadata.builder()
        .assign_uuid(UUID)
        .set_location("custom-location")
        .set_properties(properties)
        .add_schema(schema_one)
        .add_schema(schema_two)
        .add_version(v1)
        .add_version(v2)
        .add_version(v3)
        .set_current_version_id(3)
        .build()
    )

    assert metadata.uuid == UUID
    assert metadata.versions == (v1, v2, v3)
    assert log(metadata) == [(v3.timestamp_ms, 3)]
    assert metadata.current_version_id == 3
    assert metadata.current_version == v3
    assert metadata.format_version == 1
    assert metadata.schema_ids == (0, 1)
    assert [s.as_struct() for s in metadata.schemas] == [schema_one.as_struct(), schema_two.as_struct()]
    assert metadata.schema.as_struct() == schema_two.as_struct()
    assert metadata.current_schema_id == 1
    assert metadata.location == "custom-location"
    assert dict(metadata.properties) == properties

    assert_changes(
        metadata,
        [
            AssignUUID(UUID),
            SetLocation("custom-location"),
            SetProperties(properties),
            AddSchema(schema_of("x", schema_id=0), 1),
            AddSchema(schema_of("y", schema_id=1), 1),
            AddViewVersion(v1),  # schema 0 is not the last added schema (1)
            AddViewVersion(v2),
            AddViewVersion(v3.replace(schema_id=-1)),
            SetCurrentViewVersion(-1),
        ],
    )
    assert [c.schema.schema_id for c in metadata.changes[3:5]] == [0, 1]


def test_uuid_assignment() -> None:
    # 15.
    metadata = (
        ViewMetadata.builder()
        .assign_uuid(UUID)
        .set_location("custom-location")
        .add_schema(schema_of())
        .add_version(plain_version())
        .set_current_version_id(1)
        .build()
    )
    assert metadata.uuid == UUID

    # carried over by build_from, with no changes
    updated = ViewMetadata.build_from(metadata).build()
    assert updated.uuid == UUID
    assert updated.changes == ()

    # assigning the same uuid is a no-op
    updated = ViewMetadata.build_from(metadata).assign_uuid(UUID).build()
    assert updated.uuid == UUID
    assert updated.changes == ()

    with pytest.raises(InvalidArgumentError, match=exact("Cannot reassign uuid")):
        ViewMetadata.build_from(metadata).assign_uuid(str(uuidlib.uuid4())).build()

    # the same rule inside one fresh builder
    with pytest.raises(InvalidArgumentError, match=exact("Cannot reassign uuid")):
        ViewMetadata.builder().assign_uuid(UUID).assign_uuid(str(uuidlib.uuid4()))


def test_view_metadata_with_metadata_location() -> None:
    # 16.
    version = plain_version()

    with pytest.raises(
        InvalidArgumentError, match=exact("Cannot create view metadata with a metadata location and changes")
    ):
        (
            ViewMetadata.builder()
            .set_location("custom-location")
            .set_metadata_location("metadata-location")
            .add_schema(schema_of())
            .add_version(version)
            .set_current_version_id(1)
            .build()
        )

    # a metadata location without changes is fine
    base = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of())
        .add_version(version)
        .set_current_version_id(1)
        .build()
    )
    metadata = ViewMetadata.build_from(base).set_metadata_location("metadata-location").build()
    assert metadata.metadata_file_location == "metadata-location"
    assert metadata.changes == ()
    assert metadata == base


def test_view_version_id_reassignment() -> None:
    # 17. three different versions, all with id 1
    v1 = new_view_version(1, "select * from ns.tbl")
    v2 = new_view_version(1, "select count(*) from ns.tbl")
    v3 = new_view_version(1, "select count(*) as count from ns.tbl")

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of())
        .add_version(v1)
        .add_version(v2)
        .add_version(v3)
        .set_current_version_id(3)
        .build()
    )

    assert metadata.current_version == v3.replace(version_id=3)
    assert metadata.versions == (v1, v2.replace(version_id=2), v3.replace(version_id=3))
    assert [c.view_version.version_id for c in metadata.changes if isinstance(c, AddViewVersion)] == [1, 2, 3]


def test_view_version_deduplication() -> None:
    # 18. copies that differ only in their timestamp are the same version
    v1 = new_view_version(1, "select * from ns.tbl")
    v2 = new_view_version(1, "select count(*) from ns.tbl")
    v3 = new_view_version(1, "select count(*) as count from ns.tbl")

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of())
        .add_version(v1)
        .add_version(v2)
        .add_version(v3)
        .add_version(v1.replace(timestamp_ms=1000))
        .add_version(v2.replace(timestamp_ms=100))
        .add_version(v3.replace(timestamp_ms=10))
        .set_current_version_id(3)
        .build()
    )

    assert metadata.current_version == v3.replace(version_id=3)
    # the first copy wins, with its own timestamp
    assert metadata.versions == (v1, v2.replace(version_id=2), v3.replace(version_id=3))
    assert sum(isinstance(c, AddViewVersion) for c in metadata.changes) == 3
    assert log(metadata) == [(TS, 3)]


def test_view_version_deduplication_with_custom_summary() -> None:
    # 19.
    v1 = new_view_version(1, "select * from ns.tbl")
    v2 = new_view_version(1, "select count(*) from ns.tbl")
    v1_updated = v1.replace(timestamp_ms=1000, summary={"user": "some-user"})  # same summary
    v2_updated = v2.replace(summary={"user": "some-user", "key": "val"})  # a different summary

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of())
        .add_version(v1)
        .add_version(v2)
        .add_version(v1_updated)
        .add_version(v2_updated)
        .set_current_version_id(3)
        .build()
    )

    assert metadata.current_version == v2_updated.replace(version_id=3)
    assert metadata.versions == (v1, v2.replace(version_id=2), v2_updated.replace(version_id=3))


def test_schema_id_reassignment() -> None:
    # 20.
    schema_one = schema_of("x", schema_id=5)
    schema_two = schema_of("y", schema_id=7)
    schema_three = schema_of("z", schema_id=9)
    version = new_view_version(1, "select * from ns.tbl")

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_one)
        .add_schema(schema_two)
        .add_schema(schema_three)
        .set_current_version(version, schema_three)
        .build()
    )

    assert metadata.versions == (version.replace(schema_id=2),)
    assert [s.as_struct() for s in metadata.schemas] == [
        schema_one.as_struct(),
        schema_two.as_struct(),
        schema_three.as_struct(),
    ]
    assert list(metadata.schemas_by_id) == [0, 1, 2]
    assert [s.schema_id for s in metadata.schemas] == [0, 1, 2]
    assert metadata.to_dict()["schemas"] == [
        schema_json("x", 0),
        schema_json("y", 1),
        schema_json("z", 2),
    ]


def test_schema_deduplication() -> None:
    # 21.
    schema_one = schema_of("x", schema_id=5)
    schema_two = schema_of("y", schema_id=7)
    schema_three = schema_of("z", schema_id=9)
    version = new_view_version(1, "select * from ns.tbl")

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_one)
        .add_schema(schema_two)
        .add_schema(schema_three)
        .add_schema(schema_of("x", schema_id=6))
        .add_schema(schema_of("y", schema_id=8))
        .add_schema(schema_of("z", schema_id=10))
        .set_current_version(version, schema_three)
        .build()
    )

    assert metadata.versions == (version.replace(schema_id=2),)
    assert [s.as_struct() for s in metadata.schemas] == [
        schema_one.as_struct(),
        schema_two.as_struct(),
        schema_three.as_struct(),
    ]
    assert list(metadata.schemas_by_id) == [0, 1, 2]
    assert [type(c) for c in metadata.changes].count(AddSchema) == 3
    # the version's schema (2) is not the last added one when re-added (still 2): recorded as -1
    assert metadata.changes[-2] == AddViewVersion(version.replace(schema_id=-1))


def test_view_version_and_schema_id_reassignment() -> None:
    # 22.
    schema_one = schema_of("x", schema_id=5)
    schema_two = schema_of("y", schema_id=7)
    schema_three = schema_of("z", schema_id=9)
    v1 = new_view_version(1, "select * from ns.tbl", schema_id=5)
    v2 = new_view_version(1, "select count(*) from ns.tbl", schema_id=7)
    v3 = new_view_version(1, "select count(*) as count from ns.tbl", schema_id=9)

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_one)
        .add_schema(schema_two)
        .add_schema(schema_three)
        .set_current_version(v1, schema_one)
        .set_current_version(v2, schema_two)
        .set_current_version(v3, schema_three)
        .build()
    )

    assert metadata.current_version == v3.replace(version_id=3, schema_id=2)
    assert metadata.versions == (
        v1.replace(version_id=1, schema_id=0),
        v2.replace(version_id=2, schema_id=1),
        v3.replace(version_id=3, schema_id=2),
    )
    assert [s.as_struct() for s in metadata.schemas] == [
        schema_one.as_struct(),
        schema_two.as_struct(),
        schema_three.as_struct(),
    ]
    assert list(metadata.schemas_by_id) == [0, 1, 2]
    # only one log entry per build, for the final current version
    assert log(metadata) == [(TS, 3)]


def test_view_version_and_schema_deduplication() -> None:
    # 23.
    schema_one = schema_of("x", schema_id=5)
    schema_two = schema_of("y", schema_id=7)
    schema_three = schema_of("z", schema_id=9)
    v1 = new_view_version(1, "select * from ns.tbl", schema_id=5, timestamp_ms=TS + 1)
    v2 = new_view_version(1, "select count(*) from ns.tbl", schema_id=7, timestamp_ms=TS + 2)
    v3 = new_view_version(1, "select count(*) as count from ns.tbl", schema_id=9, timestamp_ms=TS + 3)

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_one)
        .add_schema(schema_two)
        .add_schema(schema_three)
        .set_current_version(v1, schema_one)
        .set_current_version(v2, schema_two)
        .set_current_version(v3, schema_three)
        .set_current_version(v3, schema_three)
        .set_current_version(v2, schema_two)
        .set_current_version(v1, schema_one)
        .build()
    )

    assert metadata.current_version == v1.replace(version_id=1, schema_id=0)
    assert metadata.versions == (
        v1.replace(version_id=1, schema_id=0),
        v2.replace(version_id=2, schema_id=1),
        v3.replace(version_id=3, schema_id=2),
    )
    assert [s.as_struct() for s in metadata.schemas] == [
        schema_one.as_struct(),
        schema_two.as_struct(),
        schema_three.as_struct(),
    ]
    assert list(metadata.schemas_by_id) == [0, 1, 2]
    # version 1 was added in this build: its own timestamp
    assert log(metadata) == [(TS + 1, 1)]
    # every deduplicated version was added in this build, so it is the last added version and the
    # switch is recorded as -1; re-setting the already current v3 records nothing
    assert [c for c in metadata.changes if isinstance(c, SetCurrentViewVersion)] == [
        SetCurrentViewVersion(-1)
    ] * 5
    assert sum(isinstance(c, AddViewVersion) for c in metadata.changes) == 3


def test_view_metadata_with_multiple_sql_for_same_dialect() -> None:
    # 24.
    version = plain_version(
        representations=(
            SQLRepresentation("select * from ns.tbl", "spark"),
            SQLRepresentation("select * from ns.tbl2", "SpArK"),
        )
    )
    with pytest.raises(
        InvalidArgumentError,
        match=exact("Invalid view version: Cannot add multiple queries for dialect spark"),
    ):
        (
            ViewMetadata.builder()
            .set_location("custom-location")
            .add_schema(schema_of())
            .add_version(version)
            .set_current_version_id(1)
            .build()
        )


def test_last_added_schema_failure() -> None:
    # 25.
    version = new_view_version(1, "select * from ns.tbl", schema_id=-1)
    with pytest.raises(
        ValidationError, match=exact("Cannot set last added schema: no schema has been added")
    ):
        ViewMetadata.builder().set_location("custom-location").add_version(version).set_current_version_id(
            1
        ).build()


def test_deduplicating_view_version_by_id_and_assigning_schema_id() -> None:
    # 26.
    v1 = new_view_version(1, "select * from ns.tbl", schema_id=0)
    v2 = new_view_version(2, "select x from ns.tbl", schema_id=1)
    v3 = new_view_version(2, "select count(*) from ns.tbl", schema_id=-1)

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of("x", field_id=1))
        .add_schema(schema_of("y", field_id=2))
        .add_version(v1)
        .add_version(v2)
        .add_version(v3)
        .set_current_version_id(3)
        .build()
    )

    assert ids(metadata) == [1, 2, 3]
    assert metadata.current_version.version_id == 3
    assert metadata.current_version.schema_id == 1
    assert metadata.versions == (v1, v2, v3.replace(version_id=3, schema_id=1))
    assert [c.view_version for c in metadata.changes if isinstance(c, AddViewVersion)] == [
        v1,
        v2.replace(schema_id=-1),
        v3.replace(version_id=3, schema_id=-1),
    ]


def _spark_view() -> ViewMetadata:
    return (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of())
        .set_current_version(dialect_version(spark()), schema_of())
        .build()
    )


def test_dropping_dialect_fails_by_default() -> None:
    # 27.
    metadata = _spark_view()
    with pytest.raises(InvalidStateError, match=dialect_loss("[spark]", "[trino]")):
        ViewMetadata.build_from(metadata).set_current_version(dialect_version(trino()), schema_of()).build()


def test_dropping_dialect_does_not_fail_when_allowed() -> None:
    # 28. the property is set in the same build, after set_current_version
    metadata = _spark_view()
    assert metadata.current_version.representations == (spark(),)

    updated = (
        ViewMetadata.build_from(metadata)
        .set_current_version(dialect_version(trino()), schema_of())
        .set_properties({DROP_ALLOWED: "true"})
        .build()
    )
    assert updated.current_version.representations == (trino(),)
    assert updated.current_version_id == 2
    assert ids(updated) == [1, 2]
    assert dict(updated.properties) == {DROP_ALLOWED: "true"}


def test_dropping_dialect_does_not_fail_when_keeping_previous_representation() -> None:
    # 29.
    metadata = _spark_view()
    updated = (
        ViewMetadata.build_from(metadata)
        .set_current_version(dialect_version(spark(), trino()), schema_of())
        .build()
    )
    assert updated.current_version.representations == (spark(), trino())
    assert updated.current_version_id == 2


def test_dropping_dialect_does_not_fail_when_adding_new_representation() -> None:
    # 30. a base version without representations never fails
    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of())
        .set_current_version(dialect_version(), schema_of())
        .build()
    )
    assert ViewMetadata.build_from(metadata).build().current_version.representations == ()

    updated = (
        ViewMetadata.build_from(metadata).set_current_version(dialect_version(spark()), schema_of()).build()
    )
    assert updated.current_version.representations == (spark(),)
    assert updated.current_version_id == 2


def test_dropping_dialect_fails_when_switching_view_version_id() -> None:
    # 31. only the base's current version and the final current version count
    spark_only = dialect_version(spark(), version_id=1)
    trino_only = dialect_version(trino(), version_id=2)
    trino_and_spark = dialect_version(trino(), spark(), version_id=3)

    metadata = (
        ViewMetadata.builder()
        .set_location("custom-location")
        .add_schema(schema_of())
        .add_version(spark_only)
        .add_version(trino_only)
        .add_version(trino_and_spark)
        .set_current_version_id(1)
        .build()
    )

    with pytest.raises(InvalidStateError, match=dialect_loss("[spark]", "[trino]")):
        (
            ViewMetadata.build_from(metadata)
            .set_current_version_id(3)
            .set_current_version_id(1)
            .set_current_version_id(2)
            .build()
        )

    with pytest.raises(InvalidStateError, match=dialect_loss("[trino, spark]", "[trino]")):
        (
            ViewMetadata.build_from(ViewMetadata.build_from(metadata).set_current_version_id(3).build())
            .set_current_version_id(1)
            .set_current_version_id(2)
            .build()
        )


def test_dropping_dialect_allowed_and_then_disallowed() -> None:
    # 32.
    metadata = _spark_view()
    updated = (
        ViewMetadata.build_from(metadata)
        .set_current_version(dialect_version(trino()), schema_of())
        .set_properties({DROP_ALLOWED: "true"})
        .build()
    )
    assert updated.current_version.representations == (trino(),)

    with pytest.raises(InvalidStateError, match=dialect_loss("[trino]", "[spark]")):
        (
            ViewMetadata.build_from(updated)
            .set_current_version_id(1)
            .set_properties({DROP_ALLOWED: "false"})
            .build()
        )


def test_current_view_version_is_never_expired() -> None:
    # 33.
    original, (v1, _v2, _v3) = three_version_view("1", current=1)
    assert len(original.versions) == 3
    assert log(original) == [(v1.timestamp_ms, 1)]

    metadata = ViewMetadata.build_from(original).build()
    assert metadata.versions == (v1,)
    assert metadata.current_version_id == 1
    assert metadata.current_version == v1
    assert log(metadata) == [(v1.timestamp_ms, 1)]


# ============================================================ Part 2: further rules of §1.2


def _one_version_view(**properties: str) -> ViewMetadata:
    builder = ViewMetadata.builder().set_location("location").add_schema(schema_of())
    if properties:
        builder.set_properties(properties)
    return (
        builder.add_version(new_view_version(1, "select 1", timestamp_ms=TS + 1))
        .set_current_version_id(1)
        .build()
    )


# iceview departs from Java here on purpose (docs/compatibility.md): Java's builder starts with
# currentVersionId = 0, so setCurrentVersionId(0) is a silent no-op and build() succeeds without a
# current version; iceview's builder has no current version until one is set.


def test_fresh_builder_has_no_current_version() -> None:
    with pytest.raises(InvalidArgumentError, match=exact("Cannot set current version to unknown version: 0")):
        ViewMetadata.builder().set_current_version_id(0)


def test_build_without_current_version_is_refused() -> None:
    builder = ViewMetadata.builder().set_location("location").add_schema(schema_of())
    builder.add_version(new_view_version(1, "select 1"))
    with pytest.raises(InvalidArgumentError, match=exact("Invalid view: no current version was set")):
        builder.build()


def test_version_zero_made_current_on_a_fresh_builder_is_recorded() -> None:
    v0 = new_view_version(0, "select 0")
    metadata = (
        ViewMetadata.builder()
        .set_location("location")
        .add_schema(schema_of())
        .add_version(v0)
        .set_current_version_id(0)
        .build()
    )
    assert metadata.current_version == v0
    assert metadata.version_log == (VersionLogEntry(v0.timestamp_ms, 0),)
    assert_changes(
        metadata,
        [
            SetLocation("location"),
            AddSchema(schema_of(), 1),
            AddViewVersion(v0.replace(schema_id=-1)),
            SetCurrentViewVersion(-1),
        ],
    )


def test_set_current_version_id_unknown_on_a_fresh_builder() -> None:
    with pytest.raises(InvalidArgumentError, match=exact("Cannot set current version to unknown version: 7")):
        ViewMetadata.builder().set_current_version_id(7)


def test_set_current_version_id_last_added_without_version() -> None:
    with pytest.raises(
        ValidationError, match=exact("Cannot set last version id: no current version id has been set")
    ):
        ViewMetadata.builder().set_current_version_id(-1)


def test_set_properties_with_the_same_value_still_records_a_change() -> None:
    base = _one_version_view(key="value")
    updated = ViewMetadata.build_from(base).set_properties({"key": "value"}).build()
    assert_changes(updated, [SetProperties({"key": "value"})])
    assert dict(updated.properties) == {"key": "value"}
    assert updated == base


def test_empty_property_updates_and_unknown_removals() -> None:
    base = _one_version_view(key="value", other="x")
    unchanged = ViewMetadata.build_from(base).set_properties({}).remove_properties([]).build()
    assert unchanged.changes == ()

    updated = ViewMetadata.build_from(base).remove_properties(["other", "missing"]).build()
    assert_changes(updated, [RemoveProperties(("other", "missing"))])
    assert dict(updated.properties) == {"key": "value"}

    updated = ViewMetadata.build_from(base).set_properties({"key": "new", "k2": "v2"}).build()
    assert dict(updated.properties) == {"key": "new", "other": "x", "k2": "v2"}


def test_set_location_and_format_version_no_ops() -> None:
    base = _one_version_view()
    same = ViewMetadata.build_from(base).set_location("location").upgrade_format_version(1).build()
    assert same.changes == ()
    moved = ViewMetadata.build_from(base).set_location("elsewhere").build()
    assert_changes(moved, [SetLocation("elsewhere")])
    assert moved.location == "elsewhere"


def test_reused_schema_records_no_change_and_becomes_the_last_added_schema() -> None:
    # Java's view builder keeps y as the last added schema here; iceview takes the reused one (issue
    # 32, docs/compatibility.md), so that a -1 after an add-schema means the schema it names
    schema_x = schema_of("x")
    schema_y = schema_of("y", schema_id=42)
    builder = ViewMetadata.builder().set_location("location")
    builder.add_schema(schema_x).add_schema(schema_y)
    changes_before = list(builder._changes)
    # x again, under another id: reused (0), no change recorded
    builder.add_schema(schema_of("x", schema_id=9))
    assert builder._changes == changes_before

    v1 = new_view_version(1, "select 1", schema_id=-1)
    metadata = builder.add_version(v1).set_current_version_id(1).build()
    assert metadata.versions == (v1.replace(schema_id=0),)
    assert metadata.schema_ids == (0, 1)
    assert_changes(
        metadata,
        [
            SetLocation("location"),
            AddSchema(schema_of("x", schema_id=0), 1),
            AddSchema(schema_of("y", schema_id=1), 1),
            AddViewVersion(v1.replace(schema_id=0)),  # 0 is not the last add-schema: its real id
            SetCurrentViewVersion(-1),
        ],
    )
    # the recorded changes replay to the same metadata
    assert apply(None, metadata.changes).versions == metadata.versions


def test_schema_reused_from_the_base_is_what_minus_one_means() -> None:
    # a writer's add-schema + add-view-version(-1), re-applied on a base where another writer already
    # added the same schema: the version takes that schema (Java: "no schema has been added")
    base = _one_version_view()
    new_schema = schema_of("z", schema_id=0)
    first = apply(
        base,
        [
            AddSchema(new_schema, 1),
            AddViewVersion(new_view_version(2, "select 2", schema_id=-1)),
            SetCurrentViewVersion(-1),
        ],
    )
    again = apply(
        first,
        [
            AddSchema(new_schema, 1),
            AddViewVersion(new_view_version(2, "select 3", schema_id=-1)),
            SetCurrentViewVersion(-1),
        ],
    )
    assert again.schema_ids == first.schema_ids
    assert again.current_version.schema_id == first.current_version.schema_id == 1
    assert again.current_version.representations == (SQLRepresentation("select 3", "spark"),)
    # no add-schema was recorded, so the version is recorded with its real schema id, not -1
    added = [c for c in again.changes if isinstance(c, AddViewVersion)]
    assert [c.view_version.schema_id for c in added] == [1]
    assert not any(isinstance(c, AddSchema) for c in again.changes)
    assert apply(first, again.changes).current_version.schema_id == 1


def test_version_reused_from_the_base_is_what_minus_one_means() -> None:
    # add-view-version of a version the base already has (another writer made the same one), then
    # set-current-view-version(-1): the reused version becomes current (Java: "no current version id
    # has been set"), recorded with its real id
    base = _one_version_view()
    v2 = new_view_version(2, "select 2", timestamp_ms=TS + 2)
    with_v2 = apply(base, [AddViewVersion(v2), SetCurrentViewVersion(-1)])
    back = apply(with_v2, [SetCurrentViewVersion(1)])
    again = apply(back, [AddViewVersion(v2.replace(version_id=7)), SetCurrentViewVersion(-1)])
    assert again.current_version_id == 2
    assert [c for c in again.changes if isinstance(c, SetCurrentViewVersion)] == [SetCurrentViewVersion(2)]


def test_reused_schema_in_set_current_version_records_real_schema_id() -> None:
    # set_current_version with a reused schema (0) while the last added schema is 1: the version is
    # recorded with its real schema id
    base = _one_version_view()
    v2 = new_view_version(2, "select 2", timestamp_ms=TS + 2)
    updated = (
        ViewMetadata.build_from(base)
        .add_schema(schema_of("y"))
        .set_current_version(v2, schema_of("x", schema_id=77))
        .build()
    )
    assert updated.schema_ids == (0, 1)
    assert updated.current_version == v2.replace(schema_id=0)
    assert_changes(
        updated,
        [
            AddSchema(schema_of("y", schema_id=1), 1),
            AddViewVersion(v2.replace(schema_id=0)),
            SetCurrentViewVersion(-1),
        ],
    )


def test_schema_identity_includes_doc_and_identifier_fields() -> None:
    # sameSchema compares the struct including docs, and the identifier field ids
    plain = Schema(NestedField(1, "id", IntegerType(), required=True), NestedField(2, "d", StringType()))
    documented = Schema(
        NestedField(1, "id", IntegerType(), required=True, doc="unique ID"), NestedField(2, "d", StringType())
    )
    keyed = Schema(
        NestedField(1, "id", IntegerType(), required=True),
        NestedField(2, "d", StringType()),
        identifier_field_ids=[1],
    )
    optional = Schema(NestedField(1, "id", IntegerType(), required=False), NestedField(2, "d", StringType()))
    builder = ViewMetadata.builder()
    for s in (plain, documented, keyed, optional, plain, documented, keyed, optional):
        builder.add_schema(s)
    assert [c.schema.schema_id for c in builder._changes] == [0, 1, 2, 3]
    assert builder._changes[2].to_dict()["schema"]["identifier-field-ids"] == [1]


def test_version_with_schema_id_minus_one_never_dedups() -> None:
    v = new_view_version(1, "select 1", schema_id=-1)
    metadata = (
        ViewMetadata.builder()
        .set_location("location")
        .add_schema(schema_of())
        .add_version(v)
        .add_version(v)  # raw schema id -1 differs from the stored 0: a new version
        .add_version(v.replace(schema_id=0))  # the same as version 1: deduplicated
        .set_current_version_id(-1)
        .build()
    )
    assert metadata.versions == (v.replace(schema_id=0), v.replace(version_id=2, schema_id=0))
    assert_changes(
        metadata,
        [
            SetLocation("location"),
            AddSchema(schema_of(), 1),
            AddViewVersion(v),
            AddViewVersion(v.replace(version_id=2)),
            # the deduplicated version 1 was added in this build, so it becomes the last added
            # version again and the switch to it is recorded as -1
            SetCurrentViewVersion(-1),
        ],
    )
    assert metadata.current_version_id == 1


def test_dedup_of_a_base_version_is_what_minus_one_means() -> None:
    # Java clears the last added version here ("Cannot set last version id: no current version id has
    # been set"); iceview takes the reused version (issue 32, docs/compatibility.md)
    base = _one_version_view()
    copy = base.versions[0].replace(timestamp_ms=5)
    builder = ViewMetadata.build_from(base).add_version(copy)
    assert builder._changes == []
    metadata = builder.set_current_version_id(-1).build()
    assert metadata.current_version_id == 1
    assert metadata.changes == ()


def test_dedup_with_version_already_current_adds_nothing(clock: list[int]) -> None:
    base = _one_version_view()
    same = base.versions[0].replace(version_id=17, timestamp_ms=99)
    updated = ViewMetadata.build_from(base).set_current_version(same, schema_of("x", schema_id=3)).build()
    assert updated.changes == ()
    assert updated.versions == base.versions
    assert updated.version_log == base.version_log
    assert updated.schema_ids == (0,)
    assert updated == base


def test_version_id_kept_unless_an_existing_id_is_not_lower() -> None:
    base = _one_version_view()
    builder = ViewMetadata.build_from(base)
    builder.add_version(new_view_version(10, "select 10"))  # 10 > 1: kept
    builder.add_version(new_view_version(5, "select 5"))  # 10 >= 5: 11
    builder.add_version(new_view_version(20, "select 20"))  # kept
    metadata = builder.set_current_version_id(-1).build()
    assert ids(metadata) == [1, 10, 11, 20]
    assert metadata.current_version_id == 20


def test_dialect_uniqueness_ignores_unknown_representations() -> None:
    unknown = UnknownRepresentation("other", {"type": "other"})
    version = plain_version(representations=(unknown, unknown, spark(), SQLRepresentation("q", "trino")))
    metadata = (
        ViewMetadata.builder()
        .set_location("l")
        .add_schema(schema_of())
        .add_version(version)
        .set_current_version_id(1)
        .build()
    )
    assert metadata.current_version.representations == version.representations


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x", 'For input string: "x"'),
        ("", 'For input string: ""'),
        ("1.5", 'For input string: "1.5"'),
        (" 2", 'For input string: " 2"'),
        ("2147483648", 'For input string: "2147483648"'),
    ],
)
def test_num_entries_not_an_integer(value: str, message: str) -> None:
    # Integer.parseInt's NumberFormatException is an IllegalArgumentException
    with pytest.raises(InvalidArgumentError, match=exact(message)):
        _one_version_view(**{NUM_ENTRIES: value})


def test_num_entries_java_integer_forms() -> None:
    assert _one_version_view(**{NUM_ENTRIES: "+3"}).properties[NUM_ENTRIES] == "+3"
    assert _one_version_view(**{NUM_ENTRIES: "0003"}).current_version_id == 1


def test_java_hash_set_order() -> None:
    assert java_hash_set_order(["spark", "trino"]) == ["trino", "spark"]
    assert java_hash_set_order(["trino", "spark"]) == ["trino", "spark"]
    # "a" (97) is in bucket 1; "Aa" and "BB" share hash 2112 (bucket 0) and keep insertion order
    assert java_hash_set_order(["a", "BB", "Aa"]) == ["BB", "Aa", "a"]
    assert java_hash_set_order(["Aa", "a", "BB"]) == ["Aa", "BB", "a"]
    assert java_hash_set_order(["b", "a", "b"]) == ["a", "b"]


def test_drop_dialect_message_uses_java_set_order_and_lower_case() -> None:
    base = (
        ViewMetadata.builder()
        .set_location("l")
        .add_schema(schema_of())
        .set_current_version(
            dialect_version(SQLRepresentation("q", "Spark"), SQLRepresentation("q", "TRINO")), schema_of()
        )
        .build()
    )
    with pytest.raises(InvalidStateError, match=dialect_loss("[trino, spark]", "[spark]")):
        ViewMetadata.build_from(base).set_current_version(dialect_version(spark()), schema_of()).build()
    # the comparison is case-insensitive: SPARK + trino keeps both dialects
    kept = (
        ViewMetadata.build_from(base)
        .set_current_version(dialect_version(SQLRepresentation("q2", "SPARK"), trino()), schema_of())
        .build()
    )
    assert kept.current_version_id == 2


@pytest.mark.parametrize("value", ["TRUE", "True", "true"])
def test_drop_dialect_allowed_is_case_insensitive(value: str) -> None:
    base = _spark_view()
    updated = (
        ViewMetadata.build_from(base)
        .set_properties({DROP_ALLOWED: value})
        .set_current_version(dialect_version(trino()), schema_of())
        .build()
    )
    assert updated.current_version.representations == (trino(),)


@pytest.mark.parametrize("value", ["yes", "1", "false", " true"])
def test_drop_dialect_allowed_anything_else_is_false(value: str) -> None:
    base = _spark_view()
    with pytest.raises(InvalidStateError, match=dialect_loss("[spark]", "[trino]")):
        (
            ViewMetadata.build_from(base)
            .set_properties({DROP_ALLOWED: value})
            .set_current_version(dialect_version(trino()), schema_of())
            .build()
        )


def test_drop_dialect_allowed_by_base_property_and_removed_in_build() -> None:
    # the final properties count: removing the property in the same build disallows the drop
    base = _spark_view()
    allowed = ViewMetadata.build_from(base).set_properties({DROP_ALLOWED: "true"}).build()
    with pytest.raises(InvalidStateError, match=dialect_loss("[spark]", "[trino]")):
        (
            ViewMetadata.build_from(allowed)
            .remove_properties([DROP_ALLOWED])
            .set_current_version(dialect_version(trino()), schema_of())
            .build()
        )


def test_drop_dialect_not_checked_for_a_new_view() -> None:
    metadata = (
        ViewMetadata.builder()
        .set_location("l")
        .add_schema(schema_of())
        .add_version(dialect_version(spark(), version_id=1))
        .add_version(dialect_version(trino(), version_id=2))
        .set_current_version_id(1)
        .set_current_version_id(2)
        .build()
    )
    assert metadata.current_version_id == 2


def test_build_checks_in_java_order() -> None:
    # location before versions; versions before the metadata-location rule
    with pytest.raises(InvalidArgumentError, match=exact("Invalid location: null")):
        ViewMetadata.builder().set_metadata_location("m").build()
    with pytest.raises(InvalidArgumentError, match=exact("Invalid view: no versions were added")):
        ViewMetadata.builder().set_location("l").set_metadata_location("m").build()
    # the dialect rule before num-entries
    base = _spark_view()
    with pytest.raises(InvalidStateError, match=dialect_loss("[spark]", "[trino]")):
        (
            ViewMetadata.build_from(base)
            .set_properties({NUM_ENTRIES: "0"})
            .set_current_version(dialect_version(trino()), schema_of())
            .build()
        )


def test_added_version_uses_own_timestamp_rollback_uses_now(clock: list[int]) -> None:
    v1 = new_view_version(1, "select 1", timestamp_ms=111)
    v2 = new_view_version(2, "select 2", timestamp_ms=222)
    base = (
        ViewMetadata.builder()
        .set_location("l")
        .add_schema(schema_of())
        .add_version(v1)
        .set_current_version_id(1)
        .build()
    )
    assert log(base) == [(111, 1)]

    clock.append(NOW + 1)
    added = ViewMetadata.build_from(base).add_version(v2).set_current_version_id(2).build()
    assert log(added) == [(111, 1), (222, 2)]
    assert_changes(added, [AddViewVersion(v2), SetCurrentViewVersion(-1)])

    clock.append(NOW + 2)
    rolled_back = ViewMetadata.build_from(added).set_current_version_id(1).build()
    assert log(rolled_back) == [(111, 1), (222, 2), (NOW + 2, 1)]
    assert_changes(rolled_back, [SetCurrentViewVersion(1)])


def test_one_history_entry_per_build(clock: list[int]) -> None:
    v1 = new_view_version(1, "select 1", timestamp_ms=111)
    v2 = new_view_version(2, "select 2", timestamp_ms=222)
    v3 = new_view_version(3, "select 3", timestamp_ms=333)
    base = (
        ViewMetadata.builder()
        .set_location("l")
        .add_schema(schema_of())
        .add_version(v1)
        .add_version(v2)
        .add_version(v3)
        .set_current_version_id(1)
        .build()
    )
    updated = ViewMetadata.build_from(base).set_current_version_id(2).set_current_version_id(3).build()
    assert log(updated) == [(111, 1), (NOW, 3)]
    assert_changes(updated, [SetCurrentViewVersion(2), SetCurrentViewVersion(3)])
    # switching away and back within one build still writes one entry for the final version
    back = ViewMetadata.build_from(base).set_current_version_id(2).set_current_version_id(1).build()
    assert log(back) == [(111, 1), (NOW, 1)]


def test_expiration_order_and_log_trimming(clock: list[int]) -> None:
    versions = [new_view_version(i, f"select {i}", timestamp_ms=100 * i) for i in range(1, 6)]
    builder = ViewMetadata.builder().set_location("l").add_schema(schema_of())
    for v in versions:
        builder.add_version(v)
    base = builder.set_current_version_id(1).build()
    assert ids(base) == [1, 2, 3, 4, 5]

    clock[:] = [1000]
    step = ViewMetadata.build_from(base).set_current_version_id(3).build()
    clock[:] = [2000]
    step = ViewMetadata.build_from(step).set_current_version_id(5).build()
    clock[:] = [3000]
    step = ViewMetadata.build_from(step).set_current_version_id(4).build()
    assert log(step) == [(100, 1), (1000, 3), (2000, 5), (3000, 4)]
    assert ids(step) == [1, 2, 3, 4, 5]  # no expiration: insertion order

    # num-entries 3 with current 2: keep 2, then the highest ids 5 and 4
    clock[:] = [4000]
    expired = (
        ViewMetadata.build_from(step).set_properties({NUM_ENTRIES: "3"}).set_current_version_id(2).build()
    )
    assert ids(expired) == [2, 5, 4]
    assert expired.versions == (versions[1], versions[4], versions[3])
    # the log keeps only what follows its last reference to an expired version (3)
    assert log(expired) == [(2000, 5), (3000, 4), (4000, 2)]

    # num-entries 2 with current 5 (the highest): 5, then 4
    clock[:] = [5000]
    again = ViewMetadata.build_from(step).set_properties({NUM_ENTRIES: "2"}).set_current_version_id(5).build()
    assert ids(again) == [5, 4]
    assert log(again) == [(2000, 5), (3000, 4), (5000, 5)]


def test_no_expiration_at_exactly_num_entries() -> None:
    base, _ = three_version_view("3", current=1)
    rebuilt = ViewMetadata.build_from(base).build()
    assert ids(rebuilt) == [1, 2, 3]


def test_default_num_entries_is_ten() -> None:
    builder = ViewMetadata.builder().set_location("l").add_schema(schema_of())
    for i in range(1, 13):
        builder.add_version(new_view_version(i, f"select {i}"))
    base = builder.set_current_version_id(1).build()
    assert len(base.versions) == 12
    rebuilt = ViewMetadata.build_from(base).build()
    assert ids(rebuilt) == [1, 12, 11, 10, 9, 8, 7, 6, 5, 4]


def test_schemas_never_expire() -> None:
    builder = ViewMetadata.builder().set_location("l").set_properties({NUM_ENTRIES: "1"})
    for i, name in enumerate(["a", "b", "c"], start=1):
        builder.set_current_version(new_view_version(i, f"select {name}"), schema_of(name))
    base = builder.build()
    assert ids(base) == [1, 2, 3]
    assert [v.schema_id for v in base.versions] == [0, 1, 2]

    rebuilt = ViewMetadata.build_from(base).build()
    assert ids(rebuilt) == [3]
    assert rebuilt.schema_ids == (0, 1, 2)
    assert [s.as_struct() for s in rebuilt.schemas] == [schema_of(n).as_struct() for n in "abc"]


def test_build_from_starts_with_empty_changes_and_no_metadata_location() -> None:
    base = _one_version_view(key="v")
    assert base.changes != ()
    located = ViewMetadata.build_from(base).set_metadata_location("s3://b/m/00001.metadata.json").build()
    assert located.metadata_file_location == "s3://b/m/00001.metadata.json"

    rebuilt = ViewMetadata.build_from(located).build()
    assert rebuilt.changes == ()
    assert rebuilt.metadata_file_location is None
    assert rebuilt == base

    # a parsed file: its location is not carried over either
    parsed = ViewMetadata.from_json(base.to_json(), metadata_location="file:/m/00000-x.metadata.json")
    assert parsed.metadata_file_location == "file:/m/00000-x.metadata.json"
    from_parsed = ViewMetadata.build_from(parsed).set_properties({"k": "v2"}).build()
    assert from_parsed.metadata_file_location is None
    assert_changes(from_parsed, [SetProperties({"k": "v2"})])


def test_uuid_generated_when_none_assigned() -> None:
    first = _one_version_view()
    second = _one_version_view()
    assert str(uuidlib.UUID(first.uuid)) == first.uuid
    assert uuidlib.UUID(first.uuid).version == 4
    assert first.uuid != second.uuid
    assert not any(isinstance(c, AssignUUID) for c in first.changes)
    assert_changes(
        first,
        [
            SetLocation("location"),
            AddSchema(schema_of(), 1),
            AddViewVersion(new_view_version(1, "select 1", schema_id=-1, timestamp_ms=TS + 1)),
            SetCurrentViewVersion(-1),
        ],
    )
    # build_from keeps it
    assert ViewMetadata.build_from(first).build().uuid == first.uuid


def test_metadata_location_with_changes_is_refused() -> None:
    base = _one_version_view()
    with pytest.raises(
        InvalidArgumentError, match=exact("Cannot create view metadata with a metadata location and changes")
    ):
        ViewMetadata.build_from(base).set_metadata_location("m").set_properties({"a": "b"}).build()
    # set_metadata_location records no change
    assert ViewMetadata.build_from(base).set_metadata_location("m")._changes == []


def test_catalog_create_shape() -> None:
    # what BaseMetastoreViewCatalog.create produces (reference §3.2): schema id 5 becomes 0
    schema = Schema(
        NestedField(3, "id", IntegerType(), required=True, doc="unique ID"),
        NestedField(4, "data", StringType(), required=True),
        schema_id=5,
    )
    version = ViewVersion(1, 4242, 5, {"engine-name": "spark"}, (spark("select * from t"),), ("ns",))
    metadata = (
        ViewMetadata.builder()
        .set_properties({"key1": "v1"})
        .set_location("warehouse/ns/view")
        .set_current_version(version, schema)
        .build()
    )
    assert metadata.schema_ids == (0,)
    assert metadata.current_version == version.replace(schema_id=0)
    assert metadata.current_version.operation == "create"
    assert log(metadata) == [(4242, 1)]
    assert [c.to_dict()["action"] for c in metadata.changes] == [
        "set-properties",
        "set-location",
        "add-schema",
        "add-view-version",
        "set-current-view-version",
    ]
    assert metadata.changes[2].to_dict() == {
        "action": "add-schema",
        "schema": {
            "type": "struct",
            "schema-id": 0,
            "fields": [
                {"id": 3, "name": "id", "required": True, "type": "int", "doc": "unique ID"},
                {"id": 4, "name": "data", "required": True, "type": "string"},
            ],
        },
        "last-column-id": 4,
    }
    assert metadata.changes[3] == AddViewVersion(version.replace(schema_id=-1))
    assert metadata.changes[4] == SetCurrentViewVersion(-1)


def test_assign_uuid_must_be_a_uuid() -> None:
    # stricter than Java, which accepts any string (docs/compatibility.md)
    with pytest.raises(InvalidArgumentError, match=exact("Invalid uuid: 'my-view' is not a UUID")):
        ViewMetadata.builder().assign_uuid("my-view")


def test_assign_same_non_uuid_of_a_loaded_view_is_a_no_op() -> None:
    text = _one_version_view(key="v").to_json()
    base = ViewMetadata.from_json(re.sub(r'"view-uuid":"[^"]*"', '"view-uuid":"view-1"', text))
    assert base.uuid == "view-1"
    updated = ViewMetadata.build_from(base).assign_uuid("view-1").build()
    assert updated.changes == ()
    assert updated.uuid == "view-1"


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (
            plain_version(representations=(SQLRepresentation("", "spark"),)),
            "Invalid view version: blank SQL for dialect spark",
        ),
        (
            plain_version(representations=(SQLRepresentation(" \n", "spark"),)),
            "Invalid view version: blank SQL for dialect spark",
        ),
        (
            plain_version(representations=(SQLRepresentation("select 1", ""),)),
            "Invalid view version: blank dialect",
        ),
        (plain_version(timestamp_ms=-1), "Invalid view version: negative timestamp-ms -1"),
    ],
    ids=["empty-sql", "blank-sql", "empty-dialect", "negative-timestamp"],
)
def test_add_version_refuses_what_validate_would_flag(version: ViewVersion, message: str) -> None:
    # stricter than Java, which accepts these (docs/compatibility.md)
    builder = ViewMetadata.builder().set_location("l").add_schema(schema_of())
    with pytest.raises(InvalidArgumentError, match=exact(message)):
        builder.add_version(version)


def test_version_id_minus_one_is_refused() -> None:
    # found by hypothesis: Java accepts it, then setCurrentVersionId(-1) recurses forever
    builder = ViewMetadata.builder().set_location("l")
    with pytest.raises(
        InvalidArgumentError,
        match=exact("Invalid view version: version id -1 is reserved for the last added version"),
    ):
        builder.set_current_version(plain_version(version_id=-1), schema_of())
    v = plain_version(version_id=-1)
    builder.add_schema(schema_of()).add_version(plain_version(version_id=1))
    assert (
        builder.add_version(v.replace(representations=(SQLRepresentation("select 2", "spark"),))) is builder
    )
    assert builder.set_current_version_id(-1).build().current_version_id == 2


def test_dialect_drop_error_is_typed_and_carries_the_sets() -> None:
    from iceview.errors import DialectDropError

    base = (
        ViewMetadata.builder()
        .set_location("l")
        .set_current_version(
            plain_version(representations=(SQLRepresentation("a", "spark"), SQLRepresentation("b", "trino"))),
            schema_of(),
        )
        .build()
    )
    builder = ViewMetadata.build_from(base).set_current_version(
        plain_version(version_id=2, representations=(SQLRepresentation("c", "trino"),)), schema_of()
    )
    with pytest.raises(DialectDropError) as info:
        builder.build()
    assert isinstance(info.value, InvalidStateError)
    assert (info.value.previous, info.value.new) == (["trino", "spark"], ["trino"])
