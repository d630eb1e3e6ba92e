# shellcheck shell=bash
# lib.sh: the harness of tests/conformance, tests/faults and tests/leak (persistent sandboxes).
#
# A suite's run.sh defines functions case_NAME (itself, or in case files it sources and lists in
# the array L_CASE_FILES), sources this file and calls `lib_main "$0" "$@"`.
# Cases run in file order, each in its own bash process under `timeout -s KILL` (GNU timeout
# kills the whole process group), with:
#   CASE_DIR             a fresh host scratch dir, removed afterwards;
#   AGENTBOX_STATE_DIR   a fresh state dir of its own (short, under /tmp: unix socket paths are
#                        limited to 108 bytes); every sandbox left in it is `rm -f`'d afterwards by
#                        the runner, even when the case was killed;
#   AGENTBOX_CGROUP_PARENT  a cgroup parent private to this suite run, so a case (or another
#                        engineer's `agentbox gc` on this host) never touches anyone else's boxes.
# A case returns 0 (pass) or calls `fail MSG` / `skip MSG`. Output: `PASS name`, `FAIL name:
# reason`, `SKIP name: reason`, then exactly `N passed, N failed`; exit 1 on any failure. With
# CI=true a skip counts as a failure.
#
# The backend is a parameter: AGENTBOX_BACKEND (default native); every create passes --backend.
# Host-side checks that only make sense natively (cgroup dirs, host pids) use `native_only`.
#
# Usage: run.sh [REGEX]   runs the cases whose name matches REGEX (all by default).

# shellcheck disable=SC2034  # globals read by the case files
set -u
# shellcheck source=tests/lib/run_guard.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/run_guard.sh"

L_CASE_TIMEOUT=${CASE_TIMEOUT:-90}   # seconds for one case, however it hangs
L_CALL_TIMEOUT=${CALL_TIMEOUT:-30}   # seconds for one agentbox call
BACKEND=${AGENTBOX_BACKEND:-native}
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; else PY=python3; fi

# ---- inside a case -------------------------------------------------------------------------------

fail() {
  printf '__FAIL__ %s\n' "$*"
  exit 1
}

skip() {
  printf '__SKIP__ %s\n' "$*"
  exit 77
}

# native_only: the rest of the case checks the native backend's own host-side state; on another
# backend the case is reported as N/A (not applicable), which is neither a pass nor a skip.
native_only() {
  [[ $BACKEND == native ]] && return 0
  printf '__NA__ %s\n' "host-side check of the native backend"
  exit 78
}

# ab SUBCOMMAND [ARG...]: agentbox bounded by L_CALL_TIMEOUT; sets AB_RC, AB_OUT, AB_ERR.
# stdin comes from AB_STDIN (a file) when set, else /dev/null.
ab() {
  local in=${AB_STDIN:-/dev/null}
  timeout -s KILL "$L_CALL_TIMEOUT" "$AGENTBOX" "$@" <"$in" >"$CASE_DIR/ab.out" 2>"$CASE_DIR/ab.err"
  AB_RC=$?
  AB_OUT=$(cat "$CASE_DIR/ab.out")
  AB_ERR=$(cat "$CASE_DIR/ab.err")
  printf '+ agentbox %s\n  rc=%s\n' "$*" "$AB_RC" >&2
  printf '  stdout: %s\n' "${AB_OUT:0:1500}"  >&2
  printf '  stderr: %s\n' "${AB_ERR:0:1500}" >&2
}

# ab_bg TAG SUBCOMMAND [ARG...]: the same in the background; results in $CASE_DIR/TAG.{out,err,rc}.
ab_bg() {
  local tag=$1
  shift
  (
    timeout -s KILL "$L_CALL_TIMEOUT" "$AGENTBOX" "$@" </dev/null >"$CASE_DIR/$tag.out" 2>"$CASE_DIR/$tag.err"
    echo $? >"$CASE_DIR/$tag.rc"
  ) &
}

# bg_rc TAG / bg_out TAG / bg_err TAG: what a finished ab_bg call gave.
bg_rc() { cat "$CASE_DIR/$1.rc" 2>/dev/null || echo none; }
bg_out() { cat "$CASE_DIR/$1.out" 2>/dev/null; }
bg_err() { cat "$CASE_DIR/$1.err" 2>/dev/null; }

# new_box [CREATE-OPTION...]: creates a sandbox on $BACKEND; its id goes to BOX. Fails the case
# unless create exits 0 and prints exactly one id line.
new_box() {
  ab create --backend "$BACKEND" ${AGENTBOX_RUNTIME:+--runtime "$AGENTBOX_RUNTIME"} "$@"
  [[ $AB_RC == 0 ]] || fail "create $* exited $AB_RC: $AB_ERR"
  [[ $AB_OUT =~ ^[A-Za-z0-9_.-]+$ ]] || fail "create printed no single id line: '$AB_OUT'"
  BOX=$AB_OUT
}

# sh_in BOX SCRIPT: `exec BOX -- sh -c SCRIPT`.
sh_in() { ab exec "$1" -- sh -c "$2"; }

