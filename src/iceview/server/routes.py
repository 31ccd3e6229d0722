"""The REST catalog's routes: each endpoint as the OpenAPI document names it (``GET
/v1/{prefix}/namespaces``), what it calls, and whether it changes the catalog.

``/v1/config`` advertises exactly this table in ``endpoints``; the app mounts each route with and
without the ``{prefix}`` segment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from iceview.identifiers import ViewIdentifier
from iceview.server import functions, namespaces, tables, views
from iceview.server.context import Reply, ServedCatalog, ServerSettings
from iceview.server.protocol import check_level, namespace_from_path

__all__ = ["ROUTES", "Call", "Route"]


@dataclass(frozen=True)
class Call:
    """One request, parsed: path parameters, query, JSON body (None for GET, HEAD, DELETE)."""

    served: ServedCatalog
    params: dict[str, str]
    query: dict[str, str]
    body: dict[str, Any] | None
    settings: ServerSettings
    referenced_by: tuple[ViewIdentifier, ...] = ()
    """The views the entity is loaded through (``referenced-by``, outermost first), on the routes
    that take the parameter (:attr:`Route.referenced_by`)."""

    @property
    def namespace(self) -> tuple[str, ...]:
        return namespace_from_path(self.params["namespace"])

    def identifier(self, key: str) -> ViewIdentifier:
        return ViewIdentifier(self.namespace, check_level(self.params[key], key))

    @property
    def json(self) -> dict[str, Any]:
        assert self.body is not None  # the app parses a body for every route that takes one
        return self.body


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    """The path after ``/v1/{prefix}``, as in the OpenAPI document."""
    handler: Callable[[Call], Reply]
    mutation: bool = False
    body: str | None = None
    """The request's schema name when it has a JSON body."""
    name: str = ""
    at_once: Callable[[Call], Reply | None] | None = None
    """The answer when it can be given without waiting (on the event loop), else None: then
    ``handler`` runs on a thread."""
    functions: bool = False
    """A SQL UDF endpoint: served (and advertised) only for a catalog that keeps functions."""
    referenced_by: bool = False
    """Whether the route takes the ``referenced-by`` query parameter (REST spec 1.11: load table,
    load credentials, load view): the app parses it into :attr:`Call.referenced_by`."""

    @property
    def endpoint(self) -> str:
        """The endpoint as ``/v1/config`` advertises it."""
        return f"{self.method} /v1/{{prefix}}{self.path}"


_NS = "/namespaces/{namespace}"

