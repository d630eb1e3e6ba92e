# shellcheck shell=bash
# harness.sh: the tiny test harness of the script suites (tests/security, tests/integration).
#
# A suite's run.sh sources this file and its case files, each defining functions named case_NAME,
# then calls `harness_main "$@"`. Every case runs in its own bash process under `timeout -s KILL`
# (GNU timeout kills the whole process group), with a fresh host scratch dir $CASE_DIR and a fresh
# workspace $WS holding a copy of the probe, both removed afterwards. A case returns 0 (pass) or
# calls `fail MSG` / `skip MSG`. Output is colour-free: `PASS name`, `FAIL name: reason`,
# `SKIP name: reason`, then exactly `N passed, N failed[, N skipped]`; exit 1 on any failure.
# With CI=true a skip is a failure: CI provides root and user namespaces, so nothing may hide.
#
# Usage: run.sh [REGEX]   runs the cases whose name matches REGEX (all by default).

# Globals set here (AB_*, LISTEN_*, WS, CASE_DIR) are read by the case files.
# shellcheck disable=SC2034
set -u
# shellcheck source=tests/lib/run_guard.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_guard.sh"

# The backend every `box` call uses: AGENTBOX_BACKEND (native, docker), native by default.
readonly AB_BACKEND=${AGENTBOX_BACKEND:-native}
# The docker backend's OCI runtime: AGENTBOX_RUNTIME (e.g. runsc, gVisor), dockerd's default if
# empty. Under runsc every workspace is made owned by $AB_WS_OWNER, the only owner gVisor can use.
readonly AB_RUNTIME=${AGENTBOX_RUNTIME:-}
# The options that pick the sandbox kind, for every create/run a case makes.
AB_KIND=(--backend "$AB_BACKEND")
[[ -n $AB_RUNTIME ]] && AB_KIND+=(--runtime "$AB_RUNTIME")
readonly AB_KIND
# What the N/A lines and the summary call this target: "native", "docker", "docker (runsc)".
readonly AB_TARGET=$AB_BACKEND${AB_RUNTIME:+ ($AB_RUNTIME)}
# The owner of every case's workspace: a user's (1000:1000), or under gVisor, which cannot use
# the idmapped mount another owner needs, the container's own host ids (docker/host_ids.h).
if [[ $AB_RUNTIME == runsc ]]; then AB_WS_OWNER=2100001000:2100001000; else AB_WS_OWNER=1000:1000; fi
readonly AB_WS_OWNER
readonly H_CASE_TIMEOUT=${H_CASE_TIMEOUT:-40}   # seconds for one case, however it hangs
readonly H_CALL_TIMEOUT=${H_CALL_TIMEOUT:-30}   # seconds for one agentbox call
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; else PY=python3; fi
readonly PY

# ---- inside a case -------------------------------------------------------------------------------

# fail MSG: ends the case as failed. Call it from the case function itself, not from $(...).
fail() {
  printf '__FAIL__ %s\n' "$*"
  exit 1
}

# skip MSG: ends the case as skipped (a failure when CI=true).
skip() {
  printf '__SKIP__ %s\n' "$*"
  exit 77
}

# ab SUBCOMMAND [ARG...]: runs agentbox bounded by H_CALL_TIMEOUT; sets AB_RC, AB_OUT, AB_ERR.
# stdin comes from AB_STDIN (a file) when set, else /dev/null.
ab() {
  local in=${AB_STDIN:-/dev/null}
  timeout -s KILL "$H_CALL_TIMEOUT" "$AGENTBOX" "$@" <"$in" >"$CASE_DIR/ab.out" 2>"$CASE_DIR/ab.err"
  AB_RC=$?
  AB_OUT=$(cat "$CASE_DIR/ab.out")
  AB_ERR=$(cat "$CASE_DIR/ab.err")
  printf '+ agentbox %s\n  rc=%s\n' "$*" "$AB_RC"
  printf '  stdout: %s\n' "${AB_OUT:0:2000}"
  printf '  stderr: %s\n' "${AB_ERR:0:2000}"
}

# box [RUN-OPTION...] -- COMMAND...: `agentbox run` in this case's workspace.
box() { ab run "${AB_KIND[@]}" --workspace "$WS" "$@"; }

# boxj [RUN-OPTION...] -- COMMAND...: the same with --json; AB_OUT is the result object.
boxj() { ab run "${AB_KIND[@]}" --json --workspace "$WS" "$@"; }

