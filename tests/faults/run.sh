#!/usr/bin/env bash
# tests/faults: what happens when a piece dies: the exec CLI, the sandbox's agent, a whole
# `agentbox run`, `agentbox serve` under load (serve_cases.sh); a full disk under the workspace
# or the state dir (disk_cases.sh); and what `agentbox gc` then cleans (and must never clean).
#
#   AGENTBOX=build/agentbox [AGENTBOX_BACKEND=native] bash tests/faults/run.sh [REGEX]
#
# The persistent vocabulary (tests/lib/persistent.sh): each case has its own state dir, and the suite its
# own cgroup parent ($AGENTBOX_CGROUP_PARENT), so the gc cases cannot touch anyone else's
# sandboxes on this host. Crashed `agentbox run`s are native-only: the docker backend's run is a
# create/exec/rm, covered by the exec and agent cases (and tests/docker/faults.sh).

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/persistent.sh
source "$HERE/../lib/persistent.sh"

# agent_pid BOX: the host pid of the sandbox's agent, from inspect.
agent_pid() {
  ab inspect "$1"
  [[ $AB_RC == 0 ]] || fail "inspect $1 exited $AB_RC"
  local pid
  pid=$(json_get "r.get('pid')")
  [[ $pid =~ ^[0-9]+$ ]] || fail "inspect $1 shows no pid ($pid)"
  echo "$pid"
}

file_in() { timeout -s KILL 10 "$AGENTBOX" exec "$1" -- test -e "$2" </dev/null >/dev/null 2>&1; }

# wait_file_in BOX PATH: waits (a 30 s hang guard) until PATH exists inside BOX.
wait_file_in() {
  wait_until 30 file_in "$1" "$2" || fail "$2 never appeared in $1"
}

# gone_within SECONDS PATTERN: no host process whose command line matches PATTERN within SECONDS
# (a hang guard: it returns as soon as they are gone).
gone_within() { wait_until "$1" no_pids_of_cmd "$2"; }

# pid_dead PID: the process is gone or a zombie (killed, not yet reaped by its parent).
pid_dead() { [[ ! -d /proc/$1 || $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) == Z ]]; }

# expect_no_cgroup NAME: no cgroup NAME under the suite's parent in any hierarchy.
expect_no_cgroup() {
  local d
  for d in $(cg_parent_dirs); do
    [[ ! -e $d/$1 ]] || fail "cgroup $d/$1 is left behind"
  done
}

expect_cgroup() {
  local d n=0
  for d in $(cg_parent_dirs); do
    [[ -d $d/$1 ]] && n=$((n + 1))
  done
  ((n > 0)) || fail "cgroup $1 is missing under $AGENTBOX_CGROUP_PARENT"
}

# The command waits, after it started, for a file the test makes only once the CLI is dead: had
# it survived, it would then write /workspace/after at once.
case_exec_cli_killed_kills_command() {
  new_box
  local tag=$RANDOM$RANDOM ws
  ab inspect "$BOX"
  ws=$(json_get "r['workspace']")
  ("$AGENTBOX" exec "$BOX" -- sh -c "touch /workspace/started; until [ -e /workspace/go ]; do sleep 0.05; done; touch /workspace/after; sleep 30.$tag" \
    </dev/null >"$CASE_DIR/x.out" 2>&1 & echo $! >"$CASE_DIR/x.pid"; wait)&
  wait_file_in "$BOX" /workspace/started
  local cli
  cli=$(cat "$CASE_DIR/x.pid")
  [[ $(readlink "/proc/$cli/exe") == "$(readlink -f "$AGENTBOX")" ]] || fail "pid $cli is not the exec CLI"
  kill -KILL "$cli"
  local t0=$(now_ms)
  # The command's whole tree (the sh and its sleeps) must go when the CLI dies.
  gone_within 10 "30[.]$tag" || fail "the command outlived its killed CLI by 10 s: $(pgrep -af "30[.]$tag" | paste -sd ';')"
  echo "command gone $(($(now_ms) - t0)) ms after kill -9 of the CLI"
  touch "$ws/go"
  ab exec "$BOX" -- sh -c 'sleep 0.2; test -e /workspace/after && echo ran-on || echo stopped'
  expect_rc 0 "the sandbox must stay usable after its exec CLI died"
  expect_out stopped "the command ran on after its CLI was killed"
}

