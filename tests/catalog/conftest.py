"""Fixtures for the catalog tests: a SQL catalog on SQLite and on a real PostgreSQL server.

``catalog`` is parametrized over both databases (``[sqlite]`` and ``[postgres]``); the PostgreSQL
server comes from ``fixtures.postgres`` (Debian's binaries, started once per session). ``tables`` is
PyIceberg 0.12's own ``SqlCatalog`` on the same database and warehouse, used to make real tables.

The modules in ``REST_MODULES`` also run over REST (``[rest]``): iceview's ``RestCatalog`` on a
reference REST server (``fixtures.rest_java``: Iceberg Java 1.10.2's ``CatalogHandlers`` over a
``JdbcCatalog``), with PyIceberg's ``RestCatalog`` as ``tables``; and (``[serve]``) the same two
clients on an ``iceview serve`` (``fixtures.iceview_serve``: iceview's own server, a real process,
over its SQL catalog on SQLite). Each kind of server is started once for these cases and emptied
before each test (every view, table and namespace dropped through the REST API, the warehouse
folder cleared); a server that cannot be emptied is replaced by a new one.
``rest_catalog`` and ``rest_ns`` give a test its own namespace on the session's shared server.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from catalog_support import CATALOG_NAME, VIEW_CATALOG_PROPERTIES, CatalogEnv
from hive_support import empty_metastore

from iceview.catalog.interface import close_table_catalog
from iceview.catalog.sql import SqlCatalog
from iceview.catalog.walk import walk

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


# test modules whose cases also run over REST (backend ``rest``: a private reference REST server per
# test, Iceberg Java's CatalogHandlers over a JdbcCatalog), and the cases that do not apply, with why
REST_MODULES = {"test_catalog_views", "test_catalog_derived"}
_NO_REGISTER = "Iceberg 1.10.2's REST server has no register-view (test_catalog_rest.py: not advertised)"
_SUMMARY_LOST = (
    "Iceberg 1.10.2's REST server rebuilds a created view's first version and drops its summary, "
    "where iceview records which dialects it derived (test_catalog_rest.py)"
)
REST_NOT_APPLICABLE = {
    "test_hand_written_dialects_keep_the_guard": _SUMMARY_LOST,
    "test_11_create_view_that_already_exists_as_table": "checks that iceview deletes its orphan file; "
    "over REST the server (Iceberg Java, which keeps it) writes the file",
    "test_26_list_views_in_empty_namespace": "REST catalogs keep no views in the root namespace (Java: "
    "supportsEmptyNamespace is false for REST)",
    "test_37_create_view_conflict": "drives the SQL catalog's ViewOperations directly",
    "test_42_concurrent_replace_view_version": "drives the SQL catalog's ViewOperations directly "
    "(test_catalog_rest.py races two REST clients instead)",
    "test_sync_after_a_writer_that_does_not_derive": "drives the SQL catalog's ViewOperations directly "
    "(Iceberg-Spark on the shared JDBC tables: tests/interop/test_derived_dialects_spark.py)",
    "test_48_register_view": _NO_REGISTER,
    "test_49_register_existing_view": _NO_REGISTER,
    "test_50_register_view_that_already_exists_as_table": _NO_REGISTER,
}
# over ``iceview serve`` (backend ``serve``) fewer cases are out: the server writes with iceview's SQL
# catalog, which deletes its orphan file (test 11), and it serves register-view (tests 48 to 50)
SERVE_NOT_APPLICABLE = {
    name: why
    for name, why in REST_NOT_APPLICABLE.items()
    if why not in (_NO_REGISTER, _SUMMARY_LOST) and name != "test_11_create_view_that_already_exists_as_table"
}
# cases of other modules that also run through ``iceview serve``: concurrent writers whose commits the
# server re-applies on its own refreshed base (issue 32)
ALSO_SERVE = {"test_replaces_with_one_new_schema", "test_every_kind_of_change_races"}
# the REST modules' cases also run on a Hive Metastore (backend ``hive``: iceview's HiveCatalog on the
# session's metastore, emptied before each test; PyIceberg's HiveCatalog makes the tables)
# the concurrent writers also race on the metastore, with its locks (``hive``) and with its
# compare-and-swap (``hive-nolock``): each case in one mode, for time (with locks, 400 commits took 80 s;
# each case passes in both modes)
ALSO_HIVE = {
    "test_concurrent_replaces": "hive-nolock",
    "test_replaces_with_one_new_schema": "hive",
    "test_every_kind_of_change_races": "hive",
}
# the SQL UDF cases also run through ``iceview serve`` and iceview's REST client (the REST spec's list
# and load, iceview's write extension), but for those about the SQL catalog's own storage
FUNCTIONS_MODULE = "test_catalog_functions"
FUNCTIONS_SQL_ONLY = {
    "test_the_functions_table_and_java_s_tables": "the SQL catalog's table, read with SQL",
    "test_a_namespace_drop_racing_a_create_never_orphans_a_function": "times the race on the SQL "
    "catalog's statements (tests/server/test_function_endpoint_attacks.py races it through the server)",
}
# cases about the Hive catalog alone
ONLY_HIVE = {"test_writers_with_and_without_locks"}
HIVE_NOT_APPLICABLE = {
    "test_26_list_views_in_empty_namespace": "a Hive Metastore has no root namespace to hold views "
    "(namespaces are databases)",
}


@dataclass
class ServeEnv(CatalogEnv):
    """The ``[serve]`` backend: REST clients (backend ``rest``) on ``iceview serve``, whose warehouse
    is configured as ``file:///path`` (the Java server's HadoopFileIO writes ``file:/path``)."""

    @property
    def warehouse_uri(self) -> str:
        return "file://" + str(self.warehouse)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "env" not in metafunc.fixturenames:
        return
    backends: list[Any] = list(BACKENDS)
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if metafunc.function.__name__ in ONLY_HIVE:
        metafunc.parametrize("env", [pytest.param("hive", marks=pytest.mark.hive)], indirect=True)
        return
    # cases that do not apply over REST are not generated (nothing is skipped); the reasons above
    if module in REST_MODULES and metafunc.function.__name__ not in REST_NOT_APPLICABLE:
        backends.append("rest")
    name = metafunc.function.__name__
    functions = module == FUNCTIONS_MODULE and name not in FUNCTIONS_SQL_ONLY
    if (module in REST_MODULES and name not in SERVE_NOT_APPLICABLE) or name in ALSO_SERVE or functions:
        backends.append("serve")
    if module in REST_MODULES and name not in HIVE_NOT_APPLICABLE:
        backends.append(pytest.param("hive", marks=pytest.mark.hive))
    if name in ALSO_HIVE:
        backends.append(pytest.param(ALSO_HIVE[name], marks=pytest.mark.hive))
    metafunc.parametrize("env", backends, indirect=True)


