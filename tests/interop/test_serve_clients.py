"""Real clients against ``iceview serve`` (a real process, ``fixtures.iceview_serve``), on SQLite
and on PostgreSQL (two workers): iceview's ``RestCatalog`` and PyIceberg's ``RestCatalog`` see the same views;
iceview's client registers views and sends ``Idempotency-Key`` on mutations (the server advertises
``idempotency-key-lifetime``); the ``iceview`` command works with the server as a ``type=rest``
catalog; static tokens and OAuth2 client credentials (``--auth-file``) work in every client, a
read-only one is refused changes, and no secret reaches the server's log. Spark is in
``test_serve_spark.py``.
"""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import threading
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

from fixtures.iceview_serve import (
    SERVED,
    AuthFile,
    IceviewServer,
    serving,
    write_auth_file,
)
from iceview.catalog import Catalog, SqlCatalog, load_catalog
from iceview.errors import (
    ForbiddenError,
    IceviewError,
    NoSuchViewError,
    NotAuthorizedError,
    ViewAlreadyExistsError,
)
from iceview.files import read_metadata

SCHEMA = Schema(
    NestedField(1, "id", IntegerType(), required=False, doc="the id"),
    NestedField(2, "name", StringType(), required=False),
)
SPARK_SQL = "SELECT id, name FROM ns.t"
TRINO_SQL = 'SELECT id, name FROM "ns"."t"'


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[IceviewServer]:
    """``iceview serve`` of this module: on SQLite, or with two workers on a fresh PostgreSQL database."""
    # PostgreSQL as in production: two worker processes share the database (and the idempotency keys)
    args = ("--workers", "2") if request.param == "postgres" else ()
    workdir = tmp_path_factory.mktemp(f"serve-{request.param}")
    with serving(request, request.param, workdir, args=args) as server:
        yield server


@pytest.fixture
def client(served: IceviewServer) -> Iterator[Catalog]:
    """iceview's REST client on the server."""
    catalog = load_catalog("clients", type="rest", uri=served.uri)
    try:
        yield catalog
    finally:
        catalog.close()


@pytest.fixture
def ns(client: Catalog) -> str:
    """A namespace of the test's own (the module's server is shared)."""
    name = "c_" + uuid.uuid4().hex[:8]
    client.create_namespace(name)
    return name


def local_path(location: str) -> Path:
    return Path(urllib.parse.urlparse(location).path)


def test_pyiceberg_and_iceview_load_the_same_views(served: IceviewServer, client: Catalog, ns: str) -> None:
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog

    view = client.create_view(
        f"{ns}.v",
        schema=SCHEMA,
        queries=[("spark", SPARK_SQL), ("trino", TRINO_SQL)],
        default_namespace=(ns,),
        properties={"owner": "iceview"},
    )
    location = str(view.metadata_location)
    # the server wrote the file into its warehouse, and the database holds the pointer
    assert location.startswith(served.warehouse_uri + f"/{ns}/v/metadata/00000-")
    assert local_path(location).is_file()
    direct = SqlCatalog(SERVED, uri=served.db_url, warehouse=served.warehouse_uri)
    try:
        assert direct.load_view(f"{ns}.v").metadata_location == location
    finally:
        direct.close()

    py = PyIcebergRestCatalog("py", uri=served.uri)
    loaded = py.load_view((ns, "v"))
    assert loaded.metadata.view_uuid == str(view.uuid)
    assert loaded.metadata.current_version_id == 1
    assert loaded.metadata.properties["owner"] == "iceview"
    representations = {r.root.dialect: r.root.sql for r in loaded.metadata.versions[0].representations}
    assert representations == {"spark": SPARK_SQL, "trino": TRINO_SQL}
    assert [f.name for f in loaded.metadata.schemas[0].fields] == ["id", "name"]
    assert py.list_views(ns) == [(ns, "v")]
    assert py.view_exists((ns, "v"))

    # a change through iceview's client is what PyIceberg loads next
    view.update_properties().set("k", "v").remove("owner").commit()
    client.replace_view(
        f"{ns}.v",
        schema=SCHEMA,
        queries=[("spark", "SELECT 1 AS id"), ("trino", "SELECT 1 AS id")],
        default_namespace=(ns,),
    )
    again = py.load_view((ns, "v")).metadata
    assert again.current_version_id == 2
    assert again.properties.get("k") == "v" and "owner" not in again.properties
    assert read_metadata(str(client.load_view(f"{ns}.v").metadata_location)).current_version_id == 2

    # and the server's answers are iceview's reads of the same files
    assert client.load_view(f"{ns}.v").metadata == read_metadata(
        str(client.load_view(f"{ns}.v").metadata_location)
    )
    py.drop_view((ns, "v"))
    assert not client.view_exists(f"{ns}.v")


