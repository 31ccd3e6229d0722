"""The view endpoints: a thin layer over the catalog interface (Java's ``CatalogHandlers``).

A create is a :class:`~iceview.view.ViewDefinition` given to ``Catalog.create_view``; every other
change arrives as a ``CommitViewRequest`` and goes, parsed with iceview's own codec, through
``Catalog.commit_view``: the one change path, so no rule of the spec is checked here.
"""

from __future__ import annotations

from typing import Any

import orjson

from iceview.catalog.operations import LocationCache
from iceview.errors import InvalidMetadataError, NoSuchViewError
from iceview.files import check_in_warehouse, check_location_properties
from iceview.identifiers import ViewIdentifier
from iceview.server.context import Reply, ServedCatalog, ServerSettings
from iceview.server.errors import bad_request
from iceview.server.protocol import (
    check_new_identifier,
    check_update_locations,
    get_string,
    get_string_map,
    identifier_from_body,
    identifier_json,
    invalid_page_token,
    next_page_token,
    page_request,
)
from iceview.server.protocol import parse_change as parse_commit
from iceview.spec import (
    AddViewVersion,
    ViewRequirement,
    ViewUpdate,
    requirement_from_dict,
    update_from_dict,
)
from iceview.spec.schema import normalize_schema_json, schema_from_json
from iceview.view import View, ViewDefinition

__all__ = [
    "commit_view",
    "create_view",
    "drop_view",
    "load_view",
    "load_view_nowait",
    "register_view",
    "rename_view",
    "view_exists",
    "view_list",
]


# the JSON of recently answered metadata files, by location (a file never changes once written)
_SERIALIZED: LocationCache[orjson.Fragment] = LocationCache(256)


def _metadata_json(view: View) -> Any:
    location = view.metadata_location
    if location is None:
        return view.metadata.to_dict()
    found = _SERIALIZED.get(location)
    if found is None:
        found = orjson.Fragment(orjson.dumps(view.metadata.to_dict()))
        _SERIALIZED.put(location, found)
    return found


def load_result(view: View) -> dict[str, Any]:
    """A ``LoadViewResult``."""
    return {"metadata-location": view.metadata_location, "metadata": _metadata_json(view), "config": {}}


def view_list(
    served: ServedCatalog, namespace: tuple[str, ...], query: dict[str, str], settings: ServerSettings
) -> Reply:
    token = query.get("pageToken")
    request = page_request(token, query.get("pageSize"), settings.max_page_size)
    if request is None:
        names, next_token = sorted(served.catalog.list_views(namespace)), None
    else:
        # one page from the catalog (the SQL catalog asks its database for just that page)
        after = None
        if request.after is not None:
            if request.after[:-1] != namespace or len(request.after) != len(namespace) + 1:
                raise invalid_page_token(token or "")
            after = request.after[-1]
        found = served.catalog.list_views_page(namespace, after=after, limit=request.limit)
        names = found.identifiers
        next_token = next_page_token(names, _same, found.more)
    body: dict[str, Any] = {"identifiers": [identifier_json(n[:-1], n[-1]) for n in names]}
    if next_token:
        body["next-page-token"] = next_token
    return Reply(200, body)


def _same(identifier: tuple[str, ...]) -> tuple[str, ...]:
    return identifier


def _invalid(e: InvalidMetadataError, what: str) -> Exception:
    return bad_request(f"Invalid {what}: {e.message}", e.path)


