# shellcheck shell=bash
# Filesystem: read-only root, /workspace the only writable host-backed path, host dirs invisible,
# private size-capped /tmp and /dev/shm, minimal /dev, own /proc, no /sys or cgroupfs writes.
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# write_refused PATH...: every path must refuse a write from inside.
write_refused() {
  local p
  for p in "$@"; do
    box -- /workspace/abprobe write "$p"
    [[ $AB_RC == 1 ]] || fail "write to $p was not refused (rc=$AB_RC: $AB_OUT)"
  done
}

case_fs_usr_read_only() { write_refused /usr/abtest /usr/bin/abtest /usr/lib/abtest; }
case_fs_etc_read_only() { write_refused /etc/abtest /etc/passwd /etc/hosts; }
case_fs_root_read_only() {
  write_refused /abtest
  sh_in 'mkdir /abtest-dir 2>&1; echo rc=$?'
  expect_out_lacks rc=0 "mkdir / succeeded"
}
case_fs_bin_read_only() { write_refused /bin/abtest /sbin/abtest /lib/abtest; }

# rm -rf /usr must fail and leave /usr intact. Guarded: it only runs once /usr was shown to be
# read-only, so a broken build cannot wipe the host.
case_fs_rm_rf_usr_fails() {
  write_refused /usr/bin/abtest
  sh_in 'timeout 10 rm -rf /usr/share/doc /usr/bin >/dev/null 2>&1; echo rm=$?; test -x /usr/bin/sh && echo SH_STILL_THERE'
  expect_out_lacks rm=0 "rm -rf succeeded"
  expect_out_has SH_STILL_THERE
  [[ -x /usr/bin/sh && -d /usr/share/doc ]] || fail "host /usr was damaged!"
}

# expect_host_dir_invisible DIR: a marker the host puts in DIR must not be visible inside, and
# DIR inside, if it exists at all, must be empty.
expect_host_dir_invisible() {
  local dir=$1 mark
  mark=$dir/.abtest-$(new_marker)
  touch "$mark" || fail "cannot create host marker $mark"
  on_exit "rm -f '$mark'"
  sh_in "test -e '$mark' && echo MARK_VISIBLE; ls -A '$dir' 2>/dev/null | head -5"
  rm -f "$mark"
  expect_out_lacks MARK_VISIBLE "host $dir is visible inside"
  [[ -z $AB_OUT ]] || fail "$dir inside is not empty: $(echo "$AB_OUT" | tr '\n' ' ')"
}

case_fs_host_home_invisible() { mkdir -p /home; expect_host_dir_invisible /home; }
case_fs_host_root_home_invisible() { expect_host_dir_invisible /root; }
case_fs_host_run_invisible() { expect_host_dir_invisible /run; }
case_fs_host_var_invisible() { expect_host_dir_invisible /var/tmp; }

# The host's /tmp (sockets, other users' files) is not the sandbox's /tmp.
case_fs_host_tmp_invisible() {
  local mark
  mark=/tmp/abtest-host-$(new_marker)
  echo secret >"$mark"
  sh_in "cat '$mark' 2>/dev/null; ls -A /tmp"
  rm -f "$mark"
  expect_rc 0
  expect_out_lacks secret "host /tmp file readable inside"
  expect_out_lacks abtest "host /tmp entries listed inside"
}

# expect_private_gone DIR: a file written to DIR in one run is not seen by the next run,
# nor anywhere on the host.
expect_private_gone() {
  local dir=$1 mark
  mark=abtest-$(new_marker)
  sh_in "echo data >$dir/$mark && echo WROTE"
  expect_out_has WROTE "$dir not writable inside"
  sh_in "ls -A $dir"
  expect_out_lacks "$mark" "$dir content survived into the next sandbox"
  [[ ! -e /tmp/$mark && ! -e /dev/shm/$mark ]] || fail "$dir file landed in the host's $dir"
}

case_fs_tmp_private_and_gone() { expect_private_gone /tmp; }
case_fs_devshm_private_and_gone() { expect_private_gone /dev/shm; }

# expect_size_capped DIR MB: writing MB megabytes into DIR fails with ENOSPC, not with an OOM
# kill and not by filling host memory.
expect_size_capped() {
  box --memory 1G -- sh -c "dd if=/dev/zero of=$1/fill bs=1M count=$2 2>&1; echo dd=\$?"
  expect_rc 0 "the sandbox must survive a full $1"
  expect_out_has "No space left on device" "$1 is not size-capped"
}