def test_register_view(served: IceviewServer, client: Catalog, ns: str, tmp_path: Path) -> None:
    view = client.create_view(
        f"{ns}.v",
        schema=SCHEMA,
        queries={"spark": SPARK_SQL},
        default_namespace=(ns,),
        properties={"gc.enabled": "false"},
    )
    view.update_properties().set("a", "1").commit()
    location = str(client.load_view(f"{ns}.v").metadata_location)
    original = client.load_view(f"{ns}.v").metadata
    assert client.drop_view(f"{ns}.v")
    assert local_path(location).is_file()  # gc.enabled=false: the files stay

    registered = client.register_view(f"{ns}.back", location)
    assert registered.metadata_location == location
    assert registered.metadata.versions == original.versions
    assert registered.properties["a"] == "1"
    assert client.load_view(f"{ns}.back").metadata_location == location
    # the next commit numbers on from the registered file
    registered.update_properties().set("b", "2").commit()
    assert "/00002-" in str(client.load_view(f"{ns}.back").metadata_location)

    with pytest.raises(ViewAlreadyExistsError, match=rf"^View already exists: {ns}\.back"):
        client.register_view(f"{ns}.back", location)
    # a file outside the server's warehouse is refused, and no view is made
    outside = tmp_path / "outside.gz.metadata.json"
    shutil.copyfile(local_path(location), outside)
    with pytest.raises(ForbiddenError, match="lies outside the catalog's warehouse"):
        client.register_view(f"{ns}.stolen", "file://" + str(outside))
    missing = served.warehouse_uri + f"/{ns}/nothing/metadata/00000-x.metadata.json"
    with pytest.raises(IceviewError, match="does not exist"):
        client.register_view(f"{ns}.missing", missing)
    assert not client.view_exists(f"{ns}.stolen") and not client.view_exists(f"{ns}.missing")
    with pytest.raises(NoSuchViewError):
        client.load_view(f"{ns}.missing")


# ----------------------------------------------------------------------------- Idempotency-Key


class HeaderRecorder:
    """An HTTP forwarder in the test process in front of the server: it passes every request on
    untouched and records ``(method, path, headers)``."""

    def __init__(self, target_uri: str) -> None:
        target = urllib.parse.urlparse(target_uri)
        self.target = (target.hostname or "127.0.0.1", target.port or 80)
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                recorder.forward(self)

            do_GET = do_POST = do_HEAD = do_DELETE = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def forward(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "connection")}
        self.seen.append((handler.command, handler.path, dict(handler.headers.items())))
        conn = http.client.HTTPConnection(*self.target, timeout=60)
        try:
            conn.request(handler.command, handler.path, body=body, headers=headers)
            response = conn.getresponse()
            payload = response.read()
            handler.send_response(response.status)
            for key in ("Content-Type", "Retry-After"):
                if response.getheader(key):
                    handler.send_header(key, str(response.getheader(key)))
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            if handler.command != "HEAD":
                handler.wfile.write(payload)
        finally:
            conn.close()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_client_sends_idempotency_keys_the_server_honours(served: IceviewServer, ns: str) -> None:
    lifetime = served.config().get("idempotency-key-lifetime")
    assert isinstance(lifetime, str) and lifetime.startswith("PT"), (
        f"iceview serve advertises how long it keeps Idempotency-Keys (an ISO-8601 duration), not {lifetime!r}"
    )
    recorder = HeaderRecorder(served.uri)
    catalog = load_catalog("keyed", type="rest", uri=recorder.uri)
    try:
        view = catalog.create_view(
            f"{ns}.v", schema=SCHEMA, queries={"spark": SPARK_SQL}, default_namespace=(ns,)
        )
        view.update_properties().set("k", "v").commit()
        assert catalog.load_view(f"{ns}.v").properties["k"] == "v"
        catalog.drop_view(f"{ns}.v")
    finally:
        catalog.close()
        recorder.close()
    keys: dict[str, list[str]] = {}
    for method, path, headers in recorder.seen:
        key = {k.lower(): v for k, v in headers.items()}.get("idempotency-key")
        if method in ("POST", "DELETE"):
            assert key is not None, f"{method} {path} carries no Idempotency-Key"
            assert str(uuid.UUID(key)) == key  # a UUID, as the spec asks
            keys.setdefault(key, []).append(f"{method} {path}")
        else:
            assert key is None, f"{method} {path} carries an Idempotency-Key"
    mutations = [m for m, _, _ in recorder.seen if m in ("POST", "DELETE")]
    assert len(mutations) == 3  # create, commit, drop
    assert len(keys) == 3  # one key per mutation

    # the server honours a key: the same request again is answered from the store, not run again
    body = json.dumps(
        {
            "name": "once",
            "schema": SCHEMA.model_dump(by_alias=True),
            "view-version": {
                "version-id": 1,
                "timestamp-ms": 1,
                "schema-id": 0,
                "summary": {"engine-name": "test"},
                "representations": [{"type": "sql", "sql": "SELECT 1 AS id", "dialect": "spark"}],
                "default-namespace": [ns],
            },
            "properties": {},
        }
    ).encode()
    key = str(uuid.uuid4())
    answers = [_post(served, f"v1/namespaces/{ns}/views", body, key) for _ in range(2)]
    assert [status for status, _ in answers] == [200, 200]
    assert answers[0][1]["metadata-location"] == answers[1][1]["metadata-location"]
    # without the key, the same request is a conflict: the view exists
    assert _post(served, f"v1/namespaces/{ns}/views", body, None)[0] == 409