case_agent_killed_sandbox_dead() {
  new_box --name victim
  local id=$BOX pid
  pid=$(agent_pid "$id")
  kill -KILL "$pid"
  wait_until 20 pid_dead "$pid" || fail "the agent $pid outlived kill -9 by 20 s"
  ab ls --json
  expect_rc 0
  json_assert "len(r) == 1 and r[0]['state'] == 'dead'" "ls must show the sandbox dead"
  ab ls
  [[ $(printf '%s\n' "$AB_OUT" | grep -F "$id") == *dead* ]] || fail "the ls table does not say dead"
  ab inspect victim
  expect_rc 0
  json_assert "r['state'] == 'dead'" "inspect must show state dead"
  ab exec victim -- true
  expect_one_line_error "exec on a dead sandbox"
  [[ $AB_ERR == *dead* ]] || fail "the error does not say the sandbox is dead: $AB_ERR"
  ab exec --json victim -- true
  expect_rc 125
  json_assert "r['reason'] == 'error'"
  ab rm victim
  expect_rc 0 "rm of a dead sandbox (no -f needed)"
  expect_no_cgroup "sb-$id"
  [[ ! -e $AGENTBOX_STATE_DIR/sandboxes/$id ]] || fail "rm left the state dir of $id"
  [[ ! -e $AGENTBOX_STATE_DIR/names/victim ]] || fail "rm left the name victim"
}

# An agent the sandbox cannot exec (here: not executable) fails create with one line that says
# which step failed, once prefixed (it was "agentbox: agentbox: ...\n"), and leaves nothing.
case_agent_that_cannot_start_is_one_line() {
  native_only
  local agent=$CASE_DIR/agentbox-agent
  printf '#!/bin/sh\n' >"$agent"
  chmod 0644 "$agent"
  AGENTBOX_AGENT=$agent ab create --backend "$AB_BACKEND"
  expect_one_line_error "create with an agent that cannot be executed"
  [[ $AB_ERR == "agentbox: sandbox setup failed: executing the command agentbox-agent: Permission denied" ]] ||
    fail "the error is not the one line of the failed step: '$AB_ERR'"
  ab ls --json
  json_assert "len(r) == 0" "the failed create left a sandbox"
}

case_agent_killed_mid_exec() {
  new_box
  local pid
  pid=$(agent_pid "$BOX")
  ab_bg busy exec "$BOX" -- sh -c 'touch /workspace/started; sleep 30'
  wait_file_in "$BOX" /workspace/started
  kill -KILL "$pid"
  local t0=$(now_ms)
  wait_until 20 test -s "$CASE_DIR/busy.rc" ||
    fail "the exec CLI still runs 20 s after its sandbox's agent died"
  echo "exec CLI returned $(bg_rc busy) after $(($(now_ms) - t0)) ms: $(bg_err busy)"
  [[ $(bg_rc busy) == 125 ]] || fail "an exec whose sandbox died exited $(bg_rc busy), want 125"
  [[ $(bg_err busy | grep -c .) == 1 ]] || fail "want one stderr line, got: $(bg_err busy)"
}

# kill_cgroup NAME: kills whatever is in cgroup NAME under the suite's parent and removes it
# (cleanup of a case whose sandbox escaped; never needed when agentbox does its job).
kill_cgroup() {
  local d
  for d in $(cg_parent_dirs); do
    [[ -d $d/$1 ]] || continue
    xargs -r kill -KILL <"$d/$1/cgroup.procs" 2>/dev/null
  done
  for d in $(cg_parent_dirs); do [[ -d $d/$1 ]] && wait_until 10 rmdir "$d/$1" 2>/dev/null; done
  return 0
}

# start_run TAG: `agentbox run -- sleep 60.TAG` in the background; sets RUN (its pid), RUN_CG
# (its cgroup) and RUN_WS (its private workspace: a volume of the state dir's workspace pool,
# or a temp dir where there is none) once the command runs.
start_run() {
  ( exec "$AGENTBOX" run --timeout 100 -- sleep "60.$1" </dev/null >/dev/null 2>&1 ) &
  RUN=$!
  RUN_CG="" RUN_WS=""
  run_started() {
    RUN_CG=$(cg_children | grep "^run-$RUN-" | head -1)
    RUN_WS=$(ls -d "${AGENTBOX_STATE_DIR:-/var/lib/agentbox}"/storage/pool/run-"$RUN"-* \
      /tmp/agentbox-ws-"$RUN"-* 2>/dev/null | head -1)
    [[ -n $RUN_CG && -n $RUN_WS && -n $(pids_of_cmd "^sleep 60.$1") ]]
  }
  wait_until 30 run_started "$1"
  [[ -n $RUN_CG ]] && on_exit "kill_cgroup $RUN_CG"
  [[ -n $RUN_WS ]] && on_exit "rm -rf $RUN_WS"
  [[ -n $RUN_CG && -n $RUN_WS ]] || fail "the run never made its cgroup ($RUN_CG) and workspace ($RUN_WS)"
  [[ -n $(pids_of_cmd "^sleep 60.$1") ]] || fail "the run's command never started"
}

