# shellcheck shell=bash
# Snapshots at command grain (issue 21, point 2) and the session log (point 3): snapshot, restore,
# diff, fork and exec --rollback-on-failure keep and drop exactly the right files; bad input is
# one line and changes nothing; the log records every exec with its digests.
# Sourced by run.sh (H_CASE_FILES); the vocabulary is tests/lib/persistent.sh's.

# The workspace's whole state: every path with its type, mode and (files) content digest.
# busybox and GNU alike (the docker lane's image is busybox).
ws_state() {
  sh_in "$1" 'cd /workspace && find . | sort | while read -r p; do
    if [ -L "$p" ]; then echo "L $p $(readlink "$p")";
    elif [ -d "$p" ]; then echo "D $p $(stat -c %a "$p")";
    else echo "F $p $(stat -c %a "$p") $(md5sum < "$p" | cut -d" " -f1)"; fi; done'
  expect_rc 0 "listing the workspace"
  WS_STATE=$AB_OUT
}

# A workspace of a few files, a subdirectory, an empty file, a symlink and an odd mode.
fill_ws() {
  sh_in "$1" 'cd /workspace && echo one > a && echo two > b && mkdir -p d/e && echo three > d/e/c &&
    : > empty && ln -s a link && chmod 600 b && printf "%s" "$(seq 1 2000)" > big'
  expect_rc 0 "filling the workspace"
}

# Changes of every kind: modified, deleted, added, a directory replaced by a file, a mode change.
mess_ws() {
  sh_in "$1" 'cd /workspace && echo changed > a && rm b && echo new > added && rm -r d &&
    echo file > d && mkdir -p x/y && echo deep > x/y/z && chmod 640 empty && rm link && ln -s b link'
  expect_rc 0 "changing the workspace"
}

snapshot_of() {
  ab snapshot "$@"
  expect_rc 0 "snapshot $*"
  [[ $AB_OUT =~ ^[A-Za-z0-9_.-]+$ ]] || fail "snapshot printed no single id line: '$AB_OUT'"
  SNAP=$AB_OUT
}

case_snapshot_restore_exact() {
  host_workspace_only "snapshots are of a workspace on the host; the pod's is an emptyDir"
  new_box
  fill_ws "$BOX"
  ws_state "$BOX"
  local before=$WS_STATE
  snapshot_of "$BOX" --name base
  mess_ws "$BOX"
  ws_state "$BOX"
  [[ $WS_STATE != "$before" ]] || fail "the changes did not change the listing"
  ab diff --json "$BOX" base
  expect_rc 0 "diff"
  json_assert "{c['path'] for c in r['changes'] if c['change'] == 'deleted'} >= {'b'} and \
{c['path'] for c in r['changes'] if c['change'] == 'created'} >= {'added', 'x'} and \
{c['path'] for c in r['changes'] if c['change'] == 'modified'} >= {'a', 'empty'}" "diff names the changes"
  ab restore "$BOX" base
  expect_rc 0 "restore"
  ws_state "$BOX"
  [[ $WS_STATE == "$before" ]] || fail "after restore the workspace differs: $(diff <(echo "$before") <(echo "$WS_STATE") | head -20)"
  ab diff --json "$BOX" "$SNAP"
  json_assert "r['changes'] == []" "no diff right after a restore"
  # The snapshot itself is untouched by the restore and by later changes: restore twice.
  sh_in "$BOX" 'rm -rf /workspace/* && echo again > /workspace/a'
  ab restore "$BOX" "$SNAP"
  expect_rc 0 "a second restore of the same snapshot"
  ws_state "$BOX"
  [[ $WS_STATE == "$before" ]] || fail "the second restore differs"
}

case_snapshot_ls_rm_and_names() {
  host_workspace_only "snapshots are of a workspace on the host; the pod's is an emptyDir"
  new_box
  ab snapshot ls "$BOX" --json
  expect_rc 0
  json_assert "r == []" "a new sandbox has no snapshots"
  snapshot_of "$BOX" --name first
  local first=$SNAP
  snapshot_of "$BOX"
  ab snapshot "$BOX" --name first
  expect_one_line_error "a second snapshot named first"
  ab snapshot ls --json "$BOX"
  json_assert "len(r) == 2 and r[0]['id'] == '$first' and r[0]['name'] == 'first'" "ls lists both, oldest first"
  ab snapshot rm "$BOX:first"
  expect_rc 0 "rm by SANDBOX:NAME"
  ab snapshot ls --json "$BOX"
  json_assert "len(r) == 1 and r[0]['id'] == '$SNAP'" "rm removed exactly that one"
}

