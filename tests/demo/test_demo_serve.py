"""The README's server demo (`bash scripts/demo.sh --serve`) runs examples/serve_demo.py: it must
work end to end: iceview serve, Spark's own REST catalog running Appendix A against it, PyIceberg
and the iceview command reading what Spark wrote, and a clean stop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_demo_serve_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "serve_demo.py"), "--warehouse", str(tmp_path / "wh")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    for expected in (
        "iceview serve: listening on http://127.0.0.1:",
        "rows: 2026-11-20: 2, 2026-11-21: 2, 2026-11-22: 1",
        "SHOW VIEWS IN rest.default: event_agg",
        "PyIceberg: version 2",
        "$ iceview --catalog prod history default.event_agg",
        "the server stopped (exit code 0)",
    ):
        assert expected in out, f"missing {expected!r} in:\n{out}"
    assert "Traceback" not in done.stderr