case_crashed_run_takes_its_sandbox_along() {
  native_only
  local tag=$RANDOM$RANDOM
  start_run "$tag"
  kill -KILL "$RUN"
  gone_within 10 "^sleep 60.$tag" ||
    fail "kill -9 of \`agentbox run\` left its sandbox running 10 s later (no parent-death signal): $(pgrep -af "60[.]$tag" | paste -sd ';')"
}

case_gc_after_crashed_run() {
  native_only
  local tag=$RANDOM$RANDOM
  start_run "$tag"
  kill -KILL "$RUN"
  gone_within 10 "^sleep 60.$tag" || echo "note: the sandbox survived its run (see crashed_run_takes_its_sandbox_along)"
  local leftovers=""
  [[ -n $(cg_children | grep -Fx "$RUN_CG") ]] && leftovers+=" cgroup $RUN_CG"
  [[ -e $RUN_WS ]] && leftovers+=" workspace $RUN_WS"
  echo "left by the crashed run:${leftovers:- nothing}"
  ab gc
  expect_rc 0 "gc"
  expect_no_cgroup "$RUN_CG"
  [[ ! -e $RUN_WS ]] || fail "gc left the crashed run's workspace $RUN_WS"
  [[ $leftovers != *cgroup* ]] || expect_out_has "cgroup $RUN_CG" "gc does not report the cgroup it removed"
  [[ $leftovers != *workspace* ]] || expect_out_has "$RUN_WS" "gc does not report the workspace it removed"
  gone_within 10 "^sleep 60.$tag" || fail "after gc the crashed run's command still runs"
}

case_gc_spares_a_live_run() {
  native_only
  local tag=$RANDOM$RANDOM
  start_run "$tag"
  ab gc
  expect_rc 0 "gc"
  [[ -n $(pids_of_cmd "^sleep 60.$tag") ]] || fail "gc killed a live \`agentbox run\`"
  [[ -e $RUN_WS ]] || fail "gc removed a live run's workspace $RUN_WS"
  expect_cgroup "$RUN_CG"
  kill -KILL "$RUN"
}

# A run made in another PID namespace (agentbox in a container that shares the host's cgroups)
# is named by a pid that means nothing here: its creator runs, yet no process of that pid exists
# on this host. gc must not take it for a crashed run (the old binary killed it).
case_gc_spares_another_pid_namespaces_run() {
  native_only
  command -v unshare >/dev/null || skip "no unshare(1)"
  local tag=$RANDOM$RANDOM pid_max want
  pid_max=$(cat /proc/sys/kernel/pid_max)
  # A pid no process of this host has, for the run's creator in its own namespace.
  want=$((pid_max / 2 + RANDOM % (pid_max / 2 - 100)))
  while [[ -e /proc/$want ]]; do want=$((want + 1)); done
  unshare --pid --fork --mount-proc sh -c \
    'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid; "$2" run --timeout 100 -- sleep "60.$3"' \
    _ "$want" "$AGENTBOX" "$tag" </dev/null >/dev/null 2>&1 &
  local ns=$!
  on_exit "kill -KILL $ns"
  in_its_cgroup() { [[ -n $(cg_children | grep "^run-$want-") && -n $(pids_of_cmd "^sleep 60.$tag") ]]; }
  wait_until 30 in_its_cgroup || fail "the run in its own PID namespace never started (want pid $want)"
  local cg
  cg=$(cg_children | grep "^run-$want-" | head -1)
  on_exit "kill_cgroup $cg"
  [[ ! -e /proc/$want ]] || skip "pid $want was taken on this host meanwhile"
  ab gc
  expect_rc 0 "gc"
  [[ -n $(pids_of_cmd "^sleep 60.$tag") ]] || fail "gc killed a live run of another PID namespace"
  expect_cgroup "$cg"
}

