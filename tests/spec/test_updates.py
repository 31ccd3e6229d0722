"""View updates and the view requirement: their REST JSON forms (reference §5, §8 items 12 and 28)
and :func:`iceview.spec.apply`, which replays them on a base as a REST server does."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, LongType, NestedField, StringType

from iceview.errors import (
    CommitFailedError,
    InvalidArgumentError,
    InvalidMetadataError,
    InvalidStateError,
    InvalidUpdateError,
    ValidationError,
)
from iceview.spec import (
    AddSchema,
    AddViewVersion,
    AssertViewUUID,
    AssignUUID,
    RemoveProperties,
    SetCurrentViewVersion,
    SetLocation,
    SetProperties,
    SQLRepresentation,
    UpgradeFormatVersion,
    ViewMetadata,
    ViewVersion,
    apply,
    requirement_from_dict,
    update_from_dict,
)
from iceview.spec import builder as builder_module

UUID = "fa6506c3-7681-40c8-86dc-e36561f83385"
OTHER_UUID = "0b8a7d1e-7a0c-4a2e-9b54-0d9f3c2c6a11"
NOW = 1_800_000_000_000


def compact(value: object) -> str:
    """JSON text as Java writes it: compact, keys in the order given."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def exact(message: str) -> str:
    return "^" + re.escape(message) + "$"


def schema_of(name: str = "x", schema_id: int = 0, field_id: int = 1) -> Schema:
    return Schema(NestedField(field_id, name, LongType(), required=True), schema_id=schema_id)


def version(
    version_id: int, sql: str, schema_id: int = 0, timestamp_ms: int = 1000, dialect: str = "spark"
) -> ViewVersion:
    return ViewVersion(
        version_id,
        timestamp_ms,
        schema_id,
        {"engine-name": "spark"},
        (SQLRepresentation(sql, dialect),),
        ("default",),
        "prod",
    )


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    times = [NOW]
    monkeypatch.setattr(builder_module, "_now_ms", lambda: times[-1])
    return times


def base_view(**properties: str) -> ViewMetadata:
    builder = ViewMetadata.builder().assign_uuid(UUID).set_location("s3://bucket/ns/view")
    if properties:
        builder.set_properties(properties)
    return builder.set_current_version(version(1, "select 1", timestamp_ms=1001), schema_of()).build()


def without_uuid(metadata: ViewMetadata) -> dict:
    out = metadata.to_dict()
    del out["view-uuid"]
    return out


def changes_json(metadata: ViewMetadata) -> list[str]:
    return [compact(c.to_dict()) for c in metadata.changes]


# ------------------------------------------------------------------------------ JSON forms

DOCUMENTED_SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=True, doc="unique ID"),
    NestedField(2, "data", StringType(), required=False),
    schema_id=3,
    identifier_field_ids=[1],
)

JSON_FORMS = [
    pytest.param(AssignUUID(UUID), f'{{"action":"assign-uuid","uuid":"{UUID}"}}', id="assign-uuid"),
    pytest.param(
        UpgradeFormatVersion(1), '{"action":"upgrade-format-version","format-version":1}', id="upgrade"
    ),
    pytest.param(
        AddSchema(DOCUMENTED_SCHEMA, 2),
        '{"action":"add-schema","schema":{"type":"struct","schema-id":3,"identifier-field-ids":[1],'
        '"fields":[{"id":1,"name":"id","required":true,"type":"int","doc":"unique ID"},'
        '{"id":2,"name":"data","required":false,"type":"string"}]},"last-column-id":2}',
        id="add-schema",
    ),
    pytest.param(
        SetLocation("s3://bucket/ns/v"),
        '{"action":"set-location","location":"s3://bucket/ns/v"}',
        id="location",
    ),
    pytest.param(
        SetProperties({"b": "2", "a": "1"}),
        '{"action":"set-properties","updates":{"b":"2","a":"1"}}',
        id="set-properties",
    ),
    pytest.param(
        RemoveProperties(("b", "a")),
        '{"action":"remove-properties","removals":["b","a"]}',
        id="remove-properties",
    ),
    pytest.param(
        AddViewVersion(version(2, "select ü", schema_id=-1, timestamp_ms=1234)),
        '{"action":"add-view-version","view-version":{"version-id":2,"timestamp-ms":1234,"schema-id":-1,'
        '"summary":{"engine-name":"spark"},"default-catalog":"prod","default-namespace":["default"],'
        '"representations":[{"type":"sql","sql":"select ü","dialect":"spark"}]}}',
        id="add-view-version",
    ),
    pytest.param(
        AddViewVersion(ViewVersion(1, 5, 0, {}, (), ())),
        '{"action":"add-view-version","view-version":{"version-id":1,"timestamp-ms":5,"schema-id":0,'
        '"summary":{},"default-namespace":[],"representations":[]}}',
        id="add-view-version-minimal",
    ),
    pytest.param(
        SetCurrentViewVersion(-1),
        '{"action":"set-current-view-version","view-version-id":-1}',
        id="set-current-last-added",
    ),
    pytest.param(
        SetCurrentViewVersion(7),
        '{"action":"set-current-view-version","view-version-id":7}',
        id="set-current",
    ),
]


