"""Error messages shorten long values (iceview cuts them where Java echoes them whole)."""

from __future__ import annotations

import json

import pytest

from iceview.errors import InvalidArgumentError, InvalidMetadataError
from iceview.spec.codec import parse_json
from iceview.spec.common_updates import uuid_update
from iceview.spec.jsonutil import MAX_SHOWN, node_str, shorten
from iceview.spec.validate import validate

BIG = "x" * 1_000_000


def _view_metadata(uuid: object) -> str:
    return json.dumps(
        {
            "view-uuid": uuid,
            "format-version": 1,
            "location": "s3://bucket/v",
            "current-version-id": 1,
            "versions": [
                {
                    "version-id": 1,
                    "timestamp-ms": 1,
                    "schema-id": 0,
                    "summary": {},
                    "default-namespace": [],
                    "representations": [{"type": "sql", "sql": "select 1", "dialect": "spark"}],
                }
            ],
            "version-log": [{"timestamp-ms": 1, "version-id": 1}],
            "schemas": [{"type": "struct", "schema-id": 0, "fields": []}],
        }
    )


def test_shorten_and_node_str_cut_long_renderings() -> None:
    assert node_str("abc") == '"abc"'
    assert shorten("abc") == "'abc'"
    assert shorten("abc", raw=True) == "abc"
    cut = node_str(BIG)
    assert cut == '"' + "x" * (MAX_SHOWN - 1) + f"... ({len(BIG) + 2} characters)"
    assert shorten(BIG, raw=True) == "x" * MAX_SHOWN + f"... ({len(BIG)} characters)"


@pytest.mark.parametrize("uuid", [[BIG], {"a": BIG}, 1.5], ids=["list", "object", "float"])
def test_a_huge_view_uuid_value_gives_a_short_read_error(uuid: object) -> None:
    with pytest.raises(InvalidMetadataError) as info:
        parse_json(_view_metadata(uuid))
    assert "view-uuid" in str(info.value)
    assert len(str(info.value)) < 1_000


def test_a_huge_view_uuid_string_gives_a_short_message() -> None:
    try:
        metadata = parse_json(_view_metadata(BIG))
    except InvalidMetadataError as e:
        assert len(str(e)) < 1_000
        return
    problems = validate(metadata)
    assert [p.code for p in problems] == ["invalid-uuid"]
    assert len(problems[0].message) < 1_000
    assert problems[0].message.endswith(f"... ({len(BIG) + 2} characters)")


def test_a_huge_uuid_given_to_a_builder_gives_a_short_message() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        uuid_update(None, BIG)
    assert len(str(info.value)) < 1_000


@pytest.mark.parametrize(
    "uuid",
    [
        "urn:uuid:42fd3f91-bc10-41c1-8a52-92b57dd0a9b2",
        "{42fd3f91-bc10-41c1-8a52-92b57dd0a9b2}",
        "42fd3f91bc1041c18a5292b57dd0a9b2",
    ],
)
def test_uuid_forms_java_refuses_are_refused(uuid: str) -> None:
    with pytest.raises(InvalidArgumentError):
        uuid_update(None, uuid)
    assert uuid_update(None, "42FD3F91-BC10-41C1-8A52-92B57DD0A9B2") is not None


def test_a_huge_view_update_action_or_requirement_type_gives_a_short_message() -> None:
    from iceview.spec import requirement_from_dict, update_from_dict

    for parse, field in ((update_from_dict, "action"), (requirement_from_dict, "type")):
        with pytest.raises(InvalidMetadataError) as info:
            parse({field: BIG})
        assert len(str(info.value)) < 1_000
        assert f"... ({len(BIG)} characters)" in str(info.value)
        assert info.value.path == f"$.{field}"


def test_a_huge_non_string_uuid_in_a_view_requirement_gives_a_short_message() -> None:
    from iceview.spec import AssertViewUUID

    with pytest.raises(InvalidArgumentError) as info:
        AssertViewUUID([BIG])  # type: ignore[arg-type]
    assert len(str(info.value)) < 1_000
    assert str(info.value).startswith("Invalid view UUID for assert-view-uuid: ['xxx")