expect_rc() { [[ $AB_RC == "$1" ]] || fail "exit status $AB_RC, want $1${2:+ ($2)} (stderr: ${AB_ERR:0:200})"; }
expect_out() { [[ $AB_OUT == "$1" ]] || fail "stdout '${AB_OUT:0:200}', want '$1'${2:+ ($2)}"; }
expect_out_has() { [[ $AB_OUT == *"$1"* ]] || fail "stdout lacks '$1'${2:+ ($2)}"; }
expect_err_has() { [[ $AB_ERR == *"$1"* ]] || fail "stderr lacks '$1'${2:+ ($2)}: ${AB_ERR:0:200}"; }

# expect_one_line_error: an agentbox failure: exit 125, exactly one non-empty stderr line.
expect_one_line_error() {
  expect_rc 125 "${1:-}"
  local n
  n=$(printf '%s\n' "$AB_ERR" | grep -c .)
  [[ $n == 1 ]] || fail "want one stderr line, got $n: ${AB_ERR:0:300}"
}

# json_assert PY_EXPR [MSG]: evaluates PY_EXPR with r = json.loads(AB_OUT).
json_assert() {
  if ! printf '%s' "$AB_OUT" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read())
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" 2>"$CASE_DIR/json.err"; then
    fail "${2:-JSON check failed: $1} (got: ${AB_OUT:0:300} $(head -c 300 "$CASE_DIR/json.err"))"
  fi
}

# json_get EXPR: prints eval(EXPR) with r = json.loads(AB_OUT) (bools true/false, None null).
json_get() {
  printf '%s' "$AB_OUT" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read())
v = eval(sys.argv[1])
print("true" if v is True else "false" if v is False else "null" if v is None else v)' "$1" 2>/dev/null
}

# now_ms: a monotonic-enough wall clock in milliseconds.
now_ms() { date +%s%3N; }

# on_exit CMD: runs CMD when the case ends, however it ends (fail/skip included).
L_ON_EXIT=()
on_exit() { L_ON_EXIT+=("$1"); }
lib_run_on_exit() {
  local cmd
  for cmd in "${L_ON_EXIT[@]}"; do eval "$cmd"; done
  local -a left
  mapfile -t left < <(jobs -p)
  ((${#left[@]} == 0)) || kill -KILL "${left[@]}" 2>/dev/null
  wait 2>/dev/null
}

# new_state_dir VAR: another fresh state dir in VAR (for cases that need two); its sandboxes are
# rm -f'd and the dir removed when the case ends. (Not `$(...)`: on_exit must run in the case.)
new_state_dir() {
  local d
  d=$(mktemp -d "$GUARD_DIR/s.XXXXXX")
  on_exit "lib_clean_state_dir $d"
  printf -v "$1" '%s' "$d"
}

# ---- host-side views (native backend) ------------------------------------------------------------

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

# pids_of_cmd PATTERN: host pids whose full command line matches PATTERN (pgrep -f).
pids_of_cmd() { pgrep -f -- "$1" || true; }
no_pids_of_cmd() { [[ -z $(pids_of_cmd "$1") ]]; }

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

# ---- the runner ----------------------------------------------------------------------------------

L_PASS=0
L_FAIL=0
[[ -v L_CASE_FILES ]] || L_CASE_FILES=()
L_SKIP=0
L_NA=0
L_GLOBAL_SKIP=""

# lib_clean_state_dir DIR: rm -f every sandbox recorded in DIR, then the dir itself.
lib_clean_state_dir() {
  local dir=$1 id
  for id in $(ls "$dir/sandboxes" 2>/dev/null); do
    AGENTBOX_STATE_DIR=$dir timeout -s KILL 30 "$AGENTBOX" rm -f "$id" >/dev/null 2>&1
  done
  # gc unmounts the state dir's workspace pool (and deletes its image) once it holds nothing.
  AGENTBOX_STATE_DIR=$dir timeout -s KILL 60 "$AGENTBOX" gc >/dev/null 2>&1
  if mountpoint -q "$dir/storage/pool" 2>/dev/null; then
    echo "note: the workspace pool of $dir was still mounted; unmounted"
    umount -l "$dir/storage/pool"
  fi
  rm -rf "$dir"
}

lib_case_child() {
  trap lib_run_on_exit EXIT
  "case_$1"
}

lib_report() {
  local name=$1 status=$2 reason=$3
  if [[ $status == skip && ${CI:-} == true ]]; then
    status=fail
    reason="skipped in CI, where nothing may be skipped: $reason"
  fi
  case $status in
    pass) echo "PASS $name"; L_PASS=$((L_PASS + 1)) ;;
    skip) echo "SKIP $name: $reason"; L_SKIP=$((L_SKIP + 1)) ;;
    *) echo "FAIL $name: $reason"; L_FAIL=$((L_FAIL + 1)) ;;
  esac
}

