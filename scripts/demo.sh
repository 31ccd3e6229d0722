#!/usr/bin/env bash
# Sets up iceview (see setup.sh) and runs a demo:
#   bash scripts/demo.sh            the pipeline (examples/pipeline.py): local Spark with Iceberg's runtime
#                                   on an embedded SQLite catalog, the view spec's Appendix A through
#                                   iceview, the iceview command, and the same view in DuckDB;
#   bash scripts/demo.sh --serve    the REST catalog server (examples/serve_demo.py): `iceview serve` on an
#                                   embedded SQLite catalog, Spark with Iceberg's REST catalog runs Appendix A
#                                   natively against it, then PyIceberg and the iceview command read the view.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
if [ "${1:-}" = "--serve" ]; then
  shift
  exec .venv/bin/python examples/serve_demo.py "$@"
fi
exec .venv/bin/python examples/pipeline.py "$@"
