"""Every failure of a request as an ``IcebergErrorResponse`` with the right status.

The mapping follows Iceberg Java's ``RESTCatalogAdapter`` (exception class to status code), with
iceview's and PyIceberg's typed errors under the Java type names that REST clients know. Input
that breaks a rule of the spec is a 400, never a 500: only an unknown commit outcome (or a bug,
logged with its traceback and answered without one) is a 5xx.
"""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass

import orjson
from pyiceberg import exceptions as pyi
from starlette.responses import Response

from iceview import errors as ice

__all__ = ["ApiError", "error_body", "error_response", "from_exception"]

log = logging.getLogger("iceview.server")


class ApiError(Exception):
    """A request the server refuses, with the status and Java type name to answer with."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message


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
    (ice.NoSuchTableError, _Rule(404, "NoSuchTableException")),
    (ice.NoSuchNamespaceError, _Rule(404, "NoSuchNamespaceException")),
    (ice.AlreadyExistsError, _Rule(409, "AlreadyExistsException")),
    (ice.NamespaceNotEmptyError, _Rule(409, "NamespaceNotEmptyException")),
    (ice.CommitFailedError, _Rule(409, "CommitFailedException")),
    (ice.CommitStateUnknownError, _Rule(500, "CommitStateUnknownException")),
    (ice.ServiceUnavailableError, _Rule(503, "ServiceUnavailableException")),
    (ice.UnsupportedOperationError, _Rule(406, "UnsupportedOperationException")),
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


def error_body(status: int, error_type: str, message: str) -> bytes:
    """An ``IcebergErrorResponse`` document."""
    return orjson.dumps({"error": {"message": message, "type": error_type, "code": status}})


def error_response(error: ApiError, headers: dict[str, str] | None = None) -> Response:
    """The HTTP response for ``error``."""
    return Response(
        error_body(error.status, error.error_type, error.message),
        status_code=error.status,
        media_type="application/json",
        headers=headers,
    )
