# shellcheck shell=bash
# harness.sh: the one harness of the script suites. A suite sources a vocabulary built on it,
# tests/lib/oneshot.sh (security, integration, agent_docker: `agentbox run` on a workspace with
# the probe in it) or tests/lib/persistent.sh (conformance, faults, leak, the docker lanes:
# persistent sandboxes), defines functions case_NAME (in its script, or in case files it sources
# and lists in H_CASE_FILES, which keeps their order; without it cases run in name order), then
# calls `harness_main "$0" "$@"`.
#
# Every case runs in its own bash process under `timeout -s KILL` (GNU timeout kills the whole
# process group), with:
#   CASE_DIR             a fresh host scratch dir, removed afterwards;
#   AGENTBOX_STATE_DIR   a fresh state dir of its own (short, under /tmp: unix socket paths are
#                        limited to 108 bytes); every sandbox left in it is `rm -f`'d afterwards,
#                        even when the case was killed (and by the run guard if the suite is);
#   AGENTBOX_CGROUP_PARENT  a cgroup parent private to this suite run, so a case (or another
#                        engineer's `agentbox gc` on this host) never touches anyone else's boxes;
# and whatever the vocabulary's harness_case_setup adds. A case returns 0 (pass) or calls
# `fail MSG` / `skip MSG` / `not_applicable MSG`. Output is colour-free: `PASS name`, `FAIL name:
# reason`, `SKIP name: reason`, `N/A  name on TARGET: reason`, then exactly `N passed, N
# failed[, N skipped]`; exit 1 on any failure, 77 when the host cannot run the suite at all.
# With CI=true a skip is a failure: CI provides root and user namespaces, so nothing may hide.
#
# Usage: run.sh [REGEX]   runs the cases whose name matches REGEX (all by default).

# Globals set here (AB_*, H_*) are read by the vocabularies and case files.
# shellcheck disable=SC2034
set -u
# shellcheck source=tests/lib/run_guard.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_guard.sh"

# The backend every create/run uses: AGENTBOX_BACKEND (native, docker), native by default.
readonly AB_BACKEND=${AGENTBOX_BACKEND:-native}
# The docker backend's OCI runtime: AGENTBOX_RUNTIME (e.g. runsc, gVisor), dockerd's default if
# empty.
readonly AB_RUNTIME=${AGENTBOX_RUNTIME:-}
# The image every create/run uses: AGENTBOX_IMAGE (e.g. agentbox-test-debian:latest), the
# backend's default if empty.
readonly AB_IMAGE=${AGENTBOX_IMAGE:-}
# The options that pick the sandbox kind, for every create/run a case makes.
AB_KIND=(--backend "$AB_BACKEND")
[[ -n $AB_RUNTIME ]] && AB_KIND+=(--runtime "$AB_RUNTIME")
# AGENTBOX_IMAGE_STORE (an image store loaded once, tests/images/lane.sh): every case's state
# dir links its images/ to it, and every create/run uses AGENTBOX_IMAGE_NAME from it (the native
# backend's image lanes).
if [[ -n ${AGENTBOX_IMAGE_STORE:-} && -z $AB_IMAGE ]]; then
  AB_KIND+=(--image "${AGENTBOX_IMAGE_NAME:-agentbox-lane:latest}")
  readonly AB_IMAGE_LABEL=${AGENTBOX_IMAGE_NAME:-agentbox-lane:latest}
else
  [[ -n $AB_IMAGE ]] && AB_KIND+=(--image "$AB_IMAGE")
  readonly AB_IMAGE_LABEL=$AB_IMAGE
fi
readonly AB_KIND
# What the N/A lines and the summary call this target: "native", "docker", "docker (runsc)",
# "docker [agentbox-test-debian:latest]", "native [agentbox-lane:latest]".
readonly AB_TARGET=$AB_BACKEND${AB_RUNTIME:+ ($AB_RUNTIME)}${AB_IMAGE_LABEL:+ [$AB_IMAGE_LABEL]}
# Seconds for one case and for one agentbox call, however they hang. A vocabulary sets its
# defaults before sourcing this file; a case may raise H_CALL_TIMEOUT with `local`.
H_CASE_TIMEOUT=${H_CASE_TIMEOUT:-40}
H_CALL_TIMEOUT=${H_CALL_TIMEOUT:-30}
# Whether the suite needs the probe binary ($ABPROBE) to exist.
H_NEEDS_PROBE=${H_NEEDS_PROBE:-0}
[[ -v H_CASE_FILES ]] || H_CASE_FILES=()
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

# not_applicable REASON: ends the case as N/A (exit 78): it cannot apply to this target.
not_applicable() {
  printf '__NA__ %s\n' "$1"
  exit 78
}

