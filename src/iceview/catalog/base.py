"""What every view catalog shares: the metadata-pointer contract and the commit loop.

This is the Python counterpart of Iceberg Java's ``BaseViewOperations`` and
``BaseMetastoreViewCatalog``:

* :class:`ViewOperations` holds one view's current metadata and its location. ``refresh()`` asks the
  metastore where the pointer is and reads that file; ``commit(base, new)`` writes a new metadata
  file and asks the metastore to swap the pointer from ``base``'s file to it (compare-and-swap).
  A definite failure deletes the file it wrote; an unknown outcome keeps it.
* :func:`commit_with_retries` is the optimistic loop: refresh, re-apply the change to the fresh base,
  commit, and on :class:`~iceview.errors.CommitFailedError` sleep and try again, with the
  ``commit.retry.*`` view properties (Java's defaults: 4 retries, 100 ms to 60 s, 30 min in all,
  doubling).
* :class:`MetastoreViewCatalog` implements the view API (create, replace, load, register) on top of a
  metastore that supplies :meth:`~MetastoreViewCatalog.new_view_ops` and the name look-ups. The SQL
  catalog (:mod:`iceview.catalog.sql`) is one; a REST catalog would implement :class:`Catalog`
  directly.
"""

from __future__ import annotations

import logging
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, Union

from pyiceberg.io import FileIO, load_file_io
from pyiceberg.schema import Schema

import iceview
from iceview import files
from iceview.catalog.identifiers import (
    IdentifierLike,
    NamespaceLike,
    ViewIdentifier,
    to_identifier,
)
from iceview.errors import (
    CommitFailedError,
    CommitStateUnknownError,
    InvalidArgumentError,
    InvalidMetadataError,
    InvalidStateError,
    NoSuchViewError,
    TableAlreadyExistsError,
    ViewAlreadyExistsError,
    ViewUUIDMismatchError,
)
from iceview.spec import SQLRepresentation, ViewMetadata, ViewVersion

if TYPE_CHECKING:
    from iceview.view import View

__all__ = [
    "COMMIT_MAX_RETRY_WAIT_MS",
    "COMMIT_MIN_RETRY_WAIT_MS",
    "COMMIT_NUM_RETRIES",
    "COMMIT_TOTAL_RETRY_TIME_MS",
    "GC_ENABLED",
    "VIEW_DEFAULT_PREFIX",
    "VIEW_OVERRIDE_PREFIX",
    "Catalog",
    "MetastoreViewCatalog",
    "NamespacePropertiesUpdate",
    "Queries",
    "RetryPolicy",
    "ViewOperations",
    "commit_with_retries",
    "environment_summary",
    "property_as_bool",
    "property_as_int",
    "source_representation",
    "translate_representations",
]

log = logging.getLogger(__name__)

# View properties (Java ViewProperties / TableProperties) and catalog properties (CatalogProperties)
GC_ENABLED = "gc.enabled"
COMMIT_NUM_RETRIES = "commit.retry.num-retries"
COMMIT_MIN_RETRY_WAIT_MS = "commit.retry.min-wait-ms"
COMMIT_MAX_RETRY_WAIT_MS = "commit.retry.max-wait-ms"
COMMIT_TOTAL_RETRY_TIME_MS = "commit.retry.total-timeout-ms"
VIEW_DEFAULT_PREFIX = "view-default."
VIEW_OVERRIDE_PREFIX = "view-override."

# ``queries``: dialect -> SQL, or (dialect, SQL) pairs / SQLRepresentation in order (Java's withQuery)
Queries = Union[Mapping[str, str], Iterable[tuple[str, str] | SQLRepresentation]]  # noqa: UP007

T = TypeVar("T")
_INT = re.compile(r"[+-]?[0-9]+")


# ----------------------------------------------------------------------------- properties


def property_as_int(properties: Mapping[str, str], key: str, default: int) -> int:
    """Java's ``PropertyUtil.propertyAsInt``: ``Integer.parseInt`` of the value, else ``default``."""
    value = properties.get(key)
    if value is None:
        return default
    if not _INT.fullmatch(value) or not -(2**31) <= int(value) < 2**31:
        raise InvalidArgumentError(f'For input string: "{value}" (property {key})')
    return int(value)