case_snapshot_bad_input_changes_nothing() {
  host_workspace_only "snapshots are of a workspace on the host; the pod's is an emptyDir"
  new_box
  fill_ws "$BOX"
  ws_state "$BOX"
  local before=$WS_STATE
  ab snapshot nosuchbox
  expect_one_line_error "snapshot of a sandbox that is not there"
  ab restore "$BOX" nosuchsnap
  expect_one_line_error "restore of a snapshot that is not there"
  ab restore nosuchbox nosuchsnap
  expect_one_line_error "restore in a sandbox that is not there"
  ab diff "$BOX" nosuchsnap
  expect_one_line_error "diff against a snapshot that is not there"
  ab fork nosuchsnap
  expect_one_line_error "fork of a snapshot that is not there"
  ab snapshot rm nosuchsnap
  expect_one_line_error "rm of a snapshot that is not there"
  ab snapshot "$BOX" --name 'bad/name'
  expect_one_line_error "a snapshot name with a slash"
  ws_state "$BOX"
  [[ $WS_STATE == "$before" ]] || fail "bad input changed the workspace"
  ab snapshot ls --json "$BOX"
  json_assert "r == []" "bad input made a snapshot"
  ab ls -q
  [[ $AB_OUT == "$BOX" ]] || fail "bad input made a sandbox: $AB_OUT"
}

case_fork_starts_as_snapshot_and_is_separate() {
  host_workspace_only "snapshots are of a workspace on the host; the pod's is an emptyDir"
  new_box
  fill_ws "$BOX"
  ws_state "$BOX"
  local at_snapshot=$WS_STATE
  snapshot_of "$BOX" --name s
  local origin=$BOX
  echo later >/dev/null
  sh_in "$origin" 'echo after > /workspace/after-snapshot'
  ab fork "$origin:s" --name forked
  expect_rc 0 "fork"
  local fork=$AB_OUT
  [[ $fork != "$origin" ]] || fail "the fork has its origin's id"
  ws_state forked
  [[ $WS_STATE == "$at_snapshot" ]] || fail "the fork does not start as the snapshot: $(diff <(echo "$at_snapshot") <(echo "$WS_STATE") | head)"
  mess_ws forked
  ab exec "$origin" -- cat /workspace/a /workspace/after-snapshot
  expect_out $'one\nafter' "the fork's writes reached its origin"
  ab fork "$SNAP" --name forked
  expect_one_line_error "a second sandbox named forked"
  ab fork "$SNAP"
  expect_rc 0 "a second fork of the same snapshot"
  ws_state "$AB_OUT"
  [[ $WS_STATE == "$at_snapshot" ]] || fail "the second fork saw the first fork's writes"
}

case_rollback_on_failure_restores_exactly() {
  host_workspace_only "snapshots are of a workspace on the host; the pod's is an emptyDir"
  new_box
  fill_ws "$BOX"
  ws_state "$BOX"
  local before=$WS_STATE
  # The accident: a failing command that wipes and scribbles.
  ab exec --rollback-on-failure "$BOX" -- sh -c 'rm -rf /workspace/* && echo junk > /workspace/junk && mkdir /workspace/newdir && exit 3'
  expect_rc 3 "the command's own exit status"
  ws_state "$BOX"
  [[ $WS_STATE == "$before" ]] || fail "a failed command's changes stayed: $(diff <(echo "$before") <(echo "$WS_STATE") | head)"
  ab exec --json --rollback-on-failure --timeout 2 "$BOX" -- sh -c 'rm /workspace/a; echo x > /workspace/t; sleep 30'
  expect_rc 124 "a timeout"
  json_assert "r['rollback'] == {'rolled_back': True}" "the result says it rolled back"
  ws_state "$BOX"
  [[ $WS_STATE == "$before" ]] || fail "a timed-out command's changes stayed"
  # Success keeps the changes.
  ab exec --json --rollback-on-failure "$BOX" -- sh -c 'echo kept > /workspace/kept && rm /workspace/b'
  expect_rc 0
  json_assert "r['rollback'] == {'rolled_back': False}" "a success is not rolled back"
  ab exec "$BOX" -- sh -c 'cat /workspace/kept; [ -e /workspace/b ] || echo gone'
  expect_out $'kept\ngone' "a successful command's changes were undone"
  ab snapshot ls --json "$BOX"
  json_assert "r == []" "the rollback's own snapshot is listed or left behind"
}

