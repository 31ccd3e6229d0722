"""Catalog and view properties with Java's parsing rules, and the commit retry policy
(``commit.retry.*``, Java's ``Tasks...exponentialBackoff``)."""

from __future__ import annotations

import logging
import random
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from iceview.errors import CommitFailedError, InvalidArgumentError
from iceview.sql.translate.keys import TRINO_CATALOG_NAME, TRINO_CATALOG_NAMES

__all__ = [
    "COMMIT_MAX_RETRY_WAIT_MS",
    "COMMIT_MIN_RETRY_WAIT_MS",
    "COMMIT_NUM_RETRIES",
    "COMMIT_TOTAL_RETRY_TIME_MS",
    "GC_ENABLED",
    "TRINO_CATALOG_NAME",
    "TRINO_CATALOG_NAMES",
    "VIEW_DEFAULT_PREFIX",
    "VIEW_OVERRIDE_PREFIX",
    "RetryPolicy",
    "namespace_property_changes",
    "properties_with_prefix",
    "property_as_bool",
    "property_as_int",
]

log = logging.getLogger(__name__)

# View properties (Java ViewProperties / TableProperties) and catalog properties (CatalogProperties)
GC_ENABLED = "gc.enabled"
COMMIT_NUM_RETRIES = "commit.retry.num-retries"
COMMIT_MIN_RETRY_WAIT_MS = "commit.retry.min-wait-ms"
COMMIT_MAX_RETRY_WAIT_MS = "commit.retry.max-wait-ms"
COMMIT_TOTAL_RETRY_TIME_MS = "commit.retry.total-timeout-ms"
VIEW_DEFAULT_PREFIX = "view-default."
VIEW_OVERRIDE_PREFIX = "view-override."

T = TypeVar("T")
_INT = re.compile(r"[+-]?[0-9]+")


# ----------------------------------------------------------------------------- properties


def property_as_int(properties: Mapping[str, str], key: str, default: int) -> int:
    """Java's ``PropertyUtil.propertyAsInt``: ``Integer.parseInt`` of the value, else ``default``."""
    value = properties.get(key)
    if value is None:
        return default
    if not _INT.fullmatch(value) or not -(2**31) <= int(value) < 2**31:
        raise InvalidArgumentError(f'For input string: "{value}" (property {key})')
    return int(value)


def property_as_bool(properties: Mapping[str, str], key: str, default: bool) -> bool:
    """Java's ``PropertyUtil.propertyAsBoolean``: ``Boolean.parseBoolean`` (only a case-insensitive
    ``"true"`` is true) when the key is set, else ``default``."""
    value = properties.get(key)
    if value is None:
        return default
    return value.lower() == "true"


def properties_with_prefix(properties: Mapping[str, str], prefix: str) -> dict[str, str]:
    """Java's ``PropertyUtil.propertiesWithPrefix``: matching keys with the prefix stripped."""
    return {k[len(prefix) :]: v for k, v in properties.items() if k.startswith(prefix)}


# ----------------------------------------------------------------------------- retries

_RETRY_KEYS = {
    "num_retries": COMMIT_NUM_RETRIES,
    "min_wait_ms": COMMIT_MIN_RETRY_WAIT_MS,
    "max_wait_ms": COMMIT_MAX_RETRY_WAIT_MS,
    "total_timeout_ms": COMMIT_TOTAL_RETRY_TIME_MS,
}


@dataclass(frozen=True)
class RetryPolicy:
    """Java's ``Tasks...retry(n).exponentialBackoff(min, max, total, scale)``: ``num_retries`` more
    attempts after the first; the wait before attempt ``k+1`` is ``min(min_wait * scale**(k-1),
    max_wait)`` plus up to 10% jitter; no new attempt starts after ``total_timeout`` (but there is
    always a second one)."""

    num_retries: int = 4
    min_wait_ms: int = 100
    max_wait_ms: int = 60_000
    total_timeout_ms: int = 1_800_000
    scale: float = 2.0

    @classmethod
    def from_properties(cls, properties: Mapping[str, str], *, lenient: bool = False) -> RetryPolicy:
        """The ``commit.retry.*`` properties of a view or function, with Java's defaults. A value
        that is not an integer raises ``InvalidArgumentError``; with ``lenient`` its default is used
        instead (logged), so that a bad value already stored does not block the commit that would
        fix it."""
        values: dict[str, int] = {}
        for field_name, key in _RETRY_KEYS.items():
            default = getattr(cls, field_name)
            try:
                values[field_name] = property_as_int(properties, key, default)
            except InvalidArgumentError as e:
                if not lenient:
                    raise
                log.warning("Ignoring %s; using %d", e, default)
                values[field_name] = default
        return cls(**values)

    @classmethod
    def check_changed(cls, before: Mapping[str, str], after: Mapping[str, str]) -> None:
        """Raise ``InvalidArgumentError`` when a change sets a ``commit.retry.*`` property to a
        value that is not an integer (Java accepts it, and then fails every later commit)."""
        for key in _RETRY_KEYS.values():
            if key in after and after.get(key) != before.get(key):
                property_as_int(after, key, 0)

    def delay_ms(self, attempt: int) -> int:
        """The wait after failed attempt number ``attempt`` (1-based), jitter included."""
        delay = int(min(self.min_wait_ms * self.scale ** (attempt - 1), float(self.max_wait_ms)))
        return delay + random.randrange(max(1, int(delay * 0.1)))

    def run(
        self, task: Callable[[], T], retry_on: tuple[type[BaseException], ...] = (CommitFailedError,)
    ) -> T:
        """Run ``task`` until it succeeds, raises something else, or the retries run out."""
        start = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                return task()
            except retry_on as e:
                elapsed_ms = (time.monotonic() - start) * 1000
                if attempt >= self.num_retries + 1 or (elapsed_ms > self.total_timeout_ms and attempt > 1):
                    raise
                sleep_ms = self.delay_ms(attempt)
                log.debug("Retrying commit after failure: sleepTimeMs=%s %s", sleep_ms, e)
                time.sleep(sleep_ms / 1000.0)


def namespace_property_changes(
    removals: Iterable[str] | None, updates: Mapping[str, str] | None
) -> tuple[list[str], dict[str, str]]:
    """The removals (in order, once each) and updates of a namespace properties change; Java's
    ``InvalidArgumentError`` when a key is both removed and set."""
    removal_list = list(dict.fromkeys(removals or ()))
    update_map = dict(updates or {})
    overlap = set(removal_list) & set(update_map)
    if overlap:
        raise InvalidArgumentError(f"Updates and deletes have an overlap: {sorted(overlap)}")
    return removal_list, update_map
