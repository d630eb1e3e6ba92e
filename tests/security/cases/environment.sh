# shellcheck shell=bash
# Environment and descriptors: docs/contract.md §2 "a clean environment ... only fds 0, 1, 2 open".
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# env_keys: the variable names `env` printed inside, sorted, space-separated.
env_keys() { echo "$AB_OUT" | cut -d= -f1 | sort | tr '\n' ' '; }

# Nothing of the host's environment (tokens, SSH_AUTH_SOCK, cloud credentials) leaks in.
case_env_clean() {
  SECRET_TOKEN=xyz AWS_SECRET_ACCESS_KEY=abc box -- env
  expect_rc 0
  expect_out_lacks xyz "SECRET_TOKEN leaked"
  expect_out_lacks AWS_SECRET "host variable leaked"
  [[ $(env_keys) == "HOME LANG PATH " ]] || fail "variables inside: $(env_keys)"
  expect_out_has HOME=/workspace
  expect_out_has LANG=C.UTF-8
}

case_env_flag_added() {
  SECRET_TOKEN=xyz box -e FOO=bar --env BAZ=qux -- env
  expect_rc 0
  expect_out_has FOO=bar
  expect_out_has BAZ=qux
  [[ $(env_keys) == "BAZ FOO HOME LANG PATH " ]] || fail "variables inside: $(env_keys)"
}

# CVE-2024-21626 (runc "Leaky Vessels"): a host fd leaked into the box is a way out.
# fd 7 is opened here and must not be inherited; the probe lists its fds without its own dir fd.
case_fds_only_012() {
  exec 7</etc/hostname 8<"$CASE_DIR"
  box -- /workspace/abprobe fds
  exec 7<&- 8<&-
  expect_rc 0
  [[ $AB_OUT == "OK fds: 0 1 2" ]] || fail "open fds inside: $AB_OUT"
}

# The same seen by ls: 0 1 2 and the directory fd ls itself opens.
case_fds_ls_proc_self_fd() {
  exec 7</etc/hostname
  box -- ls /proc/self/fd
  exec 7<&-
  expect_rc 0
  [[ $(echo "$AB_OUT" | tr '\n' ' ') == "0 1 2 3 " ]] || fail "ls /proc/self/fd: $(echo "$AB_OUT" | tr '\n' ' ')"
}
