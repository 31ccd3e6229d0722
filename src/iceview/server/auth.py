"""Authentication and authorization of requests: OAuth2 client credentials and static tokens.

Clients get a bearer token at ``POST /v1/oauth/tokens`` (form-encoded
``grant_type=client_credentials&client_id=ID&client_secret=SECRET&scope=catalog``, as Iceberg
Java's ``RESTCatalog`` and PyIceberg's ``RestCatalog`` send for ``credential=ID:SECRET``). The
token is a JWT signed with HMAC-SHA256 (``HS256``) over a compact payload: ``sub`` (the client
id), ``role`` (``read-only`` or ``read-write``), ``iat`` and ``exp``. Java reads ``exp`` from a
JWT to refresh in time; a refresh (``grant_type=urn:ietf:params:oauth:grant-type:token-exchange``
with the current token as ``subject_token``) issues a fresh token for the same client. Every
request then carries ``Authorization: Bearer TOKEN``; services may instead use a configured
static token (``token=T`` in both clients).

Tokens are checked against the configuration on every request: a client removed from the file
(after a restart) loses its tokens, and a client demoted to read-only gets read-only access
with the tokens it already holds. A read-only principal gets ``403 ForbiddenException`` on
mutations (the app checks :attr:`Principal.can_write`).

The auth file (``--auth-file``) is JSON, or YAML in block style (read with ``strictyaml``, which
PyIceberg depends on, as PyIceberg reads ``.pyiceberg.yaml``)::

    signing-key: "at least 32 characters of randomness"   # optional, see below
    token-lifetime-s: 3600                                 # optional, default 3600
    clients:
      - id: etl
        secret-hash: "scrypt:16384:8:1$<salt>$<hash>"      # from hash_secret(secret)
        access: read-write                                 # or read-only (the default)
    tokens:
      - name: dashboards
        token-hash: "sha256$<hash>"                        # from hash_token(token)
        access: read-only

Client secrets are stored only as salted scrypt hashes (:func:`hash_secret`): a person may choose
one, so the stored form must resist guessing. Static tokens are machine-made random strings of at
least 128 bits (``secrets.token_urlsafe(32)``): they are stored as their SHA-256
(:func:`hash_token`), which no one can invert, and checked at a cost that does not depend on the
token presented or on how many tokens are configured. At start-up each stored digest is keyed with a
random per-process key (HMAC-SHA256) into a dict; a presented token is hashed and keyed once and
looked up, so a wrong token costs what a right one costs and no slow KDF runs for it. Static tokens
stored as scrypt hashes (the earlier form) still work: a token that matches one is verified once,
then found in the dict like the others; an unknown token then needs one scrypt per such entry,
which :meth:`Authenticator.authenticate_quickly` leaves to the caller (the app runs it on a small
bounded pool, rate-limited per client address). Every comparison is constant-time. The signing key comes from ``signing-key`` in the file, else from
the environment variable ``ICEVIEW_SERVER_SIGNING_KEY``. Every worker process and every
instance behind a load balancer must use the same key to accept each other's tokens:
:func:`ensure_signing_key` puts a fresh random key in the environment before workers start when
neither gives one (then tokens die with the server). No secret, token or key ever appears in a
message or a log line.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from iceview.errors import InvalidArgumentError, NotAuthorizedError
from iceview.server.errors import clipped

__all__ = [
    "SIGNING_KEY_ENV",
    "Authenticator",
    "Principal",
    "ensure_signing_key",
    "hash_secret",
    "hash_token",
    "load_authenticator",
    "parse_token_form",
    "verify_secret",
]

log = logging.getLogger("iceview.server")

SIGNING_KEY_ENV = "ICEVIEW_SERVER_SIGNING_KEY"
"""The environment variable that carries the token signing key (when the auth file has none)."""

_MIN_KEY_BYTES = 32
_CLIENT_CREDENTIALS = "client_credentials"
_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
_READ_ONLY, _READ_WRITE = "read-only", "read-write"
_JWT_HEADER = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
_MAX_SCRYPT_N = 2**20
_CACHE_SIZE = 4096
_SHA256 = "sha256$"
_MIN_TOKEN_CHARS = 16


# -- secrets -----------------------------------------------------------------------------------
def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_secret(secret: str) -> str:
    """The salted scrypt hash of ``secret``, in the form the auth file stores
    (``scrypt:N:r:p$salt$hash``, base64url)."""
    if not secret:
        raise InvalidArgumentError("Cannot hash an empty secret")
    salt = secrets.token_bytes(16)
    digest = _scrypt(secret.encode(), salt, _SCRYPT_N, _SCRYPT_R, _SCRYPT_P)
    return f"scrypt:{_SCRYPT_N}:{_SCRYPT_R}:{_SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def hash_token(token: str) -> str:
    """The stored form of a static token (``sha256$hash``, base64url): its SHA-256, unsalted, so
    that it can be looked up at constant cost. Fit only for random tokens, never for a password
    (use :func:`hash_secret` for client secrets)."""
    if len(token) < _MIN_TOKEN_CHARS:
        raise InvalidArgumentError(
            f"A static token must be a random string of at least {_MIN_TOKEN_CHARS} characters "
            "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return _SHA256 + _b64(hashlib.sha256(token.encode()).digest())


def _scrypt(secret: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(secret, salt=salt, n=n, r=r, p=p, dklen=32, maxmem=132 * n * r * p + 2**20)


@dataclass(frozen=True)
class _Hash:
    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes

    def matches(self, secret: str) -> bool:
        candidate = _scrypt(secret.encode(), self.salt, self.n, self.r, self.p)
        return hmac.compare_digest(candidate, self.digest)


def _parse_hash(text: str, where: str) -> _Hash:
    bad = InvalidArgumentError(
        f"{where} is not a hash made by `hash_secret` (expected scrypt:N:r:p$salt$hash)"
    )
    try:
        params, salt, digest = text.split("$")
        scheme, n, r, p = params.split(":")
        parsed = _Hash(int(n), int(r), int(p), _unb64(salt), _unb64(digest))
    except (ValueError, binascii.Error):
        raise bad from None
    if scheme != "scrypt" or not (1 < parsed.n <= _MAX_SCRYPT_N) or parsed.n & (parsed.n - 1):
        raise bad
    if not (0 < parsed.r <= 32 and 0 < parsed.p <= 16 and len(parsed.salt) >= 8 and len(parsed.digest) == 32):
        raise bad
    return parsed


def _parse_token_hash(text: str, where: str) -> _Hash | bytes:
    """A static token's stored form: its SHA-256 digest (``sha256$``), or a scrypt :class:`_Hash`."""
    if not text.startswith(_SHA256):
        return _parse_hash(text, where)
    try:
        digest = _unb64(text[len(_SHA256) :])
    except (ValueError, binascii.Error):
        digest = b""
    if len(digest) != 32:
        raise InvalidArgumentError(f"{where} is not a hash made by `hash_token` (expected sha256$hash)")
    return digest


