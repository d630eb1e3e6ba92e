# shellcheck shell=bash
# `agentbox inspect --verify`: the isolation self-report, end to end on the native backend.
# Each case keeps its sandboxes in its own state dir and removes them however it ends.

# verify_box [CREATE-OPTION...]: a persistent sandbox in this case's state dir; sets BOX.
verify_box() {
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  mkdir -p "$AGENTBOX_STATE_DIR"
  ab create --workspace "$WS" "$@"
  [[ $AB_RC == 0 && -n $AB_OUT ]] || fail "create exited $AB_RC: $AB_ERR"
  BOX=$AB_OUT
  on_exit "'$AGENTBOX' rm -f '$BOX' >/dev/null 2>&1"
}

# The report says ok, and every promised check is in it and passed, with the policy's limits.
case_inspect_verify_reports_isolation() {
  verify_box --memory 256M --pids 64
  ab inspect --verify "$BOX"
  expect_rc 0 "verify failed: $AB_ERR"
  json_assert "r['ok'] is True and r['id'] == '$BOX'"
  local name
  for name in ns_user ns_mnt ns_pid ns_ipc ns_uts ns_net ns_cgroup uid gid uid_map gid_map \
    CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Seccomp root_readonly workspace_writable \
    network memory_limit pids_limit; do
    json_assert "any(c['name'] == '$name' and c['ok'] for c in r['checks'])" "check $name missing or failed"
  done
  json_assert "[c['want'] for c in r['checks'] if c['name'] == 'pids_limit'] == ['64']"
  json_assert "[c['got'] for c in r['checks'] if c['name'] == 'memory_limit'] == ['268435456']"
  [[ -z $AB_ERR ]] || fail "a passing verify printed on stderr: $AB_ERR"
}

# It can fail: a limit changed behind agentbox's back (from the host) is caught, named on
# stderr, and the exit status is 1.
case_inspect_verify_catches_a_changed_limit() {
  verify_box --pids 64
  local dir
  dir=$(find /sys/fs/cgroup -maxdepth 4 -type d -name "sb-$BOX" 2>/dev/null | while read -r d; do
    [[ -f $d/pids.max ]] && echo "$d"; done | head -1)
  [[ -n $dir ]] || skip "cannot find the sandbox's pids cgroup under /sys/fs/cgroup"
  echo 100 >"$dir/pids.max" || fail "cannot write $dir/pids.max"
  ab inspect --verify "$BOX"
  expect_rc 1 "a changed pids limit went unnoticed"
  json_assert "r['ok'] is False"
  json_assert "[c['got'] for c in r['checks'] if c['name'] == 'pids_limit'] == ['100']"
  expect_err_has "verify: pids_limit: want 64, got 100"
  [[ $(grep -c 'verify:' <<<"$AB_ERR") == 1 ]] || fail "want one failure line, got: $AB_ERR"
}

case_inspect_verify_unknown_sandbox() {
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  mkdir -p "$AGENTBOX_STATE_DIR"
  ab inspect --verify no-such-box
  expect_rc 125
  [[ -z $AB_OUT ]] || fail "printed a report for an unknown sandbox: $AB_OUT"
  ab inspect --verify
  expect_rc 125
}