# ab SUBCOMMAND [ARG...]: runs agentbox bounded by H_CALL_TIMEOUT; sets AB_RC, AB_OUT, AB_ERR and
# logs the call on stderr (the case's log). stdin comes from AB_STDIN (a file) when set, else
# /dev/null.
ab() {
  local in=${AB_STDIN:-/dev/null}
  timeout -s KILL "$H_CALL_TIMEOUT" "$AGENTBOX" "$@" <"$in" >"$CASE_DIR/ab.out" 2>"$CASE_DIR/ab.err"
  AB_RC=$?
  AB_OUT=$(cat "$CASE_DIR/ab.out")
  AB_ERR=$(cat "$CASE_DIR/ab.err")
  printf '+ agentbox %s\n  rc=%s\n' "$*" "$AB_RC" >&2
  printf '  stdout: %s\n' "${AB_OUT:0:2000}" >&2
  printf '  stderr: %s\n' "${AB_ERR:0:2000}" >&2
}

expect_rc() { [[ $AB_RC == "$1" ]] || fail "exit status $AB_RC, want $1${2:+ ($2)} (stderr: ${AB_ERR:0:200})"; }
expect_out_has() { [[ $AB_OUT == *"$1"* ]] || fail "stdout lacks '$1'${2:+ ($2)}"; }
expect_out_lacks() { [[ $AB_OUT != *"$1"* ]] || fail "stdout has '$1'${2:+ ($2)}"; }
expect_err_has() { [[ $AB_ERR == *"$1"* ]] || fail "stderr lacks '$1'${2:+ ($2)}: ${AB_ERR:0:200}"; }

# json_assert PY_EXPR [MSG]: evaluates PY_EXPR with r = the parsed JSON result in AB_OUT.
json_assert() {
  if ! printf '%s' "$AB_OUT" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read())
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" 2>"$CASE_DIR/json.err"; then
    fail "${2:-JSON check failed: $1} (got: ${AB_OUT:0:300} $(head -c 300 "$CASE_DIR/json.err"))"
  fi
}

# json_get KEY | json_get PY_EXPR: prints one field of the JSON result in AB_OUT, or eval(PY_EXPR)
# with r = the result (lists comma-joined, bools true/false, None null).
json_get() {
  printf '%s' "$AB_OUT" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read())
a = sys.argv[1]
v = r.get(a) if a.isidentifier() else eval(a)
if isinstance(v, bool): v = "true" if v else "false"
elif isinstance(v, list): v = ",".join(map(str, v))
elif v is None: v = "null"
print(v)' "$1" 2>/dev/null
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
  wait 2>/dev/null
}

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

# egress_servers_start: the case's egress test servers (tests/lib/egress_servers.py: HTTP, TLS
# and one that holds connections) on this host's loopback, up; their ports in HTTP_PORT,
# HTTPS_PORT and HOLD_PORT, their files (the TLS certificate) in $CASE_DIR/srv.
egress_servers_start() {
  command -v openssl >/dev/null || skip "openssl is needed for the egress test servers' certificate"
  mkdir -p "$CASE_DIR/srv"
  "$PY" "$(dirname "${BASH_SOURCE[0]}")/egress_servers.py" "$CASE_DIR/srv" "$CASE_DIR/srv.ready" &
  wait_until 30 test -s "$CASE_DIR/srv.ready" || fail "the egress test servers did not start"
  read -r HTTP_PORT HTTPS_PORT HOLD_PORT <"$CASE_DIR/srv.ready"
}

# now_ms: a monotonic-enough wall clock in milliseconds.
now_ms() { date +%s%3N; }

# new_state_dir VAR: another fresh state dir in VAR (for cases that need two); its sandboxes are
# rm -f'd and the dir removed when the case ends. (Not `$(...)`: on_exit must run in the case.)
new_state_dir() {
  local d
  d=$(mktemp -d "$GUARD_DIR/s.XXXXXX")
  on_exit "harness_sweep_state_dir $d"
  printf -v "$1" '%s' "$d"
}

