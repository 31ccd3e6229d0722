"""The JSON texts a pytest session saves for the Java check of the session beside it
(scripts/test.sh runs three): saved whole, merged without repeats, and waited for."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.java_oracle import JsonRecorder


def test_saved_texts_are_merged_once(tmp_path: Path) -> None:
    beside = JsonRecorder()
    beside.record('{"a":1}', False)
    beside.record('{\n  "a" : 1\n}', True)
    beside.record("{}", False)
    beside.save(tmp_path / "b.json")
    assert not (tmp_path / "b.json.partial").exists()

    checking = JsonRecorder()
    checking.record("{}", False)
    checking.merge([tmp_path / "b.json"])
    checking.merge([tmp_path / "b.json"])  # each of the two Java checks merges: no repeats
    assert list(checking.compact) == ["{}", '{"a":1}']
    assert list(checking.pretty) == ['{\n  "a" : 1\n}']


def test_a_session_that_never_saves_is_waited_for_then_reported(tmp_path: Path) -> None:
    with pytest.raises(TimeoutError, match="no JSON texts from the other pytest session"):
        JsonRecorder().merge([tmp_path / "missing.json"], timeout=0.5)
