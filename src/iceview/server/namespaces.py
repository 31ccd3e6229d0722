"""The namespace endpoints, over the catalog interface."""

from __future__ import annotations

from collections import Counter
from typing import Any

from iceview.errors import NoSuchNamespaceError
from iceview.server.context import Reply, ServedCatalog, ServerSettings
from iceview.server.errors import ApiError, bad_request
from iceview.server.protocol import (
    check_level,
    check_new_namespace,
    get_string_list,
    get_string_map,
    namespace_from_path,
    page,
)

__all__ = [
    "create_namespace",
    "drop_namespace",
    "list_namespaces",
    "load_namespace",
    "namespace_exists",
    "update_properties",
]


def list_namespaces(served: ServedCatalog, query: dict[str, str], settings: ServerSettings) -> Reply:
    parent = query.get("parent")
    namespace = namespace_from_path(parent) if parent else ()
    found = served.catalog.list_namespaces(namespace)
    chunk = page(found, lambda n: n, query.get("pageToken"), query.get("pageSize"), settings.max_page_size)
    body: dict[str, Any] = {"namespaces": [list(n) for n in chunk.items]}
    if chunk.next_token:
        body["next-page-token"] = chunk.next_token
    return Reply(200, body)


def create_namespace(served: ServedCatalog, body: dict[str, Any]) -> Reply:
    what = "CreateNamespaceRequest"
    namespace = tuple(get_string_list(body, "namespace", what))
    if not namespace:
        raise bad_request(f"Invalid {what}: the namespace is empty", "$.namespace")
    for level in namespace:
        check_level(level, "namespace")
    check_new_namespace(namespace, "namespace")
    properties = get_string_map(body, "properties", what)
    served.catalog.create_namespace(namespace, properties)
    return Reply(200, {"namespace": list(namespace), "properties": properties})


def load_namespace(served: ServedCatalog, namespace: tuple[str, ...]) -> Reply:
    properties = served.catalog.load_namespace_properties(namespace)
    return Reply(200, {"namespace": list(namespace), "properties": properties})


def namespace_exists(served: ServedCatalog, namespace: tuple[str, ...]) -> Reply:
    if not served.catalog.namespace_exists(namespace):
        raise NoSuchNamespaceError(f"Namespace does not exist: {'.'.join(namespace)}")
    return Reply(204)


def drop_namespace(served: ServedCatalog, namespace: tuple[str, ...]) -> Reply:
    if not served.catalog.drop_namespace(namespace):
        raise NoSuchNamespaceError(f"Namespace does not exist: {'.'.join(namespace)}")
    return Reply(204)


def update_properties(served: ServedCatalog, namespace: tuple[str, ...], body: dict[str, Any]) -> Reply:
    what = "UpdateNamespacePropertiesRequest"
    removals = get_string_list(body, "removals", what, required=False)
    updates = get_string_map(body, "updates", what)
    repeated = sorted(key for key, n in Counter(removals).items() if n > 1)
    if repeated:  # the OpenAPI says uniqueItems; Java's server takes them as a set
        raise ApiError(
            400, "BadRequestException", f"Invalid {what}: keys removed more than once: {', '.join(repeated)}"
        )
    both = sorted(set(removals) & set(updates))
    if both:
        raise ApiError(
            422,
            "UnprocessableEntityException",
            f"Invalid {what}: keys both removed and updated: {', '.join(both)}",
        )
    result = served.catalog.update_namespace_properties(namespace, removals, updates)
    return Reply(200, {"updated": result.updated, "removed": result.removed, "missing": result.missing})
