"""The view catalog over any Iceberg REST catalog: Java's ``RESTSessionCatalog`` for views, in Python.

``load_catalog("prod", type="rest", uri=..., ...)`` opens it, with PyIceberg's property names
(``uri``, ``warehouse``, ``prefix``, ``credential``, ``token``, ``scope``, ``oauth2-server-uri``,
``header.*``, ``rest.sigv4-enabled``, ``rest-page-size``...). Namespaces and tables go through
PyIceberg's ``RestCatalog``; views go through the REST view endpoints
(:mod:`iceview.catalog.rest_session`), with iceview's codec for the metadata (nothing is lost):

* every change is ``POST .../views/{view}`` with a ``CommitViewRequest``: iceview's updates, and an
  ``assert-view-uuid`` requirement of the metadata the change was checked on. iceview checks its
  requirements itself first (``assert-current-view-version`` has no REST form). A 409 is a conflict:
  the view is reloaded, the requirements checked again and the same updates sent again, with the
  view's ``commit.retry.*`` back-off. A 500/502/503/504, a dropped connection or a timeout after the
  request was sent raise :class:`~iceview.errors.CommitStateUnknownError` and are never retried.
* ``replace_view`` sends its two reads at once (on one background thread per catalog, stopped by
  ``close``): the check that no table has the name and the view's load, a round trip less than
  Java's ``RESTViewBuilder.replace`` over a network; the table check still decides first.
* a create is ``POST .../views`` (``CreateViewRequest``); Java's reference server rebuilds the first
  version itself, so its summary is the server's.
* only endpoints the server advertises in ``/v1/config`` are called; with no list, Java's defaults
  (views only with ``view-endpoints-supported=true``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from urllib.parse import urlparse

from pyiceberg import exceptions as pyiceberg_errors

from iceview.catalog.commit import commit_with_retries
from iceview.catalog.interface import Catalog, NamespacePropertiesUpdate
from iceview.catalog.kinds import VIEW
from iceview.catalog.properties import (
    VIEW_DEFAULT_PREFIX,
    VIEW_OVERRIDE_PREFIX,
    properties_with_prefix,
    property_as_int,
)
from iceview.catalog.rest_errors import Call, Redactor
from iceview.catalog.rest_functions import FunctionEndpoint, RestFunctionOperations, RestFunctions
from iceview.catalog.rest_operations import RestOperations
from iceview.catalog.rest_session import (
    PAGE_SIZE,
    REFERENCED_BY,
    RestSession,
    ViewEndpoint,
    referenced_by_param,
    rest_error_from_pyiceberg,
)
from iceview.catalog.rest_session import (
    chain as _chain,
)
from iceview.errors import (
    CommitFailedError,
    CommitStateUnknownError,
    IceviewError,
    InvalidArgumentError,
    InvalidMetadataError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NoSuchViewError,
    TableAlreadyExistsError,
    UnsupportedOperationError,
)
from iceview.function import Function
from iceview.identifiers import (
    IdentifierLike,
    NamespaceLike,
    ViewIdentifier,
    namespace_to_string,
    to_identifier,
    to_namespace,
    to_new_identifier,
    to_new_namespace,
)
from iceview.spec import AssertCreate, AssertViewUUID, ViewMetadata, ViewRequirement, ViewUpdate, apply
from iceview.spec.codec import parse_object
from iceview.spec.schema import schema_to_json
from iceview.udf import AssertCreate as AssertFunctionCreate
from iceview.udf import FunctionRequirement, FunctionUpdate
from iceview.view import View, ViewDefinition
from iceview.view.changes import create_change, replace_change

__all__ = ["REFERENCED_BY", "RestCatalog", "RestViewOperations", "referenced_by_param"]


log = logging.getLogger(__name__)
T = TypeVar("T")


class RestViewOperations(RestOperations[ViewMetadata]):
    """One view's metadata as the REST catalog last returned it (the ``View`` handle's source).
    A view loaded through other views (``referenced_by``) is refreshed through them too
    (``GET .../views/{view}``)."""

    def __init__(
        self,
        catalog: RestCatalog,
        identifier: ViewIdentifier,
        metadata: ViewMetadata | None,
        referenced_by: tuple[ViewIdentifier, ...] = (),
    ) -> None:
        super().__init__(
            VIEW, identifier, metadata, lambda: catalog._load_metadata(identifier, referenced_by)
        )
        self.catalog = catalog


class RestCatalog(Catalog):
    """The iceview catalog on an Iceberg REST catalog (see the module docs)."""

    catalog_type = "rest"

    def __init__(self, name: str = "default", **properties: str) -> None:
        uri = properties.get("uri")
        if not uri:
            raise InvalidArgumentError(f"REST catalog {name} needs a 'uri' (e.g. http://localhost:8181/)")
        if urlparse(uri).scheme.lower() not in ("http", "https"):
            raise InvalidArgumentError(
                f"REST catalog {name} needs an http:// or https:// 'uri', not {Redactor(properties)(uri)!r}"
            )
        super().__init__(name, properties)
        self._session = RestSession(name, properties)
        self._functions = RestFunctions(self, self._session)
        self._reads: ThreadPoolExecutor | None = None
        self._reads_lock = threading.Lock()
        # the merged properties: the server's defaults, the caller's, the server's overrides
        self.properties = dict(self._session.properties)

    # -- helpers ---------------------------------------------------------------------------------
    def full_view_name(self, identifier: ViewIdentifier) -> str:
        return f"{self.name}.{identifier}"

    def _reader(self) -> ThreadPoolExecutor:
        """One background thread for a read that overlaps another (started on first use)."""
        with self._reads_lock:
            if self._reads is None:
                self._reads = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix=f"iceview-rest-{self.name}"
                )
            return self._reads

    def _view(self, ops: RestViewOperations) -> View:
        return View(ops, self.full_view_name(ops.identifier), catalog=self)

    @staticmethod
    def _checked(identifier: ViewIdentifier) -> ViewIdentifier:
        if not identifier.namespace:
            raise NoSuchViewError(f"Invalid view identifier: {identifier}")
        return identifier

    def _metadata(self, body: Mapping[str, Any], call: Call, what: str) -> ViewMetadata:
        """The view metadata of a ``LoadViewResult``, read with iceview's own codec."""
        location = body.get("metadata-location")
        try:
            if not isinstance(location, str):
                raise InvalidMetadataError(
                    "LoadViewResult has no string metadata-location", "$.metadata-location"
                )
            return parse_object(body.get("metadata"), metadata_location=location)
        except InvalidMetadataError as e:
            if call in (Call.COMMIT, Call.CREATE):
                raise CommitStateUnknownError(
                    f"Commit state unknown for {what}: the REST catalog's answer has unreadable "
                    f"metadata ({e}); reload the view"
                ) from e
            if e.location is None:
                raise e.with_location(f"REST response for {what}") from e
            raise

    def _load_metadata(
        self, ident: ViewIdentifier, referenced_by: Sequence[ViewIdentifier] = ()
    ) -> ViewMetadata:
        self._checked(ident)
        self._session.require(ViewEndpoint.LOAD)
        what = f"view {ident}"
        params = None
        if referenced_by:
            params = {REFERENCED_BY: referenced_by_param(referenced_by, self._session.namespace_separator)}
        response = self._session.send("GET", self._view_url(ident), Call.READ, what, params=params)
        return self._metadata(self._session.json_body(response, Call.READ, what), Call.READ, what)

    def _view_url(self, ident: ViewIdentifier) -> str:
        return self._session.url("namespaces/{namespace}/views/{view}", ident.namespace, ident.name)

    # -- the one change path ---------------------------------------------------------------------
    def commit_view(
        self,
        identifier: IdentifierLike | View,
        requirements: Sequence[ViewRequirement],
        updates: Sequence[ViewUpdate],
    ) -> View:
        ident, handle_ops = self._handle_operations(identifier)
        ops = handle_ops if isinstance(handle_ops, RestViewOperations) else None
        self._checked(ident)
        if any(isinstance(r, AssertCreate) for r in requirements):
            return self._commit_create(ident, requirements, updates)
        self._session.require(ViewEndpoint.UPDATE)
        if ops is None:
            ops = RestViewOperations(self, ident, None)
            first = ops.refresh()
        else:
            first = ops.current()
        assert first is not None  # refresh raises NoSuchViewError instead
        sent_uuids = [r for r in requirements if isinstance(r, AssertViewUUID)]
        what = f"view {ident}"

        def refresh() -> ViewMetadata:
            # a load for the commit itself: not through the views a handle was loaded through
            base = self._load_metadata(ident)
            ops.update(base)
            return base

        def send(base: ViewMetadata, new: ViewMetadata, updates: Sequence[ViewUpdate]) -> ViewMetadata:
            # REST knows only assert-view-uuid: the caller's, else the uuid of the checked base;
            # the server applies the same updates to its own current metadata
            checks = sent_uuids or [AssertViewUUID(base.uuid)]
            body = {
                "identifier": {"namespace": list(ident.namespace), "name": ident.name},
                "requirements": [r.to_dict() for r in checks],
                "updates": [u.to_dict() for u in updates],
            }
            response = self._session.send("POST", self._view_url(ident), Call.COMMIT, what, body=body)
            committed = self._metadata(
                self._session.json_body(response, Call.COMMIT, what), Call.COMMIT, what
            )
            ops.update(committed)
            return committed

        commit_with_retries(first, refresh, requirements, updates, send, self._derive)
        return self._view(ops)

    def _commit_create(
        self, ident: ViewIdentifier, requirements: Sequence[ViewRequirement], updates: Sequence[ViewUpdate]
    ) -> View:
        to_new_identifier(ident)  # refused here, as the server would
        self._session.require(ViewEndpoint.CREATE)
        for requirement in requirements:
            requirement.validate(None)
        metadata = apply(None, self._derive(None, updates))
        if len(metadata.versions) != 1:
            raise UnsupportedOperationError(
                f"Cannot create view {ident} over REST with {len(metadata.versions)} versions: "
                "a CreateViewRequest carries one version"
            )
        body: dict[str, Any] = {
            "name": ident.name,
            "schema": schema_to_json(metadata.schema),
            "view-version": metadata.current_version.to_dict(),
            "properties": dict(metadata.properties),
        }
        if metadata.location:  # empty: the server picks the default location
            body["location"] = metadata.location
        what = f"view {ident}"
        url = self._session.url("namespaces/{namespace}/views", ident.namespace)
        response = self._session.send("POST", url, Call.CREATE, what, body=body)
        created = self._metadata(self._session.json_body(response, Call.CREATE, what), Call.CREATE, what)
        return self._view(RestViewOperations(self, ident, created))

    # -- create / replace (Java's RESTViewBuilder) -----------------------------------------------
    def _properties(self, definition: ViewDefinition) -> dict[str, str]:
        props = properties_with_prefix(self.properties, VIEW_DEFAULT_PREFIX)
        props.update(definition.properties)
        props.update(properties_with_prefix(self.properties, VIEW_OVERRIDE_PREFIX))
        return props

    def _create_view(self, identifier: ViewIdentifier, definition: ViewDefinition) -> View:
        self._checked(to_new_identifier(identifier))
        self._session.require(ViewEndpoint.CREATE)
        change = create_change(definition, definition.location or "", self._properties(definition))
        return self.commit_view(identifier, change.requirements, change.updates)

    def _replace_view(self, identifier: ViewIdentifier, definition: ViewDefinition) -> View:
        self._checked(identifier)
        self._session.require(ViewEndpoint.UPDATE)
        # Java checks that no table has the name, then loads the view. Both are reads, so the load
        # runs beside the check (a round trip less per replace); the check still decides first.
        loading = self._reader().submit(self.load_view, identifier)
        try:
            table = self.table_exists(identifier)
        except BaseException:
            loading.cancel()
            raise
        if table:
            loading.cancel()
            raise TableAlreadyExistsError(f"Table with same name already exists: {identifier}")
        view = loading.result()
        change = replace_change(view.metadata, definition, self._properties(definition))
        try:
            return self.commit_view(view, change.requirements, change.updates)
        except CommitFailedError as e:
            raise CommitFailedError(f"View was updated concurrently: {identifier} ({e})") from e

    # -- views -----------------------------------------------------------------------------------
    def load_view(
        self, identifier: IdentifierLike, *, referenced_by: Sequence[IdentifierLike] | None = None
    ) -> View:
        """``GET .../views/{view}``; with ``referenced_by`` (the views it is loaded through,
        outermost first) the ``referenced-by`` parameter names them, with the namespace separator
        the server's ``/v1/config`` advertises (default ``%1F``), and refreshing the view sends it
        again."""
        ident = to_identifier(identifier)
        chain = _chain(referenced_by)
        if not ident.namespace:
            raise NoSuchViewError(f"View does not exist: {ident}")
        metadata = self._load_metadata(ident, chain)
        return self._view(RestViewOperations(self, ident, metadata, chain))

    def view_exists(self, identifier: IdentifierLike) -> bool:
        ident = to_identifier(identifier)
        if not ident.namespace:
            return False
        if not self._session.supports(ViewEndpoint.EXISTS):
            # Java's fallback: a load, when HEAD is not advertised
            try:
                self._load_metadata(ident)
            except NoSuchViewError:
                return False
            return True
        response = self._session.send(
            "HEAD", self._view_url(ident), Call.READ, f"view {ident}", ok_statuses=(404,)
        )
        return response.status_code != 404

    def list_views(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        if not ns:
            return []  # a REST catalog keeps no views in the root namespace
        self._session.require(ViewEndpoint.LIST)
        what = f"namespace {namespace_to_string(ns)}"
        url = self._session.url("namespaces/{namespace}/views", ns)
        params: dict[str, str] = {}
        page_size = property_as_int(self.properties, PAGE_SIZE, 0)
        if page_size < 0 or (PAGE_SIZE in self.properties and page_size == 0):
            raise InvalidArgumentError(
                f"{PAGE_SIZE} must be a positive integer: {self.properties[PAGE_SIZE]}"
            )
        if page_size:
            params["pageSize"] = str(page_size)
        found: list[tuple[str, ...]] = []
        seen_tokens: set[str] = set()
        while True:
            response = self._session.send("GET", url, Call.NAMESPACE, what, params=params)
            body = self._session.json_body(response, Call.READ, what)
            for entry in body.get("identifiers") or []:
                found.append((*entry["namespace"], entry["name"]))
            token = body.get("next-page-token")
            if not token:
                break
            if token in seen_tokens:
                raise InvalidArgumentError(f"The REST catalog repeated page token {token!r} listing {what}")
            seen_tokens.add(token)
            params["pageToken"] = token
        return sorted(found)

    def drop_view(self, identifier: IdentifierLike) -> bool:
        ident = to_identifier(identifier)
        if not ident.namespace:
            return False
        self._session.require(ViewEndpoint.DELETE)
        response = self._session.send(
            "DELETE", self._view_url(ident), Call.DROP, f"view {ident}", ok_statuses=(404,)
        )
        return response.status_code != 404

    def rename_view(self, from_identifier: IdentifierLike, to_identifier_: IdentifierLike) -> None:
        src = self._checked(to_identifier(from_identifier))
        dst = to_new_identifier(to_identifier_)
        if src == dst:
            return
        if not dst.namespace:
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(dst.namespace)}")
        self._session.require(ViewEndpoint.RENAME)
        body = {
            "source": {"namespace": list(src.namespace), "name": src.name},
            "destination": {"namespace": list(dst.namespace), "name": dst.name},
        }
        self._session.send(
            "POST", self._session.url("views/rename"), Call.RENAME, f"view {src} to {dst}", body=body
        )

    def register_view(self, identifier: IdentifierLike, metadata_location: str) -> View:
        ident = self._checked(to_new_identifier(identifier))
        if not metadata_location:
            raise InvalidArgumentError("Cannot register an empty metadata file location as a view")
        if not self._session.supports(ViewEndpoint.REGISTER):
            raise UnsupportedOperationError(
                f"This REST catalog does not support registering views: it does not advertise "
                f"{ViewEndpoint.REGISTER} ({self.name} at {self.display_uri()})"
            )
        what = f"view {ident}"
        body = {"name": ident.name, "metadata-location": metadata_location}
        url = self._session.url("namespaces/{namespace}/register-view", ident.namespace)
        response = self._session.send("POST", url, Call.CREATE, what, body=body)
        registered = self._metadata(self._session.json_body(response, Call.CREATE, what), Call.CREATE, what)
        return self._view(RestViewOperations(self, ident, registered))

    # -- functions (SQL UDFs: iceview.catalog.rest_functions) --------------------------------------
    def supports_functions(self) -> bool:
        return self._functions.supported()

    def _before_function_create(self, identifier: ViewIdentifier) -> None:
        self._functions.checked(identifier)
        self._functions.require(FunctionEndpoint.COMMIT)

    def _function(self, ops: RestFunctionOperations) -> Function:
        return Function(ops, self.full_view_name(ops.identifier), catalog=self)

    def commit_function(
        self,
        identifier: IdentifierLike | Function,
        requirements: Sequence[FunctionRequirement],
        updates: Sequence[FunctionUpdate],
    ) -> Function:
        ident, held = self._function_operations(identifier)
        requirements, updates = self._checked_change(requirements, updates)
        ops = held if isinstance(held, RestFunctionOperations) else None
        if any(isinstance(r, AssertFunctionCreate) for r in requirements):
            self._before_function_create(to_new_identifier(ident))
        return self._function(self._functions.commit(ident, ops, requirements, updates))

    def load_function(self, identifier: IdentifierLike) -> Function:
        ident = to_identifier(identifier)
        metadata = self._functions.load_metadata(ident)
        return self._function(RestFunctionOperations(self._functions, ident, metadata))

    def function_exists(self, identifier: IdentifierLike) -> bool:
        return self._functions.exists(to_identifier(identifier))

    def list_functions(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        return self._functions.list(to_namespace(namespace))

    def drop_function(self, identifier: IdentifierLike) -> bool:
        return self._functions.drop(to_identifier(identifier))

    def rename_function(self, from_identifier: IdentifierLike, to_identifier_: IdentifierLike) -> None:
        src = to_identifier(from_identifier)
        dst = to_new_identifier(to_identifier_)
        if src != dst:
            self._functions.rename(src, dst)

    # -- namespaces and tables, through PyIceberg's RestCatalog -----------------------------------
    def _pyiceberg(self, what: str, call: Callable[[], T]) -> T:
        try:
            return call()
        except IceviewError:
            raise
        except pyiceberg_errors.NoSuchNamespaceError as e:
            raise NoSuchNamespaceError(_server_text(e)) from None
        except pyiceberg_errors.NamespaceAlreadyExistsError as e:
            raise NamespaceAlreadyExistsError(_server_text(e)) from None
        except pyiceberg_errors.NamespaceNotEmptyError as e:
            raise NamespaceNotEmptyError(_server_text(e)) from None
        except pyiceberg_errors.NoSuchTableError as e:
            raise NoSuchTableError(_server_text(e)) from None
        except pyiceberg_errors.TableAlreadyExistsError as e:
            raise TableAlreadyExistsError(_server_text(e)) from None
        except Exception as e:
            mapped = rest_error_from_pyiceberg(e, what, self._session.redact)
            if mapped is None:
                raise
            raise mapped from None

    def table_exists(self, identifier: IdentifierLike) -> bool:
        ident = to_identifier(identifier)
        if not ident.namespace:
            return False
        parts = (*ident.namespace, ident.name)
        return bool(self._pyiceberg(f"table {ident}", lambda: self._session.rest.table_exists(parts)))

    def list_tables(self, namespace: NamespaceLike) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        if not ns:
            return []
        found = self._pyiceberg(
            f"namespace {namespace_to_string(ns)}", lambda: self._session.rest.list_tables(ns)
        )
        return sorted(tuple(t) for t in found)

    def table_catalog(self) -> Any:
        """A new PyIceberg ``RestCatalog`` on the same server and credentials, for table schemas
        and data."""
        from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog

        props = {k: v for k, v in self.properties.items() if not k.startswith("view-") and k != "type"}
        return self._pyiceberg(f"REST catalog {self.name}", lambda: PyIcebergRestCatalog(self.name, **props))

    def create_namespace(self, namespace: NamespaceLike, properties: Mapping[str, str] | None = None) -> None:
        ns = to_new_namespace(namespace)
        if not ns:
            raise InvalidArgumentError("Cannot create the empty namespace")
        what = f"namespace {namespace_to_string(ns)}"
        self._pyiceberg(what, lambda: self._session.rest.create_namespace(ns, dict(properties or {})))

    def list_namespaces(self, namespace: NamespaceLike = ()) -> list[tuple[str, ...]]:
        ns = to_namespace(namespace)
        found = self._pyiceberg(
            f"namespace {namespace_to_string(ns) or '(root)'}", lambda: self._session.rest.list_namespaces(ns)
        )
        return sorted(tuple(n) for n in found)

    def namespace_exists(self, namespace: NamespaceLike) -> bool:
        ns = to_namespace(namespace)
        if not ns:
            return True
        return bool(
            self._pyiceberg(
                f"namespace {namespace_to_string(ns)}", lambda: self._session.rest.namespace_exists(ns)
            )
        )

    def load_namespace_properties(self, namespace: NamespaceLike) -> dict[str, str]:
        ns = to_namespace(namespace)
        what = f"namespace {namespace_to_string(ns)}"
        props = self._pyiceberg(what, lambda: self._session.rest.load_namespace_properties(ns))
        return {str(k): str(v) for k, v in props.items()}

    def update_namespace_properties(
        self,
        namespace: NamespaceLike,
        removals: Iterable[str] | None = None,
        updates: Mapping[str, str] | None = None,
    ) -> NamespacePropertiesUpdate:
        ns = to_namespace(namespace)
        what = f"namespace {namespace_to_string(ns)}"
        removal_set = set(removals or ())
        update_map = dict(updates or {})
        summary = self._pyiceberg(
            what, lambda: self._session.rest.update_namespace_properties(ns, removal_set, update_map)
        )
        return NamespacePropertiesUpdate(
            removed=list(summary.removed), updated=list(summary.updated), missing=list(summary.missing)
        )

    def drop_namespace(self, namespace: NamespaceLike) -> bool:
        ns = to_namespace(namespace)
        if not ns:
            raise InvalidArgumentError("Cannot drop the empty namespace")
        try:
            self._pyiceberg(
                f"namespace {namespace_to_string(ns)}", lambda: self._session.rest.drop_namespace(ns)
            )
        except NoSuchNamespaceError:
            return False
        return True

    # -- display and lifecycle -------------------------------------------------------------------
    def display_uri(self) -> str:
        """The server's URI, with any user info and secrets masked."""
        uri = self._session.display_uri()
        parsed = urlparse(uri)
        if parsed.password:
            uri = uri.replace(f":{parsed.password}@", ":***@", 1)
        return uri

    def close(self) -> None:
        with self._reads_lock:
            reads, self._reads = self._reads, None
        if reads is not None:
            reads.shutdown(wait=True, cancel_futures=True)
        self._session.close()


def _server_text(error: Exception) -> str:
    """PyIceberg's ``"<Type>: <message>"`` text as the server's message alone."""
    text = str(error)
    head, sep, rest = text.partition(": ")
    return rest if sep and head.endswith("Exception") else text
