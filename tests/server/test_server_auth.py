"""Authentication and authorization: the auth file, hashed secrets, signed expiring tokens,
static tokens, read-only principals, the OAuth2 token endpoint, and real clients (PyIceberg's
``RestCatalog`` and iceview's REST client) against a real ``iceview serve --auth-file``."""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from iceview.catalog import SqlCatalog, load_catalog
from iceview.errors import InvalidArgumentError, NotAuthorizedError
from iceview.server import ServedCatalog, create_app
from iceview.server.auth import (
    SIGNING_KEY_ENV,
    Authenticator,
    Principal,
    ensure_signing_key,
    hash_secret,
    load_authenticator,
    verify_secret,
)

ICEVIEW = str(Path(sys.executable).with_name("iceview"))
KEY = "k" * 40
ETL_SECRET = "etl-secret-Zq81"
BI_SECRET = "bi-secret-Pw55"
SERVICE_TOKEN = "svc-token-3b1c9f0e2d"
READER_TOKEN = "reader-token-77aa01"

# hashing is deliberately slow: hash once per test session
_HASHES = {s: hash_secret(s) for s in (ETL_SECRET, BI_SECRET, SERVICE_TOKEN, READER_TOKEN)}


def auth_config(**extra: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "signing-key": KEY,
        "clients": [
            {"id": "etl", "secret-hash": _HASHES[ETL_SECRET], "access": "read-write"},
            {"id": "bi", "secret-hash": _HASHES[BI_SECRET]},
        ],
        "tokens": [
            {"name": "service", "token-hash": _HASHES[SERVICE_TOKEN], "access": "read-write"},
            {"name": "reader", "token-hash": _HASHES[READER_TOKEN], "access": "read-only"},
        ],
    }
    config.update(extra)
    return {k: v for k, v in config.items() if v is not None}


