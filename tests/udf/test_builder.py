"""The UDF metadata builder: definitions added, replaced, reused, rolled back and removed;
version expiry by ``version.history.num-entries``; the definition log's one entry per build and
its trimming. ``_now_ms`` is patched wherever the builder asks for the time."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from iceview.errors import InvalidArgumentError, ValidationError
from iceview.udf import (
    AddDefinition,
    AddDefinitionVersion,
    AssignUUID,
    DefinitionLogEntry,
    DefinitionVersion,
    FunctionMetadata,
    FunctionMetadataBuilder,
    FunctionParameter,
    ListType,
    PrimitiveType,
    RemoveDefinition,
    SetCurrentDefinitionVersion,
    SetFunctionDoc,
    SetFunctionSecure,
    SetLocation,
    SetProperties,
    SQLRepresentation,
    StructType,
    apply,
    function_metadata_from_json,
    function_metadata_to_dict,
    validate,
)
from iceview.udf import builder as builder_module

DATA = Path(__file__).parent.parent / "data" / "udf"
NOW = 1_800_000_000_000
UUID_A = "42fd3f91-bc10-41c1-8a52-92b57dd0a9b2"
UUID = "fa6506c3-7681-40c8-86dc-e36561f83385"
NUM_ENTRIES = "version.history.num-entries"
INT = PrimitiveType("int")
FLOAT = PrimitiveType("float")
STRING = PrimitiveType("string")


def exact(message: str) -> str:
    return "^" + re.escape(message) + "$"


def sql(
    *pairs: tuple[str, str], ts: int = 1000, deterministic: bool = False, on_null: str = "call"
) -> DefinitionVersion:
    """A version with SQL representations ``(dialect, sql)``; its id is the builder's to choose."""
    reps = tuple(SQLRepresentation(d, s) for d, s in pairs)
    return DefinitionVersion(0, reps, ts, deterministic=deterministic, on_null_input=on_null)


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    times = [NOW]
    monkeypatch.setattr(builder_module, "_now_ms", lambda: times[-1])
    return times


def add_one_int() -> FunctionMetadata:
    return (
        FunctionMetadataBuilder()
        .assign_uuid(UUID)
        .add_definition([FunctionParameter("x", INT)], INT, sql(("spark", "x + 1"), ts=100))
        .build()
    )


# ------------------------------------------------------------------------------ the spec examples


def test_the_builder_makes_appendix_a_in_three_commits() -> None:
    first = (
        FunctionMetadataBuilder()
        .assign_uuid(UUID_A)
        .set_doc("Overloaded scalar UDF for integer and float inputs")
        .add_definition(
            [FunctionParameter("x", INT, "Input integer")],
            INT,
            sql(("trino", "x + 2"), ts=1734507000123, deterministic=True),
            doc="Add one to the input integer",
        )
        .build()
    )
    second = (
        FunctionMetadataBuilder(first)
        .add_definition(
            [FunctionParameter("x", FLOAT, "Input float")],
            FLOAT,
            sql(("trino", "x + 1.0"), ts=1734507001123, deterministic=True),
            doc="Add one to the input float",
        )
        .build()
    )
    third = (
        FunctionMetadataBuilder(second)
        .add_definition_version(
            "int", sql(("trino", "x + 1"), ("spark", "x + 1"), ts=1735507000124, deterministic=True)
        )
        .set_current_definition_version("int", -1)
        .build()
    )
    assert function_metadata_to_dict(third) == json.loads(
        (DATA / "appendix-a-overloaded-scalar.json").read_text()
    )
    assert third.changes == (
        AddDefinitionVersion("int", third.definitions[0].versions[1]),
        SetCurrentDefinitionVersion("int", -1),
    )


