# shellcheck shell=bash
# The CLI as docker and bwrap users expect it (issue 19, point 5): --json on every subcommand that
# prints data, ls sorted with -q and --format, inspect of several sandboxes, -e KEY from the
# caller's environment, Ctrl-C on exec, cp's tar streams, help aligned with defaults shown.
# Sourced by run.sh (H_CASE_FILES); the vocabulary is tests/lib/persistent.sh's.

case_cli_create_rm_gc_doctor_json() {
  ab create "${AB_KIND[@]}" --json --name made
  expect_rc 0 "create --json"
  json_assert "r['name'] == 'made' and r['state'] == 'running' and len(r['id']) == 12" "create --json prints the sandbox"
  local id
  id=$(json_get id)
  on_exit "'$AGENTBOX' rm -f '$id' >/dev/null 2>&1"
  ab rm --json made nosuch
  expect_rc 125 "rm of one that is not there"
  json_assert "[x['removed'] for x in r] == [True, False] and r[0]['id'] == '$id' and r[1]['code'] == 'not_found'" "rm --json: one object per sandbox"
  [[ $(printf '%s\n' "$AB_ERR" | grep -c .) == 1 ]] || fail "rm --json: want one stderr line for the missing one: $AB_ERR"
  ab gc --json
  expect_rc 0 "gc --json"
  json_assert "isinstance(r['removed'], list) and all(set(x) == {'kind', 'name'} for x in r['removed'])"
  ab doctor --json
  json_assert "isinstance(r['ok'], bool) and all({'layer', 'ok', 'detail'} <= set(c) for c in r['checks'])" "doctor --json"
  ab version --json
  expect_rc 0
  json_assert "r['version'] and r['commit'] and r['build_type']" "version --json"
  ab pool ls --json
  expect_rc 0 "pool ls --json"
  json_assert "r == []" "pool ls --json: no pools in a fresh state dir"
  ab pool drain --json
  json_assert "r == {'removed': 0}" "pool drain --json"
}

clock_past() { [[ $(date -u +%Y-%m-%dT%H:%M:%SZ) > "$1" ]]; }

case_cli_ls_sorted_quiet_format_and_inspect_several() {
  new_box --name older
  local older=$BOX second
  ab inspect "$older"
  second=$(json_get created_at)
  # Newest first needs a later second: wait for the clock to pass the first's (an event, not a
  # guess), then make the second sandbox.
  wait_until 5 clock_past "$second" || fail "the clock did not move"
  new_box --name newer
  local newer=$BOX
  ab ls -q
  expect_rc 0
  expect_out "$newer"$'\n'"$older" "ls -q: ids, newest first"
  ab ls --format '{{.Name}}\t{{.State}}'
  expect_out "newer"$'\t'"running"$'\n'"older"$'\t'"running" "ls --format"
  ab ls --json
  json_assert "[x['name'] for x in r] == ['newer', 'older']" "ls --json sorted"
  ab ls --format '{{.Nope}}'
  expect_one_line_error "ls --format with an unknown field"
  expect_err_has ".CreatedAt"
  ab ls -q --json
  expect_one_line_error "ls -q --json"
  ab inspect older "$newer"
  expect_rc 0
  json_assert "[x['name'] for x in r] == ['older', 'newer']" "inspect of two: an array in the order given"
  ab inspect older
  json_assert "r['name'] == 'older'" "inspect of one: the object, as before"
  ab inspect --format '{{.ID}} {{.Policy.Memory}}' older
  expect_out "$older 536870912"
  ab inspect older nosuch newer
  expect_rc 125 "inspect with one missing"
  json_assert "[x['name'] for x in r] == ['older', 'newer']" "the found ones are still printed"
}

case_cli_env_key_from_callers_environment() {
  new_box
  FROM_CALLER='value with spaces' ab exec -e FROM_CALLER -e NOT_IN_CALLER -e SET=1 "$BOX" -- \
    sh -c 'echo "$FROM_CALLER|${NOT_IN_CALLER-unset}|$SET"'
  expect_rc 0
  expect_out "value with spaces|unset|1" "-e KEY takes the caller's value; an unset KEY is left out"
  FROM_CALLER=run-too ab run "${AB_KIND[@]}" -e FROM_CALLER -- sh -c 'echo $FROM_CALLER'
  expect_out "run-too" "run -e KEY"
}

some_pids_of_cmd() { [[ -n $(pids_of_cmd "$1") ]]; }

# Ctrl-C on `agentbox exec`: the command's whole tree is killed (the agent's doing, once the
# connection is cancelled), and with --json the result is still printed.
case_exec_ctrl_c_kills_the_tree_and_prints_json() {
  new_box
  "$AGENTBOX" exec --json "$BOX" -- sh -c 'echo started; sleep 317.5 & sleep 318.5; wait' \
    >"$CASE_DIR/x.out" 2>"$CASE_DIR/x.err" &
  local pid=$!
  wait_until 20 some_pids_of_cmd '^sleep 318\.5$' || fail "the command never started"
  kill -INT "$pid"
  local rc=0
  wait "$pid" || rc=$?
  [[ $rc == 130 ]] || fail "exec --json after SIGINT exited $rc, want 130 ($(cat "$CASE_DIR/x.err"))"
  AB_OUT=$(cat "$CASE_DIR/x.out")
  json_assert "r['reason'] == 'signaled' and r['signal'] == 2 and r['exit_code'] == 130 and r['stdout'] == 'started\n'" "the JSON result of an interrupted exec"
  wait_until 20 no_pids_of_cmd '^sleep 317\.5$' || fail "sleep 317.5 (a background child) outlived Ctrl-C"
  wait_until 20 no_pids_of_cmd '^sleep 318\.5$' || fail "sleep 318.5 outlived Ctrl-C"
}

