"""``Idempotency-Key`` on mutations: a retried request is applied once (REST spec 1.11).

A mutation that carries ``Idempotency-Key: <uuid>`` first *claims* the key (:meth:`get`): the
store records it as in progress, with a fingerprint of the request (SHA-256 of the endpoint the
app passes, its method, path and query, and of the body). The app then runs the mutation and *finalizes* the key with the reply (:meth:`put`):
2xx and terminal 4xx replies are stored, and every later request with the key gets that reply
again, without running anything, until the key expires ``idempotency_lifetime_s`` after it was
finalized. A 5xx reply is not stored: the app calls :meth:`release`, so a retry runs again.

- **A key reused for a different request** (another endpoint, path or body) is refused with
  ``422 UnprocessableEntityException``; nothing runs.
- **Two requests with one key at once:** the second finds the key claimed and waits (up to
  ``wait_s``, 5 s by default) for the first to finish, then gets its reply. If the first is still
  running by then, the second gets ``409 ConflictException`` ("in progress; retry later") and
  can retry with the same key. A claim whose holder died (a crashed worker) lapses after the
  request time limit plus 30 s; the next request with the key then runs.
- **A malformed key** (not a UUID string, as the spec requires) is a 400.
- A replay has the stored status and body, not the original's headers. Authentication and the
  read-only check run before the key is looked at, so a 401 or 403 is never stored.

Servers hold no state of their own, so with a SQL catalog the keys live in the catalog's own
database, in a table of their own, ``iceview_idempotency_keys`` (created when missing), which every
worker and every instance on the same database shares; every statement binds its values. Times
are each server's wall clock, so instances should keep their clocks in sync. A catalog without a
SQL database (or an in-memory SQLite one) gets :class:`MemoryIdempotencyStore`, which holds the
keys in the process: it works for one worker of one instance only.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    delete,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from iceview.catalog import Catalog
from iceview.catalog.sql_db import make_engine, to_sqlalchemy_url, transaction
from iceview.server.context import ServerSettings
from iceview.server.errors import ApiError

__all__ = [
    "TABLE_NAME",
    "IdempotencyStore",
    "MemoryIdempotencyStore",
    "SqlIdempotencyStore",
    "StoredReply",
    "store_for",
]

log = logging.getLogger("iceview.server")

TABLE_NAME = "iceview_idempotency_keys"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_POLL_S = 0.05
_PURGE_EVERY_S = 60.0
_IN_PROGRESS, _DONE = "in-progress", "done"


@dataclass(frozen=True)
class StoredReply:
    """A finalized reply: its status and body (JSON bytes, empty for no body)."""

    status: int
    body: bytes


@dataclass(frozen=True)
class _Found:
    """What a claim attempt found: the key claimed for us, or someone else's entry."""

    state: Literal["claimed", "in-progress", "done"]
    fingerprint: str = ""
    reply: StoredReply | None = None


def _fingerprint(endpoint: str, request: bytes) -> str:
    return hashlib.sha256(endpoint.encode() + b"\0" + request).hexdigest()


def _now_ms() -> int:
    return int(time.time() * 1000)


def normalize_key(key: str) -> str:
    """The key in lower case; a 400 when it is not a UUID string."""
    normalized = key.strip().lower()
    if not _UUID.match(normalized):
        raise ApiError(
            400,
            "BadRequestException",
            "Malformed Idempotency-Key header: expected a UUID string of 36 characters "
            "(e.g. 017f22e2-79b0-7cc3-98c4-dc0c0c07398f)",
        )
    return normalized


