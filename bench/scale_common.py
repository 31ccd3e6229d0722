"""What the cost curves of ``bench/bench_scale.py`` share: the shapes of growth, an operation's
figures by size, the table a curve prints, and the settings of a run.

A curve is a function ``curve(settings) -> defects`` (see :data:`Curve`): it picks its sizes
(``settings.quick``: small ones), measures, prints its tables with :func:`report`, and returns one
line per operation that grows faster than its work, and a :class:`Fatal` one per lost commit (the
concurrency curves). ``bench_scale.CURVES`` names them.

Also the processes a curve may start: ``iceview serve`` (:func:`start_servers`), a throw-away
PostgreSQL server (:func:`throwaway_postgres`) and a fresh database on one (:func:`fresh_database`).
"""

from __future__ import annotations

import contextlib
import math
import statistics
import sys
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The project's root (the bench scripts run from any directory)."""


@dataclass(frozen=True)
class Settings:
    """One run of the bench: its size (``quick``), the PostgreSQL server to also measure on (a
    SQLAlchemy URL), and a temporary folder that is removed after the run."""

    quick: bool
    postgres: str | None
    base: Path


Curve = Callable[[Settings], list[str]]
"""A cost curve: measures, prints its tables, returns its defects (one line each)."""


class Fatal(str):
    """A defect that fails any run, ``--quick`` too (a lost commit): the others are shapes, which
    only the full run's sizes can judge."""

    __slots__ = ()


# ----------------------------------------------------------------------------------------- shapes
def growth(sizes: Sequence[float], times: Sequence[float]) -> str:
    """The shape of ``times`` as ``sizes`` grow: the slope ``k`` of log(time) against log(size)
    over the larger half of the sizes (where fixed costs weigh least), and the overall ratio.

    * ``constant``: the largest size costs at most 1.5x the smallest;
    * ``linear``: 0.7 <= k <= 1.3; ``super-linear``: k > 1.3;
    * ``logarithmic``: anything between (grows, much slower than the size).
    """
    if len(sizes) != len(times) or len(sizes) < 2:
        raise ValueError("growth needs two sizes or more, with a time for each")
    if max(times[-1], times[0]) <= 1.5 * min(times[0], times[-1]) or times[-1] <= times[0]:
        return "constant"
    half = max(2, (len(sizes) + 1) // 2)
    xs = [math.log(s) for s in sizes[-half:]]
    ys = [math.log(max(t, 1e-12)) for t in times[-half:]]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    if k > 1.3:
        return "super-linear"
    if k >= 0.7:
        return "linear"
    return "logarithmic"


ORDER = ["constant", "logarithmic", "linear", "super-linear"]


def over(shape: str, expected: str) -> bool:
    """Whether ``shape`` grows faster than ``expected``."""
    return ORDER.index(shape) > ORDER.index(expected)


@dataclass
class Operation:
    """One operation of a curve: its figures by size (times in s, or in ``unit``), the shape its
    work calls for, an anchor.

    ``judged``: whether growing faster than ``expected`` is a defect (``OVER``). A throughput
    (``unit="/s"``) is not: more is better, and what it should do is said in ``note``.
    """

    name: str
    expected: str
    unit: str = "ms"
    values: dict[int, float] = field(default_factory=dict)
    anchor: dict[int, float] = field(default_factory=dict)
    anchor_name: str = ""
    from_size: int = 0
    """The shape is judged from this size on (a page of 100 names is not full below 100 views)."""
    judged: bool = True
    note: str = ""
    """Printed under the table: what the figures should do, and why."""


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0 < p <= 100) by nearest rank: a value that was measured."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def report(title: str, sizes: Sequence[int], operations: Sequence[Operation]) -> list[str]:
    """Print a curve's table; the operations that grow faster than their work."""
    print(f"\n## {title}")
    print(f"{'operation':<22}" + "".join(f"{n:>11,}" for n in sizes) + "   x smallest  shape (expected)")
    defects = []
    for op in operations:
        measured = [n for n in sizes if n in op.values]
        values = [op.values[n] for n in measured]
        scale = 1000.0 if op.unit == "ms" else 1.0
        spec = ">11,.0f" if op.unit == "commits" else ">11.2f"
        cells = "".join(f"{op.values[n] * scale:{spec}}" if n in op.values else f"{'-':>11}" for n in sizes)
        judged = [n for n in measured if n >= op.from_size]
        shape = growth(judged, [op.values[n] for n in judged]) if len(judged) >= 2 else "-"
        flag = ""
        if op.judged and shape != "-" and over(shape, op.expected):
            flag = "  OVER"
            defects.append(f"{title}: {op.name} grows {shape}, its work {op.expected}")
        ratio = f"{values[-1] / values[0]:>9.1f}x" if values and values[0] else f"{'-':>10}"
        print(f"{op.name + ' (' + op.unit + ')':<22}{cells}   {ratio}  {shape} ({op.expected}){flag}")
        if op.anchor:
            ratios = "".join(
                f"{op.values[n] / op.anchor[n]:>11.2f}" if n in op.anchor else f"{'-':>11}" for n in sizes
            )
            print(f"{'  / ' + op.anchor_name:<22}{ratios}")
    for op in operations:
        if op.note:
            print(textwrap.fill(f"* {op.name}: {op.note}", width=110, subsequent_indent="  "))
    return defects


# -------------------------------------------------------------------------------------- processes
# the test suite's launchers (tests/fixtures), as the other benches use them
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

from fixtures.iceview_serve import SERVED as SERVED  # noqa: E402 - for the curves
from fixtures.iceview_serve import IceviewServer, start_iceview_server  # noqa: E402
from fixtures.postgres import start_postgres_server  # noqa: E402
from fixtures.server_process import die_with_parent as die_with_parent  # noqa: E402 - for the curves


def start_servers(count: int, db_url: str, warehouse: Path, workdir: Path) -> list[IceviewServer]:
    """``count`` ``iceview serve`` processes (separate servers, ``tests/fixtures/iceview_serve.py``),
    each on a free port, all serving the SQL catalog :data:`SERVED` at ``db_url`` with one
    ``warehouse``; returned once each answers."""
    running: list[IceviewServer] = []
    try:
        for n in range(count):
            running.append(
                start_iceview_server(
                    workdir / f"server-{n}", db_url=db_url, properties={"warehouse": warehouse.as_uri()}
                )
            )
    except BaseException:
        stop_servers(running)
        raise
    return running


def stop_servers(running: Sequence[IceviewServer]) -> None:
    """SIGTERM each, and wait."""
    for server in running:
        server.stop()


# ---------------------------------------------------------------------------------- PostgreSQL
@contextlib.contextmanager
def fresh_database(url: str) -> Iterator[str]:
    """A new, empty database on the server of ``url`` (a SQLAlchemy URL; its database is only
    connected to, to create and drop the new one): its URL; dropped afterwards."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with contextlib.suppress(Exception), admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A private PostgreSQL server, started as the tests start theirs (``tests/fixtures/postgres.py``:
    Debian's binaries, a temporary folder, 127.0.0.1, fsync off): its ``postgres`` database's
    SQLAlchemy URL; stopped and removed afterwards."""
    server = start_postgres_server()
    try:
        yield server.admin_url()
    finally:
        server.destroy()
