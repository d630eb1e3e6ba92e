#!/usr/bin/env bash
# A scripted "agent session" on the native backend: the classic agent accidents, each contained;
# then, when a Docker daemon answers, a few on the docker backend in the Debian test image.
#
# Usage: scripts/demo.sh [AGENTBOX_BINARY]      (default: build/agentbox; `make demo` builds it)
#
# For each step it prints the command the agent tries, agentbox's structured outcome (from
# `agentbox run --json`), and a check made on the host. It is also a smoke test: it exits 0 only
# when every containment held, and 1 with the list of failed checks otherwise. It needs root
# (cgroups) and python3 on the host, and cleans up everything it started.
set -uo pipefail

AGENTBOX=${1:-build/agentbox}
if [ ! -x "$AGENTBOX" ]; then
  echo "demo: $AGENTBOX is not an executable; build it first (make demo does)" >&2
  exit 2
fi
AGENTBOX=$(cd "$(dirname "$AGENTBOX")" && pwd)/$(basename "$AGENTBOX")
# The system python (a pyenv shim first in PATH costs a second per call).
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3) || { echo "demo: python3 is needed" >&2; exit 2; }

if [ -t 1 ]; then
  BOLD=$'\e[1m' DIM=$'\e[2m' GREEN=$'\e[32m' RED=$'\e[31m' RESET=$'\e[0m'
else
  BOLD='' DIM='' GREEN='' RED='' RESET=''
fi

DEMO_DIR=$(mktemp -d /tmp/agentbox-demo.XXXXXX)
WORKSPACE="$DEMO_DIR/workspace"
RESULT="$DEMO_DIR/result.json"
HOST_SLEEP_PID=''
LISTENER_PID=''
FAILED=()

ROLLBACK_BOX=''
cleanup() {
  [ -n "$ROLLBACK_BOX" ] && "$AGENTBOX" rm -f "$ROLLBACK_BOX" >/dev/null 2>&1
  [ -n "$HOST_SLEEP_PID" ] && kill "$HOST_SLEEP_PID" 2>/dev/null && wait "$HOST_SLEEP_PID" 2>/dev/null
  [ -n "$LISTENER_PID" ] && kill "$LISTENER_PID" 2>/dev/null && wait "$LISTENER_PID" 2>/dev/null
  rm -rf "$DEMO_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Reads the JSON result in argv[1]; writes its fields as shell assignments (R_exit_code,
# R_reason, R_limits_hit, R_stdout, R_stderr, R_error) to argv[2]; unless argv[3] is "quiet",
# pretty-prints the interesting ones.
cat >"$DEMO_DIR/show.py" <<'EOF'
import json, shlex, sys
try:
    r = json.load(open(sys.argv[1]))
except ValueError:
    r = {"exit_code": 125, "reason": "error", "limits_hit": [], "stdout": "", "stderr": "",
         "duration_ms": 0, "error": "agentbox printed no JSON result"}
fields = {k: r.get(k) for k in ("exit_code", "reason", "stdout", "stderr", "error")}
fields["limits_hit"] = ",".join(r.get("limits_hit") or [])
# The walls the effect report names ("wall:rule" each, joined by commas): what stopped it.
walls = (r.get("effects") or {}).get("walls") or []
fields["walls"] = ",".join(f"{w.get('wall')}:{w.get('rule')}" for w in walls)
with open(sys.argv[2], "w") as out:
    for key, value in fields.items():
        out.write(f"R_{key}={shlex.quote('' if value is None else str(value))}\n")
if sys.argv[3:] == ["quiet"]:
    sys.exit(0)
def excerpt(text, width=100):
    # The first line and the last (a traceback's last line says what happened).
    lines = [l[:width] + ("..." if len(l) > width else "") for l in text.splitlines() if l.strip()]
    if len(lines) <= 3:
        return lines
    return [lines[0], f"... ({len(lines) - 2} more lines) ...", lines[-1]]
print(f"    -> exit_code {r['exit_code']}   reason {r['reason']}   limits_hit {r['limits_hit']}"
      f"   ({r.get('duration_ms', 0):.0f} ms)")
if r.get("error"):
    print(f"       error:  {r['error']}")
for stream in ("stdout", "stderr"):
    for i, line in enumerate(excerpt(r.get(stream) or "")):
        print(f"       {stream + ':' if i == 0 else ' ' * (len(stream) + 1)} {line}")
effects = r.get("effects") or {}
ws = effects.get("workspace") or {}
if ws.get("observed") and (ws.get("created") or ws.get("modified") or ws.get("deleted")):
    print(f"       effects: /workspace {ws['created']} created, {ws['modified']} modified, "
          f"{ws['deleted']} deleted ({ws['size_delta']:+d} bytes)")
for w in walls[:4]:
    print(f"       wall:   {w.get('message', '')[:150]}")
EOF

# run_json [RUN_OPTIONS...] -- COMMAND...: `agentbox run --json`; the result's fields into R_*.
run_json() {
  "$AGENTBOX" run --json "$@" >"$RESULT" 2>"$DEMO_DIR/agentbox.err"
  "$PYTHON" "$DEMO_DIR/show.py" "$RESULT" "$DEMO_DIR/result.sh" "${SHOW_MODE:-quiet}"
  # shellcheck disable=SC1091
  . "$DEMO_DIR/result.sh"
}

# field NAME: one field of the last result, as text (limits_hit joined by commas).
field() { local var="R_$1"; printf '%s' "${!var}"; }

step() { printf '\n%s[%s] %s%s\n' "$BOLD" "$1" "$2" "$RESET"; }

# agent [RUN_OPTIONS...] -- COMMAND...: what the agent tries, run the way a framework would.
agent() {
  local shown=() arg
  for arg in "$@"; do
    case "$arg" in
      *[\"\$\`\\]*) shown+=("'${arg//\'/\'\\\'\'}'") ;;
      *\'*) shown+=("\"$arg\"") ;;
      *[[:space:]\;\|\&\<\>\(\)\*]*) shown+=("'$arg'") ;;
      *) shown+=("$arg") ;;
    esac
  done
  printf '    %s$ agentbox run --json %s%s\n' "$DIM" "${shown[*]}" "$RESET"
  SHOW_MODE=show run_json "$@"
}

