"""The HTTP side of the REST catalog client, on PyIceberg's ``pyiceberg.catalog.rest``.

iceview writes no HTTP, auth or configuration handshake of its own: :class:`RestSession` opens
PyIceberg's ``RestCatalog`` (its ``requests`` session with the auth managers for OAuth2 client
credentials, bearer tokens, SigV4 and custom auth; the ``GET /v1/config`` merge of defaults and
overrides; ``prefix``; namespace encoding) and sends the view requests through that session, at
PyIceberg's URLs. What it adds is what PyIceberg's view support lacks: Java's endpoint gating for
every view endpoint, timeouts, the ``Idempotency-Key`` header, and iceview's typed errors.

The parts of PyIceberg used here are listed in :data:`PYICEBERG_PARTS`; a test fails when a
PyIceberg release changes them.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote, urlparse, urlsplit

import requests
from pydantic import ValidationError as PydanticValidationError
from pyiceberg import exceptions as pyiceberg_errors
from pyiceberg.catalog.rest import (
    DEFAULT_ENDPOINTS,
    PAGE_SIZE,
    VIEW_ENDPOINTS_SUPPORTED,
    Endpoint,
    Endpoints,
    HttpMethod,
)
from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog

from iceview.catalog.properties import property_as_bool, property_as_int
from iceview.catalog.rest_errors import Call, Redactor, error_from_response, parse_error_body
from iceview.errors import (
    CommitStateUnknownError,
    ForbiddenError,
    IceviewError,
    InvalidArgumentError,
    NotAuthorizedError,
    RESTError,
    ServiceUnavailableError,
    UnsupportedOperationError,
)
from iceview.identifiers import IdentifierLike, ViewIdentifier, to_identifier
from iceview.spec.pydantic_errors import validation_problem

__all__ = [
    "DEFAULT_NAMESPACE_SEPARATOR",
    "NAMESPACE_SEPARATOR",
    "PAGE_SIZE",
    "PYICEBERG_PARTS",
    "REFERENCED_BY",
    "VIEW_ENDPOINTS",
    "RestSession",
    "ViewEndpoint",
    "chain",
    "referenced_by_param",
    "rest_error_from_pyiceberg",
]

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_MS = "rest.client.connection-timeout-ms"
SOCKET_TIMEOUT_MS = "rest.client.socket-timeout-ms"
_DEFAULT_CONNECT_TIMEOUT_MS = 10_000
_DEFAULT_SOCKET_TIMEOUT_MS = 60_000

_V1 = "/v1/{prefix}/"

NAMESPACE_SEPARATOR = "namespace-separator"
"""The ``/v1/config`` property naming the separator of namespace levels in query parameters
(``parent``, ``referenced-by``), URL-encoded."""
DEFAULT_NAMESPACE_SEPARATOR = "%1F"
"""The REST spec's default separator: the unit separator, URL-encoded."""


class ViewEndpoint:
    """Java's ``Endpoint`` constants for views, as PyIceberg ``Endpoint`` values."""

    LIST = Endpoint(http_method=HttpMethod.GET, path=_V1 + Endpoints.list_views)
    LOAD = Endpoint(http_method=HttpMethod.GET, path=_V1 + Endpoints.load_view)
    EXISTS = Endpoint(http_method=HttpMethod.HEAD, path=_V1 + Endpoints.view_exists)
    CREATE = Endpoint(http_method=HttpMethod.POST, path=_V1 + Endpoints.create_view)
    UPDATE = Endpoint(http_method=HttpMethod.POST, path=_V1 + Endpoints.load_view)
    DELETE = Endpoint(http_method=HttpMethod.DELETE, path=_V1 + Endpoints.drop_view)
    RENAME = Endpoint(http_method=HttpMethod.POST, path=_V1 + "views/rename")
    REGISTER = Endpoint(http_method=HttpMethod.POST, path=_V1 + Endpoints.register_view)


# Java's RESTSessionCatalog.VIEW_ENDPOINTS: what a server that lists no endpoints is assumed to
# serve when view-endpoints-supported=true (PyIceberg's own list lacks create, update and rename)
VIEW_ENDPOINTS = frozenset(
    {
        ViewEndpoint.LIST,
        ViewEndpoint.LOAD,
        ViewEndpoint.CREATE,
        ViewEndpoint.UPDATE,
        ViewEndpoint.DELETE,
        ViewEndpoint.RENAME,
    }
)

