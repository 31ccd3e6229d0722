#!/usr/bin/env bash
# Runs Iceberg's REST Compatibility Kit against a fresh `iceview serve` (scripts/rck.sh, docs/rck.md):
# starts the server on a free port over an empty SQLite catalog in a temp dir, waits until GET /v1/config
# answers (at most 60 s), runs scripts/rck.sh against it, then stops it with SIGTERM and checks that it
# exits within 10 s.
#
# usage: scripts/rck_iceview.sh [--views-only|--tables-only] [--prop key=value]...
# env:   ICEVIEW_RCK_SERVER_CMD  the server command, a template with {port} and {tmpdir}; one command
#        (it is exec'd, so SIGTERM reaches it). Default:
#          <repo>/.venv/bin/iceview serve --port {port} --catalog rck --allow-external-locations
#        The server always gets PYICEBERG_CATALOG__RCK__TYPE=sql, __URI=sqlite:///{tmpdir}/catalog.db
#        and __WAREHOUSE=file://{tmpdir}/warehouse. E.g. Iceberg's reference server:
#          ICEVIEW_RCK_SERVER_CMD='../shared/oracle/rest/serve-java.sh --port {port}
#            --uri jdbc:sqlite:{tmpdir}/catalog.db --warehouse {tmpdir}/warehouse'
# Exit: scripts/rck.sh's (0 expectations hold, 1 they do not, 2 usage, 3 no harness in this clone,
#       4 the harness could not run), or 5 when the server did not start or did not stop.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXIT_SERVER=5
START_TIMEOUT=60
STOP_TIMEOUT=10

args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --views-only|--tables-only) ;;
    --prop) i=$((i + 1)); [ "$i" -lt ${#args[@]} ] || { echo "rck_iceview.sh: --prop needs key=value" >&2; exit 2; } ;;
    *) echo "rck_iceview.sh: unknown argument: ${args[i]} (see --help)" >&2; exit 2 ;;
  esac
done

# Locate and build the RCK before starting a server for nothing (exits 3 when it is not in this clone).
bash "$ROOT/scripts/rck.sh" --prepare >/dev/null

TMPD="$(mktemp -d "${TMPDIR:-/tmp}/iceview-rck.XXXXXX")"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URI="http://127.0.0.1:$PORT/"
# --allow-external-locations: ViewCatalogTests put view locations in JUnit temp dirs, outside any
# warehouse (Iceberg's reference server takes any location); without it 4 view tests get 403.
DEFAULT_CMD="$ROOT/.venv/bin/iceview serve --port {port} --catalog rck --allow-external-locations"
TEMPLATE="${ICEVIEW_RCK_SERVER_CMD:-$DEFAULT_CMD}"
CMD="${TEMPLATE//\{port\}/$PORT}"
CMD="${CMD//\{tmpdir\}/$TMPD}"
LOG="$TMPD/server.log"
SERVER_PID=""
KEEP=0

running() {  # the server is alive; an exited child not yet reaped (state Z in /proc) does not count
  local state
  state="$(sed 's/.*) //' "/proc/$SERVER_PID/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}
cleanup() {
  if [ -n "$SERVER_PID" ] && running; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
  if [ "$KEEP" = 1 ]; then echo "rck_iceview.sh: kept $TMPD (server log: $LOG)" >&2; else rm -rf "$TMPD"; fi
}
trap cleanup EXIT
server_failed() {  # server_failed MESSAGE
  echo "rck_iceview.sh: $1; the server's output:" >&2
  tail -n 40 "$LOG" >&2 || true
  KEEP=1
  exit "$EXIT_SERVER"
}

echo "rck_iceview.sh: starting: $CMD"
PYICEBERG_CATALOG__RCK__TYPE=sql \
PYICEBERG_CATALOG__RCK__URI="sqlite:///$TMPD/catalog.db" \
PYICEBERG_CATALOG__RCK__WAREHOUSE="file://$TMPD/warehouse" \
  bash -c "exec $CMD" > "$LOG" 2>&1 < /dev/null &
SERVER_PID=$!

START=$SECONDS
until python3 - "$URI" <<'EOF' 2>/dev/null
import sys, urllib.error, urllib.request
try:  # any HTTP answer (401 from a server that wants a token, say) means it is up
    urllib.request.urlopen(sys.argv[1] + "v1/config", timeout=2).read()
except urllib.error.HTTPError:
    pass
EOF
do
  running || server_failed "the server exited before it answered GET ${URI}v1/config"
  [ $((SECONDS - START)) -lt "$START_TIMEOUT" ] || \
    server_failed "GET ${URI}v1/config did not answer within ${START_TIMEOUT} s"
  sleep 0.5
done
echo "rck_iceview.sh: server (pid $SERVER_PID) answers at $URI after $((SECONDS - START)) s"

set +e
bash "$ROOT/scripts/rck.sh" "$URI" "$@"
rc=$?
set -e

kill -TERM "$SERVER_PID" 2>/dev/null || true
STOPPED=$SECONDS
while running && [ $((SECONDS - STOPPED)) -lt "$STOP_TIMEOUT" ]; do sleep 0.2; done
if running; then
  server_failed "the server did not exit within ${STOP_TIMEOUT} s of SIGTERM (killed)"
fi
set +e
wait "$SERVER_PID"
status=$?
set -e
echo "rck_iceview.sh: server stopped (exit status $status) within $((SECONDS - STOPPED)) s of SIGTERM"
[ "$rc" -eq 0 ] || KEEP=1
exit "$rc"
