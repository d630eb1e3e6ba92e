# shellcheck shell=bash
# Namespaces: docs/contract.md §2 "its own PID, IPC, UTS, mount, user and cgroup namespaces" (and net).
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# expect_own_ns NS: the sandbox's NS namespace is not the host's.
expect_own_ns() {
  local host_ns
  host_ns=$(readlink "/proc/self/ns/$1")
  box -- readlink "/proc/self/ns/$1"
  if on_gvisor && [[ $AB_RC != 0 ]]; then
    box -- sh -c "test -e /proc/self/ns/$1 || test -L /proc/self/ns/$1 || echo NO_LINK"
    [[ $AB_OUT == NO_LINK ]] || fail "cannot read /proc/self/ns/$1 inside: $AB_OUT"
    not_applicable "gVisor's /proc has no ns/$1 link to compare; the Sentry is the sandbox's kernel, so it shares no namespace with the host's kernel (the $1 isolation itself is checked by its own cases)"
  fi
  expect_rc 0
  [[ $AB_OUT == "$1:["* ]] || fail "cannot read the $1 namespace inside: $AB_OUT"
  [[ $AB_OUT != "$host_ns" ]] || fail "sandbox shares the host's $1 namespace $host_ns"
}

case_ns_own_pid() { expect_own_ns pid; }
case_ns_own_ipc() { expect_own_ns ipc; }
case_ns_own_uts() { expect_own_ns uts; }
case_ns_own_mnt() { expect_own_ns mnt; }
case_ns_own_user() {
  on_gvisor && not_applicable "under gVisor the box's uids exist only in the Sentry's kernel; on the host the Sentry runs as uid 65534 in a user namespace of its own (checked by cred_host_uid_not_root)"
  expect_own_ns user
}
case_ns_own_cgroup() { expect_own_ns cgroup; }
case_ns_own_net() { expect_own_ns net; }

# Only the sandbox's processes are visible: not the host's, not the test runner.
case_ns_pid_sees_only_sandbox() {
  sh_in "ls /proc | grep -E '^[0-9]+\$' | tr '\n' ' '; echo; ps -e -o pid=,comm= | wc -l; test -e /proc/$$ && echo RUNNER_VISIBLE; true"
  expect_rc 0
  expect_out_lacks RUNNER_VISIBLE "host pid $$ of the test runner visible inside"
  local npids nps
  npids=$(echo "$AB_OUT" | head -1 | wc -w)
  nps=$(echo "$AB_OUT" | sed -n 2p)
  # A host shows hundreds. A container box (one PID namespace for all its execs) holds the agent,
  # its warm handler and the exec init that one prepared, this exec's handler and init, and the
  # pipeline: up to about ten.
  ((npids <= 16)) || fail "$npids pids in /proc: host processes visible?"
  ((nps <= 16)) || fail "ps -e shows $nps processes: host processes visible?"
}

# A host SysV shared memory segment must be invisible (IPC namespace).
case_ns_ipc_host_shm_invisible() {
  local id
  id=$(ipcmk -M 4096 | awk '{print $NF}')
  [[ -n $id ]] || fail "sanity: ipcmk failed"
  on_exit "ipcrm -m '$id' 2>/dev/null"
  sh_in "awk 'NR>1 {print \$2}' /proc/sysvipc/shm | tr '\n' ' '; echo END"
  ipcrm -m "$id"
  expect_rc 0
  [[ " $AB_OUT " != *" $id "* ]] || fail "host shm segment $id visible inside"
}

case_ns_uts_hostname_is_sandbox() {
  sh_in 'hostname; cat /proc/sys/kernel/hostname'
  expect_rc 0
  [[ $AB_OUT == $'sandbox\nsandbox' ]] || fail "hostname inside: $AB_OUT"
  probe_denied sethostname pwned
  [[ $(hostname) != pwned ]] || fail "the host's hostname changed!"
}

# The sandbox sees itself at the root of its cgroup tree (cgroup namespace): no host layout leaks.
case_ns_cgroup_root_is_slash() {
  box -- cat /proc/self/cgroup
  expect_rc 0
  if on_gvisor && [[ -z $AB_OUT ]]; then
    sh_in 'ls -A /sys/fs/cgroup 2>/dev/null; echo LISTED'
    [[ $AB_OUT == LISTED ]] || fail "under gVisor /sys/fs/cgroup shows: $(echo "$AB_OUT" | tr '\n' ' ')"
    not_applicable "gVisor shows the sandbox no cgroup tree at all (empty /proc/self/cgroup and /sys/fs/cgroup: checked), so there is no root to compare"
  fi
  [[ -n $AB_OUT ]] || fail "empty /proc/self/cgroup"
  local bad
  bad=$(echo "$AB_OUT" | awk -F: '$3 != "/"' | head -3)
  [[ -z $bad ]] || fail "cgroup paths are not /: $bad"
}

# The sandbox's mount table is its own: none of the host's mount points (cgroupfs, /run, /home,
# /boot, the host's own /tmp) appear in it.
case_ns_mount_table_private() {
  box -- cat /proc/self/mountinfo
  expect_rc 0
  local bad
  # Docker mounts the container's own read-only cgroup view (cgroup namespace) at /sys/fs/cgroup.
  local host_dirs='sys/fs/cgroup|run|home|root|boot|var|mnt|media'
  [[ $AB_BACKEND == docker ]] && host_dirs='run|home|root|boot|var|mnt|media'
  bad=$(echo "$AB_OUT" | awk '{print $5}' | grep -E "^/($host_dirs)(/|\$)" | head -3)
  [[ -z $bad ]] || fail "host mount points inside: $bad"
  [[ $AB_OUT != *" $CASE_DIR "* ]] || fail "the host's $CASE_DIR is a mount point inside"
}
