# shellcheck shell=bash
# tests/faults cases: `agentbox serve` killed with SIGKILL under load, then restarted on the
# same state dir. Sourced by tests/faults/run.sh (the harness runs each case in its own process).

LOAD_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")/../load" && pwd)/serve_load.py

# start_serve: `agentbox serve` on $AGENTBOX_STATE_DIR/agentbox.sock; sets SERVE_PID and SOCK.
SERVE_STARTS=0
start_serve() {
  SERVE_STARTS=$((SERVE_STARTS + 1))
  SOCK=$AGENTBOX_STATE_DIR/agentbox.sock
  local log=$CASE_DIR/serve.$SERVE_STARTS.log
  "$AGENTBOX" serve </dev/null 2>"$log" &
  SERVE_PID=$!
  on_exit "kill -KILL $SERVE_PID 2>/dev/null"
  wait_until 30 grep -q "listening on" "$log" 2>/dev/null && return 0
  fail "serve did not start: $(cat "$log")"
}

# serve_call METHOD PATH [JSON]: one request over $SOCK; sets HTTP_STATUS and AB_OUT (the body).
serve_call() {
  local out
  out=$("$PY" - "$SOCK" "$@" <<'PYEOF'
import http.client, socket, sys
class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(60)
        self.sock.connect(sys.argv[1])
try:
    c = Unix("localhost", timeout=60)
    body = sys.argv[4] if len(sys.argv) > 4 else None
    c.request(sys.argv[2], sys.argv[3], body=body,
              headers={"Content-Type": "application/json"} if body else {})
    r = c.getresponse()
    print(r.status)
    print(r.read().decode(errors="replace").replace("\n", " "))
except Exception as e:
    print(0)
    print(f"{type(e).__name__}: {e}")
PYEOF
  )
  HTTP_STATUS=$(head -1 <<<"$out")
  AB_OUT=$(tail -n +2 <<<"$out")
  printf '+ %s %s -> %s %s\n' "$1" "$2" "$HTTP_STATUS" "${AB_OUT:0:300}" >&2
}

# ours_procs: host processes in a cgroup below the suite's parent ("PID COMMAND", one a line).
ours_procs() { guard_procs_in "$AGENTBOX_CGROUP_PARENT" | cut -c1-70; }

# sandbox_dirs: entries of <state>/sandboxes, one a line.
sandbox_dirs() { ls -A "$AGENTBOX_STATE_DIR/sandboxes" 2>/dev/null; }