# What iceview relies on inside pyiceberg.catalog.rest (tests/catalog/test_catalog_rest_pyiceberg.py)
PYICEBERG_PARTS: dict[str, tuple[str, ...]] = {
    "RestCatalog": (
        "_create_session",
        "_session",
        "_supported_endpoints",
        "_refresh_token",
        "url",
        "_encode_namespace_path",
        "properties",
        "uri",
    ),
    "Endpoints": (
        "list_views",
        "load_view",
        "view_exists",
        "create_view",
        "drop_view",
        "register_view",
        "get_config",
    ),
    "response": ("ErrorResponse", "OAuthErrorResponse"),
}


class _PyIcebergRest(PyIcebergRestCatalog):
    """PyIceberg's ``RestCatalog``, remembering the body of the ``/v1/config`` answer (PyIceberg
    keeps only the merged properties and the endpoint set, not whether the server listed any)."""

    def __init__(self, name: str, **properties: str) -> None:
        self.config_response: dict[str, Any] | None = None
        super().__init__(name, **properties)

    def _create_session(self) -> requests.Session:
        session = super()._create_session()
        session.hooks["response"].append(self._remember_config)
        return session

    def _remember_config(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        if (
            self.config_response is None
            and response.ok
            and response.request.method == "GET"
            and urlparse(response.url).path.endswith("/v1/config")
        ):
            try:
                body = json.loads(response.text)
            except ValueError:
                return  # PyIceberg reports the malformed answer itself
            if isinstance(body, dict):
                self.config_response = body


def rest_error_from_pyiceberg(error: Exception, what: str, redact: Redactor) -> IceviewError | None:
    """The iceview error for an exception PyIceberg's REST catalog raised (None: not one of its)."""
    text = redact(str(error))
    kinds: tuple[tuple[type[Exception], type[RESTError]], ...] = (
        (pyiceberg_errors.OAuthError, NotAuthorizedError),
        (pyiceberg_errors.UnauthorizedError, NotAuthorizedError),
        (pyiceberg_errors.AuthorizationExpiredError, NotAuthorizedError),
        (pyiceberg_errors.ForbiddenError, ForbiddenError),
        (pyiceberg_errors.ServiceUnavailableError, ServiceUnavailableError),
    )
    for source, target in kinds:
        if isinstance(error, source):
            prefix = "Not authorized: " if target is NotAuthorizedError else ""
            return target(f"{prefix}{text} ({what})")
    if isinstance(error, pyiceberg_errors.BadRequestError):
        return InvalidArgumentError(f"{text} ({what})")
    if isinstance(error, pyiceberg_errors.RESTError | pyiceberg_errors.ServerError):
        return RESTError(f"REST catalog error ({what}): {text}")
    if isinstance(error, requests.RequestException):
        return ServiceUnavailableError(
            f"Cannot reach the REST catalog ({what}): {type(error).__name__}: {redact(str(error))}"
        )
    cause = error if isinstance(error, PydanticValidationError) else error.__cause__
    if isinstance(error, PydanticValidationError | pyiceberg_errors.ValidationError) and isinstance(
        cause, PydanticValidationError
    ):
        # iceview's text and the JSON path: pydantic's shows the response's values and its version
        problem, path = validation_problem(cause.errors(), None, "response")
        return RESTError(f"Malformed response from the REST catalog ({what}): {problem} (at {path})")
    if isinstance(error, ValueError):  # PyIceberg's checks of the properties (auth.type, ...)
        return InvalidArgumentError(f"Invalid REST catalog configuration ({what}): {text}")
    return None


def _with_nested_auth(properties: Mapping[str, str]) -> dict[str, Any]:
    """PyIceberg reads its auth managers' settings from one nested ``auth`` mapping (``auth:
    {type: custom, impl: my.Auth, custom: {...}}`` in ``.pyiceberg.yaml``); iceview's configuration
    arrives flattened (``auth.type``, ``auth.custom.key``, or ``PYICEBERG_CATALOG__X__AUTH__TYPE``),
    so the mapping is rebuilt here."""
    out: dict[str, Any] = {k: v for k, v in properties.items() if not k.startswith("auth.")}
    nested: dict[str, Any] = {}
    for key, value in properties.items():
        if not key.startswith("auth."):
            continue
        node = nested
        *parents, leaf = key[len("auth.") :].split(".")
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise InvalidArgumentError(f"Catalog property {key} conflicts with auth.{part}")
            node = child
        node[leaf] = value
    if nested:
        out["auth"] = nested
    return out


REFERENCED_BY = "referenced-by"
"""The query parameter of a load that names the views it goes through (REST spec 1.11)."""


def referenced_by_param(views: Sequence[ViewIdentifier], separator: str) -> str:
    """The ``referenced-by`` value (before URL encoding) for a chain of views, outermost first:
    each ``{namespace}{separator}{view}`` with the levels joined by ``separator`` (the ``parent``
    encoding of list namespaces), commas in a level or name written ``%2C``, the identifiers joined
    by commas. A view without a namespace, or with the separator in a level or its name, cannot be
    written so: :class:`InvalidArgumentError`."""
    encoded: list[str] = []
    for view in views:
        if not view.namespace:
            raise InvalidArgumentError(f"Cannot send {REFERENCED_BY} view {view}: it has no namespace")
        parts = view.levels
        if any(separator in part for part in parts):
            raise InvalidArgumentError(
                f"Cannot send {REFERENCED_BY} view {view}: a level or its name contains the "
                f"namespace separator {separator!r}"
            )
        encoded.append(separator.join(part.replace(",", "%2C") for part in parts))
    return ",".join(encoded)


def chain(referenced_by: Sequence[IdentifierLike] | None) -> tuple[ViewIdentifier, ...]:
    if referenced_by is None:
        return ()
    if isinstance(referenced_by, str):
        raise InvalidArgumentError(
            f"referenced_by must be a sequence of view identifiers, not the string {referenced_by!r}"
        )
    return tuple(to_identifier(view) for view in referenced_by)


class RestSession:
    """One REST catalog connection: PyIceberg's ``RestCatalog`` plus endpoint gating for views."""

    def __init__(self, name: str, properties: Mapping[str, str]) -> None:
        self.redact = Redactor(properties)
        where = f"REST catalog {name} at {properties.get('uri')}"
        try:
            self.rest = _PyIcebergRest(name, **_with_nested_auth(properties))
        except IceviewError:
            raise
        except Exception as e:
            mapped = rest_error_from_pyiceberg(e, where, self.redact)
            if mapped is None:
                raise
            raise mapped from None
        self.properties: dict[str, str] = {k: str(v) for k, v in self.rest.properties.items()}
        self.redact = Redactor(self.properties)
        config = self.rest.config_response or {}
        self.endpoints_listed = bool(config.get("endpoints"))
        if self.endpoints_listed:
            self.view_endpoints = frozenset(self.rest._supported_endpoints)
        elif property_as_bool(self.properties, VIEW_ENDPOINTS_SUPPORTED, False):
            self.view_endpoints = frozenset(DEFAULT_ENDPOINTS | VIEW_ENDPOINTS)
        else:
            self.view_endpoints = frozenset(DEFAULT_ENDPOINTS)
        # the REST spec's ConfigResponse.idempotency-key-lifetime: the server honours the header
        self.idempotency = bool(config.get("idempotency-key-lifetime"))
        self.timeout = (
            property_as_int(self.properties, CONNECT_TIMEOUT_MS, _DEFAULT_CONNECT_TIMEOUT_MS) / 1000.0,
            property_as_int(self.properties, SOCKET_TIMEOUT_MS, _DEFAULT_SOCKET_TIMEOUT_MS) / 1000.0,
        )
        self.name = name
        self._env_settings: dict[tuple[str, str], dict[str, Any]] = {}
        separator = self.properties.get(NAMESPACE_SEPARATOR) or DEFAULT_NAMESPACE_SEPARATOR
        self.namespace_separator = unquote(separator)
        """The separator of namespace levels in query parameters, as the server advertised it
        (decoded), else the spec's default."""

    # -- endpoints -------------------------------------------------------------------------------
    def supports(self, endpoint: Endpoint) -> bool:
        """Whether the server serves ``endpoint`` (as advertised, or Java's defaults)."""
        return endpoint in self.view_endpoints

    def supports_views(self) -> bool:
        return any(e in self.view_endpoints for e in VIEW_ENDPOINTS | {ViewEndpoint.EXISTS})

    def require(self, endpoint: Endpoint) -> None:
        """Raise :class:`UnsupportedOperationError` unless the server serves ``endpoint``."""
        if endpoint in self.view_endpoints:
            return
        if not self.supports_views():
            if self.endpoints_listed:
                raise UnsupportedOperationError(
                    f"This REST catalog does not support views: it advertises no view endpoints "
                    f"({self.name} at {self.display_uri()})"
                )
            raise UnsupportedOperationError(
                f"This REST catalog does not support views: its /v1/config lists no endpoints and "
                f"'{VIEW_ENDPOINTS_SUPPORTED}' is not true ({self.name} at {self.display_uri()})"
            )
        raise UnsupportedOperationError(
            f"This REST catalog does not support {endpoint}: the server does not advertise it "
            f"({self.name} at {self.display_uri()})"
        )

    def display_uri(self) -> str:
        return self.redact(str(self.rest.uri))

    # -- URLs ------------------------------------------------------------------------------------
    def namespace_path(self, namespace: tuple[str, ...]) -> str:
        return self.rest._encode_namespace_path(namespace)

    def url(self, template: str, namespace: tuple[str, ...] | None = None, view: str | None = None) -> str:
        args: dict[str, str] = {}
        if namespace is not None:
            args["namespace"] = self.namespace_path(namespace)
        if view is not None:
            args["view"] = quote(view, safe="")
        return self.rest.url(template, prefixed=True, **args)

    # -- requests --------------------------------------------------------------------------------
    def send(
        self,
        method: str,
        url: str,
        call: Call,
        what: str,
        *,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
        ok_statuses: tuple[int, ...] = (),
    ) -> requests.Response:
        """Send one request through PyIceberg's session; a 2xx (or one of ``ok_statuses``) is
        returned, anything else raised as iceview's typed error. A 401 or 419 refreshes PyIceberg's
        OAuth2 token once and sends again (nothing was done by the server)."""
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers: dict[str, str] = {}
        if self.idempotency and method in ("POST", "DELETE"):
            headers["Idempotency-Key"] = str(uuid.uuid4())
        for attempt in (1, 2):
            response = self._request(method, url, call, what, data=data, params=params, headers=headers)
            if response.status_code < 300 or response.status_code in ok_statuses:
                return response
            if response.status_code in (401, 419) and attempt == 1 and self._can_refresh():
                self.rest._refresh_token()
                continue
            break
        raise error_from_response(response.status_code, response.text, call, what, self.redact)

    def _can_refresh(self) -> bool:
        return bool(self.properties.get("credential"))

    def _request(
        self,
        method: str,
        url: str,
        call: Call,
        what: str,
        *,
        data: bytes | None,
        params: Mapping[str, str] | None,
        headers: Mapping[str, str],
    ) -> requests.Response:
        session = self.rest._session
        try:
            # what Session.request does, with the environment's proxy and CA settings read once
            # per server instead of scanning os.environ twice per request (~0.15 ms each time)
            prepared = session.prepare_request(
                requests.Request(method, url, data=data, params=params, headers=dict(headers))
            )
            return session.send(prepared, timeout=self.timeout, allow_redirects=True, **self._settings(url))
        except (requests.ConnectTimeout, requests.exceptions.InvalidURL) as e:
            raise ServiceUnavailableError(
                f"Cannot reach the REST catalog at {self.display_uri()} ({what}): {type(e).__name__}"
            ) from None
        except requests.RequestException as e:
            refused = isinstance(e, requests.ConnectionError) and "NewConnectionError" in repr(e)
            if call in (Call.READ, Call.NAMESPACE) or refused:
                raise ServiceUnavailableError(
                    f"Cannot reach the REST catalog at {self.display_uri()} ({what}): "
                    f"{type(e).__name__}: {self.redact(str(e))}"
                ) from None
            # the request may have reached the server: the change may or may not have happened
            raise CommitStateUnknownError(
                f"Commit state unknown for {what}: the request to the REST catalog at "
                f"{self.display_uri()} failed after it was sent ({type(e).__name__}); "
                "reload the view to see whether the change was made"
            ) from None

    def _settings(self, url: str) -> dict[str, Any]:
        """``requests``' environment settings (proxies, ``verify``, ``cert``, ``stream``) for
        ``url``'s server, merged once per scheme and host, as ``Session.request`` merges them."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        settings = self._env_settings.get(key)
        if settings is None:
            settings = self.rest._session.merge_environment_settings(url, {}, None, None, None)
            self._env_settings[key] = settings
        return settings

    def json_body(self, response: requests.Response, call: Call, what: str) -> dict[str, Any]:
        """The JSON object of a successful response; a malformed one raises :class:`RESTError`
        (:class:`CommitStateUnknownError` for a write: the server did answer 2xx, but what it
        committed cannot be read)."""
        try:
            body = json.loads(response.text)
        except ValueError:
            body = None
        if isinstance(body, dict):
            return body
        error_type, _ = parse_error_body(response.text)
        shown = self.redact(response.text[:200])
        if call in (Call.COMMIT, Call.CREATE):
            raise CommitStateUnknownError(
                f"Commit state unknown for {what}: the REST catalog answered HTTP {response.status_code} "
                f"with a body that is not a JSON object ({shown!r}); reload the view"
            )
        raise RESTError(
            f"Malformed response from the REST catalog for {what}: HTTP {response.status_code} "
            f"with a body that is not a JSON object ({shown!r})",
            response.status_code,
            error_type,
        )

    def close(self) -> None:
        self.rest.close()
