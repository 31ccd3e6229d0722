"""Typed exceptions raised by iceview.

Messages follow Apache Iceberg Java 1.10 word for word where Java has a message for the same
failure, so that errors read the same whichever implementation raised them. Each class notes the
Java exception it corresponds to.
"""

from __future__ import annotations

__all__ = [
    "AlreadyExistsError",
    "AmbiguousFunctionCallError",
    "BadRequestError",
    "CatalogError",
    "CommitFailedError",
    "CommitStateUnknownError",
    "DialectDropError",
    "DialectsRefusedError",
    "ForbiddenError",
    "FunctionAlreadyExistsError",
    "FunctionInliningError",
    "FunctionResolutionError",
    "FunctionUUIDMismatchError",
    "IceviewError",
    "InvalidArgumentError",
    "InvalidIdentifierError",
    "InvalidMetadataError",
    "InvalidNameError",
    "InvalidStateError",
    "InvalidUpdateError",
    "LocationOutsideWarehouseError",
    "MissingDialectError",
    "NamespaceAlreadyExistsError",
    "NamespaceNotEmptyError",
    "NoMatchingDefinitionError",
    "NoSuchFunctionError",
    "NoSuchIcebergViewError",
    "NoSuchNamespaceError",
    "NoSuchTableError",
    "NoSuchViewError",
    "NotAuthorizedError",
    "NotFoundError",
    "RESTError",
    "SQLParseError",
    "ServiceUnavailableError",
    "TableAlreadyExistsError",
    "TranslationError",
    "UnsupportedOperationError",
    "ValidationError",
    "ViewAlreadyExistsError",
    "ViewCycleError",
    "ViewExpansionError",
    "ViewTranslationRefusedError",
    "ViewUUIDMismatchError",
]


class IceviewError(Exception):
    """Base class of every exception iceview raises on purpose."""


class InvalidMetadataError(IceviewError, ValueError):
    """View metadata that cannot be read: malformed JSON, a missing or mistyped field, a lazily
    detected dangling id. ``message`` is Java's text, ``path`` the JSON path of the bad field
    (``$`` for the whole document) and ``location`` the file, when known."""

    def __init__(self, message: str, path: str = "$", location: str | None = None) -> None:
        self.message = message
        self.path = path
        self.location = location
        super().__init__(message)

    def with_location(self, location: str) -> InvalidMetadataError:
        """The same error, naming the file it came from."""
        return InvalidMetadataError(self.message, self.path, location)

    def __str__(self) -> str:
        where = f"at {self.path}"
        if self.location:
            where += f" in {self.location}"
        return f"{self.message} ({where})"


class InvalidArgumentError(IceviewError, ValueError):
    """A bad argument (Java ``IllegalArgumentException``)."""


class InvalidStateError(IceviewError, RuntimeError):
    """An operation that the current state does not allow (Java ``IllegalStateException``)."""


class ValidationError(IceviewError, ValueError):
    """A rule of the format was broken (Java ``ValidationException``)."""


class InvalidUpdateError(InvalidArgumentError, ValidationError):
    """A view update that cannot be applied to the metadata it is committed on. ``action`` names
    the update (``add-view-version``, ...), ``index`` is its 0-based position in the change and
    ``reason`` the builder's (Java's) message."""

    def __init__(self, reason: str, action: str, index: int) -> None:
        self.reason = reason
        self.action = action
        self.index = index
        super().__init__(f"{reason} (update {index}: {action})")


class DialectDropError(InvalidStateError):
    """A replace or rollback would lose SQL dialects of the current version while
    ``replace.drop-dialect.allowed`` is not true (Java's ``IllegalStateException`` with the
    three-line message). ``previous`` and ``new`` are the dialect sets, in Java's order."""

    def __init__(self, message: str, previous: list[str], new: list[str]) -> None:
        self.previous = previous
        self.new = new
        super().__init__(message)


class LocationOutsideWarehouseError(InvalidArgumentError):
    """A location iceview would write to or delete from lies outside the catalog's warehouse (after
    ``..``, relative paths, ``file:`` spellings and symlinks are resolved), and the catalog does not
    allow external locations (``iceview.allow-external-locations``). ``role`` says what the
    location is (``view location``, ``write.metadata.path``, ``metadata-log entry``, ...),
    ``location`` is the location as given and ``warehouse`` the root it had to stay in. The message
    names the role and the location only. A REST server answers it with 403 ``ForbiddenException``.
    Java confines nothing."""

    def __init__(self, role: str, location: str, warehouse: str) -> None:
        self.role = role
        self.location = location
        self.warehouse = warehouse
        shown = location if len(location) <= 300 else location[:300] + "..."
        super().__init__(f"{role[:1].upper()}{role[1:]} {shown!r} lies outside the catalog's warehouse")


