"""A package's public names imported when first used (PEP 562), so that importing the package, or one
light module of it, does not load what its other modules need (sqlglot, SQLAlchemy, PyIceberg's REST
session)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, where: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name in ``where`` (name -> the module defining it) is
    imported from its module on first use and kept in the package's ``namespace``."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
