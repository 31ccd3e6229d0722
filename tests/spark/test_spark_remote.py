"""SparkViews on Spark 4 classic (no Iceberg jars) and on Spark Connect (``remote("local")``).

pyspark 3.5.9 has no Spark Connect server, and a process holds one Spark session, so each mode runs
``tests/spark_remote/remote_checks.py`` with ``.venv-spark4`` (pyspark 4, made by
``scripts/setup.sh --tests``) in its own process (``remote_support.py``); the two run at the same time. It reads the TPC-H Parquet files of this run and
must return, for the corpus views it reads (every other one: each view is read in one mode), the
rows Iceberg-Spark returned here (``corpus_expected``).

When :func:`test_spark4_connect_hive` is among the tests to run, the Connect process also runs its
Hive check (``test_hive_catalog``: SparkViews on iceview's ``HiveCatalog`` on the session's
metastore), and that test checks what it left in the metastore.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import remote_support

from conftest import Lake
from fixtures.hms_server import HmsServer

pytestmark = [pytest.mark.java, pytest.mark.postgres]

TIMEOUT = 600
HIVE_CHECK = "test_spark4_connect_hive"


def _hive(request: pytest.FixtureRequest) -> tuple[str, str] | None:
    """(the session's metastore, a new database name) when this session runs :data:`HIVE_CHECK`."""
    if not any(getattr(item, "originalname", None) == HIVE_CHECK for item in request.session.items):
        return None
    return request.getfixturevalue("hive_metastore").uri, "cn_" + uuid.uuid4().hex[:8]


@pytest.fixture(scope="module")
def remote_runs(
    lake: Lake,
    corpus_expected: Path,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Iterator[dict[str, remote_support.Run]]:
    """Both modes' processes, started together: on two cores they take little longer than one (they
    are not started earlier, beside the other Spark tests: those are CPU-bound too)."""
    try:
        yield remote_support.start(
            lake.parquet_dir, corpus_expected, tmp_path_factory.mktemp("spark4"), _hive(request)
        )
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
    finally:
        remote_support.stop()


def finished(run: remote_support.Run) -> tuple[int, str]:
    """The run's exit status and output, once it ends (killed after :data:`TIMEOUT` s)."""
    try:
        returncode = run.process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        run.process.kill()
        returncode = run.process.wait()
    return returncode, run.log.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("mode", remote_support.MODES)
def test_spark4(mode: str, remote_runs: dict[str, remote_support.Run]) -> None:
    returncode, output = finished(remote_runs[mode])
    tail = "\n".join(output.strip().splitlines()[-60:])
    assert returncode == 0, f"Spark 4 {mode} checks failed:\n{tail}"
    assert " passed" in output


@pytest.mark.hive
def test_spark4_connect_hive(remote_runs: dict[str, remote_support.Run], hive_metastore: HmsServer) -> None:
    """SparkViews in Spark Connect on a Hive catalog (``remote_checks.py::test_hive_catalog``): the
    rows it read, and its views in the metastore as Iceberg views."""
    import iceview

    run = remote_runs["connect"]
    database = run.hive_database
    assert database is not None
    try:
        returncode, output = finished(run)
        report = run.work / "hive.json"
        tail = "\n".join(output.strip().splitlines()[-60:])
        assert report.is_file(), f"the Connect run's Hive check did not finish (exit {returncode}):\n{tail}"
        result = json.loads(report.read_text(encoding="utf-8"))
        print(f"the Connect run's Hive check took {result['seconds']} s")  # shown with -s
        assert result["rows"] == {
            "v": [{"id": 2, "name": "-"}, {"id": 3, "name": "東京"}],
            "nested": [{"n": 2, "top": "東京"}],
        }
        with hive_metastore.client() as client:
            entries = {name: client.get_table(database, name) for name in ("v", "nested")}
        for entry in entries.values():
            assert entry.tableType == "VIRTUAL_VIEW" and entry.parameters["table_type"] == "ICEBERG-VIEW"
        catalog = iceview.load_catalog("hive_cn", type="hive", uri=hive_metastore.uri)
        try:
            nested = catalog.load_view((database, "nested"))
            assert nested.metadata_location == entries["nested"].parameters["metadata_location"]
            summary = nested.metadata.current_version.summary
            assert summary["engine-name"] == "spark" and summary["engine-version"] == result["spark-version"]
        finally:
            catalog.close()
    finally:
        with hive_metastore.client() as client:
            if database in client.get_all_databases():
                client.drop_database(database, False, True)
