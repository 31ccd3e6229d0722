"""Helpers for the expansion tests: an in-memory view catalog."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pyiceberg.schema import Schema
from pyiceberg.types import IcebergType, NestedField

from iceview.sql import ResolvedView


def schema(*fields: tuple[str, IcebergType]) -> Schema:
    return Schema(*(NestedField(i, name, t, required=False) for i, (name, t) in enumerate(fields)))


@dataclass
class Views:
    """Views by full name; ``resolve`` records its calls."""

    dialect: str = "spark"
    views: dict[tuple[str, ...], ResolvedView] = field(default_factory=dict)
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def add(
        self,
        name: str,
        sql: str,
        fields: Sequence[tuple[str, IcebergType]],
        *,
        default_catalog: str | None = None,
        default_namespace: Sequence[str] | None = None,
        dialect: str | None = None,
    ) -> ResolvedView:
        parts = tuple(name.split("."))
        view = ResolvedView(
            name=parts,
            sql=sql,
            dialect=dialect or self.dialect,
            default_catalog=default_catalog or parts[0],
            default_namespace=tuple(default_namespace if default_namespace is not None else parts[1:-1]),
            schema=schema(*fields),
        )
        self.views[parts] = view
        return view

    def resolve(self, parts: tuple[str, ...]) -> ResolvedView | None:
        self.calls.append(parts)
        return self.views.get(parts)

    @property
    def resolver(self) -> Callable[[tuple[str, ...]], ResolvedView | None]:
        return self.resolve
