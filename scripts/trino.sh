#!/usr/bin/env bash
# Trino 476 for iceview's tests and for trying Trino on iceview's catalogs (docs/trino.md):
#
#   bash scripts/trino.sh fetch          download (Maven Central, SHA-1 checked) and unpack it once
#   bash scripts/trino.sh run --rest http://127.0.0.1:8181   start it on a catalog (Ctrl-C stops it)
#   bash scripts/trino.sh java|home      the JDK (>= 24) it runs on, its folder
#
# The logic is tests/fixtures/trino_server.py, which the tests start Trino with (one per session).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
exec env PYTHONPATH="$ROOT/src:$ROOT/tests${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$ROOT/tests/fixtures/trino_server.py" "$@"