def property_as_bool(properties: Mapping[str, str], key: str, default: bool) -> bool:
    """Java's ``PropertyUtil.propertyAsBoolean``: ``Boolean.parseBoolean`` (only a case-insensitive
    ``"true"`` is true) when the key is set, else ``default``."""
    value = properties.get(key)
    if value is None:
        return default
    return value.lower() == "true"


def properties_with_prefix(properties: Mapping[str, str], prefix: str) -> dict[str, str]:
    """Java's ``PropertyUtil.propertiesWithPrefix``: matching keys with the prefix stripped."""
    return {k[len(prefix) :]: v for k, v in properties.items() if k.startswith(prefix)}


def environment_summary() -> dict[str, str]:
    """The summary of every version iceview makes (Java puts its ``EnvironmentContext`` there)."""
    return {"engine-name": "iceview", "engine-version": iceview.__version__}


# ----------------------------------------------------------------------------- retries


@dataclass(frozen=True)
class RetryPolicy:
    """Java's ``Tasks...retry(n).exponentialBackoff(min, max, total, scale)``: ``num_retries`` more
    attempts after the first; the wait before attempt ``k+1`` is ``min(min_wait * scale**(k-1),
    max_wait)`` plus up to 10% jitter; no new attempt starts after ``total_timeout`` (but there is
    always a second one)."""

    num_retries: int = 4
    min_wait_ms: int = 100
    max_wait_ms: int = 60_000
    total_timeout_ms: int = 1_800_000
    scale: float = 2.0

    @classmethod
    def from_properties(cls, properties: Mapping[str, str]) -> RetryPolicy:
        """The ``commit.retry.*`` view properties, with Java's defaults."""
        return cls(
            num_retries=property_as_int(properties, COMMIT_NUM_RETRIES, 4),
            min_wait_ms=property_as_int(properties, COMMIT_MIN_RETRY_WAIT_MS, 100),
            max_wait_ms=property_as_int(properties, COMMIT_MAX_RETRY_WAIT_MS, 60_000),
            total_timeout_ms=property_as_int(properties, COMMIT_TOTAL_RETRY_TIME_MS, 1_800_000),
        )

    def delay_ms(self, attempt: int) -> int:
        """The wait after failed attempt number ``attempt`` (1-based), jitter included."""
        delay = int(min(self.min_wait_ms * self.scale ** (attempt - 1), float(self.max_wait_ms)))
        return delay + random.randrange(max(1, int(delay * 0.1)))

    def run(
        self, task: Callable[[], T], retry_on: tuple[type[BaseException], ...] = (CommitFailedError,)
    ) -> T:
        """Run ``task`` until it succeeds, raises something else, or the retries run out."""
        start = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                return task()
            except retry_on as e:
                elapsed_ms = (time.monotonic() - start) * 1000
                if attempt >= self.num_retries + 1 or (elapsed_ms > self.total_timeout_ms and attempt > 1):
                    raise
                sleep_ms = self.delay_ms(attempt)
                log.debug("Retrying commit after failure: sleepTimeMs=%s %s", sleep_ms, e)
                time.sleep(sleep_ms / 1000.0)


# ----------------------------------------------------------------------------- file I/O


def _read_metadata(io: FileIO, location: str) -> ViewMetadata:
    """Read a metadata file; errors name the file (``NotFoundError``, ``InvalidMetadataError``)."""
    try:
        return files.read_metadata(location, io=io)
    except InvalidMetadataError as e:
        if e.location:
            raise
        raise e.with_location(location) from e


def _with_location(metadata: ViewMetadata, location: str) -> ViewMetadata:
    """``metadata`` with ``metadata_file_location`` set (the content is unchanged)."""
    return metadata.with_metadata_file_location(location)


def delete_file_quietly(io: FileIO, location: str) -> None:
    """Best-effort delete (cleanup of an orphan, or a drop with gc.enabled)."""
    try:
        files.delete_file(location, io=io)
    except Exception as e:
        log.warning("Failed to delete metadata file %s: %s", location, e)


