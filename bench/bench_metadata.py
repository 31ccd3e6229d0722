"""Load and serialize a real 10-version, 12-schema view metadata file (written by Iceberg Java
1.10.2 through Spark), against two anchors measured in the same run:

* the floor: ``orjson.loads`` of the same bytes (decoding alone, no checks, no objects);
* PyIceberg 0.12's ``pyiceberg.view.metadata.ViewMetadata.model_validate_json``.

Targets: load <= 2x the floor, >= 10x faster than PyIceberg, serialize <= 30 us.

Run: .venv/bin/python bench/bench_metadata.py [--rounds 15] [--number 2000]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from iceview.spec import ViewMetadata

FILE = (
    Path(__file__).resolve().parent.parent
    / "tests/data/golden/java-1.10.2/23-view-default.many_versions-after-many-versions-12.metadata.json"
)


def per_call_us(fn: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args()

    data = FILE.read_bytes()
    loaded = ViewMetadata.from_json(data)
    loaded.versions  # noqa: B018  (serialize a fully built object, as Java's toJson does)
    assert loaded.to_json() == data.decode(), "the serializer must reproduce Java's bytes"
    try:
        from pyiceberg.view.metadata import ViewMetadata as PyIcebergViewMetadata

        pyiceberg: Callable[[], object] | None = lambda: PyIcebergViewMetadata.model_validate_json(data)  # noqa: E731
    except ImportError:
        pyiceberg = None

    cases: dict[str, Callable[[], object]] = {
        "floor (orjson.loads)": lambda: orjson.loads(data),
        "iceview load": lambda: ViewMetadata.from_json(data),
        "iceview serialize": loaded.to_json,
        "iceview load + serialize": lambda: ViewMetadata.from_json(data).to_json(),
        "iceview load + current schema": lambda: ViewMetadata.from_json(data).schema,
    }
    if pyiceberg is not None:
        cases["PyIceberg 0.12 load"] = pyiceberg

    for fn in cases.values():  # warm up
        per_call_us(fn, max(1, args.number // 10))
    samples: dict[str, list[float]] = {name: [] for name in cases}
    ratios: dict[str, list[float]] = {"load / floor": [], "PyIceberg / load": []}
    for _ in range(args.rounds):  # interleaved, so drift hits every case alike
        round_times = {}
        for name, fn in cases.items():
            number = args.number if "PyIceberg" not in name else max(1, args.number // 20)
            round_times[name] = per_call_us(fn, number)
            samples[name].append(round_times[name])
        ratios["load / floor"].append(round_times["iceview load"] / round_times["floor (orjson.loads)"])
        if pyiceberg is not None:
            ratios["PyIceberg / load"].append(
                round_times["PyIceberg 0.12 load"] / round_times["iceview load"]
            )

    print(f"file: {FILE.name} ({len(data)} bytes)")
    print(
        f"python {platform.python_version()} on {platform.machine()}, {args.rounds} rounds, median (min) per call"
    )
    for name, values in samples.items():
        print(f"  {name:32s} {statistics.median(values):8.1f} us  ({min(values):.1f})")
    load_ratio = statistics.median(ratios["load / floor"])
    print(f"  load / floor                     {load_ratio:8.2f} x   (target <= 2)")
    if pyiceberg is not None:
        speedup = statistics.median(ratios["PyIceberg / load"])
        print(f"  PyIceberg / iceview load         {speedup:8.1f} x   (target >= 10)")
    serialize = statistics.median(samples["iceview serialize"])
    print(f"  serialize                        {serialize:8.1f} us  (target <= 30)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
