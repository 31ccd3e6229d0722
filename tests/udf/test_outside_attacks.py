"""Outside attacks on ``iceview.udf`` (written against the UDF spec and docs/functions.md +
docs/compatibility.md "SQL UDF metadata", not against the implementation).

Each test states the behaviour the spec/docs require. A test marked
``xfail(strict=True, reason=...)`` is a suspected bug: the reason is the finding. Remove the
mark when it is fixed.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iceview.errors import (
    CommitFailedError,
    IceviewError,
    InvalidArgumentError,
    InvalidMetadataError,
)
from iceview.udf import (
    VERSION_HISTORY_SIZE,
    AddDefinition,
    AssertCreate,
    AssertCurrentDefinitions,
    AssertFunctionUUID,
    DefinitionLogEntry,
    DefinitionVersion,
    FunctionMetadataBuilder,
    FunctionParameter,
    ListType,
    MapType,
    PrimitiveType,
    RemoveDefinition,
    SQLRepresentation,
    StructType,
    UnknownRepresentation,
    apply,
    canonical,
    definition_id,
    function_metadata_from_dict,
    function_metadata_from_json,
    function_metadata_to_dict,
    function_metadata_to_json,
    parse_type,
    requirement_from_dict,
    type_to_json,
    update_from_dict,
    validate,
)

# ---------------------------------------------------------------------------------------------
# The spec's two appendix examples, verbatim.
# ---------------------------------------------------------------------------------------------

APPENDIX_A = r"""
{
  "function-uuid": "42fd3f91-bc10-41c1-8a52-92b57dd0a9b2",
  "format-version": 1,
  "definitions": [
    {
      "definition-id": "int",
      "parameters": [
        {
          "name": "x", "type": "int", "doc": "Input integer"
        }
      ],
      "return-type": "int",
      "function-type": "udf",
      "doc": "Add one to the input integer",
      "versions": [
        {
          "version-id": 1,
          "deterministic": true,
          "representations": [
            { "type": "sql", "dialect": "trino", "sql": "x + 2" }
          ],
          "timestamp-ms": 1734507000123
        },
        {
          "version-id": 2,
          "deterministic": true,
          "representations": [
            { "type": "sql", "dialect": "trino", "sql": "x + 1" },
            { "type": "sql", "dialect": "spark", "sql": "x + 1" }
          ],
          "timestamp-ms": 1735507000124
        }
      ],
      "current-version-id": 2
    },
    {
      "definition-id": "float",
      "parameters": [
        {
          "name": "x", "type": "float", "doc": "Input float"
        }
      ],
      "return-type": "float",
      "function-type": "udf",
      "doc": "Add one to the input float",
      "versions": [
        {
          "version-id": 1,
          "deterministic": true,
          "representations": [
            { "type": "sql", "dialect": "trino", "sql": "x + 1.0" }
          ],
          "timestamp-ms": 1734507001123
        }
      ],
      "current-version-id": 1
    }
  ],
  "definition-log": [
    {
      "timestamp-ms": 1734507000123,
      "definition-versions": [
        { "definition-id": "int", "version-id": 1 }
      ]
    },
    {
      "timestamp-ms": 1734507001123,
      "definition-versions": [
        { "definition-id": "int", "version-id": 1 },
        { "definition-id": "float", "version-id": 1 }
      ]
    },
    {
      "timestamp-ms": 1735507000124,
      "definition-versions": [
        { "definition-id": "int", "version-id": 2 },
        { "definition-id": "float", "version-id": 1 }
      ]
    }
  ],
  "doc": "Overloaded scalar UDF for integer and float inputs",
  "secure": false
}
"""

APPENDIX_B = r"""
{
  "function-uuid": "8a7fa39a-6d8f-4a2f-9d8d-3f3a8f3c2a10",
  "format-version": 1,
  "definitions": [
    {
      "definition-id": "string",
      "parameters": [
        {
          "name": "c", "type": "string", "doc": "Color of fruits"
        }
      ],
      "return-type": {
        "type": "struct",
        "fields": [
          { "name": "name", "type": "string" },
          { "name": "color", "type": "string" }
        ]
      },
      "function-type": "udtf",
      "doc": "Return fruits of a specific color from the fruits table",
      "versions": [
        {
          "version-id": 1,
          "deterministic": true,
          "representations": [
            { "type": "sql", "dialect": "trino", "sql": "SELECT name, color FROM fruits WHERE color = c" },
            { "type": "sql", "dialect": "spark", "sql": "SELECT name, color FROM fruits WHERE color = c" }
          ],
          "timestamp-ms": 1734508000123
        }
      ],
      "current-version-id": 1
    }
  ],
  "definition-log": [
    {
      "timestamp-ms": 1734508000123,
      "definition-versions": [
        { "definition-id": "string", "version-id": 1 }
      ]
    }
  ],
  "doc": "UDTF returning (name, color) rows filtered by the given color",
  "secure": false
}
"""

A = json.loads(APPENDIX_A)
B = json.loads(APPENDIX_B)
UUID_A = A["function-uuid"]
INT = PrimitiveType("int")
STR = PrimitiveType("string")
BIG = "x" * 1_000_000
# A message may quote a value, but not a megabyte of one.
MAX_MESSAGE = 2_000


def mutated(path, value, base=None, delete=False):
    doc = copy.deepcopy(A if base is None else base)
    cur = doc
    for part in path[:-1]:
        cur = cur[part]
    if delete:
        cur.pop(path[-1], None)
    else:
        cur[path[-1]] = value
    return doc


def raises_typed(fn, *args, exc=IceviewError, **kwargs):
    """Call ``fn``; it must raise a typed iceview exception (never a bare builtin one)."""
    try:
        fn(*args, **kwargs)
    except IceviewError as e:
        assert isinstance(e, exc), f"{type(e).__name__} is not a {exc.__name__}: {e}"
        return e
    except BaseException as e:
        pytest.fail(f"bare {type(e).__name__} instead of an iceview error: {str(e)[:300]}")
    pytest.fail("no error raised")


def read_err(doc):
    return raises_typed(function_metadata_from_dict, doc, exc=InvalidMetadataError)


def roundtrip(metadata):
    text = function_metadata_to_json(metadata)
    again = function_metadata_from_json(text)
    assert again == metadata
    assert function_metadata_to_json(again) == text
    pretty = function_metadata_to_json(metadata, pretty=True)
    assert function_metadata_from_json(pretty) == metadata
    return again


def version(sql="x + 1", ts=1_000, dialect="spark", **kw):
    return DefinitionVersion(0, (SQLRepresentation(dialect, sql),), ts, **kw)


def simple(*, props=None):
    b = FunctionMetadataBuilder()
    if props:
        b = b.set_properties(props)
    return b.add_definition([FunctionParameter("x", INT)], INT, version("x + 0", 1)).build()


def deep_list_json(n, leaf="int"):
    t = leaf
    for _ in range(n):
        t = {"type": "list", "element": t}
    return t


def deep_list_model(n):
    t = INT
    for _ in range(n):
        t = ListType(t)
    return t


# =============================================================================================
# 1. Malformed JSON shapes
# =============================================================================================

D0 = ["definitions", 0]
V0 = [*D0, "versions", 0]
FIELDS = {
    # path: (JSON type, required)
    ("function-uuid",): ("string", True),
    ("format-version",): ("int", True),
    ("definitions",): ("list", True),
    ("definition-log",): ("list", True),
    ("location",): ("string", False),
    ("properties",): ("map", False),
    ("secure",): ("bool", False),
    ("doc",): ("string", False),
    tuple([*D0, "definition-id"]): ("string", True),
    tuple([*D0, "specific-name"]): ("string", False),
    tuple([*D0, "parameters"]): ("list", True),
    tuple([*D0, "return-type"]): ("type", True),
    tuple([*D0, "return-nullable"]): ("bool", False),
    tuple([*D0, "versions"]): ("list", True),
    tuple([*D0, "current-version-id"]): ("int", True),
    tuple([*D0, "function-type"]): ("enum", True),
    tuple([*D0, "doc"]): ("string", False),
    tuple([*D0, "parameters", 0, "name"]): ("string", True),
    tuple([*D0, "parameters", 0, "type"]): ("type", True),
    tuple([*D0, "parameters", 0, "doc"]): ("string", False),
    tuple([*V0, "version-id"]): ("int", True),
    tuple([*V0, "representations"]): ("list", True),
    tuple([*V0, "deterministic"]): ("bool", False),
    tuple([*V0, "on-null-input"]): ("enum", False),
    tuple([*V0, "timestamp-ms"]): ("long", True),
    tuple([*V0, "representations", 0, "dialect"]): ("string", True),
    tuple([*V0, "representations", 0, "sql"]): ("string", True),
    ("definition-log", 0, "timestamp-ms"): ("long", True),
    ("definition-log", 0, "definition-versions"): ("list", True),
    ("definition-log", 0, "definition-versions", 0, "definition-id"): ("string", True),
    ("definition-log", 0, "definition-versions", 0, "version-id"): ("int", True),
}
WRONG = {
    "string": [1, 1.5, True, [], {}, 2**64],
    "int": [1.0, 1.5, True, "1", [], {}, 2**31, -(2**31) - 1, 2**64],
    "long": [1.0, 1.5, True, "1", [], {}, 2**63, -(2**63) - 1, 2**70],
    "bool": [0, 1, "true", [], {}, 1.0],
    "list": [1, "x", {}, True, 1.5],
    "map": [[], "x", 1, True],
    "enum": [1, True, [], {}, "", "bogus"],
    "type": [1, True, [], {}, "", "bogus", 1.5],
}


def _wrong_cases():
    for path, (kind, _required) in FIELDS.items():
        for value in WRONG[kind]:
            yield pytest.param(path, value, id=f"{'.'.join(map(str, path))}={value!r}"[:80])


@pytest.mark.parametrize(("path", "value"), list(_wrong_cases()))
def test_wrong_json_type_is_refused_with_its_path(path, value):
    e = read_err(mutated(list(path), value))
    field = str(path[-1])
    assert field in str(e) or field in getattr(e, "path", ""), str(e)
    assert len(str(e)) < MAX_MESSAGE


@pytest.mark.parametrize(
    "path", [pytest.param(p, id=".".join(map(str, p))) for p, (_k, req) in FIELDS.items() if req]
)
def test_missing_required_field_is_refused(path):
    e = read_err(mutated(list(path), None, delete=True))
    assert str(path[-1]) in str(e)


@pytest.mark.parametrize(
    "path", [pytest.param(p, id=".".join(map(str, p))) for p, (_k, req) in FIELDS.items() if not req]
)
def test_missing_optional_field_is_fine(path):
    m = function_metadata_from_dict(mutated(list(path), None, delete=True))
    function_metadata_to_json(m)


def test_null_in_optional_field_means_absent():
    for path in (
        ["doc"],
        ["location"],
        ["secure"],
        [*D0, "doc"],
        [*D0, "specific-name"],
        [*V0, "deterministic"],
    ):
        m = function_metadata_from_dict(mutated(path, None))
        function_metadata_to_json(m)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ([*V0, "version-id"], 0),
        ([*V0, "version-id"], -1),
        ([*D0, "current-version-id"], -1),
        ([*D0, "current-version-id"], 0),
        ([*V0, "timestamp-ms"], -1),
        (["definition-log", 0, "timestamp-ms"], -1),
        (["definition-log", 0, "definition-versions", 0, "version-id"], -1),
        (["function-uuid"], ""),
        (["function-uuid"], "not-a-uuid"),
        ([*D0, "parameters", 0, "name"], ""),
        ([*V0, "representations", 0, "dialect"], ""),
        ([*V0, "representations", 0, "dialect"], "  "),
        ([*V0, "representations", 0, "sql"], ""),
        ([*V0, "representations", 0, "sql"], " \n\t"),
        ([*V0, "representations"], []),
        ([*D0, "versions"], []),
        (["definitions"], []),
        (["definition-log"], []),
    ],
    ids=lambda v: str(v)[:40],
)
def test_lenient_read_but_strict_write(path, value):
    """Negative ids, empty strings and empty lists: read (validate reports), never written."""
    m = function_metadata_from_dict(mutated(path, value))
    assert validate(m)
    e = raises_typed(function_metadata_to_json, m, exc=InvalidMetadataError)
    assert "Cannot write function metadata" in str(e)
    assert e.path.startswith("$.")


def test_format_version_other_than_1_is_refused_first():
    doc = mutated(["format-version"], 2)
    doc["definitions"] = "garbage"
    e = read_err(doc)
    assert "Unsupported format version: 2" in str(e)


def test_unknown_fields_are_ignored_at_every_level():
    doc = copy.deepcopy(A)

    def junk(o):
        if isinstance(o, dict):
            for v in list(o.values()):
                junk(v)
            o["x-unknown"] = {"nested": [1, None, {"a": "b"}], "deep": deep_list_json(3)}
        elif isinstance(o, list):
            for v in o:
                junk(v)

    junk(doc)
    assert function_metadata_from_dict(doc) == function_metadata_from_dict(A)
    assert function_metadata_to_dict(function_metadata_from_dict(doc)) == A


def test_type_objects_extra_fields_are_ignored():
    t = parse_type(
        {
            "type": "STRUCT",
            "fields": [
                {"id": 1, "name": "a", "required": True, "doc": "d", "initial-default": 5, "type": "INT"},
                {
                    "name": "b",
                    "type": {"type": "List", "element-id": 3, "element-required": False, "element": "long"},
                },
            ],
        }
    )
    assert canonical(t) == "struct<a:int,b:list<long>>"
    assert type_to_json(t) == {
        "type": "struct",
        "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": {"type": "list", "element": "long"}}],
    }


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "list"},
        {"type": "list", "element": None},
        {"type": "map", "key": "string"},
        {"type": "map", "value": "int"},
        {"type": "struct"},
        {"type": "struct", "fields": {}},
        {"type": "struct", "fields": ["int"]},
        {"type": "struct", "fields": [{"type": "int"}]},
        {"type": "struct", "fields": [{"name": "a"}]},
        {"type": "struct", "fields": [{"name": 5, "type": "int"}]},
        {"type": 5},
        {"type": None},
        {"type": "int"},
        {"element": "int"},
        {"type": {"type": "list", "element": "int"}},
        "list<int>",
        "struct",
        " int",
        "in t",
        "int\x00",
        "decimal(39,0)",
        "decimal(-1,2)",
        "decimal(99999999999999999999,1)",
        "fixed[-1]",
        "fixed[99999999999999999999]",
        "decimal(\u0669,\u0662)",
        "\u017ftring",  # long s: str.casefold() would make it "string"; Java refuses it
        "\u0131nt",  # dotless i: str.upper() would make it "INT"
    ],
    ids=lambda v: repr(v)[:40],
)
def test_bad_type_json_is_refused(bad):
    raises_typed(parse_type, bad, exc=InvalidMetadataError)
    doc = mutated([*D0, "parameters", 0, "type"], bad)
    read_err(doc)


@pytest.mark.parametrize("n", [101, 1_000, 10_000])
def test_deeply_nested_type_dict_is_refused_quickly(n):
    t0 = time.monotonic()
    for path in ([*D0, "parameters", 0, "type"], [*D0, "return-type"]):
        e = read_err(mutated(path, deep_list_json(n)))
        assert "100" in str(e)
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("kind", ["list", "map", "struct"])
def test_deeply_nested_type_of_each_kind_is_refused(kind):
    t = "int"
    for _ in range(10_000):
        if kind == "list":
            t = {"type": "list", "element": t}
        elif kind == "map":
            t = {"type": "map", "key": "string", "value": t}
        else:
            t = {"type": "struct", "fields": [{"name": "a", "type": t}]}
    raises_typed(parse_type, t, exc=InvalidMetadataError)


@pytest.mark.parametrize("n", [10_000, 100_000])
def test_deeply_nested_json_text_is_refused(n):
    text = json.dumps(A)
    deep = '{"type":"list","element":' * n + '"int"' + "}" * n
    t1 = text.replace(
        '"type": "int", "doc": "Input integer"', '"type": ' + deep + ', "doc": "Input integer"', 1
    )
    assert t1 != text
    raises_typed(function_metadata_from_json, t1, exc=InvalidMetadataError)
    t2 = text.replace("{", '{"x-junk":' + "[" * n + "]" * n + ",", 1)
    raises_typed(function_metadata_from_json, t2, exc=InvalidMetadataError)


def test_deeply_nested_definition_id_string_is_refused():
    for n in (10_000, 100_000):
        read_err(mutated([*D0, "definition-id"], "list<" * n + "int" + ">" * n))


def test_deep_model_type_gives_typed_error():
    t = deep_list_model(10_000)
    raises_typed(canonical, t)
    raises_typed(type_to_json, t)
    raises_typed(definition_id, [t])


def test_builder_with_deep_model_type_gives_typed_error():
    t = deep_list_model(5_000)
    raises_typed(
        lambda: FunctionMetadataBuilder().add_definition([FunctionParameter("x", t)], INT, version()).build()
    )
    raises_typed(
        lambda: FunctionMetadataBuilder().add_definition([FunctionParameter("x", INT)], t, version()).build()
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "null",
        "1",
        '"x"',
        "[]",
        "{",
        json.dumps(A) + " x",
        json.dumps(A) + json.dumps(A),
        json.dumps(A).replace("1734507000123", "NaN", 1),
        json.dumps(A).replace('"format-version": 1', '"format-version": Infinity'),
        json.dumps(A).replace("1734507000123", "1e400", 1),
        json.dumps(A).replace("1734507000123", "9" * 5_000, 1),
        json.dumps(A).replace('"format-version": 1', '"format-version": 1.0'),
        json.dumps(A).replace('"format-version": 1', '"format-version": 1e0'),
        json.dumps(A).replace("Input integer", "Input \\ud800"),
        b"\xef\xbb\xbf" + json.dumps(A).encode(),
        json.dumps(A).encode().replace(b"Input integer", b"Input \xff\xfe"),
        json.dumps(A).encode("utf-16"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_malformed_json_text_is_typed(text):
    e = raises_typed(function_metadata_from_json, text, exc=InvalidMetadataError)
    assert len(str(e)) < MAX_MESSAGE


def test_reader_accepts_bytes_like():
    text = json.dumps(A)
    for data in (text, text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        assert function_metadata_from_json(data) == function_metadata_from_dict(A)


@pytest.mark.parametrize("arg", [None, 5], ids=["None", "int"])
def test_reader_wrong_argument_type_is_typed(arg):
    raises_typed(function_metadata_from_json, arg, exc=InvalidMetadataError)


@pytest.mark.parametrize("arg", [A, [A], 1.5, object()], ids=["dict", "list", "float", "object"])
def test_reader_given_a_decoded_value_is_typed(arg):
    raises_typed(function_metadata_from_json, arg, exc=InvalidMetadataError)


def test_duplicate_json_keys_do_not_crash_and_stay_consistent():
    """Spec and docs are silent; Jackson keeps the last value. Either a typed refusal or a
    consistent read (a single value, written back once) is acceptable."""
    text = json.dumps(A)
    other = B["function-uuid"]
    dup = text.replace(
        f'"function-uuid": "{UUID_A}"', f'"function-uuid": "{UUID_A}", "function-uuid": "{other}"'
    )
    try:
        m = function_metadata_from_json(dup)
    except InvalidMetadataError:
        return
    assert m.function_uuid in (UUID_A, other)
    out = function_metadata_to_json(m)
    assert out.count('"function-uuid"') == 1
    dup_cv = text.replace('"current-version-id": 2', '"current-version-id": 7, "current-version-id": 2')
    m2 = function_metadata_from_json(dup_cv)
    assert m2.current_definition_versions == {"int": 2, "float": 1}


def test_very_long_strings_round_trip():
    doc = copy.deepcopy(A)
    doc["doc"] = BIG
    doc["definitions"][0]["versions"][1]["representations"][1]["sql"] = "x + " + "1 + " * 200_000 + "1"
    doc["properties"] = {"k" * 10_000: "v" * 100_000}
    m = function_metadata_from_dict(doc)
    roundtrip(m)


def test_non_ascii_and_nul_round_trip():
    doc = copy.deepcopy(A)
    d = doc["definitions"][0]
    d["parameters"][0]["name"] = "x\x00\u00e9\U0001f600"
    d["versions"][1]["representations"][0]["sql"] = "x\x00 + 1 -- \u65e5\u672c\u8a9e \U0001f600 \u2028\u2029"
    d["doc"] = "\x00\u2028"
    d["specific-name"] = "\u540d\x00"
    doc["doc"] = "\u00e9" * 10
    doc["properties"] = {
        "\x00k": "\x00v",
        "\u043a\u043b\u044e\u0447": "\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435",
    }
    doc["location"] = "s3://b/\u00e9\x00"
    m = function_metadata_from_dict(doc)
    again = roundtrip(m)
    assert again.definitions[0].parameters[0].name == "x\x00\u00e9\U0001f600"


# --- error messages must not echo large inputs ------------------------------------------------

_BIG_READS = [
    ("uuid-list", lambda: function_metadata_from_dict(mutated(["function-uuid"], [BIG]))),
    ("format-version-str", lambda: function_metadata_from_dict(mutated(["format-version"], BIG))),
    ("param-type", lambda: function_metadata_from_dict(mutated([*D0, "parameters", 0, "type"], BIG))),
    ("definition-id", lambda: function_metadata_from_dict(mutated([*D0, "definition-id"], BIG))),
    ("function-type", lambda: function_metadata_from_dict(mutated([*D0, "function-type"], BIG))),
    ("on-null-input", lambda: function_metadata_from_dict(mutated([*V0, "on-null-input"], BIG))),
    ("secure-object", lambda: function_metadata_from_dict(mutated(["secure"], {"a": BIG}))),
    ("properties-list", lambda: function_metadata_from_dict(mutated(["properties"], [BIG]))),
    ("top-level-list", lambda: function_metadata_from_json(json.dumps([BIG]))),
    ("top-level-string", lambda: function_metadata_from_dict(BIG)),
    ("update-action", lambda: update_from_dict({"action": BIG})),
    ("update-non-object", lambda: update_from_dict([BIG])),
    ("requirement-type", lambda: requirement_from_dict({"type": BIG})),
    ("parse-type-object", lambda: parse_type({"type": BIG})),
    ("primitive-type", lambda: PrimitiveType(BIG)),
    (
        "uuid-write",
        lambda: function_metadata_to_json(function_metadata_from_dict(mutated(["function-uuid"], BIG))),
    ),
]


@pytest.mark.parametrize(("name", "call"), _BIG_READS, ids=[n for n, _ in _BIG_READS])
def test_error_messages_do_not_echo_large_values(name, call):
    e = raises_typed(call)
    assert len(str(e)) < MAX_MESSAGE, f"{name}: message is {len(str(e))} characters"


def test_error_messages_of_malformed_large_text_are_bounded():
    for text in ("[" + BIG, '{"function-uuid": "' + BIG):
        e = raises_typed(function_metadata_from_json, text, exc=InvalidMetadataError)
        assert len(str(e)) < MAX_MESSAGE


def test_null_properties_means_absent():
    m = function_metadata_from_dict(mutated(["properties"], None))
    assert dict(m.properties) == {}


# =============================================================================================
# 2. Definition-id rules
# =============================================================================================

ALL_PRIMITIVES = [
    "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
    "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "variant", "unknown",
    "decimal(9,2)", "decimal(38,0)", "fixed[16]", "geometry", "geography", "geometry(srid:4326)",
    "geography(srid:4326,spherical)",
]  # fmt: skip


def single_def_doc(param_types, defid, return_type="float", function_type="udf"):
    doc = copy.deepcopy(A)
    d = copy.deepcopy(A["definitions"][1])
    d["parameters"] = [{"name": f"p{i}", "type": t} for i, t in enumerate(param_types)]
    d["definition-id"] = defid
    d["return-type"] = return_type
    d["function-type"] = function_type
    doc["definitions"] = [d]
    doc["definition-log"] = [
        {"timestamp-ms": 1, "definition-versions": [{"definition-id": defid, "version-id": 1}]}
    ]
    return doc


@pytest.mark.parametrize("name", ALL_PRIMITIVES)
def test_every_primitive_kind_is_its_own_definition_id(name):
    t = parse_type(name)
    assert canonical(t) == name
    assert type_to_json(t) == name
    m = function_metadata_from_dict(single_def_doc([name], name))
    assert m.definitions[0].definition_id == name
    roundtrip(m)
    built = FunctionMetadataBuilder().add_definition([FunctionParameter("p", t)], INT, version()).build()
    assert built.definition_ids == (name,)
    roundtrip(built)


def test_nested_kinds_definition_ids():
    lst = {"type": "list", "element": "int"}
    mp = {"type": "map", "key": "string", "value": {"type": "list", "element": "decimal(9,2)"}}
    st_ = {"type": "struct", "fields": [{"name": "id", "type": "int"}, {"name": "Name", "type": "string"}]}
    want = "int,list<int>,map<string,list<decimal(9,2)>>,struct<id:int,Name:string>"
    assert definition_id([parse_type(t) for t in ("int", lst, mp, st_)]) == want
    roundtrip(function_metadata_from_dict(single_def_doc(["int", lst, mp, st_], want)))


def test_empty_parameter_list():
    assert definition_id([]) == ""
    m = function_metadata_from_dict(single_def_doc([], ""))
    assert m.definition_ids == ("",)
    roundtrip(m)
    b = FunctionMetadataBuilder().add_definition([], INT, version("1")).build()
    assert b.definition_ids == ("",)
    raises_typed(
        lambda: FunctionMetadataBuilder(b).add_definition([], STR, version("'a'")), exc=InvalidArgumentError
    )


@pytest.mark.parametrize(
    ("types", "spelled", "canon"),
    [
        (["int", "string"], "int , string", "int,string"),
        (["int", "string"], " INT,STRING ", "int,string"),
        (["decimal(9,2)"], "decimal(9, 2)", "decimal(9,2)"),
        (["Decimal( 9 , 2 )"], "DECIMAL( 9 , 2 )", "decimal(9,2)"),
        (["decimal(9,2)"], "decimal(09,2)", "decimal(9,2)"),
        (["fixed[16]"], "FIXED[ 16 ]", "fixed[16]"),
        ([{"type": "list", "element": "int"}], "LIST < INT >", "list<int>"),
        ([{"type": "map", "key": "string", "value": {"type": "list", "element": "decimal(9,2)"}}],
         "MAP<String , List<Decimal(9, 2)>>", "map<string,list<decimal(9,2)>>"),
        ([{"type": "struct", "fields": [{"name": "id", "type": "int"}, {"name": "Name", "type": "string"}]}],
         "STRUCT< id : INT , Name : STRING >", "struct<id:int,Name:string>"),
        ([{"type": "struct", "fields": [{"name": "g", "type": "geometry(EPSG:4326)"}]}],
         "Struct<g : Geometry(EPSG:4326)>", "struct<g:geometry(EPSG:4326)>"),
        (["geography(A:1,karney)"], "geography(A:1, KARNEY)", "geography(A:1,karney)"),
        ([], " ", ""),
    ],
    ids=lambda v: str(v)[:40],
)  # fmt: skip
def test_lenient_definition_id_spellings_are_taken_and_kept_canonical(types, spelled, canon):
    m = function_metadata_from_dict(single_def_doc(types, spelled))
    assert m.definitions[0].definition_id == canon
    assert m.definition_log[-1].definition_versions == ((canon, 1),)
    assert m.definition(spelled) is not None
    out = function_metadata_to_dict(m)
    assert out["definitions"][0]["definition-id"] == canon
    assert out["definition-log"][-1]["definition-versions"][0]["definition-id"] == canon
    roundtrip(m)


@pytest.mark.parametrize(
    ("types", "defid"),
    [
        (["int"], "long"),
        (["int"], "int,"),
        (["int"], ""),
        ([], ","),
        ([], "int"),
        (["int", "string"], "string,int"),
        (["int", "string"], "int,,string"),
        (["int", "string"], "int\u00a0,string"),
        (["int", "string"], "int string"),
        ([{"type": "list", "element": "int"}], "array<int>"),
        ([{"type": "list", "element": "int"}], "list<long>"),
        ([{"type": "struct", "fields": [{"name": "Name", "type": "int"}]}], "struct<name:int>"),
        ([{"type": "struct", "fields": [{"name": "a", "type": "int"}]}], "struct<a int>"),
        ([{"type": "struct", "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}]}], "struct<b:int,a:int>"),
        (["decimal(9,2)"], "decimal(9,3)"),
        (["fixed[16]"], "fixed[17]"),
        (["geometry(A:1)"], "geometry(a:1)"),
    ],
    ids=lambda v: str(v)[:40],
)  # fmt: skip
def test_definition_id_that_mismatches_its_parameters_is_refused(types, defid):
    e = read_err(single_def_doc(types, defid))
    assert "definition-id" in str(e) or "definition-id" in e.path


def test_two_definitions_with_one_signature_are_refused_on_read():
    doc = copy.deepcopy(A)
    doc["definitions"][1] = copy.deepcopy(A["definitions"][0])
    read_err(doc)
    doc["definitions"][1]["definition-id"] = " INT "  # same signature, other spelling
    e = read_err(doc)
    assert "int" in str(e)


def test_builder_refuses_a_second_definition_with_the_same_signature():
    b = FunctionMetadataBuilder().add_definition(
        [FunctionParameter("x", PrimitiveType("decimal(9,2)"))], INT, version()
    )
    raises_typed(
        b.add_definition,
        [FunctionParameter("y", PrimitiveType("DECIMAL( 9, 2 )"))],
        STR,
        version(),
        exc=InvalidArgumentError,
    )
    m = simple()
    raises_typed(
        lambda: (
            FunctionMetadataBuilder(m)
            .add_definition([FunctionParameter("other", INT)], STR, version())
            .build()
        ),
        exc=InvalidArgumentError,
    )


SEPARATOR_NAMES = [
    "a b",
    "a,b",
    "a:b",
    "a<b",
    "a>b",
    "a`b",
    'a"b',
    "a'b",
    "",
    "a\tb",
    "a\nb",
    "a\u00a0b",
    "a\u3000b",
]


@pytest.mark.parametrize("name", SEPARATOR_NAMES, ids=repr)
def test_struct_field_names_with_separators_in_parameters(name):
    t = StructType(((name, INT),))
    # builder / definition_id: refused, naming the field and the parameter
    e = raises_typed(definition_id, [t], exc=InvalidArgumentError)
    assert "parameter 0" in str(e)
    raises_typed(
        lambda: FunctionMetadataBuilder().add_definition([FunctionParameter("p", t)], INT, version()),
        exc=InvalidArgumentError,
    )
    # reader: accepted; writer: refused
    naive = f"struct<{name}:int>"
    doc = single_def_doc([{"type": "struct", "fields": [{"name": name, "type": "int"}]}], naive)
    m = function_metadata_from_dict(doc)
    assert any(p.code == "ambiguous-field-name" for p in validate(m))
    raises_typed(function_metadata_to_json, m, exc=InvalidMetadataError)


@pytest.mark.parametrize("name", SEPARATOR_NAMES, ids=repr)
def test_struct_field_names_with_separators_are_fine_in_udtf_output(name):
    ret = StructType(((name or "c", INT), ("other", STR)))
    m = (
        FunctionMetadataBuilder()
        .add_definition([FunctionParameter("x", INT)], ret, version("select 1"), function_type="udtf")
        .build()
    )
    roundtrip(m)


def test_the_ambiguous_pair_of_signatures_cannot_both_be_written():
    """struct<'a:int,b':int> and struct<a:int,b:int> would share one definition-id."""
    ambiguous = {"type": "struct", "fields": [{"name": "a:int,b", "type": "int"}]}
    m = function_metadata_from_dict(single_def_doc([ambiguous], "struct<a:int,b:int>"))
    raises_typed(function_metadata_to_json, m, exc=InvalidMetadataError)


@pytest.mark.parametrize(
    ("types", "spelled"),
    [
        (["geometry(a>b)", "int"], "GEOMETRY(a>b),INT"),
        ([{"type": "list", "element": "geometry(a>b)"}, "int"], "LIST< geometry(a>b) >, int"),
    ],
)
def test_crs_with_separators_either_refused_or_read_leniently(types, spelled):
    doc = single_def_doc(types, spelled)
    canon = ",".join(canonical(parse_type(t)) for t in types)
    try:
        m = function_metadata_from_dict(single_def_doc(types, canon))
    except InvalidMetadataError:
        return  # refusing such a CRS is fine too
    try:
        function_metadata_to_json(m)
    except InvalidMetadataError:
        return  # so is refusing to write it
    assert function_metadata_from_dict(doc).definitions[0].definition_id == canon


def test_geography_with_unknown_edge_algorithm_is_refused():
    raises_typed(parse_type, "geography(x,bogus)", exc=InvalidMetadataError)
    raises_typed(PrimitiveType, "geography(x,bogus)", exc=InvalidArgumentError)


def test_geography_known_edge_algorithms_are_taken():
    for alg in ("spherical", "VINCENTY", "Thomas", "andoyer", "karney"):
        assert canonical(parse_type(f"geography(c,{alg})")) == f"geography(c,{alg.lower()})"


def test_decimal_and_fixed_spellings():
    assert PrimitiveType("Decimal( 9, 2 )").name == "decimal(9,2)"
    assert PrimitiveType("FIXED[ 16 ]").name == "fixed[16]"
    assert PrimitiveType("decimal(38,38)").name == "decimal(38,38)"
    e = raises_typed(PrimitiveType, "decimal(39,0)", exc=InvalidArgumentError)
    assert "Decimals with precision larger than 38 are not supported: 39" in str(e)
    for bad in ("decimal(9,2", "decimal(9;2)", "decimal(9,2,1)", "fixed[]", "fixed(16)", "decimal()"):
        raises_typed(PrimitiveType, bad, exc=InvalidArgumentError)


# =============================================================================================
# 3. Round trips
# =============================================================================================


@pytest.mark.parametrize("text", [APPENDIX_A, APPENDIX_B], ids=["appendix-a", "appendix-b"])
def test_spec_appendix_reads_and_writes_back_to_equivalent_json(text):
    original = json.loads(text)
    m = function_metadata_from_json(text)
    assert function_metadata_to_dict(m) == original
    assert json.loads(function_metadata_to_json(m)) == original
    assert json.loads(function_metadata_to_json(m, pretty=True)) == original
    assert validate(m) == []
    roundtrip(m)


def test_appendix_a_model_matches_the_spec():
    m = function_metadata_from_json(APPENDIX_A)
    assert m.definition_ids == ("int", "float")
    assert m.current_definition_versions == {"int": 2, "float": 1}
    assert m.current_version("int").sql_for("SPARK") == SQLRepresentation("spark", "x + 1")
    assert m.current_version("int").sql_for("hive") is None
    assert m.definition_log[-1].definition_versions == (("int", 2), ("float", 1))
    b = function_metadata_from_json(APPENDIX_B)
    d = b.definitions[0]
    assert d.function_type == "udtf"
    assert d.return_type == StructType((("name", STR), ("color", STR)))


PRIM_NAMES = [
    "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
    "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "variant", "unknown",
    "geometry", "geography",
]  # fmt: skip
prims = st.one_of(
    st.sampled_from(PRIM_NAMES),
    st.tuples(st.integers(0, 38), st.integers(0, 38)).map(lambda ps: f"decimal({ps[0]},{ps[1]})"),
    st.integers(0, 2**31 - 1).map(lambda n: f"fixed[{n}]"),
).map(PrimitiveType)
field_names = st.text(alphabet="abcXYZ_09", min_size=1, max_size=4)
types = st.recursive(
    prims,
    lambda ch: st.one_of(
        ch.map(ListType),
        st.tuples(ch, ch).map(lambda kv: MapType(*kv)),
        st.lists(st.tuples(field_names, ch), max_size=3, unique_by=lambda f: f[0]).map(
            lambda fs: StructType(tuple(fs))
        ),
    ),
    max_leaves=6,
)
structs = st.lists(st.tuples(field_names, types), min_size=1, max_size=3, unique_by=lambda f: f[0]).map(
    lambda fs: StructType(tuple(fs))
)
sql_text = st.text(min_size=1, max_size=30).filter(lambda s: s.strip())
bodies = st.builds(
    lambda reps, det, oni, ts: DefinitionVersion(0, tuple(reps), ts, deterministic=det, on_null_input=oni),
    st.lists(
        st.tuples(st.sampled_from(["spark", "trino", "duckdb", "Hive"]), sql_text),
        min_size=1,
        max_size=3,
        unique_by=lambda r: r[0].lower(),
    ).map(lambda rs: [SQLRepresentation(d, s) for d, s in rs]),
    st.booleans(),
    st.sampled_from(["call", "return-null"]),
    st.integers(0, 2**63 - 1),
)


@st.composite
def definitions(draw):
    names = draw(
        st.lists(st.text(alphabet="xyzXYZ_1", min_size=1, max_size=3), max_size=3, unique_by=str.casefold)
    )
    params = [FunctionParameter(n, draw(types), draw(st.none() | st.text(max_size=5))) for n in names]
    udtf = draw(st.booleans())
    ret = draw(structs) if udtf else draw(types)
    return dict(
        parameters=params,
        return_type=ret,
        function_type="udtf" if udtf else "udf",
        return_nullable=draw(st.booleans()),
        doc=draw(st.none() | st.text(max_size=10)),
        bodies=draw(st.lists(bodies, min_size=1, max_size=4)),
    )


@st.composite
def built_metadata(draw):
    defs = draw(
        st.lists(
            definitions(),
            min_size=1,
            max_size=3,
            unique_by=lambda d: definition_id([p.type for p in d["parameters"]]),
        )
    )
    n = draw(st.sampled_from([None, "1", "2", "3"]))
    b = FunctionMetadataBuilder()
    if n:
        b = b.set_properties({VERSION_HISTORY_SIZE: n})
    if draw(st.booleans()):
        b = b.set_location(draw(st.text(min_size=1, max_size=10)))
    b = b.set_secure(draw(st.booleans())).set_doc(draw(st.none() | st.text(max_size=10)))
    for i, d in enumerate(defs):
        b = b.add_definition(
            d["parameters"],
            d["return_type"],
            d["bodies"][0],
            function_type=d["function_type"],
            return_nullable=d["return_nullable"],
            specific_name=draw(st.none() | st.just(f"spec_{i}")),
            doc=d["doc"],
        )
    m = b.build()
    # later replaces (one build each), sometimes a rollback
    for d in defs:
        did = definition_id([p.type for p in d["parameters"]])
        for body in d["bodies"][1:]:
            m = (
                FunctionMetadataBuilder(m)
                .add_definition_version(did, body)
                .set_current_definition_version(did, -1)
                .build()
            )
        if draw(st.booleans()):
            target = draw(st.sampled_from(m.definition(did).version_ids))
            m = FunctionMetadataBuilder(m).set_current_definition_version(did, target).build()
    return m


def check_invariants(m):
    n = int(m.properties.get(VERSION_HISTORY_SIZE, "10"))
    assert validate(m) == []
    for d in m.definitions:
        assert d.current_version_id in d.version_ids
        assert len(d.versions) <= n
    assert 1 <= len(m.definition_log) <= n
    for entry in m.definition_log:
        for did, vid in entry.definition_versions:
            assert m.definition(did) is not None and vid in m.definition(did).version_ids
    assert dict(m.definition_log[-1].definition_versions) == m.current_definition_versions


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(built_metadata())
def test_anything_built_writes_and_reads_back_equal(m):
    check_invariants(m)
    roundtrip(m)


def _spell(t, r):
    def sp():
        return r.choice(["", " ", "  "])

    def case(word):
        return "".join(c.upper() if r.random() < 0.5 else c for c in word)

    if isinstance(t, PrimitiveType):
        name = t.name
        if name.startswith("decimal("):
            p, s = name[len("decimal(") : -1].split(",")
            return f"{case('decimal')}({sp()}{p}{sp()},{sp()}{s}{sp()})"
        if name.startswith("fixed["):
            return f"{case('fixed')}[{sp()}{name[6:-1]}{sp()}]"
        return case(name)
    if isinstance(t, ListType):
        return f"{case('list')}{sp()}<{sp()}{_spell(t.element, r)}{sp()}>"
    if isinstance(t, MapType):
        return f"{case('map')}<{sp()}{_spell(t.key, r)}{sp()},{sp()}{_spell(t.value, r)}{sp()}>"
    inner = ",".join(f"{sp()}{n}{sp()}:{sp()}{_spell(ft, r)}{sp()}" for n, ft in t.fields)
    return f"{case('struct')}{sp()}<{inner}>"


def _respell_type_json(node, r):
    if isinstance(node, str):
        if node.startswith("decimal("):
            p, s = node[len("decimal(") : -1].split(",")
            return f"DeCiMaL( {p} ,{s} )"
        if node.startswith("fixed["):
            return f"Fixed[ {node[6:-1]} ]"
        return "".join(c.upper() if r.random() < 0.5 else c for c in node)
    out = {k: _respell_type_json(v, r) if k in ("element", "key", "value") else v for k, v in node.items()}
    out["type"] = node["type"].upper() if r.random() < 0.5 else node["type"].title()
    if "fields" in node:
        out["fields"] = [
            {
                "id": i,
                "required": bool(i % 2),
                "name": f["name"],
                "type": _respell_type_json(f["type"], r),
                "doc": "d",
            }
            for i, f in enumerate(node["fields"])
        ]
    out["element-id"] = 7
    return out


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(built_metadata(), st.randoms(use_true_random=False))
def test_leniently_spelled_json_reads_as_the_canonical_metadata(m, r):
    doc = function_metadata_to_dict(m)
    spelled = {}
    for d, dm in zip(doc["definitions"], m.definitions, strict=True):
        new = ",".join(_spell(p.type, r) for p in dm.parameters)
        spelled[dm.definition_id] = new
        d["definition-id"] = (" " if r.random() < 0.5 else "") + new
        d["return-type"] = _respell_type_json(d["return-type"], r)
        for p in d["parameters"]:
            p["type"] = _respell_type_json(p["type"], r)
        d["function-type"] = d["function-type"].upper()
        d["x-extra"] = [1, {"a": None}]
        for v in d["versions"]:
            for rep in v["representations"]:
                rep["type"] = "SQL"
            if "on-null-input" in v:
                v["on-null-input"] = v["on-null-input"].upper()
    for e in doc["definition-log"]:
        for dv in e["definition-versions"]:
            dv["definition-id"] = spelled.get(dv["definition-id"], dv["definition-id"])
    again = function_metadata_from_dict(json.loads(json.dumps(doc)))
    assert again == m
    assert function_metadata_to_json(again) == function_metadata_to_json(m)


def test_replayed_changes_give_the_same_metadata():
    base = function_metadata_from_json(APPENDIX_A)
    new = (
        FunctionMetadataBuilder(base)
        .add_definition_version("int", version("x+5", 1_800_000_000_000))
        .set_current_definition_version("int", -1)
        .set_properties({"a": "b"})
        .remove_properties(["missing"])
        .remove_definition("float")
        .add_definition(
            [FunctionParameter("s", StructType((("id", INT), ("tags", ListType(STR)))))],
            MapType(STR, INT),
            version("map()", 1_800_000_000_001),
            specific_name="by_struct",
        )
        .set_doc(None)
        .set_secure(True)
        .set_location("s3://bucket/f")
        .build()
    )
    updates = [update_from_dict(json.loads(json.dumps(c.to_dict()))) for c in new.changes]
    reqs = [
        requirement_from_dict(json.loads(json.dumps(r.to_dict())))
        for r in (
            AssertFunctionUUID(base.function_uuid),
            AssertCurrentDefinitions(base.current_definition_versions),
        )
    ]
    assert apply(base, updates, reqs) == new
    roundtrip(new)


@pytest.mark.parametrize("where", ["parameter", "return"])
def test_deep_but_buildable_type_round_trips(where):
    t = deep_list_model(120)
    args = ([FunctionParameter("x", t)], INT) if where == "parameter" else ([FunctionParameter("x", INT)], t)
    try:
        m = FunctionMetadataBuilder().add_definition(*args, version()).build()
        text = function_metadata_to_json(m)
    except IceviewError:
        return  # refusing to build or write it is fine
    assert function_metadata_from_json(text) == m


def test_unknown_representations_are_kept():
    doc = copy.deepcopy(A)
    extra = {"type": "substrait", "plan": "AAAA", "x": [1, {"y": None}]}
    doc["definitions"][0]["versions"][0]["representations"].append(extra)
    m = function_metadata_from_dict(doc)
    assert function_metadata_to_dict(m)["definitions"][0]["versions"][0]["representations"][1] == extra
    roundtrip(m)


def test_writer_refuses_a_sql_representation_without_dialect_and_sql():
    m = function_metadata_from_json(APPENDIX_A)
    d = m.definitions[1]
    bad = d.versions[0].replace(representations=(UnknownRepresentation("sql", {"type": "sql"}),))
    m2 = dataclasses.replace(m, definitions=(m.definitions[0], d.replace(versions=(bad,))))
    try:
        text = function_metadata_to_json(m2)
    except InvalidMetadataError:
        return
    function_metadata_from_json(text)  # whatever the writer writes must read back


def test_unknown_representation_type_and_raw_must_agree():
    m = function_metadata_from_json(APPENDIX_A)
    d = m.definitions[1]
    v = d.versions[0].replace(
        representations=(*d.versions[0].representations, UnknownRepresentation("foo", {"type": "bar"}))
    )
    m2 = dataclasses.replace(m, definitions=(m.definitions[0], d.replace(versions=(v,))))
    try:
        text = function_metadata_to_json(m2)
    except InvalidMetadataError:
        return
    assert function_metadata_from_json(text) == m2


# --- the writer on hand-made models: strict, and typed ------------------------------------------

M_A = function_metadata_from_json(APPENDIX_A)
D_A = M_A.definitions[0]


def _with_def(**kw):
    return dataclasses.replace(M_A, definitions=(D_A.replace(**kw), M_A.definitions[1]))


def _with_version(**kw):
    vs = list(D_A.versions)
    vs[1] = vs[1].replace(**kw)
    return _with_def(versions=tuple(vs))


def _with_last_log(pairs, ts=1):
    return dataclasses.replace(M_A, definition_log=(*M_A.definition_log[:-1], DefinitionLogEntry(ts, pairs)))


WRITE_REFUSED = {
    "uuid-none": lambda: dataclasses.replace(M_A, function_uuid=None),
    "uuid-int": lambda: dataclasses.replace(M_A, function_uuid=5),
    "uuid-padded": lambda: dataclasses.replace(M_A, function_uuid=f" {UUID_A} "),
    "secure-str": lambda: dataclasses.replace(M_A, secure="yes"),
    "secure-int": lambda: dataclasses.replace(M_A, secure=1),
    "doc-int": lambda: dataclasses.replace(M_A, doc=5),
    "location-int": lambda: dataclasses.replace(M_A, location=5),
    "props-int-value": lambda: dataclasses.replace(M_A, properties={"a": 1}),
    "props-none-value": lambda: dataclasses.replace(M_A, properties={"a": None}),
    "props-int-key": lambda: dataclasses.replace(M_A, properties={1: "a"}),
    "defid-wrong": lambda: _with_def(definition_id="long"),
    "defid-not-canonical": lambda: _with_def(definition_id="INT"),
    "param-name-none": lambda: _with_def(parameters=(FunctionParameter(None, INT),)),
    "param-type-str": lambda: _with_def(parameters=(FunctionParameter("x", "int"),)),
    "param-doc-int": lambda: _with_def(parameters=(FunctionParameter("x", INT, 5),)),
    "return-str": lambda: _with_def(return_type="int"),
    "return-nullable-str": lambda: _with_def(return_nullable="no"),
    "function-type-upper": lambda: _with_def(function_type="UDF"),
    "function-type-none": lambda: _with_def(function_type=None),
    "udtf-int": lambda: _with_def(function_type="udtf"),
    "specific-int": lambda: _with_def(specific_name=5),
    "cvid-bool": lambda: _with_def(current_version_id=True),
    "cvid-float": lambda: _with_def(current_version_id=2.0),
    "cvid-str": lambda: _with_def(current_version_id="2"),
    "cvid-beyond-int32": lambda: _with_def(current_version_id=2**40),
    "cvid-nowhere": lambda: _with_def(current_version_id=9),
    "vid-bool": lambda: _with_version(version_id=True),
    "vid-float": lambda: _with_version(version_id=2.0),
    "vid-beyond-int32": lambda: _with_def(
        versions=(D_A.versions[0], D_A.versions[1].replace(version_id=2**40)), current_version_id=2**40
    ),
    "ts-float": lambda: _with_version(timestamp_ms=1.5),
    "ts-bool": lambda: _with_version(timestamp_ms=True),
    "ts-beyond-long": lambda: _with_version(timestamp_ms=2**70),
    "ts-negative": lambda: _with_version(timestamp_ms=-1),
    "deterministic-str": lambda: _with_version(deterministic="yes"),
    "on-null-input-upper": lambda: _with_version(on_null_input="RETURN-NULL"),
    "on-null-input-bad": lambda: _with_version(on_null_input="skip"),
    "rep-str": lambda: _with_version(representations=("x",)),
    "rep-dict": lambda: _with_version(representations=({"type": "sql", "dialect": "a", "sql": "b"},)),
    "rep-dialect-none": lambda: _with_version(representations=(SQLRepresentation(None, "x"),)),
    "rep-sql-int": lambda: _with_version(representations=(SQLRepresentation("spark", 5),)),
    "rep-dup-dialect": lambda: _with_version(
        representations=(SQLRepresentation("Spark", "a"), SQLRepresentation("SPARK", "b"))
    ),
    "log-ts-str": lambda: _with_last_log((("int", 2), ("float", 1)), ts="x"),
    "log-vid-bool": lambda: _with_last_log((("int", 2), ("float", True))),
    "log-names-twice": lambda: _with_last_log((("int", 2), ("float", 1), ("int", 2))),
    "log-not-current": lambda: _with_last_log((("int", 1), ("float", 1))),
    "log-spelled-id": lambda: _with_last_log((("INT", 2), ("float", 1))),
    "log-missing-version": lambda: dataclasses.replace(
        M_A, definition_log=(DefinitionLogEntry(1, (("int", 7),)), *M_A.definition_log)
    ),
    "struct-dup-field": lambda: _with_def(return_type=StructType((("a", INT), ("a", INT)))),
    "struct-field-int": lambda: _with_def(return_type=StructType(((1, INT),))),
    "list-element-none": lambda: _with_def(return_type=ListType(None)),
    "map-key-none": lambda: _with_def(return_type=MapType(None, INT)),
    "no-definitions": lambda: dataclasses.replace(M_A, definitions=(), definition_log=()),
    "dup-specific": lambda: dataclasses.replace(
        M_A, definitions=(D_A.replace(specific_name="s"), M_A.definitions[1].replace(specific_name="s"))
    ),
    "dup-param-casefold": lambda: _with_def(
        definition_id="int,int", parameters=(FunctionParameter("x", INT), FunctionParameter("X", INT))
    ),
}


@pytest.mark.parametrize("name", list(WRITE_REFUSED))
def test_writer_refuses_what_the_spec_forbids(name):
    m = WRITE_REFUSED[name]()
    e = raises_typed(function_metadata_to_json, m, exc=InvalidMetadataError)
    assert str(e).startswith("Cannot write function metadata")
    assert e.path.startswith("$")
    assert validate(m)


WRITE_CRASHES = {
    "log-entry-not-an-entry": lambda: dataclasses.replace(M_A, definition_log=("x",)),
    "parameter-not-a-parameter": lambda: _with_def(parameters=("x",)),
    "log-pair-of-one": lambda: _with_last_log((("int",),)),
    "unknown-rep-raw-not-json": lambda: _with_version(
        representations=(UnknownRepresentation("foo", {"type": "foo", "x": object()}),)
    ),
    "unknown-rep-raw-none": lambda: _with_version(representations=(UnknownRepresentation("foo", None),)),
}


@pytest.mark.parametrize("name", list(WRITE_CRASHES))
def test_writer_on_malformed_model_is_typed(name):
    m = WRITE_CRASHES[name]()
    with contextlib.suppress(IceviewError):
        validate(m)  # may report problems or raise a typed error, never crash
    raises_typed(function_metadata_to_json, m, exc=InvalidMetadataError)


@pytest.mark.parametrize(
    "make",
    [
        lambda: dataclasses.replace(M_A, definitions=None),
        lambda: dataclasses.replace(M_A, definition_log=None),
        lambda: D_A.replace(parameters=None),
        lambda: D_A.replace(versions=None),
        lambda: D_A.versions[0].replace(representations=None),
    ],
    ids=["definitions", "definition_log", "parameters", "versions", "representations"],
)
def test_model_made_with_none_collections_is_typed(make):
    raises_typed(make)


@pytest.mark.parametrize(
    "uuid_text",
    [f"urn:uuid:{UUID_A}", "{" + UUID_A + "}", UUID_A.replace("-", "")],
    ids=["urn", "braces", "no-hyphens"],
)
def test_non_canonical_uuid_forms_are_refused_on_write(uuid_text):
    raises_typed(
        function_metadata_to_json, dataclasses.replace(M_A, function_uuid=uuid_text), exc=InvalidMetadataError
    )
    raises_typed(
        lambda: (
            FunctionMetadataBuilder()
            .assign_uuid(uuid_text)
            .add_definition([FunctionParameter("x", INT)], INT, version())
            .build()
        ),
        exc=InvalidArgumentError,
    )


def test_upper_case_uuid_is_a_uuid():
    roundtrip(dataclasses.replace(M_A, function_uuid=UUID_A.upper()))


# =============================================================================================
# 4. Builder and update misuse
# =============================================================================================


def test_duplicate_specific_name_is_refused():
    b = FunctionMetadataBuilder().add_definition(
        [FunctionParameter("x", INT)], INT, version(), specific_name="s"
    )
    raises_typed(
        b.add_definition,
        [FunctionParameter("y", STR)],
        STR,
        version(),
        specific_name="s",
        exc=InvalidArgumentError,
    )
    m = (
        FunctionMetadataBuilder()
        .add_definition([FunctionParameter("x", INT)], INT, version(), specific_name="s")
        .build()
    )
    raises_typed(
        lambda: (
            FunctionMetadataBuilder(m)
            .add_definition([FunctionParameter("y", STR)], STR, version(), specific_name="s")
            .build()
        ),
        exc=InvalidArgumentError,
    )
    # compared exactly: another case is another name
    FunctionMetadataBuilder(m).add_definition(
        [FunctionParameter("y", STR)], STR, version(), specific_name="S"
    ).build()


def test_specific_name_lookup():
    m = (
        FunctionMetadataBuilder()
        .add_definition([FunctionParameter("x", INT)], INT, version(), specific_name="add_int")
        .add_definition([FunctionParameter("y", STR)], STR, version())
        .build()
    )
    assert m.definition_by_specific_name("add_int").definition_id == "int"
    assert m.definition_by_specific_name("ADD_INT") is None
    assert m.definition_by_specific_name("nope") is None


def test_specific_name_lookup_of_none_finds_nothing():
    assert M_A.definition_by_specific_name(None) is None


@pytest.mark.parametrize("target", [5, 0, -2, 2**31 - 1])
def test_current_version_pointing_nowhere_is_refused(target):
    raises_typed(
        lambda: FunctionMetadataBuilder(simple()).set_current_definition_version("int", target).build(),
        exc=InvalidArgumentError,
    )


def test_current_version_minus_one_without_an_added_version_is_refused():
    raises_typed(lambda: FunctionMetadataBuilder(simple()).set_current_definition_version("int", -1).build())


def test_unknown_definition_is_refused():
    m = simple()
    raises_typed(
        lambda: FunctionMetadataBuilder(m).set_current_definition_version("nope", 1).build(),
        exc=InvalidArgumentError,
    )
    raises_typed(
        lambda: FunctionMetadataBuilder(m).add_definition_version("nope", version("y")).build(),
        exc=InvalidArgumentError,
    )
    raises_typed(
        lambda: FunctionMetadataBuilder(m).remove_definition("nope").build(), exc=InvalidArgumentError
    )


def test_spelled_definition_id_in_builder_calls():
    m = (
        FunctionMetadataBuilder(simple())
        .add_definition_version(" INT ", version("y"))
        .set_current_definition_version("Int", -1)
        .build()
    )
    assert m.current_definition_versions == {"int": 2}


def test_bool_version_id_is_refused_by_the_builder():
    raises_typed(
        lambda: FunctionMetadataBuilder(simple()).set_current_definition_version("int", True).build(),
        exc=InvalidArgumentError,
    )


def test_removing_the_last_definition_is_refused():
    m = simple()
    e = raises_typed(lambda: FunctionMetadataBuilder(m).remove_definition("int").build())
    assert "no definitions" in str(e)
    raises_typed(lambda: apply(m, [RemoveDefinition("int")]))
    raises_typed(lambda: FunctionMetadataBuilder().build())


def test_remove_then_add_again_is_a_new_definition():
    m = (
        FunctionMetadataBuilder(simple())
        .add_definition_version("int", version("x+9", 5))
        .set_current_definition_version("int", -1)
        .build()
    )
    again = (
        FunctionMetadataBuilder(m)
        .remove_definition("int")
        .add_definition([FunctionParameter("x", INT)], INT, version("x+1", 7))
        .build()
    )
    assert again.definitions[0].version_ids == (1,)
    check_invariants(again)
    for entry in again.definition_log:
        assert entry.definition_versions == (("int", 1),)
    roundtrip(again)


def test_rollback_to_an_expired_version_is_refused():
    m = simple(props={VERSION_HISTORY_SIZE: "2"})
    for i in range(5):
        m = (
            FunctionMetadataBuilder(m)
            .add_definition_version("int", version(f"x+{i + 1}", 10 + i))
            .set_current_definition_version("int", -1)
            .build()
        )
    assert 1 not in m.definitions[0].version_ids
    raises_typed(
        lambda: FunctionMetadataBuilder(m).set_current_definition_version("int", 1).build(),
        exc=InvalidArgumentError,
    )
    raises_typed(
        lambda: apply(
            m,
            [
                update_from_dict(
                    {"action": "set-current-definition-version", "definition-id": "int", "version-id": 1}
                )
            ],
        )
    )


@pytest.mark.parametrize(
    "ret",
    [INT, ListType(StructType((("a", INT),))), MapType(STR, INT), PrimitiveType("variant")],
    ids=str,
)
def test_udtf_with_a_non_struct_return_is_refused(ret):
    raises_typed(
        lambda: (
            FunctionMetadataBuilder()
            .add_definition([FunctionParameter("x", INT)], ret, version("select 1"), function_type="udtf")
            .build()
        ),
        exc=InvalidArgumentError,
    )
    defn = {
        "definition-id": "long",
        "parameters": [{"name": "x", "type": "long"}],
        "return-type": type_to_json(ret),
        "function-type": "udtf",
        "versions": [
            {
                "version-id": 1,
                "representations": [{"type": "sql", "dialect": "spark", "sql": "select 1"}],
                "timestamp-ms": 1,
            }
        ],
        "current-version-id": 1,
    }
    try:
        up = update_from_dict({"action": "add-definition", "definition": defn})
    except InvalidMetadataError:
        return
    raises_typed(lambda: apply(M_A, [up]))


@pytest.mark.parametrize("ftype", ["UDF", "table", "", "udaf"])
def test_builder_refuses_bad_function_type(ftype):
    raises_typed(
        lambda: (
            FunctionMetadataBuilder()
            .add_definition([FunctionParameter("x", INT)], INT, version(), function_type=ftype)
            .build()
        ),
        exc=InvalidArgumentError,
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda b: b.add_definition("x", INT, version()),
        lambda b: b.add_definition(["x"], INT, version()),
        lambda b: b.add_definition([FunctionParameter("x", "int")], INT, version()),
        lambda b: b.add_definition([FunctionParameter("x", INT)], "int", version()),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, None),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, {"version-id": 1}),
        lambda b: b.add_definition([FunctionParameter("", INT)], INT, version()),
        lambda b: b.add_definition([FunctionParameter("x", INT), FunctionParameter("X", STR)], INT, version()),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, DefinitionVersion(0, (), 1)),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, version(ts=-1)),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, version(ts=2**70)),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, version(sql="  ")),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, version(dialect="")),
        lambda b: b.add_definition([FunctionParameter("x", INT)], INT, version(on_null_input="skip")),
        lambda b: b.add_definition(
            [FunctionParameter("x", INT)], INT,
            DefinitionVersion(0, (SQLRepresentation("spark", "a"), SQLRepresentation("SPARK", "b")), 1),
        ),
        lambda b: b.assign_uuid("nope"),
        lambda b: b.set_properties({"a": 1}),
        lambda b: b.set_secure("yes"),
        lambda b: b.set_doc(5),
        lambda b: b.set_location(None),
        lambda b: b.set_location(5),
        lambda b: b.upgrade_format_version(2),
        lambda b: b.upgrade_format_version(0),
        lambda b: b.add_definition_version("int", None),
    ],
)  # fmt: skip
def test_builder_misuse_is_typed(call):
    def go():
        b = FunctionMetadataBuilder(simple())
        call(b)
        b.build()

    raises_typed(go)


def test_uuid_cannot_be_reassigned():
    m = simple()
    raises_typed(
        lambda: FunctionMetadataBuilder(m).assign_uuid(B["function-uuid"]).build(), exc=InvalidArgumentError
    )
    FunctionMetadataBuilder(m).assign_uuid(m.function_uuid).build()


@pytest.mark.parametrize(
    "call",
    [
        lambda: FunctionMetadataBuilder().add_definition(None, INT, version()).build(),
        lambda: FunctionMetadataBuilder(simple()).remove_properties(None).build(),
        lambda: FunctionMetadataBuilder("x").build(),
        lambda: apply(M_A, None),
        lambda: apply(M_A, [], ["x"]),
        lambda: apply(M_A, [], None),
        lambda: apply("x", []),
        lambda: M_A.definition([]),
        lambda: M_A.current_version(None),
        lambda: M_A.definitions[0].versions[0].sql_for(5),
        lambda: AssertCurrentDefinitions(None),
    ],
    ids=[
        "add_definition-None", "remove_properties-None", "builder-base-str", "apply-updates-None",
        "apply-requirement-str", "apply-requirements-None", "apply-base-str", "definition-list",
        "current_version-None", "sql_for-int", "AssertCurrentDefinitions-None",
    ],
)  # fmt: skip
def test_python_api_misuse_is_typed(call):
    raises_typed(call)


GARBAGE_UPDATES = [
    None, 1, "x", [], {}, {"action": None}, {"action": 1}, {"action": "nope"},
    {"action": "assign-uuid"}, {"action": "assign-uuid", "uuid": 5},
    {"action": "upgrade-format-version", "format-version": "1"},
    {"action": "upgrade-format-version", "format-version": True},
    {"action": "upgrade-format-version", "format-version": 2**70},
    {"action": "set-location"}, {"action": "set-location", "location": None}, {"action": "set-location", "location": []},
    {"action": "set-properties"}, {"action": "set-properties", "updates": []}, {"action": "set-properties", "updates": {"a": 1}},
    {"action": "remove-properties"}, {"action": "remove-properties", "removals": "abc"}, {"action": "remove-properties", "removals": [1]},
    {"action": "set-function-doc", "doc": 5},
    {"action": "set-function-secure"}, {"action": "set-function-secure", "secure": "true"}, {"action": "set-function-secure", "secure": None},
    {"action": "add-definition"}, {"action": "add-definition", "definition": None}, {"action": "add-definition", "definition": []},
    {"action": "add-definition", "definition": {}},
    {"action": "add-definition", "definition": A["definitions"][0]},  # two versions
    {"action": "add-definition", "definition": dict(A["definitions"][1], versions=[])},
    {"action": "add-definition", "definition": dict(A["definitions"][1], **{"definition-id": "long"})},
    {"action": "add-definition", "definition": dict(A["definitions"][1], **{"function-type": "bogus"})},
    {"action": "add-definition-version"}, {"action": "add-definition-version", "definition-id": "int"},
    {"action": "add-definition-version", "definition-id": "int", "version": None},
    {"action": "add-definition-version", "definition-id": "int", "version": {"version-id": "x"}},
    {"action": "add-definition-version", "definition-id": 5, "version": A["definitions"][0]["versions"][0]},
    {"action": "set-current-definition-version", "definition-id": "int"},
    {"action": "set-current-definition-version", "definition-id": "int", "version-id": "1"},
    {"action": "set-current-definition-version", "definition-id": "int", "version-id": True},
    {"action": "set-current-definition-version", "definition-id": "int", "version-id": 1.0},
    {"action": "set-current-definition-version", "definition-id": "int", "version-id": 2**40},
    {"action": "remove-definition"}, {"action": "remove-definition", "definition-id": None},
]  # fmt: skip


@pytest.mark.parametrize("obj", GARBAGE_UPDATES, ids=lambda o: json.dumps(o)[:60])
def test_garbage_update_json_is_refused_with_a_path(obj):
    e = raises_typed(update_from_dict, obj, exc=InvalidMetadataError)
    assert e.path.startswith("$")
    assert len(str(e)) < MAX_MESSAGE


@pytest.mark.parametrize(
    "obj",
    [
        {"action": "assign-uuid", "uuid": "x"},
        {"action": "set-current-definition-version", "definition-id": "int", "version-id": -2},
        {"action": "set-current-definition-version", "definition-id": "int", "version-id": 9},
        {"action": "set-current-definition-version", "definition-id": "nope", "version-id": 1},
        {"action": "remove-definition", "definition-id": "nope"},
        {
            "action": "add-definition-version",
            "definition-id": "nope",
            "version": A["definitions"][0]["versions"][0],
        },
        {"action": "add-definition", "definition": A["definitions"][1]},  # signature exists
    ],
    ids=lambda o: json.dumps(o)[:60],
)
def test_update_that_cannot_be_applied_raises_invalid_update_error(obj):
    from iceview.errors import InvalidUpdateError

    up = update_from_dict(obj)
    e = raises_typed(apply, M_A, [up], exc=InvalidUpdateError)
    assert obj["action"] in str(e)


def test_update_json_with_extra_fields_is_applied():
    up = update_from_dict({"action": "set-location", "location": "s3://x", "x-junk": [1, {"a": None}]})
    assert apply(M_A, [up]).location == "s3://x"


GARBAGE_REQUIREMENTS = [
    None, 1, "x", [], {}, {"type": None}, {"type": 5}, {"type": "nope"},
    {"type": "assert-function-uuid"}, {"type": "assert-function-uuid", "uuid": None}, {"type": "assert-function-uuid", "uuid": 5},
    {"type": "assert-current-definitions"}, {"type": "assert-current-definitions", "definition-versions": None},
    {"type": "assert-current-definitions", "definition-versions": {}},
    {"type": "assert-current-definitions", "definition-versions": [{"definition-id": "int", "version-id": "2"}]},
    {"type": "assert-current-definitions", "definition-versions": [{"definition-id": "int", "version-id": 2}, {"definition-id": "int", "version-id": 1}]},
]  # fmt: skip


@pytest.mark.parametrize("obj", GARBAGE_REQUIREMENTS, ids=lambda o: json.dumps(o)[:60])
def test_garbage_requirement_json_is_refused(obj):
    raises_typed(requirement_from_dict, obj, exc=InvalidMetadataError)


def test_requirements_that_must_fail():
    base = M_A
    other = B["function-uuid"]
    cases = [
        [AssertCreate()],
        [requirement_from_dict({"type": "assert-create"})],
        [AssertFunctionUUID(other)],
        [AssertCurrentDefinitions({"int": 1, "float": 1})],  # stale: int is at 2
        [AssertCurrentDefinitions({"int": 2})],  # a definition missing
        [AssertCurrentDefinitions({"int": 2, "float": 1, "long": 1})],  # one too many
        [AssertCurrentDefinitions({})],
        [AssertFunctionUUID(UUID_A), AssertCurrentDefinitions({"int": 1, "float": 1})],
    ]
    for reqs in cases:
        raises_typed(
            apply,
            base,
            [update_from_dict({"action": "set-location", "location": "x"})],
            reqs,
            exc=CommitFailedError,
        )
    # on a missing function, only assert-create holds
    for reqs in ([AssertFunctionUUID(UUID_A)], [AssertCurrentDefinitions({"int": 2, "float": 1})]):
        raises_typed(apply, None, [AddDefinition(M_A.definitions[1])], reqs, exc=CommitFailedError)


def test_requirements_that_must_hold():
    ok = [AssertFunctionUUID(UUID_A.upper()), AssertCurrentDefinitions({"float": 1, "int": 2})]
    rolled = apply(
        M_A,
        [
            update_from_dict(
                {"action": "set-current-definition-version", "definition-id": "int", "version-id": 1}
            )
        ],
        ok,
    )
    assert rolled.current_definition_versions == {"int": 1, "float": 1}
    check_invariants(rolled)
    created = apply(None, [AddDefinition(M_A.definitions[1])], [AssertCreate()])
    assert created.definition_ids == ("float",)
    roundtrip(created)


def test_stale_commit_after_a_concurrent_change_fails():
    base = M_A
    seen = AssertCurrentDefinitions(base.current_definition_versions)
    concurrent = apply(
        base,
        [
            update_from_dict(
                {"action": "set-current-definition-version", "definition-id": "int", "version-id": 1}
            )
        ],
    )
    mine = update_from_dict({"action": "remove-definition", "definition-id": "float"})
    raises_typed(apply, concurrent, [mine], [seen], exc=CommitFailedError)


# =============================================================================================
# 5. Retention
# =============================================================================================


@pytest.mark.parametrize("n", [1, 2, 3])
def test_many_replaces_with_a_small_history(n):
    m = (
        FunctionMetadataBuilder()
        .set_properties({VERSION_HISTORY_SIZE: str(n)})
        .add_definition([FunctionParameter("x", INT)], INT, version("x+0", 1))
        .add_definition([FunctionParameter("s", STR)], STR, version("s", 1))
        .build()
    )
    for i in range(1, 30):
        b = (
            FunctionMetadataBuilder(m)
            .add_definition_version("int", version(f"x+{i}", 1_000 + i))
            .set_current_definition_version("int", -1)
        )
        if i % 3 == 0:
            b = b.add_definition_version(
                "string", version(f"s{i}", 1_000 + i)
            ).set_current_definition_version("string", -1)
        m = b.build()
        check_invariants(m)
        assert m.current_definition_versions["int"] == i + 1
        m = roundtrip(m)
    kept = m.definitions[0].version_ids
    assert kept == tuple(range(31 - n, 31))
    # roll back to the oldest kept one: it stays, the log names only existing versions
    if n > 1:
        r = FunctionMetadataBuilder(m).set_current_definition_version("int", kept[0]).build()
        check_invariants(r)
        assert r.current_definition_versions["int"] == kept[0]
        # and a further replace never expires the current version... unless it is the oldest
        r2 = FunctionMetadataBuilder(r).add_definition_version("int", version("new", 5_000)).build()
        check_invariants(r2)
        assert r2.definitions[0].current_version_id == kept[0]
        assert kept[0] in r2.definitions[0].version_ids
        roundtrip(r2)


def test_current_version_never_expires_even_when_oldest():
    m = simple(props={VERSION_HISTORY_SIZE: "1"})
    for i in range(5):
        m = (
            FunctionMetadataBuilder(m).add_definition_version("int", version(f"v{i}", 10 + i)).build()
        )  # not made current
        check_invariants_except_count(m)
        # the one added in this build is kept too (docs), the older non-current ones expire
        assert len(m.definitions[0].versions) == 2
        assert m.definitions[0].current_version_id == 1
        assert 1 in m.definitions[0].version_ids


def test_versions_added_in_one_build_are_kept_and_log_stays_valid():
    m = simple(props={VERSION_HISTORY_SIZE: "2"})
    b = FunctionMetadataBuilder(m)
    for i in range(5):
        b = b.add_definition_version("int", version(f"v{i}", 10 + i))
    m2 = b.set_current_definition_version("int", -1).build()
    check_invariants_except_count(m2)
    roundtrip(m2)


def check_invariants_except_count(m):
    for d in m.definitions:
        assert d.current_version_id in d.version_ids
    for entry in m.definition_log:
        for did, vid in entry.definition_versions:
            assert vid in m.definition(did).version_ids
    assert dict(m.definition_log[-1].definition_versions) == m.current_definition_versions
    assert validate(m) == []


def test_reused_body_does_not_add_a_version():
    m = simple()
    m = (
        FunctionMetadataBuilder(m)
        .add_definition_version("int", version("b", 2))
        .set_current_definition_version("int", -1)
        .build()
    )
    m = (
        FunctionMetadataBuilder(m)
        .add_definition_version("int", version("x + 0", 3))
        .set_current_definition_version("int", -1)
        .build()
    )
    assert m.definitions[0].version_ids == (1, 2)
    assert m.current_definition_versions == {"int": 1}
    check_invariants(m)


def test_a_base_with_a_broken_log_is_repaired_by_a_build():
    doc = copy.deepcopy(A)
    doc["definition-log"].insert(
        1, {"timestamp-ms": 1734507000500, "definition-versions": [{"definition-id": "int", "version-id": 7}]}
    )
    doc["definitions"][0]["current-version-id"] = 1  # log no longer ends with the current versions
    m = function_metadata_from_dict(doc)
    raises_typed(function_metadata_to_json, m, exc=InvalidMetadataError)
    r = FunctionMetadataBuilder(m).set_doc("fixed").build()
    check_invariants(r)
    roundtrip(r)


def test_a_base_over_its_history_limit_is_trimmed_by_a_build():
    doc = copy.deepcopy(A)
    doc["properties"] = {VERSION_HISTORY_SIZE: "1"}
    m = function_metadata_from_dict(doc)
    r = FunctionMetadataBuilder(m).set_doc("x").build()
    check_invariants(r)
    assert r.definitions[0].version_ids == (2,)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("0", "must be positive but was 0"),
        ("-1", "must be positive but was -1"),
        ("x", 'For input string: "x"'),
        ("", 'For input string: ""'),
        ("3.0", 'For input string: "3.0"'),
        ("99999999999999999999", "99999999999999999999"),
    ],
)
def test_bad_history_size_is_refused(value, text):
    e = raises_typed(
        lambda: (
            FunctionMetadataBuilder(simple())
            .set_properties({VERSION_HISTORY_SIZE: value})
            .add_definition_version("int", version("y", 5))
            .set_current_definition_version("int", -1)
            .build()
        ),
        exc=InvalidArgumentError,
    )
    assert text in str(e)


def test_log_entry_time_and_order():
    m = function_metadata_from_json(APPENDIX_A)
    r = (
        FunctionMetadataBuilder(m)
        .add_definition_version("float", version("x + 2.0", 1_900_000_000_000))
        .set_current_definition_version("float", -1)
        .build()
    )
    last = r.definition_log[-1]
    assert last.timestamp_ms == 1_900_000_000_000  # the version's own time
    assert last.definition_versions == (("int", 2), ("float", 2))  # definition order
    before = int(time.time() * 1000)
    rb = FunctionMetadataBuilder(r).set_current_definition_version("float", 1).build()  # a rollback: now
    after = int(time.time() * 1000)
    assert before <= rb.definition_log[-1].timestamp_ms <= after
    assert rb.definition_log[-1].definition_versions == (("int", 2), ("float", 1))
    # a build that changes no current version appends nothing
    same = FunctionMetadataBuilder(rb).set_doc("d").set_properties({"k": "v"}).build()
    assert same.definition_log == rb.definition_log


# =============================================================================================
# Fuzz: whatever is read either writes and reads back equal, or is refused with a typed error
# =============================================================================================

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**65), 2**65) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8) | st.sampled_from(["int", "INT", "sql", "udtf", "call", "return-null", "list", "struct", ""]),
    lambda ch: st.lists(ch, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "element", "key", "value", "fields", "name", "x", "version-id", "dialect", "sql"]), ch, max_size=3
    ),
    max_leaves=8,
)  # fmt: skip


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


ALL_PATHS_A = [p for p in _paths(A) if p]
ALL_PATHS_B = [p for p in _paths(B) if p]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["A", "B"]),
    st.data(),
    json_values,
    st.booleans(),
)
def test_fuzzed_documents_are_read_written_and_read_back_or_refused(which, data, value, delete):
    base = A if which == "A" else B
    path = data.draw(st.sampled_from(ALL_PATHS_A if which == "A" else ALL_PATHS_B))
    doc = mutated(list(path), value, base=base, delete=delete and isinstance(path[-1], str))
    try:
        m = function_metadata_from_dict(doc)
    except InvalidMetadataError as e:
        assert e.path.startswith("$")
        return
    problems = validate(m)
    try:
        text = function_metadata_to_json(m)
    except InvalidMetadataError as e:
        assert problems, f"the writer refused what validate passes: {e}"
        return
    assert not problems
    again = function_metadata_from_json(text)
    assert again == m
    assert function_metadata_to_json(again) == text