# ----------------------------------------------------------------------------- operations


class ViewOperations(ABC):
    """One view's metadata pointer: Java's ``BaseViewOperations``.

    Subclasses implement :meth:`do_refresh` (where does the metastore point?) and :meth:`do_commit`
    (swap the pointer). This class reads and writes the metadata files, names them as Java does,
    enforces the view-uuid rule on refresh and cleans up after definite failures.
    """

    def __init__(self, identifier: ViewIdentifier, io: FileIO, full_name: str) -> None:
        self.identifier = identifier
        self.io = io
        self.full_name = full_name
        self._current: ViewMetadata | None = None
        self._current_location: str | None = None
        self._should_refresh = True

    # -- to implement --------------------------------------------------------------------------
    @abstractmethod
    def do_refresh(self) -> str | None:
        """The metadata location the metastore points at, or None when there is no such view.
        Java raises ``NoSuchViewException`` when the view disappeared after having been loaded;
        :meth:`refresh` does that from a None."""

    @abstractmethod
    def do_commit(self, base: ViewMetadata | None, new_location: str) -> None:
        """Swap the pointer from ``base``'s file (``None``: create the entry) to ``new_location``.

        Raise :class:`CommitFailedError` (or another iceview error) when the swap definitely did
        not happen, and :class:`CommitStateUnknownError` when it may have."""

    # -- state -----------------------------------------------------------------------------------
    @property
    def current_metadata_location(self) -> str | None:
        return self._current_location

    def request_refresh(self) -> None:
        self._should_refresh = True

    def current(self) -> ViewMetadata | None:
        """The metadata as last loaded; refreshed first only if a commit asked for it."""
        if self._should_refresh:
            return self.refresh()
        return self._current

    def refresh(self) -> ViewMetadata | None:
        """Ask the metastore and load the file it points at (only if it changed)."""
        had_metadata = self._current_location is not None
        location = self.do_refresh()
        if location is None:
            if had_metadata:
                self._current = None
                self._current_location = None
                self._should_refresh = True
                raise NoSuchViewError(f"View does not exist: {self.identifier}")
            self._should_refresh = False
            return None
        self.refresh_from_location(location)
        return self._current

    def refresh_from_location(self, location: str) -> None:
        if location != self._current_location:
            log.debug("Refreshing view metadata from new version: %s", location)
            metadata = _read_metadata(self.io, location)
            if self._current is not None and metadata.uuid.lower() != self._current.uuid.lower():
                raise ViewUUIDMismatchError(
                    f"View UUID does not match: current={self._current.uuid} != refreshed={metadata.uuid} "
                    f"(view {self.identifier}, metadata file {location})"
                )
            self._current = metadata
            self._current_location = location
        self._should_refresh = False

    # -- commit ----------------------------------------------------------------------------------
    def commit(self, base: ViewMetadata | None, metadata: ViewMetadata) -> ViewMetadata:
        """Commit ``metadata`` on top of ``base`` (None to create); returns the committed metadata
        (with its file location). Java's ``BaseViewOperations.commit``."""
        current = self.current()
        if base is not current:
            if base is not None:
                raise CommitFailedError("Cannot commit: stale view metadata")
            raise ViewAlreadyExistsError(f"View already exists: {self.identifier}")
        if base is metadata:
            log.info("Nothing to commit.")
            return metadata
        start = time.monotonic()
        written = metadata.metadata_file_location is None
        if written:
            new_location = files.new_metadata_location(
                metadata.location, metadata.properties, self._current_location
            )
            files.write_metadata(metadata, new_location, io=self.io)
            committed = _with_location(metadata, new_location)
        else:
            registered = metadata.metadata_file_location
            assert registered is not None
            new_location = registered
            committed = metadata
        try:
            self.do_commit(base, new_location)
        except CommitStateUnknownError:
            # the pointer may hold the new file: keep it
            self.request_refresh()
            raise
        except BaseException:
            # a definite failure (or an interrupt before anything was sent): the file is an orphan
            if written:
                delete_file_quietly(self.io, new_location)
            raise
        self._current = committed
        self._current_location = new_location
        # as Java: the next current() asks the metastore again (cheap: the file is not re-read
        # while the pointer still holds it)
        self._should_refresh = True
        log.info(
            "Successfully committed to view %s in %d ms", self.full_name, (time.monotonic() - start) * 1000
        )
        return committed