# new_box [CREATE-OPTION...]: a persistent sandbox on this case's workspace, removed when the
# case ends; its id goes to BOX.
new_box() {
  ab create "${AB_KIND[@]}" --workspace "$WS" "$@"
  [[ $AB_RC == 0 && $AB_OUT =~ ^[A-Za-z0-9_.-]+$ ]] || fail "create $* exited $AB_RC: $AB_ERR"
  BOX=$AB_OUT
  on_exit "timeout -s KILL $H_CALL_TIMEOUT \"\$AGENTBOX\" rm -f '$BOX' >/dev/null 2>&1"
}

# new_private_box [CREATE-OPTION...]: a persistent sandbox on a workspace agentbox makes (held by
# a kernel quota), with the probe copied in; its id goes to BOX, its host path to BOX_WS.
new_private_box() {
  ab create "${AB_KIND[@]}" "$@"
  [[ $AB_RC == 0 && $AB_OUT =~ ^[A-Za-z0-9_.-]+$ ]] || fail "create $* exited $AB_RC: $AB_ERR"
  BOX=$AB_OUT
  on_exit "timeout -s KILL $H_CALL_TIMEOUT \"\$AGENTBOX\" rm -f '$BOX' >/dev/null 2>&1"
  ab cp "$ABPROBE" "$BOX:/workspace/abprobe"
  [[ $AB_RC == 0 ]] || fail "cp of the probe into $BOX exited $AB_RC: $AB_ERR"
  ab exec "$BOX" -- chmod 0755 /workspace/abprobe
  ab inspect "$BOX"
  BOX_WS=$(json_get workspace)
}

# in_box SCRIPT: sh -c SCRIPT in the sandbox BOX (plain output).
in_box() { ab exec "$BOX" -- sh -c "$1"; }

# host_kib DIR: KiB allocated beneath DIR on the host (du -sk), what the disk actually holds.
host_kib() { du -sk "$1" | cut -f1; }

# not_applicable REASON: ends the case as N/A (exit 78): it cannot apply to this target.
not_applicable() {
  printf '__NA__ %s\n' "$1"
  exit 78
}

# only_on BACKEND REASON: the case checks something only BACKEND has (e.g. a host-side view of
# the native backend's own namespaces); on another backend it is reported as N/A, not run.
only_on() {
  [[ $AB_BACKEND == "$1" ]] && return 0
  not_applicable "$2"
}

# on_gvisor: true when the sandboxes run under gVisor (docker --runtime runsc). There the box's
# processes are not host processes (the Sentry runs them), so host-side process checks see
# nothing and the cases look inside the box instead.
on_gvisor() { [[ $AB_RUNTIME == runsc ]]; }

# sh_in SCRIPT: the common case, a shell script in the default sandbox (plain output).
sh_in() { box -- sh -c "$1"; }

# json_assert PY_EXPR [MSG]: evaluates PY_EXPR with r = the parsed JSON result in AB_OUT.
json_assert() {
  if ! printf '%s' "$AB_OUT" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read())
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" 2>"$CASE_DIR/json.err"; then
    fail "${2:-JSON check failed: $1} ($(head -c 300 "$CASE_DIR/json.err"))"
  fi
}

# json_get KEY: prints one field of the JSON result (lists comma-joined, bools true/false).
json_get() {
  printf '%s' "$AB_OUT" | "$PY" -c '
import json, sys
v = json.loads(sys.stdin.read()).get(sys.argv[1])
if isinstance(v, bool): v = "true" if v else "false"
elif isinstance(v, list): v = ",".join(map(str, v))
elif v is None: v = "null"
print(v)' "$1" 2>/dev/null
}

expect_rc() {
  [[ $AB_RC == "$1" ]] || fail "exit status $AB_RC, want $1${2:+ ($2)}"
}

expect_out_has() {
  [[ $AB_OUT == *"$1"* ]] || fail "stdout lacks '$1'${2:+ ($2)}"
}

expect_out_lacks() {
  [[ $AB_OUT != *"$1"* ]] || fail "stdout has '$1'${2:+ ($2)}"
}

expect_err_has() {
  [[ $AB_ERR == *"$1"* ]] || fail "stderr lacks '$1'${2:+ ($2)}"
}

