"""What authentication costs the server is not up to the client: a wrong bearer token costs what a
right one costs, no KDF runs for an unknown token, scrypt-stored static tokens are verified once,
and the token endpoint (one scrypt per secret) is rate-limited per client address and runs its
checks on a small bounded pool off the event loop."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog
from iceview.errors import InvalidArgumentError, NotAuthorizedError
from iceview.server import ServedCatalog, ServerSettings, create_app
from iceview.server.auth import Authenticator, Principal, hash_secret, hash_token, load_authenticator
from iceview.server.ratelimit import RateLimiter

KEY = "k" * 40
CLIENT_SECRET = "etl-secret-Zq81-not-in-any-answer"
RIGHT = secrets.token_urlsafe(32)
LEGACY = secrets.token_urlsafe(32)
_CLIENT_HASH = hash_secret(CLIENT_SECRET)
_LEGACY_HASH = hash_secret(LEGACY)


def write_auth(tmp_path: Path, tokens: list[dict[str, str]], name: str = "auth.json") -> str:
    path = tmp_path / name
    path.write_text(
        json.dumps(
            {
                "signing-key": KEY,
                "clients": [{"id": "etl", "secret-hash": _CLIENT_HASH, "access": "read-write"}],
                "tokens": tokens,
            }
        )
    )
    return str(path)


def fast_auth(tmp_path: Path, extra_tokens: int = 0, name: str = "auth.json") -> Authenticator:
    tokens = [{"name": "service", "token-hash": hash_token(RIGHT), "access": "read-write"}]
    tokens += [
        {"name": f"t{i}", "token-hash": hash_token(secrets.token_urlsafe(32))} for i in range(extra_tokens)
    ]
    return load_authenticator(write_auth(tmp_path, tokens, name))


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every ``hashlib.scrypt`` call (the KDF) from now on."""
    calls: list[int] = []
    real = hashlib.scrypt

    def counting(*args: Any, **kwargs: Any) -> bytes:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(hashlib, "scrypt", counting)
    return calls


def per_call(fn: Callable[[], object], n: int) -> float:
    """The best of 5 averages of ``n`` calls (s): robust to a busy machine."""
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - started) / n)
    return best


def refused(auth: Authenticator, header: str) -> Callable[[], None]:
    def call() -> None:
        with pytest.raises(NotAuthorizedError):
            auth.authenticate(header)

    return call


def test_a_wrong_static_token_costs_what_a_right_one_costs(tmp_path: Path, scrypt_calls: list[int]) -> None:
    auth = fast_auth(tmp_path)
    many = fast_auth(tmp_path, extra_tokens=500, name="many.json")
    assert auth.authenticate(f"Bearer {RIGHT}") == Principal("service", True)
    assert many.authenticate(f"Bearer {RIGHT}") == Principal("service", True)
    right = per_call(lambda: auth.authenticate(f"Bearer {RIGHT}"), 2000)
    wrong = per_call(refused(auth, f"Bearer {secrets.token_urlsafe(32)}"), 2000)
    # a fresh random token every call: nothing an attacker sends is remembered or derived
    fresh = per_call(lambda: refused(auth, f"Bearer {secrets.token_urlsafe(32)}")(), 2000)
    wrong_of_many = per_call(refused(many, f"Bearer {secrets.token_urlsafe(32)}"), 2000)
    # pytest.raises and token_urlsafe add a few µs to the wrong ones; a KDF would add ~50 ms
    assert wrong < 5 * right + 20e-6, (right, wrong)
    assert fresh < 5 * right + 30e-6, (right, fresh)
    assert wrong_of_many < 3 * wrong + 10e-6, (wrong, wrong_of_many)  # not one check per configured token
    assert max(right, wrong, fresh, wrong_of_many) < 1e-3
    assert scrypt_calls == []  # no KDF for any of them