class ReusedServer:
    """One REST server for many tests, each of which finds it empty (see the module's docstring).
    Starting a server per test cost about two seconds of CPU each, for some 80 cases."""

    def __init__(self, start: Callable[[int], Any]) -> None:
        self._start = start
        self._starts = 0
        self._server: Any = None

    def get(self) -> Any:
        if self._server is not None:
            try:
                _empty(self._server.uri, Path(self._server.warehouse))
                return self._server
            except Exception:  # a test left what the API cannot drop (a missing metadata file)
                self._server.stop()
                self._server = None
        self._starts += 1
        self._server = self._start(self._starts)
        return self._server

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()


def _empty(uri: str, warehouse: Path) -> None:
    from iceview.catalog.rest import RestCatalog

    with RestCatalog("empty", uri=uri) as catalog:
        tables = catalog.table_catalog()
        namespaces = list(walk(catalog, "namespaces"))
        functions = catalog.supports_functions()
        for namespace in reversed(namespaces):  # children before their parents
            for view in catalog.list_views(namespace):
                catalog.drop_view(view)
            for function in catalog.list_functions(namespace) if functions else []:
                catalog.drop_function(function)
            for table in tables.list_tables(namespace):
                tables.drop_table(table)
            catalog.drop_namespace(namespace)
        close_table_catalog(tables)
    for child in warehouse.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()