# probe_denied ARG...: runs /workspace/abprobe ARG... inside; the operation must fail.
# A probe setup error (exit 2) is not a denial: the case fails, naming it.
probe_denied() {
  box -- /workspace/abprobe "$@"
  [[ $AB_RC == 1 && $AB_OUT == FAIL* ]] || fail "abprobe $* was not refused (rc=$AB_RC: $AB_OUT)"
}

# probe_eperm ARG...: like probe_denied, and the refusal must be the filter's EPERM.
probe_eperm() {
  probe_denied "$@"
  [[ $AB_OUT == *"errno=EPERM"* ]] || fail "abprobe $*: want EPERM from seccomp, got: $AB_OUT"
}

# probe_errno ERRNO ARG...: like probe_denied, and the refusal must carry errno ERRNO.
probe_errno() {
  local want=$1
  shift
  probe_denied "$@"
  [[ $AB_OUT == *"errno=$want("* ]] || fail "abprobe $*: want $want from seccomp, got: $AB_OUT"
}

# on_exit CMD: runs CMD when the case ends, however it ends (fail/skip exit too).
H_ON_EXIT=()
on_exit() { H_ON_EXIT+=("$1"); }
harness_run_on_exit() {
  local cmd
  for cmd in "${H_ON_EXIT[@]}"; do eval "$cmd"; done
  # Background helpers (listeners, victims) must not outlive their case.
  local -a left
  mapfile -t left < <(jobs -p)
  ((${#left[@]} == 0)) || kill -KILL "${left[@]}" 2>/dev/null
}

# new_marker: a unique word to find this case's processes on the host.
new_marker() { printf 'abmark%s%s' "$$" "$RANDOM"; }

# host_pids MARKER: pids of host processes whose argv[0] is MARKER (started inside with
# `exec -a MARKER ...`); anchored so agentbox's own command line, which holds it too, is no match.
host_pids() { pgrep -f -- "^$1( |\$)" || true; }

# wait_until SECONDS CMD...: polls CMD until it succeeds; fails after SECONDS. The bound is a
# hang guard, not a guess at how long something takes: on a loaded machine the event comes
# late, and the case goes on as soon as it comes.
wait_until() {
  local limit=$1 deadline
  shift
  deadline=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

no_host_pids() { [[ -z $(host_pids "$1") ]]; }

# expect_no_host_procs MARKER: no process with MARKER may remain on the host. The sandbox's
# processes are gone when its result arrives (cleanup_gone_when_result_arrives checks that with
# no grace); the wait here only absorbs a loaded host's late reaping of already-killed ones.
expect_no_host_procs() {
  wait_until 10 no_host_pids "$1" && return 0
  fail "processes survived the sandbox: $(pgrep -af -- "^$1" | head -5 | tr '\n' ';')"
}

# expect_no_box_procs MARKER: no process with MARKER may remain in the sandbox $BOX (waited for
# up to 10 s, as expect_no_host_procs),
# looked for by a new exec there (under gVisor the box's processes are not host processes).
expect_no_box_procs() {
  local seen="grep -qas '^$1' /proc/[0-9]*/cmdline"
  ab exec "$BOX" -- sh -c "i=0; while [ \$i -lt 200 ] && $seen; do sleep 0.05; i=\$((i+1)); done; $seen && echo LEFT_BEHIND; echo LOOKED"
  expect_out_has LOOKED "could not look inside the sandbox"
  expect_out_lacks LEFT_BEHIND "processes survived the command inside the sandbox"
}

# wait_host_pid MARKER: waits (a hang guard of 20 s) for a host process with MARKER; prints its pid.
wait_host_pid() {
  local pid deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    pid=$(host_pids "$1" | head -1)
    [[ -n $pid ]] && { echo "$pid"; return 0; }
    sleep 0.05
  done
  return 1
}

# ---- the runner ----------------------------------------------------------------------------------

H_PASS=0
H_FAIL=0
H_SKIP=0
H_NA=0  # cases that do not apply to this backend (only_on)
H_GLOBAL_SKIP=""

# Runs one case in this process (the child side of harness_run_case).
harness_case_child() {
  WS=$CASE_DIR/ws
  mkdir -p "$WS"
  install -m 0755 "$ABPROBE" "$WS/abprobe"
  # A user's directory, as a workspace should be: agentbox refuses a non-empty one of root's
  # (the command would act as root on its files).
  chown -R "$AB_WS_OWNER" "$WS"
  trap harness_run_on_exit EXIT
  "case_$1"
}

harness_report() {
  local name=$1 status=$2 reason=$3
  if [[ $status == skip && ${CI:-} == true ]]; then
    status=fail
    reason="skipped in CI, where nothing may be skipped: $reason"
  fi
  case $status in
    pass) echo "PASS $name"; H_PASS=$((H_PASS + 1)) ;;
    skip) echo "SKIP $name: $reason"; H_SKIP=$((H_SKIP + 1)) ;;
    *) echo "FAIL $name: $reason"; H_FAIL=$((H_FAIL + 1)) ;;
  esac
}

# harness_sweep_state_dir DIR NAME: removes every sandbox left in the state dir DIR (a killed
# `agentbox run`, a failed `rm`), saying so, then DIR itself.
harness_sweep_state_dir() {
  local dir=$1 id
  for id in $(ls "$dir/sandboxes" 2>/dev/null); do
    echo "note: $2 left sandbox $id behind; removed"
    AGENTBOX_STATE_DIR=$dir timeout -s KILL 30 "$AGENTBOX" rm -f "$id" >/dev/null 2>&1
  done
  remove_state_dir "$dir"
}

# remove_state_dir DIR: gc first, so the workspace pool in DIR (a mounted filesystem) is
# unmounted and its image deleted, then the dir.
remove_state_dir() {
  # Suites that drive no agentbox binary (agent_docker) have no pool to collect.
  [[ -n ${AGENTBOX:-} ]] && AGENTBOX_STATE_DIR=$1 timeout -s KILL 60 "$AGENTBOX" gc >/dev/null 2>&1
  if mountpoint -q "$1/storage/pool" 2>/dev/null; then
    echo "note: the workspace pool of $1 was still mounted; unmounted"
    umount -l "$1/storage/pool"
  fi
  rm -rf "$1"
}

harness_run_case() {
  local name=$1 script=$2 rc reason
  if [[ -n $H_GLOBAL_SKIP ]]; then
    harness_report "$name" skip "$H_GLOBAL_SKIP"
    return
  fi
  CASE_DIR=$(mktemp -d "$GUARD_DIR/c.XXXXXX")
  # Traversable like a user's ordinary dir; cases about private (0700) parents make their own.
  chmod 0755 "$CASE_DIR"
  export CASE_DIR
  # Every case's sandboxes live in a state dir of its own, swept when the case ends however it
  # ends (under gVisor a leftover is a whole gVisor kernel left running), and by the run guard
  # if the suite itself is killed. A case may still point AGENTBOX_STATE_DIR elsewhere.
  local state_dir
  state_dir=$(mktemp -d "$GUARD_DIR/s.XXXXXX")
  export AGENTBOX_STATE_DIR=$state_dir
  # In the background and waited for, so the run guard knows the case's process group.
  guard_bg timeout -s KILL "$H_CASE_TIMEOUT" bash "$script" --one "$name" >"$CASE_DIR/case.log" 2>&1 </dev/null
  guard_track "-$GUARD_BG_PID"
  wait "$GUARD_BG_PID"
  rc=$?
  harness_sweep_state_dir "$state_dir" "$name"
  reason=$(grep -E '^__(FAIL|SKIP|NA)__ ' "$CASE_DIR/case.log" | tail -1 | cut -d' ' -f2-)
  case $rc in
    0) harness_report "$name" pass "" ;;
    78) echo "N/A  $name on $AB_TARGET: $reason"; H_NA=$((H_NA + 1)) ;;
    77) harness_report "$name" skip "${reason:-no reason given}" ;;
    137) harness_report "$name" fail "case killed after ${H_CASE_TIMEOUT}s (hung?)" ;;
    *) harness_report "$name" fail "${reason:-case returned $rc}" ;;
  esac
  if [[ $rc != 0 && $rc != 77 && $rc != 78 ]] || [[ ${VERBOSE:-} == 1 ]]; then
    grep -v -E '^__(FAIL|SKIP)__ ' "$CASE_DIR/case.log" | tail -n 25 | sed 's/^/    | /'
  fi
  rm -rf --one-file-system "$CASE_DIR"
}

