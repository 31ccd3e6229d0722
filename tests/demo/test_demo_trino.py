"""The README's Trino demo (`bash scripts/demo.sh --trino`) runs examples/trino_demo.py: it must work
end to end: iceview serve and Trino 476 on it, Spark's Appendix A view translated for Trino and run
by both engines, a view Trino creates translated for Spark and run by both, and a clean stop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.trino, pytest.mark.beside]  # its own Trino and server


def test_demo_trino_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "trino_demo.py"), "--warehouse", str(tmp_path / "wh")],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    for expected in (
        "iceview serve: listening on http://127.0.0.1:",
        "default.event_agg: version 3 adds trino (translated from spark)",
        "trino  SELECT CAST(",
        "Trino 476 on http://127.0.0.1:",
        "Spark: 2026-11-20, 2; 2026-11-21, 3; 2026-11-22, 1",
        "Trino: 2026-11-20, 2; 2026-11-21, 3; 2026-11-22, 1",
        "default.kinds: version 2 adds spark (translated from trino)",
        "spark  SELECT COALESCE(events.kind, 'sans catégorie') AS kind",
        "Spark: café ☕, 1, 1, 1; click, 1, 1, 1; sans catégorie, 1, 1, 1; view, 3, 3, 0",
        "Trino: café ☕, 1, 1, 1; click, 1, 1, 1; sans catégorie, 1, 1, 1; view, 3, 3, 0",
        "Trino stopped (exit code 0), the server stopped (exit code 0)",
    ):
        assert expected in out, f"missing {expected!r} in:\n{out}"
    assert out.count("Spark and Trino agree.") == 2, out
    assert "DISAGREE" not in out
    assert "Traceback" not in done.stderr
    assert (tmp_path / "wh" / "catalog.db").exists()
