"""SparkViews over a REST catalog: a view read while expanding another is loaded with the chain of
views it is read through (``referenced-by``), as the REST server parses it, on every read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fixtures.java_session import JavaSpark
from fixtures.recording_serve import RecordingServer, recording_server
from iceview.catalog import RestCatalog, SqlCatalog
from iceview.identifiers import ViewIdentifier
from iceview.spark import SparkViews

pytestmark = pytest.mark.java

NAME = "rbv"  # a virtual catalog: not a Spark catalog


@pytest.fixture
def rest_views(java_spark: JavaSpark, tmp_path: Path) -> Iterator[tuple[SparkViews, RecordingServer]]:
    served = SqlCatalog("srv", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/wh")
    with recording_server(served) as server:
        catalog = RestCatalog(NAME, uri=server.uri)
        try:
            catalog.create_namespace("rb")
            catalog.create_namespace(("rb", "sub"))
            yield SparkViews(java_spark.spark, catalog), server
        finally:
            catalog.close()


def _chains(server: RecordingServer) -> dict[str, Any]:
    """The chain each view load carried, by the view's name (the last load of each)."""
    return {r.path.rsplit("/", 1)[1]: r.referenced_by for r in server.loads() if r.status == 200}


def test_nested_views_are_loaded_through_their_chain(
    rest_views: tuple[SparkViews, RecordingServer],
) -> None:
    views, server = rest_views
    views.sql(f"CREATE VIEW {NAME}.rb.base AS SELECT 1 AS x")
    views.sql(f"CREATE VIEW {NAME}.rb.mid AS SELECT x + 1 AS x FROM {NAME}.rb.base")
    # in a nested namespace, and naming mid relative to its default namespace would not do: rb.sub
    views.sql(f"CREATE VIEW {NAME}.rb.sub.top AS SELECT x * 10 AS x FROM {NAME}.rb.mid")
    top = ViewIdentifier(("rb", "sub"), "top")
    mid = ViewIdentifier(("rb",), "mid")
    for _ in range(2):  # the first read loads each view, the second refreshes the kept handles
        server.records.clear()
        assert [tuple(r) for r in views.sql(f"SELECT * FROM {NAME}.rb.sub.top").collect()] == [(20,)]
        assert _chains(server) == {"top": None, "mid": (top,), "base": (top, mid)}
    # read directly, a view is loaded through nothing
    server.records.clear()
    assert [tuple(r) for r in views.sql(f"SELECT * FROM {NAME}.rb.base").collect()] == [(1,)]
    assert _chains(server) == {"base": None}
