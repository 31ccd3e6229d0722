"""Property-based tests (hypothesis, bounded): types and whole metadata round-trip, and a
definition-id respelled as a lenient reader takes it reads back to the same metadata."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iceview.udf import (
    DataType,
    DefinitionVersion,
    FunctionMetadata,
    FunctionMetadataBuilder,
    FunctionParameter,
    ListType,
    MapType,
    PrimitiveType,
    SQLRepresentation,
    StructType,
    canonical,
    definition_id,
    function_metadata_from_json,
    function_metadata_to_dict,
    function_metadata_to_json,
    parse_type,
    type_to_json,
    validate,
)
from iceview.udf.types import ambiguous_field_names, matches_definition_id

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# whole metadata costs more to generate: fewer examples keep the file to a few seconds
METADATA_SETTINGS = settings(SETTINGS, max_examples=60)

PRIMITIVES = [
    "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
    "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "variant", "unknown",
    "decimal(9,2)", "decimal(38,0)", "fixed[16]", "geometry(srid:4326)", "geography(OGC:CRS84,spherical)",
]  # fmt: skip

# names a definition-id can carry: letters (non-ASCII too), digits, _ . - and emoji
safe_names = st.text(alphabet="abcxyz_.-09éßÄ名🧊", min_size=1, max_size=6)
any_names = st.text(alphabet="ab ,:<>'\"`é\t", min_size=0, max_size=4)


def types(names: st.SearchStrategy[str]) -> st.SearchStrategy[DataType]:
    return st.recursive(
        st.sampled_from(PRIMITIVES).map(PrimitiveType),
        lambda inner: st.one_of(inner.map(ListType), st.builds(MapType, inner, inner), structs(names, inner)),
        max_leaves=8,
    )


def structs(
    names: st.SearchStrategy[str], inner: st.SearchStrategy[DataType]
) -> st.SearchStrategy[StructType]:
    return st.lists(st.tuples(names, inner), max_size=3, unique_by=lambda f: f[0]).map(
        lambda fields: StructType(tuple(fields))
    )


@st.composite
def respelled(draw: st.DrawFn, t: DataType) -> str:
    """``t`` as a lenient writer might spell it in a definition-id: any case, spaces around."""

    def space() -> str:
        return draw(st.sampled_from(["", "", " ", "  ", "\t"]))

    def word(w: str) -> str:
        return "".join(c.upper() if draw(st.booleans()) else c for c in w)

    if isinstance(t, PrimitiveType):
        name = t.name
        if name.startswith("decimal("):
            p, s = name[len("decimal(") : -1].split(",")
            return f"{word('decimal')}({space()}{p}{space()},{space()}{s}{space()})"
        if name.startswith("fixed["):
            return f"{word('fixed')}[{space()}{name[6:-1]}{space()}]"
        if "(" in name:  # geometry and geography: the CRS is case-sensitive
            return name
        return word(name)
    if isinstance(t, ListType):
        return f"{word('list')}{space()}<{space()}{draw(respelled(t.element))}{space()}>"
    if isinstance(t, MapType):
        return f"{word('map')}<{draw(respelled(t.key))}{space()},{space()}{draw(respelled(t.value))}>"
    fields = ",".join(f"{space()}{n}{space()}:{draw(respelled(ft))}{space()}" for n, ft in t.fields)
    return f"{word('struct')}<{fields}>"


@SETTINGS
@given(types(any_names))
def test_types_round_trip_through_json(t: DataType) -> None:
    assert parse_type(json.loads(json.dumps(type_to_json(t)))) == t
    if isinstance(t, PrimitiveType):
        assert parse_type(canonical(t)) == t


@SETTINGS
@given(st.lists(types(safe_names), max_size=3), st.data())
def test_definition_ids_match_their_spellings(params: list[DataType], data: st.DataObject) -> None:
    text = definition_id(params)
    assert " " not in text
    assert matches_definition_id(text, params)
    spelled = ",".join(data.draw(respelled(t)) for t in params)
    assert matches_definition_id(spelled, params)


@SETTINGS
@given(types(any_names))
def test_ambiguous_names_are_exactly_the_ones_a_writer_refuses(t: DataType) -> None:
    if ambiguous_field_names(t):
        assert not _writable_id([t])
    else:
        assert _writable_id([t])


def _writable_id(params: list[DataType]) -> bool:
    try:
        definition_id(params)
    except ValueError:
        return False
    return True


@st.composite
def metadata(draw: st.DrawFn) -> FunctionMetadata:
    builder = FunctionMetadataBuilder().assign_uuid("fa6506c3-7681-40c8-86dc-e36561f83385")
    if draw(st.booleans()):
        builder.set_properties({"version.history.num-entries": str(draw(st.integers(1, 4)))})
    seen: set[str] = set()
    for _ in range(draw(st.integers(1, 3))):
        param_types = draw(st.lists(types(safe_names), max_size=3))
        key = definition_id(param_types)
        if key in seen:
            continue
        seen.add(key)
        udtf = draw(st.booleans())
        return_type = draw(structs(safe_names, types(safe_names))) if udtf else draw(types(any_names))
        names = draw(
            st.lists(safe_names, min_size=len(param_types), max_size=len(param_types), unique_by=str.casefold)
        )
        builder.add_definition(
            [
                FunctionParameter(n, t, draw(st.none() | safe_names))
                for n, t in zip(names, param_types, strict=True)
            ],
            return_type,
            _version(draw),
            function_type="udtf" if udtf else "udf",
            return_nullable=draw(st.booleans()),
            doc=draw(st.none() | st.text(max_size=5)),
        )
        for _ in range(draw(st.integers(0, 4))):
            builder.add_definition_version(key, _version(draw))
            if draw(st.booleans()):
                builder.set_current_definition_version(key, -1)
    return builder.build()


def _version(draw: st.DrawFn) -> DefinitionVersion:
    dialects = draw(
        st.lists(st.sampled_from(["spark", "trino", "Duckdb"]), min_size=1, max_size=3, unique=True)
    )
    return DefinitionVersion(
        0,
        tuple(
            SQLRepresentation(d, draw(st.text(min_size=1, max_size=8).filter(str.strip))) for d in dialects
        ),
        draw(st.integers(0, 2**40)),
        deterministic=draw(st.booleans()),
        on_null_input=draw(st.sampled_from(["call", "return-null"])),
    )


@METADATA_SETTINGS
@given(metadata())
def test_built_metadata_is_valid_and_round_trips(md: FunctionMetadata) -> None:
    assert validate(md) == []
    text = function_metadata_to_json(md)
    again = function_metadata_from_json(text)
    assert again == md
    assert function_metadata_to_json(again) == text
    assert function_metadata_from_json(function_metadata_to_json(md, pretty=True)) == md


@METADATA_SETTINGS
@given(metadata(), st.data())
def test_respelled_definition_ids_read_back_to_the_same_metadata(
    md: FunctionMetadata, data: st.DataObject
) -> None:
    obj = function_metadata_to_dict(md)
    for written, definition in zip(obj["definitions"], md.definitions, strict=True):
        spelled = ",".join(data.draw(respelled(t)) for t in definition.parameter_types)
        written["definition-id"] = spelled
        for entry in obj["definition-log"]:
            for ref in entry["definition-versions"]:
                if ref["definition-id"] == definition.definition_id:
                    ref["definition-id"] = spelled
    assert function_metadata_from_json(json.dumps(obj)) == md
