# shellcheck shell=bash
# Seccomp: every denial docs/contract.md §2 lists, tried through the raw-syscall probe. The probe exits 1
# when the call failed; where the kernel alone would fail with another errno (ENOTTY, ...), the
# case insists on the filter's EPERM so a missing rule cannot hide behind an unrelated error.
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# io_uring: a kernel attack surface with a long CVE list (CVE-2022-29582, CVE-2023-2598).
case_seccomp_io_uring_setup() { probe_eperm io_uring_setup; }
# bpf: verifier bugs are root exploits (CVE-2021-3490, CVE-2022-23222).
case_seccomp_bpf() { probe_eperm bpf; }
# userfaultfd: turns kernel races into reliable exploits (CVE-2021-22555 exploit chain).
case_seccomp_userfaultfd() { probe_eperm userfaultfd; }
# keyctl and friends: the kernel keyring is not namespaced (CVE-2016-0728).
case_seccomp_keyctl() { probe_eperm keyctl; }
case_seccomp_add_key() { probe_eperm add_key; }
case_seccomp_request_key() { probe_eperm request_key; }
# perf_event_open: CVE-2013-2094, CVE-2023-2235.
case_seccomp_perf_event_open() { probe_eperm perf_event_open; }
# ptrace and process_vm_*: reading or steering other processes (CVE-2019-13272).
case_seccomp_ptrace_traceme() { probe_eperm ptrace traceme; }
case_seccomp_ptrace_attach_pid1() { probe_eperm ptrace attach 1; }
case_seccomp_process_vm_readv() { probe_eperm process_vm_readv; }

# Namespace creation: nested user namespaces reopen every capability-gated kernel path
# (CVE-2022-0185, CVE-2023-32233).
case_seccomp_unshare_user() { probe_eperm unshare user; }
case_seccomp_unshare_mnt() { probe_eperm unshare mnt; }
case_seccomp_unshare_pid() { probe_eperm unshare pid; }
case_seccomp_unshare_net() { probe_eperm unshare net; }
case_seccomp_unshare_ipc() { probe_eperm unshare ipc; }
case_seccomp_unshare_uts() { probe_eperm unshare uts; }
case_seccomp_unshare_cgroup() { probe_eperm unshare cgroup; }
case_seccomp_unshare_time() { probe_eperm unshare time; }
case_seccomp_clone_newuser() { probe_eperm clone user; }
case_seccomp_clone_newns() { probe_eperm clone mnt; }
case_seccomp_clone_newnet() { probe_eperm clone net; }
case_seccomp_setns() { probe_eperm setns net; }

# clone3 keeps its flags in memory the filter cannot read: it must be refused outright, with
# ENOSYS so libc falls back to clone(2), whose flags the filter does see.
case_seccomp_clone3_enosys() {
  probe_denied clone3 user
  [[ $AB_OUT == *"errno=ENOSYS"* ]] || fail "clone3: want ENOSYS, got: $AB_OUT"
}

# Plain fork/threads still work: the filter must not break ordinary programs.
case_seccomp_plain_fork_and_threads_work() {
  sh_in '/workspace/abprobe thread; (echo FORK_OK)'
  expect_rc 0
  expect_out_has THREAD_OK
  expect_out_has FORK_OK
}

# Mounts.
case_seccomp_mount() { probe_eperm mount /tmp; }
case_seccomp_umount() { probe_eperm umount /proc; }
case_seccomp_pivot_root() { probe_eperm pivot_root; }
case_seccomp_fsopen() { probe_eperm fsopen; }
# CVE-2014-3519 "shocker": open_by_handle_at reached host files by inode number.
case_seccomp_open_by_handle_at() { probe_eperm open_by_handle_at /workspace; }

# Host-wide kernel state.
case_seccomp_kexec_load() { probe_eperm kexec_load; }
case_seccomp_kexec_file_load() { probe_eperm kexec_file_load; }
case_seccomp_reboot() { probe_eperm reboot; }
case_seccomp_init_module() { probe_eperm init_module; }
case_seccomp_finit_module() { probe_eperm finit_module; }
case_seccomp_delete_module() { probe_eperm delete_module; }
case_seccomp_swapon() { probe_eperm swapon; }
case_seccomp_swapoff() { probe_eperm swapoff; }
case_seccomp_syslog() { probe_eperm syslog; }
case_seccomp_settimeofday() { probe_eperm settimeofday; }
case_seccomp_clock_settime() { probe_eperm clock_settime; }
case_seccomp_iopl() { probe_denied iopl 3; }
case_seccomp_ioperm() { probe_denied ioperm; }