def test_the_builder_makes_appendix_b() -> None:
    md = (
        FunctionMetadataBuilder()
        .assign_uuid("8a7fa39a-6d8f-4a2f-9d8d-3f3a8f3c2a10")
        .set_doc("UDTF returning (name, color) rows filtered by the given color")
        .set_secure(False)
        .add_definition(
            [FunctionParameter("c", STRING, "Color of fruits")],
            StructType((("name", STRING), ("color", STRING))),
            sql(
                ("trino", "SELECT name, color FROM fruits WHERE color = c"),
                ("spark", "SELECT name, color FROM fruits WHERE color = c"),
                ts=1734508000123,
                deterministic=True,
            ),
            function_type="udtf",
            doc="Return fruits of a specific color from the fruits table",
        )
        .build()
    )
    assert function_metadata_to_dict(md) == json.loads((DATA / "appendix-b-udtf.json").read_text())


# ----------------------------------------------------------------------------------- definitions


def test_a_new_function_gets_a_uuid_and_its_first_log_entry() -> None:
    md = (
        FunctionMetadataBuilder()
        .add_definition([], PrimitiveType("date"), sql(("spark", "current_date()")))
        .build()
    )
    assert len(md.function_uuid) == 36
    assert md.definition_ids == ("",)  # no parameters: the empty definition-id
    assert md.definitions[0].current_version_id == 1
    assert md.definition_log == (DefinitionLogEntry(1000, (("", 1),)),)
    assert [type(c) for c in md.changes] == [AddDefinition]


def test_the_first_version_is_always_1_whatever_it_says() -> None:
    version = sql(("spark", "x")).replace(version_id=42)
    md = FunctionMetadataBuilder().add_definition([FunctionParameter("x", INT)], INT, version).build()
    assert md.definitions[0].version_ids == (1,)


def test_definition_ids_are_computed_from_the_parameter_types() -> None:
    params = [
        FunctionParameter("größe", PrimitiveType("Decimal( 9, 2 )")),
        FunctionParameter("名前", ListType(StructType((("id", INT), ("ä", STRING))))),
    ]
    md = FunctionMetadataBuilder().add_definition(params, INT, sql(("spark", "1"))).build()
    assert md.definition_ids == ("decimal(9,2),list<struct<id:int,ä:string>>",)
    assert md.definition("decimal(9, 2), LIST<STRUCT<id:INT,ä:String>>") is md.definitions[0]


def test_a_second_definition_with_the_same_signature_is_refused() -> None:
    builder = FunctionMetadataBuilder(add_one_int())
    with pytest.raises(
        InvalidArgumentError,
        match=exact("Cannot add definition 'int': the function has a definition with this signature"),
    ):
        builder.add_definition([FunctionParameter("y", PrimitiveType("INT"))], STRING, sql(("spark", "y")))


