# shellcheck shell=bash
# docs/contract.md §1 "Exit status": the command's own code, 124 timeout, 125 agentbox failed (and the
# command never ran), 126 not executable, 127 not found, 128+N killed by signal N.
# Single-quoted scripts run inside the sandbox and expand there.
# shellcheck disable=SC2016,SC2034

case_exit_code_0() { box -- true; expect_rc 0; }
case_exit_code_3() { box -- sh -c 'exit 3'; expect_rc 3; }
case_exit_code_42() { box -- sh -c 'exit 42'; expect_rc 42; }

# The same statuses in JSON: exit_code, reason exited, signal null.
case_exit_code_json() {
  boxj -- sh -c 'exit 42'
  expect_rc 42
  json_assert 'r["exit_code"] == 42 and r["reason"] == "exited" and r["signal"] is None'
}

# --timeout 0.5 ends a sleep with 124, promptly: long before the sleep would have ended (the
# bound is the sleep's own length less a margin a loaded host never needs, not a speed target).
case_exit_timeout_124() {
  local start elapsed
  start=$(date +%s%N)
  box --timeout 0.5 -- sleep 25
  elapsed=$((($(date +%s%N) - start) / 1000000))
  expect_rc 124
  ((elapsed < 15000)) || fail "--timeout 0.5 returned after ${elapsed} ms (the sleep was 25 s)"
}

case_exit_timeout_json() {
  boxj --timeout 0.5 -- sleep 10
  expect_rc 124
  json_assert 'r["exit_code"] == 124 and r["reason"] == "timeout" and "timeout" in r["limits_hit"]'
  # At least the limit; at most the limit plus what killing and reaping can cost on a busy host.
  json_assert '400 <= r["duration_ms"] < 5000' "duration_ms not about 500"
}

# expect_refused_125 ARG...: agentbox must exit 125 with a one-line reason on stderr, and the
# command (which would create /workspace/ran) must never have run.
expect_refused_125() {
  ab run --workspace "$WS" "$@" -- sh -c 'touch /workspace/ran'
  expect_rc 125
  [[ ! -e $WS/ran ]] || fail "the command ran although agentbox refused"
  [[ -n $AB_ERR ]] || fail "no reason on stderr"
  [[ $(printf '%s\n' "$AB_ERR" | wc -l) == 1 ]] || fail "the reason is not one line: $AB_ERR"
}

case_exit_125_unknown_flag() { expect_refused_125 --no-such-flag; }
case_exit_125_bad_memory() { expect_refused_125 --memory lots; }
case_exit_125_bad_timeout() { expect_refused_125 --timeout -3; }
case_exit_125_nonexistent_rootfs() { expect_refused_125 --rootfs "$CASE_DIR/no-such-rootfs"; }
case_exit_125_unknown_backend() { expect_refused_125 --backend vmware; }

case_exit_125_missing_command() {
  ab run --workspace "$WS" --
  expect_rc 125
  [[ -n $AB_ERR ]] || fail "no reason on stderr"
  ab run
  expect_rc 125
}

# expect_policy_refused JSON KEY: an invalid policy is refused (125, nothing run) and the one
# stderr line names the file and the offending key.
expect_policy_refused() {
  local policy=$CASE_DIR/policy.json
  printf '%s\n' "$1" >"$policy"
  expect_refused_125 --policy "$policy"
  expect_err_has "$policy" "the reason does not name the policy file"
  expect_err_has "$2" "the reason does not name the key"
}

case_exit_125_policy_unknown_key() { expect_policy_refused '{"memroy": "1G"}' memroy; }
case_exit_125_policy_wrong_type() { expect_policy_refused '{"timeout": 5, "memory": true}' memory; }
case_exit_125_policy_not_json() {
  printf '{"timeout": 5,' >"$CASE_DIR/policy.json"
  expect_refused_125 --policy "$CASE_DIR/policy.json"
  expect_err_has "$CASE_DIR/policy.json"
}
case_exit_125_policy_missing_file() { expect_refused_125 --policy "$CASE_DIR/none.json"; }

case_exit_126_not_executable() {
  printf '#!/bin/sh\necho hi\n' >"$WS/noexec"
  chmod 0644 "$WS/noexec"
  box -- /workspace/noexec
  expect_rc 126
}

case_exit_127_not_found() {
  box -- no-such-command-abtest
  expect_rc 127
  box -- /workspace/no-such-file
  expect_rc 127
}

# The shell is not the sandbox's pid 1, so it can signal itself: 128+N, reason signaled.
case_exit_signal_term_143() {
  boxj -- sh -c 'kill -TERM $$; sleep 5'
  expect_rc 143
  json_assert 'r["exit_code"] == 143 and r["signal"] == 15 and r["reason"] == "signaled"'
}

case_exit_signal_kill_137() {
  boxj -- sh -c 'kill -KILL $$; sleep 5'
  expect_rc 137
  json_assert 'r["exit_code"] == 137 and r["signal"] == 9 and r["reason"] == "signaled"'
}

case_exit_signal_plain_mode() {
  box -- sh -c 'kill -TERM $$; sleep 5'
  expect_rc 143
}

# Arguments after -- belong to the command, even when they look like agentbox flags.
case_exit_args_after_dashdash_untouched() {
  box -- sh -c 'printf "%s|" "$@"' sh --json --timeout 1 -e 'a b'
  expect_rc 0
  [[ $AB_OUT == "--json|--timeout|1|-e|a b|" ]] || fail "argv inside: $AB_OUT"
}

# Without --json the exit status cannot tell an OOM kill (137) from a kill -9 (137), nor say that
# output was dropped: agentbox names what ended the command on stderr.
case_plain_mode_names_the_limit() {
  box --timeout 0.5 -- sleep 10
  expect_rc 124
  expect_err_has "--timeout" "a plain-mode timeout names its limit"
  box --memory 32M -- python3 -c 'x = bytearray(200 << 20)'
  expect_rc 137
  expect_err_has "out-of-memory" "a plain-mode OOM kill says so"
  box --output-limit 4 -- echo hello
  expect_rc 0
  expect_err_has "output" "dropped output is reported"
  # --cpus 2: on a slow host (a TCG guest) the default 1-CPU quota can throttle the sandbox's own
  # start, and agentbox then rightly says "limits hit: cpu" on stderr; this case is about the
  # streams, so it leaves the quota no chance. A private workspace: on a directory without quotas
  # `run` adds a note that the default disk limit is not enforced (disk_quota.sh).
  ab run "${AB_KIND[@]}" --cpus 2 -- sh -c 'echo plain >&2'
  [[ $AB_ERR == "plain" || $AB_ERR == $'plain\n' ]] || fail "stderr of a clean run has extra text: '$AB_ERR'"
}
