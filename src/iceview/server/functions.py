"""The SQL UDF endpoints: a thin layer over the catalog interface, as the view endpoints are.

List and load are the Iceberg REST spec's (its main branch: ``GET .../namespaces/{namespace}/functions``
and ``GET .../functions/{function}``). The spec has no writes for functions yet; iceview adds them
as an extension, advertised in ``/v1/config`` like every other endpoint (docs/functions.md):

* ``POST .../functions/{function}``: a ``CommitFunctionRequest``, ``{"requirements": [...],
  "updates": [...]}`` in the JSON forms of :mod:`iceview.udf`, through ``Catalog.commit_function``
  (the one change path). With an ``assert-create`` requirement the function is created, at the
  catalog's default location unless the updates set one.
* ``HEAD`` and ``DELETE .../functions/{function}``; ``POST .../functions/rename`` (a
  ``RenameTableRequest``).
"""

from __future__ import annotations

from typing import Any

from iceview.errors import NoSuchFunctionError
from iceview.function import Function
from iceview.identifiers import ViewIdentifier
from iceview.server.context import Reply, ServedCatalog, ServerSettings
from iceview.server.protocol import (
    check_new_identifier,
    check_update_locations,
    identifier_from_body,
    invalid_page_token,
    page,
    page_request,
)
from iceview.server.protocol import parse_change as parse_commit
from iceview.udf import (
    AssertCreate,
    FunctionRequirement,
    FunctionUpdate,
    function_metadata_to_dict,
    requirement_from_dict,
    update_from_dict,
)

__all__ = [
    "commit_function",
    "drop_function",
    "function_exists",
    "function_list",
    "load_function",
    "rename_function",
]


def load_result(function: Function) -> dict[str, Any]:
    """A ``LoadFunctionResult``."""
    return {
        "metadata-location": function.metadata_location,
        "metadata": function_metadata_to_dict(function.metadata),
    }


def function_list(
    served: ServedCatalog, namespace: tuple[str, ...], query: dict[str, str], settings: ServerSettings
) -> Reply:
    token = query.get("pageToken")
    request = page_request(token, query.get("pageSize"), settings.max_page_size)
    after = request.after if request is not None else None
    # a token names the last function of a page of this namespace, nothing else
    if after is not None and (after[:-1] != namespace or len(after) != len(namespace) + 1):
        raise invalid_page_token(token or "")
    found = page(
        served.catalog.list_functions(namespace),
        lambda n: n,
        token,
        query.get("pageSize"),
        settings.max_page_size,
    )
    body: dict[str, Any] = {"identifiers": [list(n) for n in found.items]}
    if found.next_token:
        body["next-page-token"] = found.next_token
    return Reply(200, body)


def load_function(served: ServedCatalog, ident: ViewIdentifier) -> Reply:
    return Reply(200, load_result(served.catalog.load_function(ident)))


def function_exists(served: ServedCatalog, ident: ViewIdentifier) -> Reply:
    if not served.catalog.function_exists(ident):
        raise NoSuchFunctionError(f"Function does not exist: {ident}")
    return Reply(204)


def parse_change(body: dict[str, Any]) -> tuple[list[FunctionRequirement], list[FunctionUpdate]]:
    """The requirements and updates of a ``CommitFunctionRequest``."""
    return parse_commit(body, "CommitFunctionRequest", requirement_from_dict, update_from_dict)


def commit_function(
    served: ServedCatalog, ident: ViewIdentifier, body: dict[str, Any], settings: ServerSettings
) -> Reply:
    requirements, updates = parse_change(body)
    check_update_locations(updates, served.warehouse_root(settings.allow_external_locations), "function")
    if any(isinstance(r, AssertCreate) for r in requirements):
        # the catalog chooses the location when the updates set none
        check_new_identifier(ident.namespace, ident.name, "function")
    function = served.catalog.commit_function(ident, requirements, updates)
    return Reply(200, load_result(function))


def drop_function(served: ServedCatalog, ident: ViewIdentifier) -> Reply:
    if not served.catalog.drop_function(ident):
        raise NoSuchFunctionError(f"Function does not exist: {ident}")
    return Reply(204)


def rename_function(served: ServedCatalog, body: dict[str, Any]) -> Reply:
    what = "RenameTableRequest"
    source = identifier_from_body(body, "source", what)
    destination = identifier_from_body(body, "destination", what)
    check_new_identifier(destination.namespace, destination.name, "function")
    served.catalog.rename_function(source, destination)
    return Reply(204)
