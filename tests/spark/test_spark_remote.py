"""SparkViews on Spark 4 classic (no Iceberg jars) and on Spark Connect (``remote("local")``).

pyspark 3.5.9 has no Spark Connect server, and a process holds one Spark session, so each mode runs
``tests/spark_remote/remote_checks.py`` with ``.venv-spark4`` (pyspark 4, made by
``scripts/setup.sh --tests``) in its own process. It reads the TPC-H Parquet files of this run and
must return, for every corpus view, the rows Iceberg-Spark returned here (``corpus_expected``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import Lake

pytestmark = [pytest.mark.java, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-spark4" / "bin" / "python"
CHECKS = ROOT / "tests" / "spark_remote" / "remote_checks.py"
TIMEOUT = 600


@pytest.mark.parametrize("mode", ["classic", "connect"])
def test_spark4(mode: str, lake: Lake, corpus_expected: Path, tmp_path: Path) -> None:
    if not PYTHON.exists():
        pytest.fail(f"{PYTHON} is missing: run `bash scripts/setup.sh --tests`", pytrace=False)
    env = {
        **os.environ,
        "ICEVIEW_REMOTE_MODE": mode,
        "ICEVIEW_REMOTE_PARQUET": str(lake.parquet_dir),
        "ICEVIEW_REMOTE_EXPECTED": str(corpus_expected),
        "ICEVIEW_REMOTE_WORK": str(tmp_path),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": str(PYTHON),
        "PYSPARK_DRIVER_PYTHON": str(PYTHON),
    }
    env.pop("SPARK_HOME", None)
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [
            str(PYTHON),
            "-m",
            "pytest",
            str(CHECKS),
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            "-o",
            "addopts=",
            "-W",
            "ignore::UserWarning",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    tail = "\n".join((done.stdout + "\n" + done.stderr).strip().splitlines()[-60:])
    assert done.returncode == 0, f"Spark 4 {mode} checks failed:\n{tail}"
    assert " passed" in done.stdout