def test_sigv4_signs_every_request_views_included(served: IceviewServer, ns: str) -> None:
    """``rest.sigv4-enabled`` (AWS Glue, S3 Tables): PyIceberg's SigV4 adapter signs the requests of
    its session, and iceview's view requests go through that session too, so they are signed."""
    recorder = HeaderRecorder(served.uri)
    catalog = load_catalog(
        "signed",
        type="rest",
        uri=recorder.uri,
        **{
            "rest.sigv4-enabled": "true",
            "rest.signing-name": "glue",
            "rest.signing-region": "eu-west-1",
            "client.access-key-id": "AKIDEXAMPLE",
            "client.secret-access-key": "wJalrXUtnFEMI-not-a-real-secret",
            "client.region": "eu-west-1",
        },
    )
    try:
        catalog.create_view(
            f"{ns}.signed", schema=SCHEMA, queries={"spark": SPARK_SQL}, default_namespace=(ns,)
        )
        assert catalog.load_view(f"{ns}.signed").uuid
        assert f"{ns}.signed" in [".".join(v) for v in catalog.list_views(ns)]
        catalog.drop_view(f"{ns}.signed")
    finally:
        catalog.close()
        recorder.close()
    view_requests = [(m, p, h) for m, p, h in recorder.seen if "/views" in p]
    assert len(view_requests) >= 4, recorder.seen
    for method, path, headers in recorder.seen:
        lowered = {k.lower(): v for k, v in headers.items()}
        auth = lowered.get("authorization", "")
        assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"), (method, path, auth)
        assert "/eu-west-1/glue/aws4_request" in auth and "x-amz-date" in lowered, (method, path)
        assert "not-a-real-secret" not in str(headers)


