"""Prometheus metrics of one server process: requests, latency, commits and conflicts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

if TYPE_CHECKING:
    from iceview.server.routes import Route

__all__ = ["Metrics"]

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """The counters and histograms served at ``/metrics`` (each app has its own registry)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "iceview_requests",
            "HTTP requests served, by method, endpoint and status",
            ("method", "endpoint", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "iceview_request_seconds",
            "Time to answer a request, by endpoint",
            ("endpoint",),
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.commits = Counter(
            "iceview_commits",
            "Changes committed (created, replaced, altered, dropped, renamed), by kind",
            ("kind",),
            registry=self.registry,
        )
        self.conflicts = Counter(
            "iceview_commit_conflicts",
            "Commits refused as conflicts (409 CommitFailedException), by kind",
            ("kind",),
            registry=self.registry,
        )

    def observe(self, method: str, endpoint: str, status: int, seconds: float) -> None:
        """Count one answered request."""
        self.requests.labels(method, endpoint, str(status)).inc()
        self.latency.labels(endpoint).observe(seconds)
        if status == 409 and method == "POST" and ("/views/" in endpoint or "/tables/" in endpoint):
            self.conflicts.labels(_kind(endpoint)).inc()

    def reply(self, route: Route, status: int) -> None:
        """Count a successful mutation."""
        if route.mutation and status < 300:
            self.commits.labels(_kind(route.endpoint)).inc()

    def exposition(self) -> tuple[bytes, str]:
        """The text exposition format and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


def _kind(endpoint: str) -> str:
    if "/views" in endpoint or "register-view" in endpoint:
        return "view"
    if "/tables" in endpoint or "/register" in endpoint or "/transactions" in endpoint:
        return "table"
    return "namespace"
