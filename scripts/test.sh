#!/usr/bin/env bash
# Sets up everything (see setup.sh --tests) and runs the checks and the whole test suite:
# ruff, mypy --strict on src/, the plain-install check (scripts/plain_install.sh: the wheel without
# extras, in a new virtualenv) and pytest, including the Spark, PostgreSQL and Iceberg-Java tests, then
# Iceberg's REST Compatibility Kit against `iceview serve` (scripts/rck_iceview.sh).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/spec -x`; then only ruff, mypy and
# pytest run.
#
# The whole suite runs as three pytest sessions side by side, because one leaves most of the two
# cores idle (it waits on JVMs, servers, locks and subprocesses; a single session used about 40%
# of the CPU and took 25 minutes):
# * the main one: the tests that need the session's Spark (Iceberg Java) or Trino, marker `java` or
#   `trino` (one JVM of each); its last module has Iceberg Java read every JSON text iceview wrote
#   in all three sessions (the other two save theirs: $ICEVIEW_JSON_SAVE, $ICEVIEW_JSON_MERGE);
# * the Python one: everything else but the Hive Metastore tests, and the tests marked `beside`
#   (they need Spark or Trino only in a process of their own, so they balance the two sessions);
# * the Hive one: the Hive Metastore tests without Spark or Trino (marker `hive`); they mostly wait
#   on locks, lock expiry and a metastore restarting.
# mypy, the plain install and the RCK do not depend on pytest, so they run beside it too. Each job
# beside the main session keeps its output in a log, shown after the main session ends.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh --tests
echo "== ruff"
.venv/bin/ruff check src tests bench examples scripts
.venv/bin/ruff format --check src tests bench examples scripts

LOGS="$(mktemp -d "${TMPDIR:-/tmp}/iceview-checks.XXXXXX")"
trap 'rm -rf "$LOGS"' EXIT
declare -A PIDS=()
beside() {  # beside [-n NICENESS] NAME COMMAND...: COMMAND in the background, output to $LOGS/NAME
  # The jobs beside pytest run at a lower priority (nice 10 by default) so that they take the CPU
  # pytest leaves idle, not the CPU it needs: they have minutes of slack, pytest has none.
  local niceness=10
  if [ "$1" = "-n" ]; then niceness="$2"; shift 2; fi
  local name="$1"
  shift
  (renice -n "$niceness" -p "$BASHPID" >/dev/null && "$@") >"$LOGS/$name" 2>&1 &
  PIDS[$name]=$!
}
rck() {
  # Iceberg's REST Compatibility Kit (Java's RESTCatalog running Iceberg's own catalog tests) against a
  # fresh `iceview serve` (docs/rck.md). It is built from Iceberg's test sources, which this repository
  # does not copy: CI has it beside the clone (../shared); a clone without it says so and goes on.
  local rc=0
  bash scripts/rck_iceview.sh || rc=$?
  if [ "$rc" -eq 3 ] && [ -z "${CI:-}" ]; then
    echo "RCK not run: Iceberg's REST Compatibility Kit is not beside this clone (set ICEVIEW_RCK_HOME; docs/rck.md)"
    return 0
  fi
  return "$rc"
}

beside "mypy --strict src" .venv/bin/mypy src
HIVE="pytest -m hive (the Hive Metastore tests without Spark or Trino)"
PYTHON_TESTS="pytest (the tests without Spark, Trino or the Hive Metastore, and those marked beside)"
if [ $# -eq 0 ]; then
  beside "plain install (pip install iceview, no extras: no pyarrow)" bash scripts/plain_install.sh
  beside "Iceberg REST Compatibility Kit against iceview serve" rck
  # nice 5, not 10: locks kept alive by heartbeats, and a lock left to expire is timed
  ICEVIEW_JSON_SAVE="$LOGS/json-hive.json" beside -n 5 "$HIVE" .venv/bin/python -m pytest \
    -m "hive and not java and not trino" --durations=15 --basetemp="$LOGS/hive-tmp" -p no:cacheprovider
  ICEVIEW_JSON_SAVE="$LOGS/json-python.json" beside -n 5 "$PYTHON_TESTS" .venv/bin/python -m pytest \
    -m "(not java and not trino and not hive) or beside" --durations=20 --basetemp="$LOGS/python-tmp" -p no:cacheprovider
  export ICEVIEW_JSON_MERGE="$LOGS/json-python.json:$LOGS/json-hive.json"
  set -- -m "(java or trino) and not beside"
fi

echo "== pytest"
status=0
.venv/bin/python -m pytest --durations=30 "$@" || status=$?

for name in "mypy --strict src" "plain install (pip install iceview, no extras: no pyarrow)" \
  "Iceberg REST Compatibility Kit against iceview serve" "$PYTHON_TESTS" "$HIVE"; do
  [ -n "${PIDS[$name]:-}" ] || continue
  rc=0
  wait "${PIDS[$name]}" || rc=$?
  echo "== $name (exit $rc)"
  cat "$LOGS/$name"
  if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
done
exit "$status"
