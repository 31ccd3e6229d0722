"""Names in Spark SQL as :class:`~iceview.spark.SparkViews` reads them: the engine's constants,
multi-part names (``a.b.c``, back-quotes allowed) and the ``USE`` / ``SET CATALOG`` statements."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from iceview.errors import SQLParseError
from iceview.sql import leading_words, split_name

__all__ = [
    "ENGINE_NAME",
    "ICEVIEW_VERSION_KEY",
    "SESSION_CATALOG",
    "NameLike",
    "Translate",
    "parse_use",
    "parts_of",
    "split_name",
    "sql_id",
]

ENGINE_NAME = "spark"
ICEVIEW_VERSION_KEY = "iceview-version"
SESSION_CATALOG = "spark_catalog"

Translate = Callable[[str, str, str], str]
"""``(sql, from_dialect, to_dialect) -> sql``: translation of a view whose SQL is in another dialect."""

NameLike = str | Sequence[str]


def parts_of(name: NameLike) -> tuple[str, ...]:
    """A name given to the Python API (``"a.b"`` or a sequence of parts) as its parts."""
    return split_name(name) if isinstance(name, str) else tuple(name)


def sql_id(parts: Sequence[str]) -> str:
    """Spark's ``toSQLId``: every part back-quoted."""
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


_USE = re.compile(r"^\s*USE\s+(?:(?:NAMESPACE|DATABASE|SCHEMA)\s+)?(?P<name>.+?)\s*;?\s*$", re.I | re.S)
_SET_CATALOG = re.compile(r"^\s*SET\s+CATALOG\s+(?P<name>.+?)\s*;?\s*$", re.I | re.S)


def parse_use(text: str) -> tuple[str, tuple[str, ...]] | None:
    """``("use", parts)`` for ``USE [NAMESPACE] a.b``, ``("catalog", (c,))`` for ``SET CATALOG c``."""
    words = leading_words(text, 2)
    if not words:
        return None
    if words[0] == "USE":
        m = _USE.match(text)
        if m:
            try:
                return "use", split_name(m.group("name"))
            except SQLParseError:
                return None
    if words[0] == "SET" and len(words) > 1 and words[1] == "CATALOG":
        m = _SET_CATALOG.match(text)
        if m:
            name = m.group("name").strip()
            if len(name) >= 2 and name[0] == name[-1] and name[0] in "'\"":
                return "catalog", (name[1:-1],)
            try:
                return "catalog", split_name(name)
            except SQLParseError:
                return None
    return None
