"""A custom PyIceberg auth manager for the REST tests (``auth: {type: custom, impl: ...}``): it
sends the bearer token it was configured with, and counts the headers it made."""

from __future__ import annotations

from pyiceberg.catalog.rest.auth import AuthManager


class StaticBearer(AuthManager):
    calls = 0

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_header(self) -> str:
        StaticBearer.calls += 1
        return f"Bearer {self.token}"
