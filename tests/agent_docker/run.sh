#!/usr/bin/env bash
# tests/agent_docker: agentbox-agent in a box it did not build (AgentMode::kContainer).
#
# Each case starts the agent as PID 1 of a docker container exactly as the docker backend does
# (`docker run -u 2100001000:2100001000 --cap-drop ALL --security-opt no-new-privileges --security-opt
# seccomp=<agentbox's profile> ... --entrypoint /.agentbox/agentbox-agent IMAGE --listen
# /.agentbox/run/agent.sock`) and drives it from the host over that socket with
# agent_test_client, which uses the host's own framing code (src/proto/agent_protocol.cc).
#
#   AGENTBOX_AGENT=build/agentbox-agent AGENT_TEST_CLIENT=build/tests/agent_test_client \
#   ABPROBE=build/tests/abprobe bash tests/agent_docker/run.sh [REGEX]
#
# Skips (a failure under CI=true) when `docker info` fails. Builds the test image from the host's
# busybox-static (scripts/build-test-rootfs.sh) when it is missing.

# Scripts for the sandbox are single-quoted on purpose: they expand inside, not here.
# shellcheck disable=SC2016

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/oneshot.sh
source "$HERE/../lib/oneshot.sh"

IMAGE=${AGENTBOX_TEST_IMAGE:-agentbox-test:latest}
AGENT_SOCK_INSIDE=/.agentbox/run/agent.sock

harness_check_host() {
  local tool
  for tool in AGENTBOX_AGENT AGENT_TEST_CLIENT ABPROBE; do
    [[ -n ${!tool:-} && -x ${!tool:-} ]] || { echo "$tool is not an executable: ${!tool:-unset}"; exit 1; }
  done
  if ! command -v docker >/dev/null; then
    H_GLOBAL_SKIP="no docker CLI on this host"
  elif ! timeout 30 docker info >/dev/null 2>&1; then
    H_GLOBAL_SKIP="docker info fails (no reachable Docker daemon)"
  elif ! docker image inspect "$IMAGE" >/dev/null 2>&1 && ! build_test_image; then
    H_GLOBAL_SKIP="image $IMAGE is missing and cannot be built here (needs busybox-static)"
  fi
  if [[ -n $H_GLOBAL_SKIP ]]; then echo "note: skipping every case: $H_GLOBAL_SKIP"; fi
}

build_test_image() {
  local dir
  dir=$(mktemp -d /tmp/abtest-rootfs.XXXXXX)
  echo "note: building $IMAGE from busybox-static"
  bash "$HERE/../../scripts/build-test-rootfs.sh" "$dir/rootfs" &&
    tar -C "$dir/rootfs" -c . | docker import - "$IMAGE" >/dev/null
  local rc=$?
  rm -rf "$dir"
  return $rc
}

# ---- helpers -------------------------------------------------------------------------------------

# The host ids the docker backend runs a container as (docker/host_ids.h): no account's. The
# agent maps them to 1000 in a user namespace of its own.
AGENT_IDS=2100001000:2100001000

# start_agent [UID:GID]: the container of this case, as the docker backend makes it (as
# AGENT_IDS, or UID:GID); waits until the agent answers a ping. Sets CTR and SOCK.
start_agent() {
  local ids=${1:-$AGENT_IDS}
  local profile=$CASE_DIR/seccomp.json i
  "$AGENT_TEST_CLIENT" profile >"$profile" || fail "cannot write the seccomp profile"
  mkdir -p "$CASE_DIR/run"
  chown "$ids" "$CASE_DIR/run" "$WS"
  chmod 0700 "$CASE_DIR/run"
  CTR=abagent-$$-$RANDOM
  SOCK=$CASE_DIR/run/agent.sock
  on_exit "docker rm -f $CTR >/dev/null 2>&1"
  docker run -d --name "$CTR" --network none --read-only -u "$ids" --cap-drop ALL \
    --security-opt no-new-privileges --security-opt "seccomp=$profile" \
    --pids-limit 256 --memory 512m --memory-swap 512m --tmpfs /tmp:size=64m,mode=1777 \
    -v "$AGENTBOX_AGENT:/.agentbox/agentbox-agent:ro" -v "$CASE_DIR/run:/.agentbox/run" \
    -v "$WS:/workspace" --entrypoint /.agentbox/agentbox-agent "$IMAGE" \
    --listen "$AGENT_SOCK_INSIDE" >"$CASE_DIR/docker-run.out" 2>&1 ||
    fail "docker run failed: $(head -c 500 "$CASE_DIR/docker-run.out")"
  local deadline=$((SECONDS + 30))  # a hang guard: a loaded host starts containers late
  while ((SECONDS < deadline)); do
    [[ -S $SOCK ]] && timeout 5 "$AGENT_TEST_CLIENT" ping "$SOCK" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "the agent never answered a ping: $(docker logs "$CTR" 2>&1 | tail -3 | tr '\n' ' ')"
}

