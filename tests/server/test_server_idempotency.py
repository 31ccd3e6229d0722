"""``Idempotency-Key``: a retried mutation is applied once and answered the same; a key reused
for another request is refused (422); concurrent requests with one key run once (the others wait
for, or are told to retry, the first); 5xx are not final; keys expire. The stores run on memory,
SQLite and a real PostgreSQL, and two SQL stores on one database act as two server instances."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy
from starlette.testclient import TestClient

from fixtures.iceview_serve import IceviewServer
from iceview.catalog import SqlCatalog, load_catalog
from iceview.server import ServedCatalog, ServerSettings, create_app
from iceview.server.errors import ApiError
from iceview.server.idempotency import (
    TABLE_NAME,
    IdempotencyStore,
    MemoryIdempotencyStore,
    SqlIdempotencyStore,
    StoredReply,
    store_for,
)

EP = "POST /v1/namespaces?"
OK = StoredReply(200, b'{"namespace":["n"],"properties":{}}')

StoreFactory = Callable[..., IdempotencyStore]


def new_key() -> str:
    return str(uuid.uuid4())


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Stores of one kind; SQL stores made by one test share a database (like server instances)."""
    made: list[IdempotencyStore] = []
    uri = ""
    if request.param == "sqlite":
        uri = f"sqlite:///{tmp_path}/catalog.db"
    elif request.param == "postgres":
        uri = request.getfixturevalue("postgres_url")

    def make(lifetime_s: float = 60, claim_s: float = 60, wait_s: float = 2) -> IdempotencyStore:
        store: IdempotencyStore
        if uri:
            store = SqlIdempotencyStore(uri, lifetime_s, claim_s, wait_s)
        else:
            store = MemoryIdempotencyStore(lifetime_s, claim_s, wait_s)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


def _status(call: Callable[[], object]) -> int:
    with pytest.raises(ApiError) as info:
        call()
    return info.value.status


# -- the store -----------------------------------------------------------------------------------
def test_claim_then_replay(make_store: StoreFactory) -> None:
    store = make_store()
    key = new_key()
    assert store.get(key, EP, b'{"namespace":["n"]}') is None  # claimed: run it
    store.put(key, EP, b'{"namespace":["n"]}', OK)
    assert store.get(key, EP, b'{"namespace":["n"]}') == OK
    assert store.get(key.upper(), EP, b'{"namespace":["n"]}') == OK  # the same UUID
    empty = StoredReply(204, b"")
    other = new_key()
    assert store.get(other, "DELETE /v1/namespaces/n?", b"") is None
    store.put(other, "DELETE /v1/namespaces/n?", b"", empty)
    assert store.get(other, "DELETE /v1/namespaces/n?", b"") == empty


def test_a_key_reused_for_another_request_is_422(make_store: StoreFactory) -> None:
    store = make_store()
    key = new_key()
    assert store.get(key, EP, b"a") is None
    # refused while in progress, and after it is final
    assert _status(lambda: store.get(key, EP, b"b")) == 422
    store.put(key, EP, b"a", OK)
    assert _status(lambda: store.get(key, EP, b"b")) == 422
    with pytest.raises(ApiError, match="already used for a different request") as info:
        store.get(key, "DELETE /v1/namespaces/m?", b"a")
    assert info.value.error_type == "UnprocessableEntityException"


@pytest.mark.parametrize(
    "key", ["", "abc", "017F22E2-79B0-7CC3-98C4-DC0C0C07398", "x" * 36, "'; DROP TABLE x; --"]
)
def test_a_malformed_key_is_400(make_store: StoreFactory, key: str) -> None:
    assert _status(lambda: make_store().get(key, EP, b"")) == 400


def test_concurrent_requests_with_one_key_run_once(make_store: StoreFactory) -> None:
    store = make_store()
    key = new_key()
    claimed = threading.Event()

    def attempt() -> StoredReply | None:
        reply = store.get(key, EP, b"x")
        if reply is None:
            claimed.set()
            time.sleep(0.3)  # the mutation runs
            store.put(key, EP, b"x", OK)
        return reply

    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: attempt(), range(8)))
    assert replies.count(None) == 1
    assert [r for r in replies if r is not None] == [OK] * 7


