#!/usr/bin/env bash
# Sets up everything (see setup.sh --tests) and runs the checks and the whole test suite:
# ruff, mypy --strict on src/, and pytest, including the Spark, PostgreSQL and Iceberg-Java tests.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/spec -x`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh --tests
echo "== ruff"
.venv/bin/ruff check src tests bench examples scripts
.venv/bin/ruff format --check src tests bench examples scripts
echo "== mypy --strict src"
.venv/bin/mypy src
echo "== pytest"
exec .venv/bin/python -m pytest "$@"