# client ARG...: agent_test_client bounded by H_CALL_TIMEOUT; sets AC_RC, AC_OUT, AC_ERR.
client() {
  timeout -s KILL "$H_CALL_TIMEOUT" "$AGENT_TEST_CLIENT" "$@" \
    <"${AC_STDIN:-/dev/null}" >"$CASE_DIR/ac.out" 2>"$CASE_DIR/ac.err"
  AC_RC=$?
  AC_OUT=$(cat "$CASE_DIR/ac.out")
  AC_ERR=$(cat "$CASE_DIR/ac.err")
  printf '+ agent_test_client %s\n  rc=%s\n  stdout: %s\n  stderr: %s\n' "$*" "$AC_RC" \
    "${AC_OUT:0:1000}" "${AC_ERR:0:1000}"
}

# ex [CLIENT-OPTION...] -- ARGV...: one exec; RESULT is the agent's answer (JSON).
ex() {
  rm -f "$CASE_DIR/result.json"
  client exec "$SOCK" --result "$CASE_DIR/result.json" "$@"
  RESULT=$(cat "$CASE_DIR/result.json" 2>/dev/null)
  printf '  result: %s\n' "$RESULT"
}

# result_assert PY_EXPR [MSG]: r = the exec result object of the last ex.
result_assert() {
  printf '%s' "$RESULT" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read())["result"]
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" 2>"$CASE_DIR/json.err" ||
    fail "${2:-result check failed: $1} (result: ${RESULT:0:400})"
}

# ctr_procs PATTERN: the container's processes whose command line matches PATTERN.
ctr_procs() { docker top "$CTR" -eo pid,args 2>/dev/null | tail -n +2 | grep -E -- "$1" || true; }

# expect_ctr_gone_within SECONDS PATTERN: no process of the container matches PATTERN, waited
# for at least 10 s (a hang guard on a loaded host; over as soon as they are gone).
expect_ctr_gone_within() {
  local deadline=$((SECONDS + ($1 > 10 ? $1 : 10)))
  while ((SECONDS < deadline)); do
    [[ -z $(ctr_procs "$2") ]] && return 0
    sleep 0.1
  done
  fail "still running in the container: $(ctr_procs "$2" | tr '\n' ';')"
}

# wait_ctr_proc PATTERN: waits (a 20 s hang guard) until a process of the container matches PATTERN.
wait_ctr_proc() {
  local deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    [[ -n $(ctr_procs "$1") ]] && return 0
    sleep 0.1
  done
  fail "never started in the container: $1"
}

expect_agent_alive() {
  client ping "$SOCK"
  [[ $AC_RC == 0 && $AC_OUT == *'"ok":true'* ]] || fail "the agent no longer answers ($AC_RC: $AC_OUT)"
}

# ---- the command line ------------------------------------------------------------------------------

case_usage_errors_exit_2() {
  local args
  for args in "--bogus" "--listen" "--listen /a /b" "/a"; do
    # shellcheck disable=SC2086  # split on purpose
    timeout 5 "$AGENTBOX_AGENT" $args >/dev/null 2>"$CASE_DIR/err"
    local rc=$?
    [[ $rc == 2 ]] || fail "agentbox-agent $args exited $rc, want 2"
    grep -q "usage: agentbox-agent" "$CASE_DIR/err" || fail "no usage line for: $args"
  done
}