# check DESCRIPTION COMMAND...: a containment check; the demo fails if any check fails.
check() {
  local what=$1
  shift
  if "$@"; then
    printf '       %sok%s      %s\n' "$GREEN" "$RESET" "$what"
  else
    printf '       %sFAILED%s  %s\n' "$RED" "$RESET" "$what"
    FAILED+=("$what")
  fi
}

is() { [ "$(field "$1")" = "$2" ]; }
# wall_named KIND [RULE]: the result's effects name a wall of that kind (and rule, if given).
wall_named() { local text; text=$(field walls); [[ ",$text," == *",$1:${2:-}"* ]]; }
isnt() { ! is "$@"; }
stderr_has() { local text; text=$(field stderr); [[ "$text" == *"$1"* ]]; }
limits_include() { local text; text=$(field limits_hit); [[ ",$text," == *",$1,"* ]]; }
hostname_is() { local text; text=$(field stdout); [ "$(cut -d' ' -f2 <<<"$text")" = "$1" ]; }
nothing_running() { ! pgrep -f -- "$1" >/dev/null; }
host() { printf '    %shost$ %s%s\n' "$DIM" "$*" "$RESET"; }

echo "${BOLD}agentbox demo: an agent session on the native backend${RESET}"
echo "binary: $AGENTBOX"

# 0. The host must be able to give every layer; otherwise agentbox refuses (125) and says why.
run_json -- true
if ! is reason exited; then
  echo "${RED}agentbox cannot create a sandbox on this host:${RESET} $(field error)"
  sed 's/^/  /' "$DEMO_DIR/agentbox.err"
  echo "run \`$AGENTBOX doctor\` to see which layer is missing"
  exit 1
fi

step 1 "The agent runs a command"
agent -- python3 -c 'print(2+2)'
check "the command ran and printed 4" is stdout $'4'
agent -- uname -a
check "it has its own hostname, sandbox" hostname_is sandbox

