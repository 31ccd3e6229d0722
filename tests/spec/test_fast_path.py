"""The reader's fast acceptance checks (``iceview.spec._fast``) never decide an outcome.

Each answers "certainly fine" or "not sure"; only the full checker raises. So for any input, a load
with the fast checks must end exactly as a load with them switched off: the same success, or the
same message at the same path. The inputs are Java's own file with one value changed at a time.
"""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from iceview.errors import InvalidMetadataError
from iceview.spec import ViewMetadata, codec
from iceview.spec._fast import schema_ids_distinct, versions_and_log_ok

GOLDEN = Path(__file__).parent.parent / "data" / "golden" / "java-1.10.2"
MANY = GOLDEN / "23-view-default.many_versions-after-many-versions-12.metadata.json"

# one of each JSON type, ints at and past Java's int and long limits, and the strings the checks
# compare with
VALUES: list[Any] = [
    None, True, 0, 1, 2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, 2**63, -(2**63) - 1, 1.5,
    "x", "sql", "SQL", "struct", "long", [], ["a"], [1], {}, {"a": "b"}, {"type": "sql"},
]  # fmt: skip


def small_doc() -> dict[str, Any]:
    """Java's file cut to three versions, log entries and schemas: every kind of node, fewer of each."""
    doc: dict[str, Any] = json.loads(MANY.read_text())
    for key in ("versions", "version-log", "schemas"):
        doc[key] = doc[key][:3]
    return doc


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _paths(node: Any, prefix: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    yield prefix
    items = node.items() if type(node) is dict else enumerate(node) if type(node) is list else ()
    for key, value in items:
        yield from _paths(value, (*prefix, key))


def mutants() -> Iterator[dict[str, Any]]:
    base = small_doc()
    for top in ("versions", "version-log", "schemas"):
        for path in _paths(base[top], (top,)):
            parent, key = _at(base, path[:-1]), path[-1]
            for value in VALUES:
                doc = copy.deepcopy(base)
                _at(doc, path[:-1])[key] = value
                yield doc
            if type(parent) is dict:
                doc = copy.deepcopy(base)
                del _at(doc, path[:-1])[key]
                yield doc
            node = _at(base, path)
            if type(node) is list and node:
                for element in (node[0], node[-1]):
                    doc = copy.deepcopy(base)
                    _at(doc, path).append(copy.deepcopy(element))
                    yield doc
    # ids equal to another's: versions, schemas, fields of one schema
    for i in (1, 2):
        for top, key in (("versions", "version-id"), ("schemas", "schema-id")):
            doc = copy.deepcopy(base)
            doc[top][i][key] = doc[top][0][key]
            yield doc
        doc = copy.deepcopy(base)
        doc["schemas"][i]["fields"][1]["id"] = doc["schemas"][i]["fields"][0]["id"]
        yield doc
    # a top-level schema that is not a struct, with a field id repeated inside it
    doc = copy.deepcopy(base)
    doc["schemas"][0] = {
        "type": "list", "schema-id": 0, "fields": [], "element-id": 5, "element-required": True,
        "element": {"type": "struct", "fields": [{"id": 5, "name": "a", "required": True, "type": "int"}]},
    }  # fmt: skip
    yield doc
    # Python values that only from_dict can pass: the full checker wants exact dicts and strings
    doc = copy.deepcopy(base)
    doc["versions"][0] = OrderedDict(doc["versions"][0])
    yield doc
    doc = copy.deepcopy(base)
    doc["versions"][0]["summary"] = OrderedDict(doc["versions"][0]["summary"])
    yield doc
    doc = copy.deepcopy(base)
    doc["versions"][0]["representations"][0]["sql"] = type("Sub", (str,), {})("select 1")
    yield doc


def outcome(doc: Any) -> tuple[Any, ...]:
    try:
        ViewMetadata.from_dict(doc)
    except InvalidMetadataError as e:
        return ("error", e.message, e.path)
    return ("ok",)


def test_the_fast_checks_never_change_an_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for doc in mutants():
        fast = outcome(doc)
        with monkeypatch.context() as m:
            m.setattr(codec, "versions_and_log_ok", lambda versions, log: False)
            m.setattr(codec, "schema_ids_distinct", lambda schemas: False)
            full = outcome(doc)
        assert fast == full, json.dumps(doc, default=repr)[:2000]
        checked += 1
    assert checked > 2000


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.metadata.json")), ids=lambda p: p.name[:2])
def test_files_written_by_java_are_on_the_fast_path(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert versions_and_log_ok(doc["versions"], doc["version-log"])
    assert schema_ids_distinct(doc["schemas"])
