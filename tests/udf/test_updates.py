"""UDF updates and requirements: their JSON forms (an iceview extension) and :func:`apply`, which
replays them on a base as a catalog does."""

from __future__ import annotations

import json
import re
from typing import Any
from uuid import UUID as PyUUID

import pytest

from iceview.errors import CommitFailedError, InvalidArgumentError, InvalidMetadataError, InvalidUpdateError
from iceview.udf import (
    AddDefinition,
    AddDefinitionVersion,
    AssertCreate,
    AssertCurrentDefinitions,
    AssertFunctionUUID,
    AssignUUID,
    DefinitionVersion,
    FunctionMetadata,
    FunctionMetadataBuilder,
    FunctionParameter,
    MapType,
    PrimitiveType,
    RemoveDefinition,
    RemoveProperties,
    SetCurrentDefinitionVersion,
    SetFunctionDoc,
    SetFunctionSecure,
    SetLocation,
    SetProperties,
    SQLRepresentation,
    StructType,
    UpgradeFormatVersion,
    apply,
    requirement_from_dict,
    update_from_dict,
)
from iceview.udf import builder as builder_module
from iceview.udf.codec import definition_to_dict

UUID = "fa6506c3-7681-40c8-86dc-e36561f83385"
OTHER_UUID = "0b8a7d1e-7a0c-4a2e-9b54-0d9f3c2c6a11"
NOW = 1_800_000_000_000
INT = PrimitiveType("int")


def exact(message: str) -> str:
    return "^" + re.escape(message) + "$"


def version(body: str, ts: int = 1000, version_id: int = 1) -> DefinitionVersion:
    return DefinitionVersion(version_id, (SQLRepresentation("spark", body),), ts)


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builder_module, "_now_ms", lambda: NOW)


def base() -> FunctionMetadata:
    return (
        FunctionMetadataBuilder()
        .assign_uuid(UUID)
        .add_definition([FunctionParameter("x", INT)], INT, version("x + 1", 100))
        .build()
    )


def a_definition() -> Any:
    md = (
        FunctionMetadataBuilder()
        .add_definition(
            [
                FunctionParameter("m", MapType(PrimitiveType("string"), INT), "a map"),
                FunctionParameter("é", INT),
            ],
            StructType((("k", PrimitiveType("string")),)),
            DefinitionVersion(1, (SQLRepresentation("trino", "SELECT 1"),), 5, deterministic=True),
            function_type="udtf",
            return_nullable=False,
            specific_name="explode_map",
            doc="d",
        )
        .build()
    )
    return md.definitions[0]


UPDATES = [
    (AssignUUID(UUID), {"action": "assign-uuid", "uuid": UUID}),
    (UpgradeFormatVersion(1), {"action": "upgrade-format-version", "format-version": 1}),
    (SetLocation("s3://b/f"), {"action": "set-location", "location": "s3://b/f"}),
    (SetProperties({"a": "1", "ü": "2"}), {"action": "set-properties", "updates": {"a": "1", "ü": "2"}}),
    (RemoveProperties(("a", "b")), {"action": "remove-properties", "removals": ["a", "b"]}),
    (SetFunctionDoc("adds one"), {"action": "set-function-doc", "doc": "adds one"}),
    (SetFunctionDoc(None), {"action": "set-function-doc", "doc": None}),
    (SetFunctionSecure(True), {"action": "set-function-secure", "secure": True}),
    (
        AddDefinitionVersion(
            "int", DefinitionVersion(3, (SQLRepresentation("spark", "x"),), 7, on_null_input="return-null")
        ),
        {
            "action": "add-definition-version",
            "definition-id": "int",
            "version": {
                "version-id": 3,
                "representations": [{"type": "sql", "dialect": "spark", "sql": "x"}],
                "on-null-input": "return-null",
                "timestamp-ms": 7,
            },
        },
    ),
    (
        SetCurrentDefinitionVersion("int", -1),
        {"action": "set-current-definition-version", "definition-id": "int", "version-id": -1},
    ),
    (
        RemoveDefinition("map<string,int>,int"),
        {"action": "remove-definition", "definition-id": "map<string,int>,int"},
    ),
]


@pytest.mark.parametrize(("update", "expected"), UPDATES, ids=[u[1]["action"] for u in UPDATES])
def test_update_json_forms(update: Any, expected: dict[str, Any]) -> None:
    assert update.to_dict() == expected
    assert update_from_dict(json.loads(json.dumps(expected))) == update


