"""Faults between iceview's REST client and a real Iceberg REST server: the server killed in the
middle of a commit, a 503, a slow server hitting the client's timeout, malformed JSON. Each gives a
typed error, and the view is afterwards either wholly the old one or wholly the new one.

A small HTTP proxy in the test process (``catalog_support.RestProxy``) sits in front of the real
Java server and injects the faults.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from catalog_support import SCHEMA, Fault, RestProxy, error_body, file_path, metadata_files

from iceview.catalog.rest import RestCatalog
from iceview.errors import (
    CommitStateUnknownError,
    InvalidMetadataError,
    RESTError,
    ServiceUnavailableError,
)


@pytest.fixture
def proxied(java_rest_server: Any, rest_ns: str) -> Iterator[tuple[RestCatalog, RestProxy]]:
    proxy = RestProxy(java_rest_server.uri)
    cat = RestCatalog("faults", uri=proxy.uri, **{"rest.client.socket-timeout-ms": "1500"})
    cat.create_namespace(rest_ns)
    try:
        yield cat, proxy
    finally:
        cat.close()
        proxy.close()


def create(cat: RestCatalog, ident: str) -> Any:
    ns = ident.split(".")[0]
    return cat.create_view(
        ident, queries={"spark": "select 1 as id, 'a' as data"}, schema=SCHEMA, default_namespace=(ns,)
    )


def replace(cat: RestCatalog, ident: str, n: int) -> Any:
    ns = ident.split(".")[0]
    return cat.replace_view(
        ident, queries={"spark": f"select {n} as id, 'a' as data"}, schema=SCHEMA, default_namespace=(ns,)
    )


def assert_whole(cat: RestCatalog, ident: str, allowed: set[int]) -> None:
    """The view loads, its current version is one of ``allowed`` and every version parses."""
    view = cat.load_view(ident)
    assert view.current_version.version_id in allowed
    assert all(v.representations for v in view.versions)
    assert view.schema.find_field("id") is not None


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_5xx_on_commit_is_unknown_and_not_retried(
    proxied: tuple[RestCatalog, RestProxy], rest_ns: str, status: int
) -> None:
    cat, proxy = proxied
    ident = f"{rest_ns}.v"
    create(cat, ident)
    body = error_body(status, "ServiceUnavailableException", "try later")
    proxy.inject("POST", "/views/v", Fault(status=status, body=body, forward=False))
    with pytest.raises(CommitStateUnknownError, match=f"HTTP {status}"):
        replace(cat, ident, 2)
    assert len([1 for m, p in proxy.requests if m == "POST" and p.endswith("/views/v")]) == 1
    assert_whole(cat, ident, {1})


def test_503_after_the_server_committed(proxied: tuple[RestCatalog, RestProxy], rest_ns: str) -> None:
    """The server applied the change, the client heard 503: unknown, and the view is whole."""
    cat, proxy = proxied
    ident = f"{rest_ns}.v"
    create(cat, ident)
    proxy.inject(
        "POST", "/views/v", Fault(status=503, body=error_body(503, "ServiceUnavailableException", "x"))
    )
    with pytest.raises(CommitStateUnknownError):
        replace(cat, ident, 2)
    assert_whole(cat, ident, {2})


def test_503_on_a_read(proxied: tuple[RestCatalog, RestProxy], rest_ns: str) -> None:
    cat, proxy = proxied
    create(cat, f"{rest_ns}.v")
    proxy.inject(
        "GET",
        "/views/v",
        Fault(status=503, body=error_body(503, "ServiceUnavailableException", "busy"), forward=False),
    )
    with pytest.raises(ServiceUnavailableError, match="busy") as info:
        cat.load_view(f"{rest_ns}.v")
    assert info.value.code == 503 and info.value.error_type == "ServiceUnavailableException"


def test_slow_server_hits_the_client_timeout(proxied: tuple[RestCatalog, RestProxy], rest_ns: str) -> None:
    cat, proxy = proxied
    ident = f"{rest_ns}.v"
    create(cat, ident)
    proxy.inject("GET", "/views/v", Fault(delay=3.0))
    with pytest.raises(ServiceUnavailableError, match="ReadTimeout"):
        cat.load_view(ident)
    proxy.inject("POST", "/views/v", Fault(delay=3.0))
    with pytest.raises(CommitStateUnknownError, match="ReadTimeout"):
        replace(cat, ident, 2)
    # the server did commit (the proxy only delayed its answer)
    assert_whole(cat, ident, {2})


def test_malformed_json(proxied: tuple[RestCatalog, RestProxy], rest_ns: str) -> None:
    cat, proxy = proxied
    ident = f"{rest_ns}.v"
    create(cat, ident)
    proxy.inject("GET", "/views/v", Fault(malformed=True))
    with pytest.raises(RESTError, match="Malformed response"):
        cat.load_view(ident)
    proxy.inject("POST", "/views/v", Fault(malformed=True))
    with pytest.raises(CommitStateUnknownError, match="not a JSON object"):
        replace(cat, ident, 2)
    assert_whole(cat, ident, {2})
    # well-formed JSON that is no view metadata
    proxy.inject(
        "GET",
        "/views/v",
        Fault(status=200, body=b'{"metadata-location": "x", "metadata": {}}', forward=False),
    )
    with pytest.raises(InvalidMetadataError):
        cat.load_view(ident)


def test_server_killed_mid_commit(java_rest_server_factory: Any, tmp_path: Path) -> None:
    server = java_rest_server_factory()
    proxy = RestProxy(server.uri)
    try:
        cat = RestCatalog("killed", uri=proxy.uri)
        cat.create_namespace("ns")
        create(cat, "ns.v")
        # the server dies before it sees the commit: the client cannot know whether it landed
        proxy.inject("POST", "/views/v", Fault(before=server.kill))
        with pytest.raises(CommitStateUnknownError):
            replace(cat, "ns.v", 2)
        with pytest.raises(ServiceUnavailableError):
            cat.load_view("ns.v")
        server.restart()
        assert_whole(cat, "ns.v", {1})
        # the server dies after committing, before answering
        proxy.inject("POST", "/views/v", Fault(drop=True))
        with pytest.raises(CommitStateUnknownError):
            replace(cat, "ns.v", 3)
        assert_whole(cat, "ns.v", {2})
        view = cat.load_view("ns.v")
        folder = Path(file_path(view.location)) / "metadata"
        # every metadata file the server wrote parses: nothing half-written
        from iceview import files

        written = [
            n for n in metadata_files(folder) if n.endswith(".metadata.json") and not n.startswith(".")
        ]
        assert len(written) == 2  # create and the one replace that landed
        for name in written:
            files.read_metadata(str(folder / name))
        cat.close()
    finally:
        proxy.close()


@pytest.mark.parametrize(
    ("status", "error_type", "expected"),
    [
        (403, "ForbiddenException", "ForbiddenError"),
        (400, "BadRequestException", "BadRequestError"),
        (401, "NotAuthorizedException", "NotAuthorizedError"),
        (404, "NoSuchNamespaceException", "NoSuchNamespaceError"),
        (404, "NoSuchViewException", "NoSuchViewError"),
        (418, "TeapotException", "RESTError"),
        (500, "ServiceFailureException", "RESTError"),
    ],
)
def test_error_responses_keep_the_server_message_and_type(
    proxied: tuple[RestCatalog, RestProxy], rest_ns: str, status: int, error_type: str, expected: str
) -> None:
    import iceview.errors

    cat, proxy = proxied
    message = f"the server says no ({error_type})"
    body = error_body(status, error_type, message)
    proxy.inject("GET", "/views/v", Fault(status=status, body=body, forward=False), times=2)
    with pytest.raises(getattr(iceview.errors, expected)) as info:
        cat.load_view(f"{rest_ns}.v")
    assert message in str(info.value)
    if isinstance(info.value, RESTError):
        assert info.value.code == status and info.value.error_type == error_type
        if expected == "RESTError":
            assert error_type in str(info.value)
