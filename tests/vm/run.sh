#!/usr/bin/env bash
# tests/vm/run.sh: the native suites on real cgroup v2 and an LTS kernel, in a qemu guest.
#
# Boots Debian's linux-image-amd64 (6.1 LTS on bookworm) under qemu-system-x86_64 with TCG (no
# KVM needed) on a small root made from this host's own Debian packages (tests/vm/images.sh;
# cached under VM_CACHE), with cgroup v2 alone and its memory, pids and cpu controllers, and runs
# the native suites there as root, exactly as on a host. It also boots the kernel without what
# the native backend needs (user.max_user_namespaces=0; cgroup_disable=memory) and checks that
# `run` and `create` exit 125 naming what is missing and run nothing.
#
# The guest also has, for the disk-quota work: loop, btrfs, xfs and ext4 quota modules loaded at
# boot, e2fsprogs, btrfs-progs, xfsprogs and quota's tools; its root is ext4 with user, group and
# project quotas on; /dev/vdc is a blank 4 GiB scratch disk.
#
# Usage:
#   tests/vm/run.sh                      the lane (what ctest's vm_cgroup2 runs; VM_LANE below)
#   tests/vm/run.sh STEP...              only those steps, in one boot:
#       SUITE                            tests/SUITE/run.sh: integration security conformance faults leak
#       SUITE:REGEX                      only its cases matching REGEX, e.g. security:seccomp_ or
#                                        leak:'^leak_create_exec_rm$'
#       failclosed:userns                user namespaces off: run/create must exit 125
#       failclosed:memory                (boots with cgroup_disable=memory) the same for the controller
#   tests/vm/run.sh --all                every case of the five suites (~2x the lane's time)
#   tests/vm/run.sh --shell [STEP...]    the steps, then a root shell on the console
#                                        (echo o >/proc/sysrq-trigger powers off)
#   options: --keep  keep the work dir (console log, run image)   --verbose  VERBOSE=1 for the suites
#
# Environment: AGENTBOX (the binary under test; default build/agentbox; agentbox-agent is taken
# beside it), ABPROBE (default build/tests/abprobe), VM_CACHE (default build/vm: kernel, initramfs, root image), VM_CPUS (2),
# VM_MEMORY (MiB, 3072), VM_TIMEOUT (seconds per boot, 1800), CI (passed to the suites: under
# CI=true a skip is a failure, and so is a host without qemu).
# Exit: 0 all passed, 1 a failure, 77 skipped (this host cannot run qemu; never under CI=true).
set -uo pipefail
VM_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_SRC=$(cd "$VM_HERE/../.." && pwd)
AGENTBOX=${AGENTBOX:-$VM_SRC/build/agentbox}
VM_BUILD=$(cd "$(dirname "$AGENTBOX")" && pwd)
ABPROBE=${ABPROBE:-$VM_BUILD/tests/abprobe}
VM_CACHE=${VM_CACHE:-$VM_BUILD/vm}
VM_CPUS=${VM_CPUS:-2}
VM_MEMORY=${VM_MEMORY:-3072}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VM_CPU=${VM_CPU:-max}
# What the lane runs, and why. TCG runs the guest 10-15x slower than the host (a case costs 4-40 s
# there), and the lane must keep the whole CI under 40 minutes (~23 without it), so ~12 minutes.
# Measured (docs/testing.md): integration 299 s, conformance 290 s, faults 434 s (its serve
# under 20 clients alone is most of it), leak at 3 cycles 105 s, the security subset 203 s.
# The lane runs: integration whole (limits, OOM, pids, cpu, the result's counters: what reads
# cgroup v2); faults' crash and gc cases (each sandbox's cgroup left or removed), not serve
# under load (an HTTP stress, the same on any cgroup version) nor the disk cases (being
# replaced); leak with 3 cycles per case (create/exec/cp/rm and run, with a check that no
# cgroup, process or mount is left: the lifecycle conformance also covers); of security the
# cases about cgroups and the process tree (limits_, cleanup_, ns_, fs_cgroupfs) and the
# kernel's ABI gates (seccomp_i386, seccomp_x32); of images the overlay root on a 6.1 kernel (one
# lowerdir string: no lowerdir+ before 6.8), whiteouts, a persistent sandbox and a token-auth
# pull of a manifest list; then user namespaces off (same boot) and a
# second, short boot without the memory controller. --all runs every case of the five suites
# (conformance too; ~25 minutes).
VM_LANE=(integration 'faults:^(exec_cli|agent_|crashed_|gc_)' leak
  'security:^(limits_|cleanup_|ns_|fs_cgroupfs|seccomp_i386|seccomp_x32)'
  'images:^(load_docker_save_and_run|whiteouts_and_opaque_dirs|agent_is_pid1_in_image_sandbox|pull_token_auth_manifest_list)$'
  failclosed:userns)
VM_LANE_MEMORY=(failclosed:memory)
VM_ALL=(integration security conformance faults leak images failclosed:userns)

# shellcheck source=tests/vm/images.sh
source "$VM_HERE/images.sh"

skip_or_fail() {
  if [[ ${CI:-} == true ]]; then
    echo "vm: $1 (a failure under CI=true: scripts/install-deps.sh vm installs it)"
    echo "0 passed, 1 failed"
    exit 1
  fi
  echo "SKIP vm_cgroup2: $1 (scripts/install-deps.sh vm installs it)"
  exit 77
}

check_host() {
  local t
  for t in qemu-system-x86_64 mkfs.ext4 cpio busybox modprobe depmod apt-get dpkg-deb; do
    command -v "$t" >/dev/null || skip_or_fail "$t is missing"
  done
}

