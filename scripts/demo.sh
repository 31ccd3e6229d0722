#!/usr/bin/env bash
# Sets up iceview (see setup.sh) and runs a demo:
#   bash scripts/demo.sh            the pipeline (examples/pipeline.py): local Spark with Iceberg's runtime
#                                   on an embedded SQLite catalog, the view spec's Appendix A through
#                                   iceview, the iceview command, and the same view in DuckDB;
#   bash scripts/demo.sh --serve    the REST catalog server (examples/serve_demo.py): `iceview serve` on an
#                                   embedded SQLite catalog, Spark with Iceberg's REST catalog runs Appendix A
#                                   natively against it, then PyIceberg and the iceview command read the view;
#   bash scripts/demo.sh --trino    Trino and Spark share views (examples/trino_demo.py): `iceview serve` and
#                                   Trino 476 on it (scripts/trino.sh; Maven, Java 24+), Spark's Appendix A
#                                   view translated for Trino, a view Trino creates translated for Spark,
#                                   each run by both engines and their rows compared.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
if [ "${1:-}" = "--serve" ]; then
  shift
  exec .venv/bin/python examples/serve_demo.py "$@"
fi
if [ "${1:-}" = "--trino" ]; then
  shift
  if ! command -v mvn >/dev/null; then  # Trino comes from Maven Central (setup.sh --tests installs it too)
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    printf '== %s\n' "apt-get install maven"
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends maven >/dev/null
  fi
  # downloads and unpacks Trino 476 once (~515 MiB); later runs only check the checksums
  bash scripts/trino.sh fetch
  exec .venv/bin/python examples/trino_demo.py "$@"
fi
exec .venv/bin/python examples/pipeline.py "$@"
