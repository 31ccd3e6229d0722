"""Iceberg's primitive type names and the patterns of the parameterised ones, as Java's
``Types.fromPrimitiveString`` reads them (lower-cased first; Java's ``\\d`` and ``\\s`` are ASCII,
as with ``re.ASCII`` here). Shared by view schemas (:mod:`iceview.spec.schema`) and UDF types
(:mod:`iceview.udf.types`), which each write a type back in their own spelling."""

from __future__ import annotations

import re

__all__ = ["DECIMAL", "FIXED", "PRIMITIVE_NAMES"]

PRIMITIVE_NAMES = frozenset(
    {
        "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
        "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "unknown", "variant",
        "geometry", "geography",
    }
)  # fmt: skip
FIXED = re.compile(r"fixed\[\s*(\d+)\s*\]", re.ASCII)
DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)", re.ASCII)