# boot NAME EXTRA_CMDLINE STEP...: one boot running STEPs; its console goes to stdout and
# $VM_WORK/NAME.log.
boot() {
  local name=$1 extra=$2 job step s
  job=$VM_WORK/$name.job
  shift 2
  {
    echo "VM_STEPS=("
    for step in "$@"; do
      case $step in
        failclosed:*) printf '  %q\n' "failclosed ${step#*:}" ;;
        shell) printf '  shell\n' ;;
        *:*) printf '  %q\n' "suite ${step%%:*} ${step#*:}" ;;
        *) printf '  %q\n' "suite $step" ;;
      esac
    done
    echo ")"
    printf 'export CI=%q VERBOSE=%q\n' "${CI:-}" "${VERBOSE:-}"
    # TCG runs the guest ~10x slower than the host: the per-case hang guards get room (a hung
    # case still ends), and the leak suite does fewer cycles (each one the same code path).
    printf 'export H_CASE_TIMEOUT=%q CASE_TIMEOUT=%q H_CALL_TIMEOUT=%q CALL_TIMEOUT=%q LEAK_CYCLES=%q\n' \
      "${H_CASE_TIMEOUT:-240}" "${CASE_TIMEOUT:-400}" "${H_CALL_TIMEOUT:-120}" "${CALL_TIMEOUT:-120}" \
      "${LEAK_CYCLES:-8}"
  } >"$job"
  vm_runimage "$job"
  truncate -s 4G "$VM_WORK/scratch.img"
  local serial=(-serial "file:/dev/stdout")
  [[ $interactive == 1 ]] && serial=(-serial stdio)
  s=$SECONDS
  echo "vm: booting $VM_KVER ($name: $*)"
  # pdeathsig at both ends: if this script is killed (a ctest timeout, SIGKILL), timeout and
  # qemu die with it instead of running on.
  setpriv --pdeathsig KILL timeout -s KILL "$VM_TIMEOUT" setpriv --pdeathsig KILL \
    qemu-system-x86_64 -accel tcg,thread=multi -cpu "$VM_CPU" -smp "$VM_CPUS" -m "$VM_MEMORY" \
    -nodefaults -no-user-config -display none "${serial[@]}" -no-reboot -nic none \
    -kernel "$VM_VMLINUZ" -initrd "$VM_INITRD" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 cgroup_no_v1=all $extra" \
    -drive "file=$VM_SYSIMG,format=raw,if=virtio,snapshot=on,cache=unsafe" \
    -drive "file=$VM_RUNIMG,format=raw,if=virtio,readonly=on" \
    -drive "file=$VM_WORK/scratch.img,format=raw,if=virtio,cache=unsafe" \
    -device virtio-rng-pci \
    <"$stdin_of_qemu" | sed -u 's/\r$//' | tee "$VM_WORK/$name.log"
  echo "vm: $name boot took $((SECONDS - s)) s"
  grep -qa '^agentbox-vm: exit 0$' "$VM_WORK/$name.log" && return 0
  grep -qa '^agentbox-vm: exit ' "$VM_WORK/$name.log" ||
    echo "vm: $name: the guest did not finish (no 'agentbox-vm: exit' line; killed after ${VM_TIMEOUT}s?)"
  return 1
}

main() {
  local keep=0 steps=() memory_steps=() rc=0 s all=0
  interactive=0
  stdin_of_qemu=/dev/null
  while (($#)); do
    case $1 in
      --keep) keep=1 ;;
      --verbose) export VERBOSE=1 ;;
      --shell) interactive=1; stdin_of_qemu=/dev/stdin ;;
      --all) steps+=("${VM_ALL[@]}"); memory_steps+=("${VM_LANE_MEMORY[@]}"); all=1 ;;
      -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      failclosed:memory) memory_steps+=("$1") ;;
      -*) echo "vm: unknown option $1" >&2; exit 2 ;;
      *) steps+=("$1") ;;
    esac
    shift
  done
  if ((${#steps[@]} == 0 && ${#memory_steps[@]} == 0 && !interactive)); then
    steps=("${VM_LANE[@]}")
    memory_steps=("${VM_LANE_MEMORY[@]}")
    : "${LEAK_CYCLES:=3}"
  fi
  ((all)) && : "${LEAK_CYCLES:=8}"
  ((interactive)) && steps+=(shell)
  check_host
  mkdir -p "$VM_CACHE"
  VM_WORK=$(mktemp -d /tmp/abvm.XXXXXX)
  ((keep)) || trap 'rm -rf "$VM_WORK"' EXIT
  s=$SECONDS
  vm_kernel
  vm_initramfs
  vm_sysimage
  echo "vm: images ready in $((SECONDS - s)) s (cache $VM_CACHE)"
  if ((${#steps[@]})); then boot main "" "${steps[@]}" || rc=1; fi
  if ((${#memory_steps[@]})); then boot nomemory "cgroup_disable=memory" "${memory_steps[@]}" || rc=1; fi
  ((keep)) && echo "vm: console logs kept in $VM_WORK"
  # One line for the whole lane: the sum of every step's own count. A lane in which no case ran
  # (a guest that printed nothing) is a failure, never a silent pass.
  cat "$VM_WORK"/*.log | grep -aoE '^agentbox-vm: [^:]+: [0-9]+ passed, [0-9]+ failed' |
    awk -v rc=$rc -v t=$((SECONDS - s)) '{p += $(NF-3); f += $(NF-1)} END {
      if (p + f == 0) print "vm: no step reported a count: the guest ran no case"
      if ((rc != 0 || p + f == 0) && f == 0) f = 1
      printf "vm: the lane took %d s\nvm_cgroup2: %d passed, %d failed\n", t, p, f
      exit (f > 0) }' || rc=1
  return $rc
}

main "$@"