def test_a_request_still_in_progress_after_the_wait_is_409(make_store: StoreFactory) -> None:
    store = make_store(wait_s=0.2)
    key = new_key()
    assert store.get(key, EP, b"x") is None
    started = time.monotonic()
    with pytest.raises(ApiError, match="still in progress") as info:
        store.get(key, EP, b"x")
    assert (info.value.status, info.value.error_type) == (409, "ConflictException")
    assert time.monotonic() - started >= 0.2
    store.put(key, EP, b"x", OK)
    assert store.get(key, EP, b"x") == OK  # the retry gets the outcome


def test_a_released_claim_runs_again(make_store: StoreFactory) -> None:
    store = make_store()
    key = new_key()
    assert store.get(key, EP, b"x") is None
    store.release(key, EP, b"x")  # the mutation answered 5xx: not final
    assert store.get(key, EP, b"x") is None
    store.put(key, EP, b"x", OK)
    store.release(key, EP, b"x")  # nothing claimed any more: no effect
    assert store.get(key, EP, b"x") == OK


def test_keys_expire_after_their_lifetime_then_are_new(make_store: StoreFactory) -> None:
    store = make_store(lifetime_s=1.0)
    key = new_key()
    assert store.get(key, EP, b"x") is None
    store.put(key, EP, b"x", OK)
    assert _status(lambda: store.get(key, EP, b"y")) == 422
    time.sleep(1.1)
    assert store.get(key, EP, b"y") is None  # forgotten: a new operation


