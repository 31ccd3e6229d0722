#!/usr/bin/env bash
# Sets up everything (see setup.sh --tests) and runs the checks and the whole test suite:
# ruff, mypy --strict on src/, the plain-install check (scripts/plain_install.sh: the wheel without
# extras, in a new virtualenv) and pytest, including the Spark, PostgreSQL and Iceberg-Java tests, then
# Iceberg's REST Compatibility Kit against `iceview serve` (scripts/rck_iceview.sh).
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
.venv/bin/python -m pytest --durations=30 "$@"
if [ $# -eq 0 ]; then
  # Iceberg's REST Compatibility Kit (Java's RESTCatalog running Iceberg's own catalog tests) against a
  # fresh `iceview serve` (docs/rck.md). It is built from Iceberg's test sources, which this repository
  # does not copy: CI has it beside the clone (../shared); a clone without it says so and goes on.
  echo "== Iceberg REST Compatibility Kit against iceview serve"
  set +e
  bash scripts/rck_iceview.sh
  rc=$?
  set -e
  if [ "$rc" -eq 3 ] && [ -z "${CI:-}" ]; then
    echo "RCK not run: Iceberg's REST Compatibility Kit is not beside this clone (set ICEVIEW_RCK_HOME; docs/rck.md)"
  elif [ "$rc" -ne 0 ]; then
    exit "$rc"
  fi
fi