def test_a_second_definition_with_the_same_specific_name_is_refused() -> None:
    md = (
        FunctionMetadataBuilder()
        .add_definition([FunctionParameter("x", INT)], INT, sql(("spark", "x")), specific_name="add_int")
        .build()
    )
    assert md.definition_by_specific_name("add_int") is md.definitions[0]
    assert md.definition_by_specific_name("ADD_INT") is None
    with pytest.raises(
        InvalidArgumentError,
        match=exact("Cannot add definition 'long': specific name 'add_int' is used by definition 'int'"),
    ):
        FunctionMetadataBuilder(md).add_definition(
            [FunctionParameter("x", PrimitiveType("long"))], INT, sql(("spark", "x")), specific_name="add_int"
        )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"parameters": [FunctionParameter("x", INT), FunctionParameter("X", STRING)]},
            "Invalid definition: Parameter name 'X' is used more than once (parameter 0 and 1, compared "
            "case-insensitively) (at $.parameters[1].name)",
        ),
        (
            {"parameters": [FunctionParameter("", INT)]},
            "Invalid definition: Parameter 0 has an empty name (at $.parameters[0].name)",
        ),
        (
            {"function_type": "udtf"},
            "Invalid definition: A udtf must return a struct (its output columns), not int (at $.return-type)",
        ),
        (
            {"function_type": "table"},
            "Invalid definition: Invalid function-type: 'table' (expected udf or udtf) (at $.function-type)",
        ),
        (
            {"version": sql()},
            "Invalid definition: Version 1 has no representations (at $.versions[0].representations)",
        ),
        (
            {"version": sql(("spark", "x"), ("SPARK", "x"))},
            "Invalid definition: Version 1 has more than one SQL representation for dialect spark "
            "(at $.versions[0].representations[1].dialect)",
        ),
        (
            {"version": sql(("spark", "x"), ts=-1)},
            "Invalid definition: Version 1 has timestamp -1 (at $.versions[0].timestamp-ms)",
        ),
        (
            {"version": sql(("spark", "x"), on_null="RETURN NULL")},
            "Invalid definition: Invalid on-null-input: 'RETURN NULL' (expected call or return-null) "
            "(at $.versions[0].on-null-input)",
        ),
        (
            {"parameters": [FunctionParameter("s", StructType((("a", INT), ("a", INT))))]},
            "Invalid definition: Field name 'a' is used more than once (at $.parameters[0].type.fields[1].name)",
        ),
        (
            {"parameters": [FunctionParameter("s", StructType((("a:b", INT),)))]},
            "Invalid struct field name 'a:b' in parameter 0 (at $.parameters[0].type.fields[0].name): a "
            "definition-id cannot carry an empty name or one with whitespace, ',', ':', '<', '>', '`', '\"' or \"'\"",
        ),
        ({"parameters": ["x"]}, "Invalid parameters: ('x',)"),
        ({"version": "select 1"}, "Invalid definition version: 'select 1'"),
    ],
)
def test_bad_definitions_are_refused(kwargs: dict, message: str) -> None:
    args = {"parameters": [FunctionParameter("x", INT)], "return_type": INT, "version": sql(("spark", "x"))}
    args.update(kwargs)
    with pytest.raises(InvalidArgumentError, match=exact(message)):
        FunctionMetadataBuilder().add_definition(**args)


def test_a_struct_field_name_with_a_space_is_fine_in_a_return_type() -> None:
    md = (
        FunctionMetadataBuilder()
        .add_definition(
            [FunctionParameter("c", STRING)],
            StructType((("first name", STRING),)),
            sql(("trino", "SELECT 'a'")),
            function_type="udtf",
        )
        .build()
    )
    assert validate(md) == []


# -------------------------------------------------------------------------- versions and the log


def test_replace_adds_the_next_version_and_logs_its_timestamp() -> None:
    md = FunctionMetadataBuilder(add_one_int()).add_definition_version("int", sql(("spark", "x + 2"), ts=200))
    md = md.set_current_definition_version("int", -1).build()
    d = md.definitions[0]
    assert d.version_ids == (1, 2)
    assert d.current_version_id == 2
    assert md.definition_log == (
        DefinitionLogEntry(100, (("int", 1),)),
        DefinitionLogEntry(200, (("int", 2),)),
    )


def test_adding_a_version_does_not_make_it_current() -> None:
    base = add_one_int()
    md = FunctionMetadataBuilder(base).add_definition_version("int", sql(("spark", "x + 2"))).build()
    assert md.definitions[0].version_ids == (1, 2)
    assert md.definitions[0].current_version_id == 1
    assert md.definition_log == base.definition_log


