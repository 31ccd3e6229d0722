"""Which names in SQL may call a catalog's SQL UDF, told cheaply before anything is parsed, and
which of them are sqlglot's own functions of a dialect (:mod:`iceview.sql.inline`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from iceview.sql._text import get_dialect

__all__ = ["maybe_calls", "nondeterministic", "sqlglot_builtins"]

_MAYBE_CALL = re.compile(r"[\w`\"\]]\s*\.\s*[\w`\"]+\s*\(")
_ONE_PART_CALL = re.compile(r"(`[^`]*`|\"[^\"]*\"|\b[^\W\d]\w*)\s*\(")
_AFTER_AS = re.compile(r"\bAS\s+\Z", re.I)
_NONDETERMINISTIC = frozenset(
    {
        "rand",
        "randn",
        "random",
        "uuid",
        "gen_random_uuid",
        "shuffle",
        "monotonically_increasing_id",
        "spark_partition_id",
        "input_file_name",
        "setseed",
        "nextval",
        "random_string",
    }
)


def maybe_calls(sql: str, dialect: str = "spark", *, one_part: bool = False) -> bool:
    """Whether ``sql`` may call a catalog function (a cheap test before parsing): by a dotted
    name, or with ``one_part`` by a name sqlglot does not know as a function of ``dialect``."""
    if _MAYBE_CALL.search(sql) is not None:
        return True
    if not one_part:
        return False
    known = _known_names(dialect.lower())
    for m in _ONE_PART_CALL.finditer(sql):
        name = m.group(1)
        if (name[0] in '`"' or name.upper() not in known) and _AFTER_AS.search(
            sql, max(0, m.start() - 8), m.start()
        ) is None:  # AS v(a, b) names a relation's columns
            return True
    return False


@lru_cache(maxsize=8)
def _known_names(dialect: str) -> frozenset[str]:
    """Names sqlglot parses as functions or keywords in ``dialect`` (upper-case): never a call
    of a catalog function."""
    d = get_dialect(dialect)
    parser = d.parser_class
    names = (
        set(parser.FUNCTIONS)
        | set(getattr(parser, "FUNCTION_PARSERS", {}))
        | set(getattr(parser, "NO_PAREN_FUNCTION_PARSERS", {}))
    )
    names |= {k.upper() for k in d.tokenizer_class.KEYWORDS}
    return frozenset(names)


def sqlglot_builtins(dialect: str) -> Callable[[str], bool]:
    """Whether sqlglot knows a name as a function (or keyword) of ``dialect``: the ``builtin`` test
    for SQL read away from its engine (a view's Spark SQL read in DuckDB)."""
    known = _known_names(dialect.lower())
    return lambda name: name.upper() in known


def nondeterministic(text: str) -> bool:
    """Whether an argument's text may not give the same value twice: it calls a function known to
    be nondeterministic, or one that may be a catalog function (whose body is unknown here)."""
    lowered = text.lower()
    return any(re.search(rf"\b{name}\s*\(", lowered) for name in _NONDETERMINISTIC) or maybe_calls(text)