@pytest.mark.parametrize(("update", "text"), JSON_FORMS)
def test_update_to_dict_is_the_rest_json(update: object, text: str) -> None:
    d = update.to_dict()  # type: ignore[attr-defined]
    assert next(iter(d)) == "action"
    assert compact(d) == text


@pytest.mark.parametrize(("update", "text"), JSON_FORMS)
def test_update_from_json_text_round_trip(update: object, text: str) -> None:
    parsed = update_from_dict(json.loads(text))
    assert type(parsed) is type(update)
    assert compact(parsed.to_dict()) == text
    if isinstance(update, AddSchema):
        # PyIceberg's Schema equality ignores the schema id: compare the id separately
        assert parsed.schema == update.schema
        assert parsed.schema.schema_id == update.schema.schema_id
        assert parsed.last_column_id == update.last_column_id
    else:
        assert parsed == update


@pytest.mark.parametrize(
    ("update", "text"),
    JSON_FORMS,
)
def test_update_from_dict_of_to_dict_round_trip(update: object, text: str) -> None:
    parsed = update_from_dict(update.to_dict())  # type: ignore[attr-defined]
    assert type(parsed) is type(update)
    assert compact(parsed.to_dict()) == text


def test_add_schema_without_last_column_id_is_read() -> None:
    parsed = update_from_dict(
        {
            "action": "add-schema",
            "schema": {
                "type": "struct",
                "schema-id": 4,
                "fields": [{"id": 7, "name": "x", "required": True, "type": "long"}],
            },
        }
    )
    assert isinstance(parsed, AddSchema)
    assert parsed.schema.schema_id == 4
    assert parsed.schema.as_struct() == Schema(NestedField(7, "x", LongType(), required=True)).as_struct()


def test_add_schema_read_without_last_column_id_writes_it() -> None:
    parsed = update_from_dict(
        {
            "action": "add-schema",
            "schema": {
                "type": "struct",
                "schema-id": 4,
                "fields": [{"id": 7, "name": "x", "required": True, "type": "long"}],
            },
        }
    )
    assert parsed.to_dict()["last-column-id"] == 7


def test_action_is_read_case_insensitively() -> None:
    assert update_from_dict({"action": "Assign-UUID", "uuid": UUID}) == AssignUUID(UUID)
    assert update_from_dict(
        {"action": "SET-CURRENT-VIEW-VERSION", "view-version-id": 3}
    ) == SetCurrentViewVersion(3)


def test_legacy_property_field_names_are_read() -> None:
    assert update_from_dict({"action": "set-properties", "updated": {"a": "1"}}) == SetProperties({"a": "1"})
    assert update_from_dict({"action": "remove-properties", "removed": ["a", "b"]}) == RemoveProperties(
        ("a", "b")
    )
    # when both are present the REST names win
    assert update_from_dict(
        {"action": "set-properties", "updated": {"old": "1"}, "updates": {"new": "2"}}
    ) == SetProperties({"new": "2"})
    assert update_from_dict(
        {"action": "remove-properties", "removed": ["old"], "removals": ["new"]}
    ) == RemoveProperties(("new",))
    # and the legacy names are never written
    assert compact(SetProperties({"a": "1"}).to_dict()) == '{"action":"set-properties","updates":{"a":"1"}}'
    assert compact(RemoveProperties(("a",)).to_dict()) == '{"action":"remove-properties","removals":["a"]}'


@pytest.mark.parametrize("action", ["frobnicate", "add-snapshot", "set-current-schema"])
def test_unknown_action_is_an_error(action: str) -> None:
    # Java's MetadataUpdateParser throws for any action it does not know; table-only actions are
    # not view updates here
    with pytest.raises(InvalidMetadataError) as e:
        update_from_dict({"action": action, "uuid": UUID})
    assert action in e.value.message
    assert e.value.path == "$.action"


