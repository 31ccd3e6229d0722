#!/usr/bin/env bash
# Hive 2.3.10's metastore (from PySpark 4's jars in .venv-spark4, on Java 17, embedded Derby, bound to
# 127.0.0.1) for iceview's tests and for trying iceview's Hive catalog:
#
#   bash scripts/hms.sh run --port 9083 --dir /tmp/iceview-hms   start one (Ctrl-C stops it; DIR keeps
#                                        its Derby database, hive-site.xml and hms.log for the next run)
#   bash scripts/hms.sh run --txn-timeout 10 ...                 abandoned locks expire after 10 s
#   bash scripts/hms.sh prepare      compile our classes and record a class-data archive (12 s once;
#                                    starts then take ~2.5 s instead of ~4.5 s)
#   bash scripts/hms.sh java|jars|classes                         the JDK 17, Hive's jars, our classes
#
# The logic is tests/fixtures/hms_server.py, which the tests start it with (one per session).
# Needs `bash scripts/setup.sh --tests` (.venv-spark4).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
exec env PYTHONPATH="$ROOT/src:$ROOT/tests${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$ROOT/tests/fixtures/hms_server.py" "$@"
