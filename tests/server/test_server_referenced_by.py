"""``referenced-by`` (REST spec 1.11): the server parses the view chain of a load (400 when it is
malformed) without changing the answer, and the REST client sends it, encoded so that the server
reads back exactly the chain it was given."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from fixtures.iceview_serve import IceviewServer
from fixtures.recording_serve import recording_server
from iceview.catalog import RestCatalog, SqlCatalog
from iceview.catalog.rest import referenced_by_param
from iceview.errors import InvalidArgumentError
from iceview.identifiers import ViewIdentifier
from iceview.server import ServedCatalog, ServerSettings, create_app
from iceview.server.context import REFERENCED_BY_KEY
from iceview.server.errors import ApiError
from iceview.server.protocol import MAX_REFERENCED_BY, parse_referenced_by
from server.conftest import sqlite_catalog

US = "\x1f"


def ident(*levels: str) -> ViewIdentifier:
    return ViewIdentifier(tuple(levels[:-1]), levels[-1])


# ----------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("value", "chain"),
    [
        (f"db{US}v", [ident("db", "v")]),
        (f"prod{US}analytics{US}quarterly", [ident("prod", "analytics", "quarterly")]),
        (
            f"prod{US}analytics{US}quarterly_view,prod{US}analytics{US}monthly_view",
            [ident("prod", "analytics", "quarterly_view"), ident("prod", "analytics", "monthly_view")],
        ),
        (f"db{US}a%2Cb,d%2cb{US}c", [ident("db", "a,b"), ident("d,b", "c")]),
        (f"db{US}v,db{US}v", [ident("db", "v"), ident("db", "v")]),  # a chain may name a view twice
        (f"db{US}with.dot and space", [ident("db", "with.dot and space")]),
    ],
)
def test_valid_values(value: str, chain: list[ViewIdentifier]) -> None:
    assert parse_referenced_by(value) == tuple(chain)


def test_absent_is_the_empty_chain() -> None:
    assert parse_referenced_by(None) == ()


MALFORMED = [
    ("", "view identifier 1 of 1 is empty"),
    (f"db{US}v,", "view identifier 2 of 2 is empty"),
    (f",db{US}v", "view identifier 1 of 2 is empty"),
    (f"db{US}a,,db{US}b", "view identifier 2 of 3 is empty"),
    ("just_a_name", "view identifier 1 of 1 has no namespace"),
    (f"db{US}v,db.v", "view identifier 2 of 2 has no namespace"),
    (f"db{US}", "view identifier 1 of 1 has an empty view name"),
    (f"{US}v", "view identifier 1 of 1: invalid namespace: empty name"),
    (f"a{US}{US}v", "view identifier 1 of 1: invalid namespace: empty name"),
    (f"db{US}v\x00", "view identifier 1 of 1 contains NUL"),
    (",".join([f"db{US}v"] * (MAX_REFERENCED_BY + 1)), f"more than the {MAX_REFERENCED_BY} allowed"),
]


@pytest.mark.parametrize(("value", "problem"), MALFORMED)
def test_malformed_values_are_bad_requests(value: str, problem: str) -> None:
    with pytest.raises(ApiError) as raised:
        parse_referenced_by(value)
    assert raised.value.status == 400
    assert raised.value.error_type == "BadRequestException"
    assert raised.value.message.startswith("Invalid referenced-by: ")
    assert problem in raised.value.message


def test_the_limit_itself_is_allowed() -> None:
    assert len(parse_referenced_by(",".join([f"db{US}v"] * MAX_REFERENCED_BY))) == MAX_REFERENCED_BY


# ----------------------------------------------------------------------------- the endpoints


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, list[Any]]]:
    """The app on a catalog with ``db.v`` (a view) and ``db.t`` (a table), and the
    ``referenced-by`` chain each request left in its scope (None: none)."""
    catalog = sqlite_catalog(tmp_path)
    catalog.create_namespace("db")
    catalog.create_view(
        "db.v",
        schema=_schema(),
        queries={"spark": "SELECT 1 AS x"},
        default_namespace="db",
    )
    tables = catalog.table_catalog()
    tables.create_table(("db", "t"), schema=_schema())
    tables.engine.dispose()
    seen: list[Any] = []
    app = create_app([ServedCatalog("srv", catalog)], ServerSettings())

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        await app(scope, receive, send)
        if scope["type"] == "http":
            seen.append(scope.get(REFERENCED_BY_KEY))

    with TestClient(recording, raise_server_exceptions=False) as client:
        yield client, seen


def _schema() -> Any:
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField

    return Schema(NestedField(1, "x", IntegerType(), required=False))


LOADS = ["/v1/namespaces/db/views/v", "/v1/namespaces/db/tables/t"]


@pytest.mark.parametrize("path", LOADS)
def test_a_valid_chain_does_not_change_the_answer(served: tuple[TestClient, list[Any]], path: str) -> None:
    client, seen = served
    plain = client.get(path)
    assert plain.status_code == 200
    chained = client.get(path, params={"referenced-by": f"prod{US}analytics{US}q%2C1,db{US}m"})
    assert chained.status_code == 200
    body, chained_body = plain.json(), chained.json()
    if "tables" in path:  # PyIceberg answers a table's config afresh (and so may its file IO)
        body.pop("config", None), chained_body.pop("config", None)
    assert chained_body == body
    # the chain is in the request's context, for middleware (audit, authorization)
    assert seen == [None, (ident("prod", "analytics", "q,1"), ident("db", "m"))]


@pytest.mark.parametrize("path", LOADS)
@pytest.mark.parametrize(("value", "problem"), MALFORMED)
def test_a_malformed_chain_is_a_400(
    served: tuple[TestClient, list[Any]], path: str, value: str, problem: str
) -> None:
    client, seen = served
    response = client.get(path, params={"referenced-by": value})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "BadRequestException" and error["code"] == 400
    assert problem in error["message"]
    assert len(error["message"]) < 200  # the value itself is never repeated
    assert seen == [None]


def test_given_twice_is_a_400(served: tuple[TestClient, list[Any]]) -> None:
    client, _ = served
    response = client.get(
        "/v1/namespaces/db/views/v?referenced-by=db%1Fa&referenced-by=db%1Fb",
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Invalid referenced-by: the parameter is given 2 times"


def test_other_routes_ignore_it(served: tuple[TestClient, list[Any]]) -> None:
    client, seen = served
    assert client.get("/v1/namespaces/db/views", params={"referenced-by": ","}).status_code == 200
    assert seen == [None]


def test_a_missing_view_is_still_a_404(served: tuple[TestClient, list[Any]]) -> None:
    client, _ = served
    response = client.get("/v1/namespaces/db/views/nope", params={"referenced-by": f"db{US}v"})
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "NoSuchViewException"


# ----------------------------------------------------------------------------- the client


CHAIN = [
    ident("prod", "analytics", "quarterly_view"),
    ident("db", "a,b"),  # a comma in a name
    ident("x,y", "z", "m"),  # and in a namespace level
    ident("db", "100% sure"),
    ident("db", "plus+sign"),
]


def test_client_encoding() -> None:
    value = referenced_by_param(CHAIN[:3], US)
    assert value == f"prod{US}analytics{US}quarterly_view,db{US}a%2Cb,x%2Cy{US}z{US}m"
    assert parse_referenced_by(value) == tuple(CHAIN[:3])
    assert referenced_by_param([ident("a", "b", "v")], ".") == "a.b.v"
    with pytest.raises(InvalidArgumentError, match="contains the namespace separator"):
        referenced_by_param([ident("db", f"a{US}b")], US)
    with pytest.raises(InvalidArgumentError, match="has no namespace"):
        referenced_by_param([ViewIdentifier((), "v")], US)


def _view(catalog: Any, name: str) -> None:
    catalog.create_view(name, schema=_schema(), queries={"spark": "SELECT 1 AS x"}, default_namespace="rb")


def test_client_round_trip_is_exact(tmp_path: Path) -> None:
    """What the client is given is what the server parses: the app on a socket, with a log."""
    with recording_server(sqlite_catalog(tmp_path)) as server:
        client = RestCatalog("c", uri=server.uri)
        try:
            client.create_namespace("rb")
            _view(client, "rb.v")
            view = client.load_view("rb.v", referenced_by=CHAIN)
            assert view.name == "c.rb.v"
            assert server.loads()[-1].status == 200
            assert server.loads()[-1].referenced_by == tuple(CHAIN)
            # strings and tuples as identifiers, and a refresh goes through the same views
            view = client.load_view("rb.v", referenced_by=["rb.outer", ("a", "b", "c")])
            view.refresh()
            chains = [r.referenced_by for r in server.loads()[-2:]]
            assert chains == [(ident("rb", "outer"), ident("a", "b", "c"))] * 2
            # without one, none is sent
            client.load_view("rb.v").refresh()
            client.load_view("rb.v", referenced_by=[])
            assert [r.referenced_by for r in server.loads()[-3:]] == [None] * 3
            with pytest.raises(InvalidArgumentError, match="not the string"):
                client.load_view("rb.v", referenced_by="rb.outer")  # type: ignore[arg-type]
        finally:
            client.close()


def test_client_round_trip_against_iceview_serve(iceview_server: IceviewServer) -> None:
    """The real server process: it accepts the client's encoding of every tricky chain, and refuses
    the same chain written as the client must not write it (so the success is the encoding's)."""
    client = RestCatalog("c", uri=iceview_server.uri)
    try:
        if not client.namespace_exists("rb_serve"):
            client.create_namespace("rb_serve")
        if not client.view_exists("rb_serve.v"):
            client.create_view(
                "rb_serve.v",
                schema=_schema(),
                queries={"spark": "SELECT 1 AS x"},
                default_namespace="rb_serve",
            )
        plain = client.load_view("rb_serve.v")
        for chain in ([CHAIN[0]], CHAIN, [ident("db", "v")] * MAX_REFERENCED_BY):
            loaded = client.load_view("rb_serve.v", referenced_by=chain)
            assert loaded.metadata == plain.metadata
        # the client refuses what the server would read as another chain
        with pytest.raises(InvalidArgumentError):
            client.load_view("rb_serve.v", referenced_by=[ident("db", f"a{US}b")])
        # the server's 400 reaches the caller as InvalidArgumentError
        with pytest.raises(InvalidArgumentError, match="more than the 100 allowed"):
            client.load_view("rb_serve.v", referenced_by=[ident("db", "v")] * (MAX_REFERENCED_BY + 1))
    finally:
        client.close()

    import urllib.error
    import urllib.request

    url = iceview_server.uri + "v1/namespaces/rb_serve/views/v?referenced-by="
    # a comma not written %2C splits the name: "db%1Fa" then "b", which has no namespace
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(url + "db%1Fa%2Cb", timeout=10)
    assert raised.value.code == 400
    # a dot is not the separator the server advertises
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(url + "db.v", timeout=10)
    assert raised.value.code == 400
    with urllib.request.urlopen(url + "db%1Fa%252Cb", timeout=10) as response:
        assert response.status == 200


def test_the_sql_catalog_accepts_and_ignores_it(tmp_path: Path) -> None:
    catalog: SqlCatalog = sqlite_catalog(tmp_path)
    try:
        catalog.create_namespace("rb")
        _view(catalog, "rb.v")
        assert catalog.load_view("rb.v", referenced_by=CHAIN).metadata == catalog.load_view("rb.v").metadata
    finally:
        catalog.close()