def commit_with_retries(ops: ViewOperations, apply: Callable[[ViewMetadata], ViewMetadata]) -> ViewMetadata:
    """Refresh, apply, commit; on :class:`CommitFailedError` refresh and try again, with the
    ``commit.retry.*`` properties of the first refreshed metadata. Errors raised by ``apply``
    (e.g. an unknown version id) are not retried. Returns the committed metadata."""
    first = ops.refresh()
    if first is None:
        raise NoSuchViewError(f"View does not exist: {ops.identifier}")
    policy = RetryPolicy.from_properties(first.properties)
    pending: list[ViewMetadata] = [first]

    def attempt() -> ViewMetadata:
        fresh = pending.pop() if pending else ops.refresh()
        if fresh is None:
            raise NoSuchViewError(f"View does not exist: {ops.identifier}")
        return ops.commit(fresh, apply(fresh))

    return policy.run(attempt)


# ----------------------------------------------------------------------------- catalogs


@dataclass(frozen=True)
class NamespacePropertiesUpdate:
    """What :meth:`Catalog.update_namespace_properties` did (PyIceberg's ``PropertiesUpdateSummary``)."""

    removed: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def _representations(queries: Queries | None) -> list[SQLRepresentation]:
    if queries is None:
        return []
    if isinstance(queries, Mapping):
        return [SQLRepresentation(sql, dialect) for dialect, sql in queries.items()]
    out: list[SQLRepresentation] = []
    for q in queries:
        if isinstance(q, SQLRepresentation):
            out.append(q)
        else:
            dialect, sql = q
            out.append(SQLRepresentation(sql, dialect))
    return out


def source_representation(representations: Sequence[SQLRepresentation]) -> SQLRepresentation:
    """The representation translations start from: ``spark`` when there is one, else the first."""
    for rep in representations:
        if rep.dialect.lower() == "spark":
            return rep
    return representations[0]


def translate_representations(
    representations: Sequence[SQLRepresentation],
    dialects: Iterable[str],
    *,
    default_catalog: str,
    default_namespace: Sequence[str],
    known_catalogs: Iterable[str] = (),
    schemas: Callable[[str, str], Mapping[tuple[str, ...], Schema]] | None = None,
    source: str | None = None,
    strict: bool = True,
) -> list[SQLRepresentation]:
    """New representations for the ``dialects`` that ``representations`` lack, translated from
    ``source`` (default: :func:`source_representation`) with :func:`iceview.sql.translate`.
    Dialects are compared lower-cased; one already present is not translated again."""
    from iceview.sql.translate import translate

    if source is not None:
        found = [r for r in representations if r.dialect.lower() == source.lower()]
        if not found:
            have = ", ".join(r.dialect for r in representations) or "none"
            raise InvalidArgumentError(
                f"Cannot translate from {source}: the version has no SQL for it (its dialects: {have})"
            )
        src = found[0]
    else:
        src = source_representation(representations)
    present = {r.dialect.lower() for r in representations}
    wanted: list[str] = []
    for d in dialects:
        name = d.strip().lower()
        if not name:
            raise InvalidArgumentError("Invalid dialect: blank")
        if name not in present and name not in wanted:
            wanted.append(name)
    if not wanted:
        return []
    known = {default_catalog, *known_catalogs}
    relation_schemas = schemas(src.sql, src.dialect.lower()) if schemas is not None else None
    out = []
    for d in wanted:
        result = translate(
            src.sql,
            src.dialect.lower(),
            d,
            default_catalog=default_catalog,
            default_namespace=default_namespace,
            known_catalogs=known,
            schemas=relation_schemas,
            strict=strict,
        )
        out.append(SQLRepresentation(result.sql, d))
    return out


def _default_namespace(namespace: NamespaceLike | None) -> tuple[str, ...] | None:
    if namespace is None:
        return None
    if isinstance(namespace, str):
        return tuple(namespace.split(".")) if namespace else ()
    return tuple(namespace)


