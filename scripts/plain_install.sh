#!/usr/bin/env bash
# A plain install works (issue 11): `pip install iceview`, without extras, has no pyarrow, and every
# command and the Python API must still read and write local files.
#
# Builds the wheel of this tree, installs it with no extras into a new virtualenv in a temporary
# folder, checks that pyarrow is not importable there and then, in an empty folder:
#   * `iceview lint` and `iceview show` on metadata files (plain and gzip, a path and a file: URI);
#   * through the Python API, on the embedded SQLite catalog (`iceview.load_catalog()` with nothing
#     configured: ./warehouse): create a namespace and a view, replace it, roll back to version 1;
#   * `iceview history`, `rollback --to 2`, `show`, `lint --all` and `drop` on that view;
#   * `iceview serve` on that catalog, read over REST with `iceview --catalog served namespaces/list`.
# A command that fails, or prints anything on stderr, fails the script.
#
#   bash scripts/plain_install.sh          (scripts/test.sh runs it; needs .venv, see setup.sh)
#
# Dependencies come through pip's configured index and its cache, so a rerun takes about 20 s.
# KEEP=1 keeps the temporary folder.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
START=$SECONDS
say() { printf "== plain install (%3d s): %s\n" "$((SECONDS - START))" "$*"; }
fail() {
  printf 'plain_install.sh: FAILED: %s\n' "$*" >&2
  exit 1
}
[ -x .venv/bin/python ] || fail ".venv/bin/python is missing: run scripts/setup.sh first"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/iceview-plain.XXXXXX")"
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT

# quiet unless it fails: pip's output goes to a log, shown on failure
quiet() {
  if ! "$@" >"$TMP/log" 2>&1; then
    cat "$TMP/log" >&2
    fail "$*"
  fi
}

# ---------------------------------------------------------------- the wheel
# Built from a copy: building in the tree would leave build/ and *.egg-info there, and a stale
# build/lib can put modules that no longer exist into the wheel.
say "building the wheel"
mkdir -p "$TMP/source" "$TMP/dist"
files=(pyproject.toml README.md src)
for f in setup.cfg setup.py MANIFEST.in LICENSE LICENSE.txt NOTICE; do [ -e "$f" ] && files+=("$f"); done
tar -cf - --exclude=__pycache__ --exclude='*.egg-info' "${files[@]}" | tar -xf - -C "$TMP/source"
quiet .venv/bin/python -m pip wheel --no-deps --disable-pip-version-check -w "$TMP/dist" "$TMP/source"
WHEELS=("$TMP"/dist/iceview-*.whl)
[ -f "${WHEELS[0]}" ] || fail "no wheel was built"

# ---------------------------------------------------------------- a new virtualenv, no extras
# The venv gets no pip of its own (that saves seconds); .venv's pip installs into it (--python).
say "installing ${WHEELS[0]##*/} into a new virtualenv (no extras)"
"$PYTHON" -m venv --without-pip "$TMP/venv"
quiet .venv/bin/python -m pip --python "$TMP/venv/bin/python" install --disable-pip-version-check "${WHEELS[0]}"
BIN="$TMP/venv/bin"

# Nothing from this machine: no PYTHONPATH, no PyIceberg configuration, an empty home and folder.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(PYICEBERG_|PYTHON(PATH|HOME|STARTUP)$)' || true)
export HOME="$TMP/home" NO_COLOR=1
mkdir -p "$HOME" "$TMP/work"
cd "$TMP/work"

if "$BIN/python" -c 'import pyarrow' 2>/dev/null; then
  fail "pyarrow is importable in the plain install: $("$BIN/python" -m pip --version 2>/dev/null) $("$BIN/python" -c 'import pyarrow; print(pyarrow.__file__)')"
fi
"$BIN/python" - "$TMP/venv" <<'EOF'
import sys
from pathlib import Path

import iceview

where = Path(iceview.__file__).resolve()
venv = Path(sys.argv[1]).resolve()
assert venv in where.parents, f"iceview was imported from {where}, not from the plain install {venv}"
print(f"iceview {iceview.__version__} from the plain install; pyarrow is not installed")
EOF

# run COMMAND...: show the command and its output; fail on an exit code other than 0 or on stderr
run() {
  printf '$ %s\n' "$*"
  local rc=0
  "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  cat "$TMP/out"
  if [ "$rc" != 0 ] || [ -s "$TMP/err" ]; then
    cat "$TMP/err" >&2
    fail "$* (exit code $rc$([ -s "$TMP/err" ] && echo ', and output on stderr'))"
  fi
}