def test_unknown_tokens_run_no_kdf_in_the_app(
    catalog: SqlCatalog, tmp_path: Path, scrypt_calls: list[int]
) -> None:
    app = create_app([ServedCatalog("srv", catalog)], authenticator=fast_auth(tmp_path))
    with TestClient(app, raise_server_exceptions=False) as client:
        for _ in range(30):
            answer = client.get(
                "/v1/namespaces", headers={"Authorization": f"Bearer {secrets.token_urlsafe(24)}"}
            )
            assert answer.status_code == 401
            assert answer.json()["error"]["type"] == "NotAuthorizedException"
        ok = client.get("/v1/namespaces", headers={"Authorization": f"Bearer {RIGHT}"})
        assert ok.status_code == 200
    assert scrypt_calls == []


def test_scrypt_stored_tokens_still_work_and_are_verified_once(
    tmp_path: Path, scrypt_calls: list[int]
) -> None:
    tokens = [
        {"name": "service", "token-hash": hash_token(RIGHT), "access": "read-write"},
        {"name": "legacy", "token-hash": _LEGACY_HASH},
    ]
    auth = load_authenticator(write_auth(tmp_path, tokens))
    assert auth.has_slow_tokens
    unknown = f"Bearer {secrets.token_urlsafe(32)}"
    # the quick check runs no KDF: it leaves the unknown token to the slow one
    assert auth.authenticate_quickly(unknown) is None
    assert auth.authenticate_quickly(f"Bearer {LEGACY}") is None
    assert auth.authenticate_quickly(f"Bearer {RIGHT}") == Principal("service", True)
    assert scrypt_calls == []
    assert auth.authenticate(f"Bearer {LEGACY}") == Principal("legacy", False)
    assert len(scrypt_calls) == 1
    for _ in range(20):  # verified once: then found like a sha256 entry
        assert auth.authenticate_quickly(f"Bearer {LEGACY}") == Principal("legacy", False)
        assert auth.authenticate(f"Bearer {LEGACY}") == Principal("legacy", False)
    assert len(scrypt_calls) == 1
    with pytest.raises(NotAuthorizedError):
        auth.authenticate(unknown)
    assert len(scrypt_calls) == 2
    with pytest.raises(NotAuthorizedError):  # a refused token is remembered (bounded)
        auth.authenticate_quickly(unknown)
    assert len(scrypt_calls) == 2


def test_hash_token_form_and_refusals(tmp_path: Path) -> None:
    stored = hash_token(RIGHT)
    assert stored.startswith("sha256$") and RIGHT not in stored
    with pytest.raises(InvalidArgumentError, match="at least 16 characters"):
        hash_token("short")
    bad = write_auth(tmp_path, [{"name": "x", "token-hash": "sha256$abc"}])
    with pytest.raises(
        InvalidArgumentError, match=r"tokens\[0\]: 'token-hash' is not a hash made by `hash_token`"
    ):
        load_authenticator(bad)


# -- the token endpoint ----------------------------------------------------------------------------
def token_form(secret: str = CLIENT_SECRET) -> dict[str, str]:
    return {"grant_type": "client_credentials", "client_id": "etl", "client_secret": secret}


@pytest.fixture
def limited(catalog: SqlCatalog, tmp_path: Path) -> Iterator[Any]:
    """An app whose token endpoint allows a burst of 3 and then one request per 100 s."""
    settings = ServerSettings(token_burst=3, token_rate_per_s=0.01)
    yield create_app([ServedCatalog("srv", catalog)], settings, authenticator=fast_auth(tmp_path))


