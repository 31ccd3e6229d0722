"""A token bucket per client address, for the requests that cost the server real work whatever
their outcome: the OAuth2 token endpoint (a scrypt per client secret) and bearer tokens that only a
scrypt-stored static token could match.

Each address starts with ``burst`` tokens and gains ``rate`` a second, up to ``burst``; a request
takes one. With none left it is refused, with the seconds until the next one (``Retry-After``).
Buckets live in this process (each worker has its own) and at most ``max_addresses`` are kept,
the least recently used dropped first (a dropped address starts full again).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["RateLimiter"]


class RateLimiter:
    """Token buckets by client address. Thread-safe."""

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        max_addresses: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("A rate limit needs a positive rate and a burst of at least 1")
        self.rate = rate
        self.burst = burst
        self._max = max_addresses
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, address: str) -> int:
        """Take a token for ``address``: 0 when there was one, else the whole seconds (at least 1)
        until there is (the request is refused and takes nothing)."""
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.pop(address, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                tokens -= 1.0
                wait = 0
            else:
                wait = max(1, math.ceil((1.0 - tokens) / self.rate))
            self._buckets[address] = (tokens, now)
            if len(self._buckets) > self._max:
                self._buckets.popitem(last=False)
        return wait
