"""The format layer's JSON helpers, public for the other format packages (``iceview.udf``).

They are those of :mod:`iceview.spec._json`, unchanged: Java's ``JsonUtil`` checks with its exact
messages, each raising :class:`~iceview.errors.InvalidMetadataError` at the JSON path of the bad
value, and the two writers (compact, and Jackson's pretty layout). A module of another package
may not import a private module of this one (tests/architecture), so they are named here.
"""

from __future__ import annotations

from iceview.spec._json import (
    INT_MAX,
    INT_MIN,
    LONG_MAX,
    LONG_MIN,
    MAX_SHOWN,
    child,
    encode_compact,
    encode_pretty,
    fail,
    get_bool,
    get_field,
    get_int,
    get_long,
    get_string,
    get_string_map,
    get_string_or_none,
    node_str,
    shorten,
)

__all__ = [
    "INT_MAX",
    "INT_MIN",
    "LONG_MAX",
    "LONG_MIN",
    "MAX_SHOWN",
    "child",
    "encode_compact",
    "encode_pretty",
    "fail",
    "get_bool",
    "get_field",
    "get_int",
    "get_long",
    "get_string",
    "get_string_map",
    "get_string_or_none",
    "node_str",
    "shorten",
]