class IdempotencyStore(ABC):
    """Where keys are claimed and replies kept. Thread-safe; see the module docstring."""

    def __init__(self, lifetime_s: float, claim_s: float, wait_s: float = 5.0) -> None:
        self.lifetime_s = lifetime_s
        """How long a finalized key is remembered."""
        self.claim_s = claim_s
        """How long an unfinished claim holds before another request may take the key over."""
        self.wait_s = wait_s
        """How long a request waits for a concurrent one with the same key."""
        self._tokens: dict[str, str] = {}
        self._tokens_lock = threading.Lock()

    # -- the storage primitives ----------------------------------------------------------------
    @abstractmethod
    def _claim(self, key: str, fingerprint: str, token: str, now_ms: int) -> _Found:
        """Claim ``key`` (absent, or expired) for ``token``; else what holds it."""

    @abstractmethod
    def _finish(self, key: str, token: str, reply: StoredReply, now_ms: int) -> None:
        """Store ``reply`` for ``key`` if ``token`` still holds its claim."""

    @abstractmethod
    def _drop(self, key: str, token: str) -> None:
        """Remove ``key`` if ``token`` still holds its claim."""

    @abstractmethod
    def close(self) -> None:
        """Release the store's resources."""

    # -- the protocol ----------------------------------------------------------------------------
    def get(self, key: str, endpoint: str, request: bytes) -> StoredReply | None:
        """The stored reply to replay for ``key``, or None when the key is now claimed for this
        request (run it, then :meth:`put` or :meth:`release`). Raises :class:`ApiError`: 400 for
        a malformed key, 422 when the key was used for a different request, 409 when a request
        with the key is still in progress after :attr:`wait_s`."""
        key = normalize_key(key)
        fingerprint = _fingerprint(endpoint, request)
        deadline = time.monotonic() + self.wait_s
        while True:
            token = secrets.token_hex(16)
            found = self._claim(key, fingerprint, token, _now_ms())
            if found.state == "claimed":
                with self._tokens_lock:
                    self._tokens[key] = token
                return None
            if found.fingerprint != fingerprint:
                raise ApiError(
                    422,
                    "UnprocessableEntityException",
                    f"Idempotency-Key {key} was already used for a different request "
                    f"(endpoint {endpoint} or body differs): use a new key for a new operation",
                )
            if found.state == "done" and found.reply is not None:
                return found.reply
            if time.monotonic() >= deadline:
                raise ApiError(
                    409,
                    "ConflictException",
                    f"A request with Idempotency-Key {key} is still in progress: retry it later "
                    "with the same key to get its outcome",
                )
            time.sleep(_POLL_S)

    def _token(self, key: str) -> str | None:
        with self._tokens_lock:
            return self._tokens.pop(key, None)

    def put(self, key: str, endpoint: str, request: bytes, reply: StoredReply) -> None:
        """Finalize the key this process claimed with :meth:`get`: later requests get ``reply``."""
        key = normalize_key(key)
        token = self._token(key)
        if token is not None:
            self._finish(key, token, reply, _now_ms())

    def release(self, key: str, endpoint: str, request: bytes) -> None:
        """Give up the claim without a final reply (a 5xx): a retry with the key runs again."""
        key = normalize_key(key)
        token = self._token(key)
        if token is not None:
            self._drop(key, token)


class MemoryIdempotencyStore(IdempotencyStore):
    """Keys in this process's memory: for one worker of one instance (no SQL database)."""

    def __init__(self, lifetime_s: float, claim_s: float, wait_s: float = 5.0) -> None:
        super().__init__(lifetime_s, claim_s, wait_s)
        # key -> (state, fingerprint, token, reply, expires_ms)
        self._entries: dict[str, tuple[str, str, str, StoredReply | None, int]] = {}
        self._lock = threading.Lock()
        self._purged = time.monotonic()

    def _purge(self, now_ms: int) -> None:
        if time.monotonic() - self._purged < _PURGE_EVERY_S:
            return
        self._purged = time.monotonic()
        for key in [k for k, e in self._entries.items() if e[4] <= now_ms]:
            del self._entries[key]

    def _claim(self, key: str, fingerprint: str, token: str, now_ms: int) -> _Found:
        with self._lock:
            self._purge(now_ms)
            entry = self._entries.get(key)
            if entry is None or entry[4] <= now_ms:
                self._entries[key] = (
                    _IN_PROGRESS,
                    fingerprint,
                    token,
                    None,
                    now_ms + int(self.claim_s * 1000),
                )
                return _Found("claimed")
            state, stored_fingerprint, _, reply, _ = entry
            return _Found("done" if state == _DONE else "in-progress", stored_fingerprint, reply)

    def _finish(self, key: str, token: str, reply: StoredReply, now_ms: int) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] == _IN_PROGRESS and entry[2] == token:
                self._entries[key] = (_DONE, entry[1], token, reply, now_ms + int(self.lifetime_s * 1000))

    def _drop(self, key: str, token: str) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] == _IN_PROGRESS and entry[2] == token:
                del self._entries[key]

    def close(self) -> None:
        with self._lock:
            self._entries.clear()


_metadata = MetaData()
_keys = Table(
    TABLE_NAME,
    _metadata,
    Column("idempotency_key", String(36), primary_key=True),
    Column("request_hash", String(64), nullable=False),
    Column("state", String(16), nullable=False),
    Column("claim_token", String(32), nullable=False),
    Column("status", Integer, nullable=True),
    Column("body", LargeBinary, nullable=True),
    Column("expires_at_ms", BigInteger, nullable=False),
    Index(f"{TABLE_NAME}_expires", "expires_at_ms"),
)


