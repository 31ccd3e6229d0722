"""The view API over a metastore that holds one pointer per view: Java's
``BaseMetastoreViewCatalog`` (+ ``BaseViewBuilder``) and ``CatalogHandlers.updateView``.

:meth:`MetastoreViewCatalog.commit_view` is the one commit loop: refresh, check the requirements,
apply the updates to the fresh base with :func:`iceview.spec.apply`, compare-and-swap the pointer;
on :class:`~iceview.errors.CommitFailedError` sleep and try again with the ``commit.retry.*`` view
properties (Java's defaults: 4 retries, 100 ms to 60 s, 30 min in all, doubling). Every operation
(create, replace, rollback, properties, location, translations) reaches the metastore through it.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from iceview.catalog.interface import Catalog
from iceview.catalog.kinds import FUNCTION, Metadata
from iceview.catalog.operations import (
    METADATA_CACHE_SIZE,
    FunctionOperations,
    MetadataCache,
    MetadataOperations,
    ViewOperations,
    delete_file_quietly,
    read_metadata,
)
from iceview.catalog.properties import (
    GC_ENABLED,
    VIEW_DEFAULT_PREFIX,
    VIEW_OVERRIDE_PREFIX,
    RetryPolicy,
    properties_with_prefix,
    property_as_bool,
)
from iceview.errors import (
    CommitFailedError,
    InvalidArgumentError,
    InvalidMetadataError,
    LocationOutsideWarehouseError,
    NoSuchFunctionError,
    NoSuchViewError,
    NotFoundError,
    TableAlreadyExistsError,
    ViewAlreadyExistsError,
)
from iceview.identifiers import IdentifierLike, ViewIdentifier, to_identifier, to_new_identifier

if TYPE_CHECKING:
    from pyiceberg.io import FileIO

    from iceview.function import Function
    from iceview.spec import ViewRequirement, ViewUpdate
    from iceview.udf import FunctionRequirement, FunctionUpdate
    from iceview.view import View, ViewDefinition

__all__ = ["MetastoreFunctionOperations", "MetastoreViewCatalog", "MetastoreViewOperations"]

log = logging.getLogger(__name__)

DROP_ATTEMPTS = 10
"""How often a drop reads a pointer that keeps moving before it gives up."""

M = TypeVar("M", bound=Metadata)


class MetastoreViewOperations(ViewOperations):
    """The pointer of one view of a :class:`MetastoreViewCatalog`: the catalog's FileIO, metadata
    cache and warehouse, and the view's full name."""

    def __init__(self, catalog: MetastoreViewCatalog, identifier: ViewIdentifier) -> None:
        super().__init__(
            identifier,
            catalog.io,
            catalog.full_view_name(identifier),
            catalog.metadata_cache,
            warehouse=catalog.warehouse_root,
        )


class MetastoreFunctionOperations(FunctionOperations):
    """The pointer of one SQL UDF of a :class:`MetastoreViewCatalog`, configured as a view's."""

    def __init__(self, catalog: MetastoreViewCatalog, identifier: ViewIdentifier) -> None:
        super().__init__(
            identifier,
            catalog.io,
            catalog.full_view_name(identifier),
            catalog.metadata_cache,
            warehouse=catalog.warehouse_root,
        )