step 2 "A file written to /workspace survives into the next command"
mkdir -p "$WORKSPACE"
agent --workspace "$WORKSPACE" -- sh -c 'echo "plan: fix the failing test" > notes.txt && ls -ln'
agent --workspace "$WORKSPACE" -- cat /workspace/notes.txt
check "the second command read what the first wrote" is stdout 'plan: fix the failing test'
host "ls -ln $WORKSPACE"
ls -ln "$WORKSPACE" | sed 's/^/      /'
check "the file is on the host, owned by the workspace's owner ($(stat -c %u:%g "$WORKSPACE"))" \
  test "$(stat -c %u:%g "$WORKSPACE/notes.txt" 2>/dev/null)" = "$(stat -c %u:%g "$WORKSPACE")"

step 3 "Accident: rm -rf /usr/bin (meant ./usr/bin)"
before=$(ls /usr/bin | wc -l)
host "ls /usr/bin | wc -l   -> $before"
# Safety first: only run the destructive command once a harmless write proved /usr read-only.
agent -- touch /usr/bin/agentbox-demo-probe
if [ -e /usr/bin/agentbox-demo-probe ] || ! stderr_has 'Read-only file system'; then
  rm -f /usr/bin/agentbox-demo-probe
  check "/usr is read-only in the sandbox (rm -rf /usr/bin NOT attempted)" false
else
  agent -- rm -rf /usr/bin
  check "rm failed with 'Read-only file system'" stderr_has 'Read-only file system'
  check "the result names the wall: read_only_root" wall_named read_only_root
  after=$(ls /usr/bin | wc -l)
  host "ls /usr/bin | wc -l   -> $after"
  check "nothing lost on the host ($before files before, $after after)" test "$before" -eq "$after"
fi

step 4 "Accident: installing into the global Python"
if /usr/bin/python3 -c 'import pip' 2>/dev/null; then
  agent --timeout 15 -- python3 -m pip install --break-system-packages --no-cache-dir \
    --retries 0 --timeout 3 requests
  check "pip install failed (no network to fetch from)" isnt exit_code 0
  check "the result names the wall: network (no network)" wall_named network 'no network'
else
  echo "    (pip is not installed on this host: skipping the pip attempt)"
fi
agent -- touch /usr/lib/python3/dist-packages/requests.py
check "writing into dist-packages refused: Read-only file system" stderr_has 'Read-only file system'
check "the result names the wall: read_only_root" wall_named read_only_root
check "nothing appeared on the host" test ! -e /usr/lib/python3/dist-packages/requests.py

step 5 "Accident: killing host processes \"to free memory\""
sleep 300 &
HOST_SLEEP_PID=$!
host "sleep 300 &   -> pid $HOST_SLEEP_PID"
agent -- sh -c "kill -9 $HOST_SLEEP_PID; pkill sleep; echo \"processes visible: \$(ls -d /proc/[0-9]* | wc -l)\""
check "kill could not reach it (No such process)" stderr_has 'No such process'
check "the result names the wall: pid_namespace" wall_named pid_namespace
host "kill -0 $HOST_SLEEP_PID"
check "the host's sleep $HOST_SLEEP_PID is still alive" kill -0 "$HOST_SLEEP_PID"

step 6 "Accident: reaching the network"
agent --timeout 10 -- python3 -c "import urllib.request; urllib.request.urlopen('http://example.com', timeout=3)"
check "the download failed (URLError)" stderr_has 'URLError'
check "the result names the wall: network (no network)" wall_named network 'no network'
PORT_FILE="$DEMO_DIR/port" CONNECTED="$DEMO_DIR/connected"
"$PYTHON" - "$PORT_FILE" "$CONNECTED" <<'EOF' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
conn, _ = s.accept()
open(sys.argv[2], "w").write("connected")
EOF
LISTENER_PID=$!
for _ in $(seq 50); do [ -s "$PORT_FILE" ] && break; sleep 0.1; done
PORT=$(cat "$PORT_FILE" 2>/dev/null || echo 1)
host "a TCP server listening on 127.0.0.1:$PORT"
agent --timeout 10 -- python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), timeout=3)"
check "connect to the host's 127.0.0.1:$PORT failed" isnt exit_code 0
check "the host server saw no connection" test ! -e "$CONNECTED"

