#!/usr/bin/env bash
# Sets up iceview (see setup.sh) and runs the demo.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
exec .venv/bin/python examples/appendix_a.py "$@"