# As the docker backend starts it, the agent and its commands are uid 1000 inside and the
# container's unprivileged host id outside: its user namespace maps that id alone, and holds
# no capability. Under userns-remap the container is uid 1000 already: no namespace is needed.
case_agent_maps_its_host_id_to_1000() {
  start_agent
  ex -- sh -c 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map; grep CapEff /proc/self/status'
  [[ $(echo "$AC_OUT" | sed -n 1,2p | paste -sd ' ') == "1000 1000" ]] || fail "not uid/gid 1000 inside: $AC_OUT"
  [[ $(echo "$AC_OUT" | awk 'NR==3 || NR==4 {print $1, $2, $3}' | sort -u) == "1000 2100001000 1" ]] ||
    fail "the maps are not 1000 -> 2100001000 alone: $AC_OUT"
  [[ $AC_OUT == *"CapEff:	0000000000000000"* ]] || fail "capabilities inside: $AC_OUT"
  local agent_uid
  agent_uid=$(awk '/^Uid:/ {print $2}' "/proc/$(docker inspect -f '{{.State.Pid}}' "$CTR")/status")
  [[ $agent_uid == 2100001000 ]] || fail "the agent runs as host uid $agent_uid"
  docker rm -f "$CTR" >/dev/null
  start_agent 1000:1000
  ex -- sh -c 'id -u; cat /proc/self/uid_map'
  [[ $(echo "$AC_OUT" | head -1) == 1000 ]] || fail "as 1000:1000 (userns-remap) not uid 1000: $AC_OUT"
}

case_wrong_identity_is_refused() {
  # As root with docker's default capabilities the agent must not serve: its commands would not
  # be the sandbox user.
  local profile=$CASE_DIR/seccomp.json out
  "$AGENT_TEST_CLIENT" profile >"$profile"
  mkdir -p "$CASE_DIR/run"
  out=$(timeout 60 docker run --rm --network none --security-opt "seccomp=$profile" \
    -v "$AGENTBOX_AGENT:/.agentbox/agentbox-agent:ro" -v "$CASE_DIR/run:/.agentbox/run" \
    -v "$WS:/workspace" --entrypoint /.agentbox/agentbox-agent "$IMAGE" \
    --listen "$AGENT_SOCK_INSIDE" 2>&1)
  local rc=$?
  echo "rc=$rc out=$out"
  [[ $rc == 1 ]] || fail "the agent as root exited $rc, want 1"
  [[ $out == *"runs as uid 0"* ]] || fail "no reason given: $out"
  [[ ! -e $CASE_DIR/run/agent.sock ]] || fail "it bound its socket anyway"
}

case_stale_socket_is_replaced() {
  start_agent
  docker rm -f "$CTR" >/dev/null
  [[ -S $SOCK ]] || fail "the killed agent left no socket file (nothing to test)"
  start_agent
  expect_agent_alive
}

# ---- the protocol ----------------------------------------------------------------------------------

case_ping() {
  start_agent
  client ping "$SOCK"
  [[ $AC_RC == 0 ]] || fail "ping rc=$AC_RC"
  [[ $AC_OUT == *'"active_execs":0'* ]] || fail "unexpected ping answer: $AC_OUT"
}

case_exec_echo() {
  start_agent
  ex -- echo hello
  [[ $AC_RC == 0 && $AC_OUT == hello ]] || fail "echo: rc=$AC_RC out=$AC_OUT"
  result_assert 'r["exit_code"] == 0 and r["reason"] == "exited" and r["signal"] is None'
}

case_exec_exit_code_and_stderr() {
  start_agent
  ex -- sh -c 'echo to-err >&2; exit 7'
  [[ $AC_ERR == *to-err* ]] || fail "stderr lost: $AC_ERR"
  result_assert 'r["exit_code"] == 7 and r["reason"] == "exited"'
}

case_exec_127_and_126() {
  start_agent
  ex -- /no/such/command
  result_assert 'r["exit_code"] == 127' "not found must be 127"
  printf '#!/bin/sh\necho x\n' >"$WS/noexec.sh"
  chown "$AGENT_IDS" "$WS/noexec.sh"
  chmod 0644 "$WS/noexec.sh"
  ex -- /workspace/noexec.sh
  result_assert 'r["exit_code"] == 126' "not executable must be 126"
}

