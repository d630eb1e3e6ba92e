#!/usr/bin/env bash
# tests/docker/runsc.sh: the docker backend under gVisor (--runtime runsc), on what Debian 12's
# runsc (2022) supports: commands, exit statuses, timeouts that kill the whole tree, the empty
# network, the seccomp filter and no capabilities. Not covered there, and refused or failing:
# the file API and `cp` (that runsc has no openat2) and idmapped workspaces (a --workspace not
# owned by uid 1000). Run by tests/docker/run_suite.sh runsc.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/conformance/lib.sh
source "$HERE/../conformance/lib.sh"
BACKEND=docker
RUNSC=(--backend docker --runtime runsc)

case_runsc_is_gvisor() {
  # gVisor answers syscalls itself: its /proc/version is its own, not the host kernel's.
  ab run "${RUNSC[@]}" -- cat /proc/version
  expect_rc 0
  [[ -n $AB_OUT && $AB_OUT != "$(cat /proc/version)" ]] || fail "the host kernel answers: $AB_OUT"
}

case_runsc_exit_codes_and_output() {
  ab run "${RUNSC[@]}" --json -- sh -c 'echo out; echo err >&2; exit 7'
  expect_rc 7
  json_assert "r['exit_code'] == 7 and r['stdout'] == 'out\n' and r['stderr'] == 'err\n'"
  ab run "${RUNSC[@]}" -- no-such-command
  expect_rc 127
}

case_runsc_timeout_kills_tree() {
  local t0
  t0=$(now_ms)
  ab run "${RUNSC[@]}" --json --timeout 1 -- sh -c 'setsid sh -c "sleep 100 &"; sleep 100'
  expect_rc 124
  json_assert "r['reason'] == 'timeout'"
  (($(now_ms) - t0 < 15000)) || fail "the timeout took $(($(now_ms) - t0)) ms"
}

case_runsc_persistent_exec() {
  new_box --runtime runsc
  ab exec "$BOX" -- sh -c 'echo one > /tmp/x; cat /tmp/x'
  expect_out one
  ab exec --json --timeout 1 "$BOX" -- sleep 100
  expect_rc 124
  ab exec "$BOX" -- echo still-alive
  expect_out still-alive "the sandbox survives an exec's timeout"
}

case_runsc_no_network_no_caps_filter() {
  ab run "${RUNSC[@]}" -- sh -c 'grep -E "^(CapEff|Seccomp):" /proc/self/status; ls /sys/class/net 2>/dev/null | tr "\n" " "; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " " | tr "\n" " "'
  expect_rc 0
  expect_out_has "CapEff:	0000000000000000"
  expect_out_has "Seccomp:	2"
  [[ $AB_OUT != *eth* ]] || fail "a network interface besides lo: $AB_OUT"
}

lib_main "$0" "$@"
