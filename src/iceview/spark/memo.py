"""Expansions remembered per statement text, replayed instead of rebuilt when nothing changed.

Expanding a statement is a function of its text and of the answers to the questions the expansion
asks through a :class:`~iceview.spark.call.Call`: which names are catalogs, which view each name
resolves to (:class:`~iceview.sql.ResolvedView`: name, SQL, dialect, defaults and schema), whether
a temporary view shadows a name, which guard each deferred up-cast check gets, and, for calls of
SQL UDFs, each function's metadata and the column types its arguments were typed with. A
:class:`Recorder` stands between the expander and the call and writes those questions and answers
down; :class:`ExpansionMemo` keeps them with the expanded text.

On the next statement with the same text and the same session state (current catalog and
namespace, the call's modes), :meth:`ExpansionMemo.replay` asks every recorded question again, in
the recorded order, through the new call (so the catalog is read fresh and the call's lists of
deferred checks, guards and shadowing questions are built exactly as an expansion would build
them), and compares each answer. If all are equal the expansion would produce the same text, and
the remembered text is used; at the first difference the replay stops and the statement is
expanded in full. An expansion that ran an up-cast check in line (a Spark analysis whose answer
shapes the text) or used a caller's translation hook is not remembered.

What this spares is the rewriting itself (sqlglot's analysis of the texts is cached elsewhere):
about 0.3 ms of a depth-1 read and more at depth 10; the catalog is asked as often as before.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from iceview.sql import ResolvedView
    from iceview.udf import FunctionMetadata

__all__ = ["ExpansionMemo", "Recorder"]

_MAX_ENTRIES = 1024

Step = tuple[str, Any, Any]
"""``(question, arguments, answer)``."""


class Call(Protocol):
    """The questions of :class:`iceview.spark.call.Call` that an expansion asks."""

    def is_catalog(self, name: str) -> bool: ...

    def resolve(self, qualified: tuple[str, ...]) -> ResolvedView | None: ...

    def is_shadowed(self, written: tuple[str, ...]) -> bool: ...

    def check_output(self, view: ResolvedView, sql: str) -> int | None: ...

    def check_later(self, view: ResolvedView, sql: str, width: int, columns: Sequence[str]) -> str | None: ...

    def resolve_function(self, qualified: tuple[str, ...]) -> FunctionMetadata | None: ...

    def column_types(self, written: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None: ...

    def is_builtin_function(self, name: str, outer: bool) -> bool: ...

    def relation_types(self, qualified: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None: ...


def fingerprint(view: ResolvedView | None) -> tuple[Any, ...] | None:
    """All of a resolved view that expansion reads."""
    if view is None:
        return None
    return (view.name, view.sql, view.dialect, view.default_catalog, view.default_namespace, view.schema)


class Recorder:
    """The questions an expansion asks of a :class:`Call`, passed through and written down."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.steps: list[Step] = []
        self.replayable = True

    def is_catalog(self, name: str) -> bool:
        answer = self.call.is_catalog(name)
        self.steps.append(("catalog", name, answer))
        return answer

    def resolve(self, qualified: tuple[str, ...]) -> ResolvedView | None:
        view = self.call.resolve(qualified)
        self.steps.append(("resolve", qualified, fingerprint(view)))
        return view

    def is_shadowed(self, written: tuple[str, ...]) -> bool:
        answer = self.call.is_shadowed(written)
        self.steps.append(("shadowed", written, answer))
        return answer

    def check_output(self, view: ResolvedView, sql: str) -> int | None:
        self.replayable = False  # Spark's answer shapes the text
        return self.call.check_output(view, sql)

    def resolve_function(self, qualified: tuple[str, ...]) -> FunctionMetadata | None:
        metadata = self.call.resolve_function(qualified)
        self.steps.append(("function", qualified, metadata))
        return metadata

    def column_types(self, written: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
        answer = self.call.column_types(written)
        self.steps.append(("columns", written, answer))
        return answer

    def is_builtin_function(self, name: str, outer: bool) -> bool:
        answer = self.call.is_builtin_function(name, outer)
        self.steps.append(("builtin", (name, outer), answer))
        return answer

    def relation_types(self, qualified: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
        answer = self.call.relation_types(qualified)
        self.steps.append(("relation", qualified, answer))
        return answer

    def check_later(self, view: ResolvedView, sql: str, width: int, columns: Sequence[str]) -> str | None:
        guard = self.call.check_later(view, sql, width, columns)
        self.steps.append(("later", (fingerprint(view), sql, width, tuple(columns)), guard))
        return guard


@dataclass(frozen=True)
class _Entry:
    steps: tuple[Step, ...]
    text: str


class ExpansionMemo:
    """Expanded statements by text and session state, shared by the threads of one
    :class:`~iceview.spark.SparkViews`."""

    def __init__(self) -> None:
        self._entries: dict[tuple[Any, ...], _Entry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def remember(self, key: tuple[Any, ...], recorder: Recorder, text: str) -> None:
        if not recorder.replayable:
            return
        with self._lock:
            if len(self._entries) >= _MAX_ENTRIES and key not in self._entries:
                self._entries.clear()
            self._entries[key] = _Entry(tuple(recorder.steps), text)

    def replay(self, key: tuple[Any, ...], call: Call) -> str | None:
        """The remembered expansion, if every recorded question gets the recorded answer from
        ``call`` now; else ``None``, and the caller expands in full (``call`` keeps what it
        learnt, all of it true now)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        views: list[tuple[Any, ResolvedView]] = []  # a schema is not hashable
        for question, args, answer in entry.steps:
            if question == "resolve":
                view = call.resolve(args)
                got: Any = fingerprint(view)
                if view is not None:
                    views.append((got, view))
            elif question == "catalog":
                got = call.is_catalog(args)
            elif question == "shadowed":
                got = call.is_shadowed(args)
            elif question == "function":
                got = call.resolve_function(args)
            elif question == "columns":
                got = call.column_types(args)
            elif question == "builtin":
                got = call.is_builtin_function(*args)
            elif question == "relation":
                got = call.relation_types(args)
            else:  # "later"
                found = next((v for fp, v in views if fp == args[0]), None)
                if found is None:
                    return None
                got = call.check_later(found, args[1], args[2], args[3])
            if got != answer:
                return None
        return entry.text