# Unusual personality flags: ADDR_NO_RANDOMIZE defeats ASLR, READ_IMPLIES_EXEC makes data
# executable (CVE-2009-1895 used personality to map page zero).
case_seccomp_personality_addr_no_randomize() { probe_denied personality 0x0040000; }
case_seccomp_personality_read_implies_exec() { probe_denied personality 0x0400000; }

# Socket families with a history of kernel bugs (AF_PACKET CVE-2016-8655, AF_ALG
# CVE-2019-8912, AF_VSOCK CVE-2021-26708) or a path off the box. The filter answers
# EAFNOSUPPORT, what the kernel says of a family it lacks, so programs fall back gracefully.
# (Without the filter AF_VSOCK succeeds here and AF_PACKET fails with EPERM.)
case_seccomp_socket_af_packet() { probe_errno EAFNOSUPPORT socket packet; }
case_seccomp_socket_af_alg() { probe_errno EAFNOSUPPORT socket alg; }
case_seccomp_socket_af_vsock() { probe_errno EAFNOSUPPORT socket vsock; }
case_seccomp_socket_af_inet_allowed() {
  box -- /workspace/abprobe socket inet
  expect_rc 0 "AF_INET sockets (for loopback) must stay allowed"
}
case_seccomp_socket_af_unix_allowed() {
  box -- /workspace/abprobe socket unix
  expect_rc 0 "AF_UNIX sockets must stay allowed"
}

# CVE-2016-7545 / CVE-2017-5226: TIOCSTI pushes keystrokes into a terminal. Without the filter
# these ioctls on a non-tty fail with ENOTTY; the filter must say EPERM first, and must compare
# only the low 32 bits of the request (the kernel ignores the rest).
case_seccomp_tiocsti_fd0() { probe_eperm tiocsti 0; }
case_seccomp_tiocsti_fd0_high_bits() { probe_eperm tiocsti 0 high; }
case_seccomp_tiocsti_dev_tty() { probe_denied tiocsti /dev/tty; }
case_seccomp_tiocsti_pty() { probe_eperm tiocsti ptmx; }
case_seccomp_tiocsti_pty_high_bits() { probe_eperm tiocsti ptmx high; }
case_seccomp_tioclinux() { probe_eperm tioclinux 0; }
case_seccomp_tioclinux_high_bits() { probe_eperm tioclinux 0 high; }

# expect_sigsys_kill PROBE-CMD: the probe must be killed by SIGSYS (31), not merely refused.
expect_sigsys_kill() {
  boxj -- /workspace/abprobe "$@"
  json_assert 'r["signal"] == 31 and r["exit_code"] == 159 and r["reason"] == "signaled"' \
    "abprobe $* was not killed by SIGSYS"
}

# x32 syscall numbers (nr | 0x40000000) bypass filters written for x86_64 numbers.
case_seccomp_x32_abi_killed() { expect_sigsys_kill x32; }

# int 0x80 enters the i386 syscall table, where numbers mean other calls. Where the host kernel
# has no ia32 emulation the instruction faults (SIGSEGV) before any syscall runs: also safe.
# gVisor has no i386 table: its int 0x80 runs the x86_64 one, so there no number can mean another
# call, and what must hold is that the filter answers it: keyctl (x86_64 number 250), denied,
# returns -EPERM through int 0x80 as through syscall.
case_seccomp_i386_int80_killed() {
  if on_gvisor; then
    boxj -- /workspace/abprobe int80 250
    json_assert 'r["stdout"].strip() == "SURVIVED int 0x80 rc=-1" or r["signal"] == 31' \
      "keyctl through int 0x80 was not refused with EPERM (or killed) under gVisor"
    return 0
  fi
  local host_says
  host_says=$(timeout 5 "$ABPROBE" int80 2>&1)
  if [[ $host_says == SURVIVED* ]]; then
    expect_sigsys_kill int80
  else
    boxj -- /workspace/abprobe int80
    json_assert 'r["signal"] in (31, 11) and r["stdout"] == ""' "int 0x80 syscall ran inside"
  fi
}