step 7 "Accident: an endless recursive grep over /usr/bin"
agent --timeout 2 -- sh -c 'while true; do grep -r needle-that-is-not-there /usr/bin; done'
check "exit 124" is exit_code 124
check "reason timeout" is reason timeout
check "limits_hit includes timeout" limits_include timeout
check "the result names the wall: the time limit with its value (timeout 2s)" wall_named limit 'timeout 2s'
host "pgrep -f needle-that-is-not-there"
check "nothing of it is left running on the host" nothing_running needle-that-is-not-there

step 8 "Accident: a memory hog"
agent --memory 64M -- python3 -c "data = b'x' * (1 << 30)"
check "exit 137" is exit_code 137
check "reason oom" is reason oom
check "limits_hit includes memory" limits_include memory
check "the result names the wall: the memory limit with its value (memory 64M)" wall_named limit 'memory 64'

step 9 "Accident in a persistent sandbox, undone: exec --rollback-on-failure"
BOX=$("$AGENTBOX" create 2>"$DEMO_DIR/agentbox.err") || BOX=''
if [ -n "$BOX" ]; then
  ROLLBACK_BOX=$BOX
  "$AGENTBOX" exec "$BOX" -- sh -c 'mkdir -p src && echo "print(42)" > src/main.py' >/dev/null
  printf '    %s$ agentbox exec --json --rollback-on-failure %s -- sh -c %s%s\n' "$DIM" "$BOX" \
    "'rm -rf /workspace/* && false'" "$RESET"
  "$AGENTBOX" exec --json --rollback-on-failure "$BOX" -- sh -c 'rm -rf /workspace/* && false' \
    >"$RESULT" 2>"$DEMO_DIR/agentbox.err"
  "$PYTHON" "$DEMO_DIR/show.py" "$RESULT" "$DEMO_DIR/result.sh" show
  # shellcheck disable=SC1091
  . "$DEMO_DIR/result.sh"
  check "the command failed (exit 1)" is exit_code 1
  check "the result says it was rolled back" \
    "$PYTHON" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("rollback") != {"rolled_back": True})' "$RESULT"
  check "/workspace is as it was: src/main.py is back" \
    test "$("$AGENTBOX" exec "$BOX" -- cat /workspace/src/main.py 2>/dev/null)" = 'print(42)'
else
  check "a persistent sandbox was created ($(head -1 "$DEMO_DIR/agentbox.err"))" false
fi

step 10 "The same agent on the docker backend, in a Debian image (python3, pip, venv, gcc)"
if curl -fsS --max-time 3 --unix-socket /var/run/docker.sock http://docker/_ping >/dev/null 2>&1; then
  # Made from Debian's packages with mmdebstrap, cached (the first time takes minutes).
  host "scripts/build-debian-image.sh --docker"
  if AGENTBOX=$AGENTBOX "$(dirname "$0")/build-debian-image.sh" --docker >/dev/null 2>"$DEMO_DIR/image.err"; then
    D=(--backend docker --image agentbox-test-debian:latest)
    agent "${D[@]}" -- python3 -c 'import sys, venv; print(sys.version.split()[0])'
    check "python3 of the image ran" is exit_code 0
    agent "${D[@]}" --timeout 20 -- python3 -m pip install --break-system-packages --no-cache-dir \
      --retries 0 --timeout 3 requests
    check "pip install into the image's python failed" isnt exit_code 0
    agent "${D[@]}" -- rm -rf --no-preserve-root /usr/lib/python3
    check "GNU rm -rf of the image's python refused: Read-only file system" stderr_has 'Read-only file system'
  else
    echo "    (the Debian image could not be made: $(tail -1 "$DEMO_DIR/image.err"); skipping)"
  fi
else
  echo "    (no Docker daemon answers on /var/run/docker.sock: skipping; make test starts one)"
fi

echo
if [ ${#FAILED[@]} -eq 0 ]; then
  echo "${GREEN}${BOLD}Every containment held.${RESET}"
  exit 0
fi
echo "${RED}${BOLD}${#FAILED[@]} containment check(s) FAILED:${RESET}"
printf '  - %s\n' "${FAILED[@]}"
exit 1