case_cp_tar_streams_both_ways() {
  new_box
  ab exec "$BOX" -- sh -c 'mkdir -p /workspace/d/sub && echo one > /workspace/d/1.txt && printf "#!/bin/sh\necho hi\n" > /workspace/d/sub/run.sh && chmod 755 /workspace/d/sub/run.sh'
  expect_rc 0
  "$AGENTBOX" cp "$BOX:d" - >"$CASE_DIR/d.tar" 2>"$CASE_DIR/err" || fail "cp ID:d - failed: $(cat "$CASE_DIR/err")"
  tar -tf "$CASE_DIR/d.tar" | sort | paste -sd' ' >"$CASE_DIR/list"
  [[ $(cat "$CASE_DIR/list") == "d/ d/1.txt d/sub/ d/sub/run.sh" ]] || fail "the tar holds: $(cat "$CASE_DIR/list")"
  mkdir "$CASE_DIR/x" && tar -C "$CASE_DIR/x" -xf "$CASE_DIR/d.tar"
  [[ $(cat "$CASE_DIR/x/d/1.txt") == one && -x $CASE_DIR/x/d/sub/run.sh ]] || fail "the tar's content or modes"
  # And back in, under another directory, as `tar -c | agentbox cp - ID:DIR`.
  ab exec "$BOX" -- mkdir /workspace/in
  (cd "$CASE_DIR/x" && tar -cf - d) | "$AGENTBOX" cp - "$BOX:in" 2>"$CASE_DIR/err" || fail "cp - ID:in failed: $(cat "$CASE_DIR/err")"
  ab exec "$BOX" -- sh -c 'cat /workspace/in/d/1.txt && /workspace/in/d/sub/run.sh'
  expect_out $'one\nhi' "what the tar stream put in"
  ab cp - "$BOX:nosuchdir"
  expect_one_line_error "cp - into a missing directory"
}

# A hostile archive: entries leading out (absolute, ..), links and devices are refused before
# anything of them is written; the directory given is the only place it can write.
case_cp_tar_stream_refuses_escapes() {
  new_box
  ab inspect "$BOX"
  local ws
  ws=$(json_get workspace)
  local kind
  for kind in dotdot absolute symlink hardlink fifo; do
    "$PY" - "$kind" >"$CASE_DIR/$kind.tar" <<'PY'
import io, sys, tarfile
kind = sys.argv[1]
t = tarfile.open(fileobj=sys.stdout.buffer, mode="w|")
def add(name, data=b"x", **kw):
    info = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(info, k, v)
    info.size = len(data) if info.type == tarfile.REGTYPE else 0
    t.addfile(info, io.BytesIO(data) if info.type == tarfile.REGTYPE else None)
add("ok.txt")
if kind == "dotdot": add("../escaped.txt")
if kind == "absolute": add("/etc/escaped.txt")
if kind == "symlink": add("link", type=tarfile.SYMTYPE, linkname="/etc/passwd")
if kind == "hardlink": add("hard", type=tarfile.LNKTYPE, linkname="ok.txt")
if kind == "fifo": add("fifo", type=tarfile.FIFOTYPE)
t.close()
PY
    AB_STDIN=$CASE_DIR/$kind.tar ab cp - "$BOX:/workspace"
    expect_one_line_error "a tar stream with a $kind entry"
  done
  ab exec "$BOX" -- sh -c 'ls -a /workspace; test -e /etc/escaped.txt && echo ETC; true'
  [[ $AB_OUT != *escaped* && $AB_OUT != *ETC* && $AB_OUT != *link* && $AB_OUT != *fifo* ]] || fail "a refused entry was written: $AB_OUT"
  if [[ $AB_BACKEND == native ]]; then
    [[ ! -e $(dirname "$ws")/escaped.txt ]] || fail "../escaped.txt landed on the host beside the workspace"
  fi
  printf 'not a tar at all, just text that goes on for a while............................' >"$CASE_DIR/junk"
  AB_STDIN=$CASE_DIR/junk ab cp - "$BOX:/workspace"
  expect_one_line_error "cp - of something that is no tar stream"
}

# --help of every subcommand: exit 0, and the help texts of its options start in one column.
case_cli_help_aligned_with_defaults() {
  local sub
  for sub in run create exec ps logs wait kill send ls inspect cp rm gc mcp serve image pool doctor version; do
    ab "$sub" --help
    expect_rc 0 "$sub --help"
    expect_out_has "Usage: agentbox $sub" "$sub --help"
    printf '%s\n' "$AB_OUT" | "$PY" -c '
import re, sys
lines = sys.stdin.read().split("Options:\n", 1)
if len(lines) < 2: sys.exit(0)
cols = set()
for line in lines[1].splitlines():
    if not line.strip(): break
    m = re.match(r"  (-\S, |    )--\S+( \S+)?(  +)(\S)", line)
    if m and len(m.group(0)) - 1 < 40: cols.add(len(m.group(0)) - 1)
sys.exit(0 if len(cols) <= 1 else 1)' || fail "$sub --help: the option help texts are not aligned: $AB_OUT"
  done
  ab run --help
  AB_OUT=$(printf '%s' "$AB_OUT" | tr -s ' \n' '  ')  # wrapped lines joined: a default may wrap
  for want in "(default: 60)" "(default: 512M)" "(default: 256)" "(default: 1G)" "(default: /workspace)"; do
    expect_out_has "$want" "run --help shows the defaults"
  done
  ab exec --help
  AB_OUT=$(printf '%s' "$AB_OUT" | tr -s ' \n' '  ')
  expect_out_has "(default: the sandbox's)"
  ab help ls
  expect_out_has "--format FORMAT"
}
