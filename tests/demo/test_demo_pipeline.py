"""The README's main command runs examples/pipeline.py: it must work end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_demo_pipeline_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "pipeline.py"), "--warehouse", str(tmp_path / "wh")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    for expected in (
        "version 2 is current; default namespace ['other_db']",
        "2026-11-20: 2, 2026-11-21: 3, 2026-11-22: 1",
        "default.event_agg: current version 2 -> 1",
        "current version is now 1: FROM events",
        "DuckDB: 2026-11-20: 2, 2026-11-21: 3, 2026-11-22: 1",
        "DuckDB and Spark agree.",
        "default.event_agg: version 3 derives duckdb, trino (was version 1)",
        "version 4 has spark, trino, duckdb",
        "DuckDB: 2026-11-20: 1, 2026-11-21: 2, 2026-11-22: 1",
        "DuckDB reads the new definition.",
        "refused, nothing committed:",
    ):
        assert expected in out, f"missing {expected!r} in:\n{out}"
    assert "Traceback" not in done.stderr
    assert (tmp_path / "wh" / "catalog.db").exists()