case_rollback_refused_beside_a_background_process() {
  new_box
  ab exec -d "$BOX" -- sleep 60
  expect_rc 0
  local proc=$AB_OUT
  ab exec --rollback-on-failure "$BOX" -- sh -c 'echo x > /workspace/x; exit 1'
  expect_one_line_error "rollback while a background process runs"
  ab exec "$BOX" -- sh -c '[ -e /workspace/x ] && echo ran || echo not-ran'
  expect_out not-ran "the refused command ran"
  ab kill "$BOX" "$proc"
}

case_session_log_records_execs_with_digests() {
  new_box
  sh_in "$BOX" 'echo hi > /workspace/f'
  sh_in "$BOX" 'exit 4'
  ab log --json "$BOX"
  expect_rc 0 "log --json"
  printf '%s\n' "$AB_OUT" >"$CASE_DIR/log.jsonl"
  # kubernetes: the workspace is in the pod, not on the host: no digest, and the log says why.
  "$PY" - "$CASE_DIR/log.jsonl" "$AB_BACKEND" <<'EOF' || fail "the session log lacks what it must hold: $(head -c 600 "$CASE_DIR/log.jsonl")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
execs = [r for r in recs if r.get('op') == 'exec']
assert len(execs) == 2, execs
a, b = execs
assert a['argv'] == ['sh', '-c', 'echo hi > /workspace/f'] and a['exit_code'] == 0, a
assert b['exit_code'] == 4, b
if sys.argv[2] == 'kubernetes':
    for r in execs:
        assert r['policy_hash'].startswith('sha256:') and r['workspace_before'] is None, r
        assert 'not on this host' in r['digest_error'], r
    sys.exit(0)
for r in execs:
    assert r['policy_hash'].startswith('sha256:') and r['workspace_before'].startswith('sha256:'), r
assert a['workspace_before'] != a['workspace_after'], 'a write did not change the digest'
assert b['workspace_before'] == b['workspace_after'] == a['workspace_after'], 'digest unstable'
assert 'image_digest' in a, a
EOF
  ab log nosuchbox
  expect_one_line_error "log of a sandbox that is not there"
}

case_replay_of_a_20_command_session() {
  native_only  # replay makes its fresh sandbox on the recorded backend; one lane is enough
  new_box
  local i
  for i in $(seq 1 20); do
    sh_in "$BOX" "echo $i >> /workspace/log.txt; mkdir -p d$((i % 3)); wc -l < /workspace/log.txt"
    expect_rc 0 "command $i"
  done
  ab log --json "$BOX"
  printf '%s\n' "$AB_OUT" >"$CASE_DIR/session.jsonl"
  ab replay --json "$CASE_DIR/session.jsonl"
  expect_rc 0 "a faithful replay diverges nowhere"
  json_assert "r['diverged'] == 0 and r['replayed'] >= 20" "replay report"
  # Plant a divergence: command 7 recorded as writing something else.
  sed -i 's/echo 7 >> /echo seven >> /' "$CASE_DIR/session.jsonl"
  ab replay --json "$CASE_DIR/session.jsonl"
  expect_rc 1 "a planted divergence is found"
  json_assert "r['diverged'] >= 1" "the report counts it"
}

# ---- random_seed: a seeded getrandom (docs/policy.md "The seeded getrandom") ---------------------

# seeded_box POLICY-JSON: a sandbox of that policy holding the probe at /workspace/abprobe (static,
# so it runs on the docker lane's busybox too); its id goes to BOX.
seeded_box() {
  printf '%s\n' "$1" >"$CASE_DIR/policy.json"
  new_box --policy "$CASE_DIR/policy.json"
  ab cp "$ABPROBE" "$BOX:/workspace/abprobe"
  expect_rc 0 "copying the probe in"
  sh_in "$BOX" 'chmod 755 /workspace/abprobe'
  expect_rc 0 "chmod of the probe"
}