def test_a_version_equal_to_an_existing_one_is_reused() -> None:
    base = (
        FunctionMetadataBuilder(add_one_int())
        .add_definition_version("int", sql(("spark", "x + 2"), ts=200))
        .set_current_definition_version("int", -1)
        .build()
    )
    # same representations, deterministic and on-null-input: the id of version 1, whatever its timestamp
    builder = FunctionMetadataBuilder(base).add_definition_version("int", sql(("spark", "x + 1"), ts=999))
    md = builder.set_current_definition_version("int", -1).build()
    assert md.definitions[0].version_ids == (1, 2)
    assert md.definitions[0].current_version_id == 1
    # a reused version was not added in this build: recorded by its id, logged at now (a rollback)
    assert md.changes == (SetCurrentDefinitionVersion("int", 1),)
    assert md.definition_log[-1] == DefinitionLogEntry(NOW, (("int", 1),))
    # a different deterministic flag or on-null-input is a different version
    other = FunctionMetadataBuilder(base).add_definition_version(
        "int", sql(("spark", "x + 1"), deterministic=True)
    )
    assert other.build().definitions[0].version_ids == (1, 2, 3)
    other = FunctionMetadataBuilder(base).add_definition_version(
        "int", sql(("spark", "x + 1"), on_null="return-null")
    )
    assert other.build().definitions[0].version_ids == (1, 2, 3)


def test_rollback_logs_now(clock: list[int]) -> None:
    base = (
        FunctionMetadataBuilder(add_one_int())
        .add_definition_version("int", sql(("spark", "x + 2"), ts=200))
        .set_current_definition_version("int", 2)
        .build()
    )
    clock.append(NOW + 5)
    md = FunctionMetadataBuilder(base).set_current_definition_version("int", 1).build()
    assert md.definitions[0].current_version_id == 1
    assert md.changes == (SetCurrentDefinitionVersion("int", 1),)
    assert [e.timestamp_ms for e in md.definition_log] == [100, 200, NOW + 5]


def test_setting_the_current_version_again_changes_nothing() -> None:
    base = add_one_int()
    md = FunctionMetadataBuilder(base).set_current_definition_version("int", 1).build()
    assert md.changes == () and md.definition_log == base.definition_log


def test_one_log_entry_per_build_with_the_newest_added_version_time() -> None:
    base = add_one_int()
    md = (
        FunctionMetadataBuilder(base)
        .add_definition([FunctionParameter("x", FLOAT)], FLOAT, sql(("spark", "x + 1.0"), ts=300))
        .add_definition_version("int", sql(("spark", "x + 2"), ts=250))
        .set_current_definition_version("int", -1)
        .add_definition_version("int", sql(("spark", "x + 3"), ts=260))
        .set_current_definition_version("int", -1)
        .build()
    )
    assert md.current_definition_versions == {"int": 3, "float": 1}
    assert md.definition_log == (
        DefinitionLogEntry(100, (("int", 1),)),
        DefinitionLogEntry(300, (("int", 3), ("float", 1))),
    )


def test_a_build_that_mixes_an_added_version_and_a_rollback_logs_now() -> None:
    base = (
        FunctionMetadataBuilder(add_one_int())
        .add_definition_version("int", sql(("spark", "x + 2"), ts=200))
        .set_current_definition_version("int", -1)
        .build()
    )
    md = (
        FunctionMetadataBuilder(base)
        .set_current_definition_version("int", 1)
        .add_definition([FunctionParameter("x", FLOAT)], FLOAT, sql(("spark", "x + 1.0"), ts=300))
        .build()
    )
    assert md.definition_log[-1] == DefinitionLogEntry(NOW, (("int", 1), ("float", 1)))


def test_changes_that_leave_the_definitions_alone_log_nothing() -> None:
    base = add_one_int()
    md = (
        FunctionMetadataBuilder(base)
        .set_properties({"comment": "c"})
        .set_location("s3://bucket/functions/add_one")
        .set_doc("adds one")
        .set_secure(True)
        .build()
    )
    assert md.definition_log == base.definition_log
    assert (md.location, md.doc, md.secure, dict(md.properties)) == (
        "s3://bucket/functions/add_one",
        "adds one",
        True,
        {"comment": "c"},
    )
    assert md.changes[2:] == (SetFunctionDoc("adds one"), SetFunctionSecure(True))
    removed = FunctionMetadataBuilder(md).set_doc(None).remove_properties(["comment", "absent"]).build()
    assert removed.doc is None and removed.properties == {}
    assert FunctionMetadataBuilder(md).set_doc("adds one").set_secure(True).build().changes == ()


