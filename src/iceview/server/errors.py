"""Every failure of a request as an ``IcebergErrorResponse`` with the right status.

The mapping follows Iceberg Java's ``RESTCatalogAdapter`` (exception class to status code), with
iceview's and PyIceberg's typed errors under the Java type names that REST clients know. Input
that breaks a rule of the spec is a 400, never a 500: only an unknown commit outcome (or a bug,
logged with its traceback and answered without one) is a 5xx.
"""

from __future__ import annotations

import errno
import logging
import re
from dataclasses import dataclass

import orjson
import pydantic
from pyiceberg import exceptions as pyi
from starlette.responses import Response

from iceview import errors as ice
from iceview.spec.pydantic_errors import validation_problem

__all__ = ["ApiError", "capped", "clipped", "error_body", "error_response", "from_exception", "library_text"]

SHOWN_CHARS = 64
"""The most characters of a client-supplied value an error message or log line repeats."""

log = logging.getLogger("iceview.server")


class ApiError(Exception):
    """A request the server refuses, with the status and Java type name to answer with. The
    message is :func:`capped`: a client's long value is never repeated whole."""

    def __init__(
        self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        message = capped(message)
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message
        self.headers = headers
        """Response headers to answer with (e.g. ``Retry-After``)."""


def bad_request(message: str, path: str | None = None) -> ApiError:
    """A 400 ``BadRequestException``; ``path`` is the JSON path of the bad field."""
    where = f" (at {path})" if path else ""
    return ApiError(400, "BadRequestException", f"{message}{where}")


@dataclass(frozen=True)
class _Rule:
    status: int
    error_type: str


# most specific first: the first class an exception is an instance of decides
_RULES: tuple[tuple[type[BaseException], _Rule], ...] = (
    (ice.NotAuthorizedError, _Rule(401, "NotAuthorizedException")),
    (ice.ForbiddenError, _Rule(403, "ForbiddenException")),
    (ice.LocationOutsideWarehouseError, _Rule(403, "ForbiddenException")),
    (ice.NoSuchViewError, _Rule(404, "NoSuchViewException")),
    (ice.NoSuchFunctionError, _Rule(404, "NoSuchFunctionException")),
    (ice.NoSuchTableError, _Rule(404, "NoSuchTableException")),
    (ice.NoSuchNamespaceError, _Rule(404, "NoSuchNamespaceException")),
    (ice.AlreadyExistsError, _Rule(409, "AlreadyExistsException")),
    (ice.NamespaceNotEmptyError, _Rule(409, "NamespaceNotEmptyException")),
    (ice.CommitFailedError, _Rule(409, "CommitFailedException")),
    (ice.CommitStateUnknownError, _Rule(500, "CommitStateUnknownException")),
    (ice.ServiceUnavailableError, _Rule(503, "ServiceUnavailableException")),
    (ice.UnsupportedOperationError, _Rule(406, "UnsupportedOperationException")),
    (ice.InvalidNameError, _Rule(400, "BadRequestException")),
    (ice.InvalidMetadataError, _Rule(400, "ValidationException")),
    (ice.InvalidArgumentError, _Rule(400, "IllegalArgumentException")),
    (ice.ValidationError, _Rule(400, "ValidationException")),
    (ice.InvalidStateError, _Rule(400, "ValidationException")),
    (ice.NotFoundError, _Rule(400, "NotFoundException")),
    (pyi.NoSuchIcebergTableError, _Rule(404, "NoSuchIcebergTableException")),
    (pyi.NoSuchTableError, _Rule(404, "NoSuchTableException")),
    (pyi.NoSuchViewError, _Rule(404, "NoSuchViewException")),
    (pyi.NoSuchNamespaceError, _Rule(404, "NoSuchNamespaceException")),
    (pyi.TableAlreadyExistsError, _Rule(409, "AlreadyExistsException")),
    (pyi.NamespaceAlreadyExistsError, _Rule(409, "AlreadyExistsException")),
    (pyi.NamespaceNotEmptyError, _Rule(409, "NamespaceNotEmptyException")),
    (pyi.CommitFailedException, _Rule(409, "CommitFailedException")),
    (pyi.CommitStateUnknownException, _Rule(500, "CommitStateUnknownException")),
    (pyi.ValidationError, _Rule(400, "ValidationException")),
    (pyi.NoSuchPropertyException, _Rule(400, "IllegalArgumentException")),
    (NotImplementedError, _Rule(406, "UnsupportedOperationException")),
    (ice.IceviewError, _Rule(400, "BadRequestException")),
    (ValueError, _Rule(400, "IllegalArgumentException")),
)


def from_exception(error: BaseException, *, mutation: bool = False) -> ApiError:
    """The answer to ``error``. Anything unexpected is logged (with its traceback, never sent)
    and becomes a 500; during a mutation its outcome is unknown (``CommitStateUnknownException``)."""
    if isinstance(error, ApiError):
        return error
    if _name_too_long(error):
        # a file the request names (or whose name it makes) cannot be created: nothing was written
        return bad_request(
            "Invalid request: a name or location makes a file path longer than the file system allows"
        )
    if isinstance(error, (pydantic.ValidationError, pyi.ValidationError)):
        return ApiError(400, "ValidationException", f"Validation failed: {library_text(error)}")
    if type(error) is ice.CatalogError:
        # the catalog's database failed: its driver's text (table names, SQL limits) stays in the log
        log.error("The catalog's database failed: %s", error)
        return ApiError(500, "ServerErrorException", "The catalog's database failed; the server log says why")
    for cls, rule in _RULES:
        if isinstance(error, cls):
            return ApiError(rule.status, rule.error_type, str(error) or type(error).__name__)
    if isinstance(error, OSError) and error.errno == errno.ENAMETOOLONG:
        # a location a client chose (PyIceberg writing a table's file): nothing was written
        return ApiError(400, "BadRequestException", f"Invalid location: {error.strerror}")
    log.error("Unexpected error while serving a request", exc_info=error)
    if mutation:
        return ApiError(
            500,
            "CommitStateUnknownException",
            f"Commit state unknown: the server failed unexpectedly ({type(error).__name__}); "
            "reload to see whether the change was applied",
        )
    return ApiError(500, "ServerErrorException", f"The server failed unexpectedly ({type(error).__name__})")


# where PyIceberg's messages go on to show the object they were checking (a whole metadata
# document, a list of sort orders): cut there
_DUMP = re.compile(r"(?::| in) [\[{(<]")
_LONGEST_TEXT = 200


def library_text(error: BaseException) -> str:
    """The message of a PyIceberg or pydantic validation error, without what it was validating:
    a pydantic error becomes iceview's text and JSON path (``missing field last-column-id (at
    $.last-column-id)``, never the value or pydantic's version), a PyIceberg message is cut where
    it starts to show an object, and is never longer than 200 characters."""
    cause = error if isinstance(error, pydantic.ValidationError) else error.__cause__
    if isinstance(cause, pydantic.ValidationError):
        message, path = validation_problem(cause.errors(), None, "metadata")
        return f"{message} (at {path})"
    text = _DUMP.split(str(error), 1)[0].strip() or type(error).__name__
    return text if len(text) <= _LONGEST_TEXT else text[:_LONGEST_TEXT] + "..."


def _name_too_long(error: BaseException) -> bool:
    """An ``ENAMETOOLONG`` from the operating system, or from PyArrow's file systems (which put
    the errno in the message only)."""
    if not isinstance(error, OSError):
        return False
    return error.errno == errno.ENAMETOOLONG or "File name too long" in str(error)


MAX_MESSAGE_CHARS = 1000
"""The longest message an error answer carries."""
MAX_WORD_CHARS = 256
"""The longest run of non-space characters an error answer repeats whole: a message that repeats a
client's value (a name, a uuid, a property) shows its first 200 characters, so a 100 KB value
never comes back."""
_LONG_WORD = re.compile(r"\S{" + str(MAX_WORD_CHARS + 1) + ",}")


def capped(message: str) -> str:
    """``message`` with every word longer than :data:`MAX_WORD_CHARS` cut to 200 characters, and
    the whole cut to :data:`MAX_MESSAGE_CHARS`, each cut saying how long it was."""
    message = _LONG_WORD.sub(lambda m: f"{m.group()[:200]}…({len(m.group())} characters)", message)
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return f"{message[:MAX_MESSAGE_CHARS]}… ({len(message)} characters)"


def clipped(value: str, limit: int = SHOWN_CHARS) -> str:
    """``value`` quoted (``repr``) for a message, cut to ``limit`` characters with an ellipsis:
    a client's value is repeated, never a 100 KB one."""
    if len(value) > limit:
        return repr(value[:limit]) + "…"
    return repr(value)


def error_body(status: int, error_type: str, message: str) -> bytes:
    """An ``IcebergErrorResponse`` document."""
    return orjson.dumps({"error": {"message": message, "type": error_type, "code": status}})


def error_response(error: ApiError, headers: dict[str, str] | None = None) -> Response:
    """The HTTP response for ``error``."""
    return Response(
        error_body(error.status, error.error_type, error.message),
        status_code=error.status,
        media_type="application/json",
        headers=headers if headers is not None else error.headers,
    )
