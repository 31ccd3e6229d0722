"""``iceview.sql.split_name``: the one parser of multi-part names (Spark, the CLI)."""

from __future__ import annotations

import pytest

from iceview.errors import SQLParseError
from iceview.sql import NameParseError, split_name


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("v", ("v",)),
        ("ns.v", ("ns", "v")),
        ("cat.a.b.v", ("cat", "a", "b", "v")),
        ("ns.`my.view`", ("ns", "my.view")),
        ("`a``b`.c", ("a`b", "c")),
        ("  ns . v  ", ("ns", "v")),
        ("ns.` padded `", ("ns", " padded ")),
        ("über.vüé", ("über", "vüé")),
    ],
)
def test_parts(text: str, parts: tuple[str, ...]) -> None:
    assert split_name(text) == parts


@pytest.mark.parametrize(
    ("text", "reason", "offset"),
    [
        ("ns..v", "empty name part", 3),
        ("ns.", "empty name part", 3),
        (".v", "empty name part", 0),
        ("ns.``", "empty name part", 3),
        ("", "empty name part", 0),
        ("ns.`v", "unclosed backquote", 3),
    ],
)
def test_errors(text: str, reason: str, offset: int) -> None:
    with pytest.raises(NameParseError) as info:
        split_name(text)
    assert isinstance(info.value, SQLParseError)
    assert (info.value.reason, info.value.offset) == (reason, offset)
    assert str(info.value) == f"Invalid name {text!r}: {reason}"
