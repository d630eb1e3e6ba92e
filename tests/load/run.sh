#!/usr/bin/env bash
# tests/load: `agentbox serve` under 100 concurrent clients doing create -> exec -> rm.
#
#   AGENTBOX=build/agentbox [LOAD_SECONDS=20] [LOAD_CLIENTS=100] bash tests/load/run.sh
#
# Two runs of tests/load/serve_load.py, each against a fresh server on a unix socket with a
# private state dir and cgroup parent (like tests/e2e/serve.sh):
#   open    no tokens file: every request must succeed (no 5xx, no reset), then nothing leaks
#           (sandboxes, state files, processes, cgroups, mounts, the server's fds and threads);
#   queue   the server limited to 16 connections at once: the other clients wait (the listen
#           backlog) and are served late, with no error;
#   quota   one tenant whose quotas (max_sandboxes, max_concurrent_execs) are far below the
#           client count: the server must answer 429 with a JSON reason (never 5xx or a drop),
#           the clients retry, every cycle still completes, and nothing leaks.
# Prints the figures and `N passed, N failed`; exits non-zero on any failure, 77 when skipped.
set -uo pipefail

AGENTBOX=${AGENTBOX:-$(cd "$(dirname "$0")/../.." && pwd)/build/agentbox}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOAD_SECONDS=${LOAD_SECONDS:-20}
LOAD_CLIENTS=${LOAD_CLIENTS:-100}
# A skip is a failure in CI: nothing CI can provide may be skipped there.
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (the native backend makes a cgroup per sandbox)"
command -v python3 >/dev/null || skip "python3 missing"
"$AGENTBOX" doctor >/dev/null 2>&1 || skip "agentbox doctor fails here"

WORK=$(mktemp -d /tmp/ab-load.XXXXXX)
export AGENTBOX_CGROUP_PARENT=abload-$$
SERVER_PID=
PASS=0 FAIL=0

cg_dirs() {
  local d
  for d in /sys/fs/cgroup/"$AGENTBOX_CGROUP_PARENT" /sys/fs/cgroup/*/"$AGENTBOX_CGROUP_PARENT"; do
    [[ -d $d ]] && echo "$d"
  done
}

# Whatever a failed run left: the server, every sandbox of every state dir, the cgroup parent.
cleanup() {
  [[ -n $SERVER_PID ]] && kill -KILL "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  local state id d
  for state in "$WORK"/state-*; do
    [[ -d $state/sandboxes ]] || continue
    for id in $(ls "$state/sandboxes"); do
      AGENTBOX_STATE_DIR=$state timeout -s KILL 30 "$AGENTBOX" rm -f "$id" >/dev/null 2>&1
    done
  done
  for d in $(cg_dirs); do rmdir "$d"/* "$d" 2>/dev/null; done
  for state in "$WORK"/state-*; do
    AGENTBOX_STATE_DIR=$state timeout -s KILL 60 "$AGENTBOX" gc >/dev/null 2>&1
    mountpoint -q "$state/storage/pool" 2>/dev/null && umount -l "$state/storage/pool"
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# start_server STATE_DIR [SERVE-FLAG...]: serve on STATE_DIR/agentbox.sock; sets SERVER_PID.
start_server() {
  local state=$1
  shift
  mkdir -p "$state"
  AGENTBOX_STATE_DIR=$state "$AGENTBOX" serve "$@" 2>"$state.log" &
  SERVER_PID=$!
  local deadline=$((SECONDS + 60))  # a hang guard: a loaded host starts it late
  while ((SECONDS < deadline)); do
    grep -q "listening on" "$state.log" 2>/dev/null && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "server did not start: $(cat "$state.log")"
  return 1
}

# stop_server: SIGTERM, and the server must exit 0 (after a load, nothing may hold it up).
stop_server() {
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID"
  local rc=$?
  SERVER_PID=
  return $rc
}

# phase LABEL STATE_DIR [serve_load.py FLAG...] -- [SERVE-FLAG...]
phase() {
  local label=$1 state=$2 py_flags=() rc
  shift 2
  while [[ $# -gt 0 && $1 != -- ]]; do py_flags+=("$1"); shift; done
  shift
  if ! start_server "$state" "$@"; then
    FAIL=$((FAIL + 1))
    return
  fi
  python3 "$HERE/serve_load.py" --socket "$state/agentbox.sock" --state-dir "$state" \
    --cgroup-parent "$AGENTBOX_CGROUP_PARENT" --serve-pid "$SERVER_PID" --label "$label" \
    "${py_flags[@]}" | tee "$WORK/$label.out"
  local counts
  counts=$(tail -1 "$WORK/$label.out")
  if [[ $counts =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    PASS=$((PASS + BASH_REMATCH[1])) FAIL=$((FAIL + BASH_REMATCH[2]))
  else
    echo "FAIL $label: serve_load.py ended without its counts"
    FAIL=$((FAIL + 1))
  fi
  stop_server
  rc=$?
  if [[ $rc == 0 ]]; then
    PASS=$((PASS + 1)); echo "PASS $label: serve exits 0 on SIGTERM after the load"
  else
    FAIL=$((FAIL + 1)); echo "FAIL $label: serve exited $rc on SIGTERM; its log:"
    tail -5 "$state.log"
  fi
  if grep -qiE 'abort|terminate|sanitizer|segmentation' "$state.log"; then
    FAIL=$((FAIL + 1)); echo "FAIL $label: serve's log shows a crash:"; head -5 "$state.log"
  fi
  # With no sandbox left, gc takes the workspace pool away: no mount, no loop device.
  AGENTBOX_STATE_DIR=$state timeout -s KILL 60 "$AGENTBOX" gc >/dev/null 2>&1
  if grep -qF "$state" /proc/self/mountinfo; then
    FAIL=$((FAIL + 1)); echo "FAIL $label: a mount mentions the state dir after gc:"
    grep -F "$state" /proc/self/mountinfo | head -3
  else
    PASS=$((PASS + 1)); echo "PASS $label: gc leaves no mount of the state dir"
  fi
}

phase open "$WORK/state-open" --clients "$LOAD_CLIENTS" --seconds "$LOAD_SECONDS" --

# More clients than the server takes at once: the rest wait in the listen backlog and are
# served late, never refused, reset or answered 5xx.
phase queue "$WORK/state-queue" --clients "$LOAD_CLIENTS" --seconds $((LOAD_SECONDS / 2 + 1)) \
  -- --max-connections 16

cat >"$WORK/tokens.json" <<JSON
{"tokens": [{"token": "tok-load-7f3c9e1b2d4a", "tenant": "load", "max_sandboxes": 10, "max_concurrent_execs": 4}]}
JSON
phase quota "$WORK/state-quota" --clients "$LOAD_CLIENTS" --seconds $((LOAD_SECONDS / 2 + 1)) \
  --token tok-load-7f3c9e1b2d4a --expect-throttled --max-sandboxes 10 -- --tokens "$WORK/tokens.json"

leftover=$(for d in $(cg_dirs); do find "$d" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'; done | sort -u | paste -sd ' ')
if [[ -z $leftover ]]; then
  PASS=$((PASS + 1)); echo "PASS no cgroup left under $AGENTBOX_CGROUP_PARENT"
else
  FAIL=$((FAIL + 1)); echo "FAIL cgroups left under $AGENTBOX_CGROUP_PARENT: $leftover"
fi
echo "$PASS passed, $FAIL failed"
[[ $FAIL == 0 ]]