def test_malformed_updates_are_errors() -> None:
    with pytest.raises(InvalidMetadataError):
        update_from_dict(["assign-uuid"])
    with pytest.raises(InvalidMetadataError) as e:
        update_from_dict({"uuid": UUID})
    assert e.value.path == "$.action"
    with pytest.raises(InvalidMetadataError) as e:
        update_from_dict({"action": "set-current-view-version", "view-version-id": "3"})
    assert e.value.path == "$.view-version-id"
    with pytest.raises(InvalidMetadataError) as e:
        update_from_dict({"action": "add-view-version", "view-version": {"version-id": 1}})
    assert e.value.path.startswith("$.view-version")


def test_requirement_json_form_and_round_trip() -> None:
    requirement = AssertViewUUID(UUID)
    assert compact(requirement.to_dict()) == f'{{"type":"assert-view-uuid","uuid":"{UUID}"}}'
    assert requirement_from_dict(requirement.to_dict()) == requirement
    assert requirement_from_dict({"type": "ASSERT-VIEW-UUID", "uuid": UUID}) == requirement
    with pytest.raises(InvalidMetadataError) as e:
        requirement_from_dict({"type": "assert-table-uuid", "uuid": UUID})
    assert "assert-table-uuid" in e.value.message


def test_rest_replace_request_body() -> None:
    # reference §8 item 28: a replace sends the uuid requirement and the builder's changes
    base = base_view()
    updated = (
        ViewMetadata.build_from(base)
        .set_properties({"comment": "c"})
        .set_current_version(version(2, "select 2", timestamp_ms=2002), schema_of("y"))
        .build()
    )
    body = {
        "requirements": [AssertViewUUID(base.uuid).to_dict()],
        "updates": [c.to_dict() for c in updated.changes],
    }
    assert json.loads(compact(body)) == {
        "requirements": [{"type": "assert-view-uuid", "uuid": UUID}],
        "updates": [
            {"action": "set-properties", "updates": {"comment": "c"}},
            {
                "action": "add-schema",
                "schema": {
                    "type": "struct",
                    "schema-id": 1,
                    "fields": [{"id": 1, "name": "y", "required": True, "type": "long"}],
                },
                "last-column-id": 1,
            },
            {
                "action": "add-view-version",
                "view-version": {
                    "version-id": 2,
                    "timestamp-ms": 2002,
                    "schema-id": -1,
                    "summary": {"engine-name": "spark"},
                    "default-catalog": "prod",
                    "default-namespace": ["default"],
                    "representations": [{"type": "sql", "sql": "select 2", "dialect": "spark"}],
                },
            },
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }


# ------------------------------------------------------------------------------ apply


def replay_and_compare(base: ViewMetadata | None, built: ViewMetadata, *, compare_uuid: bool = True) -> None:
    """Applying ``built.changes`` to ``base`` gives ``built`` again, directly and after a trip
    through JSON text, and records the same changes."""
    through_json = [update_from_dict(json.loads(compact(c.to_dict()))) for c in built.changes]
    for updates in (built.changes, through_json):
        replayed = apply(base, updates)
        if compare_uuid:
            assert replayed.to_dict() == built.to_dict()
            assert replayed == built
        else:
            assert without_uuid(replayed) == without_uuid(built)
        assert changes_json(replayed) == changes_json(built)
        assert replayed.metadata_file_location is None


def test_apply_create_from_none_with_uuid() -> None:
    created = base_view(comment="a view")
    assert [type(c) for c in created.changes] == [
        AssignUUID,
        SetLocation,
        SetProperties,
        AddSchema,
        AddViewVersion,
        SetCurrentViewVersion,
    ]
    replay_and_compare(None, created)


def test_apply_create_from_none_generates_uuid() -> None:
    created = (
        ViewMetadata.builder()
        .set_properties({"k": "v"})
        .set_location("loc")
        .set_current_version(version(1, "select 1"), schema_of(schema_id=5))
        .build()
    )
    assert not any(isinstance(c, AssignUUID) for c in created.changes)
    replay_and_compare(None, created, compare_uuid=False)
    assert apply(None, created.changes).uuid != created.uuid


def test_apply_replace_with_new_schema_and_version() -> None:
    base = base_view(keep="1")
    updated = (
        ViewMetadata.build_from(base)
        .set_properties({"comment": "new"})
        .set_current_version(version(2, "select y", timestamp_ms=2002, dialect="spark"), schema_of("y"))
        .build()
    )
    assert updated.schema_ids == (0, 1)
    assert [(e.timestamp_ms, e.version_id) for e in updated.version_log] == [(1001, 1), (2002, 2)]
    replay_and_compare(base, updated)


def test_apply_replace_reusing_schema_records_real_schema_id() -> None:
    base = base_view()
    updated = ViewMetadata.build_from(base).set_current_version(version(2, "select 2"), schema_of()).build()
    assert [c.to_dict() for c in updated.changes] == [
        AddViewVersion(version(2, "select 2", schema_id=0)).to_dict(),
        {"action": "set-current-view-version", "view-version-id": -1},
    ]
    replay_and_compare(base, updated)


def test_apply_rollback(clock: list[int]) -> None:
    base = base_view()
    v2 = (
        ViewMetadata.build_from(base)
        .set_current_version(version(2, "select 2", timestamp_ms=2002), schema_of())
        .build()
    )
    rolled_back = ViewMetadata.build_from(v2).set_current_version_id(1).build()
    assert [c.to_dict() for c in rolled_back.changes] == [
        {"action": "set-current-view-version", "view-version-id": 1}
    ]
    assert [(e.timestamp_ms, e.version_id) for e in rolled_back.version_log] == [
        (1001, 1),
        (2002, 2),
        (NOW, 1),
    ]
    replay_and_compare(v2, rolled_back)


def test_apply_properties_location_and_expiration(clock: list[int]) -> None:
    builder = ViewMetadata.builder().assign_uuid(UUID).set_location("loc")
    builder.add_schema(schema_of())
    for i in range(1, 5):
        builder.add_version(version(i, f"select {i}", timestamp_ms=100 * i))
    base = builder.set_current_version_id(4).build()

    updated = (
        ViewMetadata.build_from(base)
        .set_properties({"version.history.num-entries": "2", "a": "1"})
        .remove_properties(["a", "missing"])
        .set_location("loc2")
        .set_current_version_id(2)
        .build()
    )
    assert [v.version_id for v in updated.versions] == [2, 4]
    assert [(e.timestamp_ms, e.version_id) for e in updated.version_log] == [(400, 4), (NOW, 2)]
    assert dict(updated.properties) == {"version.history.num-entries": "2"}
    replay_and_compare(base, updated)


def test_apply_dedup_of_existing_version(clock: list[int]) -> None:
    base = base_view()
    two = (
        ViewMetadata.build_from(base)
        .set_current_version(version(2, "select 2", timestamp_ms=2002), schema_of())
        .build()
    )
    # back to a copy of version 1 (another id and timestamp): deduplicated, nothing added
    back = (
        ViewMetadata.build_from(two)
        .set_current_version(version(9, "select 1", timestamp_ms=9), schema_of())
        .build()
    )
    assert [c.to_dict() for c in back.changes] == [
        {"action": "set-current-view-version", "view-version-id": 1}
    ]
    assert [v.version_id for v in back.versions] == [1, 2]
    # a switch to an existing version is a rollback: its log entry has the current time
    assert [(e.timestamp_ms, e.version_id) for e in back.version_log] == [(1001, 1), (2002, 2), (NOW, 1)]
    replay_and_compare(two, back)


def test_apply_without_updates_rebuilds_the_base() -> None:
    base = base_view(k="v")
    rebuilt = apply(base, [])
    assert rebuilt == base
    assert rebuilt.to_dict() == base.to_dict()
    assert rebuilt.changes == ()


def test_apply_does_not_change_the_base() -> None:
    base = base_view()
    before = base.to_json()
    apply(base, [SetProperties({"a": "b"}), SetLocation("elsewhere")])
    assert base.to_json() == before
    assert base.properties == {}


def test_apply_resolves_sentinels_or_raises_java_messages() -> None:
    base = base_view()
    cases: list[tuple[type[Exception], str, str, list[Any]]] = [
        (
            ValidationError,
            "Cannot set last version id: no current version id has been set",
            "set-current-view-version",
            [SetCurrentViewVersion(-1)],
        ),
        (
            ValidationError,
            "Cannot set last added schema: no schema has been added",
            "add-view-version",
            [AddViewVersion(version(2, "select 2", schema_id=-1))],
        ),
        (
            InvalidArgumentError,
            "Cannot set current version to unknown version: 9",
            "set-current-view-version",
            [SetCurrentViewVersion(9)],
        ),
        (
            InvalidArgumentError,
            "Cannot add version with unknown schema: 4",
            "add-view-version",
            [AddViewVersion(version(2, "select 2", schema_id=4))],
        ),
        (InvalidArgumentError, "Cannot reassign uuid", "assign-uuid", [AssignUUID(OTHER_UUID)]),
    ]
    for kind, java, action, updates in cases:
        # Java's text, then which update of the change it was
        with pytest.raises(kind, match=exact(f"{java} (update 0: {action})")) as info:
            apply(base, updates)
        assert isinstance(info.value, InvalidUpdateError)
        assert (info.value.reason, info.value.action, info.value.index) == (java, action, 0)
    # the index counts the updates before it
    with pytest.raises(InvalidUpdateError, match=exact("Cannot reassign uuid (update 1: assign-uuid)")):
        apply(base, [SetProperties({"a": "b"}), AssignUUID(OTHER_UUID)])
    with pytest.raises(InvalidUpdateError, match=r"Invalid view update: 'nonsense' \(update 0: unknown\)"):
        apply(base, ["nonsense"])  # type: ignore[list-item]

    # -1 after an AddSchema and an AddViewVersion in the same request
    applied = apply(
        base,
        [
            AddSchema(schema_of("z", schema_id=42), 1),
            AddViewVersion(version(2, "select z", schema_id=-1, timestamp_ms=77)),
            SetCurrentViewVersion(-1),
        ],
    )
    assert applied.current_version == version(2, "select z", schema_id=1, timestamp_ms=77)
    assert applied.schema_ids == (0, 1)
    assert [(e.timestamp_ms, e.version_id) for e in applied.version_log] == [(1001, 1), (77, 2)]


def test_apply_enforces_the_dialect_rule() -> None:
    base = base_view()
    message = (
        "Cannot replace view due to loss of view dialects (replace.drop-dialect.allowed=false):\n"
        "Previous dialects: [spark]\nNew dialects: [trino]"
    )
    updates = [AddViewVersion(version(2, "select 1", dialect="trino")), SetCurrentViewVersion(-1)]
    with pytest.raises(InvalidStateError, match=exact(message)):
        apply(base, updates)
    allowed = apply(base, [SetProperties({"replace.drop-dialect.allowed": "true"}), *updates])
    assert allowed.current_version_id == 2


def test_assert_view_uuid_passes_case_insensitively() -> None:
    base = base_view()
    updates = [SetProperties({"a": "b"})]
    for required in (UUID, UUID.upper()):
        updated = apply(base, updates, [AssertViewUUID(required)])
        assert dict(updated.properties) == {"a": "b"}
        assert updated.uuid == UUID
    AssertViewUUID(UUID.upper()).validate(base)


def test_assert_view_uuid_takes_a_uuid_object() -> None:
    # View.uuid is a uuid.UUID: passing it straight on must work, and mean its text
    import uuid as uuid_module

    requirement = AssertViewUUID(uuid_module.UUID(UUID))  # type: ignore[arg-type]
    assert requirement.uuid == UUID and requirement.to_dict() == {"type": "assert-view-uuid", "uuid": UUID}
    assert dict(apply(base_view(), [SetProperties({"a": "b"})], [requirement]).properties) == {"a": "b"}
    with pytest.raises(InvalidArgumentError, match="Invalid view UUID for assert-view-uuid: 42"):
        AssertViewUUID(42)  # type: ignore[arg-type]


def test_assert_view_uuid_failure() -> None:
    base = base_view()
    message = f"Requirement failed: view UUID does not match: expected {UUID} != {OTHER_UUID}"
    with pytest.raises(CommitFailedError, match=exact(message)):
        apply(base, [SetProperties({"a": "b"})], [AssertViewUUID(OTHER_UUID)])
    with pytest.raises(CommitFailedError, match=exact(message)):
        AssertViewUUID(OTHER_UUID).validate(base)


def test_requirements_are_checked_before_any_update() -> None:
    base = base_view()
    # the update would fail too; the requirement's failure is what is reported
    with pytest.raises(
        CommitFailedError, match="^" + re.escape("Requirement failed: view UUID does not match: expected ")
    ):
        apply(base, [SetCurrentViewVersion(99)], [AssertViewUUID(OTHER_UUID)])
    # every requirement is checked: the first passes, the second fails
    with pytest.raises(CommitFailedError):
        apply(base, [], [AssertViewUUID(UUID), AssertViewUUID(OTHER_UUID)])