class MetastoreViewCatalog(Catalog):
    """The view API over a metastore. Subclasses supply :meth:`new_view_ops`,
    :meth:`table_exists`, :meth:`view_exists`, :meth:`default_view_location` and the rest of
    :class:`Catalog`."""

    def __init__(self, name: str, properties: Mapping[str, str]) -> None:
        super().__init__(name, properties)
        self._io: FileIO | None = None
        size = self.properties.get(METADATA_CACHE_SIZE, "0")
        try:
            entries = int(size)
        except ValueError:
            raise InvalidArgumentError(f"Invalid {METADATA_CACHE_SIZE} {size!r}: not an integer") from None
        self.metadata_cache: MetadataCache | None = MetadataCache(entries) if entries > 0 else None
        """Parsed metadata files by location (``iceview.metadata-cache-size``), shared by the
        operations of every view of this catalog."""

    @property
    def io(self) -> FileIO:
        """PyIceberg's FileIO for the catalog properties (``py-io-impl``, ``s3.*``, ...)."""
        if self._io is None:
            from iceview import files

            self._io = files.file_io_for(self.properties.get("warehouse") or "", self.properties)
        return self._io

    @property
    def warehouse_root(self) -> str | None:
        """Where this catalog may write and delete files: its ``warehouse``, unless
        ``iceview.allow-external-locations`` is true or it has none (then None: not confined).
        Read from the properties on every use (``iceview serve`` sets the property)."""
        from iceview import files

        return files.confinement_root(self.properties)

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
    def load_view(
        self, identifier: IdentifierLike, *, referenced_by: Sequence[IdentifierLike] | None = None
    ) -> View:
        """The view ``identifier`` names; ``referenced_by`` is accepted and ignored (a metastore
        has no one to tell it to)."""
        ident = to_identifier(identifier)
        ops = self.new_view_ops(ident)
        if ops.current() is None:
            raise NoSuchViewError(f"View does not exist: {ident}")
        return self._view(ops)

    # -- the one commit loop ---------------------------------------------------------------------
    def commit_view(
        self,
        identifier: IdentifierLike | View,
        requirements: Sequence[ViewRequirement],
        updates: Sequence[ViewUpdate],
    ) -> View:
        ident, handle_ops = self._handle_operations(identifier)
        reuse = isinstance(handle_ops, ViewOperations)
        ops = handle_ops if isinstance(handle_ops, ViewOperations) else self.new_view_ops(ident)
        self._commit(ops, reuse, requirements, updates, self._derive)
        return self._view(ops)

    def _commit(
        self,
        ops: MetadataOperations[M],
        reuse: bool,
        requirements: Sequence[Any],
        updates: Sequence[Any],
        prepare: Callable[[M, Sequence[Any]], Sequence[Any]] | None,
    ) -> None:
        """Commit through ``ops`` (a view's or a function's pointer): a create when a requirement
        is the kind's ``assert-create``, else the retry loop from the pointer's current metadata
        (``reuse``: as a handle loaded it)."""
        from iceview.catalog.commit import commit_with_retries

        kind = ops.kind
        if any(isinstance(r, kind.assert_create()) for r in requirements):
            self._commit_create(ops, requirements, updates, prepare)
            return
        first = ops.current() if reuse else ops.refresh()
        if first is None:
            raise kind.no_such(f"{kind.title} does not exist: {ops.identifier}")

        def refresh() -> M:
            base = ops.refresh()
            if base is None:
                raise kind.no_such(f"{kind.title} does not exist: {ops.identifier}")
            return base

        commit_with_retries(
            first,
            refresh,
            requirements,
            updates,
            lambda base, new, _: ops.commit(base, new),
            prepare,
            kind=kind,
        )

    def _commit_create(
        self,
        ops: MetadataOperations[M],
        requirements: Sequence[Any],
        updates: Sequence[Any],
        prepare: Callable[[Any, Sequence[Any]], Sequence[Any]] | None,
    ) -> None:
        kind = ops.kind
        to_new_identifier(ops.identifier)  # before anything is written
        base = ops.current()
        if base is not None:
            raise kind.already_exists(f"{kind.title} already exists: {ops.identifier}")
        for requirement in requirements:
            requirement.validate(base)
        sent = updates if prepare is None else prepare(None, updates)
        created = kind.apply(None, sent)
        RetryPolicy.check_changed({}, created.properties)
        try:
            ops.commit(None, created)
        except CommitFailedError as e:
            raise kind.already_exists(f"{kind.title} was created concurrently: {ops.identifier}") from e

    # -- functions -------------------------------------------------------------------------------
    def new_function_ops(self, identifier: ViewIdentifier) -> FunctionOperations:
        """The pointer of one function; a metastore that keeps functions overrides this."""
        raise self._no_functions()

    def _function(self, ops: FunctionOperations) -> Function:
        from iceview.function import Function

        return Function(ops, self.full_view_name(ops.identifier), catalog=self)

    def commit_function(
        self,
        identifier: IdentifierLike | Function,
        requirements: Sequence[FunctionRequirement],
        updates: Sequence[FunctionUpdate],
    ) -> Function:
        ident, handle_ops = self._function_operations(identifier)
        requirements, updates = self._checked_change(requirements, updates)
        if any(isinstance(r, FUNCTION.assert_create()) for r in requirements):
            self._before_function_create(to_new_identifier(ident))
            updates = self._with_location(ident, updates)
        reuse = isinstance(handle_ops, FunctionOperations)
        ops = handle_ops if isinstance(handle_ops, FunctionOperations) else self.new_function_ops(ident)
        self._commit(ops, reuse, requirements, updates, None)
        return self._function(ops)

    def _with_location(self, ident: ViewIdentifier, updates: list[Any]) -> list[Any]:
        """A create's updates, with the catalog's default location first when they set none."""
        from iceview.udf import SetLocation

        location = self.default_function_location(ident)
        if location is None or any(isinstance(u, SetLocation) for u in updates):
            return updates
        return [SetLocation(location), *updates]

    def load_function(self, identifier: IdentifierLike) -> Function:
        ident = to_identifier(identifier)
        ops = self.new_function_ops(ident)
        if ops.current() is None:
            raise NoSuchFunctionError(f"Function does not exist: {ident}")
        return self._function(ops)

    # -- create / replace (BaseViewBuilder) ------------------------------------------------------
    def _properties(self, definition: ViewDefinition) -> dict[str, str]:
        """Java's builder properties: ``view-default.*``, the definition's, ``view-override.*``."""
        props = properties_with_prefix(self.properties, VIEW_DEFAULT_PREFIX)
        props.update(definition.properties)
        props.update(properties_with_prefix(self.properties, VIEW_OVERRIDE_PREFIX))
        return props

    def _create_view(self, identifier: ViewIdentifier, definition: ViewDefinition) -> View:
        to_new_identifier(identifier)
        ops = self.new_view_ops(identifier)
        if ops.current() is not None:
            raise ViewAlreadyExistsError(f"View already exists: {identifier}")
        location = definition.location
        if location is None:
            definition.checked("create")
            location = self.default_view_location(identifier)
        from iceview.view.changes import create_change

        change = create_change(definition, location, self._properties(definition))
        # the handle carries what was just read, so the commit does not read it again
        return self.commit_view(self._view(ops), change.requirements, change.updates)

    def _replace_view(self, identifier: ViewIdentifier, definition: ViewDefinition) -> View:
        if self.table_exists(identifier):
            raise TableAlreadyExistsError(f"Table with same name already exists: {identifier}")
        ops = self.new_view_ops(identifier)
        base = ops.current()
        if base is None:
            raise NoSuchViewError(f"View does not exist: {identifier}")
        from iceview.view.changes import replace_change

        change = replace_change(base, definition, self._properties(definition))
        # Java's builder makes one attempt (a conflict is "View was updated concurrently"); iceview
        # re-applies the replace on the refreshed view with the commit.retry.* properties.
        try:
            return self.commit_view(self._view(ops), change.requirements, change.updates)
        except CommitFailedError as e:
            raise CommitFailedError(f"View was updated concurrently: {identifier} ({e})") from e

    # -- drop ------------------------------------------------------------------------------------
    def _last_metadata_for_drop(self, ops: MetadataOperations[M]) -> M | None:
        """The metadata a drop deletes afterwards (Java's ``dropView``): None when the view is
        gone, its file is missing, or it does not parse (Java cannot drop such a view; iceview drops
        the entry and leaves the file alone)."""
        try:
            return ops.current()
        except NotFoundError as e:
            log.warning(
                "Failed to load %s metadata for %s: %s: %s", ops.kind.noun, ops.kind.noun, ops.identifier, e
            )
        except InvalidMetadataError as e:
            log.warning(
                "%s metadata of %s does not parse; dropping it without deleting files: %s",
                ops.kind.title,
                ops.identifier,
                e,
            )
        return None

    def _drop_while_current(
        self,
        new_ops: Callable[[], MetadataOperations[Any]],
        read: Callable[[], str | None],
        delete_at: Callable[[str], bool],
    ) -> bool:
        """Drop a view or function whose pointer can be deleted conditionally: ``delete_at(location)``
        deletes its entry only while it still points at ``location`` (False: gone, or moved on).
        The metadata a drop then deletes (``gc.enabled``) is the one the entry pointed at: a commit
        landing between the read and the delete is read again, so its file is never orphaned.
        Returns False when there is nothing to drop."""
        for _ in range(DROP_ATTEMPTS):
            ops = new_ops()  # reads the pointer afresh
            noun, ident = ops.kind.noun, ops.identifier
            last = self._last_metadata_for_drop(ops)
            location = read()
            if location is None:
                log.info("Skipping drop, %s does not exist: %s", noun, ident)
                return False
            if last is not None and last.metadata_file_location != location:
                continue  # a commit landed between the two reads
            if delete_at(location):
                self._delete_dropped_metadata(ident, last)
                log.info("Dropped %s: %s", noun, ident)
                return True
        raise CommitFailedError(
            f"Cannot drop {noun} {ident}: it kept changing during {DROP_ATTEMPTS} attempts"
        )

    def _delete_dropped_metadata(self, identifier: ViewIdentifier, last: Metadata | None) -> None:
        """After a drop: delete the view's current metadata file if ``gc.enabled`` (Java's
        ``CatalogUtil.dropViewMetadata``), and only inside the warehouse."""
        if (
            last is None
            or not last.metadata_file_location
            or not property_as_bool(last.properties, GC_ENABLED, True)
        ):
            return
        from iceview import files

        try:
            files.check_in_warehouse(last.metadata_file_location, self.warehouse_root, "metadata file")
        except LocationOutsideWarehouseError as e:
            log.warning("Not deleting the metadata file of %s: %s", identifier, e)
        else:
            delete_file_quietly(self.io, last.metadata_file_location)

    # -- register --------------------------------------------------------------------------------
    def register_view(self, identifier: IdentifierLike, metadata_location: str) -> View:
        """Point a new view at an existing metadata file (no new file is written, as in Java).
        This is the one change that is no update: the REST spec has its own ``register-view``."""
        ident = to_new_identifier(identifier)
        if not metadata_location:
            raise InvalidArgumentError("Cannot register an empty metadata file location as a view")
        if self.view_exists(ident):
            raise ViewAlreadyExistsError(f"View already exists: {ident}")
        if self.table_exists(ident):
            raise TableAlreadyExistsError(f"Table with same name already exists: {ident}")
        from iceview import files

        # the file itself (a later drop deletes it), then its location and write.*.path (commit)
        files.check_in_warehouse(metadata_location, self.warehouse_root, "registered metadata file")
        ops = self.new_view_ops(ident)
        ops.commit(None, read_metadata(self.io, metadata_location))
        return self._view(ops)