# Decides whether this host can run the suite at all; sets H_GLOBAL_SKIP with the reason.
harness_check_host() {
  [[ -n ${AGENTBOX:-} && -x ${AGENTBOX:-} ]] || { echo "AGENTBOX is not an executable: ${AGENTBOX:-unset}"; exit 1; }
  [[ -n ${ABPROBE:-} && -x ${ABPROBE:-} ]] || { echo "ABPROBE is not an executable: ${ABPROBE:-unset}"; exit 1; }
  if [[ $(id -u) != 0 ]]; then
    H_GLOBAL_SKIP="needs root"
  elif ! timeout 10 unshare --user --map-root-user true 2>/dev/null; then
    H_GLOBAL_SKIP="user namespaces unavailable on this host"
  elif [[ $AB_BACKEND == native ]] && ! timeout 30 "$AGENTBOX" doctor >/tmp/abtest.doctor.$$ 2>&1; then
    H_GLOBAL_SKIP="agentbox doctor fails here: $(grep -v -i ' ok' /tmp/abtest.doctor.$$ | head -3 | paste -sd ' ')"
  fi
  rm -f /tmp/abtest.doctor.$$
  if [[ -n $H_GLOBAL_SKIP ]]; then echo "note: skipping every case: $H_GLOBAL_SKIP"; fi
}

