"""SparkViews on Spark 4 classic (no Iceberg jars) and on Spark Connect (``remote("local")``).

pyspark 3.5.9 has no Spark Connect server, and a process holds one Spark session, so each mode runs
``tests/spark_remote/remote_checks.py`` with ``.venv-spark4`` (pyspark 4, made by
``scripts/setup.sh --tests``) in its own process (``remote_support.py``); the two run at the same time. It reads the TPC-H Parquet files of this run and
must return, for every corpus view, the rows Iceberg-Spark returned here (``corpus_expected``).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import remote_support

from conftest import Lake

pytestmark = [pytest.mark.java, pytest.mark.postgres]

TIMEOUT = 600


@pytest.fixture(scope="module")
def remote_runs(
    lake: Lake, corpus_expected: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, remote_support.Run]]:
    """Both modes' processes, started together: on two cores they take little longer than one (they
    are not started earlier, beside the other Spark tests: those are CPU-bound too)."""
    try:
        yield remote_support.start(lake.parquet_dir, corpus_expected, tmp_path_factory.mktemp("spark4"))
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)
    finally:
        remote_support.stop()


@pytest.mark.parametrize("mode", remote_support.MODES)
def test_spark4(mode: str, remote_runs: dict[str, remote_support.Run]) -> None:
    run = remote_runs[mode]
    try:
        returncode = run.process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        run.process.kill()
        returncode = run.process.wait()
    output = run.log.read_text(encoding="utf-8", errors="replace")
    tail = "\n".join(output.strip().splitlines()[-60:])
    assert returncode == 0, f"Spark 4 {mode} checks failed:\n{tail}"
    assert " passed" in output
