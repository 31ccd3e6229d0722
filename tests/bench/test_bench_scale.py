"""``bench/bench_scale.py``: the shapes it names, the lost-commit check of its concurrency curves,
and its ``--quick`` mode runs every curve, on the suite's PostgreSQL too (the figures themselves are
measured in ``bench/``, not here)."""

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
    """``bench_scale``, loaded by path (it puts its folder on ``sys.path`` for its sibling modules:
    ``scale_common``, ``scale_catalog``, ``scale_concurrency``)."""
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


def test_percentile_is_a_measured_value() -> None:
    percentile = bench().scale_concurrency.percentile
    assert percentile([float(n) for n in range(1, 101)], 99) == 99.0
    assert percentile([3.0, 1.0, 2.0], 99) == 3.0
    assert percentile([5.0], 50) == 5.0


def test_check_chain_finds_lost_commits(tmp_path: Path) -> None:
    """The concurrency curves' check: a chain of commits passes; a commit acknowledged but in no
    file is lost; a file of the chain gone is a gap; a commit said to have set another file is
    caught."""
    from iceview.catalog.sql import SqlCatalog

    concurrency = bench().scale_concurrency
    catalog = SqlCatalog("bench", uri=f"sqlite:///{tmp_path}/c.db", warehouse=(tmp_path / "w").as_uri())
    catalog.create_namespace("ns")
    view = catalog.create_view(
        "ns.v",
        schema=concurrency._schema(),
        queries={"spark": concurrency.CREATED_SQL},
        default_namespace=("ns",),
    )
    created = view.metadata_location
    acknowledged: dict[tuple[int, int], str | None] = {}
    for i in range(3):
        view = view.replace_version(
            schema=concurrency._schema(),
            queries={"spark": f"SELECT 7 AS w, {i} AS i"},
            default_namespace=("ns",),
        )
        acknowledged[(7, i)] = view.operations.current_metadata_location
    check = concurrency.check_chain
    assert check(catalog, "ns.v", created, acknowledged, exact=True) == (0, [])

    lost, problems = check(catalog, "ns.v", created, {**acknowledged, (8, 0): None}, exact=False)
    assert lost == 1 and any("(8, 0) is in no file (lost)" in p for p in problems)
    swapped = {**acknowledged, (7, 0): acknowledged[(7, 1)]}
    assert check(catalog, "ns.v", created, swapped, exact=True)[1]  # (7, 0) did not set that file
    assert not check(catalog, "ns.v", created, swapped, exact=False)[1]  # over REST, not known
    middle = Path(str(acknowledged[(7, 1)]).removeprefix("file://"))
    middle.unlink()
    lost, problems = check(catalog, "ns.v", created, acknowledged, exact=False)
    assert lost == 1 and any("not 0..3" in p for p in problems)
    catalog.close()


def quick(*args: str) -> str:
    """``bench_scale.py --quick <args>`` in a process of its own: its output, once it exited 0."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_quick_runs_every_curve(postgres_url: str) -> None:
    """``--quick`` with the suite's PostgreSQL: the views and clients curves also measure on it,
    and the servers curve runs its ``iceview serve`` processes on a fresh database of its server."""
    curves = [arg for name in bench().CURVES if name != "depth" for arg in ("--curve", name)]
    out = quick("--postgres", postgres_url, *curves)
    for title in (
        "views per namespace: SQL catalog on SQLite",
        "views per namespace: SQL catalog on PostgreSQL",
        "views per namespace: iceview serve on SQLite",
        "retained versions per view: SQL catalog on SQLite",
        "concurrent clients (5 commits each): SQL catalog on SQLite",
        "concurrent clients (5 commits each): SQL catalog on PostgreSQL",
        "iceview serve processes on one PostgreSQL (4 clients, 5 commits each)",
    ):
        assert f"## {title}" in out, title
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
        "one view: commits",
        "one view: p99",
        "one view: retries",
        "many views: commits",
        "many views: p99",
    ):
        assert f"\n{operation} (" in out, operation
    assert "/ PyIceberg list" in out and "/ orjson.loads" in out
    # every lost-commit row (2 per table, 3 tables) is all zeros, at every size
    lost = [line.split()[4:-3] for line in out.splitlines() if ": lost (commits)" in line]
    assert len(lost) == 6 and all(cells and set(cells) == {"0"} for cells in lost), lost
    assert "done in" in out


@pytest.mark.java
@pytest.mark.beside  # its own Spark session, in a subprocess
def test_quick_runs_the_depth_curve() -> None:
    """The nesting-depth curve in ``--quick``: a Spark 3.5 session of its own, with Iceberg's runtime
    from Maven (so it runs beside the other ``java`` tests)."""
    out = quick("--curve", "depth")
    assert "## Nesting depth: planning a query through a chain of views (ms)" in out
    for row in ("iceview (ms)", "  / Iceberg-Spark", "inline (ms)", "Iceberg-Spark (ms)"):
        assert row in out, row