case_exec_signal() {
  start_agent
  ex -- sh -c 'kill -TERM $$'
  result_assert 'r["exit_code"] == 143 and r["signal"] == 15 and r["reason"] == "signaled"'
}

case_exec_stdin_is_passed() {
  start_agent
  printf 'from-the-host\n' >"$CASE_DIR/stdin"
  AC_STDIN=$CASE_DIR/stdin ex --stdin -- cat
  [[ $AC_OUT == from-the-host ]] || fail "stdin not passed: $AC_OUT"
  ex -- cat
  [[ -z $AC_OUT ]] || fail "without --stdin the command must read /dev/null: $AC_OUT"
}

case_exec_environment_identity_and_filters() {
  start_agent
  ex -- env
  local names
  names=$(printf '%s\n' "$AC_OUT" | cut -d= -f1 | sort | paste -sd' ')
  [[ $names == "HOME LANG PATH" || $names == "HOME LANG PATH PWD" ]] ||
    fail "environment not clean: $names"
  ex -- sh -c 'id -u; id -g; grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp|Seccomp_filters):" /proc/self/status; ls /proc/self/fd'
  echo "$AC_OUT"
  [[ $(sed -n 1p <<<"$AC_OUT") == 1000 && $(sed -n 2p <<<"$AC_OUT") == 1000 ]] || fail "not uid/gid 1000"
  [[ $AC_OUT == *"CapEff:"*"0000000000000000"* ]] || fail "capabilities not empty"
  [[ $AC_OUT =~ NoNewPrivs:[[:space:]]+1 ]] || fail "no_new_privs not set"
  [[ $AC_OUT =~ Seccomp:[[:space:]]+2 ]] || fail "no seccomp filter"
  # docker's profile and agentbox's own filter, stacked.
  if ! [[ $AC_OUT =~ Seccomp_filters:[[:space:]]+([0-9]+) ]] || ((BASH_REMATCH[1] < 2)); then
    fail "agentbox's filter is not stacked on docker's"
  fi
}

case_exec_our_filter_denies_what_docker_allows() {
  # The profile leaves openat2 to the agent (its file API needs RESOLVE_BENEATH); the commands'
  # own filter still turns it into ENOSYS, so the libc falls back to openat.
  start_agent
  ex -- /workspace/abprobe openat2
  [[ $AC_OUT == *"errno=ENOSYS"* ]] || fail "openat2 in a command: $AC_OUT"
  ex -- /workspace/abprobe unshare user
  [[ $AC_OUT == FAIL* ]] || fail "unshare allowed: $AC_OUT"
  ex -- /workspace/abprobe ptrace traceme
  [[ $AC_OUT == *"errno=EPERM"* ]] || fail "ptrace allowed: $AC_OUT"
}