lib_run_case() {
  local name=$1 script=$2 rc reason start
  if [[ -n $L_GLOBAL_SKIP ]]; then
    lib_report "$name" skip "$L_GLOBAL_SKIP"
    return
  fi
  CASE_DIR=$(mktemp -d "$GUARD_DIR/c.XXXXXX")
  chmod 0755 "$CASE_DIR"
  AGENTBOX_STATE_DIR=$(mktemp -d "$GUARD_DIR/s.XXXXXX")
  export CASE_DIR AGENTBOX_STATE_DIR
  start=$(now_ms)
  # In the background and waited for, so the run guard knows the case's process group.
  guard_bg timeout -s KILL "$L_CASE_TIMEOUT" bash "$script" --one "$name" >"$CASE_DIR/case.log" 2>&1 </dev/null
  guard_track "-$GUARD_BG_PID"
  wait "$GUARD_BG_PID"
  rc=$?
  reason=$(grep -E '^__(FAIL|SKIP|NA)__ ' "$CASE_DIR/case.log" | tail -1 | cut -d' ' -f2-)
  case $rc in
    0) lib_report "$name" pass "" ;;
    78) echo "N/A  $name on $BACKEND: $reason"; L_NA=$((L_NA + 1)) ;;
    77) lib_report "$name" skip "${reason:-no reason given}" ;;
    137) lib_report "$name" fail "case killed after ${L_CASE_TIMEOUT}s (hung?)" ;;
    *) lib_report "$name" fail "${reason:-case returned $rc}" ;;
  esac
  if [[ $rc != 0 && $rc != 77 && $rc != 78 ]] || [[ ${VERBOSE:-} == 1 ]]; then
    grep -v -E '^__(FAIL|SKIP)__ ' "$CASE_DIR/case.log" | tail -n 30 | sed 's/^/    | /'
  fi
  [[ ${VERBOSE:-} == 1 ]] && echo "    ($(($(now_ms) - start)) ms)"
  lib_clean_state_dir "$AGENTBOX_STATE_DIR"
  rm -rf --one-file-system "$CASE_DIR"
}

# Decides whether this host can run the suite at all; sets L_GLOBAL_SKIP with the reason.
lib_check_host() {
  [[ -n ${AGENTBOX:-} && -x ${AGENTBOX:-} ]] || { echo "AGENTBOX is not an executable: ${AGENTBOX:-unset}"; exit 1; }
  if [[ $BACKEND == native ]]; then
    if [[ $(id -u) != 0 ]]; then
      L_GLOBAL_SKIP="needs root (the native backend makes a cgroup per sandbox)"
    elif ! timeout 10 unshare --user --map-root-user true 2>/dev/null; then
      L_GLOBAL_SKIP="user namespaces unavailable on this host"
    fi
  elif [[ $BACKEND == docker ]] && ! timeout 20 docker info >/dev/null 2>&1; then
    L_GLOBAL_SKIP="backend docker: no dockerd answers \`docker info\`"
  fi
  [[ -n $L_GLOBAL_SKIP ]] && echo "note: skipping every case: $L_GLOBAL_SKIP"
  return 0
}

# The suite's private cgroup parent: created by agentbox on first use, removed here at the end
# (it must be empty by then: a leftover child is reported).
lib_remove_cgroup_parent() {
  local d left
  left=$(cg_children | paste -sd ' ')
  [[ -n $left ]] && echo "note: cgroups left under $AGENTBOX_CGROUP_PARENT: $left"
  for d in $(cg_parent_dirs); do rmdir "$d" 2>/dev/null; done
}

# lib_main SCRIPT [--one NAME | REGEX]
lib_main() {
  local script=$1
  shift
  if [[ ${1:-} == --one ]]; then
    lib_case_child "$2"
    exit $?
  fi
  local filter=${1:-.} name
  export AGENTBOX_CGROUP_PARENT=${AGENTBOX_CGROUP_PARENT:-abtest-$$}
  lib_check_host
  # The suite's run dir (every case's scratch and state dirs), watched by a reaper that cleans
  # up if this process is killed; earlier killed runs' leftovers are swept here first.
  guard_start "$(basename "$(dirname "$script")")-$BACKEND" || exit 1
  guard_cgroup "$AGENTBOX_CGROUP_PARENT"
  trap 'lib_remove_cgroup_parent; guard_end' EXIT
  # Cases are defined in the suite's script and in the case files it sources (L_CASE_FILES).
  for name in $(grep -hoE '^case_[A-Za-z0-9_]+\(\)' "$script" "${L_CASE_FILES[@]}" |
    sed 's/^case_//; s/()$//'); do
    [[ $name =~ $filter ]] || continue
    lib_run_case "$name" "$script"
  done
  echo "backend: $BACKEND ($L_NA case(s) not applicable to it)"
  if ((L_SKIP > 0)); then
    echo "$L_PASS passed, $L_FAIL failed, $L_SKIP skipped"
  else
    echo "$L_PASS passed, $L_FAIL failed"
  fi
  ((L_FAIL == 0)) || return 1
  # Nothing ran because the host cannot run the suite: ctest's SKIP_RETURN_CODE (77), not a pass.
  if [[ -n $L_GLOBAL_SKIP ]]; then
    echo "SKIP: $L_GLOBAL_SKIP"
    return 77
  fi
  return 0
}
