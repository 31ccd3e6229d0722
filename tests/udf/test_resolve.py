"""Which definition a call uses (the UDF spec's resolution rules, iceview.udf.resolve): exact
matches first, then the one definition that is at least as close in every argument after safe
widening; lossy conversions never; ties are an error that asks for a cast."""

from __future__ import annotations

import json
import time
from itertools import permutations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iceview.errors import AmbiguousFunctionCallError, InvalidArgumentError, NoMatchingDefinitionError
from iceview.udf import (
    DefinitionVersion,
    FunctionMetadataBuilder,
    FunctionParameter,
    ListType,
    MapType,
    PrimitiveType,
    SQLRepresentation,
    StructType,
    function_metadata_from_json,
    parse_type,
    resolve_definition,
    widening_cost,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "udf"


def t(name: str) -> PrimitiveType:
    return PrimitiveType(name)


def function(*signatures: tuple[str, ...]) -> object:
    builder = FunctionMetadataBuilder().set_location("s3://b/f")
    version = DefinitionVersion(1, (SQLRepresentation("spark", "1"),), int(time.time() * 1000))
    for n, signature in enumerate(signatures):
        params = [FunctionParameter(f"p{i}", parse_type(kind)) for i, kind in enumerate(signature)]
        builder.add_definition(
            params, t("int"), version.replace(representations=(SQLRepresentation("spark", str(n)),))
        )
    return builder.build()


def chosen(md: object, *args: str | None) -> str:
    return resolve_definition(md, [None if a is None else parse_type(a) for a in args]).definition_id  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("source", "target", "cost"),
    [
        ("int", "int", 0),
        ("int", "long", 1),
        ("int", "decimal(10,0)", 2),
        ("int", "decimal(12,2)", 2),
        ("int", "decimal(9,0)", None),  # 2147483647 does not fit
        ("int", "decimal(11,2)", None),
        ("int", "double", 3),
        ("int", "float", None),  # 16777217 is not exact in a float
        ("long", "decimal(19,0)", 1),
        ("long", "decimal(20,2)", None),
        ("long", "double", None),  # 2^53 + 1 is not exact in a double
        ("long", "int", None),  # narrowing
        ("float", "double", 1),
        ("double", "float", None),
        ("decimal(9,2)", "decimal(10,2)", 1),
        ("decimal(9,2)", "decimal(10,3)", 1),
        ("decimal(9,2)", "decimal(9,3)", None),  # one digit fewer before the point
        ("decimal(9,2)", "decimal(12,1)", None),  # scale lost
        ("decimal(9,2)", "double", None),
        ("timestamp", "timestamp_ns", 1),
        ("timestamp", "timestamptz", None),  # a change of meaning, not a widening
        ("date", "timestamp", None),
        ("string", "binary", None),
        ("int", "string", None),
        ("uuid", "string", None),
    ],
)
def test_primitive_widenings(source: str, target: str, cost: int | None) -> None:
    assert widening_cost(parse_type(source), parse_type(target)) == cost


def test_nested_types_widen_element_by_element() -> None:
    assert widening_cost(ListType(t("int")), ListType(t("long"))) == 1
    assert widening_cost(ListType(t("long")), ListType(t("int"))) is None
    assert widening_cost(MapType(t("string"), t("float")), MapType(t("string"), t("double"))) == 1
    a = StructType((("a", t("int")), ("b", t("float"))))
    assert widening_cost(a, StructType((("a", t("long")), ("b", t("double"))))) == 2
    assert widening_cost(a, StructType((("b", t("double")), ("a", t("long"))))) is None  # names in order
    assert widening_cost(a, StructType((("a", t("long")),))) is None
    assert widening_cost(ListType(t("int")), t("int")) is None
    assert widening_cost(None, ListType(t("int"))) == 1  # NULL fits anything


def test_the_spec_appendix_a_overloads() -> None:
    md = function_metadata_from_json((DATA / "appendix-a-overloaded-scalar.json").read_text())
    ids = [d.definition_id for d in md.definitions]
    assert resolve_definition(md, [t(ids[0])]).definition_id == ids[0]
    assert resolve_definition(md, [t(ids[1])]).definition_id == ids[1]
    with pytest.raises(NoMatchingDefinitionError, match="cast the arguments"):
        resolve_definition(md, [t("string")], function="add_one")