case_output_limit() {
  start_agent
  ex --output-limit 1000 -- sh -c 'yes | head -c 100000'
  [[ ${#AC_OUT} -le 1000 ]] || fail "got ${#AC_OUT} bytes past a 1000-byte limit"
  result_assert 'r["stdout_truncated"] and "output" in r["limits_hit"] and r["exit_code"] == 0'
}

case_cpu_and_memory_are_measured() {
  start_agent
  ex -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
  result_assert 'r["cpu_ms"] > 50 and r["peak_memory_bytes"] > 100000'
}

# ---- process trees -----------------------------------------------------------------------------

case_timeout_kills_double_fork_tree() {
  start_agent
  ex --timeout-ms 1000 -- sh -c "setsid sh -c 'sleep 1001 &'; sh -c 'trap \"\" TERM; sleep 1002 & kill -STOP \$!'; sleep 1003"
  result_assert 'r["exit_code"] == 124 and r["reason"] == "timeout" and "timeout" in r["limits_hit"]'
  # Killed at the deadline, not when the leftovers' hold on stdout ran out (a 2 s grace).
  result_assert 'r["duration_ms"] < 2500' "the tree was not killed at the deadline"
  expect_ctr_gone_within 2 "sleep 100[123]"
}

case_command_exit_kills_leftovers() {
  start_agent
  ex -- sh -c "setsid sh -c 'sleep 1011 &'; sh -c 'trap \"\" TERM; sleep 1012 & kill -STOP \$!'; echo done"
  [[ $AC_OUT == "done" ]] || fail "output: $AC_OUT"
  # Answered at once, not after the 2 s grace the leftovers' hold on stdout would cost.
  result_assert 'r["exit_code"] == 0 and r["duration_ms"] < 1500'
  # The exec's init kills what is left before it reports: gone when the answer comes.
  [[ -z $(ctr_procs "sleep 101[12]") ]] || fail "survived the command: $(ctr_procs 'sleep 101[12]')"
}

case_client_hangup_kills_tree() {
  start_agent
  "$AGENT_TEST_CLIENT" exec "$SOCK" --timeout-ms 60000 -- \
    sh -c "setsid sh -c 'sleep 1021 &'; sleep 1022" >/dev/null 2>&1 &
  local client_pid=$!
  wait_ctr_proc "sleep 1022"
  wait_ctr_proc "sleep 1021"
  kill -KILL "$client_pid"
  expect_ctr_gone_within 3 "sleep 102[12]"
  expect_agent_alive
}

case_concurrent_execs_are_independent() {
  start_agent
  local t0=$SECONDS
  # A and B each wait until the other has started: they finish only if they run side by side.
  timeout 30 "$AGENT_TEST_CLIENT" exec "$SOCK" --result "$CASE_DIR/a.json" -- \
    sh -c 'touch /workspace/a.started; until [ -e /workspace/b.started ]; do sleep 0.05; done; echo A' >"$CASE_DIR/a" 2>&1 &
  local a=$!
  timeout 30 "$AGENT_TEST_CLIENT" exec "$SOCK" --result "$CASE_DIR/b.json" -- \
    sh -c 'touch /workspace/b.started; until [ -e /workspace/a.started ]; do sleep 0.05; done; echo B' >"$CASE_DIR/b" 2>&1 &
  local b=$!
  # A third exec times out with a double-forked tree while the others run.
  ex --timeout-ms 500 -- sh -c "setsid sh -c 'sleep 1031 &'; sleep 1032"
  result_assert 'r["reason"] == "timeout"'
  wait "$a" || fail "exec A failed: $(cat "$CASE_DIR/a")"
  wait "$b" || fail "exec B failed: $(cat "$CASE_DIR/b")"
  [[ $(cat "$CASE_DIR/a") == A && $(cat "$CASE_DIR/b") == B ]] ||
    fail "outputs mixed up: A=$(cat "$CASE_DIR/a") B=$(cat "$CASE_DIR/b")"
  echo "A and B, waiting for each other, finished in $((SECONDS - t0)) s"
  expect_ctr_gone_within 2 "sleep 103[12]"
}

case_ping_counts_active_execs() {
  start_agent
  timeout 30 "$AGENT_TEST_CLIENT" exec "$SOCK" -- sleep 3 >/dev/null 2>&1 &
  wait_ctr_proc "sleep 3"
  client ping "$SOCK"
  [[ $AC_OUT == *'"active_execs":1'* ]] || fail "ping while one exec runs: $AC_OUT"
}

case_command_killing_its_init_leaves_nothing() {
  # Same uid: the command can kill its exec's init. Its orphans then go to the handler (the next
  # subreaper up), which kills them.
  start_agent
  ex -- sh -c "setsid sh -c 'sleep 1041 &'; kill -9 \$PPID; sleep 1042"
  result_assert 'r["exit_code"] == 137' "an exec whose init was killed ends as SIGKILL"
  expect_ctr_gone_within 3 "sleep 104[12]"
  expect_agent_alive
}

case_command_killing_init_and_handler_leaves_nothing() {
  # Both subreapers gone: the orphans go to PID 1, which kills every child that is not a handler,
  # and answers the client for the killed handler itself (signal 9), so no stream just breaks.
  start_agent
  ex -- sh -c "setsid sh -c 'sleep 1051 &'; h=\$(cut -d' ' -f4 /proc/\$PPID/stat); kill -9 \$PPID \$h; sleep 1052"
  [[ $RESULT == *'"signal":9'* && $RESULT == *'"exit_code":137'* ]] ||
    fail "PID 1 did not answer for the killed handler with signal 9 (rc=$AC_RC): $RESULT"
  expect_ctr_gone_within 3 "sleep 105[12]"
  expect_agent_alive
}

case_kill_minus_one_spares_the_agent() {
  # Documented difference from a native sandbox: the execs of one container share a uid, so
  # `kill -9 -1` reaches the other execs. Never the agent, and nothing is left behind.
  start_agent
  timeout 30 "$AGENT_TEST_CLIENT" exec "$SOCK" -- sh -c 'sleep 1061' >/dev/null 2>&1 &
  wait_ctr_proc "sleep 1061"
  ex -- sh -c 'kill -9 -1; sleep 1062'
  expect_ctr_gone_within 3 "sleep 106[12]"
  expect_agent_alive
  # The kill also took the warm handler and the exec init it had prepared: the next execs get
  # fresh ones, and the one after them a warm handler again.
  local i
  for i in 1 2 3; do
    ex -- echo "still-serving $i"
    [[ $AC_OUT == "still-serving $i" ]] || fail "no exec $i after kill -9 -1: $AC_OUT"
  done
}

# ---- who may talk to the agent, and what a command can see of it --------------------------------

case_connection_from_inside_is_refused() {
  start_agent
  ex -- /workspace/abprobe agent-ping "$AGENT_SOCK_INSIDE"
  [[ $AC_OUT == FAIL* && $AC_OUT == *"hung up"* ]] || fail "a command talked to the agent: $AC_OUT"
  docker logs "$CTR" 2>&1 | grep -q "refused a connection from pid" || fail "refusal not logged"
  expect_agent_alive
}

case_agent_proc_is_unreadable() {
  start_agent
  local path
  for path in /proc/1/environ /proc/1/mem /proc/1/cmdline; do
    ex -- sh -c "head -c 100 $path >/dev/null"
    [[ $path == /proc/1/cmdline ]] && { result_assert 'r["exit_code"] == 0' "cmdline is public"; continue; }
    result_assert 'r["exit_code"] != 0' "$path of the agent is readable"
  done
  ex -- ls /proc/1/fd /proc/1/root/
  result_assert 'r["exit_code"] != 0' "/proc/1/fd of the agent is listable"
  # The exec's init ($PPID) and its handler (the init's parent) are agent processes too.
  ex -- sh -c 'h=$(cut -d" " -f4 /proc/$PPID/stat); cat /proc/$PPID/environ || cat /proc/$h/environ || ls /proc/$h/fd'
  result_assert 'r["exit_code"] != 0' "the init's or handler's /proc is readable"
  # Not vacuous: the command reads its own.
  ex -- sh -c 'head -c 1 /proc/self/environ >/dev/null && ls /proc/self/fd >/dev/null'
  result_assert 'r["exit_code"] == 0' "a command cannot read its own /proc"
}

case_files_write_read_and_stay_beneath_workspace() {
  start_agent
  printf 'hello files\n' >"$CASE_DIR/data"
  AC_STDIN=$CASE_DIR/data client write "$SOCK" /workspace/notes.txt
  [[ $AC_RC == 0 ]] || fail "write_file: $AC_ERR"
  client read "$SOCK" notes.txt
  [[ $AC_RC == 0 && $AC_OUT == "hello files" ]] || fail "read_file: rc=$AC_RC out=$AC_OUT"
  ex -- sh -c 'cat /workspace/notes.txt; stat -c %u:%g /workspace/notes.txt'
  [[ $AC_OUT == $'hello files\n1000:1000' ]] || fail "the command sees: $AC_OUT"
  ln -s /etc/passwd "$WS/link"
  client read "$SOCK" /workspace/link
  [[ $AC_RC == 1 && $AC_ERR == *permission_denied* ]] || fail "symlink out followed: $AC_ERR"
  client request "$SOCK" '{"op":"list_dir","path":"/workspace"}'
  [[ $AC_RC == 0 && $AC_OUT == *notes.txt* ]] || fail "list_dir: $AC_OUT"
}

harness_main "$0" "$@"