@pytest.fixture(scope="session")
def reused_java_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReusedServer]:
    from fixtures.java_session import OracleUnavailableError
    from fixtures.rest_java import start_java_rest_server

    def start(n: int) -> Any:
        try:
            return start_java_rest_server(tmp_path_factory.mktemp(f"reused-rest-{n}"))
        except OracleUnavailableError as e:
            pytest.fail(f"the Iceberg REST reference server cannot start: {e}", pytrace=False)

    reused = ReusedServer(start)
    yield reused
    reused.stop()


@pytest.fixture(scope="session")
def reused_iceview_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReusedServer]:
    from fixtures.iceview_serve import start_iceview_server

    reused = ReusedServer(lambda n: start_iceview_server(tmp_path_factory.mktemp(f"reused-serve-{n}")))
    yield reused
    reused.stop()


@pytest.fixture
def env(request: pytest.FixtureRequest, tmp_path: Path) -> CatalogEnv:
    if request.param == "rest":
        server = request.getfixturevalue("reused_java_server").get()
        return CatalogEnv("rest", server.uri, Path(server.warehouse), server.jdbc_uri)
    if request.param == "serve":
        served = request.getfixturevalue("reused_iceview_server").get()
        return ServeEnv("rest", served.uri, served.warehouse)
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    if request.param in ("hive", "hive-nolock"):
        metastore = request.getfixturevalue("hive_metastore")
        empty_metastore(metastore)
        lock_free = {"iceberg.engine.hive.lock-enabled": "false"} if request.param == "hive-nolock" else {}
        return CatalogEnv("hive", metastore.uri, warehouse, properties=lock_free)
    if request.param == "sqlite":
        return CatalogEnv(
            "sqlite", f"sqlite:///{tmp_path}/catalog.db", warehouse, f"jdbc:sqlite:{tmp_path}/catalog.db"
        )
    db = request.getfixturevalue("postgres_database")
    return CatalogEnv("postgres", db.url, warehouse, db.jdbc_url, db.user)


@pytest.fixture
def catalog(env: CatalogEnv) -> Iterator[SqlCatalog]:
    cat = env.catalog(**VIEW_CATALOG_PROPERTIES)
    try:
        yield cat
    finally:
        cat.close()


@pytest.fixture
def tables(env: CatalogEnv, catalog: SqlCatalog) -> Iterator[Any]:
    """PyIceberg's SqlCatalog on the same database (created after ours, so ours made the tables)."""
    cat = env.pyiceberg()
    try:
        yield cat
    finally:
        close_table_catalog(cat)
        if env.backend == "rest":
            cat.close()


# ----------------------------------------------------------------------------- REST


@pytest.fixture
def rest_ns() -> str:
    """A namespace of its own for a test on the shared REST server."""
    from catalog_support import unique_namespace

    return unique_namespace()


@pytest.fixture
def rest_catalog(java_rest_server: Any, rest_ns: str) -> Iterator[Any]:
    """iceview's REST catalog on the session's reference server (Iceberg Java 1.10.2's
    ``CatalogHandlers`` over a ``JdbcCatalog``), with ``rest_ns`` created."""
    from iceview.catalog.rest import RestCatalog

    cat = RestCatalog(CATALOG_NAME, uri=java_rest_server.uri, **VIEW_CATALOG_PROPERTIES)
    cat.create_namespace(rest_ns)
    try:
        yield cat
    finally:
        cat.close()