@dataclass(frozen=True)
class _Definition:
    """A view definition as a create or replace call gives it (Java's ``ViewBuilder`` state)."""

    schema: Schema | None
    representations: list[SQLRepresentation]
    default_namespace: tuple[str, ...] | None
    default_catalog: str | None
    properties: Mapping[str, str] | None
    location: str | None
    summary: Mapping[str, str] | None


class Catalog(ABC):
    """The view catalog API. Identifiers are ``"ns.name"`` strings or tuples of levels; namespaces
    are ``"a.b"`` strings or tuples."""

    def __init__(self, name: str, properties: Mapping[str, str]) -> None:
        self.name = name
        self.properties: dict[str, str] = dict(properties)

    # views
    @abstractmethod
    def create_view(
        self,
        identifier: IdentifierLike,
        *,
        schema: Schema | None = None,
        queries: Queries | None = None,
        default_namespace: NamespaceLike | None = None,
        default_catalog: str | None = None,
        properties: Mapping[str, str] | None = None,
        location: str | None = None,
        summary: Mapping[str, str] | None = None,
        dialects: Sequence[str] | None = None,
    ) -> View: ...

    @abstractmethod
    def replace_view(
        self,
        identifier: IdentifierLike,
        *,
        schema: Schema | None = None,
        queries: Queries | None = None,
        default_namespace: NamespaceLike | None = None,
        default_catalog: str | None = None,
        properties: Mapping[str, str] | None = None,
        location: str | None = None,
        summary: Mapping[str, str] | None = None,
        dialects: Sequence[str] | None = None,
    ) -> View: ...

    @abstractmethod
    def create_or_replace_view(
        self,
        identifier: IdentifierLike,
        *,
        schema: Schema | None = None,
        queries: Queries | None = None,
        default_namespace: NamespaceLike | None = None,
        default_catalog: str | None = None,
        properties: Mapping[str, str] | None = None,
        location: str | None = None,
        summary: Mapping[str, str] | None = None,
        dialects: Sequence[str] | None = None,
    ) -> View: ...

    @abstractmethod
    def load_view(self, identifier: IdentifierLike) -> View: ...

    @abstractmethod
    def view_exists(self, identifier: IdentifierLike) -> bool: ...

    @abstractmethod
    def list_views(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]: ...

    @abstractmethod
    def drop_view(self, identifier: IdentifierLike) -> bool: ...

    @abstractmethod
    def rename_view(self, from_identifier: IdentifierLike, to_identifier: IdentifierLike) -> None: ...

    @abstractmethod
    def register_view(self, identifier: IdentifierLike, metadata_location: str) -> View: ...

    # tables (read-only: tables belong to PyIceberg / Iceberg Java)
    @abstractmethod
    def table_exists(self, identifier: IdentifierLike) -> bool: ...

    @abstractmethod
    def list_tables(self, namespace: NamespaceLike) -> list[tuple[str, ...]]: ...

    # namespaces
    @abstractmethod
    def create_namespace(
        self, namespace: NamespaceLike, properties: Mapping[str, str] | None = None
    ) -> None: ...

    @abstractmethod
    def list_namespaces(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]: ...

    @abstractmethod
    def namespace_exists(self, namespace: NamespaceLike) -> bool: ...

    @abstractmethod
    def load_namespace_properties(self, namespace: NamespaceLike) -> dict[str, str]: ...

    @abstractmethod
    def update_namespace_properties(
        self,
        namespace: NamespaceLike,
        removals: Iterable[str] | None = None,
        updates: Mapping[str, str] | None = None,
    ) -> NamespacePropertiesUpdate: ...

    @abstractmethod
    def drop_namespace(self, namespace: NamespaceLike) -> bool: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class MetastoreViewCatalog(Catalog):
    """The view API over a metastore: Java's ``BaseMetastoreViewCatalog`` (+ ``BaseViewBuilder``).

    Subclasses supply :meth:`new_view_ops`, :meth:`table_exists`, :meth:`view_exists`,
    :meth:`default_view_location` and the rest of :class:`Catalog`.
    """

    def __init__(self, name: str, properties: Mapping[str, str]) -> None:
        super().__init__(name, properties)
        self._io: FileIO | None = None

    @property
    def io(self) -> FileIO:
        """PyIceberg's FileIO for the catalog properties (``py-io-impl``, ``s3.*``, ...)."""
        if self._io is None:
            self._io = load_file_io(self.properties, self.properties.get("warehouse"))
        return self._io

    @abstractmethod
    def new_view_ops(self, identifier: ViewIdentifier) -> ViewOperations: ...

    @abstractmethod
    def default_view_location(self, identifier: ViewIdentifier) -> str: ...

    def full_view_name(self, identifier: ViewIdentifier) -> str:
        """Java's ``ViewUtil.fullViewName``: ``<catalog>.<ns>.<name>``."""
        return f"{self.name}.{identifier}"

    def _view(self, ops: ViewOperations) -> View:
        from iceview.view import View

        return View(ops, self.full_view_name(ops.identifier), catalog=self)

    # -- load ------------------------------------------------------------------------------------
    def load_view(self, identifier: IdentifierLike) -> View:
        ident = to_identifier(identifier)
        ops = self.new_view_ops(ident)
        if ops.current() is None:
            raise NoSuchViewError(f"View does not exist: {ident}")
        return self._view(ops)

    # -- create / replace (BaseViewBuilder) ------------------------------------------------------
    def _definition(
        self,
        schema: Schema | None,
        queries: Queries | None,
        default_namespace: NamespaceLike | None,
        default_catalog: str | None,
        properties: Mapping[str, str] | None,
        location: str | None,
        summary: Mapping[str, str] | None,
        dialects: Sequence[str] | None,
    ) -> _Definition:
        """What a create or replace call asked for (Java's ``ViewBuilder`` state), with the
        translations of ``dialects`` added."""
        namespace = _default_namespace(default_namespace)
        representations, summary = self._with_dialects(
            _representations(queries), dialects, default_catalog, namespace, summary
        )
        return _Definition(schema, representations, namespace, default_catalog, properties, location, summary)

    def _builder_properties(self, properties: Mapping[str, str] | None) -> dict[str, str]:
        props = properties_with_prefix(self.properties, VIEW_DEFAULT_PREFIX)
        if properties:
            props.update(properties)
        return props

    def _check_definition(
        self,
        verb: str,
        representations: Sequence[SQLRepresentation],
        schema: Schema | None,
        default_namespace: tuple[str, ...] | None,
    ) -> tuple[Schema, tuple[str, ...]]:
        if not representations:
            raise InvalidStateError(f"Cannot {verb} view without specifying a query")
        if schema is None:
            raise InvalidStateError(f"Cannot {verb} view without specifying schema")
        if default_namespace is None:
            raise InvalidStateError(f"Cannot {verb} view without specifying a default namespace")
        return schema, default_namespace

    def create_view(
        self,
        identifier: IdentifierLike,
        *,
        schema: Schema | None = None,
        queries: Queries | None = None,
        default_namespace: NamespaceLike | None = None,
        default_catalog: str | None = None,
        properties: Mapping[str, str] | None = None,
        location: str | None = None,
        summary: Mapping[str, str] | None = None,
        dialects: Sequence[str] | None = None,
    ) -> View:
        definition = self._definition(
            schema, queries, default_namespace, default_catalog, properties, location, summary, dialects
        )
        return self._create(self.new_view_ops(to_identifier(identifier)), definition)

    def _create(self, ops: ViewOperations, d: _Definition) -> View:
        ident = ops.identifier
        properties = self._builder_properties(d.properties)
        if ops.current() is not None:
            raise ViewAlreadyExistsError(f"View already exists: {ident}")
        schema, namespace = self._check_definition("create", d.representations, d.schema, d.default_namespace)
        version = ViewVersion(
            version_id=1,
            timestamp_ms=int(time.time() * 1000),
            schema_id=schema.schema_id,
            summary={**environment_summary(), **(d.summary or {})},
            representations=tuple(d.representations),
            default_namespace=namespace,
            default_catalog=d.default_catalog,
        )
        properties.update(properties_with_prefix(self.properties, VIEW_OVERRIDE_PREFIX))
        metadata = (
            ViewMetadata.builder()
            .set_properties(properties)
            .set_location(d.location if d.location is not None else self.default_view_location(ident))
            .set_current_version(version, schema)
            .build()
        )
        try:
            ops.commit(None, metadata)
        except CommitFailedError as e:
            raise ViewAlreadyExistsError(f"View was created concurrently: {ident}") from e
        return self._view(ops)

    def replace_view(
        self,
        identifier: IdentifierLike,
        *,
        schema: Schema | None = None,
        queries: Queries | None = None,
        default_namespace: NamespaceLike | None = None,
        default_catalog: str | None = None,
        properties: Mapping[str, str] | None = None,
        location: str | None = None,
        summary: Mapping[str, str] | None = None,
        dialects: Sequence[str] | None = None,
    ) -> View:
        definition = self._definition(
            schema, queries, default_namespace, default_catalog, properties, location, summary, dialects
        )
        return self._replace(self.new_view_ops(to_identifier(identifier)), definition)

    def _replace(self, ops: ViewOperations, d: _Definition) -> View:
        ident = ops.identifier
        properties = self._builder_properties(d.properties)
        if self.table_exists(ident):
            raise TableAlreadyExistsError(f"Table with same name already exists: {ident}")
        base = ops.current()
        if base is None:
            raise NoSuchViewError(f"View does not exist: {ident}")
        schema, namespace = self._check_definition(
            "replace", d.representations, d.schema, d.default_namespace
        )
        properties.update(properties_with_prefix(self.properties, VIEW_OVERRIDE_PREFIX))
        full_summary = {**environment_summary(), **(d.summary or {})}

        def apply(metadata: ViewMetadata) -> ViewMetadata:
            ids = metadata.version_ids
            max_id = max(ids) if ids else metadata.current_version_id
            version = ViewVersion(
                version_id=max_id + 1,
                timestamp_ms=int(time.time() * 1000),
                schema_id=schema.schema_id,
                summary=full_summary,
                representations=tuple(d.representations),
                default_namespace=namespace,
                default_catalog=d.default_catalog,
            )
            builder = (
                ViewMetadata.build_from(metadata)
                .set_properties(properties)
                .set_current_version(version, schema)
            )
            if d.location is not None:
                builder.set_location(d.location)
            return builder.build()

        # Java's builder makes one attempt (a conflict is "View was updated concurrently"); iceview
        # re-applies the replace on the refreshed view with the commit.retry.* properties.
        policy = RetryPolicy.from_properties(base.properties)
        first = [True]

        def attempt() -> ViewMetadata:
            fresh: ViewMetadata | None = base
            if first[0]:
                first[0] = False
            else:
                fresh = ops.refresh()
            if fresh is None:
                raise NoSuchViewError(f"View does not exist: {ident}")
            return ops.commit(fresh, apply(fresh))

        try:
            policy.run(attempt)
        except CommitFailedError as e:
            raise CommitFailedError(f"View was updated concurrently: {ident} ({e})") from e
        return self._view(ops)

    def create_or_replace_view(
        self,
        identifier: IdentifierLike,
        *,
        schema: Schema | None = None,
        queries: Queries | None = None,
        default_namespace: NamespaceLike | None = None,
        default_catalog: str | None = None,
        properties: Mapping[str, str] | None = None,
        location: str | None = None,
        summary: Mapping[str, str] | None = None,
        dialects: Sequence[str] | None = None,
    ) -> View:
        ident = to_identifier(identifier)
        definition = self._definition(
            schema, queries, default_namespace, default_catalog, properties, location, summary, dialects
        )
        for attempt in range(3):
            ops = self.new_view_ops(ident)
            last = attempt == 2
            if ops.current() is None:
                try:
                    return self._create(ops, definition)
                except ViewAlreadyExistsError:
                    if last:
                        raise
                    continue  # created concurrently: replace it
            try:
                return self._replace(ops, definition)
            except NoSuchViewError:
                if last:
                    raise
                continue  # dropped concurrently: create it
        raise AssertionError("unreachable")  # pragma: no cover

    # -- dialect translation (docs/translation.md) ------------------------------------------------
    def table_catalog(self) -> Any:
        """PyIceberg's catalog on the same metastore (for the schemas and data of tables), or None.

        For the SQL catalog this is PyIceberg's ``SqlCatalog`` on the same database and warehouse
        (it shares the ``iceberg_tables`` rows with Iceberg Java's ``JdbcCatalog``)."""
        url = getattr(self, "url", None)
        if url is None:
            return None
        from pyiceberg.catalog.sql import SqlCatalog as PyIcebergSqlCatalog

        props = {k: v for k, v in self.properties.items() if not k.startswith(("jdbc.", "view-"))}
        props["uri"] = url.render_as_string(hide_password=False)
        if self.properties.get("warehouse"):
            props["warehouse"] = self.properties["warehouse"]
        props.pop("type", None)
        return PyIcebergSqlCatalog(self.name, **props)

    def relation_schemas(
        self,
        sql: str,
        dialect: str,
        *,
        default_catalog: str | None,
        default_namespace: Sequence[str],
        tables: Any = None,
    ) -> dict[tuple[str, ...], Schema]:
        """The schemas of the relations ``sql`` reads that live in this catalog (views: their
        current schema; tables: PyIceberg's), by qualified name. For translation's type rules."""
        from iceview.sql import find_references, qualify_parts

        catalog = default_catalog or self.name
        out: dict[tuple[str, ...], Schema] = {}
        table_catalog = tables
        created = False
        try:
            for ref in find_references(sql, dialect):
                parts = qualify_parts(
                    ref.parts,
                    default_catalog=catalog,
                    default_namespace=default_namespace,
                    known_catalogs={catalog, self.name},
                )
                if parts in out or parts[0] != self.name or len(parts) < 3:
                    continue
                ident = parts[1:]
                try:
                    if self.view_exists(ident):
                        out[parts] = self.load_view(ident).schema
                        continue
                    if self.table_exists(ident):
                        if table_catalog is None:
                            table_catalog = self.table_catalog()
                            created = table_catalog is not None
                        if table_catalog is not None:
                            out[parts] = table_catalog.load_table(ident).schema()
                except Exception as e:  # a schema we cannot read only makes the type rules stricter
                    log.debug("No schema for %s: %s", ".".join(parts), e)
        finally:
            if created:
                table_catalog.engine.dispose()
        return out

    def _with_dialects(
        self,
        representations: list[SQLRepresentation],
        dialects: Sequence[str] | None,
        default_catalog: str | None,
        default_namespace: tuple[str, ...] | None,
        summary: Mapping[str, str] | None,
    ) -> tuple[list[SQLRepresentation], Mapping[str, str] | None]:
        """``representations`` plus translations into the ``dialects`` they lack, and the summary
        with the provenance keys when something was translated. Unsafe SQL raises
        ``UnsafeTranslationError``; nothing is committed then."""
        if not dialects or not representations or default_namespace is None:
            return representations, summary
        added = translate_representations(
            representations,
            dialects,
            default_catalog=default_catalog or self.name,
            default_namespace=default_namespace,
            known_catalogs={self.name, default_catalog or self.name},
            schemas=lambda sql, dialect: self.relation_schemas(
                sql, dialect, default_catalog=default_catalog, default_namespace=default_namespace
            ),
        )
        if not added:
            return representations, summary
        from iceview.sql.translate import provenance_summary

        source = source_representation(representations)
        return [*representations, *added], {**(summary or {}), **provenance_summary(source.dialect)}

    # -- register --------------------------------------------------------------------------------
    def register_view(self, identifier: IdentifierLike, metadata_location: str) -> View:
        ident = to_identifier(identifier)
        if not metadata_location:
            raise InvalidArgumentError("Cannot register an empty metadata file location as a view")
        if self.view_exists(ident):
            raise ViewAlreadyExistsError(f"View already exists: {ident}")
        if self.table_exists(ident):
            raise TableAlreadyExistsError(f"Table with same name already exists: {ident}")
        ops = self.new_view_ops(ident)
        metadata = _read_metadata(self.io, metadata_location)
        ops.commit(None, metadata)
        return self._view(ops)
