#!/usr/bin/env python3
"""What clients without a valid credential cost the clients with one (not a test).

A real ``iceview serve --auth-file`` (``tests/fixtures/iceview_serve.py``, SQLite, one worker)
with one OAuth2 client and one static token. A valid client sends ``GET /v1/config`` with the
static token over one keep-alive ``http.client`` connection; its latency (median, p95) is measured:

* ``idle``: nothing else runs;
* ``valid flood``: meanwhile ``--attackers`` processes (default 4) send ``GET /v1/config`` with the valid token
  as fast as they can (what any flood of cheap requests costs on these cores: the anchor for the
  next two);
* ``random tokens``: meanwhile as many processes send ``GET /v1/namespaces``
  with a fresh random bearer token each, as fast as they can, each on its own keep-alive connection;
* ``wrong secrets``: meanwhile as many processes ask ``POST /v1/oauth/tokens`` for a token with a
  wrong client secret, as fast as they can (the server rate-limits them per address: 429).

The phases run ``--rounds`` times (default 3), in a new random order each round (the machine's
drift touches all alike); the figures pool every round. It prints each phase's figures, the
attackers' requests per second and their answers, and the
ratio of each phase's median (and p95) to idle's: the goal is a median ratio within 2x. The anchor
is the idle phase of the same run. ``--scrypt-tokens`` stores the static token as a scrypt hash
(the earlier form, which the server still reads) instead of its SHA-256: against a server before
the fix, this is the set-up in which random tokens each cost a scrypt on the event loop.

    .venv/bin/python bench/bench_auth.py [--requests 1000] [--rounds 3] [--attackers 4] [--scrypt-tokens]
        [--failure-delay SECONDS]
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import multiprocessing as mp
import os
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from timing import nearest_rank

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))


def _connection(base: str) -> http.client.HTTPConnection:
    parsed = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(parsed.hostname or "127.0.0.1", parsed.port, timeout=60)


def _attacker(base: str, kind: str, client_id: str, go: Any, stop: Any, results: Any) -> None:
    """Send requests without a valid credential until ``stop``; report the answers' statuses."""
    statuses: collections.Counter[int] = collections.Counter()
    connection = _connection(base)
    go.wait(120)
    while not stop.is_set():
        if kind == "tokens":
            connection.request(
                "GET", "/v1/namespaces", headers={"Authorization": f"Bearer {secrets.token_urlsafe(32)}"}
            )
        elif kind.startswith("valid:"):
            connection.request("GET", "/v1/config", headers={"Authorization": f"Bearer {kind[6:]}"})
        else:
            form = urllib.parse.urlencode(
                {
                    "grant_type": "client_credentials",
                    "client_id": client_id,
                    "client_secret": secrets.token_urlsafe(16),
                }
            )
            connection.request(
                "POST",
                "/v1/oauth/tokens",
                body=form,
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
        answer = connection.getresponse()
        answer.read()
        statuses[answer.status] += 1
        if answer.getheader("connection", "").lower() == "close":
            connection.close()
            connection = _connection(base)
    connection.close()
    results.put(dict(statuses))


def _latencies(base: str, token: str, n: int) -> list[float]:
    connection = _connection(base)
    headers = {"Authorization": f"Bearer {token}"}
    times = []
    try:
        for _ in range(n):
            started = time.perf_counter()
            connection.request("GET", "/v1/config", headers=headers)
            answer = connection.getresponse()
            answer.read()
            times.append(time.perf_counter() - started)
            if answer.status != 200:
                raise SystemExit(f"the valid client got {answer.status}")
    finally:
        connection.close()
    return times


def _phase(base: str, token: str, n: int, kind: str | None, attackers: int, client_id: str) -> dict[str, Any]:
    if kind is None:
        _latencies(base, token, max(20, n // 10))  # warm-up
        started = time.perf_counter()
        times = _latencies(base, token, n)
        return {"times": times, "seconds": time.perf_counter() - started, "statuses": {}, "sent": 0}
    context = mp.get_context("spawn")
    go, stop, results = context.Event(), context.Event(), context.Queue()
    processes = [
        context.Process(target=_attacker, args=(base, kind, client_id, go, stop, results))
        for _ in range(attackers)
    ]
    for process in processes:
        process.start()
    time.sleep(1.5)  # every attacker imported and connected
    go.set()
    attack_started = time.perf_counter()
    time.sleep(3.0)  # the attack is under way (a rate limit's burst is spent)
    times = _latencies(base, token, n)
    stop.set()
    seconds = time.perf_counter() - attack_started
    statuses: collections.Counter[int] = collections.Counter()
    for _ in processes:
        statuses.update(results.get(timeout=120))
    for process in processes:
        process.join(timeout=60)
    return {"times": times, "seconds": seconds, "statuses": dict(statuses), "sent": sum(statuses.values())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=1000, help="valid requests per phase and round")
    parser.add_argument("--attackers", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every phase, in a new order each")
    parser.add_argument(
        "--scrypt-tokens", action="store_true", help="store the static token as a scrypt hash"
    )
    parser.add_argument(
        "--failure-delay",
        type=float,
        default=None,
        help="iceview serve --auth-failure-delay (default: its own)",
    )
    args = parser.parse_args()

    from fixtures.iceview_serve import start_iceview_server
    from iceview.server.auth import hash_secret

    load_before = os.getloadavg()
    started_at = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    base = Path(tempfile.mkdtemp(prefix="iceview-bench-auth-"))
    token = secrets.token_urlsafe(32)
    secret = secrets.token_urlsafe(24)
    stored = hash_secret(token) if args.scrypt_tokens else None
    if stored is None:
        from iceview.server.auth import hash_token

        stored = hash_token(token)
    auth = base / "auth.json"
    auth.write_text(
        json.dumps(
            {
                "signing-key": secrets.token_urlsafe(48),
                "clients": [{"id": "etl", "secret-hash": hash_secret(secret), "access": "read-write"}],
                "tokens": [{"name": "svc", "token-hash": stored, "access": "read-only"}],
            }
        )
    )
    serve_args = ["--auth-file", str(auth)]
    if args.failure_delay is not None:
        serve_args += ["--auth-failure-delay", str(args.failure_delay)]
    server = start_iceview_server(base / "serve", args=serve_args)
    try:
        print(
            f"iceview serve --auth-file (SQLite, 1 worker), static token stored as "
            f"{'scrypt' if args.scrypt_tokens else 'sha256'}, --auth-failure-delay "
            f"{'default' if args.failure_delay is None else args.failure_delay}; valid client: GET /v1/config, one keep-alive "
            f"connection, {args.requests} requests a phase and round, {args.rounds} rounds in shuffled order; {args.attackers} attacker processes; started "
            f"{started_at}; load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} on "
            f"{os.cpu_count()} CPUs\n"
        )
        print(f"{'phase':<14} {'p50 ms':>8} {'p95 ms':>8} {'attack req/s':>13}  attackers' answers")
        phases = {
            "idle": None,
            "valid flood": f"valid:{token}",
            "random tokens": "tokens",
            "wrong secrets": "secrets",
        }
        times: dict[str, list[float]] = {name: [] for name in phases}
        sent: dict[str, float] = dict.fromkeys(phases, 0.0)
        seconds: dict[str, float] = dict.fromkeys(phases, 0.0)
        answers: dict[str, collections.Counter[int]] = {name: collections.Counter() for name in phases}
        # the valid client has been seen before the attacks start (a scrypt-stored token is
        # verified on first use, which the attackers' address may have no rate left for)
        _latencies(server.uri, token, 1)
        order = list(phases)
        rng = random.Random(42)
        for _ in range(args.rounds):
            rng.shuffle(order)  # machine drift touches every phase alike
            for name in order:
                result = _phase(server.uri, token, args.requests, phases[name], args.attackers, "etl")
                times[name] += result["times"]
                sent[name] += result["sent"]
                seconds[name] += result["seconds"]
                answers[name].update(result["statuses"])
        figures: dict[str, tuple[float, float]] = {}
        for name in phases:
            p50 = statistics.median(times[name]) * 1000
            p95 = nearest_rank(times[name], 0.95) * 1000
            figures[name] = (p50, p95)
            rate = sent[name] / seconds[name] if sent[name] else 0.0
            said = ", ".join(f"{k}: {v}" for k, v in sorted(answers[name].items())) or "-"
            print(f"{name:<14} {p50:>8.2f} {p95:>8.2f} {rate:>13.0f}  {said}")
        idle_p50, idle_p95 = figures["idle"]
        print()
        for name in ("valid flood", "random tokens", "wrong secrets"):
            p50, p95 = figures[name]
            ratio = p50 / idle_p50
            met = "met" if ratio <= 2.0 else "NOT met"
            print(
                f"{name:<14} p50 / idle = {ratio:.2f}x (goal <= 2: {met}); p95 / idle = {p95 / idle_p95:.2f}x"
            )
        load_after = os.getloadavg()
        print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
