"""``bench/bench_scale.py``: the shapes it names, and its ``--quick`` mode runs every curve (the
figures themselves are measured in ``bench/``, not here)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_scale.py"


@cache
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_scale", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SIZES = [10, 100, 1000, 10_000, 100_000]


@pytest.mark.parametrize(
    ("times", "shape"),
    [
        ([1.0, 1.1, 0.9, 1.2, 1.4], "constant"),
        ([1.0, 0.8, 0.7, 0.6, 0.5], "constant"),
        ([1.0, 2.0, 3.0, 4.0, 5.0], "logarithmic"),  # one step per tenfold: log n
        ([1.0, 10.0, 100.0, 1000.0, 10_000.0], "linear"),
        ([1.0, 2.0, 11.0, 101.0, 1001.0], "linear"),  # a fixed cost first, then n
        ([1.0, 100.0, 10_000.0, 1e6, 1e8], "super-linear"),  # n squared
    ],
)
def test_growth_names_the_shape(times: list[float], shape: str) -> None:
    assert bench().growth(SIZES, times) == shape


def test_growth_needs_two_sizes() -> None:
    with pytest.raises(ValueError, match="two sizes or more"):
        bench().growth([10], [1.0])


def test_over_compares_shapes() -> None:
    module = bench()
    assert module.over("linear", "constant")
    assert module.over("super-linear", "linear")
    assert not module.over("logarithmic", "linear")
    assert not module.over("constant", "constant")


def test_quick_runs_every_curve() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    for title in (
        "views per namespace: SQL catalog on SQLite",
        "views per namespace: iceview serve on SQLite",
        "retained versions per view: SQL catalog on SQLite",
    ):
        assert f"## {title}" in out
    for operation in (
        "list",
        "first page",
        "walk",
        "load",
        "commit",
        "serve walk",
        "parse",
        "replace",
        "rollback",
    ):
        assert f"\n{operation} (" in out, operation
    assert "/ PyIceberg list" in out and "/ orjson.loads" in out
    assert "done in" in out
