# shellcheck shell=bash
# Resource abuse: fork bombs, memory bombs, output floods and disk fills stay inside their limits
# and are reported in limits_hit; the host stays fine.
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# gvisor_pids_kill_the_box: under gVisor --pids is the sandbox cgroup's limit, and it counts the
# host threads of the Sentry (an idle box holds ~40) and of the stubs that run the box's
# processes: a fork storm makes the Sentry fail to start a thread and the whole sandbox dies
# (exit 125, the agent lost), so no fork is refused and "pids" cannot be reported for the
# command. What must hold still is checked (the storm ended in a failure), then the case is N/A
# there (docs/security.md, gVisor). The host's whole process table is not counted: on a shared
# machine it measures other people's work, and the limit itself is what the cases check.
gvisor_pids_kill_the_box() {
  on_gvisor || return 0
  [[ $AB_RC != 0 ]] || fail "a fork storm past --pids succeeded under gVisor"
  not_applicable "gVisor's Sentry shares the --pids limit with the box's processes; a fork storm kills the whole sandbox (checked: exit $AB_RC), so the limit cannot be reported for the command"
}

# A flat fork storm under --pids 64: forks are refused, limits_hit says pids.
case_limits_pids_flat_fork() {
  boxj --pids 64 -- /workspace/abprobe fork 500
  gvisor_pids_kill_the_box
  json_assert '"pids" in r["limits_hit"]' "limits_hit lacks pids"
  json_assert 'r["stdout"].startswith("FAIL forked=") and int(r["stdout"].split("=")[1].split()[0]) <= 64' \
    "more than 64 processes were allowed"
}

# A (bounded: at most 2^9 leaves) recursive shell fork bomb; dash does not retry fork.
case_limits_fork_bomb_contained() {
  local m
  m=$(new_marker)
  boxj --pids 64 --timeout 5 -- bash -c "exec -a $m sh -c 'b() { [ \$1 -gt 0 ] || { sleep 2; return; }; b \$((\$1-1)) & b \$((\$1-1)) & wait; }; b 9'"
  gvisor_pids_kill_the_box
  json_assert '"pids" in r["limits_hit"]' "limits_hit lacks pids"
  expect_no_host_procs "$m"
}

# Memory bomb: OOM kill -> 137, reason oom, limits_hit memory; agentbox itself unaffected.
case_limits_memory_bomb_oom() {
  boxj --memory 64M -- /workspace/abprobe alloc 400
  expect_rc 137
  json_assert 'r["reason"] == "oom" and r["exit_code"] == 137 and "memory" in r["limits_hit"]'
}

# peak_rss_kb_of_run ARG...: runs agentbox ARG... (stdout to $CASE_DIR/out, status to
# $CASE_DIR/rc) and prints agentbox's peak RSS in KiB: from /usr/bin/time when installed, else from VmHWM polled
# in /proc while it runs (the last sample before exit is the peak).
peak_rss_kb_of_run() {
  if [[ -x /usr/bin/time ]]; then
    timeout -s KILL "$H_CALL_TIMEOUT" /usr/bin/time -f 'MAXRSS_KB=%M' -o "$CASE_DIR/time.out" \
      "$AGENTBOX" "$@" >"$CASE_DIR/out" 2>"$CASE_DIR/err"
    echo $? >"$CASE_DIR/rc"
    sed -n 's/^MAXRSS_KB=//p' "$CASE_DIR/time.out"
    return
  fi
  timeout -s KILL "$H_CALL_TIMEOUT" "$AGENTBOX" "$@" >"$CASE_DIR/out" 2>"$CASE_DIR/err" &
  local pid=$! hwm peak=0
  while kill -0 "$pid" 2>/dev/null; do
    hwm=$(pgrep -P "$pid" | head -1 | xargs -r -I{} awk '/^VmHWM:/ {print $2}' /proc/{}/status 2>/dev/null)
    [[ -n $hwm ]] && ((hwm > peak)) && peak=$hwm
    sleep 0.05
  done
  wait "$pid"
  echo $? >"$CASE_DIR/rc"
  ((peak > 0)) && echo "$peak"
}

# Output flood: 200 MiB of output keeps 1 MiB, reports truncation, and agentbox stays small.
# Under gVisor 64 MiB (its pipes move ~4 MB/s here; 200 MiB would outlast the call's timeout):
# still more than twice what agentbox may hold, so buffering it all would show.
case_limits_output_flood() {
  local rss_kb bytes=209715200
  on_gvisor && bytes=67108864
  # The flood's pace is the host's: in the VM lane under TCG on a busy host 200 MiB outlasted the
  # default 60 s. The case is about what agentbox holds, not how fast a pipe is.
  local H_CALL_TIMEOUT=$((H_CALL_TIMEOUT > 660 ? H_CALL_TIMEOUT : 660))
  rss_kb=$(peak_rss_kb_of_run run "${AB_KIND[@]}" --json --timeout 600 --workspace "$WS" -- sh -c "yes | head -c $bytes")
  AB_RC=$(cat "$CASE_DIR/rc")
  AB_OUT=$(cat "$CASE_DIR/out")
  echo "rc=$AB_RC peak_rss_kb=$rss_kb stderr=$(head -c 500 "$CASE_DIR/err")"
  expect_rc 0
  json_assert 'r["stdout_truncated"] is True and "output" in r["limits_hit"] and len(r["stdout"]) == 1048576'
  [[ -n $rss_kb ]] || fail "could not measure agentbox's peak RSS"
  ((rss_kb < 30 * 1024)) || fail "agentbox peak RSS ${rss_kb} KiB during a flood (want < 30 MiB)"
}