def test_a_dead_holders_claim_lapses(make_store: StoreFactory) -> None:
    crashed = make_store(claim_s=1.0, wait_s=0.05)
    key = new_key()
    assert crashed.get(key, EP, b"x") is None  # claimed, then the process "dies"
    assert _status(lambda: crashed.get(key, EP, b"x")) == 409
    time.sleep(1.1)
    assert crashed.get(key, EP, b"x") is None  # lapsed: taken over
    crashed.put(key, EP, b"x", StoredReply(201, b"{}"))
    assert crashed.get(key, EP, b"x") == StoredReply(201, b"{}")


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_instances_on_one_database_share_keys(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    uri = f"sqlite:///{tmp_path}/c.db" if kind == "sqlite" else request.getfixturevalue("postgres_url")
    first, second = SqlIdempotencyStore(uri, 60, 1.0, 0.1), SqlIdempotencyStore(uri, 60, 1.0, 0.1)
    try:
        key = new_key()
        assert first.get(key, EP, b"x") is None
        assert _status(lambda: second.get(key, EP, b"x")) == 409  # in progress on the other
        first.put(key, EP, b"x", OK)
        assert second.get(key, EP, b"x") == OK
        assert _status(lambda: second.get(key, EP, b"other")) == 422
        # a claim of a dead instance lapses; its late answer does not overwrite the new one
        late = new_key()
        assert first.get(late, EP, b"x") is None
        time.sleep(1.1)
        assert second.get(late, EP, b"x") is None
        first.put(late, EP, b"x", StoredReply(500, b"stale"))
        second.put(late, EP, b"x", OK)
        assert first.get(late, EP, b"x") == OK
        engine = sqlalchemy.create_engine(uri.replace("postgresql://", "postgresql+psycopg://"))
        with engine.connect() as conn:
            rows = conn.execute(sqlalchemy.text(f"SELECT count(*) FROM {TABLE_NAME}")).scalar_one()
        engine.dispose()
        assert rows == 2
    finally:
        first.close()
        second.close()


def test_store_for_uses_the_catalogs_database(tmp_path: Path, catalog: SqlCatalog) -> None:
    settings = ServerSettings(idempotency_lifetime_s=90, request_timeout_s=10)
    store = store_for(catalog, settings)
    try:
        assert isinstance(store, SqlIdempotencyStore)
        assert (store.lifetime_s, store.claim_s, store.wait_s) == (90, 40, 5.0)
        assert sqlalchemy.inspect(sqlalchemy.create_engine(catalog.properties["uri"])).has_table(TABLE_NAME)
    finally:
        store.close()
    in_memory = load_catalog("m", type="sql", uri="sqlite:///:memory:", warehouse=f"file://{tmp_path}/wh")
    try:
        assert isinstance(store_for(in_memory, settings), MemoryIdempotencyStore)
    finally:
        in_memory.close()


# -- through the app -----------------------------------------------------------------------------
@pytest.fixture
def idem(catalog: SqlCatalog) -> Iterator[TestClient]:
    settings = ServerSettings(idempotency_lifetime_s=600)
    store = store_for(catalog, settings)
    app = create_app([ServedCatalog("srv", catalog)], settings, idempotency=store)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
    store.close()


def test_config_advertises_the_key_lifetime(idem: TestClient) -> None:
    assert idem.get("/v1/config").json()["idempotency-key-lifetime"] == "PT10M"


def test_a_retried_create_is_applied_once_and_answered_the_same(idem: TestClient) -> None:
    key = {"Idempotency-Key": new_key()}
    first = idem.post("/v1/namespaces", json={"namespace": ["n"], "properties": {"a": "1"}}, headers=key)
    again = idem.post("/v1/namespaces", json={"namespace": ["n"], "properties": {"a": "1"}}, headers=key)
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() == {"namespace": ["n"], "properties": {"a": "1"}}
    # without the key, the same request runs again and finds the namespace
    assert idem.post("/v1/namespaces", json={"namespace": ["n"]}).status_code == 409
    changed = idem.post("/v1/namespaces", json={"namespace": ["m"]}, headers=key)
    assert changed.status_code == 422
    assert changed.json()["error"]["type"] == "UnprocessableEntityException"
    assert idem.get("/v1/namespaces").json() == {"namespaces": [["n"]]}
    assert (
        idem.post(
            "/v1/namespaces", json={"namespace": ["n"]}, headers={"Idempotency-Key": "nope"}
        ).status_code
        == 400
    )


def test_a_terminal_4xx_is_replayed(idem: TestClient) -> None:
    assert idem.post("/v1/namespaces", json={"namespace": ["dup"]}).status_code == 200
    key = {"Idempotency-Key": new_key()}
    refused = idem.post("/v1/namespaces", json={"namespace": ["dup"]}, headers=key)
    assert refused.status_code == 409
    assert idem.delete("/v1/namespaces/dup").status_code == 204
    # the retry gets the final answer of the first attempt; nothing runs
    replayed = idem.post("/v1/namespaces", json={"namespace": ["dup"]}, headers=key)
    assert (replayed.status_code, replayed.json()) == (409, refused.json())
    assert idem.get("/v1/namespaces").json() == {"namespaces": []}


def test_one_key_on_two_paths_is_not_replayed(idem: TestClient) -> None:
    for name in ("a", "b"):
        assert idem.post("/v1/namespaces", json={"namespace": [name]}).status_code == 200
    key = {"Idempotency-Key": new_key()}
    assert idem.delete("/v1/namespaces/a", headers=key).status_code == 204
    assert idem.delete("/v1/namespaces/a", headers=key).status_code == 204  # replayed
    # same key, same (empty) body, another namespace: another request, refused, b stays
    assert idem.delete("/v1/namespaces/b", headers=key).status_code == 422
    assert idem.get("/v1/namespaces").json() == {"namespaces": [["b"]]}


def _post(url: str, body: dict[str, object], key: str) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Idempotency-Key": key},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.mark.postgres
def test_retries_racing_through_two_workers_on_postgres_are_applied_once(
    iceview_server_factory: Callable[..., IceviewServer],
) -> None:
    server = iceview_server_factory("postgres", args=("--workers", "2"))
    url = server.uri + "v1/namespaces"
    for round_ in range(3):
        key = new_key()
        body = {"namespace": [f"race{round_}"], "properties": {"round": str(round_)}}
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _, b=body, k=key: _post(url, b, k), range(8)))
        # one ran; the others waited for it and got its answer (on whichever worker they landed)
        assert {status for status, _ in answers} == {200}, answers
        assert len({payload for _, payload in answers}) == 1
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert json.loads(answer.read()) == {"namespaces": [["race0"], ["race1"], ["race2"]]}
    assert _post(url, {"namespace": ["race0"]}, new_key())[0] == 409  # without the key's replay: it exists
