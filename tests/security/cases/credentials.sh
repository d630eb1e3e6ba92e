# shellcheck shell=bash
# Credentials: uid/gid 1000 inside, never uid 0 on the host, no capabilities, no_new_privs,
# seccomp on, workspace ownership, no setuid/setgid files.
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

case_cred_uid_gid_1000_inside() {
  sh_in 'id -u; id -g; id -G'
  expect_rc 0
  [[ $AB_OUT == $'1000\n1000\n1000' ]] || fail "ids inside: $(echo "$AB_OUT" | tr '\n' ' ')"
}

# expect_status_line FIELD VALUE: a /proc/self/status line of the sandboxed probe.
expect_caps_line() {
  local line
  line=$(echo "$AB_OUT" | grep "^$1:" | tr -s ' \t' ' ')
  [[ $line == "$1: $2" ]] || fail "want '$1: $2', got '$line'"
}

case_cred_capabilities_all_empty() {
  box -- /workspace/abprobe caps
  expect_rc 0
  local set
  for set in CapInh CapPrm CapEff CapBnd CapAmb; do
    expect_caps_line "$set" 0000000000000000
  done
}

case_cred_no_new_privs_set() {
  box -- /workspace/abprobe caps
  expect_caps_line NoNewPrivs 1
}

case_cred_seccomp_filter_mode() {
  box -- /workspace/abprobe caps
  expect_caps_line Seccomp 2
}

# On the host, a sandboxed process is never uid 0 and holds no capabilities.
case_cred_host_uid_not_root() {
  if on_gvisor; then expect_gvisor_host_side_unprivileged; return; fi
  local mark pid uid capeff
  mark=$(new_marker)
  ab run "${AB_KIND[@]}" --workspace "$WS" --timeout 10 -- bash -c "exec -a $mark sleep 30" &
  pid=$(wait_host_pid "$mark") || fail "marked process never appeared on the host"
  uid=$(ps -o uid= -p "$pid" | tr -d ' ')
  capeff=$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")
  local euid
  euid=$(awk '/^Uid:/ {print $3}' "/proc/$pid/status")
  kill -KILL "$pid" 2>/dev/null
  wait
  [[ -n $uid && $uid != 0 && $euid != 0 ]] || fail "sandboxed process runs as host uid $uid (euid $euid)"
  [[ $capeff == 0000000000000000 ]] || fail "sandboxed process holds host capabilities CapEff=$capeff"
}

# The sandbox's processes are never a host account's uid either (with the docker backend too,
# whose containers would otherwise run as host uid 1000, often the first user's): the host uid
# of a command is in no line of the host's /etc/passwd.
case_cred_host_uid_no_account() {
  on_gvisor && not_applicable "under gVisor the box's uids exist only in the Sentry's kernel (checked by cred_host_uid_not_root)"
  local mark pid uid
  mark=$(new_marker)
  ab run "${AB_KIND[@]}" --workspace "$WS" --timeout 10 -- bash -c "exec -a $mark sleep 30" &
  pid=$(wait_host_pid "$mark") || fail "marked process never appeared on the host"
  uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
  kill -KILL "$pid" 2>/dev/null
  wait
  [[ -n $uid ]] || fail "no host uid for the sandboxed process"
  ! cut -d: -f3 /etc/passwd | grep -qx "$uid" ||
    fail "the sandboxed process runs as host uid $uid, the account $(awk -F: -v u="$uid" '$3 == u {print $1}' /etc/passwd)"
  box -- cat /proc/self/uid_map
  [[ $(awk '$1 == 1000 {print $2}' <<<"$AB_OUT") == "$uid" ]] || fail "uid 1000 inside is not host uid $uid: $AB_OUT"
}

# Under gVisor the box's processes are not host processes: a marked one never shows up on the
# host, which sees only the Sentry that runs them. The Sentry (the pid `inspect` reports) must be
# unprivileged there: not uid 0, its capabilities only in a user namespace of its own, under
# seccomp and no_new_privs.
expect_gvisor_host_side_unprivileged() {
  local mark pid status
  mark=$(new_marker)
  new_box
  timeout 10 "$AGENTBOX" exec "$BOX" -- sh -c "exec -a $mark sleep 30" >/dev/null 2>&1 &
  ab exec "$BOX" -- sh -c "$(printf 'i=0; while [ $i -lt 200 ] && ! grep -qas "^%s" /proc/[0-9]*/cmdline; do sleep 0.05; i=$((i+1)); done; grep -qas "^%s" /proc/[0-9]*/cmdline && echo SPAWNED' "$mark" "$mark")"
  expect_out_has SPAWNED "the marked process never ran in the box"
  [[ -z $(host_pids "$mark") ]] || fail "under gVisor a box process is a host process: $(host_pids "$mark")"
  ab inspect "$BOX"
  pid=$(json_get pid)
  [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/status ]] || fail "no host process for the sandbox: pid '$pid'"
  [[ $(tr '\0' ' ' <"/proc/$pid/cmdline") == runsc-sandbox* ]] || fail "pid $pid is not gVisor's Sentry"
  status=$(cat "/proc/$pid/status")
  awk '/^Uid:/ {for (i = 2; i <= 5; i++) if ($i == 0) exit 1}' <<<"$status" ||
    fail "the Sentry runs as host uid 0: $(grep ^Uid: <<<"$status")"
  [[ $(readlink "/proc/$pid/ns/user") != "$(readlink /proc/self/ns/user)" ]] ||
    fail "the Sentry holds its capabilities in the host's user namespace"
  grep -q '^NoNewPrivs:[[:space:]]*1$' <<<"$status" || fail "the Sentry lacks no_new_privs"
  grep -q '^Seccomp:[[:space:]]*2$' <<<"$status" || fail "the Sentry runs without a seccomp filter"
}