class UnsupportedOperationError(IceviewError, NotImplementedError):
    """Java ``UnsupportedOperationException``, e.g. views on a JDBC catalog without view support."""


class InvalidIdentifierError(InvalidArgumentError):
    """An identifier that is empty or would escape the warehouse when turned into a location."""


class InvalidNameError(InvalidIdentifierError):
    """A new name longer than iceview allows (``iceview.identifiers.MAX_NAME_LENGTH`` characters,
    ``MAX_NAME_BYTES`` bytes), or one that makes a path the file system cannot hold."""


class NotFoundError(IceviewError, FileNotFoundError):
    """A file that should exist does not (Java ``NotFoundException``)."""


class CatalogError(IceviewError):
    """The catalog's database failed (Java ``UncheckedSQLException``)."""


class NoSuchCatalogError(CatalogError, LookupError):
    """A catalog name that is configured nowhere (no ``.pyiceberg.yaml`` entry, no
    ``PYICEBERG_CATALOG__<NAME>__*`` variable, no properties given), other than the default name."""


class RESTError(CatalogError):
    """A REST catalog answered with an error no more specific class fits, or with a response that
    cannot be read. ``code`` is the HTTP status (None when no response came) and ``error_type`` the
    server's ``IcebergErrorResponse`` type (``ServiceFailureException``, ...), when it sent one."""

    def __init__(self, message: str, code: int | None = None, error_type: str | None = None) -> None:
        self.code = code
        self.error_type = error_type
        super().__init__(message)


class NotAuthorizedError(RESTError):
    """The REST catalog refused the credentials (HTTP 401, Java ``NotAuthorizedException``), or the
    OAuth2 server refused to issue a token. The message never shows the secret."""


class ForbiddenError(RESTError):
    """The REST catalog does not allow this call to these credentials (HTTP 403, Java
    ``ForbiddenException``)."""


class ServiceUnavailableError(RESTError):
    """The REST catalog is unavailable (HTTP 503, Java ``ServiceUnavailableException``), or could
    not be reached at all. Nothing was changed."""


class BadRequestError(RESTError, InvalidArgumentError):
    """The REST catalog rejected a malformed request (HTTP 400, Java ``BadRequestException``)."""


class NoSuchNamespaceError(IceviewError, LookupError):
    """Java ``NoSuchNamespaceException``."""


class NoSuchViewError(IceviewError, LookupError):
    """Java ``NoSuchViewException``."""


class NoSuchIcebergViewError(NoSuchViewError):
    """The name holds something that is not an Iceberg view, e.g. a plain Hive view
    (Java ``NoSuchIcebergViewException``)."""


class NoSuchFunctionError(IceviewError, LookupError):
    """No SQL UDF with that name (Iceberg's REST spec: ``NoSuchFunctionException``)."""


class FunctionResolutionError(IceviewError, LookupError):
    """A call of a SQL UDF that no definition takes, or that several take equally well after safe
    widening (the UDF spec's resolution rules): the caller must cast its arguments."""


class NoMatchingDefinitionError(FunctionResolutionError):
    """No definition of the function takes the call's arguments (same count, each argument of the
    parameter's type or safely widened to it)."""


class AmbiguousFunctionCallError(FunctionResolutionError):
    """Several definitions take the call's arguments and none is at least as close in every one."""


class NoSuchTableError(IceviewError, LookupError):
    """Java ``NoSuchTableException``."""


class AlreadyExistsError(IceviewError):
    """Java ``AlreadyExistsException``."""


class ViewAlreadyExistsError(AlreadyExistsError):
    """A view with that name exists."""


class FunctionAlreadyExistsError(AlreadyExistsError):
    """A SQL UDF with that name exists."""


class TableAlreadyExistsError(AlreadyExistsError):
    """A table with that name exists where a view was to be created, replaced or renamed to."""


class NamespaceAlreadyExistsError(AlreadyExistsError):
    """Java ``AlreadyExistsException`` for namespaces."""


class NamespaceNotEmptyError(IceviewError):
    """Java ``NamespaceNotEmptyException``."""


class CommitFailedError(IceviewError):
    """The commit definitely failed, e.g. the pointer moved under us and the retries ran out.
    Nothing was changed (Java ``CommitFailedException``)."""


class CommitStateUnknownError(IceviewError):
    """The outcome of a commit is unknown, e.g. the connection dropped after the swap was sent.
    The new metadata file is kept, because the catalog may point at it
    (Java ``CommitStateUnknownException``)."""


class ViewUUIDMismatchError(InvalidStateError):
    """A refresh found metadata whose ``view-uuid`` differs from the one loaded before: the name now
    points at another view (e.g. it was dropped and created again). The view spec requires an
    exception here."""


