# shellcheck shell=bash
# docs/contract.md §1 options: -e, -w, -i, --workspace, the default workspace, --policy, --rootfs.
# shellcheck disable=SC2016,SC2034

case_env_flag_sets_variable() {
  box -e FOO=bar --env 'EQ=a=b c' -- sh -c 'echo "$FOO|$EQ"'
  expect_rc 0
  [[ $AB_OUT == "bar|a=b c" ]] || fail "got '$AB_OUT'"
}

case_cwd_default_is_workspace() { box -- pwd; [[ $AB_OUT == /workspace ]] || fail "cwd '$AB_OUT'"; }
case_cwd_flag() {
  box -w /tmp -- pwd
  [[ $AB_OUT == /tmp ]] || fail "-w /tmp: cwd '$AB_OUT'"
  mkdir "$WS/sub"
  box --cwd /workspace/sub -- pwd
  [[ $AB_OUT == /workspace/sub ]] || fail "--cwd /workspace/sub: '$AB_OUT'"
}

case_stdin_passed_with_i() {
  echo hi >"$CASE_DIR/in"
  AB_STDIN=$CASE_DIR/in box -i -- cat
  expect_rc 0
  [[ $AB_OUT == hi ]] || fail "-i: got '$AB_OUT'"
  AB_STDIN=$CASE_DIR/in box --stdin -- cat
  [[ $AB_OUT == hi ]] || fail "--stdin: got '$AB_OUT'"
}

# Without -i the command's stdin is /dev/null, however much agentbox's own stdin holds.
case_stdin_empty_without_i() {
  echo secret-input >"$CASE_DIR/in"
  AB_STDIN=$CASE_DIR/in box -- sh -c 'cat; readlink /proc/self/fd/0'
  expect_rc 0
  expect_out_lacks secret-input "stdin leaked without -i"
  expect_out_has /dev/null
}

case_workspace_created_and_kept() {
  local ws=$CASE_DIR/new-ws
  ab run --workspace "$ws" -- sh -c 'echo kept >/workspace/file'
  expect_rc 0
  [[ -d $ws ]] || fail "--workspace dir not created"
  [[ $(cat "$ws/file" 2>/dev/null) == kept ]] || fail "file written inside not kept"
}

# Missing parents too: what `docker run -v` and `mkdir -p` users expect of "created if missing".
case_workspace_created_with_parents() {
  local ws=$CASE_DIR/new/deeper/ws
  ab run --workspace "$ws" -- sh -c 'echo kept >/workspace/file'
  expect_rc 0
  [[ -d $ws ]] || fail "--workspace dir not created"
  [[ $(cat "$ws/file" 2>/dev/null) == kept ]] || fail "file written inside not kept"
}

case_workspace_persists_between_runs() {
  box -- sh -c 'echo from-run-1 >/workspace/note'
  box -- cat /workspace/note
  expect_rc 0
  [[ $AB_OUT == from-run-1 ]] || fail "second run read '$AB_OUT'"
}

# agentbox_temp_entries: agentbox-named entries in the usual temp dirs.
agentbox_temp_entries() {
  find /tmp /var/tmp -mindepth 1 -maxdepth 1 -iname '*agentbox*' 2>/dev/null | sort
}

# The default workspace is a fresh private temp dir, deleted afterwards: neither the file the
# command wrote nor a new agentbox temp dir may remain (in $TMPDIR, /tmp or /var/tmp).
case_default_workspace_removed() {
  local mark before found
  mark=$(new_marker)
  mkdir "$CASE_DIR/tmpdir"
  before=$(agentbox_temp_entries)
  TMPDIR=$CASE_DIR/tmpdir ab run -- sh -c "echo x >/workspace/$mark; ls -A /workspace | wc -l"
  expect_rc 0
  [[ $AB_OUT == 1 ]] || fail "the default workspace was not fresh and empty: $AB_OUT"
  found=$(find /tmp /var/tmp "$CASE_DIR/tmpdir" -maxdepth 4 -name "$mark" 2>/dev/null | head -3)
  [[ -z $found ]] || fail "the default workspace was left behind: $found"
  [[ -z $(ls -A "$CASE_DIR/tmpdir") ]] || fail "left in TMPDIR: $(ls -A "$CASE_DIR/tmpdir")"
  [[ $(agentbox_temp_entries) == "$before" ]] ||
    fail "new agentbox temp entries remain: $(comm -13 <(echo "$before") <(agentbox_temp_entries) | tr '\n' ' ')"
}

# Two concurrent default-workspace runs do not see each other's files.
case_default_workspace_private() {
  ab run -- sh -c 'echo x >/workspace/first; ls /workspace'
  ab run -- ls -A /workspace
  expect_rc 0
  expect_out_lacks first "the default workspace was reused"
}

