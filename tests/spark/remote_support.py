"""The Spark 4 checks (``tests/spark_remote/remote_checks.py``, classic and Connect) as two processes
of ``.venv-spark4``'s Python, started together. Starting them earlier, beside the other Spark tests,
was measured and gains nothing: every one of those JVMs is CPU-bound on two cores."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-spark4" / "bin" / "python"
CHECKS = ROOT / "tests" / "spark_remote" / "remote_checks.py"
MODES = ("classic", "connect")


@dataclass
class Run:
    """One mode's checks, running in its own process; its output goes to ``log``, in ``work``."""

    process: subprocess.Popen[str]
    log: Path
    work: Path
    hive_database: str | None = None
    """The Hive database its Hive check makes (``connect`` only, when that check runs)."""


RUNS: dict[str, Run] = {}
"""The session's runs, by mode (started once)."""


def start(
    parquet_dir: Path, expected: Path, work_root: Path, hive: tuple[str, str] | None = None
) -> dict[str, Run]:
    """Start both modes' checks (once per session); the runs. ``hive``: (the ``thrift://`` address
    of a metastore, a database name) for the Connect run's Hive check (``test_hive_catalog``),
    which runs only when given."""
    if RUNS:
        return RUNS
    if not PYTHON.exists():
        raise FileNotFoundError(f"{PYTHON} is missing: run `bash scripts/setup.sh --tests`")
    for mode in MODES:
        work = work_root / f"spark4-{mode}"
        work.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "ICEVIEW_REMOTE_MODE": mode,
            "ICEVIEW_REMOTE_PARQUET": str(parquet_dir),
            "ICEVIEW_REMOTE_EXPECTED": str(expected),
            "ICEVIEW_REMOTE_WORK": str(work),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYSPARK_PYTHON": str(PYTHON),
            "PYSPARK_DRIVER_PYTHON": str(PYTHON),
        }
        env.pop("SPARK_HOME", None)
        env.pop("PYTHONPATH", None)
        hive_database = None
        if hive is not None and mode == "connect":
            env["ICEVIEW_REMOTE_HMS"], hive_database = hive
            env["ICEVIEW_REMOTE_HIVE_DB"] = hive_database
        log = work / "checks.log"
        with open(log, "w", encoding="utf-8") as out:
            process = subprocess.Popen(
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
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        RUNS[mode] = Run(process, log, work, hive_database)
    return RUNS


def stop() -> None:
    """Kill what still runs (the session ends)."""
    for run in RUNS.values():
        if run.process.poll() is None:
            run.process.kill()
        run.process.wait()