# harness_main SCRIPT [--one NAME | REGEX]
harness_main() {
  local script=$1
  shift
  if [[ ${1:-} == --one ]]; then
    harness_case_child "$2"
    exit $?
  fi
  local filter=${1:-.} name
  harness_check_host
  # The suite's run dir (every case's scratch and state dirs), watched by a reaper that cleans
  # up if this process is killed; earlier killed runs' leftovers are swept here first.
  guard_start "$(basename "$(dirname "$script")")${AB_RUNTIME:+-$AB_RUNTIME}" || exit 1
  for name in $(declare -F | awk '{print $3}' | sed -n 's/^case_//p'); do
    [[ $name =~ $filter ]] || continue
    harness_run_case "$name" "$script"
  done
  guard_end
  echo "backend: $AB_TARGET ($H_NA case(s) not applicable to it)"
  if ((H_SKIP > 0)); then
    echo "$H_PASS passed, $H_FAIL failed, $H_SKIP skipped"
  else
    echo "$H_PASS passed, $H_FAIL failed"
  fi
  ((H_FAIL == 0)) || return 1
  # Nothing ran because the host cannot run the suite: ctest's SKIP_RETURN_CODE (77), not a pass.
  if [[ -n $H_GLOBAL_SKIP ]]; then
    echo "SKIP: $H_GLOBAL_SKIP"
    return 77
  fi
  return 0
}

# ---- host-side peers the sandbox must NOT reach ------------------------------------------------

# host_listen KIND ADDR: starts a host listener in the background (killed with the case's process
# group) and waits until it listens. KIND tcp: ADDR is an IPv4 address, the port is picked and
# stored in LISTEN_PORT. KIND unix: ADDR is a path. KIND abstract: ADDR is the name without "\0".
host_listen() {
  local ready=$CASE_DIR/listen.ready
  rm -f "$ready"
  "$PY" - "$1" "$2" "$ready" <<'PYEOF' &
import os, socket, sys
kind, addr, ready = sys.argv[1:4]
if kind == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 0))
    info = str(s.getsockname()[1])
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(("\0" + addr) if kind == "abstract" else addr)
    if kind == "unix":
        os.chmod(addr, 0o777)
    info = addr
s.listen(16)
with open(ready + ".tmp", "w") as f:
    f.write(info)
os.rename(ready + ".tmp", ready)
s.settimeout(60)
while True:
    c, _ = s.accept()
    c.sendall(b"hello\n")
    c.close()
PYEOF
  LISTEN_PID=$!
  wait_until 20 test -s "$ready" || fail "host listener $1 $2 did not start"
  LISTEN_PORT=$(cat "$ready")
}

# host_can_connect KIND ADDR [PORT]: sanity check that the host listener answers from the host.
host_can_connect() {
  "$PY" - "$@" <<'PYEOF'
import socket, sys
kind, addr = sys.argv[1], sys.argv[2]
if kind == "tcp":
    s = socket.create_connection((addr, int(sys.argv[3])), timeout=2)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(("\0" + addr) if kind == "abstract" else addr)
sys.exit(0 if s.recv(6) == b"hello\n" else 1)
PYEOF
}