def test_add_definition_carries_the_whole_definition() -> None:
    definition = a_definition()
    update = AddDefinition(definition)
    assert update.to_dict() == {"action": "add-definition", "definition": definition_to_dict(definition)}
    assert update.to_dict()["definition"]["definition-id"] == "map<string,int>,int"
    assert update_from_dict(update.to_dict()) == update


REQUIREMENTS = [
    (AssertCreate(), {"type": "assert-create"}),
    (AssertFunctionUUID(UUID), {"type": "assert-function-uuid", "uuid": UUID}),
    (
        AssertCurrentDefinitions({"int": 2, "": 1}),
        {
            "type": "assert-current-definitions",
            "definition-versions": [
                {"definition-id": "int", "version-id": 2},
                {"definition-id": "", "version-id": 1},
            ],
        },
    ),
]


@pytest.mark.parametrize(("requirement", "expected"), REQUIREMENTS, ids=[r[1]["type"] for r in REQUIREMENTS])
def test_requirement_json_forms(requirement: Any, expected: dict[str, Any]) -> None:
    assert requirement.to_dict() == expected
    assert requirement_from_dict(expected) == requirement
    hash(requirement)


def test_assert_function_uuid_takes_a_uuid_object() -> None:
    assert AssertFunctionUUID(PyUUID(UUID)).uuid == UUID  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="Invalid function UUID for assert-function-uuid: 3"):
        AssertFunctionUUID(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("obj", "message", "path"),
    [
        (1, "Cannot parse function update from non-object: 1", "$"),
        ({}, "Cannot parse missing string: action", "$.action"),
        (
            {"action": "set-view-doc"},
            "Cannot parse function update. Invalid action: set-view-doc",
            "$.action",
        ),
        ({"action": "assign-uuid"}, "Cannot parse missing string: uuid", "$.uuid"),
        (
            {"action": "set-properties", "updates": []},
            "Cannot parse string map from non-object value: updates: []",
            "$.updates",
        ),
        (
            {"action": "remove-properties", "removals": "a"},
            'Cannot parse string array from non-array: "a"',
            "$.removals",
        ),
        (
            {"action": "set-function-secure", "secure": "yes"},
            'Cannot parse to a boolean value: secure: "yes"',
            "$.secure",
        ),
        ({"action": "set-function-doc", "doc": 1}, "Cannot parse to a string value: doc: 1", "$.doc"),
        ({"action": "add-definition"}, "Cannot parse missing field: definition", "$.definition"),
        (
            {"action": "add-definition-version", "definition-id": "int", "version": {"version-id": 1}},
            "Cannot parse missing field: representations",
            "$.version.representations",
        ),
        (
            {"action": "set-current-definition-version", "definition-id": "int"},
            "Cannot parse missing int: version-id",
            "$.version-id",
        ),
        ({"action": "remove-definition"}, "Cannot parse missing string: definition-id", "$.definition-id"),
    ],
)
def test_bad_update_json(obj: Any, message: str, path: str) -> None:
    with pytest.raises(InvalidMetadataError) as info:
        update_from_dict(obj)
    assert (info.value.message, info.value.path) == (message, path)


def test_add_definition_json_must_have_one_version() -> None:
    definition = definition_to_dict(a_definition())
    definition["versions"].append({**definition["versions"][0], "version-id": 2})
    with pytest.raises(InvalidMetadataError) as info:
        update_from_dict({"action": "add-definition", "definition": definition})
    assert (
        info.value.message
        == "Cannot parse add-definition: the definition must have exactly one version, not 2"
    )
    assert info.value.path == "$.definition.versions"


@pytest.mark.parametrize(
    ("obj", "message", "path"),
    [
        ([], "Cannot parse function requirement from non-object: []", "$"),
        (
            {"type": "assert-view-uuid"},
            "Cannot parse function requirement. Invalid type: assert-view-uuid",
            "$.type",
        ),
        ({"type": "assert-function-uuid"}, "Cannot parse missing string: uuid", "$.uuid"),
        (
            {"type": "assert-current-definitions"},
            "Cannot parse missing field: definition-versions",
            "$.definition-versions",
        ),
        (
            {"type": "assert-current-definitions", "definition-versions": [{"definition-id": "int"}]},
            "Cannot parse missing int: version-id",
            "$.definition-versions[0].version-id",
        ),
        (
            {
                "type": "assert-current-definitions",
                "definition-versions": [
                    {"definition-id": "int", "version-id": 1},
                    {"definition-id": "int", "version-id": 2},
                ],
            },
            "Definition id 'int' is named more than once",
            "$.definition-versions[1].definition-id",
        ),
    ],
)
def test_bad_requirement_json(obj: Any, message: str, path: str) -> None:
    with pytest.raises(InvalidMetadataError) as info:
        requirement_from_dict(obj)
    assert (info.value.message, info.value.path) == (message, path)


