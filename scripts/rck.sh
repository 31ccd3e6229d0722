#!/usr/bin/env bash
# Runs Iceberg 1.10.2's REST Compatibility Kit (RCK) against the Iceberg REST catalog at URI and checks
# the result against iceview's expectations (docs/rck.md):
#   views  (RESTCompatibilityKitViewCatalogTests): nothing fails; only the reference server's skips;
#   tables (RESTCompatibilityKitCatalogTests): only tests that also fail against Iceberg's reference
#          server fail (tests/data/rck/reference-table-failures.txt).
# The RCK is Iceberg's own test code run with Java's real RESTCatalog client. It is not in this
# repository: it lives in the shared oracle harness, found at $ICEVIEW_RCK_HOME, else at
# <repo>/../shared/oracle/rest (where CI puts it). Its setup recipes run when it is not built yet.
#
# usage: scripts/rck.sh URI [--views-only|--tables-only] [--prop key=value]...
#        scripts/rck.sh --prepare      only locate and build the harness
#   URI            base URI of the server, e.g. http://127.0.0.1:8181/ (the client calls URI/v1/config)
#   --prop k=v     passed to the harness: a RESTCatalog client property (token=..., prefix=...) or an
#                  RCK flag (rck.requires-namespace-create=false, ...)
# The RCK creates and drops the namespaces ns, newdb and other_ns; they are purged before it starts.
# Exit: 0 expectations hold; 1 they do not; 2 usage; 3 the harness is not in this clone;
#       4 the harness could not run (setup failed, server unreachable, no results).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXIT_NO_HARNESS=3
EXIT_HARNESS_FAILED=4

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] || usage
# Catalogs that, like iceview serve (and PyIceberg, Polaris, ...), create tables and views only in
# namespaces that exist: the RCK then creates its namespaces first. The reference lists in
# tests/data/rck were measured with the same flag.
PREPARE=0; URI=""; MODE=all; PASS=(--prop rck.requires-namespace-create=true)
case "$1" in
  --prepare) PREPARE=1; shift ;;
  -h|--help) usage ;;
  -*) echo "rck.sh: the first argument must be the server's URI, not $1" >&2; usage ;;
  *) URI="$1"; shift ;;
esac
while [ $# -gt 0 ]; do
  case "$1" in
    --views-only) MODE=views; shift ;;
    --tables-only) MODE=tables; shift ;;
    --prop)
      [ $# -ge 2 ] || { echo "rck.sh: --prop needs key=value" >&2; exit 2; }
      PASS+=(--prop "$2"); shift 2 ;;
    *) echo "rck.sh: unknown argument: $1" >&2; usage ;;
  esac
done

# ------------------------------------------------------------------ locate the harness
HARNESS="${ICEVIEW_RCK_HOME:-$ROOT/../shared/oracle/rest}"
if [ ! -f "$HARNESS/rck.sh" ] || [ ! -f "$HARNESS/setup.sh" ] || [ ! -f "$HARNESS/env.sh" ]; then
  echo "Iceberg's REST Compatibility Kit is not in this clone (no rck.sh, setup.sh and env.sh in" \
       "$HARNESS). It is built from Iceberg's own test sources, which iceview does not copy: point" \
       "ICEVIEW_RCK_HOME at the harness directory (oracle/rest of the shared oracle; docs/rck.md)." >&2
  exit "$EXIT_NO_HARNESS"
fi
HARNESS="$(cd "$HARNESS" && pwd)"