# getrandom_of BOX: 16 bytes of getrandom(2) in one exec, in hex, into RANDOM_HEX.
getrandom_of() {
  ab exec "$1" -- /workspace/abprobe getrandom 16
  expect_rc 0 "getrandom in $1"
  [[ $AB_OUT =~ ^[0-9a-f]{32}$ ]] || fail "getrandom printed '$AB_OUT'"
  RANDOM_HEX=$AB_OUT
}

case_random_seed_repeats_getrandom() {
  [[ -x ${ABPROBE:-} ]] || not_applicable "ABPROBE (the static probe) is not set"
  seeded_box '{"random_seed": 42}'
  local seeded=$BOX
  getrandom_of "$seeded"
  local first=$RANDOM_HEX
  getrandom_of "$seeded"
  [[ $RANDOM_HEX == "$first" ]] || fail "seed 42 gave $first, then $RANDOM_HEX"
  # SplitMix64 of 42, bytes least significant first (proc/seeded_random.h); the probe's static
  # glibc reads the first 8 bytes itself at startup (malloc), so it prints bytes 8 to 23.
  local stream=956eeb2f2632d7bd03f166b233e3ef28529f0f135767524794e34a0effe11c58f22348245a58bc09
  [[ $first == "${stream:16:32}" ]] || fail "seed 42 gave $first, not SplitMix64's stream"
  # One stream per exec, shared by its processes in turn: two probes under sh print different
  # bytes, the same ones on every exec (where they fall in the stream depends on how much the
  # shell's libc reads at startup: glibc's malloc takes 8 bytes, busybox none).
  local script='/workspace/abprobe getrandom 8; /workspace/abprobe getrandom 8'
  ab exec "$seeded" -- sh -c "$script"
  expect_rc 0 "two probes in one exec"
  local pair=$AB_OUT
  [[ $pair =~ ^([0-9a-f]{16})$'\n'([0-9a-f]{16})$ && ${BASH_REMATCH[1]} != "${BASH_REMATCH[2]}" ]] ||
    fail "two probes in one exec gave '$pair'"
  [[ $stream == *"${BASH_REMATCH[1]}"*"${BASH_REMATCH[2]}"* ]] || fail "'$pair' is not of seed 42's stream"
  ab exec "$seeded" -- sh -c "$script"
  [[ $AB_OUT == "$pair" ]] || fail "two probes gave '$pair', then '$AB_OUT'"
  seeded_box '{"random_seed": "43"}'
  getrandom_of "$BOX"
  [[ $RANDOM_HEX != "$first" ]] || fail "seeds 42 and 43 gave the same bytes"
  seeded_box '{}'
  getrandom_of "$BOX"
  local unseeded=$RANDOM_HEX
  [[ $unseeded != "$first" ]] || fail "no seed gave seed 42's bytes"
  getrandom_of "$BOX"
  [[ $RANDOM_HEX != "$unseeded" ]] || fail "without a seed two execs read the same bytes"
  printf '{"random_seed": -1}\n' >"$CASE_DIR/bad.json"
  ab create "${AB_KIND[@]}" --policy "$CASE_DIR/bad.json"
  expect_one_line_error "a negative random_seed"
}

# seeded_session_replays SEED WHAT CMD...: in $BOX (made with random_seed SEED in
# $CASE_DIR/policy.json), CMD three times; the session's log replays without divergence; `run`
# with the same seed prints the same, without one something else.
seeded_session_replays() {
  local seed=$1 what=$2 i
  shift 2
  for i in 1 2 3; do
    ab exec "$BOX" -- "$@"
    expect_rc 0 "$what, seeded"
  done
  ab log --json "$BOX"
  printf '%s\n' "$AB_OUT" >"$CASE_DIR/session.jsonl"
  ab replay --json "$CASE_DIR/session.jsonl"
  expect_rc 0 "a seeded session ($what) replays without divergence"
  json_assert "r['diverged'] == 0 and r['replayed'] >= 3" "replay report"
  ab run --policy "$CASE_DIR/policy.json" -- "$@"
  expect_rc 0 "run, seeded"
  local run_once=$AB_OUT
  ab run --policy "$CASE_DIR/policy.json" -- "$@"
  [[ $AB_OUT == "$run_once" ]] || fail "run with seed $seed gave $run_once, then $AB_OUT"
  ab run -- "$@"
  [[ $AB_OUT != "$run_once" ]] || fail "run without a seed gave seed $seed's bytes"
}