def test_unknown_definitions_and_versions_are_refused() -> None:
    builder = FunctionMetadataBuilder(add_one_int())
    with pytest.raises(
        InvalidArgumentError, match=exact("Cannot add a version to unknown definition: 'long'")
    ):
        builder.add_definition_version("long", sql(("spark", "x")))
    with pytest.raises(
        InvalidArgumentError, match=exact("Cannot set current version of unknown definition: 'long'")
    ):
        builder.set_current_definition_version("long", 1)
    with pytest.raises(
        InvalidArgumentError,
        match=exact("Cannot set current version of definition 'int' to unknown version: 7"),
    ):
        builder.set_current_definition_version("int", 7)
    with pytest.raises(
        ValidationError,
        match=exact("Cannot set last added version of definition 'int': no version has been added"),
    ):
        builder.set_current_definition_version("int", -1)
    with pytest.raises(InvalidArgumentError, match=exact("Cannot remove unknown definition: 'long'")):
        builder.remove_definition("long")
    with pytest.raises(
        InvalidArgumentError,
        match=exact(
            "Invalid definition version: Version 2 has a blank SQL text (at $.representations[0].sql)"
        ),
    ):
        builder.add_definition_version("int", sql(("spark", " ")))


def test_definitions_are_found_by_a_lenient_spelling() -> None:
    md = (
        FunctionMetadataBuilder(add_one_int())
        .add_definition_version(" INT ", sql(("spark", "x + 2"), ts=200))
        .set_current_definition_version("Int", -1)
        .build()
    )
    assert md.changes == (
        AddDefinitionVersion("int", md.definitions[0].versions[1]),
        SetCurrentDefinitionVersion("int", -1),
    )


# ------------------------------------------------------------------------------------- removal


def test_remove_definition_trims_the_log_to_what_follows() -> None:
    base = (
        FunctionMetadataBuilder(add_one_int())
        .add_definition([FunctionParameter("x", FLOAT)], FLOAT, sql(("spark", "x + 1.0"), ts=300))
        .build()
    )
    md = FunctionMetadataBuilder(base).remove_definition("int").build()
    assert md.definition_ids == ("float",)
    assert md.changes == (RemoveDefinition("int"),)
    # every earlier entry names int: the longest suffix naming only what exists is the new entry
    assert md.definition_log == (DefinitionLogEntry(NOW, (("float", 1),)),)


def test_remove_and_add_again_in_one_build_restarts_the_definition() -> None:
    base = (
        FunctionMetadataBuilder(add_one_int())
        .add_definition_version("int", sql(("spark", "x + 2"), ts=200))
        .build()
    )
    md = (
        FunctionMetadataBuilder(base)
        .remove_definition("int")
        .add_definition([FunctionParameter("y", INT)], INT, sql(("spark", "y * 2"), ts=500))
        .build()
    )
    d = md.definitions[0]
    assert (d.version_ids, d.current_version_id, d.parameters[0].name) == ((1,), 1, "y")
    # the old (int, 1) is another version than the new one: its entries are gone
    assert md.definition_log == (DefinitionLogEntry(500, (("int", 1),)),)


def test_removing_every_definition_is_refused_at_build() -> None:
    with pytest.raises(InvalidArgumentError, match=exact("Invalid function: no definitions")):
        FunctionMetadataBuilder(add_one_int()).remove_definition("int").build()
    with pytest.raises(InvalidArgumentError, match=exact("Invalid function: no definitions")):
        FunctionMetadataBuilder().build()


# --------------------------------------------------------------------------------------- expiry


def replaced(times: int, **properties: str) -> FunctionMetadata:
    """add_one(int) with ``times`` more versions, each made current in its own build."""
    md = add_one_int()
    if properties:
        md = FunctionMetadataBuilder(md).set_properties(properties).build()
    for i in range(times):
        md = (
            FunctionMetadataBuilder(md)
            .add_definition_version("int", sql(("spark", f"x + {i + 2}"), ts=200 + i))
            .set_current_definition_version("int", -1)
            .build()
        )
    return md