def write_json(tmp_path: Path, config: dict[str, Any], name: str = "auth.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(config))
    return str(path)


@pytest.fixture
def auth(tmp_path: Path) -> Authenticator:
    return load_authenticator(write_json(tmp_path, auth_config()))


def token_for(auth: Authenticator, client_id: str, secret: str) -> str:
    status, body = auth.issue_token(
        {
            "grant_type": "client_credentials",
            "client_id": client_id,
            "client_secret": secret,
            "scope": "catalog",
        }
    )
    assert status == 200, body
    return str(body["access_token"])


# -- secrets -------------------------------------------------------------------------------------
def test_hash_secret_is_salted_and_verifies() -> None:
    stored = _HASHES[ETL_SECRET]
    assert stored.startswith("scrypt:16384:8:1$")
    assert ETL_SECRET not in stored
    assert verify_secret(ETL_SECRET, stored)
    assert not verify_secret(ETL_SECRET + "x", stored)
    assert hash_secret(ETL_SECRET) != stored  # a fresh salt every time
    with pytest.raises(InvalidArgumentError, match="not a hash made by `hash_secret`"):
        verify_secret("x", "plain-text-secret")


# -- the auth file -------------------------------------------------------------------------------
def test_yaml_and_json_files_configure_the_same_clients(tmp_path: Path) -> None:
    yaml_path = tmp_path / "auth.yaml"
    yaml_path.write_text(
        f"""signing-key: {KEY}
token-lifetime-s: 120
clients:
  - id: etl
    secret-hash: "{_HASHES[ETL_SECRET]}"
    access: read-write
tokens:
  - name: reader
    token-hash: "{_HASHES[READER_TOKEN]}"
"""
    )
    from_yaml = load_authenticator(str(yaml_path))
    assert from_yaml.token_lifetime_s == 120
    from_json = load_authenticator(write_json(tmp_path, auth_config()))
    token = token_for(from_yaml, "etl", ETL_SECRET)
    # same key: a token one issues, the other accepts (what several workers rely on)
    assert from_json.authenticate(f"Bearer {token}") == Principal("etl", True)
    assert from_yaml.authenticate(f"Bearer {READER_TOKEN}") == Principal("reader", False)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"clients": [{"id": "etl", "secret-hash": ETL_SECRET}]},
            r"clients\[0\]: 'secret-hash' is not a hash",
        ),
        ({"clients": [{"secret-hash": "x"}]}, r"clients\[0\]: 'id' must be a non-empty string"),
        (
            {"clients": [{"id": "a", "secret-hash": _HASHES[BI_SECRET], "access": "admin"}]},
            "'access' must be read-only or",
        ),
        ({"signing-key": "short"}, "signing key from .*'signing-key' must be at least 32 characters"),
        ({"token-lifetime-s": -5}, "'token-lifetime-s' must be a positive number"),
        ({"clients": None, "tokens": None}, "configures no clients and no tokens"),
        ({"client": []}, r"unknown key\(s\) client"),
    ],
)
def test_a_bad_auth_file_says_what_is_wrong_and_where(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    path = write_json(tmp_path, auth_config(**change))
    with pytest.raises(InvalidArgumentError, match=message) as info:
        load_authenticator(path)
    assert path in str(info.value) or "signing key" in str(info.value)
    assert ETL_SECRET not in str(info.value)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="Cannot read the auth file"):
        load_authenticator(str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"clients": [')
    with pytest.raises(InvalidArgumentError, match=r"is not valid JSON"):
        load_authenticator(str(bad))
    dup = tmp_path / "dup.yaml"
    dup.write_text(f"signing-key: {KEY}\nsigning-key: {KEY}\n")
    with pytest.raises(InvalidArgumentError, match=r"is not valid YAML \(line 2\)") as info:
        load_authenticator(str(dup))
    assert KEY not in str(info.value)


def test_signing_key_from_the_environment_and_ensure_signing_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_json(tmp_path, auth_config(**{"signing-key": None}))
    monkeypatch.delenv(SIGNING_KEY_ENV, raising=False)
    ensure_signing_key(path)
    generated = os.environ[SIGNING_KEY_ENV]
    assert len(generated) >= 32
    ensure_signing_key(path)  # an existing key is kept
    assert os.environ[SIGNING_KEY_ENV] == generated
    # two "workers" built after it accept each other's tokens
    first, second = load_authenticator(path), load_authenticator(path)
    assert second.authenticate("Bearer " + token_for(first, "etl", ETL_SECRET)).name == "etl"
    monkeypatch.setenv(SIGNING_KEY_ENV, "too-short")
    with pytest.raises(InvalidArgumentError, match=f"environment variable {SIGNING_KEY_ENV}"):
        load_authenticator(path)


# -- tokens --------------------------------------------------------------------------------------
def test_issued_token_is_a_signed_expiring_jwt(auth: Authenticator) -> None:
    status, body = auth.issue_token(
        {
            "grant_type": "client_credentials",
            "client_id": "etl",
            "client_secret": ETL_SECRET,
            "scope": "catalog",
        }
    )
    assert status == 200
    assert body["token_type"] == "bearer"
    assert body["expires_in"] == 3600
    assert body["issued_token_type"] == "urn:ietf:params:oauth:token-type:access_token"
    header, payload, _ = body["access_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert json.loads(base64.urlsafe_b64decode(header + "==")) == {"alg": "HS256", "typ": "JWT"}
    assert claims["sub"] == "etl" and claims["role"] == "read-write"
    assert claims["exp"] - claims["iat"] == 3600 and abs(claims["iat"] - time.time()) < 5
    assert auth.authenticate(f"Bearer {body['access_token']}") == Principal("etl", True)
    assert auth.authenticate(f"bearer {token_for(auth, 'bi', BI_SECRET)}") == Principal("bi", False)


def _forge(token: str, **claims: Any) -> str:
    header, payload, signature = token.split(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data.update(claims)
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


def test_tampered_foreign_expired_and_missing_tokens_are_refused(tmp_path: Path, auth: Authenticator) -> None:
    token = token_for(auth, "bi", BI_SECRET)
    with pytest.raises(NotAuthorizedError, match="The bearer token is not valid"):
        auth.authenticate("Bearer " + _forge(token, role="read-write"))
    other = load_authenticator(write_json(tmp_path, auth_config(**{"signing-key": "z" * 40}), "other.json"))
    with pytest.raises(NotAuthorizedError, match="The bearer token is not valid"):
        other.authenticate(f"Bearer {token}")
    short = load_authenticator(write_json(tmp_path, auth_config(**{"token-lifetime-s": 2}), "short.json"))
    expiring = token_for(short, "etl", ETL_SECRET)
    assert short.authenticate(f"Bearer {expiring}").can_write
    time.sleep(3.1)  # whole seconds: valid for more than 1 s, expired after at most 3
    with pytest.raises(NotAuthorizedError, match="has expired"):
        short.authenticate(f"Bearer {expiring}")
    for header in (None, "", "Basic abc", "Bearer ", "Bearer wrong-static-token"):
        with pytest.raises(NotAuthorizedError) as info:
            auth.authenticate(header)
        assert info.value.code == 401


def test_a_removed_or_demoted_client_loses_its_tokens(tmp_path: Path, auth: Authenticator) -> None:
    token = token_for(auth, "etl", ETL_SECRET)
    demoted = auth_config()
    demoted["clients"][0]["access"] = "read-only"
    assert load_authenticator(write_json(tmp_path, demoted, "d.json")).authenticate(
        f"Bearer {token}"
    ) == Principal("etl", False)
    removed = auth_config()
    del removed["clients"][0]
    with pytest.raises(NotAuthorizedError, match="Client 'etl' is no longer configured"):
        load_authenticator(write_json(tmp_path, removed, "r.json")).authenticate(f"Bearer {token}")


def test_static_tokens(auth: Authenticator) -> None:
    assert auth.authenticate(f"Bearer {SERVICE_TOKEN}") == Principal("service", True)
    assert auth.authenticate(f"Bearer {READER_TOKEN}") == Principal("reader", False)
    started = time.perf_counter()
    for _ in range(50):  # remembered: not one scrypt per request
        auth.authenticate(f"Bearer {SERVICE_TOKEN}")
    assert time.perf_counter() - started < 0.5
    with pytest.raises(NotAuthorizedError):
        auth.authenticate(f"Bearer {SERVICE_TOKEN}x")


@pytest.mark.parametrize(
    ("form", "status", "error"),
    [
        (
            {"grant_type": "client_credentials", "client_id": "etl", "client_secret": "nope"},
            401,
            "invalid_client",
        ),
        (
            {"grant_type": "client_credentials", "client_id": "ghost", "client_secret": "nope"},
            401,
            "invalid_client",
        ),
        ({"grant_type": "client_credentials", "client_id": "etl"}, 401, "invalid_client"),
        ({"grant_type": "client_credentials", "client_secret": ETL_SECRET}, 400, "invalid_request"),
        ({"client_id": "etl", "client_secret": ETL_SECRET}, 400, "invalid_request"),
        (
            {"grant_type": "password", "username": "etl", "password": ETL_SECRET},
            400,
            "unsupported_grant_type",
        ),
        (
            {"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": SERVICE_TOKEN},
            400,
            "invalid_grant",
        ),
    ],
)
def test_token_endpoint_refusals_are_oauth_errors_without_secrets(
    auth: Authenticator, form: dict[str, str], status: int, error: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    got_status, body = auth.issue_token(form)
    assert (got_status, body["error"]) == (status, error)
    assert isinstance(body["error_description"], str) and body["error_description"]
    for secret in (ETL_SECRET, "nope", SERVICE_TOKEN):
        assert secret not in json.dumps(body)
        assert secret not in caplog.text


def test_token_exchange_refreshes_a_token(auth: Authenticator) -> None:
    token = token_for(auth, "etl", ETL_SECRET)
    status, body = auth.issue_token(
        {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": token,
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "scope": "catalog",
        }
    )
    assert status == 200
    assert auth.authenticate(f"Bearer {body['access_token']}") == Principal("etl", True)


# -- the app -------------------------------------------------------------------------------------
@pytest.fixture
def secured(catalog: SqlCatalog, auth: Authenticator) -> Iterator[TestClient]:
    with TestClient(
        create_app([ServedCatalog("srv", catalog)], authenticator=auth), raise_server_exceptions=False
    ) as c:
        yield c


def test_app_requires_a_token_and_read_only_cannot_write(secured: TestClient) -> None:
    answer = secured.get("/v1/namespaces")
    assert answer.status_code == 401
    assert answer.json()["error"]["type"] == "NotAuthorizedException"
    got = secured.post(
        "/v1/oauth/tokens",
        data={
            "grant_type": "client_credentials",
            "client_id": "bi",
            "client_secret": BI_SECRET,
            "scope": "catalog",
        },
    )
    assert got.status_code == 200
    reader = {"Authorization": f"Bearer {got.json()['access_token']}"}
    assert secured.get("/v1/namespaces", headers=reader).json() == {"namespaces": []}
    refused = secured.post("/v1/namespaces", json={"namespace": ["n"]}, headers=reader)
    assert refused.status_code == 403
    assert refused.json()["error"]["type"] == "ForbiddenException"
    writer = {"Authorization": f"Bearer {SERVICE_TOKEN}"}
    assert secured.post("/v1/namespaces", json={"namespace": ["n"]}, headers=writer).status_code == 200
    assert secured.get("/v1/namespaces", headers=reader).json() == {"namespaces": [["n"]]}
    wrong = secured.post(
        "/v1/oauth/tokens",
        data={"grant_type": "client_credentials", "client_id": "bi", "client_secret": "bad"},
    )
    assert wrong.status_code == 401
    assert wrong.json()["error"] == "invalid_client"


# -- real clients against a real server ----------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """``iceview serve --auth-file`` in its own process (``workers`` from the test's parameter)."""
    workers, key_from = getattr(request, "param", (1, "file"))
    port = _free_port()
    env = dict(os.environ)
    env.update(
        PYICEBERG_CATALOG__SRV__TYPE="sql",
        PYICEBERG_CATALOG__SRV__URI=f"sqlite:///{tmp_path}/catalog.db",
        PYICEBERG_CATALOG__SRV__WAREHOUSE=f"file://{tmp_path}/warehouse",
    )
    env.pop(SIGNING_KEY_ENV, None)
    config = auth_config()
    if key_from != "file":  # from the environment; "generated": `iceview serve` makes one for its workers
        del config["signing-key"]
        if key_from == "env":
            env[SIGNING_KEY_ENV] = "e" * 40
    path = write_json(tmp_path, config)
    proc = subprocess.Popen(
        [ICEVIEW, "-c", "srv", "serve", "--port", str(port), "--workers", str(workers), "--auth-file", path],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("iceview serve: listening on"):
        proc.kill()
        pytest.fail(f"iceview serve did not start: {line} {proc.communicate(timeout=10)[1]}")
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
        for secret in (ETL_SECRET, BI_SECRET, SERVICE_TOKEN, READER_TOKEN, "wrong-secret"):
            assert secret not in err


def test_pyiceberg_and_iceview_clients_authenticate_against_a_real_server(served: str) -> None:
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.exceptions import ForbiddenError, OAuthError

    writer = RestCatalog("w", uri=served, credential=f"etl:{ETL_SECRET}")
    writer.create_namespace("pyi")
    reader = RestCatalog("r", uri=served, credential=f"bi:{BI_SECRET}")
    assert ("pyi",) in reader.list_namespaces()
    with pytest.raises(ForbiddenError):
        reader.create_namespace("nope")
    service = RestCatalog("s", uri=served, token=SERVICE_TOKEN)
    service.create_namespace("svc")
    with pytest.raises(OAuthError):
        RestCatalog("x", uri=served, credential="etl:wrong-secret")

    ours = load_catalog("x", type="rest", uri=served, credential=f"etl:{ETL_SECRET}")
    assert {("pyi",), ("svc",)} <= set(ours.list_namespaces())
    with pytest.raises(NotAuthorizedError, match="invalid_client") as info:
        load_catalog("x", type="rest", uri=served, credential="etl:wrong-secret").list_namespaces()
    assert "wrong-secret" not in str(info.value)
    with pytest.raises(NotAuthorizedError):
        load_catalog("x", type="rest", uri=served, token="not-a-token").list_namespaces()


@pytest.mark.parametrize("served", [(2, "env"), (2, "generated")], indirect=True, ids=["env", "generated"])
def test_every_worker_accepts_tokens_any_worker_issued(served: str) -> None:
    form = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "client_id": "bi", "client_secret": BI_SECRET}
    ).encode()
    for _ in range(12):  # new connections each time: uvicorn's workers share the socket at random
        with urllib.request.urlopen(
            urllib.request.Request(served + "v1/oauth/tokens", data=form), timeout=10
        ) as r:
            token = json.loads(r.read())["access_token"]
        for _ in range(3):
            request = urllib.request.Request(
                served + "v1/namespaces", headers={"Authorization": f"Bearer {token}"}
            )
            with urllib.request.urlopen(request, timeout=10) as r:
                assert r.status == 200


_JAVA_PROBE = """
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTCatalog;

public class AuthProbe {
  // AuthProbe URI NAMESPACE key=value...: create NAMESPACE with Iceberg's RESTCatalog, print the outcome
  public static void main(String[] args) {
    Map<String, String> props = new HashMap<>();
    props.put("uri", args[0]);
    for (int i = 2; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      props.put(kv[0], kv[1]);
    }
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.initialize("probe", props);
      catalog.createNamespace(Namespace.of(args[1]));
      System.out.println("created " + catalog.listNamespaces());
    } catch (Exception e) {
      System.out.println("error " + e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
"""


@pytest.mark.java
def test_iceberg_java_rest_catalog_authenticates(served: str, tmp_path: Path) -> None:
    from fixtures.rest_java import compile_java, server_classpath

    source = tmp_path / "AuthProbe.java"
    source.write_text(_JAVA_PROBE)
    classpath = server_classpath()
    classes = compile_java([source], classpath, tmp_path / "classes", "AuthProbe")

    def probe(namespace: str, *props: str) -> str:
        done = subprocess.run(
            [
                "java",
                "-cp",
                os.pathsep.join([str(classes), *classpath]),
                "AuthProbe",
                served,
                namespace,
                *props,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]

    assert probe("java_rw", f"credential=etl:{ETL_SECRET}") == "created [java_rw]"
    assert probe("java_svc", f"token={SERVICE_TOKEN}") == "created [java_rw, java_svc]"
    refused = probe("java_ro", f"credential=bi:{BI_SECRET}")
    assert refused.startswith("error ForbiddenException: Forbidden:"), refused
    wrong = probe("java_x", "credential=etl:wrong-secret")
    assert wrong.startswith("error NotAuthorizedException: Not authorized: invalid_client"), wrong
    assert "wrong-secret" not in wrong