case_gc_removes_dead_keeps_running() {
  native_only
  local uws=$CASE_DIR/userws
  mkdir -p "$uws"
  echo precious >"$uws/keep.txt"
  chown -R 1000:1000 "$uws"  # a user's directory: one of root's is refused when not empty
  new_box --name alive
  local alive=$BOX
  ab exec alive -- sh -c 'echo mine > /workspace/alive.txt'
  new_box --name deaduser --workspace "$uws"
  local dead_user=$BOX
  ab exec deaduser -- sh -c 'echo written > /workspace/by-sandbox.txt'
  expect_rc 0
  new_box --name deadpriv
  local dead_priv=$BOX priv_ws
  ab inspect deadpriv
  priv_ws=$(json_get "r['workspace']")
  local a1 a2
  a1=$(agent_pid deaduser)
  a2=$(agent_pid deadpriv)
  kill -KILL "$a1" "$a2"
  wait_until 20 pid_dead "$a1" && wait_until 20 pid_dead "$a2" || fail "the killed agents outlived kill -9"
  ab gc
  expect_rc 0 "gc"
  ab ls --json
  json_assert "[(s['id'], s['state']) for s in r] == [('$alive', 'running')]" \
    "after gc only the running sandbox may be listed"
  ab exec alive -- cat /workspace/alive.txt
  expect_rc 0 "gc must never touch a running sandbox"
  expect_out mine
  expect_cgroup "sb-$alive"
  expect_no_cgroup "sb-$dead_user"
  expect_no_cgroup "sb-$dead_priv"
  [[ -f $uws/keep.txt && -f $uws/by-sandbox.txt ]] ||
    fail "gc removed files of the user-given workspace: $(ls -la "$uws" 2>&1 | paste -sd ' ')"
  [[ ! -e $priv_ws ]] || fail "gc left the dead sandbox's private workspace $priv_ws"
  [[ ! -e $AGENTBOX_STATE_DIR/names/deaduser && ! -e $AGENTBOX_STATE_DIR/names/deadpriv ]] ||
    fail "gc left the names of the dead sandboxes"
}

# A second state dir (another user's, another server's) shares the host's cgroup parent: gc in
# one must not take the other's running sandboxes for leftovers.
case_gc_spares_other_state_dirs_running_sandbox() {
  native_only
  local other
  new_state_dir other
  local mine_state=$AGENTBOX_STATE_DIR
  AGENTBOX_STATE_DIR=$other new_box --name theirs
  local theirs=$BOX
  AGENTBOX_STATE_DIR=$other ab exec theirs -- sh -c 'echo hi > /workspace/f'
  expect_rc 0
  AGENTBOX_STATE_DIR=$mine_state ab gc
  expect_rc 0 "gc"
  AGENTBOX_STATE_DIR=$other ab exec theirs -- cat /workspace/f
  expect_rc 0 "gc with state dir A killed a running sandbox of state dir B (its cgroup sb-$theirs was taken for an orphan)"
  expect_out hi
  AGENTBOX_STATE_DIR=$other ab inspect theirs
  json_assert "r['state'] == 'running'"
}

# A create makes its sandbox's cgroup empty and moves the agent in later: a gc of another state
# dir in between must not take that cgroup for a dead sandbox's (it did, and the create failed
# with "cgroup.procs: No such file"; two test runs on one host met it every few minutes).
case_gc_spares_a_cgroup_being_made() {
  native_only
  new_box --name alongside  # the suite's cgroup parent exists in every hierarchy with one
  local name=sb-0123456789ab d made=0
  for d in $(cg_parent_dirs); do
    mkdir "$d/$name" && made=$((made + 1))
    on_exit "rmdir '$d/$name' 2>/dev/null"
  done
  ((made > 0)) || fail "could not make a cgroup under $AGENTBOX_CGROUP_PARENT"
  ab gc
  expect_rc 0 "gc"
  expect_cgroup "$name"
}

# More cases, one file per subject; harness_main finds their case_ functions through H_CASE_FILES.
H_CASE_FILES=("$HERE/serve_cases.sh" "$HERE/disk_cases.sh")
for f in "${H_CASE_FILES[@]}"; do
  # shellcheck source=/dev/null
  source "$f"
done

harness_main "$0" "$@"
