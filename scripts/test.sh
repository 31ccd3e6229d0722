#!/usr/bin/env bash
# Sets up everything (see setup.sh --tests) and runs the checks and the whole test suite:
# ruff, mypy --strict on src/, the plain-install check (scripts/plain_install.sh: the wheel without
# extras, in a new virtualenv) and pytest, including the Spark, PostgreSQL and Iceberg-Java tests.
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
echo "== plain install (pip install iceview, no extras: no pyarrow)"
bash scripts/plain_install.sh
echo "== pytest"
exec .venv/bin/python -m pytest "$@"
