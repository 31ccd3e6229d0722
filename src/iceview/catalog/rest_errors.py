"""Error responses of a REST catalog as iceview's typed errors (Java's ``ErrorHandlers``).

An ``IcebergErrorResponse`` (``{"error": {"message", "type", "code"}}``) is read with PyIceberg's
own models (``pyiceberg.catalog.rest.response``); its ``type`` picks the iceview class and its
``message`` is kept as the error's text, so errors read as they do on the SQL catalog. A type iceview
does not know becomes :class:`~iceview.errors.RESTError` with the type and code kept. Secrets (the
``credential``, ``token`` and any ``*secret*``/``*password*`` property) are cut out of every message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum

from pydantic import ValidationError as PydanticValidationError
from pyiceberg.catalog.rest.response import ErrorResponse, OAuthErrorResponse

from iceview.errors import (
    BadRequestError,
    CommitFailedError,
    CommitStateUnknownError,
    ForbiddenError,
    FunctionAlreadyExistsError,
    IceviewError,
    InvalidArgumentError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchFunctionError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NoSuchViewError,
    NotAuthorizedError,
    RESTError,
    ServiceUnavailableError,
    TableAlreadyExistsError,
    UnsupportedOperationError,
    ViewAlreadyExistsError,
)

__all__ = ["Call", "Redactor", "error_from_response", "parse_error_body"]

_SECRET_KEYS = ("credential", "token", "secret", "password", "session-token", "access-key")


class Call(Enum):
    """What kind of request failed: the same status means different things (Java's handlers)."""

    READ = "read"  # loads, lists, exists
    CREATE = "create"  # create or register a view: 409 means it exists
    COMMIT = "commit"  # POST .../views/{view}: 409 is a conflict, 5xx an unknown outcome
    RENAME = "rename"
    DROP = "drop"
    NAMESPACE = "namespace"


class Redactor:
    """Cuts the secret property values of a catalog out of texts shown to users or logs."""

    def __init__(self, properties: Mapping[str, str]) -> None:
        secrets: set[str] = set()
        for key, value in properties.items():
            if value and any(k in key.lower() for k in _SECRET_KEYS):
                secrets.add(value)
                if ":" in value and key.lower().endswith("credential"):
                    secrets.update(part for part in value.split(":", 1) if len(part) >= 4)
        self._secrets = sorted((s for s in secrets if s), key=len, reverse=True)

    def add(self, values: Iterable[str]) -> None:
        """Also redact ``values`` (e.g. a token the server issued)."""
        self._secrets = sorted({*self._secrets, *(v for v in values if v)}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "****")
        return text


def parse_error_body(text: str) -> tuple[str | None, str | None]:
    """The ``(type, message)`` of an ``IcebergErrorResponse`` or an OAuth2 error body, or
    ``(None, None)`` when the body is neither."""
    if not text:
        return None, None
    try:
        error = ErrorResponse.model_validate_json(text).error
        return error.type, error.message
    except (PydanticValidationError, ValueError):
        pass
    try:
        oauth = OAuthErrorResponse.model_validate_json(text)
    except (PydanticValidationError, ValueError):
        return None, None
    message = str(oauth.error) + (f": {oauth.error_description}" if oauth.error_description else "")
    return "OAuthError", message


# the server's exception type -> iceview's class, for the calls where the status alone is ambiguous
_BY_TYPE: dict[str, type[IceviewError]] = {
    "NoSuchViewException": NoSuchViewError,
    "NoSuchFunctionException": NoSuchFunctionError,
    "NoSuchNamespaceException": NoSuchNamespaceError,
    "NoSuchTableException": NoSuchTableError,
    "NoSuchIcebergTableException": NoSuchTableError,
    "NamespaceNotEmptyException": NamespaceNotEmptyError,
    "CommitFailedException": CommitFailedError,
    "CommitStateUnknownException": CommitStateUnknownError,
    "ForbiddenException": ForbiddenError,
    "NotAuthorizedException": NotAuthorizedError,
    "ServiceUnavailableException": ServiceUnavailableError,
    "BadRequestException": BadRequestError,
    "IllegalArgumentException": BadRequestError,
    "ValidationException": BadRequestError,
    "UnsupportedOperationException": UnsupportedOperationError,
}


def _already_exists(message: str, call: Call) -> IceviewError:
    if message.startswith("Function") or ". Function already exists" in message:
        return FunctionAlreadyExistsError(message)
    is_table = message.startswith("Table") or ". Table already exists" in message
    if is_table and call is not Call.NAMESPACE:
        return TableAlreadyExistsError(message)
    if call is Call.NAMESPACE or message.startswith("Namespace"):
        return NamespaceAlreadyExistsError(message)
    return ViewAlreadyExistsError(message)


def _make(cls: type[IceviewError], message: str, code: int, error_type: str | None) -> IceviewError:
    if issubclass(cls, RESTError):
        return cls(message, code, error_type)
    return cls(message)


def error_from_response(code: int, body: str, call: Call, what: str, redact: Redactor) -> IceviewError:
    """The iceview error for an HTTP error ``code`` with ``body``, raised by a ``call`` on
    ``what`` (a view or namespace name, for messages the server left empty)."""
    error_type, server_message = parse_error_body(body)
    message = redact(server_message or f"HTTP {code} from the REST catalog for {what}")
    if error_type is None and body:
        message += f" (response body: {redact(body[:200])!r})"
    if error_type == "OAuthError" or code == 401:
        return NotAuthorizedError(f"Not authorized: {message}", code, error_type)
    if call is Call.COMMIT:
        # Java's viewCommitHandler: 409 is a conflict the client may retry; 500/502/503/504 mean the
        # commit may or may not have happened, so it is never retried blindly
        if code == 409:
            return CommitFailedError(f"Commit failed: {message}")
        if code in (500, 502, 503, 504):
            return CommitStateUnknownError(
                f"Commit state unknown for {what}: the REST catalog answered HTTP {code} "
                f"({error_type or 'no error type'}): {message}"
            )
    if code == 409 and error_type in (None, "AlreadyExistsException"):
        return _already_exists(message, call)
    if error_type in _BY_TYPE:
        return _make(_BY_TYPE[error_type], message, code, error_type)
    if code == 404:
        if call is Call.NAMESPACE or error_type == "NoSuchNamespaceException":
            return NoSuchNamespaceError(message)
        if what.startswith("function "):
            return NoSuchFunctionError(message)
        return NoSuchViewError(message)
    if code == 400:
        return BadRequestError(message, code, error_type)
    if code == 403:
        return ForbiddenError(message, code, error_type)
    if code == 406:
        return UnsupportedOperationError(message)
    if code == 503:
        return ServiceUnavailableError(message, code, error_type)
    if code == 422:
        return InvalidArgumentError(message)
    shown = f"{error_type}: {message}" if error_type else message
    return RESTError(f"REST catalog error HTTP {code} for {what}: {shown}", code, error_type)