case_policy_keys_apply() {
  local policy=$CASE_DIR/policy.json
  # A timeout no echo needs even on a loaded host, and that still ends the sleep.
  printf '{"timeout": 2, "env": {"FROM_POLICY": "yes"}, "output_limit": 4}\n' >"$policy"
  boxj --policy "$policy" -- sh -c 'echo "$FROM_POLICY-abcdef"'
  json_assert 'r["stdout"] == "yes-" and r["stdout_truncated"] is True' "env/output_limit from the policy not applied"
  boxj --policy "$policy" -- sleep 25
  json_assert 'r["reason"] == "timeout"' "timeout from the policy not applied"
}

case_policy_flags_override() {
  local policy=$CASE_DIR/policy.json
  printf '{"timeout": 0.5, "env": {"WHO": "policy"}, "cwd": "/tmp"}\n' >"$policy"
  box --policy "$policy" --timeout 20 -e WHO=flag -w /workspace -- sh -c 'sleep 1; echo "$WHO $(pwd)"'
  expect_rc 0
  [[ $AB_OUT == "flag /workspace" ]] || fail "flags did not override the policy: '$AB_OUT'"
}

# make_busybox_rootfs DIR: a minimal root with only a static busybox.
make_busybox_rootfs() {
  local bb
  bb=$(command -v busybox || echo /bin/busybox)
  [[ -x $bb ]] || fail "busybox-static is not installed (apt-get install busybox-static)"
  mkdir -p "$1/bin" "$1/dev" "$1/proc" "$1/tmp" "$1/etc"
  cp "$bb" "$1/bin/busybox"
  ln -s busybox "$1/bin/sh"
  ln -s busybox "$1/bin/ls"
  ln -s busybox "$1/bin/cat"
}

# A --rootfs below a directory only root may enter: root runs agentbox, root can read it.
case_rootfs_below_private_dir() {
  chmod 0700 "$CASE_DIR"
  make_busybox_rootfs "$CASE_DIR/rootfs"
  box --rootfs "$CASE_DIR/rootfs" -- /bin/sh -c 'busybox | head -1'
  expect_rc 0
  expect_out_has BusyBox
}

# TMPDIR below a directory only root may enter (root's TMPDIR under /root is common).
case_default_workspace_in_private_tmpdir() {
  chmod 0700 "$CASE_DIR"
  mkdir "$CASE_DIR/tmpdir"
  TMPDIR=$CASE_DIR/tmpdir ab run -- sh -c 'echo x >/workspace/f && echo OK'
  expect_rc 0
  expect_out_has OK
  [[ -z $(ls -A "$CASE_DIR/tmpdir") ]] || fail "left in TMPDIR: $(ls -A "$CASE_DIR/tmpdir")"
}

case_rootfs_busybox() {
  local root=$CASE_DIR/rootfs
  make_busybox_rootfs "$root"
  box --rootfs "$root" -- /bin/sh -c 'busybox | head -1; ls /bin | tr "\n" " "; test -e /usr/bin/python3 && echo HOST_USR; echo x >/rootfs-write 2>/dev/null && echo WROTE_ROOT; echo ws >/workspace/f && echo WS_OK'
  expect_rc 0
  expect_out_has BusyBox
  expect_out_lacks HOST_USR "the host's /usr is visible with --rootfs"
  expect_out_lacks WROTE_ROOT "--rootfs is writable"
  expect_out_has WS_OK
  [[ ! -e $root/rootfs-write ]] || fail "the rootfs on the host was written"
}

case_doctor_ok() {
  ab doctor
  expect_rc 0
}

case_help_top_level() {
  ab --help
  expect_rc 0
  expect_out_has run
}

case_help_run_mentions_every_flag() {
  ab run --help
  expect_rc 0
  local flag
  for flag in --workspace --rootfs --backend --image --policy --timeout --memory --pids --cpus \
    --output-limit --disk-limit --env --cwd --stdin --json; do
    [[ $AB_OUT == *"$flag"* ]] || fail "run --help does not mention $flag"
  done
  [[ $AB_OUT =~ (^|[^-a-z])-e([^a-z]|$) && $AB_OUT =~ (^|[^-a-z])-w([^a-z]|$) && $AB_OUT =~ (^|[^-a-z])-i([^a-z]|$) ]] ||
    fail "run --help lacks a short flag (-e, -w, -i)"
}

# A workspace that contains agentbox's state dir would expose every sandbox's agent socket to its
# commands: refused with 125, and nothing runs.
case_workspace_containing_state_dir_refused() {
  mkdir -p "$CASE_DIR/outer/state"
  AGENTBOX_STATE_DIR="$CASE_DIR/outer/state" ab run --workspace "$CASE_DIR/outer" -- touch /workspace/ran
  expect_rc 125
  expect_err_has "state directory"
  [[ ! -e "$CASE_DIR/outer/ran" ]] || fail "the command ran"
}