def test_exact_beats_widening_and_the_closest_widening_wins() -> None:
    md = function(("long",), ("double",), ("decimal(12,2)",), ("int",))
    assert chosen(md, "int") == "int"
    md = function(("long",), ("double",), ("decimal(12,2)",))
    assert chosen(md, "int") == "long"
    assert chosen(md, "float") == "double"
    assert chosen(md, "decimal(5,1)") == "decimal(12,2)"
    with pytest.raises(NoMatchingDefinitionError, match=r"No definition of function\(string\)"):
        chosen(md, "string")
    assert chosen(function(("double",), ("decimal(10,0)",)), "int") == "decimal(10,0)"


def test_arity_and_ties() -> None:
    md = function(("long", "double"), ("double", "long"), ("int",))
    assert chosen(md, "int") == "int"
    with pytest.raises(AmbiguousFunctionCallError, match="cast the arguments"):
        chosen(md, "int", "int")  # (1, 3) against (3, 1): neither is closer in every argument
    assert chosen(md, "long", "double") == "long,double"
    with pytest.raises(NoMatchingDefinitionError):
        chosen(md, "int", "int", "int")
    with pytest.raises(NoMatchingDefinitionError):
        chosen(md)
    # a dominated candidate loses even though it matches
    assert chosen(function(("long", "long"), ("double", "long")), "int", "int") == "long,long"


def test_untyped_nulls() -> None:
    assert chosen(function(("int",)), None) == "int"
    with pytest.raises(AmbiguousFunctionCallError, match=r"function\(NULL\)"):
        chosen(function(("int",), ("string",)), None)
    assert chosen(function(("int", "string"), ("int", "long")), None, "string") == "int,string"


def test_named_arguments_match_the_set_of_names() -> None:
    builder = FunctionMetadataBuilder().set_location("s3://b/f")
    version = DefinitionVersion(1, (SQLRepresentation("spark", "1"),), 1)
    builder.add_definition(
        [FunctionParameter("Amount", t("decimal(12,2)")), FunctionParameter("rate", t("double"))],
        t("double"),
        version,
    )
    builder.add_definition([FunctionParameter("amount", t("int"))], t("int"), version)
    md = builder.build()
    got = resolve_definition(md, named={"rate": t("float"), "amount": t("int")})
    assert got.definition_id == "decimal(12,2),double"
    assert resolve_definition(md, named={"AMOUNT": t("int")}).definition_id == "int"
    with pytest.raises(NoMatchingDefinitionError, match="rate =>"):
        resolve_definition(md, named={"rate": t("double")})
    with pytest.raises(InvalidArgumentError, match="both positional and named"):
        resolve_definition(md, [t("int")], named={"amount": t("int")})


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(InvalidArgumentError, match="Invalid function metadata"):
        resolve_definition("not metadata", [t("int")])  # type: ignore[arg-type]


KINDS = [
    "int",
    "long",
    "float",
    "double",
    "decimal(10,0)",
    "decimal(12,2)",
    "decimal(20,2)",
    "string",
    "date",
]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(
        st.lists(st.sampled_from(KINDS), min_size=1, max_size=2), min_size=1, max_size=4, unique_by=tuple
    ),
    st.lists(st.sampled_from([*KINDS, None]), min_size=1, max_size=2),
)
def test_the_answer_does_not_depend_on_the_order_of_definitions(
    signatures: list[list[str]], call: list[str | None]
) -> None:
    """Any order of the same definitions gives the same answer (or the same refusal); an exact
    match, when there is one, is always the answer; the answer's parameters take the arguments."""
    answers = set()
    definition = None
    for order in list(permutations(signatures))[:6]:
        md = function(*(tuple(s) for s in order))
        try:
            definition = resolve_definition(md, [None if a is None else parse_type(a) for a in call])  # type: ignore[arg-type]
            answers.add(definition.definition_id)
        except (AmbiguousFunctionCallError, NoMatchingDefinitionError) as e:
            answers.add(type(e).__name__)
    assert len(answers) == 1, answers
    answer = answers.pop()
    if list(call) in signatures:
        assert answer == ",".join(c for c in call if c is not None)
    if definition is not None:
        for argument, parameter in zip(call, definition.parameters, strict=True):
            assert (
                widening_cost(None if argument is None else parse_type(argument), parameter.type) is not None
            )


def test_appendix_b_has_one_definition() -> None:
    md = function_metadata_from_json(json.dumps(json.loads((DATA / "appendix-b-udtf.json").read_text())))
    only = md.definitions[0]
    arguments = [p.type for p in only.parameters]
    assert resolve_definition(md, arguments) is only