# ------------------------------------------------------------------ build it if needed
# env.sh (the harness's paths) is read in a subshell so that none of its variables leak into ours.
harness_state() {  # prints "base" (base oracle missing), "rest" (RCK not built or stale) or "built"
  (
    # shellcheck source=/dev/null
    source "$HARNESS/env.sh"
    if [ ! -f "$RUNTIME_JAR" ] || [ ! -f "$SHADED_JACKSON_JAR" ]; then echo base; exit 0; fi
    stamp="$REST_HOME/classes/.stamp"
    if [ ! -f "$REST_HOME/classes/test/org/apache/iceberg/rest/RESTCompatibilityKitViewCatalogTests.class" ] \
       || [ ! -f "$stamp" ] \
       || [ -n "$(find "$HARNESS/src" "$HARNESS/env.sh" "$HARNESS/setup.sh" -newer "$stamp" -type f 2>/dev/null | head -1)" ]; then
      echo rest; exit 0
    fi
    echo built
  )
}
run_setup() {  # run_setup SCRIPT: quiet unless it fails
  local log
  log="$(mktemp "${TMPDIR:-/tmp}/iceview-rck-setup.XXXXXX")"
  if ! bash "$1" > "$log" 2>&1; then
    echo "rck.sh: the harness setup failed: bash $1 (its output follows)" >&2
    tail -n 40 "$log" >&2
    rm -f "$log"
    exit "$EXIT_HARNESS_FAILED"
  fi
  rm -f "$log"
}
state="$(harness_state)"
if [ "$state" = base ]; then
  [ -f "$HARNESS/../setup.sh" ] || {
    echo "rck.sh: the base oracle is not built and $HARNESS/../setup.sh does not exist" >&2
    exit "$EXIT_HARNESS_FAILED"; }
  echo "rck.sh: building the base oracle (bash $HARNESS/../setup.sh)"
  run_setup "$HARNESS/../setup.sh"
  state=rest
fi
if [ "$state" = rest ]; then
  echo "rck.sh: building the RCK (bash $HARNESS/setup.sh)"
  run_setup "$HARNESS/setup.sh"
fi
[ "$(harness_state)" = built ] || {
  echo "rck.sh: the harness setup finished but the RCK is still not built in $HARNESS" >&2
  exit "$EXIT_HARNESS_FAILED"; }
if [ "$PREPARE" = 1 ]; then echo "rck.sh: the RCK is ready ($HARNESS)"; exit 0; fi

# ------------------------------------------------------------------ run it
SUITE_ARGS=()
case "$MODE" in
  views) SUITE_ARGS=(--views-only) ;;
  tables) SUITE_ARGS=(--tables-only) ;;
esac
# The harness purges only ns and newdb, but a views run leaves ns1, ns2 and other_ns behind and a second
# run then fails ("Namespace already exists: ns1"): say so up front. Best effort, silent on any error
# (a server that needs a token, say).
python3 - "$URI" <<'EOF' || true
import json, sys, urllib.request
base = sys.argv[1].rstrip("/") + "/v1/"
try:
    with urllib.request.urlopen(base + "config", timeout=10) as r:
        cfg = json.load(r)
    prefix = (cfg.get("overrides") or {}).get("prefix") or (cfg.get("defaults") or {}).get("prefix")
    with urllib.request.urlopen(base + (prefix + "/" if prefix else "") + "namespaces", timeout=10) as r:
        names = [".".join(n) for n in json.load(r).get("namespaces") or []]
except Exception:
    sys.exit(0)
left = sorted(n for n in names if n not in ("ns", "newdb"))
if left:
    print(f"rck.sh: warning: the catalog is not empty (namespaces {', '.join(left)}); the RCK expects an"
          " empty catalog and fails where its names are taken", file=sys.stderr)
EOF
OUT="$(mktemp "${TMPDIR:-/tmp}/iceview-rck-out.XXXXXX")"
trap 'rm -f "$OUT"' EXIT
echo "rck.sh: RCK $MODE against $URI"
START=$SECONDS
set +e
# rck.sh exits 1 when any test fails, which is expected (the reference server fails 23 table tests):
# the verdict comes from the JUnit XML reports, compared with tests/data/rck below.
bash "$HARNESS/rck.sh" "$URI" --purge-first ${SUITE_ARGS[@]+"${SUITE_ARGS[@]}"} ${PASS[@]+"${PASS[@]}"} > "$OUT" 2>&1
rc=$?
set -e
ELAPSED=$((SECONDS - START))
REPORTS="$(sed -n 's/^RCK: .* reports in \(.*\)$/\1/p' "$OUT" | head -1)"
if [ -z "$REPORTS" ] || [ ! -d "$REPORTS" ]; then
  echo "rck.sh: the RCK did not run (harness exit code $rc); its output:" >&2
  cat "$OUT" >&2
  exit "$EXIT_HARNESS_FAILED"
fi
echo "rck.sh: reports in $REPORTS; wall time ${ELAPSED} s"
set +e
python3 "$ROOT/scripts/rck_check.py" "$REPORTS" --mode "$MODE" --data "$ROOT/tests/data/rck"
check=$?
set -e
if [ "$check" -eq 4 ]; then
  echo "rck.sh: harness output:" >&2
  cat "$OUT" >&2
  exit "$EXIT_HARNESS_FAILED"
fi
exit "$check"