def create_view(
    served: ServedCatalog, namespace: tuple[str, ...], body: dict[str, Any], settings: ServerSettings
) -> Reply:
    what = "CreateViewRequest"
    name = get_string(body, "name", what) or ""
    check_new_identifier(namespace, name, "view")
    location = get_string(body, "location", what, required=False)
    properties = get_string_map(body, "properties", what)
    # the catalog checks again what it commits; checked first here for any catalog served
    root = served.warehouse_root(settings.allow_external_locations)
    if location is not None:
        check_in_warehouse(location, root, "view location")
    check_location_properties(properties, root, "view")
    if "schema" not in body:
        raise bad_request(f"Invalid {what}: missing field schema", "$.schema")
    if "view-version" not in body:
        raise bad_request(f"Invalid {what}: missing field view-version", "$.view-version")
    try:
        schema = schema_from_json(normalize_schema_json(body["schema"], "$.schema"), "$.schema")
        # the version is read as the update that carries one, so its rules are the codec's
        parsed = update_from_dict({"action": "add-view-version", "view-version": body["view-version"]})
    except InvalidMetadataError as e:
        raise _invalid(e, what) from None
    assert isinstance(parsed, AddViewVersion)
    version = parsed.view_version
    definition = ViewDefinition(
        representations=tuple(version.representations),  # type: ignore[arg-type]
        schema=schema,
        default_namespace=version.default_namespace,
        default_catalog=version.default_catalog,
        properties=properties,
        location=location,
        summary=dict(version.summary),
    )
    view = served.catalog.create_view(ViewIdentifier(namespace, name), definition)
    return Reply(200, load_result(view))


def load_view(served: ServedCatalog, ident: ViewIdentifier) -> Reply:
    return Reply(200, load_result(served.catalog.load_view(ident)))


def load_view_nowait(served: ServedCatalog, ident: ViewIdentifier) -> Reply | None:
    view = served.catalog.load_view_nowait(ident)
    return None if view is None else Reply(200, load_result(view))


def view_exists(served: ServedCatalog, ident: ViewIdentifier) -> Reply:
    if not served.catalog.view_exists(ident):
        raise NoSuchViewError(f"View does not exist: {ident}")
    return Reply(204)


def parse_change(body: dict[str, Any]) -> tuple[list[ViewRequirement], list[ViewUpdate]]:
    """The requirements and updates of a ``CommitViewRequest``."""
    return parse_commit(body, "CommitViewRequest", requirement_from_dict, update_from_dict)


def commit_view(
    served: ServedCatalog, ident: ViewIdentifier, body: dict[str, Any], settings: ServerSettings
) -> Reply:
    if body.get("identifier") is not None:
        # optional (the path names the view); when given, it must be well formed and the same view
        named = identifier_from_body(body, "identifier", "CommitViewRequest")
        if named != ident:
            raise bad_request(
                f"Invalid CommitViewRequest: identifier {named} does not match the view of the path, {ident}",
                "$.identifier",
            )
    requirements, updates = parse_change(body)
    check_update_locations(updates, served.warehouse_root(settings.allow_external_locations), "view")
    view = served.catalog.commit_view(ident, requirements, updates)
    return Reply(200, load_result(view))


def drop_view(served: ServedCatalog, ident: ViewIdentifier) -> Reply:
    if not served.catalog.drop_view(ident):
        raise NoSuchViewError(f"View does not exist: {ident}")
    return Reply(204)


def rename_view(served: ServedCatalog, body: dict[str, Any]) -> Reply:
    what = "RenameTableRequest"
    source = identifier_from_body(body, "source", what)
    destination = identifier_from_body(body, "destination", what)
    check_new_identifier(destination.namespace, destination.name, "view")
    served.catalog.rename_view(source, destination)
    return Reply(204)


def register_view(
    served: ServedCatalog, namespace: tuple[str, ...], body: dict[str, Any], settings: ServerSettings
) -> Reply:
    what = "RegisterViewRequest"
    name = get_string(body, "name", what) or ""
    check_new_identifier(namespace, name, "view")
    location = get_string(body, "metadata-location", what) or ""
    # the file itself; what it points at (its location, write.metadata.path) the catalog checks
    check_in_warehouse(
        location, served.warehouse_root(settings.allow_external_locations), "registered metadata file"
    )
    view = served.catalog.register_view(ViewIdentifier(namespace, name), location)
    return Reply(200, load_result(view))
