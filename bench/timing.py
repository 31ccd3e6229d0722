"""Timing shared by the benchmarks: ways of doing one thing, measured interleaved."""

from __future__ import annotations

import random
import time
from collections.abc import Callable


def interleaved(fns: dict[str, Callable[[], float | None]], runs: int, warmup: int) -> dict[str, list[float]]:
    """Each function's times (s), after ``warmup`` rounds, interleaved in a new random order each
    round, so that warm-up (a JVM's JIT) and the machine's load drift touch every way alike (timing
    each way in its own block favoured whichever ran last). A function returning a float reports
    its own time (e.g. measured inside a JVM); else it is timed here around the call."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    order = list(fns)
    rng = random.Random(42)
    for _ in range(runs):
        rng.shuffle(order)
        for k in order:
            t = time.perf_counter()
            own = fns[k]()
            times[k].append(own if own is not None else time.perf_counter() - t)
    return times


def nearest_rank(values: list[float], p: float) -> float:
    """The ``p`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * p))]