ROUTES: tuple[Route, ...] = (
    # namespaces
    Route("GET", "/namespaces", lambda c: namespaces.list_namespaces(c.served, c.query, c.settings)),
    Route(
        "POST",
        "/namespaces",
        lambda c: namespaces.create_namespace(c.served, c.json),
        mutation=True,
        body="CreateNamespaceRequest",
    ),
    Route("GET", _NS, lambda c: namespaces.load_namespace(c.served, c.namespace)),
    Route("HEAD", _NS, lambda c: namespaces.namespace_exists(c.served, c.namespace)),
    Route("DELETE", _NS, lambda c: namespaces.drop_namespace(c.served, c.namespace), mutation=True),
    Route(
        "POST",
        _NS + "/properties",
        lambda c: namespaces.update_properties(c.served, c.namespace, c.json),
        mutation=True,
        body="UpdateNamespacePropertiesRequest",
    ),
    # tables, through PyIceberg
    Route("GET", _NS + "/tables", lambda c: tables.list_tables(c.served, c.namespace, c.query, c.settings)),
    Route(
        "POST",
        _NS + "/tables",
        lambda c: tables.create_table(c.served, c.namespace, c.json, c.settings),
        mutation=True,
        body="CreateTableRequest",
    ),
    Route(
        "POST",
        _NS + "/register",
        lambda c: tables.register_table(c.served, c.namespace, c.json, c.settings),
        mutation=True,
        body="RegisterTableRequest",
    ),
    Route(
        "GET",
        _NS + "/tables/{table}",
        lambda c: tables.load_table(c.served, c.identifier("table"), c.query),
        referenced_by=True,
    ),
    Route("HEAD", _NS + "/tables/{table}", lambda c: tables.table_exists(c.served, c.identifier("table"))),
    Route(
        "POST",
        _NS + "/tables/{table}",
        lambda c: tables.commit_table(c.served, c.identifier("table"), c.json, c.settings),
        mutation=True,
        body="CommitTableRequest",
    ),
    Route(
        "DELETE",
        _NS + "/tables/{table}",
        lambda c: tables.drop_table(c.served, c.identifier("table"), c.query, c.settings),
        mutation=True,
    ),
    Route(
        "POST",
        _NS + "/tables/{table}/metrics",
        lambda c: tables.report_metrics(c.served, c.identifier("table"), c.json),
        body="ReportMetricsRequest",
    ),
    Route(
        "POST",
        "/tables/rename",
        lambda c: tables.rename_table(c.served, c.json),
        mutation=True,
        body="RenameTableRequest",
    ),
    # views, through Catalog.commit_view
    Route("GET", _NS + "/views", lambda c: views.view_list(c.served, c.namespace, c.query, c.settings)),
    Route(
        "POST",
        _NS + "/views",
        lambda c: views.create_view(c.served, c.namespace, c.json, c.settings),
        mutation=True,
        body="CreateViewRequest",
    ),
    Route(
        "GET",
        _NS + "/views/{view}",
        lambda c: views.load_view(c.served, c.identifier("view")),
        at_once=lambda c: views.load_view_nowait(c.served, c.identifier("view")),
        referenced_by=True,
    ),
    Route("HEAD", _NS + "/views/{view}", lambda c: views.view_exists(c.served, c.identifier("view"))),
    Route(
        "POST",
        _NS + "/views/{view}",
        lambda c: views.commit_view(c.served, c.identifier("view"), c.json, c.settings),
        mutation=True,
        body="CommitViewRequest",
    ),
    Route(
        "DELETE",
        _NS + "/views/{view}",
        lambda c: views.drop_view(c.served, c.identifier("view")),
        mutation=True,
    ),
    Route(
        "POST",
        "/views/rename",
        lambda c: views.rename_view(c.served, c.json),
        mutation=True,
        body="RenameTableRequest",
    ),
    Route(
        "POST",
        _NS + "/register-view",
        lambda c: views.register_view(c.served, c.namespace, c.json, c.settings),
        mutation=True,
        body="RegisterViewRequest",
    ),
    # SQL UDFs: list and load are the REST spec's (main branch); the writes are iceview's extension
    Route(
        "GET",
        _NS + "/functions",
        lambda c: functions.function_list(c.served, c.namespace, c.query, c.settings),
        functions=True,
    ),
    Route(
        "GET",
        _NS + "/functions/{function}",
        lambda c: functions.load_function(c.served, c.identifier("function")),
        functions=True,
    ),
    Route(
        "HEAD",
        _NS + "/functions/{function}",
        lambda c: functions.function_exists(c.served, c.identifier("function")),
        functions=True,
    ),
    Route(
        "POST",
        _NS + "/functions/{function}",
        lambda c: functions.commit_function(c.served, c.identifier("function"), c.json, c.settings),
        mutation=True,
        body="CommitFunctionRequest",
        functions=True,
    ),
    Route(
        "DELETE",
        _NS + "/functions/{function}",
        lambda c: functions.drop_function(c.served, c.identifier("function")),
        mutation=True,
        functions=True,
    ),
    Route(
        "POST",
        "/functions/rename",
        lambda c: functions.rename_function(c.served, c.json),
        mutation=True,
        body="RenameTableRequest",
        functions=True,
    ),
)