def test_token_endpoint_is_rate_limited_per_address_with_429_and_retry_after(limited: Any) -> None:
    with (
        TestClient(limited, raise_server_exceptions=False, client=("10.0.0.1", 5000)) as first,
        TestClient(limited, raise_server_exceptions=False, client=("10.0.0.2", 5000)) as second,
    ):
        statuses = [first.post("/v1/oauth/tokens", data=token_form("wrong")).status_code for _ in range(3)]
        assert statuses == [401, 401, 401]
        over = first.post("/v1/oauth/tokens", data=token_form())
        assert over.status_code == 429
        assert 1 <= int(over.headers["retry-after"]) <= 100
        error = over.json()["error"]
        assert (error["code"], error["type"]) == (429, "TooManyRequestsException")
        assert isinstance(error["message"], str) and CLIENT_SECRET not in over.text
        # the same port on another address is another client: its own bucket
        assert second.post("/v1/oauth/tokens", data=token_form()).status_code == 200
        assert first.post("/v1/oauth/tokens", data=token_form()).status_code == 429
        # the limit is on slow checks only: requests with a token go on
        assert first.get("/v1/namespaces", headers={"Authorization": f"Bearer {RIGHT}"}).status_code == 200


def test_rate_limiter_refills_and_forgets_least_recent_addresses() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=2.0, burst=2, max_addresses=2, clock=lambda: now[0])
    assert [limiter.take("a") for _ in range(3)] == [0, 0, 1]
    now[0] += 0.5  # one token back
    assert limiter.take("a") == 0
    assert limiter.take("a") == 1
    limiter.take("b")
    limiter.take("c")  # "a" is dropped: it starts full again
    assert [limiter.take("a"), limiter.take("a")] == [0, 0]
    with pytest.raises(ValueError):
        RateLimiter(rate=0, burst=1)


def test_secrets_are_checked_on_the_bounded_pool_off_the_event_loop(
    catalog: SqlCatalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth = fast_auth(tmp_path)
    threads: list[str] = []
    release = threading.Event()
    real = Authenticator.issue_token

    def issue(self: Authenticator, form: Any) -> Any:
        threads.append(threading.current_thread().name)
        release.wait(10)
        return real(self, form)

    monkeypatch.setattr(Authenticator, "issue_token", issue)
    settings = ServerSettings(auth_threads=1, auth_queue=0, token_burst=100)
    app = create_app([ServedCatalog("srv", catalog)], settings, authenticator=auth)

    async def scenario() -> tuple[httpx.Response, httpx.Response, float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            first = asyncio.create_task(client.post("/v1/oauth/tokens", data=token_form()))
            while not threads:  # the first check holds the pool's only thread
                await asyncio.sleep(0.01)
            # the event loop still answers while it runs
            started = time.perf_counter()
            health = await client.get("/healthz")
            loop_latency = time.perf_counter() - started
            assert health.status_code == 200
            second = await client.post("/v1/oauth/tokens", data=token_form())
            release.set()
            return await first, second, loop_latency

    first, second, loop_latency = asyncio.run(scenario())
    assert first.status_code == 200
    assert second.status_code == 503  # the pool is full: refused at once, not queued without end
    assert second.headers["retry-after"] == "1"
    assert second.json()["error"]["type"] == "ServiceUnavailableException"
    assert threads == ["iceview-auth_0"]
    assert loop_latency < 5.0


def test_hash_token_prints_the_stored_form_the_server_accepts(tmp_path: Path) -> None:
    import subprocess
    import sys

    iceview = str(Path(sys.executable).with_name("iceview"))
    done = subprocess.run(
        [iceview, "serve", "--hash-token"], input=f"{RIGHT}\n", capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    stored = done.stdout.strip()
    assert RIGHT not in done.stdout + done.stderr
    assert stored == hash_token(RIGHT)
    auth = load_authenticator(write_auth(tmp_path, [{"name": "svc", "token-hash": stored}]))
    assert auth.authenticate(f"Bearer {RIGHT}") == Principal("svc", False)
    short = subprocess.run(
        [iceview, "serve", "--hash-token"], input="short\n", capture_output=True, text=True, timeout=60
    )
    assert short.returncode != 0 and "at least 16 characters" in short.stderr
    assert "short" not in short.stdout
