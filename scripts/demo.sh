#!/usr/bin/env bash
# Sets up iceview (see setup.sh) and runs the demo pipeline (examples/pipeline.py): local Spark with
# Iceberg's runtime on an embedded SQLite catalog, the view spec's Appendix A through iceview, the
# iceview command, and the same view in DuckDB.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
exec .venv/bin/python examples/pipeline.py "$@"