# ------------------------------------------------------------------------------------------ apply


def test_apply_creates_a_function_from_json_updates() -> None:
    changes = base().changes
    wire = json.loads(json.dumps([c.to_dict() for c in changes]))
    created = apply(None, [update_from_dict(u) for u in wire], [AssertCreate()])
    assert created == base()
    with pytest.raises(CommitFailedError, match=exact("Requirement failed: function already exists")):
        apply(created, [], [AssertCreate()])


def test_apply_replaces_with_the_last_added_version() -> None:
    md = apply(
        base(),
        [AddDefinitionVersion("int", version("x + 2", 200)), SetCurrentDefinitionVersion("int", -1)],
        [AssertFunctionUUID(UUID.upper()), AssertCurrentDefinitions({"int": 1})],
    )
    assert md.current_definition_versions == {"int": 2}
    assert md.definition_log[-1].timestamp_ms == 200


def test_requirements_fail_as_commit_failures() -> None:
    with pytest.raises(CommitFailedError, match=exact("Requirement failed: function does not exist")):
        apply(None, [], [AssertFunctionUUID(UUID)])
    with pytest.raises(CommitFailedError, match=exact("Requirement failed: function does not exist")):
        apply(None, [], [AssertCurrentDefinitions({})])
    with pytest.raises(
        CommitFailedError,
        match=exact(f"Requirement failed: function UUID does not match: expected {UUID} != {OTHER_UUID}"),
    ):
        apply(base(), [], [AssertFunctionUUID(OTHER_UUID)])
    with pytest.raises(
        CommitFailedError,
        match=exact(
            "Requirement failed: current definition versions changed: expected {'int': 2} != {'int': 1}"
        ),
    ):
        apply(base(), [], [AssertCurrentDefinitions({"int": 2})])
    # a definition added concurrently is a change too
    float_definition = (
        base().definitions[0].replace(parameters=(FunctionParameter("x", PrimitiveType("float")),))
    )
    assert float_definition.definition_id == "int"  # stale: the builder computes the id
    assert AddDefinition(float_definition).to_dict()["definition"]["definition-id"] == "float"
    grown = apply(base(), [update_from_dict(AddDefinition(float_definition).to_dict())])
    assert grown.definition_ids == ("int", "float")
    with pytest.raises(CommitFailedError, match=re.escape("expected {'int': 1} != {'float': 1, 'int': 1}")):
        apply(grown, [], [AssertCurrentDefinitions({"int": 1})])


def test_a_failing_update_names_itself() -> None:
    with pytest.raises(InvalidUpdateError) as info:
        apply(base(), [SetLocation("s3://x"), SetCurrentDefinitionVersion("int", 5)])
    assert info.value.action == "set-current-definition-version"
    assert info.value.index == 1
    assert info.value.reason == "Cannot set current version of definition 'int' to unknown version: 5"
    with pytest.raises(InvalidUpdateError) as info:
        apply(base(), [SetCurrentDefinitionVersion("int", -1)])
    assert info.value.reason == "Cannot set last added version of definition 'int': no version has been added"
    with pytest.raises(InvalidUpdateError) as info:
        apply(base(), ["set-location"])  # type: ignore[list-item]
    assert (info.value.action, info.value.index) == ("unknown", 0)
    two_versions = base().definitions[0].replace(versions=(version("a"), version("b", version_id=2)))
    with pytest.raises(InvalidUpdateError, match="the definition must have exactly one version, not 2"):
        apply(base(), [AddDefinition(two_versions)])


def test_a_replace_replayed_on_a_base_that_already_has_the_version_lands() -> None:
    """A writer's add-definition-version + set-current(-1), re-applied after a concurrent writer
    added the same body: the version is reused, -1 means it, and the commit lands."""
    mine = [AddDefinitionVersion("int", version("x + 2", 200)), SetCurrentDefinitionVersion("int", -1)]
    theirs = apply(base(), [AddDefinitionVersion("int", version("x + 2", 150))])
    md = apply(theirs, mine)
    assert md.definitions[0].version_ids == (1, 2)
    assert md.current_definition_versions == {"int": 2}
    # reused, so not added in this build: logged at now
    assert md.definition_log[-1].timestamp_ms == NOW
