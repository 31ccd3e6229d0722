"""The up-cast probes of view levels: analysed by Spark in one query, and remembered as guards.

The up-cast check of a view (:mod:`iceview.spark.upcast`) needs Spark's analysis of the view's SQL
with each view inside it replaced by a one-row stand-in of that view's stored types (its *probe*).
A stand-in depends only on stored schemas, so the probes of all levels of a nested read are known
once the read is expanded, and none depends on another's answer. Analysing them one by one costs
one ``spark.sql`` per level (parse, analysis, catalog loads, two Py4J/Connect round trips each);
:func:`analyse_together` asks Spark once::

    SELECT struct(`__p0`.*) AS `__p0`, struct(`__p1`.*) AS `__p1`
    FROM (<probe 0>) AS `__p0` CROSS JOIN (<probe 1>) AS `__p1`

Each probe is a subquery of its own in ``FROM`` (no ``LATERAL``), so it sees nothing of the others
and Spark resolves it exactly as the probe alone; ``struct(p.*)`` keeps its columns, their order,
names and types (nested nullability included), and tells the probes' widths apart without trusting
any count iceview computed. When the combined query fails, the caller falls back to one analysis
per probe, so which probe fails and which error is reported stay as before.

:class:`ProbeCache` spares even that analysis when a view is read again. It remembers, per view and
probe text, the output Spark gave the probe that passed the check. On the next read the check is not
asked of Spark in a query of its own: the expansion carries a *guard* under the view's casts, one
condition for the view's schema columns ``0 .. n-1``::

    WHERE TRUE OR aggregate(array(0), CAST(NULL AS STRUCT<`c0`: <remembered type 0>, ...>),
                            (`__a`, `__x`) -> (`__c0`, ...)) IS NULL

(for one column, its remembered type and ``-> `__c0```). The row constructor ``(`__c0`, ...)`` is
the ``struct`` function's expression, made by Spark's parser: a function looked up costs ~0.1 ms of
analysis (2026-11-29), and the guard is analysed on every read.

Spark's ``aggregate`` refuses, during analysis, a merge function whose type is not the zero's type
(compared as ``DataType.equalsStructurally`` ignoring nullability; no implicit cast applies), so
Spark's analysis of the expansion itself proves that each column still has the remembered type
(field names do not take part), and the column aliases ``__v(__c0, ...)`` prove the width. The guard is only used when the remembered
types pass the check with every nullable flag set (so no difference in nullability can turn the
answer) and when they are types whose SQL name means exactly that type (not ``CHAR``, ``VARCHAR``,
intervals or ``VOID``). ``TRUE OR ...`` is removed by Spark's optimizer: nothing of it runs. A
changed table, view, function or setting can only make the guard fail; then the caller drops the
guarded expansion and runs the real checks, whose error (if any) is reported, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql import types as st

from iceview.spark.classic import is_classic
from iceview.spark.upcast import can_up_cast, spark_type
from iceview.sql import ResolvedView

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["ProbeCache", "analyse_together", "combined_probe", "ensure_analysed"]

_MAX_ENTRIES = 4096
MAX_GUARDED = 5
"""Guards are used for a read of at most this many checked views. A guard is analysed on the way to
the answer (about 2 ms of Spark's analysis per view on a busy 2-core machine, 2026-11-25), while the
probes are analysed together beside it: at depth 3 guards were faster (1.23x against 1.55x of
Iceberg-Spark), at depth 10 one combined probe was (1.05x against 1.18x)."""
_PLAIN: dict[type[st.DataType], str] = {
    st.ByteType: "TINYINT",
    st.ShortType: "SMALLINT",
    st.IntegerType: "INT",
    st.LongType: "BIGINT",
    st.FloatType: "FLOAT",
    st.DoubleType: "DOUBLE",
    st.StringType: "STRING",
    st.BinaryType: "BINARY",
    st.BooleanType: "BOOLEAN",
    st.DateType: "DATE",
    st.TimestampType: "TIMESTAMP_LTZ",  # not TIMESTAMP: spark.sql.timestampType may make it NTZ
    st.TimestampNTZType: "TIMESTAMP_NTZ",
}


def _alias(i: int) -> str:
    return f"`__p{i}`"


def combined_probe(probes: Sequence[str]) -> str:
    """One query whose output column ``i`` is a struct of probe ``i``'s output columns."""
    if not probes:
        raise ValueError("combined_probe needs at least one probe")
    columns = ", ".join(f"struct({_alias(i)}.*) AS {_alias(i)}" for i in range(len(probes)))
    sources = " CROSS JOIN ".join(f"(\n{sql}\n) AS {_alias(i)}" for i, sql in enumerate(probes))
    return f"SELECT {columns} FROM {sources}"


def analyse_together(spark: SparkSession, probes: Sequence[str]) -> list[st.StructType] | None:
    """The analysed output of each probe, from one Spark analysis of :func:`combined_probe`;
    ``None`` when Spark cannot analyse the combined query (then analyse each alone to learn which
    fails and how)."""
    try:
        schema = spark.sql(combined_probe(probes)).schema
    except Exception:
        return None
    outputs = [f.dataType for f in schema.fields]
    if len(outputs) != len(probes) or not all(isinstance(o, st.StructType) for o in outputs):
        return None  # not the shape asked for: trust only the one-by-one analyses
    return [o for o in outputs if isinstance(o, st.StructType)]


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def guard_type(t: st.DataType) -> str | None:
    """The SQL type name that means exactly ``t`` in a ``CAST``, or ``None`` when there is none
    iceview trusts (``CHAR``/``VARCHAR`` are read as ``STRING``, intervals and ``VOID`` are left
    out)."""
    plain = _PLAIN.get(type(t))
    if plain is not None:
        return plain
    if isinstance(t, st.DecimalType):
        return f"DECIMAL({t.precision},{t.scale})"
    if isinstance(t, st.ArrayType):
        inner = guard_type(t.elementType)
        return None if inner is None else f"ARRAY<{inner}>"
    if isinstance(t, st.MapType):
        key, value = guard_type(t.keyType), guard_type(t.valueType)
        return None if key is None or value is None else f"MAP<{key}, {value}>"
    if isinstance(t, st.StructType) and t.fields:
        parts = [guard_type(f.dataType) for f in t.fields]
        if any(p is None for p in parts):
            return None
        return (
            "STRUCT<"
            + ", ".join(f"{_quote(f.name)}: {p}" for f, p in zip(t.fields, parts, strict=True))
            + ">"
        )
    return None


def nullable(t: st.DataType) -> st.DataType:
    """``t`` with every nested nullable flag set: the type that passes fewest up-casts among those
    that differ from ``t`` in nullability only."""
    if isinstance(t, st.ArrayType):
        return st.ArrayType(nullable(t.elementType), True)
    if isinstance(t, st.MapType):
        return st.MapType(nullable(t.keyType), nullable(t.valueType), True)
    if isinstance(t, st.StructType):
        return st.StructType([st.StructField(f.name, nullable(f.dataType), True) for f in t.fields])
    return t


@dataclass(frozen=True)
class _Entry:
    output: st.StructType
    usable: bool


class ProbeCache:
    """What Spark answered to each view's probe that passed the up-cast check, turned into guards
    (see the module's documentation). Keys are the view's name and the probe's text: the text holds
    the view's SQL, qualified, and the stored types of the views inside it. Shared by the threads of
    one :class:`~iceview.spark.SparkViews`."""

    def __init__(self) -> None:
        self._entries: dict[tuple[tuple[str, ...], str], _Entry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def remember(self, view: ResolvedView, probe: str, output: st.StructType) -> None:
        """Keep the output of a probe whose check passed. An output equal to one whose guard Spark
        just refused stays unused (the guard cannot say it), until the output changes."""
        key = (view.name, probe)
        with self._lock:
            before = self._entries.get(key)
            usable = before is None or before.usable or before.output != output
            if len(self._entries) >= _MAX_ENTRIES and key not in self._entries:
                self._entries.clear()
            self._entries[key] = _Entry(output, usable)

    def guard(self, view: ResolvedView, probe: str, width: int, columns: Sequence[str]) -> str | None:
        """The guard for reading ``view`` through ``probe`` whose ``width`` columns are named
        ``columns`` in the expansion, or ``None`` (then the check must be run)."""
        entry = self._entries.get((view.name, probe))
        if entry is None or not entry.usable:
            return None
        fields = view.schema.fields
        out = entry.output.fields
        if len(out) != width or len(columns) != width or len(out) < len(fields):
            return None
        types = []
        for i, f in enumerate(fields):
            source = out[i].dataType
            name = guard_type(source)
            try:
                target = spark_type(f.field_type)
            except Exception:
                return None
            if name is None or not can_up_cast(nullable(source), target):
                return None
            types.append(name)
        if not types:
            return None
        if len(types) == 1:  # one column: its own type, no struct
            remembered, used = types[0], columns[0]
        else:  # a row constructor: Spark's parser makes the struct, no function to look up
            typed = ", ".join(f"`c{i}`: {t}" for i, t in enumerate(types))
            remembered, used = f"STRUCT<{typed}>", f"({', '.join(columns[: len(fields)])})"
        return f"TRUE OR aggregate(array(0), CAST(NULL AS {remembered}), (`__a`, `__x`) -> {used}) IS NULL"

    def refused(self, keys: Sequence[tuple[tuple[str, ...], str]]) -> None:
        """Spark refused an expansion carrying these guards: do not use them again unless the
        probes' output changes (or :meth:`clear_refusal` says the guards were not to blame)."""
        self._set_usable(keys, False)

    def clear_refusal(self, keys: Sequence[tuple[tuple[str, ...], str]]) -> None:
        """The statement fails without the guards as well: they were not why Spark refused it."""
        self._set_usable(keys, True)

    def _set_usable(self, keys: Sequence[tuple[tuple[str, ...], str]], usable: bool) -> None:
        with self._lock:
            for key in keys:
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries[key] = _Entry(entry.output, usable)


def ensure_analysed(spark: SparkSession, df: DataFrame) -> None:
    """Make Spark analyse ``df`` now: classic Spark has (``spark.sql`` is eager); Spark Connect
    analyses lazily, so ask for the schema."""
    if not is_classic(spark):
        df.schema  # noqa: B018 - the request is the point