class SqlIdempotencyStore(IdempotencyStore):
    """Keys in a table of the catalog's SQL database, shared by every worker and instance on it."""

    def __init__(
        self,
        uri: str,
        lifetime_s: float,
        claim_s: float,
        wait_s: float = 5.0,
        properties: dict[str, str] | None = None,
    ) -> None:
        super().__init__(lifetime_s, claim_s, wait_s)
        props = properties or {}
        self._engine = make_engine(to_sqlalchemy_url(uri, props), props)
        self._purged = 0.0
        self._create_table()

    def _create_table(self) -> None:
        try:
            _metadata.create_all(self._engine, checkfirst=True)
        except Exception:
            # another worker created it between the check and the CREATE
            if not inspect(self._engine).has_table(TABLE_NAME):
                raise

    def close(self) -> None:
        self._engine.dispose()

    def _claim(self, key: str, fingerprint: str, token: str, now_ms: int) -> _Found:
        claim = {
            "request_hash": fingerprint,
            "state": _IN_PROGRESS,
            "claim_token": token,
            "status": None,
            "body": None,
            "expires_at_ms": now_ms + int(self.claim_s * 1000),
        }
        while True:
            with transaction(self._engine) as conn:
                row = conn.execute(
                    select(
                        _keys.c.request_hash,
                        _keys.c.state,
                        _keys.c.status,
                        _keys.c.body,
                        _keys.c.expires_at_ms,
                    ).where(_keys.c.idempotency_key == key)
                ).one_or_none()
                taken = False
                if row is not None and row.expires_at_ms <= now_ms:
                    # expired (or a dead holder's claim): take it over, unless someone just did
                    result = conn.execute(
                        update(_keys)
                        .where(_keys.c.idempotency_key == key, _keys.c.expires_at_ms == row.expires_at_ms)
                        .values(**claim)
                    )
                    if result.rowcount != 1:
                        continue
                    taken = True
            if taken:
                return _Found("claimed")
            if row is None:
                try:
                    with transaction(self._engine) as conn:
                        conn.execute(insert(_keys).values(idempotency_key=key, **claim))
                    return _Found("claimed")
                except IntegrityError:
                    continue  # another request claimed it first: read its entry
            if row.state == _DONE:
                return _Found("done", row.request_hash, StoredReply(int(row.status), bytes(row.body or b"")))
            return _Found("in-progress", row.request_hash)

    def _finish(self, key: str, token: str, reply: StoredReply, now_ms: int) -> None:
        with transaction(self._engine) as conn:
            conn.execute(
                update(_keys)
                .where(
                    _keys.c.idempotency_key == key,
                    _keys.c.claim_token == token,
                    _keys.c.state == _IN_PROGRESS,
                )
                .values(
                    state=_DONE,
                    status=reply.status,
                    body=reply.body,
                    expires_at_ms=now_ms + int(self.lifetime_s * 1000),
                )
            )
            if time.monotonic() - self._purged >= _PURGE_EVERY_S:
                self._purged = time.monotonic()
                conn.execute(delete(_keys).where(_keys.c.expires_at_ms < now_ms))

    def _drop(self, key: str, token: str) -> None:
        with transaction(self._engine) as conn:
            conn.execute(
                delete(_keys).where(
                    _keys.c.idempotency_key == key,
                    _keys.c.claim_token == token,
                    _keys.c.state == _IN_PROGRESS,
                )
            )


def store_for(catalog: Catalog, settings: ServerSettings) -> IdempotencyStore:
    """The store for a server of ``catalog``: its SQL database when it has one (shared by every
    worker and instance), else this process's memory."""
    claim_s = settings.request_timeout_s + 30
    wait_s = min(5.0, settings.request_timeout_s)
    uri = catalog.properties.get("uri", "")
    if catalog.catalog_type == "sql" and uri:
        url = to_sqlalchemy_url(uri, catalog.properties)
        in_memory = url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")
        if not in_memory:
            return SqlIdempotencyStore(
                uri, settings.idempotency_lifetime_s, claim_s, wait_s, dict(catalog.properties)
            )
    log.info(
        "Idempotency-Key: catalog %s has no SQL database to share keys in; keeping them in this "
        "process (one worker, one instance)",
        catalog.name,
    )
    return MemoryIdempotencyStore(settings.idempotency_lifetime_s, claim_s, wait_s)
