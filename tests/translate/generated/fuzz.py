"""``scripts/translation_fuzz.sh --seed N --minutes M``: the generator run longer than CI runs it,
on seeds CI never uses. Writes the minimised mismatches as JSON lines and prints, per leg, how many
queries were generated, ran in the source engine, were translated, refused (by code) and
mismatched."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from translate.generated.runner import LEGS, TRINO_LEGS, Engines, as_json, check, leg_name, run_leg


def replay(engines: Engines, found: Path) -> int:
    """Run every minimised mismatch of ``found`` again; the number still wrong."""
    cases = [json.loads(line) for line in found.read_text().splitlines() if line.strip()]
    still = 0
    for leg in (*LEGS, *TRINO_LEGS):
        mine = [c for c in cases if c["leg"] == leg_name(leg)]
        if mine and "trino" in leg[:2] and engines.trino is None:
            print(f"  {len(mine)} cases of {leg_name(leg)} not run: give --trino", flush=True)
            continue
        if mine:
            engines.mode(leg[2])
        for case in mine:
            verdict = check(engines, leg, case["query"])
            if verdict.status == "mismatch":
                still += 1
                print(
                    f"  STILL WRONG [{case['leg']}] {case['query']}\n    -> {verdict.translation}", flush=True
                )
    print(f"{still} of {len(cases)} in {found} still wrong")
    return still


def _stop(engines: Engines, spark: Any, servers: Any) -> None:
    engines.close()
    spark.stop()
    if engines.trino is not None:
        engines.trino.close()
    for server in servers or ():
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="translation_fuzz")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--replay", type=Path, help="only run the mismatches of this file again (found.jsonl)"
    )
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--out", type=Path, default=Path("translation-mismatches.jsonl"))
    parser.add_argument("--max-queries", type=int, default=1_000_000, help="per leg")
    parser.add_argument("--shrink-seconds", type=float, default=20.0)
    parser.add_argument("--max-shrinks", type=int, default=25, help="per leg")
    parser.add_argument("--leg", action="append", help="only these legs, e.g. 'spark->duckdb ansi=true'")
    parser.add_argument(
        "--trino", action="store_true", help="the legs with Trino (starts iceview serve and Trino)"
    )
    args = parser.parse_args(argv)
    if args.seed is None and args.replay is None:
        parser.error("give --seed N (or --replay FILE)")

    from fixtures.java_session import build_spark

    legs = [leg for leg in (TRINO_LEGS if args.trino else LEGS) if not args.leg or leg_name(leg) in args.leg]
    started = time.monotonic()
    trino = servers = None
    if args.trino:
        from translate.generated.trino_engine import Trino, start_standalone

        servers = start_standalone(tempfile.mkdtemp(prefix="iceview-fuzz-trino-"))
        trino = Trino("127.0.0.1", servers[0].port)
        print(f"Trino up in {time.monotonic() - started:.0f} s; {trino.wait_for_table()} rows", flush=True)
    spark = build_spark()
    engines = Engines(spark, trino)
    print(f"Spark up in {time.monotonic() - started:.0f} s; {len(legs)} legs, seed {args.seed}", flush=True)
    total = 0
    if args.replay is not None:
        try:
            return 1 if replay(engines, args.replay) else 0
        finally:
            _stop(engines, spark, servers)
    try:
        with args.out.open("w") as out:
            for leg in legs:
                leg_started = time.monotonic()
                stats, found = run_leg(
                    engines,
                    leg,
                    args.seed,
                    seconds=args.minutes * 60 / len(legs),
                    max_queries=args.max_queries,
                    shrink_seconds=args.shrink_seconds,
                    max_shrinks=args.max_shrinks,
                )
                for m in found:
                    out.write(json.dumps(as_json(m), ensure_ascii=False) + "\n")
                out.flush()
                total += stats.mismatched
                print(f"{stats.line(leg_name(leg))} ({time.monotonic() - leg_started:.0f} s)", flush=True)
                for m in found:
                    print(
                        f"  MISMATCH [{m.kind}] {m.query}\n    -> {m.translation}\n    {m.detail[:300]}",
                        flush=True,
                    )
    finally:
        _stop(engines, spark, servers)
    print(f"{total} mismatched; minimised ones in {args.out}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
