# shellcheck shell=bash
# persistent.sh: the vocabulary of the persistent-sandbox suites (tests/conformance, tests/faults,
# tests/leak and the docker lanes' faults and runsc) on the one harness (tests/lib/harness.sh,
# which says how cases run). `new_box` creates a sandbox on the suite's backend (AGENTBOX_BACKEND,
# native by default); host-side checks that only make sense natively use `native_only`.
# CASE_TIMEOUT and CALL_TIMEOUT set the harness's bounds (90 s and 30 s by default).

# Globals set here (BOX) are read by the case files.
# shellcheck disable=SC2034
H_CASE_TIMEOUT=${CASE_TIMEOUT:-90}
H_CALL_TIMEOUT=${CALL_TIMEOUT:-30}
# shellcheck source=tests/lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# native_only: the rest of the case checks the native backend's own host-side state; on another
# backend the case is reported as N/A (not applicable), which is neither a pass nor a skip.
native_only() {
  [[ $AB_BACKEND == native ]] || not_applicable "host-side check of the native backend"
}

# host_workspace_only: the rest of the case needs the workspace on the host (a --workspace dir,
# a quota at the write, snapshots of it); on kubernetes it is the pod's emptyDir, so the case is
# N/A there, with that reason.
host_workspace_only() {
  local why="the workspace is the pod's emptyDir: no host directory behind it"
  [[ $AB_BACKEND != kubernetes ]] || not_applicable "${1:-$why}"
}

# ab_bg TAG SUBCOMMAND [ARG...]: `ab` in the background; results in $CASE_DIR/TAG.{out,err,rc}.
ab_bg() {
  local tag=$1
  shift
  (
    timeout -s KILL "$H_CALL_TIMEOUT" "$AGENTBOX" "$@" </dev/null >"$CASE_DIR/$tag.out" 2>"$CASE_DIR/$tag.err"
    echo $? >"$CASE_DIR/$tag.rc"
  ) &
}

# bg_rc TAG / bg_out TAG / bg_err TAG: what a finished ab_bg call gave.
bg_rc() { cat "$CASE_DIR/$1.rc" 2>/dev/null || echo none; }
bg_out() { cat "$CASE_DIR/$1.out" 2>/dev/null; }
bg_err() { cat "$CASE_DIR/$1.err" 2>/dev/null; }

# new_box [CREATE-OPTION...]: creates a sandbox on the suite's backend; its id goes to BOX. Fails
# the case unless create exits 0 and prints exactly one id line. The runner removes it.
new_box() {
  ab create "${AB_KIND[@]}" "$@"
  [[ $AB_RC == 0 ]] || fail "create $* exited $AB_RC: $AB_ERR"
  [[ $AB_OUT =~ ^[A-Za-z0-9_.-]+$ ]] || fail "create printed no single id line: '$AB_OUT'"
  BOX=$AB_OUT
}

# sh_in BOX SCRIPT: `exec BOX -- sh -c SCRIPT`.
sh_in() { ab exec "$1" -- sh -c "$2"; }

expect_out() { [[ $AB_OUT == "$1" ]] || fail "stdout '${AB_OUT:0:200}', want '$1'${2:+ ($2)}"; }

# expect_one_line_error: an agentbox failure: exit 125, exactly one non-empty stderr line.
expect_one_line_error() {
  expect_rc 125 "${1:-}"
  local n
  n=$(printf '%s\n' "$AB_ERR" | grep -c .)
  [[ $n == 1 ]] || fail "want one stderr line, got $n: ${AB_ERR:0:300}"
}

# pids_of_cmd PATTERN: host pids whose full command line matches PATTERN (pgrep -f).
pids_of_cmd() { pgrep -f -- "$1" || true; }
no_pids_of_cmd() { [[ -z $(pids_of_cmd "$1") ]]; }