def test_versions_expire_beyond_the_default_of_10() -> None:
    md = replaced(11)
    assert md.definitions[0].version_ids == tuple(range(3, 13))
    assert md.definitions[0].current_version_id == 12
    assert [e.definition_versions[0][1] for e in md.definition_log] == list(range(3, 13))


def test_versions_expire_by_the_property_and_the_current_one_stays(clock: list[int]) -> None:
    md = replaced(4, **{NUM_ENTRIES: "2"})
    assert md.definitions[0].version_ids == (4, 5)
    assert md.definition_log == (
        DefinitionLogEntry(202, (("int", 4),)),
        DefinitionLogEntry(203, (("int", 5),)),
    )
    # a rollback keeps the current version even when it is the oldest
    rolled = FunctionMetadataBuilder(md).set_current_definition_version("int", 4).build()
    again = (
        FunctionMetadataBuilder(rolled).add_definition_version("int", sql(("spark", "x * 9"), ts=900)).build()
    )
    assert again.definitions[0].version_ids == (4, 6)
    assert again.definitions[0].current_version_id == 4
    # the log keeps its suffix naming retained versions, at most 2 entries
    assert again.definition_log == (DefinitionLogEntry(NOW, (("int", 4),)),)


def test_expiry_keeps_every_version_added_in_the_build() -> None:
    builder = FunctionMetadataBuilder(replaced(0, **{NUM_ENTRIES: "1"}))
    for i in range(3):
        builder.add_definition_version("int", sql(("spark", f"x * {i}"), ts=300 + i))
    md = builder.set_current_definition_version("int", -1).build()
    assert md.definitions[0].version_ids == (2, 3, 4)
    assert md.definition_log == (DefinitionLogEntry(302, (("int", 4),)),)


def test_expiry_is_per_definition() -> None:
    md = (
        FunctionMetadataBuilder(replaced(3, **{NUM_ENTRIES: "2"}))
        .add_definition([FunctionParameter("x", FLOAT)], FLOAT, sql(("spark", "x"), ts=500))
        .build()
    )
    assert md.definitions[0].version_ids == (3, 4)
    assert md.definitions[1].version_ids == (1,)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "version.history.num-entries must be positive but was 0"),
        ("-3", "version.history.num-entries must be positive but was -3"),
        ("x", 'For input string: "x"'),
        ("2147483648", 'For input string: "2147483648"'),
    ],
)
def test_the_history_property_follows_the_view_rules(value: str, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=exact(message)):
        FunctionMetadataBuilder(add_one_int()).set_properties({NUM_ENTRIES: value}).build()


def test_the_log_is_limited_to_the_history_size() -> None:
    md = add_one_int()
    for i in range(4):  # rollbacks and forwards between two versions: nothing expires, the log grows
        md = (
            FunctionMetadataBuilder(md)
            .add_definition_version("int", sql(("spark", "x + 1" if i % 2 else "x + 2"), ts=200 + i))
            .set_current_definition_version("int", -1)
            .build()
        )
    assert len(md.definition_log) == 5
    md = FunctionMetadataBuilder(md).set_properties({NUM_ENTRIES: "3"}).build()
    assert [e.definition_versions for e in md.definition_log] == [(("int", 1),), (("int", 2),), (("int", 1),)]


def test_a_base_whose_log_does_not_end_with_the_current_versions_gets_an_entry() -> None:
    text = (DATA / "appendix-a-overloaded-scalar.json").read_text()
    stale = json.loads(text)
    stale["definition-log"] = stale["definition-log"][:2]
    base = function_metadata_from_json(json.dumps(stale))
    assert [p.code for p in validate(base)] == ["log-current-mismatch"]
    md = FunctionMetadataBuilder(base).set_properties({"k": "v"}).build()
    assert md.definition_log[-1] == DefinitionLogEntry(NOW, (("int", 2), ("float", 1)))
    assert validate(md) == []