# ---------------------------------------------------------------- metadata files
say "lint and show metadata files"
GOLDEN="$ROOT/tests/data/golden/java-1.10.2"
cp "$GOLDEN/05-view-default.event_agg-after-alter-set-tblproperties.metadata.json" v.metadata.json
GZ=("$GOLDEN"/gz/default.event_agg/*.gz.metadata.json)
cp "${GZ[0]}" v.gz.metadata.json
run "$BIN/iceview" lint ./v.metadata.json ./v.gz.metadata.json "file://$PWD/v.metadata.json"
run "$BIN/iceview" show ./v.metadata.json
run "$BIN/iceview" show "file://$PWD/v.gz.metadata.json"

# ---------------------------------------------------------------- the Python API, embedded catalog
say "create, replace and roll back a view with the Python API (embedded SQLite catalog)"
run "$BIN/python" - <<'EOF'
import gzip
from pathlib import Path

from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField, StringType

import iceview

catalog = iceview.load_catalog()  # nothing configured: ./warehouse/catalog.db
print(f"catalog {catalog.name!r}, FileIO {type(catalog.io).__name__}")
catalog.create_namespace("ns")
schema = Schema(NestedField(1, "id", IntegerType(), required=False, doc="the id"))
view = catalog.create_view(
    "ns.v", schema=schema, queries={"spark": "SELECT 1 AS id"}, default_namespace="ns"
)
schema2 = Schema(
    NestedField(1, "id", IntegerType(), required=False), NestedField(2, "name", StringType(), required=False)
)
view.replace_version(schema=schema2, queries={"spark": "SELECT 1 AS id, 'a' AS name"}, default_namespace="ns")
assert catalog.load_view("ns.v").current_version.version_id == 2
view.set_current_version(1)
loaded = catalog.load_view("ns.v")
assert loaded.current_version.version_id == 1, loaded.current_version
assert [v.version_id for v in loaded.versions] == [1, 2]
assert [h.version_id for h in loaded.history] == [1, 2, 1], loaded.history

files = sorted((Path("warehouse") / "ns" / "v" / "metadata").iterdir())
assert [f.name[:6] for f in files] == ["00000-", "00001-", "00002-"], files
for f in files:  # gzip, the default codec, compressed once
    assert f.name.endswith(".gz.metadata.json") and gzip.decompress(f.read_bytes()).startswith(b"{"), f
print(f"ns.v: versions 1, 2; current 1; {len(files)} metadata files in {files[0].parent}")
EOF

# ---------------------------------------------------------------- the CLI on that catalog
say "history, rollback, show, lint and drop with the CLI"
run "$BIN/iceview" history ns.v
run "$BIN/iceview" rollback ns.v --to 2
run "$BIN/iceview" show ns.v
run "$BIN/python" - <<'EOF'
import iceview

view = iceview.load_catalog().load_view("ns.v")
assert view.current_version.version_id == 2, view.current_version
assert [h.version_id for h in view.history] == [1, 2, 1, 2], view.history
print("ns.v: current version 2 after the rollback")
EOF
run "$BIN/iceview" history ns.v
run "$BIN/iceview" lint --all
LAST="$(ls warehouse/ns/v/metadata/00003-*.gz.metadata.json)"
run "$BIN/iceview" drop --yes ns.v
[ ! -e "$LAST" ] || fail "drop left the current metadata file $LAST"
run "$BIN/iceview" list

# ---------------------------------------------------------------- iceview serve
say "serve the embedded catalog over REST, read it with the CLI, stop with SIGTERM"
PORT="$("$BIN/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$BIN/iceview" serve --port "$PORT" >"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVER=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "$TMP/serve.out" 2>/dev/null && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$TMP/serve.err" >&2; fail "iceview serve exited while starting"; }
  sleep 0.2
done
cat "$TMP/serve.out"
grep -q "iceview serve: listening on http://127.0.0.1:$PORT/" "$TMP/serve.out" || fail "iceview serve did not announce itself"
export PYICEBERG_CATALOG__SERVED__TYPE=rest PYICEBERG_CATALOG__SERVED__URI="http://127.0.0.1:$PORT/"
run "$BIN/iceview" --catalog served namespaces
run "$BIN/iceview" --catalog served list ns
kill -TERM "$SERVER"
rc=0
wait "$SERVER" || rc=$?
[ "$rc" = 0 ] || { cat "$TMP/serve.err" >&2; fail "iceview serve exited with $rc on SIGTERM"; }
[ ! -s "$TMP/serve.err" ] || { cat "$TMP/serve.err" >&2; fail "iceview serve wrote to stderr"; }

say "ok in $((SECONDS - START)) s"
