#!/usr/bin/env bash
# Generated differential queries for the SQL translation (tests/translate/generated/), run longer
# than CI runs them: scripts/translation_fuzz.sh --seed N --minutes M [--out FILE] [--leg NAME]...
# Use seeds CI does not (tests/translate/generated/test_generated.py uses 1-4). Exits 1 on a mismatch.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python="$(command -v python3)"
cd "$root"
PYTHONPATH="$root/src:$root/tests${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m translate.generated.fuzz "$@"