# expect_workspace_owner UID:GID [RUN-OPTION...]: files made inside belong, on the host, to the
# workspace's owner.
expect_workspace_owner() {
  box "${@:2}" -- sh -c 'echo x >/workspace/file && mkdir /workspace/dir && echo y >/workspace/dir/inner && echo MADE'
  expect_out_has MADE "cannot write the workspace"
  local f owner
  for f in "$WS/file" "$WS/dir" "$WS/dir/inner"; do
    owner=$(stat -c %u:%g "$f")
    [[ $owner == "$1" ]] || fail "$f belongs to $owner on the host, want $1"
  done
}

# gvisor_refuses_workspace UID:GID: under gVisor a workspace of any owner but the container's would
# need the idmapped mount runsc cannot use; agentbox must refuse it at create (exit 125, nothing
# run). That is checked, and the ownership case is then N/A there.
gvisor_refuses_workspace() {
  on_gvisor || return 0
  box "${@:2}" -- sh -c 'echo x >/workspace/file'
  expect_rc 125 "gVisor cannot map a workspace owned by $1: create must refuse it"
  expect_err_has "must be owned by $AB_WS_OWNER"
  [[ ! -e $WS/file ]] || fail "the command ran in a workspace owned by $1"
  not_applicable "runsc cannot use the idmapped mount a workspace owned by $1 needs; agentbox refuses it at create (checked: exit 125)"
}

# A non-empty workspace of root's is refused (workspace_choice.sh); with the opt-in that names
# the risk, the files the command makes still belong to root, the directory's owner.
case_cred_workspace_owner_root() {
  chown -R 0:0 "$WS"
  gvisor_refuses_workspace 0:0 --allow-root-owned-workspace
  expect_workspace_owner 0:0 --allow-root-owned-workspace
}

case_cred_workspace_owner_4242() {
  chown 4242:4242 "$WS"
  chown 4242:4242 "$WS/abprobe"
  gvisor_refuses_workspace 4242:4242
  expect_workspace_owner 4242:4242
}

# The same with the workspace below a directory only root may enter (like /root/...): root
# runs agentbox, so root's access to the path is what counts, not the owner's.
case_cred_workspace_owner_4242_private_parent() {
  chmod 0700 "$CASE_DIR"
  chown 4242:4242 "$WS"
  chown 4242:4242 "$WS/abprobe"
  gvisor_refuses_workspace 4242:4242
  expect_workspace_owner 4242:4242
}

# expect_no_special_bits_on_host: nothing under the workspace may carry setuid/setgid on the host.
expect_no_special_bits_on_host() {
  local found
  found=$(find "$WS" -perm /6000 ! -name suid-probe 2>/dev/null)
  [[ -z $found ]] || fail "setuid/setgid file on the host: $found"
}

case_cred_chmod_u_s_shell() {
  sh_in 'touch /workspace/f && chmod u+s /workspace/f; echo rc=$?; stat -c %A /workspace/f'
  expect_out_lacks rc=0 "chmod u+s succeeded"
  expect_no_special_bits_on_host
}

case_cred_chmod_g_s_shell() {
  sh_in 'touch /workspace/f && chmod g+s /workspace/f; echo rc=$?; stat -c %A /workspace/f'
  expect_out_lacks rc=0 "chmod g+s succeeded"
  expect_no_special_bits_on_host
}

# Every syscall that sets a mode must refuse setuid/setgid (CVE-2018-13405-style privilege files).
case_cred_setuid_via_fchmod() { probe_denied chmod 4755 /workspace/f fchmod; expect_no_special_bits_on_host; }
case_cred_setuid_via_fchmodat() { probe_denied chmod 4755 /workspace/f fchmodat; expect_no_special_bits_on_host; }
case_cred_setgid_via_chmod() { probe_denied chmod 2755 /workspace/f chmod; expect_no_special_bits_on_host; }
case_cred_setuid_via_open_creat() { probe_denied create 4755 /workspace/f open; expect_no_special_bits_on_host; }
case_cred_setuid_via_openat_creat() { probe_denied create 4755 /workspace/f openat; expect_no_special_bits_on_host; }
case_cred_setgid_via_creat() { probe_denied create 2755 /workspace/f creat; expect_no_special_bits_on_host; }
case_cred_setgid_via_mkdir() { probe_denied create 2755 /workspace/d mkdir; expect_no_special_bits_on_host; }

# A setuid-root binary the host copied in gives no privilege inside.
case_cred_setuid_binary_gains_nothing() {
  install -m 4755 -o 0 -g 0 "$ABPROBE" "$WS/suid-probe"
  box -- /workspace/suid-probe caps
  expect_rc 0
  expect_caps_line CapEff 0000000000000000
  local uids
  uids=$(echo "$AB_OUT" | awk '/^Uid:/ {print $2, $3, $4, $5}')
  [[ $uids == "1000 1000 1000 1000" ]] || fail "setuid binary changed the uids: $uids"
  box -- /workspace/suid-probe setuid 0
  [[ $AB_RC == 1 ]] || fail "setuid(0) from a setuid binary succeeded: $AB_OUT"
}

case_cred_setuid_0_refused() { probe_denied setuid 0; probe_denied setgid 0; }