def verify_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the one ``stored`` (a :func:`hash_secret` result) was made from."""
    return _parse_hash(stored, "The stored hash").matches(secret)


# -- configuration -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Principal:
    """Who a request comes from, and whether it may change the catalog."""

    name: str
    can_write: bool


@dataclass(frozen=True)
class _Client:
    id: str
    secret: _Hash
    can_write: bool


@dataclass(frozen=True)
class _StaticToken:
    name: str
    token: _Hash | bytes
    """A scrypt hash, or the token's SHA-256 digest."""
    can_write: bool


def _read_file(path: str) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise InvalidArgumentError(f"Cannot read the auth file {path}: {e.strerror}") from None
    if path.endswith(".json") or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise InvalidArgumentError(
                f"The auth file {path} is not valid JSON: {e.msg} (line {e.lineno})"
            ) from None
    else:
        import strictyaml  # type: ignore[import-untyped]

        try:
            data = strictyaml.load(text).data
        except strictyaml.YAMLError as e:
            # the problem and its line, never the offending text (it may hold a secret)
            mark = getattr(e, "problem_mark", None)
            line = f" (line {mark.line + 1})" if mark is not None else ""
            raise InvalidArgumentError(
                f"The auth file {path} is not valid YAML{line}: {getattr(e, 'problem', None) or type(e).__name__}"
            ) from None
    if not isinstance(data, dict):
        raise InvalidArgumentError(f"The auth file {path} must hold a mapping at the top level")
    return data