case_replay_of_a_seeded_session() {
  native_only  # replay makes its fresh sandbox on the recorded backend; one lane is enough
  printf '{"random_seed": 7}\n' >"$CASE_DIR/policy.json"
  new_box --policy "$CASE_DIR/policy.json"
  # The sandbox's root (the host's, or an image lane's busybox or Debian) must have python3.
  ab exec "$BOX" -- sh -c 'command -v python3'
  [[ $AB_RC == 0 ]] || not_applicable "python3 is not in the sandbox's root"
  seeded_session_replays 7 "python's os.urandom" python3 -c 'import os; print(os.urandom(8).hex())'
}

# ---- random_seed: a seeded /dev/urandom and /dev/random (docs/policy.md "The seeded getrandom") ---

# device_bytes_of BOX DEVICE: the first 16 bytes of DEVICE read in one exec, in hex, into
# DEVICE_HEX (head and od: GNU's on the host root, busybox's on the docker lane).
device_bytes_of() {
  ab exec "$1" -- sh -c "head -c 16 $2 | od -An -tx1 | tr -d ' \n'"
  expect_rc 0 "reading $2 in $1"
  [[ $AB_OUT =~ ^[0-9a-f]{32}$ ]] || fail "$2 gave '$AB_OUT'"
  DEVICE_HEX=$AB_OUT
}

