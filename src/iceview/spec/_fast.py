"""Fast acceptance checks for the reader.

Each function answers one question: is this decoded JSON certainly well-formed, in the exact shape
that the full checker (which raises Java's messages) would accept? They work on whole columns at
once with C-level builtins (``map``, ``set``, ``min``/``max``), so a typical file is accepted at a
small multiple of the cost of decoding it. Anything unusual, or any exception along the way, means
"not sure", and the caller runs the full checker, which is the one source of truth for errors.
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import itemgetter
from typing import Any

from iceview.spec._json import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN

_VERSION_FIELDS = itemgetter(
    "version-id", "schema-id", "timestamp-ms", "summary", "representations", "default-namespace"
)
_SQL_FIELDS = itemgetter("type", "sql", "dialect")
_LOG_FIELDS = itemgetter("version-id", "timestamp-ms")
_SCHEMA_FIELDS = itemgetter("type", "schema-id", "fields")
_FIELDS = itemgetter("fields")
_SCHEMA_ID = itemgetter("schema-id")
_ID = itemgetter("id")
_TYPE = itemgetter("type")
_FIELD_FIELDS = itemgetter("id", "name", "required", "type")
_FIELD_KEYS = frozenset({("id", "name", "required", "type"), ("id", "name", "required", "type", "doc")})
_SCHEMA_KEYS = frozenset({("type", "schema-id", "fields")})
# primitive names already in Java's spelling; anything else (nested types, decimal(p, s), upper
# case) goes through the full normaliser
_CANONICAL_PRIMITIVES = frozenset(
    {
        "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
        "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "unknown", "variant",
    }
)  # fmt: skip
_INT = frozenset({int})
_STR = frozenset({str})
_STR_OR_NONE = frozenset({str, type(None)})
_LIST = frozenset({list})


def versions_and_log_ok(versions: list[Any], log: list[Any]) -> bool:
    """Every version is an object with well-typed fields and SQL representations only, no two
    versions share an id, and every version-log entry is an object with an int id and a long
    timestamp."""
    try:
        if versions:
            ids, schema_ids, timestamps, summaries, reps, namespaces = zip(
                *map(_VERSION_FIELDS, versions), strict=True
            )
        else:
            ids = schema_ids = timestamps = summaries = reps = namespaces = ()
        if log:
            log_ids, log_timestamps = zip(*map(_LOG_FIELDS, log), strict=True)
            int_ids = ids + schema_ids + log_ids
            timestamps = timestamps + log_timestamps
        else:
            int_ids = ids + schema_ids
        if not int_ids:
            return not versions and not log
        if not (
            set(map(type, int_ids + timestamps)) == _INT
            and min(int_ids) >= INT_MIN
            and max(int_ids) <= INT_MAX
            and min(timestamps) >= LONG_MIN
            and max(timestamps) <= LONG_MAX
            and (not versions or set(map(type, reps + namespaces)) == _LIST)
            and len(set(ids)) == len(ids)
        ):
            return False
        flat = list(chain.from_iterable(reps))
        types, sqls, dialects = zip(*map(_SQL_FIELDS, flat), strict=True) if flat else ((), (), ())
        # str.join raises TypeError on anything that is not a string: one C-level pass over every
        # string-valued field (dict.values also refuses a summary that is not an object)
        "".join(
            chain(
                chain.from_iterable(map(dict.values, summaries)),
                chain.from_iterable(namespaces),
                map(dict.get, versions, repeat("default-catalog"), repeat("")),
                sqls,
                dialects,
            )
        )
        return "".join(types).lower() == "sql" * len(types)
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def schema_ids_distinct(schemas: list[Any]) -> bool:
    """No two schemas share a ``schema-id`` and no two fields of one schema share an ``id``.

    Answers only for the common shape: every schema has an explicit ``schema-id`` and a
    ``fields`` list of objects with an ``id`` and a primitive (string) ``type``, so that the
    top-level field ids are all of its ids. Anything else (nested types, a missing or null
    ``schema-id``, ids that compare equal across types, such as ``1`` and ``true``) means "not
    sure". Nothing else is checked here: the schemas' shapes are checked on first use.
    """
    try:
        fields = list(map(_FIELDS, schemas))
        # str.join raises TypeError on a nested (object) type
        "".join(map(_TYPE, chain.from_iterable(fields)))
        # one set per schema: ids may repeat across schemas, never within one
        for one in fields:
            if len(set(map(_ID, one))) != len(one):
                return False
        schema_ids = set(map(_SCHEMA_ID, schemas))
        return len(schema_ids) == len(schemas) and None not in schema_ids  # null means 0
    except (KeyError, TypeError):
        return False


def schemas_canonical(schemas: list[Any]) -> bool:
    """Every schema is a flat struct already in Java's normalised form, so it can be kept as is."""
    if not schemas:
        return True
    try:
        if not set(map(tuple, schemas)) <= _SCHEMA_KEYS:
            return False
        kinds, schema_ids, fields = zip(*map(_SCHEMA_FIELDS, schemas), strict=True)
        if not (
            set(kinds) == {"struct"}
            and set(map(type, schema_ids)) == _INT
            and min(schema_ids) >= INT_MIN
            and max(schema_ids) <= INT_MAX
        ):
            return False
        if set(map(type, fields)) != {list}:
            return False
        flat = list(chain.from_iterable(fields))
        if not flat:
            return True
        if not set(map(tuple, flat)) <= _FIELD_KEYS:
            return False
        ids, names, required, types = zip(*map(_FIELD_FIELDS, flat), strict=True)
        return (
            set(map(type, ids)) == _INT
            and min(ids) >= INT_MIN
            and max(ids) <= INT_MAX
            and set(map(type, names)) == _STR
            and set(map(type, required)) == {bool}
            and set(types) <= _CANONICAL_PRIMITIVES
            and set(map(type, map(dict.get, flat, repeat("doc")))) <= _STR_OR_NONE
        )
    except (KeyError, TypeError, ValueError):
        return False
