"""Iceberg-Spark 1.10's text output for views: DESCRIBE, SHOW CREATE TABLE, SHOW TBLPROPERTIES.

Pure functions of a view's metadata and name, so they are tested without Spark. The formats are
those of Iceberg's ``DescribeV2ViewExec``, ``ShowCreateV2ViewExec`` and ``ShowV2ViewPropertiesExec``
over ``SparkView.properties()`` (Spark 3.5, Scala 2.12), checked against the Iceberg 1.10.2 transcript.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from iceview.spark.types import spark_simple_string
from iceview.spec import ViewMetadata
from iceview.spec.builder import java_string_hash
from iceview.sql import spark_quote_if_needed

__all__ = [
    "QUERY_COLUMN_NAMES",
    "RESERVED_VIEW_PROPERTIES",
    "SPARK_RESERVED_PROPERTIES",
    "describe_rows",
    "filter_pattern",
    "quoted",
    "redact",
    "scala_hashmap_order",
    "show_create_view",
    "show_properties_rows",
    "spark_view_properties",
]

QUERY_COLUMN_NAMES = "spark.query-column-names"
RESERVED_VIEW_PROPERTIES = ("provider", "location", "format-version", QUERY_COLUMN_NAMES)
"""Iceberg's ``SparkView.RESERVED_PROPERTIES``: not shown as Iceberg properties."""
SPARK_RESERVED_PROPERTIES = ("comment", "owner", "create_engine_version", "engine_version")
"""Spark's ``ViewCatalog.RESERVED_PROPERTIES``: left out of DESCRIBE / SHOW output."""
REDACTION_PATTERN = re.compile(r"(?i)secret|password|token|access[.]key")
"""Spark's default ``spark.redaction.regex``."""
REDACTED = "*********(redacted)"


def quoted(parts: Sequence[str]) -> str:
    """Spark's ``parts.quoted``: each part back-quoted if needed, joined by dots."""
    return ".".join(spark_quote_if_needed(p) for p in parts)


def escape_single_quoted(text: str) -> str:
    """Spark's ``escapeSingleQuotedString``: ``'`` becomes ``\\'``."""
    return text.replace("'", "\\'")