def _text(entry: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = entry.get(key, default)
    if not isinstance(value, str) or not value:
        raise InvalidArgumentError(f"{where}: '{key}' must be a non-empty string")
    return value


def _access(entry: Mapping[str, Any], where: str) -> bool:
    value = entry.get("access", _READ_ONLY)
    if value not in (_READ_ONLY, _READ_WRITE):
        raise InvalidArgumentError(f"{where}: 'access' must be {_READ_ONLY} or {_READ_WRITE}, not {value!r}")
    return bool(value == _READ_WRITE)


def _entries(data: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise InvalidArgumentError(f"{where}: '{key}' must be a list of mappings")
    return value


def _signing_key(data: Mapping[str, Any], where: str) -> bytes | None:
    raw = data.get("signing-key")
    source = f"{where}: 'signing-key'"
    if raw is None:
        raw = os.environ.get(SIGNING_KEY_ENV) or None
        source = f"the environment variable {SIGNING_KEY_ENV}"
    if raw is None:
        return None
    if not isinstance(raw, str) or len(raw.encode()) < _MIN_KEY_BYTES:
        raise InvalidArgumentError(
            f"The signing key from {source} must be at least {_MIN_KEY_BYTES} characters"
        )
    return raw.encode()


def ensure_signing_key(path: str) -> None:
    """Make sure every worker started after this call signs with one key: when neither the auth
    file at ``path`` nor :data:`SIGNING_KEY_ENV` gives one, put a random key in the environment
    (which worker processes inherit). Tokens then stay valid only while this server runs."""
    if "signing-key" in _read_file(path) or os.environ.get(SIGNING_KEY_ENV):
        return
    os.environ[SIGNING_KEY_ENV] = secrets.token_urlsafe(48)
    log.warning(
        "No signing key in %s or %s: using a random one, so tokens die with this server and "
        "other instances do not accept them",
        path,
        SIGNING_KEY_ENV,
    )


def load_authenticator(path: str) -> Authenticator:
    """The :class:`Authenticator` the auth file at ``path`` configures (format: module docstring)."""
    data = _read_file(path)
    where = f"The auth file {path}"
    known = {"signing-key", "token-lifetime-s", "clients", "tokens"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InvalidArgumentError(
            f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    lifetime_raw = data.get("token-lifetime-s", 3600)
    try:
        lifetime = int(lifetime_raw)
    except (TypeError, ValueError):
        lifetime = 0
    if isinstance(lifetime_raw, bool) or lifetime <= 0:
        raise InvalidArgumentError(f"{where}: 'token-lifetime-s' must be a positive number of seconds")
    clients: dict[str, _Client] = {}
    for i, entry in enumerate(_entries(data, "clients", where)):
        at = f"{where}, clients[{i}]"
        client_id = _text(entry, "id", at)
        if client_id in clients:
            raise InvalidArgumentError(f"{at}: client id {client_id!r} is configured twice")
        clients[client_id] = _Client(
            client_id,
            _parse_hash(_text(entry, "secret-hash", at), f"{at}: 'secret-hash'"),
            _access(entry, at),
        )
    tokens: list[_StaticToken] = []
    for i, entry in enumerate(_entries(data, "tokens", where)):
        at = f"{where}, tokens[{i}]"
        tokens.append(
            _StaticToken(
                _text(entry, "name", at),
                _parse_token_hash(_text(entry, "token-hash", at), f"{at}: 'token-hash'"),
                _access(entry, at),
            )
        )
    if not clients and not tokens:
        raise InvalidArgumentError(f"{where} configures no clients and no tokens: nobody could connect")
    key = _signing_key(data, where)
    if key is None:
        if clients:
            log.warning(
                "No signing key in %s or %s: tokens are valid only in this process", path, SIGNING_KEY_ENV
            )
        key = secrets.token_bytes(_MIN_KEY_BYTES)
    return Authenticator(key, clients, tokens, lifetime)


def parse_token_form(body: bytes) -> dict[str, str]:
    """The fields of a ``/v1/oauth/tokens`` request body (``application/x-www-form-urlencoded``,
    UTF-8); a field given twice counts once, with its last value."""
    pairs = urllib.parse.parse_qsl(
        body.decode("utf-8", errors="replace"), keep_blank_values=True, max_num_fields=64
    )
    return dict(pairs)


# -- the authenticator ---------------------------------------------------------------------------
def _oauth_error(status: int, error: str, description: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": error, "error_description": description}


class Authenticator:
    """Checks bearer tokens and issues them at ``/v1/oauth/tokens``. Thread-safe."""

    def __init__(
        self,
        signing_key: bytes,
        clients: Mapping[str, _Client],
        tokens: list[_StaticToken],
        token_lifetime_s: int = 3600,
    ) -> None:
        self._key = signing_key
        self._clients = dict(clients)
        self.token_lifetime_s = token_lifetime_s
        # static tokens by a keyed hash of their SHA-256 (the key is random per process and never
        # leaves it): one presented token costs one SHA-256, one HMAC and one dict lookup, however
        # many tokens are configured, whether it is right or wrong
        self._mac_key = secrets.token_bytes(32)
        self._known: dict[bytes, Principal] = {}
        self._slow: list[_StaticToken] = []
        for static in tokens:
            if isinstance(static.token, bytes):
                self._known[self._mac(static.token)] = Principal(static.name, static.can_write)
            else:
                self._slow.append(static)
        # presented tokens the scrypt entries refused (bounded; only used when there are such entries)
        self._refused: OrderedDict[bytes, None] = OrderedDict()
        self._lock = threading.Lock()
        # an unknown client id costs as much as a wrong secret, so ids cannot be probed by timing
        self._decoy = _Hash(_SCRYPT_N, _SCRYPT_R, _SCRYPT_P, secrets.token_bytes(16), bytes(32))

    @property
    def has_slow_tokens(self) -> bool:
        """Whether some static tokens are stored as scrypt hashes (an unknown token then needs
        a slow check, see :meth:`authenticate_quickly`)."""
        return bool(self._slow)

    def _mac(self, digest: bytes) -> bytes:
        return hmac.new(self._mac_key, digest, hashlib.sha256).digest()

    # -- tokens ----------------------------------------------------------------------------------
    def _sign(self, message: str) -> str:
        return _b64(hmac.new(self._key, message.encode(), hashlib.sha256).digest())

    def _issue(self, client: _Client, now: int) -> tuple[int, dict[str, Any]]:
        role = _READ_WRITE if client.can_write else _READ_ONLY
        payload = _b64(
            orjson.dumps({"sub": client.id, "role": role, "iat": now, "exp": now + self.token_lifetime_s})
        )
        unsigned = f"{_JWT_HEADER}.{payload}"
        return 200, {
            "access_token": f"{unsigned}.{self._sign(unsigned)}",
            "token_type": "bearer",
            "expires_in": self.token_lifetime_s,
            "issued_token_type": _ACCESS_TOKEN_TYPE,
        }

    def _verify_signed(self, token: str, now: int) -> Principal:
        header, payload, signature = token.split(".")
        if header != _JWT_HEADER or not hmac.compare_digest(signature, self._sign(f"{header}.{payload}")):
            raise NotAuthorizedError("The bearer token is not valid", 401)
        try:
            claims = orjson.loads(_unb64(payload))
        except (ValueError, binascii.Error):
            raise NotAuthorizedError("The bearer token is not valid", 401) from None
        if not isinstance(claims, dict):
            raise NotAuthorizedError("The bearer token is not valid", 401)
        sub, role, exp = claims.get("sub"), claims.get("role"), claims.get("exp")
        if not isinstance(sub, str) or role not in (_READ_ONLY, _READ_WRITE) or not isinstance(exp, int):
            raise NotAuthorizedError("The bearer token is not valid", 401)
        if exp <= now:
            raise NotAuthorizedError("The bearer token has expired", 401)
        client = self._clients.get(sub)
        if client is None:
            raise NotAuthorizedError(f"Client {clipped(sub)} is no longer configured", 401)
        return Principal(sub, role == _READ_WRITE and client.can_write)

    def _fingerprint(self, token: str) -> bytes:
        return self._mac(hashlib.sha256(token.encode()).digest())

    def _verify_static_quickly(self, token: str) -> Principal | None:
        fingerprint = self._fingerprint(token)
        found = self._known.get(fingerprint)
        if found is not None:
            return found
        if not self._slow:
            raise NotAuthorizedError("The bearer token is not valid", 401)
        with self._lock:
            if fingerprint in self._refused:
                self._refused.move_to_end(fingerprint)
                raise NotAuthorizedError("The bearer token is not valid", 401)
        return None

    def _verify_static_slowly(self, token: str) -> Principal:
        fingerprint = self._fingerprint(token)
        found: Principal | None = None
        for static in self._slow:
            assert isinstance(static.token, _Hash)
            if static.token.matches(token):
                found = Principal(static.name, static.can_write)
                break
        with self._lock:
            if found is not None:
                # verified once: from now on found like a sha256 entry
                self._known[fingerprint] = found
            else:
                self._refused[fingerprint] = None
                if len(self._refused) > _CACHE_SIZE:
                    self._refused.popitem(last=False)
        if found is None:
            raise NotAuthorizedError("The bearer token is not valid", 401)
        return found

    @staticmethod
    def _bearer(authorization: str | None) -> str:
        if not authorization:
            raise NotAuthorizedError("The request has no Authorization header", 401)
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise NotAuthorizedError("Expected 'Authorization: Bearer <token>'", 401)
        return token

    @staticmethod
    def _is_signed(token: str) -> bool:
        return token.startswith(_JWT_HEADER + ".") and token.count(".") == 2

    def authenticate_quickly(self, authorization: str | None) -> Principal | None:
        """The principal of a request's ``Authorization`` header, at a small cost that does not
        depend on the token; raises :class:`~iceview.errors.NotAuthorizedError` (401) when it has
        no valid bearer token. None: only :meth:`authenticate` can tell (an unknown static token
        while some static tokens are stored as scrypt hashes), which costs one scrypt per such
        token and belongs off the event loop."""
        token = self._bearer(authorization)
        if self._is_signed(token):
            return self._verify_signed(token, int(time.time()))
        return self._verify_static_quickly(token)

    def authenticate(self, authorization: str | None) -> Principal:
        """The principal of a request's ``Authorization`` header; raises
        :class:`~iceview.errors.NotAuthorizedError` (401) when it has no valid bearer token. May
        run a scrypt per scrypt-stored static token (see :meth:`authenticate_quickly`)."""
        found = self.authenticate_quickly(authorization)
        if found is not None:
            return found
        return self._verify_static_slowly(self._bearer(authorization))

    # -- the token endpoint ----------------------------------------------------------------------
    def issue_token(self, form: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
        """Answer a ``/v1/oauth/tokens`` request: status and an ``OAuthTokenResponse`` or
        ``OAuthError`` document. The requested ``scope`` does not change what a client may do."""
        grant = form.get("grant_type")
        if not grant:
            return _oauth_error(400, "invalid_request", "grant_type is missing")
        now = int(time.time())
        if grant == _CLIENT_CREDENTIALS:
            client_id = form.get("client_id")
            secret = form.get("client_secret")
            if not client_id or not secret:
                return _oauth_error(
                    401 if client_id else 400,
                    "invalid_client" if client_id else "invalid_request",
                    "client_id and client_secret are required (credential=ID:SECRET)",
                )
            client = self._clients.get(client_id)
            matches = (client.secret if client else self._decoy).matches(secret)
            if client is None or not matches:
                log.info("Refused a token to client %s: unknown client or wrong secret", clipped(client_id))
                return _oauth_error(
                    401,
                    "invalid_client",
                    f"Client {clipped(client_id)}: unknown client, or the secret does not match",
                )
            return self._issue(client, now)
        if grant == _TOKEN_EXCHANGE:
            subject = form.get("subject_token")
            if not subject:
                return _oauth_error(400, "invalid_request", "subject_token is missing")
            if not subject.startswith(_JWT_HEADER + ".") or subject.count(".") != 2:
                return _oauth_error(400, "invalid_grant", "Only tokens this server issued can be exchanged")
            try:
                principal = self._verify_signed(subject, now)
            except NotAuthorizedError as e:
                return _oauth_error(400, "invalid_grant", str(e))
            return self._issue(self._clients[principal.name], now)
        return _oauth_error(
            400,
            "unsupported_grant_type",
            f"grant_type {clipped(grant)} is not supported (use {_CLIENT_CREDENTIALS} or token exchange)",
        )