# ------------------------------------------------------------------------------- other fields


def test_uuid_rules() -> None:
    with pytest.raises(InvalidArgumentError, match=exact("Invalid uuid: 'nope' is not a UUID")):
        FunctionMetadataBuilder().assign_uuid("nope")
    with pytest.raises(InvalidArgumentError, match=exact("Cannot reassign uuid")):
        FunctionMetadataBuilder(add_one_int()).assign_uuid(UUID_A)
    with pytest.raises(InvalidArgumentError, match=exact("Cannot set uuid to null")):
        FunctionMetadataBuilder().assign_uuid(None)
    assert FunctionMetadataBuilder(add_one_int()).assign_uuid(UUID).build().changes == ()


def test_format_version_rules() -> None:
    with pytest.raises(InvalidArgumentError, match=exact("Unsupported format version: 2")):
        FunctionMetadataBuilder().upgrade_format_version(2)
    with pytest.raises(InvalidArgumentError, match=exact("Cannot downgrade v1 function to v0")):
        FunctionMetadataBuilder().upgrade_format_version(0)
    assert FunctionMetadataBuilder(add_one_int()).upgrade_format_version(1).build().changes == ()


def test_field_values_are_type_checked() -> None:
    builder = FunctionMetadataBuilder()
    with pytest.raises(InvalidArgumentError, match=exact("Invalid location: null")):
        builder.set_location(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=exact("Invalid value: 1")):
        builder.set_properties({"a": 1})  # type: ignore[dict-item]
    with pytest.raises(InvalidArgumentError, match=exact("Invalid key: null")):
        builder.set_properties({None: "a"})  # type: ignore[dict-item]
    with pytest.raises(InvalidArgumentError, match=exact("Invalid secure: 'yes' (a bool)")):
        builder.set_secure("yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=exact("Invalid doc: 3")):
        builder.set_doc(3)  # type: ignore[arg-type]


def test_a_metadata_location_with_changes_is_refused() -> None:
    builder = FunctionMetadataBuilder(add_one_int()).set_metadata_location("s3://b/1.json")
    assert builder.build().metadata_file_location == "s3://b/1.json"
    with pytest.raises(
        InvalidArgumentError,
        match=exact("Cannot create function metadata with a metadata location and changes"),
    ):
        builder.set_doc("x").build()


def test_build_validates_what_it_was_given() -> None:
    text = (DATA / "appendix-a-overloaded-scalar.json").read_text()
    bad = json.loads(text)
    bad["definitions"][1]["specific-name"] = bad["definitions"][0]["specific-name"] = "add_one"
    base = function_metadata_from_json(json.dumps(bad))
    with pytest.raises(
        ValidationError,
        match=exact(
            "Invalid function metadata: Specific name 'add_one' of definition 1 is already used by definition 0 "
            "(at $.definitions[1].specific-name)"
        ),
    ):
        FunctionMetadataBuilder(base).set_doc("x").build()


def test_recorded_changes_replay_to_the_same_metadata() -> None:
    md = (
        FunctionMetadataBuilder()
        .assign_uuid(UUID)
        .set_location("s3://b/f")
        .set_properties({"a": "b"})
        .add_definition([FunctionParameter("x", INT)], INT, sql(("spark", "x + 1"), ts=100))
        .add_definition([FunctionParameter("x", FLOAT)], FLOAT, sql(("spark", "x + 1.0"), ts=150))
        .add_definition_version("int", sql(("spark", "x + 2"), ts=200))
        .set_current_definition_version("int", -1)
        .remove_definition("float")
        .build()
    )
    assert [type(c) for c in md.changes][:3] == [AssignUUID, SetLocation, SetProperties]
    replayed = apply(None, md.changes)
    assert replayed == md
    assert replayed.changes == md.changes
