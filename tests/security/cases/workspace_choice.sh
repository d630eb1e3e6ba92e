# shellcheck shell=bash
# Who may pick a host directory (docs/security.md "The workspace a user gives"): the system's
# directories and agentbox's state are refused; a command never gets more rights over the host
# files it finds in a workspace than an unprivileged user who owns only what the sandbox made.

# expect_refused_workspace DIR: 125, one line, nothing run and nothing created.
expect_refused_workspace() {
  local existed=no marker
  [[ -e $1 ]] && existed=yes
  marker=$(new_marker)
  ab run "${AB_KIND[@]}" --workspace "$1" -- touch "/workspace/$marker"
  # What a wrong answer left is cleaned up before the case fails on it.
  [[ ! -e $1/$marker ]] || { rm -f "$1/$marker"; fail "the command ran in --workspace $1"; }
  [[ $existed == yes || ! -e $1 ]] || { rmdir "$1" 2>/dev/null; fail "--workspace $1 was created"; }
  expect_rc 125 "--workspace $1"
  [[ $(printf '%s' "$AB_ERR" | wc -l) -le 1 ]] || fail "more than one line for --workspace $1: $AB_ERR"
}

case_workspace_system_dirs_refused() {
  local dir
  for dir in / /etc /usr /bin /sbin /lib /boot /root /home /run /var /proc /sys /dev /tmp \
    /var/tmp /usr/lib /etc/agentbox-new-$$ /var/lib/agentbox-new-$$ /run/docker; do
    expect_refused_workspace "$dir"
  done
}

case_workspace_symlink_or_dotdot_into_a_system_dir_refused() {
  ln -s /etc "$CASE_DIR/etc-link"
  expect_refused_workspace "$CASE_DIR/etc-link"
  expect_refused_workspace "$CASE_DIR/etc-link/new-$$"
  expect_refused_workspace "$CASE_DIR/../../../../../../etc"
}

case_workspace_in_or_around_the_state_dir_refused() {
  local state=${AGENTBOX_STATE_DIR:-/var/lib/agentbox}
  mkdir -p "$state"
  expect_refused_workspace "$state"
  expect_refused_workspace "$state/sandboxes"
  expect_refused_workspace "$state/storage/pool"
  expect_refused_workspace "$(dirname "$state")"
}

# The state dir as --rootfs: read-only, but a unix socket connects through a read-only mount, and
# another sandbox's agent socket is there. Refused like the workspace, and nothing runs.
case_rootfs_in_or_around_the_state_dir_refused() {
  [[ $AB_BACKEND == native ]] || not_applicable "--rootfs is the native backend's (docker uses --image)"
  local state=${AGENTBOX_STATE_DIR:-/var/lib/agentbox} dir
  mkdir -p "$state/sandboxes"
  for dir in "$state" "$state/sandboxes" "$(dirname "$state")"; do
    ab run --rootfs "$dir" -- /bin/true
    expect_rc 125 "--rootfs $dir"
    expect_err_has "state directory"
    [[ $(printf '%s' "$AB_ERR" | wc -l) -le 1 ]] || fail "more than one line for --rootfs $dir: $AB_ERR"
  done
}

# A non-empty directory of root's: its files would be the command's to read and write as root.
# Refused unless the user names that risk; an empty one (mktemp -d) is the sandbox's own.
case_workspace_root_owned_not_empty_refused() {
  local ws=$CASE_DIR/rootws
  mkdir -m 0755 "$ws"
  echo secret >"$ws/shadow"
  chmod 0600 "$ws/shadow"
  expect_refused_workspace "$ws"
  expect_err_has "owned by root"
  ab run "${AB_KIND[@]}" --allow-root-owned-workspace --workspace "$ws" -- cat /workspace/shadow
  if ! on_gvisor; then
    expect_rc 0 "--allow-root-owned-workspace"
    expect_out_has secret
  fi
}

case_workspace_empty_root_dir_becomes_the_sandboxs() {
  local ws
  ws=$(mktemp -d "$CASE_DIR/empty.XXXXXX")
  ab run "${AB_KIND[@]}" --workspace "$ws" -- sh -c 'echo made > /workspace/f'
  expect_rc 0 "an empty root-owned directory"
  [[ $(cat "$ws/f") == made ]] || fail "the file is not in the host dir"
  [[ $(stat -c %u "$ws/f") != 0 ]] || fail "a file the sandbox made belongs to root on the host"
}

# Root's files in a user's workspace stay root's: not writable, and not readable when 0600.
case_workspace_root_files_inside_stay_roots() {
  echo secret >"$WS/secret"
  chmod 0600 "$WS/secret"
  echo keep >"$WS/rootfile"
  chmod 0644 "$WS/rootfile"
  chown 0:0 "$WS/secret" "$WS/rootfile"
  box -- sh -c 'cat /workspace/secret; echo "read=$?"; echo x >> /workspace/rootfile; echo "write=$?"; chmod 666 /workspace/rootfile; echo "chmod=$?"'
  expect_out_has "read=1" "a root 0600 file was readable"
  expect_out_lacks secret
  [[ $AB_OUT != *"write=0"* && $(cat "$WS/rootfile") == keep ]] || fail "a root-owned file was written"
  [[ $(stat -c %a "$WS/rootfile") == 644 ]] || fail "a root-owned file's mode was changed"
}

# A socket or FIFO in the workspace is a door to whatever host process holds its other end
# (connect() across network namespaces works for sockets on a path): refused at start.
case_workspace_with_a_host_socket_refused() {
  host_listen unix "$WS/app.sock"
  chown "$AB_WS_OWNER" "$WS/app.sock"
  expect_refused_workspace "$WS"
  expect_err_has "app.sock"
}

case_workspace_with_a_fifo_refused() {
  mkfifo "$WS/pipe"
  chown "$AB_WS_OWNER" "$WS/pipe"
  expect_refused_workspace "$WS"
  expect_err_has "pipe"
}