def redact(properties: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Spark's ``conf.redactOptions`` with the default ``spark.redaction.regex``."""
    return [
        (k, REDACTED if REDACTION_PATTERN.search(k) or REDACTION_PATTERN.search(v) else v)
        for k, v in properties
    ]


def filter_pattern(names: Sequence[str], pattern: str) -> list[str]:
    """Spark's ``StringUtils.filterPattern``: ``|``-separated alternatives, ``*`` is any text,
    case-insensitive, the result sorted and deduplicated."""
    found: set[str] = set()
    for sub in pattern.strip().split("|"):
        try:
            regex = re.compile("(?i)" + sub.replace("*", ".*"))
        except re.error:
            continue
        found.update(n for n in names if regex.fullmatch(n))
    return sorted(found)


# ----------------------------------------------------------------------------- properties


def _scala_improve(h: int) -> int:
    m = 0xFFFFFFFF
    h = (h + (~(h << 9) & m)) & m
    h ^= h >> 14
    h = (h + (h << 4)) & m
    return h ^ (h >> 10)


def scala_hashmap_order(keys: Sequence[str]) -> list[str]:
    """The iteration order of Scala 2.12's immutable ``HashMap`` (a hash trie indexed by 5-bit
    chunks of the improved hash, lowest first): the order in which Spark 3.5 prints a map of more
    than four entries."""

    def chunks(key: str) -> tuple[int, ...]:
        h = _scala_improve(java_string_hash(key))
        return tuple((h >> (5 * i)) & 31 for i in range(7))

    return sorted(keys, key=chunks)


def spark_view_properties(metadata: ViewMetadata) -> list[tuple[str, str]]:
    """``SparkView.properties()``: provider, location and format-version, then the view's
    properties except Iceberg's reserved ones, in that insertion order."""
    props = [
        ("provider", "iceberg"),
        ("location", metadata.location),
        ("format-version", str(metadata.format_version)),
    ]
    props += [(k, v) for k, v in metadata.properties.items() if k not in RESERVED_VIEW_PROPERTIES]
    return props


def _scala_to_map_minus_reserved(props: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``props.asScala.toMap -- ViewCatalog.RESERVED_PROPERTIES`` in its iteration order: up to
    four entries keep their insertion order (``Map1``..``Map4``), more become a ``HashMap``."""
    as_dict = dict(props)
    keys = list(as_dict) if len(as_dict) <= 4 else scala_hashmap_order(list(as_dict))
    return [(k, as_dict[k]) for k in keys if k not in SPARK_RESERVED_PROPERTIES]


def show_properties_rows(
    view_name: str, metadata: ViewMetadata, key: str | None = None
) -> list[tuple[str, str]]:
    """``SHOW TBLPROPERTIES`` rows ``(key, value)``."""
    props = _scala_to_map_minus_reserved(spark_view_properties(metadata))
    if key is not None:
        value = dict(props).get(key, f"View {view_name} does not have property: {key}")
        return [(key, value)]
    return props


def _sorted_shown_properties(metadata: ViewMetadata) -> list[tuple[str, str]]:
    props = dict(spark_view_properties(metadata))
    return sorted((k, v) for k, v in props.items() if k not in SPARK_RESERVED_PROPERTIES)


def _query_column_names(metadata: ViewMetadata) -> list[str]:
    value = metadata.properties.get(QUERY_COLUMN_NAMES)
    return value.split(",") if value is not None else []


def describe_rows(
    view_name: str, metadata: ViewMetadata, *, extended: bool = False
) -> list[tuple[str, str, str]]:
    """``DESCRIBE [EXTENDED]`` rows ``(col_name, data_type, comment)``."""
    rows = [(f.name, spark_simple_string(f.field_type), f.doc or "") for f in metadata.schema.fields]
    if not extended:
        return rows
    shown = ", ".join(
        f"'{escape_single_quoted(k)}' = '{escape_single_quoted(v)}'"
        for k, v in _sorted_shown_properties(metadata)
    )
    catalog_and_namespace = quoted(view_name.split(".")[:2])
    rows += [
        ("", "", ""),
        ("# Detailed View Information", "", ""),
        ("Comment", metadata.properties.get("comment", ""), ""),
        ("View Catalog and Namespace", catalog_and_namespace, ""),
        ("View Query Output Columns", "[" + ", ".join(_query_column_names(metadata)) + "]", ""),
        ("View Properties", "[" + shown + "]", ""),
        ("Created By", metadata.properties.get("create_engine_version", ""), ""),
    ]
    return rows


def _multi_lines(items: Sequence[str]) -> str:
    return "(\n  " + ",\n  ".join(items) + ")\n"


def show_create_view(view_name: str, metadata: ViewMetadata, sql: str) -> str:
    """``SHOW CREATE TABLE`` text of a view (``sql`` is its Spark SQL, or the fallback one)."""
    out = [f"CREATE VIEW {view_name} "]
    out.append(
        _multi_lines(
            [f.name + (f" COMMENT '{f.doc}'" if f.doc is not None else "") for f in metadata.schema.fields]
        )
    )
    comment = metadata.properties.get("comment")
    if comment is not None:
        out.append(f"COMMENT '{escape_single_quoted(comment)}'\n")
    props = _sorted_shown_properties(metadata)
    if props:
        shown = [f"'{escape_single_quoted(k)}' = '{escape_single_quoted(v)}'" for k, v in redact(props)]
        out.append("TBLPROPERTIES " + _multi_lines(shown))
    out.append(f"AS\n{sql}\n")
    return "".join(out)