def _post(served: IceviewServer, path: str, body: bytes, key: str | None) -> tuple[int, dict[str, Any]]:
    target = urllib.parse.urlparse(served.uri)
    conn = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port or 80, timeout=30)
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Idempotency-Key"] = key
    try:
        conn.request("POST", "/" + path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


# ----------------------------------------------------------------------------- the command line


def _script() -> str:
    """The ``iceview`` script of this interpreter's environment."""
    import sys

    return str(Path(sys.executable).parent / "iceview")


def iceview(served: IceviewServer, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``iceview -c lake ARGS`` as a real process, ``lake`` being the server (``type=rest``)."""
    return subprocess.run(
        [_script(), "-c", "lake", *args],
        env=served.client_env("lake", home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_command_line_against_the_server(
    served: IceviewServer, client: Catalog, ns: str, tmp_path: Path
) -> None:
    view = client.create_view(
        f"{ns}.v",
        schema=SCHEMA,
        queries={"spark": SPARK_SQL},
        default_namespace=(ns,),
        properties={"comment": "c"},
    )
    client.replace_view(
        f"{ns}.v", schema=SCHEMA, queries={"spark": "SELECT 2 AS id, 'b' AS name"}, default_namespace=(ns,)
    )
    assert view.uuid == client.load_view(f"{ns}.v").uuid

    def ok(*args: str) -> str:
        done = iceview(served, tmp_path, *args)
        assert done.returncode == 0, (
            f"iceview {' '.join(args)}: {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
        return done.stdout

    assert "rest" in ok("catalogs")
    assert ns in ok("namespaces").split()
    listed = json.loads(ok("list", ns, "-o", "json"))
    assert listed["catalog"] == "lake" and listed["views"] == [f"{ns}.v"]
    shown = ok("show", f"{ns}.v")
    assert "SELECT 2 AS id" in shown
    history = json.loads(ok("history", f"{ns}.v", "-o", "json"))
    assert history["metadata-file"] == str(client.load_view(f"{ns}.v").metadata_location)
    assert [entry["version-id"] for entry in history["versions"]] == [1, 2]
    assert history["current-version-id"] == 2
    diff = ok("diff", f"{ns}.v", "1", "2")
    assert "-SELECT id, name FROM ns.t" in diff and "+SELECT 2 AS id" in diff
    assert "current version 2 -> 1" in ok("rollback", f"{ns}.v", "--to", "1")
    assert client.load_view(f"{ns}.v").current_version.version_id == 1
    history = json.loads(ok("history", f"{ns}.v", "-o", "json"))
    assert [(p["version-id"], p["rollback"]) for p in history["history"]] == [
        (1, False),
        (2, False),
        (1, True),
    ]
    assert "owner = 'cli'" in ok("set-property", f"{ns}.v", "owner", "cli")
    assert "removed comment" in ok("unset-property", f"{ns}.v", "comment")
    properties = client.load_view(f"{ns}.v").properties
    assert properties["owner"] == "cli" and "comment" not in properties
    assert f"renamed to {ns}.w" in ok("rename", f"{ns}.v", "w")
    assert client.view_exists(f"{ns}.w") and not client.view_exists(f"{ns}.v")
    assert "dropped" in ok("drop", f"{ns}.w", "--yes")
    assert not client.view_exists(f"{ns}.w")
    missing = iceview(served, tmp_path, "show", f"{ns}.w")
    assert missing.returncode == 3, missing.stderr
    assert f"{ns}.w" in missing.stderr


def test_translation_and_queries_from_the_command_line(
    served: IceviewServer, client: Catalog, ns: str, tmp_path: Path
) -> None:
    """The rest of the commands over REST: lint, translate, add-dialect (a new version through
    the server) and sql (DuckDB reads the table's rows through PyIceberg's REST catalog)."""
    import pyarrow as pa

    tables = client.table_catalog()
    table = tables.create_table(f"{ns}.t", SCHEMA)
    table.append(
        pa.table({"id": pa.array([1, 2, None], pa.int32()), "name": pa.array(["ä", None, "c"], pa.string())})
    )
    client.create_view(
        f"{ns}.v",
        schema=SCHEMA,
        queries={"spark": f"SELECT id, name FROM {ns}.t WHERE id IS NOT NULL"},
        default_namespace=(ns,),
    )

    def ok(*args: str) -> str:
        done = iceview(served, tmp_path, *args)
        assert done.returncode == 0, (
            f"iceview {' '.join(args)}: {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
        return done.stdout

    assert "no problems" in ok("lint", f"{ns}.v")
    assert "NOT t.id IS NULL" in ok("translate", f"{ns}.v", "--to", "duckdb")
    assert "adds duckdb (translated from spark)" in ok("add-dialect", f"{ns}.v", "duckdb")
    assert client.load_view(f"{ns}.v").current_version.dialects == ("spark", "duckdb")
    rows = ok("sql", f"SELECT id, name FROM {ns}.v ORDER BY id")
    assert rows.splitlines()[0] == "id\tname" and "1\tä" in rows.splitlines()  # the plain form in a pipe


# ----------------------------------------------------------------------------- authentication


def _run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_script(), "-c", "lake", *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _secrets_of(auth: AuthFile) -> list[str]:
    return [*auth.tokens.values(), *(c.split(":", 1)[1] for c in auth.credentials.values())]


def test_clients_with_static_tokens(
    iceview_server_factory: Callable[..., IceviewServer],
    tmp_path: Path,
) -> None:
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog
    from pyiceberg.exceptions import ForbiddenError as PyIcebergForbiddenError

    auth = write_auth_file(tmp_path, {}, {"etl": "read-write", "dashboards": "read-only"})
    server = iceview_server_factory(args=("--auth-file", str(auth.path)))
    writer = load_catalog("w", type="rest", uri=server.uri, token=auth.tokens["etl"])
    reader = load_catalog("r", type="rest", uri=server.uri, token=auth.tokens["dashboards"])
    try:
        writer.create_namespace("secured")
        writer.create_view(
            "secured.v", schema=SCHEMA, queries={"spark": SPARK_SQL}, default_namespace=("secured",)
        )
        # read-only: loads, but changes nothing
        assert reader.load_view("secured.v").uuid == writer.load_view("secured.v").uuid
        with pytest.raises(ForbiddenError):
            reader.load_view("secured.v").update_properties().set("k", "v").commit()
        py = PyIcebergRestCatalog("py", uri=server.uri, token=auth.tokens["dashboards"])
        assert py.list_views("secured") == [("secured", "v")]
        with pytest.raises(PyIcebergForbiddenError):
            py.drop_view(("secured", "v"))
        # no token: 401
        with pytest.raises(NotAuthorizedError):
            load_catalog("anon", type="rest", uri=server.uri).list_views("secured")

        # the command line, with the token configured as PyIceberg reads it
        home = tmp_path / "home"
        home.mkdir()
        done = _run_cli(
            server.client_env("lake", home, token=auth.tokens["etl"]),
            "set-property",
            "secured.v",
            "owner",
            "cli",
        )
        assert done.returncode == 0, done.stderr
        assert writer.load_view("secured.v").properties["owner"] == "cli"
        refused = _run_cli(
            server.client_env("lake", home, token=auth.tokens["dashboards"]), "drop", "secured.v", "--yes"
        )
        assert refused.returncode != 0
        assert writer.view_exists("secured.v")
        assert auth.tokens["dashboards"] not in refused.stderr + refused.stdout
    finally:
        writer.close()
        reader.close()
    server.stop()
    log = server.log_text(lines=100_000)
    assert not [s for s in _secrets_of(auth) if s in log]


def test_clients_with_oauth2_credentials(
    iceview_server_factory: Callable[..., IceviewServer],
    tmp_path: Path,
) -> None:
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRestCatalog
    from pyiceberg.exceptions import ForbiddenError as PyIcebergForbiddenError

    auth = write_auth_file(tmp_path, {"etl": "read-write", "viewer": "read-only"})
    server = iceview_server_factory(args=("--auth-file", str(auth.path)))
    oauth = {"oauth2-server-uri": server.uri + "v1/oauth/tokens"}
    writer = load_catalog("w", type="rest", uri=server.uri, credential=auth.credentials["etl"], **oauth)
    try:
        writer.create_namespace("secured")
        writer.create_view(
            "secured.v", schema=SCHEMA, queries={"spark": SPARK_SQL}, default_namespace=("secured",)
        )
        py = PyIcebergRestCatalog("py", uri=server.uri, credential=auth.credentials["viewer"], **oauth)
        assert py.load_view(("secured", "v")).metadata.view_uuid == str(writer.load_view("secured.v").uuid)
        with pytest.raises(PyIcebergForbiddenError):
            py.drop_view(("secured", "v"))
        home = tmp_path / "home"
        home.mkdir()
        env = server.client_env("lake", home, credential=auth.credentials["etl"], **oauth)
        done = _run_cli(env, "set-property", "secured.v", "owner", "cli")
        assert done.returncode == 0, done.stderr
        assert writer.load_view("secured.v").properties["owner"] == "cli"
        wrong = server.client_env("lake", home, credential="etl:not-the-secret", **oauth)
        refused = _run_cli(wrong, "list", "secured")
        assert refused.returncode != 0
        assert "not-the-secret" not in refused.stderr + refused.stdout
    finally:
        writer.close()
    server.stop()
    log = server.log_text(lines=100_000)
    assert not [s for s in _secrets_of(auth) if s in log]
