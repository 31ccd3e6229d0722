#!/usr/bin/env bash
# Sets up everything iceview needs on a fresh Debian machine (idempotent; reruns take seconds).
#
#   bash scripts/setup.sh            core + Spark: what the demo needs
#   bash scripts/setup.sh --tests    also what the whole test suite needs (PostgreSQL, pyspark 4, Trino)
#
# It installs Debian packages (as root, or through sudo), creates .venv with iceview and its
# extras, and downloads Iceberg's Spark runtime and the JDBC drivers from Maven into
# ~/.cache/iceview/ivy (scripts/iceberg_jars.py; $ICEVIEW_IVY_DIR, $ICEVIEW_ICEBERG_VERSION).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TESTS=0
for a in "$@"; do
  case "$a" in
    --tests) TESTS=1 ;;
    *) echo "setup.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
PYTHON="${PYTHON:-python3}"
say() { printf '== %s\n' "$*"; }

# ---------------------------------------------------------------- Debian packages
DEBS=()
# javac: the tests compile their REST server
command -v javac >/dev/null || DEBS+=(openjdk-17-jdk-headless)
"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || DEBS+=(python3-venv)
if [ "$TESTS" = 1 ]; then
  DEBS+=(postgresql)
  command -v mvn >/dev/null || DEBS+=(maven)  # Trino comes from Maven Central (scripts/trino.sh)
  # tests run their own throw-away clusters; no default cluster on port 5432
  if [ ! -d /etc/postgresql-common ] || ! grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO mkdir -p /etc/postgresql-common
    echo 'create_main_cluster = false' | $SUDO tee -a /etc/postgresql-common/createcluster.conf >/dev/null
  fi
fi
missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---------------------------------------------------------------- Python environment
[ -x .venv/bin/python ] || { say "creating .venv"; "$PYTHON" -m venv .venv; }
STAMP=.venv/.iceview-installed
REQ_HASH="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$REQ_HASH" ]; then
  say "pip install iceview and its extras into .venv"
  .venv/bin/pip install -q --disable-pip-version-check --upgrade pip
  # pyspark 3.5.9: the version the Iceberg-Java interop is checked with (Iceberg's jars come from Maven)
  .venv/bin/pip install -q --disable-pip-version-check -e ".[dev,spark,duckdb,postgres]" \
    "pyspark==3.5.9" "pyiceberg[sql-sqlite,pyarrow]==0.12.*"
  echo "$REQ_HASH" > "$STAMP"
fi

# ---------------------------------------------------------------- Trino 476 (tests/trino; docs/trino.md)
# ~515 MiB from Maven Central into ~/.m2 once, SHA-1 checked, unpacked into ~/.cache/iceview/trino;
# fetched in the background while the rest is set up (the download is slow, not busy)
TRINO_FETCH=""
if [ "$TESTS" = 1 ]; then
  say "Trino for tests/trino (in the background)"
  mkdir -p .cache
  bash scripts/trino.sh fetch >.cache/trino-fetch.log 2>&1 &
  TRINO_FETCH=$!
fi

# ---------------------------------------------------------------- .venv-spark4 (iceview.spark tests; begin)
# Spark 4 classic and Spark Connect tests (tests/spark/test_spark_remote.py) run in their own process
# with pyspark 4, which bundles the Spark Connect server (pyspark 3.5.9 does not). Only for --tests.
SPARK4_PYSPARK="4.0.1"
if [ "$TESTS" = 1 ]; then
  [ -x .venv-spark4/bin/python ] || { say "creating .venv-spark4"; "$PYTHON" -m venv .venv-spark4; }
  SPARK4_STAMP=.venv-spark4/.iceview-installed
  SPARK4_HASH="$(printf '%s\n' "$SPARK4_PYSPARK" | cat pyproject.toml - | sha256sum | cut -c1-16)"
  if [ "$(cat "$SPARK4_STAMP" 2>/dev/null)" != "$SPARK4_HASH" ]; then
    say "pip install pyspark[connect]==$SPARK4_PYSPARK and iceview into .venv-spark4"
    .venv-spark4/bin/pip install -q --disable-pip-version-check --upgrade pip
    .venv-spark4/bin/pip install -q --disable-pip-version-check -e . "pytest>=8" \
      "pyspark[connect]==$SPARK4_PYSPARK" zstandard
    echo "$SPARK4_HASH" > "$SPARK4_STAMP"
  fi
fi
# ---------------------------------------------------------------- .venv-spark4 (end)

# ---------------------------------------------------------------- Iceberg Spark runtime
say "Iceberg Spark runtime and JDBC drivers from Maven (cached in ${ICEVIEW_IVY_DIR:-$HOME/.cache/iceview/ivy})"
.venv/bin/python scripts/iceberg_jars.py >/dev/null

if [ -n "$TRINO_FETCH" ]; then
  wait "$TRINO_FETCH" || { cat .cache/trino-fetch.log; echo "Trino could not be fetched" >&2; exit 1; }
  say "Trino fetched ($(tail -1 .cache/trino-fetch.log))"
fi
say "setup done"