class FunctionUUIDMismatchError(InvalidStateError):
    """A refresh found function metadata whose ``function-uuid`` differs from the one loaded
    before: the name now points at another function (the view rule, kept for functions)."""


class SQLParseError(IceviewError, ValueError):
    """SQL that cannot be parsed, e.g. a view statement with a broken column list. ``offset`` is the
    0-based character offset of the problem in ``sql``, ``line`` its 1-based line and ``pos`` its
    0-based position in that line (Spark's ``line 1, pos 17`` convention); all three are ``None``
    when unknown."""

    def __init__(
        self,
        message: str,
        sql: str | None = None,
        offset: int | None = None,
        line: int | None = None,
        pos: int | None = None,
    ) -> None:
        self.message = message
        self.sql = sql
        self.offset = offset
        self.line = line
        self.pos = pos
        super().__init__(message)

    def __str__(self) -> str:
        if self.line is None or self.pos is None:
            return self.message
        return f"{self.message} (line {self.line}, pos {self.pos})"


class ViewExpansionError(IceviewError, ValueError):
    """A view reference that cannot be expanded into SQL: invalid view text, a query whose column count
    does not fit the view's schema, nesting deeper than the limit, a type the engine cannot cast to."""


class ViewCycleError(ViewExpansionError):
    """A view that references itself, directly or through other views. ``cycle`` is the path of names,
    each a tuple of parts, from the view back to itself. The message follows Iceberg-Spark's
    ``Recursive cycle in view detected: %s (cycle: %s)``."""

    def __init__(self, message: str, view: tuple[str, ...], cycle: tuple[tuple[str, ...], ...]) -> None:
        self.view = view
        self.cycle = cycle
        super().__init__(message)


class FunctionInliningError(ViewExpansionError):
    """A call of a SQL UDF that iceview does not inline into an engine's SQL, refused rather than
    guessed. ``code`` names the reason (``UDF_ARGUMENT_UNTYPED``, ``UDF_NONDETERMINISTIC_ARGUMENT``,
    ``UDF_BODY_UNSUPPORTED``, ``UDF_BODY_UNKNOWN_NAME``, ``UDF_CALL_FORM``, ``UDF_TABLE_FUNCTION``,
    ``UDF_NO_DIALECT``, ``UDF_BODY_TRANSLATION_REFUSED``, ``UDF_NESTING``, ``UDF_NO_SUCH_FUNCTION``,
    ``UDF_PARAMETER_AMBIGUOUS``); the message says the call, the function and what to do."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(f"{code}: {message}")


class TranslationError(ViewExpansionError):
    """A view whose SQL is in another dialect than the engine's, with no translation asked for or
    possible."""


class DialectsRefusedError(TranslationError):
    """Translations into several dialects refused at once. ``errors`` maps each refused dialect to
    its own :class:`TranslationError` (for an unsafe construct, ``UnsafeTranslationError`` with its
    ``issues``), in the order the dialects were asked for."""

    def __init__(self, source: str, errors: dict[str, TranslationError]) -> None:
        self.source = source
        self.errors = dict(errors)
        shown = "; ".join(f"{dialect}: {error}" for dialect, error in self.errors.items())
        super().__init__(f"Cannot translate {source} SQL to {', '.join(self.errors)}: {shown}")


class MissingDialectError(TranslationError):
    """A view with no SQL for the dialect an engine reads. ``view`` names it, ``dialect`` is the one
    asked for and ``dialects`` the ones it has; ``hint`` (e.g. how to translate) ends the message."""

    def __init__(self, view: str, dialect: str, dialects: tuple[str, ...], hint: str | None = None) -> None:
        self.view = view
        self.dialect = dialect
        self.dialects = dialects
        self.hint = hint
        have = ", ".join(dialects) or "none"
        self.problem = f"View {view} has no SQL for dialect {dialect} (its dialects: {have})"
        super().__init__(self.problem + (f"; {hint}" if hint else ""))


class ViewTranslationRefusedError(MissingDialectError):
    """A view with no SQL for the engine's dialect whose translation from another of its dialects
    was refused. The message names the view, the dialects it has and every refused construct;
    ``source`` is the dialect it was translated from, ``refusal`` the translator's error, and
    ``issues`` and ``codes`` its refused constructs (empty when the SQL did not parse)."""

    def __init__(
        self, view: str, dialect: str, dialects: tuple[str, ...], source: str, refusal: TranslationError
    ) -> None:
        self.source = source
        self.refusal = refusal
        self.issues: tuple[object, ...] = tuple(getattr(refusal, "issues", ()))
        self.codes: tuple[str, ...] = tuple(getattr(refusal, "codes", ()))
        super().__init__(view, dialect, dialects, f"translating its {source} SQL was refused: {refusal}")