case_serve_killed_under_load_restart_adopts_or_cleans() {
  native_only
  local uws=$CASE_DIR/userws tag=$RANDOM$RANDOM
  mkdir -p "$uws"
  echo precious >"$uws/before.txt"
  chown -R 1000:1000 "$uws"  # a user's directory: one of root's is refused when not empty
  new_box --name keeper --workspace "$uws"
  local keeper=$BOX
  start_serve
  serve_call POST /v1/sandboxes/keeper/exec '{"argv":["sh","-c","echo from-sandbox > /workspace/written.txt"]}'
  [[ $HTTP_STATUS == 200 ]] || fail "exec through serve: HTTP $HTTP_STATUS"
  # In flight when the server dies: a command writing into the user's workspace, and 20
  # clients doing create/exec/rm.
  (serve_call POST /v1/sandboxes/keeper/exec \
    "{\"argv\":[\"sh\",\"-c\",\"echo partial > /workspace/inflight.txt; sleep 60.$tag\"]}" \
    >/dev/null 2>&1) &
  "$PY" "$LOAD_PY" --socket "$SOCK" --state-dir "$AGENTBOX_STATE_DIR" \
    --cgroup-parent "$AGENTBOX_CGROUP_PARENT" --serve-pid "$SERVE_PID" --clients 20 \
    --seconds 60 --until-server-dies --label before-kill --cycles-file "$CASE_DIR/cycles" \
    >"$CASE_DIR/load.out" 2>&1 &
  local load=$! i
  # Killed in the middle of it: the exec in flight runs, sandboxes exist, cycles have completed.
  under_load() {
    [[ -n $(pids_of_cmd "^sleep 60.$tag") && $(sandbox_dirs | wc -l) -ge 6 && $(cat "$CASE_DIR/cycles" 2>/dev/null) -ge 5 ]]
  }
  wait_until 45 under_load || fail "the load never got going: $(head -c 600 "$CASE_DIR/load.out")"
  kill -KILL "$SERVE_PID"
  wait "$SERVE_PID" 2>/dev/null
  echo "serve killed with $(sandbox_dirs | wc -l) sandbox dirs in the state dir" >&2
  wait_until 15 eval '! kill -0 "$load" 2>/dev/null'
  kill -0 "$load" 2>/dev/null && fail "the load clients still run 15 s after the server died"
  cat "$CASE_DIR/load.out" >&2
  grep -q "cycles (create+exec+rm) completed: [1-9]" "$CASE_DIR/load.out" ||
    fail "no load cycle completed before the kill: $(head -c 600 "$CASE_DIR/load.out")"

  # The command in flight dies with its connection; creations in flight (their helpers
  # outlive the server) finish on their own.
  gone_within 10 "^sleep 60.$tag" || fail "the exec in flight outlived the killed server by 10 s"
  wait_until 30 no_pids_of_cmd "create --policy $AGENTBOX_STATE_DIR"
  local before
  before=$(sandbox_dirs | sort)

  # Restart on the same state dir: every sandbox is listed; a running one takes commands.
  start_serve
  [[ -z $(ls -A "$AGENTBOX_STATE_DIR" | grep '^\.serve-policy') ]] ||
    fail "stale policy files of the killed server are left: $(ls -A "$AGENTBOX_STATE_DIR" | paste -sd ' ')"
  serve_call GET /v1/sandboxes
  [[ $HTTP_STATUS == 200 ]] || fail "list after restart: HTTP $HTTP_STATUS"
  local listed running dead id
  listed=$(json_get "'\n'.join(s['id'] + ' ' + s['state'] for s in r['sandboxes'])")
  running=$(awk '$2 == "running" {print $1}' <<<"$listed")
  dead=$(awk '$2 == "dead" {print $1}' <<<"$listed")
  echo "after restart: $(wc -w <<<"$running") running, $(wc -w <<<"$dead") dead, $(wc -w <<<"$before") dirs before" >&2
  grep -qx "$keeper" <<<"$running" || fail "the keeper sandbox is not listed running after the restart"
  for id in $running; do
    serve_call POST "/v1/sandboxes/$id/exec" '{"argv":["echo","adopted"]}'
    [[ $HTTP_STATUS == 200 ]] && json_assert "r['exit_code'] == 0 and r['stdout'] == 'adopted\n'" \
      "exec in re-adopted sandbox $id"
    [[ $HTTP_STATUS == 200 ]] || fail "exec in re-adopted sandbox $id: HTTP $HTTP_STATUS"
  done
  kill -TERM "$SERVE_PID"
  wait "$SERVE_PID" || fail "the restarted serve did not exit 0 on SIGTERM"

  # gc takes every dead or half-removed sandbox; the running ones stay.
  ab gc
  expect_rc 0 "gc"
  local after_gc
  after_gc=$(sandbox_dirs | sort)
  [[ $after_gc == "$(sort <<<"$running" | sed '/^$/d')" ]] ||
    fail "after gc the state dir holds [$(paste -sd ' ' <<<"$after_gc")], want the running ones [$(paste -sd ' ' <<<"$running")]"
  for id in $dead; do expect_no_cgroup "sb-$id"; done

  # The user's workspace: what was written before the kill, and by the command in flight.
  [[ $(cat "$uws/before.txt") == precious && $(cat "$uws/written.txt") == from-sandbox &&
    $(cat "$uws/inflight.txt") == partial ]] ||
    fail "user workspace damaged: $(ls -la "$uws" | paste -sd ' ')"

  # Final cleanup leaves nothing: no process, no cgroup, no state.
  for id in $running; do
    ab rm -f "$id"
    expect_rc 0 "rm -f $id"
  done
  ab gc
  [[ -z $(sandbox_dirs) ]] || fail "state dir not empty after rm and gc: $(sandbox_dirs | paste -sd ' ')"
  local procs
  no_ours_procs() { procs=$(ours_procs); [[ -z $procs ]]; }
  wait_until 10 no_ours_procs
  [[ -z $procs ]] || fail "processes left in the suite's cgroups: $(head -3 <<<"$procs" | paste -sd ';')"
  [[ -z $(cg_children | grep '^sb-') ]] || fail "cgroups left: $(cg_children | paste -sd ' ')"
  [[ -f $uws/before.txt && -f $uws/written.txt ]] || fail "rm of the keeper removed the user's workspace files"
}
