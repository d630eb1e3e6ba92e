#!/usr/bin/env bash
# tests/leak: many create/exec/rm cycles (and run cycles) leave nothing behind.
#
#   AGENTBOX=build/agentbox [LEAK_CYCLES=30] [LEAK_FAST_CYCLES=N] bash tests/leak/run.sh [REGEX]
#
# Before and after the cycles it counts, and prints:
#   procs    processes of host uid 3900000000/3900001000 (sandbox root/user) or with "agentbox" in
#            their command line, that belong to this suite (their cgroup is below the suite's
#            cgroup parent, or their environment holds this case's state dir)      -> 0 new
#   mounts   lines of /proc/self/mountinfo that name this run's dir (state dirs, workspaces)
#            -> same (the host's other mounts come and go with other people's work)
#   cgroups  sb-* / run-* dirs under every /sys/fs/cgroup/*/<parent>                  -> none
#   fds      open fds of the test shell                                              -> same
#   state    entries of <state>/sandboxes and <state>/names                          -> none
#   ws       agentbox-ws-* dirs in the case's own TMPDIR (where `run` makes them)    -> none new
#   loops    loop devices backed by a file of this case's state dir                 -> none
# The state dir's workspace pool (a mounted filesystem made by the first sandbox) must hold no
# volume after the cycles; `gc` then takes the pool itself, so the counts above compare as if it
# had never been.
# Processes of other agentbox users on the host are counted apart ("foreign") and never fail it;
# nothing of the host is counted as a whole.

LEAK_CYCLES=${LEAK_CYCLES:-30}
: "${CASE_TIMEOUT:=$((LEAK_CYCLES * 8 > 120 ? LEAK_CYCLES * 8 : 120))}"
export CASE_TIMEOUT LEAK_CYCLES
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/persistent.sh
source "$HERE/../lib/persistent.sh"

# suite_procs: "PID kind" for every process of the sandbox uids or with agentbox in its command
# line, kind = ours | foreign. The test's own shells (bash .../run.sh) are not counted.
suite_procs() {
  "$PY" - "$AGENTBOX_CGROUP_PARENT" "$AGENTBOX_STATE_DIR" "$$" <<'PYEOF'
import os, sys
parent, state, me = sys.argv[1], sys.argv[2], sys.argv[3]
for p in os.listdir("/proc"):
    if not p.isdigit() or p in (me, str(os.getpid()), str(os.getppid())):
        continue
    try:
        uid = next(l.split()[1] for l in open(f"/proc/{p}/status") if l.startswith("Uid:"))
        cmd = open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        if not (uid in ("3900000000", "3900001000") or "agentbox" in cmd):
            continue
        if "/run.sh" in cmd or "tests/leak" in cmd:
            continue
        ours = f"/{parent}/" in open(f"/proc/{p}/cgroup").read()
        if not ours:
            env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
            ours = f"AGENTBOX_STATE_DIR={state}".encode() in env
    except (OSError, StopIteration):
        continue
    print(p, "ours" if ours else "foreign", cmd)
PYEOF
}

# host_mounts: this mount namespace's mounts that name this suite run's dir (GUARD_DIR holds every
# case's state dir, workspaces and TMPDIR), fields from the major:minor on, sorted. What a
# sandbox could leave mounted on the host is beneath its state dir or workspace; the rest of the
# table is other people's (containers, other suites) and comes and goes while a run lasts.
host_mounts() {
  cut -d' ' -f3- /proc/self/mountinfo | grep -F -- "$GUARD_DIR" | LC_ALL=C sort
}

# The case's own TMPDIR: `agentbox run` makes its default workspaces there, so they can be
# counted without counting anyone else's.
leak_tmpdir() {
  export TMPDIR=$CASE_DIR/tmp
  mkdir -p "$TMPDIR"
}

