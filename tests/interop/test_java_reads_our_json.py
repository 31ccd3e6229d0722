"""Iceberg Java reads every JSON text iceview's writer produced during this test session (and in
the pytest sessions scripts/test.sh runs beside it, which save theirs for this check).

``fixtures.java_oracle`` wraps ``iceview.spec.ViewMetadata.to_json`` when the session starts and
moves this module to the end of the run, so the other tests have produced their texts by then.
For each compact text, Java must parse it and write back the same JSON value; for each pretty text,
Java's pretty output must be byte-identical. Java cannot write a representation type it does not
know ("Cannot serialize unsupported view representation"): such metadata only has to parse.

The spec's Appendix A examples are always added through iceview, so the check never runs empty.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.java_oracle import JsonRecorder, shared_texts
from fixtures.java_session import JavaError, JavaOracle

pytestmark = pytest.mark.java

DATA = Path(__file__).resolve().parent.parent / "data"
# the spec's Appendix A: its example files when present, and iceberg-go's copy of the example
APPENDIX_A = [
    *sorted((DATA / "spec").glob("appendix-a-*.metadata.json")),
    DATA / "corpus/iceberg-go/view-metadata.json",
]
SHOWN = 10  # failures described in full


def _seed(recorder: JsonRecorder) -> None:
    """Write the Appendix A examples through iceview, compact and pretty (the recorder keeps both),
    and add the texts of the pytest sessions run beside this one (scripts/test.sh)."""
    if not recorder.install():
        pytest.fail(f"cannot record iceview's JSON: {recorder.install_error}", pytrace=False)
    recorder.merge(shared_texts())
    from iceview.spec import ViewMetadata

    for path in APPENDIX_A:
        metadata = ViewMetadata.from_json(path.read_text(encoding="utf-8"))
        metadata.to_json()
        metadata.to_json(pretty=True)
    assert recorder.compact, "iceview wrote no compact JSON text through ViewMetadata.to_json"
    assert recorder.pretty, "iceview wrote no pretty JSON text through ViewMetadata.to_json(pretty=True)"


def _unknown_representation(value: Any) -> bool:
    """True when some version has a representation whose type is not ``sql``."""
    if not isinstance(value, dict):
        return False
    for version in value.get("versions") or []:
        for rep in (version or {}).get("representations") or []:
            if not isinstance(rep, dict) or str(rep.get("type", "")).lower() != "sql":
                return True
    return False


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _diff(ours: str, java: str) -> str:
    lines = difflib.unified_diff(ours.splitlines(), java.splitlines(), "iceview", "java", lineterm="", n=2)
    return "\n".join(list(lines)[:40])


def _report(kind: str, checked: int, failures: list[str]) -> str:
    shown = "\n\n".join(failures[:SHOWN])
    more = f"\n\n... and {len(failures) - SHOWN} more" if len(failures) > SHOWN else ""
    return f"{len(failures)} of {checked} {kind} texts written by iceview fail in Java:\n\n{shown}{more}"


def _check_compact(oracle: JavaOracle, text: str) -> str | None:
    try:
        ours = json.loads(text)
    except ValueError as e:
        return f"not JSON ({e}): {_short(text)}"
    try:
        metadata = oracle.from_json(text)
    except JavaError as e:
        return f"Java cannot parse it: {e}\n  {_short(text)}"
    if _unknown_representation(ours):
        return None  # Java parses it but cannot write it back
    try:
        java = oracle.to_json(metadata)
    except JavaError as e:
        return f"Java cannot write it back: {e}\n  {_short(text)}"
    if json.loads(java) != ours:
        return "Java writes back a different JSON value:\n" + _diff(
            json.dumps(ours, indent=2), json.dumps(json.loads(java), indent=2)
        )
    return None


def _check_pretty(oracle: JavaOracle, text: str) -> str | None:
    try:
        ours = json.loads(text)
    except ValueError as e:
        return f"not JSON ({e}): {_short(text)}"
    try:
        metadata = oracle.from_json(text)
    except JavaError as e:
        return f"Java cannot parse it: {e}\n  {_short(text)}"
    if _unknown_representation(ours):
        return None
    try:
        java = oracle.to_json(metadata, pretty=True)
    except JavaError as e:
        return f"Java cannot write it back: {e}\n  {_short(text)}"
    if java != text:
        return "Java's pretty output differs from ours:\n" + _diff(text, java)
    return None


def test_java_reads_our_compact_json(java_oracle: JavaOracle, json_recorder: JsonRecorder) -> None:
    _seed(json_recorder)
    texts = list(json_recorder.compact)
    failures = [f for f in (_check_compact(java_oracle, t) for t in texts) if f is not None]
    assert len(texts) > 0
    assert not failures, _report("compact", len(texts), failures)


def test_java_pretty_prints_our_pretty_json_identically(
    java_oracle: JavaOracle, json_recorder: JsonRecorder
) -> None:
    _seed(json_recorder)
    texts = list(json_recorder.pretty)
    failures = [f for f in (_check_pretty(java_oracle, t) for t in texts) if f is not None]
    assert len(texts) > 0
    assert not failures, _report("pretty", len(texts), failures)