case_random_seed_seeds_dev_urandom() {
  printf '{"random_seed": 42}\n' >"$CASE_DIR/seed42.json"
  new_box --policy "$CASE_DIR/seed42.json"
  local first=$BOX
  new_box --policy "$CASE_DIR/seed42.json"
  local second=$BOX
  # Each exec's first open reads UrandomOpenSeed(42, 1)'s stream (proc/seeded_random.h), whichever
  # random device it names; a second open in the same exec reads the next stream.
  local stream1=1d85100ff4b68a6060e7dca8335c46f6 stream2=69b31649201f97c2e5b78effe755e3ef
  device_bytes_of "$first" /dev/urandom
  [[ $DEVICE_HEX == "$stream1" ]] || fail "seed 42's /dev/urandom gave $DEVICE_HEX, not $stream1"
  device_bytes_of "$second" /dev/urandom
  [[ $DEVICE_HEX == "$stream1" ]] || fail "a second sandbox of seed 42 gave $DEVICE_HEX"
  device_bytes_of "$second" /dev/random
  [[ $DEVICE_HEX == "$stream1" ]] || fail "seed 42's /dev/random gave $DEVICE_HEX"
  ab exec "$first" -- sh -c 'cd /dev && head -c 16 ./urandom >/dev/null && head -c 16 random |
    od -An -tx1 | tr -d " \n"'
  [[ $AB_OUT == "$stream2" ]] || fail "a second open (by a relative path) gave '$AB_OUT'"
  # Endless, and a reader that stops early leaves nothing behind that blocks the exec's end.
  ab exec "$first" -- sh -c 'head -c 10000000 /dev/urandom | wc -c'
  expect_rc 0 "a large read"
  [[ ${AB_OUT//[[:space:]]/} == 10000000 ]] || fail "head -c 10000000 /dev/urandom gave '$AB_OUT'"
  printf '{"random_seed": 43}\n' >"$CASE_DIR/seed43.json"
  new_box --policy "$CASE_DIR/seed43.json"
  device_bytes_of "$BOX" /dev/urandom
  [[ $DEVICE_HEX != "$stream1" ]] || fail "seeds 42 and 43 gave the same /dev/urandom"
  new_box
  device_bytes_of "$BOX" /dev/urandom
  local unseeded=$DEVICE_HEX
  device_bytes_of "$BOX" /dev/urandom
  [[ $DEVICE_HEX != "$unseeded" ]] || fail "without a seed two reads of /dev/urandom were equal"
  [[ $unseeded != "$stream1" ]] || fail "no seed gave seed 42's bytes"
}

case_replay_of_a_seeded_dev_urandom_session() {
  native_only  # as the seeded getrandom's replay: one lane is enough
  printf '{"random_seed": 9}\n' >"$CASE_DIR/policy.json"
  new_box --policy "$CASE_DIR/policy.json"
  seeded_session_replays 9 "reading /dev/urandom" sh -c 'head -c 16 /dev/urandom | od -An -tx1; head -c 8 /dev/random | od -An -tx1'
}

# replay --from SNAP: the session after a snapshot replays from that snapshot (a fork of it), so
# what was done before it is neither run again nor compared; a planted change after it is found.
case_replay_from_a_snapshot() {
  native_only  # as the 20-command replay: one lane is enough
  new_box
  local i
  for i in 1 2 3; do
    sh_in "$BOX" "echo before-$i >> /workspace/log.txt"
    expect_rc 0 "command $i before the snapshot"
  done
  snapshot_of "$BOX" --name mid
  for i in 4 5 6 7; do
    sh_in "$BOX" "echo after-$i >> /workspace/log.txt; mkdir -p d$i; cat /workspace/log.txt | wc -l"
    expect_rc 0 "command $i after the snapshot"
  done
  ab log --json "$BOX"
  printf '%s\n' "$AB_OUT" >"$CASE_DIR/session.jsonl"
  ab replay --json --from "$BOX:mid" "$CASE_DIR/session.jsonl"
  expect_rc 0 "a faithful replay from the snapshot diverges nowhere"
  json_assert "r['diverged'] == 0 and r['replayed'] == 5 and r['steps'][0]['op'] == 'start' and \
[s['what'] for s in r['steps'][1:]] == ['sh -c echo after-%d >> /workspace/log.txt; mkdir -p d%d; cat /workspace/log.txt | wc -l' % (i, i) for i in (4, 5, 6, 7)]" \
    "the start and the four commands after the snapshot, only"
  # A change planted before the snapshot is not replayed: nothing diverges.
  sed 's/echo before-2 >> /echo planted >> /' "$CASE_DIR/session.jsonl" >"$CASE_DIR/early.jsonl"
  ab replay --json --from "$SNAP" "$CASE_DIR/early.jsonl"
  expect_rc 0 "a change before the starting snapshot (by id)"
  # One planted after it is found, at its command.
  sed 's/echo after-5 >> /echo planted >> /' "$CASE_DIR/session.jsonl" >"$CASE_DIR/late.jsonl"
  ab replay --json --from "$BOX:mid" "$CASE_DIR/late.jsonl"
  expect_rc 1 "a planted divergence after the snapshot is found"
  json_assert "[d['field'] for d in [s for s in r['steps'] if 'planted' in s['what']][0]['divergences']] == ['workspace_after']" \
    "the planted command's workspace diverges (its output, a line count, does not)"
  ab replay --from nosuchsnap "$CASE_DIR/session.jsonl"
  expect_one_line_error "--from a snapshot that is not there"
}

# tz and locale set TZ, LANG and LC_ALL in every command's environment (docs/policy.md), so a
# command whose output depends on them prints the same in the replay (made from the recorded
# policy). A POSIX TZ ("XYZ-3") needs no zone files, which the docker lane's busybox lacks.
case_tz_and_locale_are_kept_in_the_replay() {
  local policy=$CASE_DIR/policy.json
  printf '{"tz": "XYZ-3", "locale": "C.UTF-8"}\n' >"$policy"
  new_box --policy "$policy"
  ab exec "$BOX" -- date +%Z%z
  expect_rc 0 "date"
  expect_out "XYZ+0300" "date in the policy's zone"
  sh_in "$BOX" 'echo "$TZ $LANG $LC_ALL"'
  expect_out "XYZ-3 C.UTF-8 C.UTF-8" "the environment the keys set"
  ab exec "$BOX" -- env TZ=UTC date +%Z
  expect_out "UTC" "a command's own TZ still wins over the key"
  printf '{"tz": "ABC+5"}\n' >"$CASE_DIR/other.json"
  ab create "${AB_KIND[@]}" --policy "$CASE_DIR/other.json"
  expect_rc 0
  ab exec "$AB_OUT" -- date +%Z
  expect_out "ABC" "another zone, another output: the key is what made it"
  printf '{"tz": "UTC; rm -rf /"}\n' >"$CASE_DIR/other.json"
  ab create "${AB_KIND[@]}" --policy "$CASE_DIR/other.json"
  expect_one_line_error "a tz that is not a name"
  [[ $AB_BACKEND == native ]] || return 0  # replay: native only, as the cases above
  sh_in "$BOX" 'date +%Z%z > /workspace/zone; printf "%s\n" b B a A | sort > /workspace/sorted; cat /workspace/sorted'
  expect_out $'A\nB\na\nb' "C.UTF-8's codepoint order"
  ab log --json "$BOX"
  printf '%s\n' "$AB_OUT" >"$CASE_DIR/session.jsonl"
  TZ=Asia/Tokyo LANG=POSIX LC_ALL=POSIX ab replay --json "$CASE_DIR/session.jsonl"
  expect_rc 0 "the replay under another caller's TZ and locale diverges nowhere"
  json_assert "r['diverged'] == 0 and r['replayed'] == 5" "the start and the four commands replayed alike"
}

# clock_start: CLOCK_BOOTTIME (uptime) and CLOCK_MONOTONIC read the value asked when the
# sandbox starts, and then run; the wall clock stays the host's.
case_clock_start_sets_the_uptime() {
  [[ $AB_BACKEND != kubernetes ]] || not_applicable "clock_start is not available on the kubernetes backend yet (refused at create)"
  local policy=$CASE_DIR/policy.json
  printf '{"clock_start": "3d"}\n' >"$policy"
  local t0
  t0=$(now_ms)
  new_box --policy "$policy"
  ab exec "$BOX" -- cat /proc/uptime
  expect_rc 0 "reading the uptime"
  local bound=$(( ($(now_ms) - t0) / 1000 + 2 ))
  local up=${AB_OUT%%.*}
  if ! [[ $up =~ ^[0-9]+$ ]] || ((up < 259200 || up > 259200 + bound)); then
    fail "uptime '$AB_OUT', want 259200 s (3 d) plus at most the $bound s since create"
  fi
  ab exec "$BOX" -- date +%s
  local wall=$AB_OUT now=$(( $(now_ms) / 1000 ))
  ((wall >= now - 60 && wall <= now + 1)) || fail "the wall clock moved: $wall, the host's $now"
  printf '{"clock_start": 0}\n' >"$policy"
  new_box --policy "$policy"
  ab exec "$BOX" -- cat /proc/uptime
  up=${AB_OUT%%.*}
  ((up <= 60)) || fail "clock_start 0: uptime '$AB_OUT'"
  printf '{"clock_start": "4000d"}\n' >"$policy"
  ab create "${AB_KIND[@]}" --policy "$policy"
  expect_one_line_error "a clock_start past ten years"
}

# File operations are replayed from the log (`cp` in: its mkdirs and writes, their bytes in the
# log), and a write planted with other bytes is found.
case_replay_of_copied_files() {
  native_only  # as the replays above
  new_box
  mkdir -p "$CASE_DIR/tree/sub"
  echo one >"$CASE_DIR/tree/a"
  printf 'two\n' >"$CASE_DIR/tree/sub/b"
  chmod 750 "$CASE_DIR/tree/sub/b"
  ab cp "$CASE_DIR/tree" "$BOX:/workspace/tree"
  expect_rc 0 "cp of a directory in"
  sh_in "$BOX" 'cat /workspace/tree/a /workspace/tree/sub/b; echo three >> /workspace/tree/a'
  expect_out $'one\ntwo' "the copied files"
  ab cp "$CASE_DIR/tree/a" "$BOX:/workspace/tree/a"
  expect_rc 0 "cp of a file over one the command changed"
  ab log --json "$BOX"
  printf '%s\n' "$AB_OUT" >"$CASE_DIR/session.jsonl"
  ab replay --json "$CASE_DIR/session.jsonl"
  expect_rc 0 "a faithful replay of copies diverges nowhere"
  json_assert "r['diverged'] == 0 and r['skipped'] == 0 and {'write_file', 'mkdir', 'exec'} <= {s['op'] for s in r['steps']}" \
    "the copies were replayed"
  # Plant other bytes in the last write ("one\n" -> "One\n"): found at that write.
  "$PY" - "$CASE_DIR/session.jsonl" "$CASE_DIR/planted.jsonl" <<'PY'
import base64, json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
last = [r for r in recs if r['op'] == 'write_file'][-1]
last['content_base64'] = base64.b64encode(b'One\n').decode()
open(sys.argv[2], 'w').write(''.join(json.dumps(r) + '\n' for r in recs))
PY
  ab replay --json "$CASE_DIR/planted.jsonl"
  expect_rc 1 "a planted write is found"
  json_assert "[d['field'] for d in [s for s in r['steps'] if s['divergences']][0]['divergences']] == ['workspace_after'] and [s for s in r['steps'] if s['divergences']][0]['op'] == 'write_file'" \
    "the write's workspace diverges"
}