# cg_parent_dirs: every cgroup directory that is this suite's cgroup parent (v1: one per
# hierarchy that has it; v2: one).
cg_parent_dirs() {
  local d
  for d in /sys/fs/cgroup/"$AGENTBOX_CGROUP_PARENT" /sys/fs/cgroup/*/"$AGENTBOX_CGROUP_PARENT"; do
    [[ -d $d ]] && echo "$d"
  done
}

# cg_children: names of the cgroups below the suite's parent (sb-*, run-*), one per line, sorted.
cg_children() {
  local d
  for d in $(cg_parent_dirs); do
    find "$d" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'
  done | sort -u
}

# ---- the runner ----------------------------------------------------------------------------------

H_PASS=0
H_FAIL=0
H_SKIP=0
H_NA=0  # cases that do not apply to this target
H_GLOBAL_SKIP=""

# Runs one case in this process (the child side of harness_run_case).
harness_case_child() {
  trap harness_run_on_exit EXIT
  if declare -F harness_case_setup >/dev/null; then harness_case_setup; fi
  if [[ -n ${AGENTBOX_IMAGE_STORE:-} ]]; then
    # A link, which the state dir's removal (rm -rf) takes away without entering.
    ln -s "$AGENTBOX_IMAGE_STORE" "$AGENTBOX_STATE_DIR/images" || fail "cannot link the image store"
  fi
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

# harness_sweep_state_dir DIR [NAME]: removes every sandbox left in the state dir DIR (a killed
# `agentbox run`, a failed `rm`; with NAME, saying so), then DIR itself.
harness_sweep_state_dir() {
  local dir=$1 id
  for id in $(ls "$dir/sandboxes" 2>/dev/null); do
    [[ -n ${2:-} ]] && echo "note: $2 left sandbox $id behind; removed"
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
  local name=$1 script=$2 rc reason start
  if [[ -n $H_GLOBAL_SKIP ]]; then
    harness_report "$name" skip "$H_GLOBAL_SKIP"
    return
  fi
  CASE_DIR=$(mktemp -d "$GUARD_DIR/c.XXXXXX")
  # Traversable like a user's ordinary dir; cases about private (0700) parents make their own.
  chmod 0755 "$CASE_DIR"
  local state_dir
  state_dir=$(mktemp -d "$GUARD_DIR/s.XXXXXX")
  export CASE_DIR AGENTBOX_STATE_DIR=$state_dir
  start=$(now_ms)
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
    grep -v -E '^__(FAIL|SKIP)__ ' "$CASE_DIR/case.log" | tail -n 30 | sed 's/^/    | /'
  fi
  [[ ${VERBOSE:-} == 1 ]] && echo "    ($(($(now_ms) - start)) ms)"
  rm -rf --one-file-system "$CASE_DIR"
}

# Decides whether this host can run the suite at all; sets H_GLOBAL_SKIP with the reason. A
# suite with other needs (agent_docker) defines its own after sourcing.
harness_check_host() {
  [[ -n ${AGENTBOX:-} && -x ${AGENTBOX:-} ]] || { echo "AGENTBOX is not an executable: ${AGENTBOX:-unset}"; exit 1; }
  if [[ $H_NEEDS_PROBE == 1 ]] && ! [[ -n ${ABPROBE:-} && -x ${ABPROBE:-} ]]; then
    echo "ABPROBE is not an executable: ${ABPROBE:-unset}"
    exit 1
  fi
  if [[ $AB_BACKEND == native ]]; then
    if [[ $(id -u) != 0 ]]; then
      H_GLOBAL_SKIP="needs root (the native backend makes a cgroup per sandbox)"
    elif ! timeout 10 unshare --user --map-root-user true 2>/dev/null; then
      H_GLOBAL_SKIP="user namespaces unavailable on this host"
    elif ! timeout 30 "$AGENTBOX" doctor >/tmp/abtest.doctor.$$ 2>&1; then
      H_GLOBAL_SKIP="agentbox doctor fails here: $(grep -v -i ' ok' /tmp/abtest.doctor.$$ | head -3 | paste -sd ' ')"
    fi
    rm -f /tmp/abtest.doctor.$$
  elif [[ $AB_BACKEND == docker ]] && ! timeout 20 docker info >/dev/null 2>&1; then
    H_GLOBAL_SKIP="backend docker: no dockerd answers \`docker info\`"
  fi
  if [[ -n $H_GLOBAL_SKIP ]]; then echo "note: skipping every case: $H_GLOBAL_SKIP"; fi
  return 0
}

# The suite's private cgroup parent: created by agentbox on first use, removed here at the end
# (it must be empty by then: a leftover child is reported).
harness_remove_cgroup_parent() {
  local d left
  left=$(cg_children | paste -sd ' ')
  [[ -n $left ]] && echo "note: cgroups left under $AGENTBOX_CGROUP_PARENT: $left"
  for d in $(cg_parent_dirs); do rmdir "$d" 2>/dev/null; done
}

# harness_case_names SCRIPT: the suite's cases, in file order when it lists its case files.
harness_case_names() {
  if ((${#H_CASE_FILES[@]} > 0)); then
    grep -hoE '^case_[A-Za-z0-9_]+\(\)' "$1" "${H_CASE_FILES[@]}" | sed 's/^case_//; s/()$//'
  else
    declare -F | awk '{print $3}' | sed -n 's/^case_//p'
  fi
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
  export AGENTBOX_CGROUP_PARENT=${AGENTBOX_CGROUP_PARENT:-abtest-$$}
  harness_check_host
  # The suite's run dir (every case's scratch and state dirs), watched by a reaper that cleans
  # up if this process is killed; earlier killed runs' leftovers are swept here first.
  # Short: a docker sandbox's agent socket lives beneath it, and a socket path has 107 bytes.
  guard_start "$(basename "$(dirname "$script")")-$AB_BACKEND${AB_RUNTIME:+-$AB_RUNTIME}${AB_IMAGE_LABEL:+-img}" || exit 1
  guard_cgroup "$AGENTBOX_CGROUP_PARENT"
  # A suite's own fixtures (tests/images: its registries), made once for every case, and
  # undone at the end however the run ends.
  trap 'declare -F harness_suite_teardown >/dev/null && harness_suite_teardown
        harness_remove_cgroup_parent; guard_end' EXIT
  if [[ -z $H_GLOBAL_SKIP ]] && declare -F harness_suite_setup >/dev/null; then
    harness_suite_setup || H_GLOBAL_SKIP="the suite's fixtures could not be made (see above)"
  fi
  for name in $(harness_case_names "$script"); do
    [[ $name =~ $filter ]] || continue
    harness_run_case "$name" "$script"
  done
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
