"""SQL UDFs over an Iceberg REST catalog.

List and load are the REST spec's (its main branch): ``GET .../namespaces/{namespace}/functions``
and ``GET .../functions/{function}``, whose ``LoadFunctionResult`` is read with iceview's own codec.
Writes are iceview's extension (``iceview serve`` has them; see docs/functions.md):
``POST .../functions/{function}`` with a ``CommitFunctionRequest`` (requirements plus updates in
:mod:`iceview.udf`'s JSON forms; ``assert-create`` creates), ``HEAD`` and ``DELETE`` on the same
path, and ``POST .../functions/rename``. Only what the server advertises in ``/v1/config`` is
called: a server that lists no endpoints keeps no functions, as far as this client knows.

A commit goes through the one commit loop (:func:`iceview.catalog.commit.commit_with_retries`):
the client applies the updates to the function it loaded (every rule checked before anything is
sent), sends the same updates with the requirements (and ``assert-function-uuid`` of that base),
and on a 409 reloads, checks again and sends them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from pyiceberg.catalog.rest import Endpoint, HttpMethod

from iceview.catalog.commit import commit_with_retries
from iceview.catalog.kinds import FUNCTION
from iceview.catalog.properties import property_as_int
from iceview.catalog.rest_errors import Call
from iceview.catalog.rest_operations import RestOperations
from iceview.catalog.rest_session import PAGE_SIZE, RestSession
from iceview.errors import (
    CommitStateUnknownError,
    InvalidArgumentError,
    InvalidMetadataError,
    NoSuchFunctionError,
    NoSuchNamespaceError,
    UnsupportedOperationError,
)
from iceview.identifiers import ViewIdentifier, namespace_to_string
from iceview.udf import (
    AssertCreate,
    AssertFunctionUUID,
    FunctionMetadata,
    FunctionRequirement,
    FunctionUpdate,
    apply,
    function_metadata_from_dict,
)

__all__ = ["FunctionEndpoint", "RestFunctionOperations", "RestFunctions"]

_V1 = "/v1/{prefix}/"
_ONE = _V1 + "namespaces/{namespace}/functions/{function}"


class FunctionEndpoint:
    """The SQL UDF endpoints, as ``/v1/config`` lists them."""

    LIST = Endpoint(http_method=HttpMethod.GET, path=_V1 + "namespaces/{namespace}/functions")
    LOAD = Endpoint(http_method=HttpMethod.GET, path=_ONE)
    EXISTS = Endpoint(http_method=HttpMethod.HEAD, path=_ONE)
    COMMIT = Endpoint(http_method=HttpMethod.POST, path=_ONE)
    DELETE = Endpoint(http_method=HttpMethod.DELETE, path=_ONE)
    RENAME = Endpoint(http_method=HttpMethod.POST, path=_V1 + "functions/rename")


class RestFunctionOperations(RestOperations["FunctionMetadata"]):
    """One function's metadata as the REST catalog last returned it (the ``Function`` handle's
    source)."""

    def __init__(
        self, functions: RestFunctions, identifier: ViewIdentifier, metadata: FunctionMetadata | None
    ) -> None:
        super().__init__(FUNCTION, identifier, metadata, lambda: functions.load_metadata(identifier))
        self.functions = functions


class _Host(Protocol):
    name: str
    properties: dict[str, str]

    def display_uri(self) -> str: ...


class RestFunctions:
    """The functions of one REST catalog connection."""

    def __init__(self, host: _Host, session: RestSession) -> None:
        self.host = host
        self.session = session

    # -- helpers ---------------------------------------------------------------------------------
    def supported(self) -> bool:
        return self.session.supports(FunctionEndpoint.LOAD)

    def require(self, endpoint: Endpoint) -> None:
        if not self.session.supports(endpoint):
            raise UnsupportedOperationError(
                f"This REST catalog does not keep SQL UDFs: it does not advertise {endpoint} "
                f"({self.host.name} at {self.host.display_uri()})"
            )

    def _url(self, ident: ViewIdentifier) -> str:
        return self.session.url("namespaces/{namespace}/functions/{view}", ident.namespace, ident.name)

    @staticmethod
    def checked(ident: ViewIdentifier) -> ViewIdentifier:
        if not ident.namespace:
            raise NoSuchFunctionError(f"Function does not exist: {ident}")
        return ident

    def _metadata(self, body: Mapping[str, Any], call: Call, what: str) -> FunctionMetadata:
        """The function metadata of a ``LoadFunctionResult``, read with iceview's codec."""
        location = body.get("metadata-location")
        try:
            if location is not None and not isinstance(location, str):
                raise InvalidMetadataError(
                    "LoadFunctionResult has a non-string metadata-location", "$.metadata-location"
                )
            return function_metadata_from_dict(body.get("metadata"), metadata_location=location)
        except InvalidMetadataError as e:
            if call in (Call.COMMIT, Call.CREATE):
                raise CommitStateUnknownError(
                    f"Commit state unknown for {what}: the REST catalog's answer has unreadable "
                    f"metadata ({e}); reload the function"
                ) from e
            if e.location is None:
                raise e.with_location(f"REST response for {what}") from e
            raise

    def load_metadata(self, ident: ViewIdentifier) -> FunctionMetadata:
        self.checked(ident)
        self.require(FunctionEndpoint.LOAD)
        what = f"function {ident}"
        response = self.session.send("GET", self._url(ident), Call.READ, what)
        return self._metadata(self.session.json_body(response, Call.READ, what), Call.READ, what)

    # -- reads -----------------------------------------------------------------------------------
    def exists(self, ident: ViewIdentifier) -> bool:
        if not ident.namespace:
            return False
        if not self.session.supports(FunctionEndpoint.EXISTS):
            try:
                self.load_metadata(ident)
            except NoSuchFunctionError:
                return False
            return True
        response = self.session.send(
            "HEAD", self._url(ident), Call.READ, f"function {ident}", ok_statuses=(404,)
        )
        return response.status_code != 404

    def list(self, ns: tuple[str, ...]) -> list[tuple[str, ...]]:
        if not ns:
            return []  # a REST catalog keeps nothing in the root namespace
        self.require(FunctionEndpoint.LIST)
        what = f"namespace {namespace_to_string(ns)}"
        url = self.session.url("namespaces/{namespace}/functions", ns)
        params: dict[str, str] = {}
        page_size = property_as_int(self.host.properties, PAGE_SIZE, 0)
        if page_size > 0:
            params["pageSize"] = str(page_size)
        found: list[tuple[str, ...]] = []
        seen: set[str] = set()
        while True:
            response = self.session.send("GET", url, Call.NAMESPACE, what, params=params)
            body = self.session.json_body(response, Call.READ, what)
            for entry in body.get("identifiers") or []:
                if (
                    not isinstance(entry, list)
                    or len(entry) < 2
                    or not all(isinstance(p, str) for p in entry)
                ):
                    raise InvalidArgumentError(
                        f"The REST catalog listed a function identifier that is not a list of names: "
                        f"{str(entry)[:200]} ({what})"
                    )
                found.append(tuple(entry))
            token = body.get("next-page-token")
            if not token:
                break
            if token in seen:
                raise InvalidArgumentError(f"The REST catalog repeated page token {token!r} listing {what}")
            seen.add(token)
            params["pageToken"] = token
        return sorted(found)

    # -- writes ----------------------------------------------------------------------------------
    def commit(
        self,
        ident: ViewIdentifier,
        ops: RestFunctionOperations | None,
        requirements: Sequence[FunctionRequirement],
        updates: Sequence[FunctionUpdate],
    ) -> RestFunctionOperations:
        """The one change path over REST: a create with ``assert-create``, else the retry loop."""
        self.checked(ident)
        self.require(FunctionEndpoint.COMMIT)
        what = f"function {ident}"
        url = self._url(ident)
        if any(isinstance(r, AssertCreate) for r in requirements):
            for requirement in requirements:
                requirement.validate(None)
            apply(None, updates)  # every rule, before anything is sent
            body = {
                "requirements": [r.to_dict() for r in requirements],
                "updates": [u.to_dict() for u in updates],
            }
            response = self.session.send("POST", url, Call.CREATE, what, body=body)
            created = self._metadata(self.session.json_body(response, Call.CREATE, what), Call.CREATE, what)
            return RestFunctionOperations(self, ident, created)
        if ops is None:
            ops = RestFunctionOperations(self, ident, None)
            first = ops.refresh()
        else:
            first = ops.current()
        assert first is not None  # refresh raises NoSuchFunctionError instead
        handle = ops
        has_uuid = any(isinstance(r, AssertFunctionUUID) for r in requirements)

        def refresh() -> FunctionMetadata:
            base = self.load_metadata(ident)
            handle.update(base)
            return base

        def send(
            base: FunctionMetadata, new: FunctionMetadata, sent: Sequence[FunctionUpdate]
        ) -> FunctionMetadata:
            checks = (
                list(requirements) if has_uuid else [AssertFunctionUUID(base.function_uuid), *requirements]
            )
            body = {"requirements": [r.to_dict() for r in checks], "updates": [u.to_dict() for u in sent]}
            response = self.session.send("POST", url, Call.COMMIT, what, body=body)
            committed = self._metadata(self.session.json_body(response, Call.COMMIT, what), Call.COMMIT, what)
            handle.update(committed)
            return committed

        commit_with_retries(first, refresh, requirements, updates, send, kind=FUNCTION)
        return handle

    def drop(self, ident: ViewIdentifier) -> bool:
        if not ident.namespace:
            return False
        self.require(FunctionEndpoint.DELETE)
        response = self.session.send(
            "DELETE", self._url(ident), Call.DROP, f"function {ident}", ok_statuses=(404,)
        )
        return response.status_code != 404

    def rename(self, src: ViewIdentifier, dst: ViewIdentifier) -> None:
        self.checked(src)
        if not dst.namespace:
            raise NoSuchNamespaceError(f"Namespace does not exist: {namespace_to_string(dst.namespace)}")
        self.require(FunctionEndpoint.RENAME)
        body = {
            "source": {"namespace": list(src.namespace), "name": src.name},
            "destination": {"namespace": list(dst.namespace), "name": dst.name},
        }
        self.session.send(
            "POST", self.session.url("functions/rename"), Call.RENAME, f"function {src} to {dst}", body=body
        )