case_fs_tmp_size_capped() { expect_size_capped /tmp 600; }
case_fs_devshm_size_capped() { expect_size_capped /dev/shm 300; }

# A symlink planted in the workspace must not let writes reach the sandbox's (or host's) /etc.
case_fs_workspace_symlink_to_etc() {
  local before
  before=$(sha256sum /etc/passwd)
  sh_in 'ln -s /etc/passwd /workspace/x && echo pwned >/workspace/x 2>/dev/null; echo rc=$?'
  expect_out_lacks rc=0 "write through the symlink succeeded"
  [[ $(sha256sum /etc/passwd) == "$before" ]] || fail "host /etc/passwd changed!"
}

case_fs_proc_sys_not_writable() {
  write_refused /proc/sys/kernel/hostname /proc/sys/vm/drop_caches /proc/sys/kernel/core_pattern
}

# /proc/sysrq-trigger would let the box reboot or crash the host. Where the kernel has it
# (CONFIG_MAGIC_SYSRQ, e.g. Debian's), agentbox masks it with /dev/null: a write then succeeds
# and goes nowhere. So what must hold: the path is absent, or it is the null device, or the
# write is refused.
case_fs_proc_sysrq_trigger_not_writable() {
  box -- sh -c 'if [ -e /proc/sysrq-trigger ]; then stat -c "%F %t:%T" /proc/sysrq-trigger; else echo ABSENT; fi
    /workspace/abprobe write /proc/sysrq-trigger'
  [[ $AB_OUT == ABSENT* || $AB_OUT == "character special file 1:3"* || $AB_OUT == *"FAIL errno="* ]] ||
    fail "/proc/sysrq-trigger is neither absent, masked by /dev/null, nor refused: $AB_OUT"
}

# At least what runc and Docker hide of /proc by default: files that show host state to whoever
# reads them (kernel memory, keys, every host timer and its process) read empty or are absent,
# directories of host hardware are empty or absent, and /proc/{bus,fs,irq,sys} are read-only
# mounts where they exist (policy/mount_plan.cc ProcMounts; Docker's defaults on docker).
case_fs_proc_host_state_hidden() {
  sh_in 'for f in /proc/kcore /proc/keys /proc/latency_stats /proc/timer_list /proc/timer_stats /proc/sched_debug; do
           [ -e $f ] && echo "$f holds $(head -c 4096 $f 2>/dev/null | wc -c)"; done
         for d in /proc/acpi /proc/asound /proc/scsi; do [ -d $d ] && echo "$d holds $(ls -A $d | wc -l)"; done
         for d in /proc/bus /proc/fs /proc/irq /proc/sys; do
           [ -d $d ] || continue
           grep -q " $d ro," /proc/self/mountinfo && echo "$d ro" || echo "$d WRITABLE"; done
         echo end'
  expect_out_has end
  [[ $AB_OUT =~ (/proc/[a-z_]+)\ holds\ [1-9] ]] && fail "${BASH_REMATCH[1]} shows host state inside: $AB_OUT"
  # gVisor's /proc is the Sentry's own, not mounts of the host's procfs: its writes are refused
  # by the Sentry (case_fs_proc_sys_not_writable), whatever mountinfo says.
  on_gvisor && return 0
  [[ $AB_OUT =~ (/proc/[a-z]+)\ WRITABLE ]] && fail "${BASH_REMATCH[1]} is not a read-only mount: $AB_OUT"
  return 0
}

case_fs_etc_shadow_unreadable() {
  box -- /workspace/abprobe read /etc/shadow
  [[ $AB_RC == 1 ]] || fail "/etc/shadow readable inside: $AB_OUT"
}

# No host /sys writes (uevent_helper ran a host binary as root: the classic container escape).
case_fs_sys_not_writable() {
  write_refused /sys/kernel/uevent_helper /sys/kernel/mm/transparent_hugepage/enabled \
    /sys/class/net/lo/mtu
}

# No cgroupfs writes: release_agent (CVE-2022-0492) and moving oneself out of the limits.
case_fs_cgroupfs_not_writable() {
  write_refused /sys/fs/cgroup/release_agent /sys/fs/cgroup/memory/release_agent \
    /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/memory/cgroup.procs
  sh_in 'mkdir /sys/fs/cgroup/memory/abtest 2>/dev/null && echo MKDIR_OK; true'
  expect_out_lacks MKDIR_OK "created a cgroup"
  probe_denied mount /tmp
}