# snapshot FILE: the counts, one "key value" per line. The shell's fds are globbed by the shell
# itself: counted in a $(...) they raced bash closing that pipe's write end after its fork (on a
# busy host the child listed it: "fds 9 -> 10" in a clean-clone CI run).
snapshot() {
  local procs fds=(/proc/$$/fd/*)
  procs=$(suite_procs)
  {
    echo "procs_ours $(printf '%s\n' "$procs" | grep -c ' ours ')"
    echo "procs_foreign $(printf '%s\n' "$procs" | grep -c ' foreign ')"
    echo "mounts $(host_mounts | wc -l)"
    echo "cgroups $(cg_children | grep -cE '^(sb|run)-')"
    echo "fds ${#fds[@]}"
    echo "state $(ls "$AGENTBOX_STATE_DIR/sandboxes" "$AGENTBOX_STATE_DIR/names" 2>/dev/null | grep -cvE '^$|:$')"
    echo "ws $(ls -d "$TMPDIR"/agentbox-ws-* 2>/dev/null | wc -l)"
    echo "loops $(losetup -l -n -O BACK-FILE 2>/dev/null | grep -c "^$AGENTBOX_STATE_DIR/")"
  } >"$1"
  printf '%s\n' "$procs" | grep ' ours ' >"$1.procs"
  ls -d "$TMPDIR"/agentbox-ws-* 2>/dev/null | sort >"$1.ws"
  host_mounts >"$1.mounts"
}

# storage_after_cycles: no workspace volume left by the cycles; then gc, which unmounts the empty
# pool (its loop device goes with it) and deletes its image.
storage_after_cycles() {
  local pool=$AGENTBOX_STATE_DIR/storage/pool
  [[ -z $(ls -A "$pool" 2>/dev/null) ]] || fail "workspace volumes left by the cycles: $(ls -A "$pool" | head -5 | paste -sd ' ')"
  ab gc
  [[ $AB_RC == 0 ]] || fail "gc exited $AB_RC: $AB_ERR"
  [[ ! -e $AGENTBOX_STATE_DIR/storage/pool.img ]] || fail "gc left the workspace pool's image"
}

val() { awk -v k="$2" '$1 == k {print $2}' "$1"; }

# compare BEFORE AFTER: prints the table; fails on any leak.
compare() {
  local b=$1 a=$2 k problems=""
  printf '%-14s %8s %8s\n' what before after
  for k in procs_ours procs_foreign mounts cgroups fds state ws loops; do
    printf '%-14s %8s %8s\n' "$k" "$(val "$b" "$k")" "$(val "$a" "$k")"
  done
  [[ $(val "$a" procs_ours) == 0 ]] || problems+=" processes left: $(head -3 "$a.procs" | paste -sd ';')"
  [[ $(val "$a" mounts) == "$(val "$b" mounts)" ]] ||
    problems+=" mounts $(val "$b" mounts) -> $(val "$a" mounts): $(LC_ALL=C comm -13 "$b.mounts" "$a.mounts" | head -3 | paste -sd ';')"
  [[ $(val "$a" loops) == 0 ]] || problems+=" loop devices left: $(losetup -l -n -O NAME,BACK-FILE | grep "$AGENTBOX_STATE_DIR/" | paste -sd ';')"
  [[ $(val "$a" cgroups) == 0 ]] || problems+=" cgroups left: $(cg_children | head -5 | paste -sd ' ')"
  [[ $(val "$a" fds) == "$(val "$b" fds)" ]] || problems+=" fds $(val "$b" fds) -> $(val "$a" fds)"
  [[ $(val "$a" state) == 0 ]] || problems+=" state entries left: $(ls -R "$AGENTBOX_STATE_DIR" | head -5 | paste -sd ' ')"
  local new_ws
  new_ws=$(comm -13 "$b.ws" "$a.ws" | paste -sd ' ')
  [[ -z $new_ws ]] || problems+=" new workspaces: $new_ws"
  [[ -z $problems ]] || fail "leaks after the cycles:$problems"
}

# settle: leftovers of the last cycle may take a moment to go on a loaded host (rm waits for
# the agent, so they should not need it); a 10 s hang guard, over as soon as they are gone.
no_ours() { [[ -z $(suite_procs | grep ' ours ') ]]; }
settle() { wait_until 10 no_ours; }

case_create_exec_rm_cycles() {
  leak_tmpdir
  snapshot "$CASE_DIR/before"
  echo data >"$CASE_DIR/in.txt"
  local i id t0=$(now_ms)
  for i in $(seq "$LEAK_CYCLES"); do
    new_box --name "leak$i"
    id=$BOX
    ab exec "leak$i" -- sh -c "echo $i > /workspace/f; (sleep 0.05 &); cat /workspace/f"
    [[ $AB_RC == 0 && $AB_OUT == "$i" ]] || fail "cycle $i: exec rc=$AB_RC out=$AB_OUT"
    ab cp "$CASE_DIR/in.txt" "leak$i:in.txt"
    [[ $AB_RC == 0 ]] || fail "cycle $i: cp in rc=$AB_RC"
    if ((i % 5 == 0)); then
      ab exec --timeout 0.3 "$id" -- sh -c 'setsid sleep 30 & sleep 30'
      [[ $AB_RC == 124 ]] || fail "cycle $i: timed-out exec rc=$AB_RC"
    fi
    ab rm "$id"
    [[ $AB_RC == 0 ]] || fail "cycle $i: rm rc=$AB_RC: $AB_ERR"
  done
  echo "$LEAK_CYCLES create/exec/cp/rm cycles in $(($(now_ms) - t0)) ms"
  settle
  storage_after_cycles
  snapshot "$CASE_DIR/after"
  compare "$CASE_DIR/before" "$CASE_DIR/after"
}

# The bare create/exec/rm cycle, many times (LEAK_FAST_CYCLES, default LEAK_CYCLES): agentbox is
# called directly, without the per-call logging of `ab`, so ten thousand cycles take minutes.
case_create_exec_rm_fast_cycles() {
  local n=${LEAK_FAST_CYCLES:-$LEAK_CYCLES} i id out t0
  leak_tmpdir
  snapshot "$CASE_DIR/before"
  t0=$(now_ms)
  for i in $(seq "$n"); do
    id=$("$AGENTBOX" create "${AB_KIND[@]}" </dev/null 2>"$CASE_DIR/err") ||
      fail "cycle $i: create: $(cat "$CASE_DIR/err")"
    out=$("$AGENTBOX" exec "$id" -- sh -c "echo $i >/workspace/f; cat /workspace/f" </dev/null 2>"$CASE_DIR/err")
    [[ $out == "$i" ]] || fail "cycle $i: exec printed '$out': $(cat "$CASE_DIR/err")"
    "$AGENTBOX" rm "$id" </dev/null >/dev/null 2>"$CASE_DIR/err" || fail "cycle $i: rm: $(cat "$CASE_DIR/err")"
  done
  echo "$n create/exec/rm cycles in $(($(now_ms) - t0)) ms"
  settle
  storage_after_cycles
  snapshot "$CASE_DIR/after"
  compare "$CASE_DIR/before" "$CASE_DIR/after"
}

case_busy_rm_f_cycles() {
  local n=$(((LEAK_CYCLES + 2) / 3)) i ws
  leak_tmpdir
  snapshot "$CASE_DIR/before"
  for i in $(seq "$n"); do
    new_box
    ab inspect "$BOX"
    ws=$(json_get "r['workspace']")
    # rm -f of a box whose exec is running: the exec says it runs before the rm.
    ab_bg "busy$i" exec "$BOX" -- sh -c 'touch /workspace/busy; setsid sleep 30 & sleep 30'
    wait_until 30 test -e "$ws/busy" || fail "cycle $i: the busy exec never started"
    ab rm -f "$BOX"
    [[ $AB_RC == 0 ]] || fail "cycle $i: rm -f rc=$AB_RC: $AB_ERR"
    wait
  done
  echo "$n create/busy exec/rm -f cycles"
  settle
  storage_after_cycles
  snapshot "$CASE_DIR/after"
  compare "$CASE_DIR/before" "$CASE_DIR/after"
}

case_run_cycles() {
  native_only
  local n=$LEAK_CYCLES i
  leak_tmpdir
  snapshot "$CASE_DIR/before"
  for i in $(seq "$n"); do
    ab run -- sh -c "echo $i; setsid sleep 30 &"
    [[ $AB_RC == 0 && $AB_OUT == "$i" ]] || fail "run $i: rc=$AB_RC out=$AB_OUT"
  done
  echo "$n run cycles"
  settle
  storage_after_cycles
  snapshot "$CASE_DIR/after"
  compare "$CASE_DIR/before" "$CASE_DIR/after"
}

harness_main "$0" "$@"
