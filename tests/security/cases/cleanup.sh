# shellcheck shell=bash
# Process-tree cleanup: docs/contract.md §2 "when the command ends, times out or is killed, every process
# it started is gone, including ones that called setsid, double-forked, ignore SIGTERM, or are
# stopped". Each case leaves a process whose argv[0] is a marker, then looks for it on the host.
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# await_inside MARKER: shell text that waits (a 10 s hang guard) until the marked process exists inside,
# then prints SPAWNED, so a case proves its process really lived before it checks it is gone.
await_inside() {
  # grep over /proc, not pgrep: images built on busybox-static have no pgrep.
  printf 'i=0; while [ $i -lt 200 ] && ! grep -qas "^%s" /proc/[0-9]*/cmdline; do sleep 0.05; i=$((i+1)); done; ' "$1"
  printf 'grep -qas "^%s" /proc/[0-9]*/cmdline && echo SPAWNED' "$1"
}

# in_target [OPTION...] -- COMMAND...: runs a command where its leftovers can be looked for:
# `agentbox run`, whose leftovers would be host processes; under gVisor, where the box's
# processes are never host processes, `agentbox exec` in a persistent sandbox (made on first
# use), whose leftovers the next exec looks for inside (expect_gone).
in_target() {
  if ! on_gvisor; then
    box "$@"
    return
  fi
  [[ -n ${BOX:-} ]] || new_box
  local -a opts=()
  while [[ $1 != -- ]]; do
    opts+=("$1")
    shift
  done
  ab exec "${opts[@]}" "$BOX" "$@"
}

# expect_gone MARKER: no process with MARKER survives, where in_target can see it.
expect_gone() {
  if on_gvisor; then expect_no_box_procs "$1"; else expect_no_host_procs "$1"; fi
}

# expect_left_behind_gone MARKER SCRIPT-MAKING-MARKED-PROCESS: runs it, the command exits 0,
# nothing stays.
expect_left_behind_gone() {
  local mark=$1 spawn=$2
  in_target -- sh -c "$spawn $(await_inside "$mark")"
  expect_rc 0
  expect_out_has SPAWNED
  expect_gone "$mark"
}

# Gone when the result arrives, not a moment later: the next look, with no grace period, finds
# nothing. (The init kills and reaps what is left before it reports; the result waits for that
# report.) The host looks; under gVisor the next exec of the same box looks inside.
case_cleanup_gone_when_result_arrives() {
  local m
  m=$(new_marker)
  in_target -- sh -c "setsid bash -c 'exec -a $m sleep 30' >/dev/null 2>&1 & (bash -c 'exec -a $m sleep 30' >/dev/null 2>&1 &) ; $(await_inside "$m")"
  expect_rc 0
  expect_out_has SPAWNED
  if on_gvisor; then
    ab exec "$BOX" -- sh -c "grep -qas '^$m' /proc/[0-9]*/cmdline && echo LEFT_BEHIND; echo LOOKED"
    expect_out_has LOOKED "could not look inside the sandbox"
    expect_out_lacks LEFT_BEHIND "processes of the command were still there when its result came"
    return
  fi
  local left
  left=$(host_pids "$m")
  [[ -z $left ]] || fail "processes of the command were still there when its result came: $left"
  expect_no_host_procs "$m"
}

case_cleanup_background_child() {
  local m
  m=$(new_marker)
  expect_left_behind_gone "$m" "bash -c 'exec -a $m sleep 30' >/dev/null 2>&1 &"
}

case_cleanup_setsid() {
  local m
  m=$(new_marker)
  expect_left_behind_gone "$m" "setsid bash -c 'exec -a $m sleep 30' >/dev/null 2>&1 &"
}

# Double fork: the grandchild is orphaned and reparented, out of its parent's reach.
case_cleanup_double_fork() {
  local m
  m=$(new_marker)
  expect_left_behind_gone "$m" "(bash -c 'exec -a $m sleep 30' >/dev/null 2>&1 &) ;"
}

# SIGTERM ignored (the disposition survives exec): a polite kill is not enough.
case_cleanup_ignores_sigterm() {
  local m
  m=$(new_marker)
  expect_left_behind_gone "$m" "bash -c \"trap '' TERM HUP INT; exec -a $m sleep 30\" >/dev/null 2>&1 &"
}

# A stopped process ignores everything but SIGKILL/SIGCONT. Under gVisor it gets a session of its
# own: gVisor sends SIGHUP to the whole command when a process of its (orphaned) group stops,
# where Linux does so only when a group becomes orphaned, and the command would die of it.
case_cleanup_stopped_process() {
  local m own_session=""
  m=$(new_marker)
  on_gvisor && own_session="setsid "
  expect_left_behind_gone "$m" "${own_session}bash -c 'exec -a $m bash -c \"kill -STOP \\\$\\\$; sleep 30\"' >/dev/null 2>&1 &"
}

case_cleanup_nohup() {
  local m
  m=$(new_marker)
  expect_left_behind_gone "$m" "nohup bash -c 'exec -a $m sleep 30' >/dev/null 2>&1 &"
}

# At the wall-clock limit: exit 124, reason timeout, and the whole tree (setsid'd too) is gone.
case_cleanup_at_timeout() {
  local m
  m=$(new_marker)
  in_target --json --timeout 1 -- sh -c "setsid bash -c 'exec -a $m sleep 30' >/dev/null 2>&1 & bash -c \"trap '' TERM; exec -a $m sleep 30\""
  expect_rc 124
  json_assert 'r["reason"] == "timeout" and r["exit_code"] == 124 and "timeout" in r["limits_hit"]'
  expect_gone "$m"
}

# A background child that keeps stdout open must not make agentbox wait for it.
case_cleanup_background_holding_stdout() {
  local m start elapsed
  m=$(new_marker)
  on_gvisor && new_box  # made before the clock starts
  start=$(date +%s%N)
  in_target -- sh -c "bash -c 'exec -a $m sleep 100' & echo started"
  elapsed=$((($(date +%s%N) - start) / 1000000))
  expect_rc 0
  expect_out_has started
  # Waiting for the child would end at the 60 s default timeout (124) or the harness's 30 s call
  # limit: exit 0 is the proof; the elapsed bound only makes the message clear, far from both.
  ((elapsed < 20000)) || fail "agentbox took ${elapsed} ms: it waited for the background child"
  expect_gone "$m"
}

# kill -9 -1 inside reaches only the sandbox's own processes: host processes of root and of
# uid 1000 (the sandbox's uid, in case the mapping were the identity) survive.
case_cleanup_kill_minus_one_contained() {
  local m1 m2 p1 p2
  m1=$(new_marker)a
  m2=$(new_marker)b
  bash -c "exec -a $m1 sleep 30" &
  p1=$!
  setpriv --reuid 1000 --regid 1000 --clear-groups bash -c "exec -a $m2 sleep 30" &
  p2=$!
  # Both are running as themselves before the sandbox starts.
  wait_host_pid "$m1" >/dev/null && wait_host_pid "$m2" >/dev/null || fail "the host processes did not start"
  sh_in 'kill -9 -1; echo AFTER_KILL'
  local alive1=0 alive2=0
  kill -0 "$p1" 2>/dev/null && alive1=1
  kill -0 "$p2" 2>/dev/null && alive2=1
  kill -KILL "$p1" "$p2" 2>/dev/null
  wait 2>/dev/null
  [[ $AB_RC != 125 ]] || fail "agentbox failed to run the command"
  ((alive1 == 1)) || fail "kill -9 -1 inside killed a host root process"
  ((alive2 == 1)) || fail "kill -9 -1 inside killed a host uid-1000 process"
}