# /dev holds exactly the documented nodes (plus pts/ptmx/shm and the fd links).
case_fs_dev_is_minimal() {
  local allowed=" null zero full random urandom tty pts ptmx shm fd stdin stdout stderr " e
  # Docker always mounts the container's own POSIX message queue fs (its private IPC namespace).
  [[ $AB_BACKEND == docker ]] && allowed+="mqueue "
  # gVisor adds its own /dev/fuse and /dev/net/tun, Sentry devices (not the host's), which need
  # mount and CAP_NET_ADMIN to do anything: shown inert here.
  if on_gvisor; then
    allowed+="fuse net "
    probe_eperm tunsetiff
    probe_eperm read /dev/fuse
  fi
  sh_in 'ls -A /dev'
  expect_rc 0
  for e in $AB_OUT; do
    [[ $allowed == *" $e "* ]] || fail "unexpected /dev entry: $e (all: $(echo "$AB_OUT" | tr '\n' ' '))"
  done
  for e in null zero full random urandom tty pts; do
    [[ " $(echo "$AB_OUT" | tr '\n' ' ') " == *" $e "* ]] || fail "/dev/$e missing"
  done
}

# Raw disks, physical memory and the kernel log must not exist inside.
case_fs_no_disk_mem_kmsg_nodes() {
  sh_in 'for d in sda vda nvme0n1 mem kmem port kmsg console; do test -e /dev/$d && echo HAS_$d; done; true'
  expect_rc 0
  expect_out_lacks HAS_ "dangerous /dev nodes present"
}

case_fs_dev_nodes_work() {
  sh_in 'echo x >/dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c && /workspace/abprobe write /dev/full'
  expect_out_has "errno=ENOSPC" "/dev/full must refuse writes with ENOSPC"
  [[ $(echo "$AB_OUT" | grep -c '^4$') == 2 ]] || fail "/dev/zero or /dev/urandom unreadable"
}

# Device nodes stay refused now that FIFOs and sockets are allowed: by the filter (EPERM on the
# file-type bits, through both syscalls, in /workspace and /tmp) ...
case_fs_mknod_refused() {
  local dir type via
  for dir in /workspace /tmp; do
    for type in char block; do
      for via in mknod mknodat; do
        probe_eperm mknod "$dir/dev-$type-$via" "$type" "$via"
      done
    done
  done
  sh_in 'ls /workspace/dev-* /tmp/dev-* 2>/dev/null; echo LISTED'
  expect_out_lacks dev- "a refused device node was left behind"
}

# ... and by the user namespace, the wall behind the filter: there even root with every
# capability cannot make one (run on the host, without the filter, in a user namespace of its own).
case_fs_mknod_refused_by_user_namespace_too() {
  AB_OUT=$("$ABPROBE" mknod-userns "$WS/userns" 2>&1)
  AB_RC=$?
  echo "abprobe mknod-userns: rc=$AB_RC $AB_OUT"
  [[ $AB_RC != 2 ]] || skip "no user namespace for the probe on this host: $AB_OUT"
  [[ $AB_RC == 1 && $AB_OUT == *"errno=EPERM"* ]] ||
    fail "a user namespace let a device node be made (rc=$AB_RC: $AB_OUT)"
}

# CVE-2019-5736: the sandbox must not be able to overwrite the binary that runs it.
case_fs_proc_exe_not_writable() {
  local before
  before=$(sha256sum "$AGENTBOX")
  sh_in 'for p in /proc/1/exe /proc/self/exe; do (echo x >>"$p") 2>/dev/null && echo WROTE_$p; done; true'
  expect_out_lacks WROTE_ "a /proc/*/exe was writable"
  [[ $(sha256sum "$AGENTBOX") == "$before" ]] || fail "the agentbox binary changed!"
}

# CVE-2024-21626: no fd, cwd or root of the sandbox's init may be a host directory (through
# /proc/1/fd/N/.. a command would walk the host's tree). A directory link is fine only when it
# shows the same entries as the path it names inside the box.
case_fs_init_links_stay_inside() {
  sh_in 'for l in /proc/1/cwd /proc/1/root /proc/1/fd/*; do
           [ -d "$l" ] || continue
           t=$(readlink "$l") || continue
           if [ -d "$t" ] && [ "$(ls -A "$l/" 2>&1)" = "$(ls -A "$t/" 2>&1)" ]; then echo "same $l -> $t"
           else echo "HOSTDIR $l -> $t"; fi
         done; echo DONE'
  expect_out_has DONE
  expect_out_lacks HOSTDIR "the sandbox init holds a directory from outside the box"
}
