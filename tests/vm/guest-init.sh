#!/bin/bash
# guest-init.sh: PID 1 of the tests/vm guest (installed there as /sbin/agentbox-vm-init).
#
# Mounts what a host has (proc, sys, cgroup2 alone at /sys/fs/cgroup, devpts, /run, /dev/shm),
# loads the modules the disk-quota work needs (loop, btrfs, xfs, ext4 quota formats), mounts the
# run image (/dev/vdb: binaries, the repo's tests, the job) at /opt/agentbox, then runs the job's
# steps and powers off. The console (ttyS0) is the report: every step's own output, then
#   agentbox-vm: STEP: N passed, N failed
# per step and `agentbox-vm: exit RC` last, which tests/vm/run.sh reads.
#
# The job (/opt/agentbox/job, bash) sets VM_STEPS, each one of:
#   "suite NAME [REGEX]"   tests/NAME/run.sh [REGEX] against the native backend
#   "failclosed userns"    with user.max_user_namespaces=0, `run`/`create` exit 125 naming it
#   "failclosed memory"    (boot with cgroup_disable=memory) the same, naming the memory controller
#   "shell"                an interactive shell on the console (tests/vm/run.sh --shell)
# and may export CI, VERBOSE, H_CASE_TIMEOUT, CASE_TIMEOUT and the like for the suites.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
# Cases that need what only a full host has (build tools) say N/A here, never skip silently.
export AGENTBOX_VM_GUEST=1
VM_RC=0

power_off() {
  sync
  echo o >/proc/sysrq-trigger
  sleep 10  # sysrq poweroff is asynchronous; PID 1 must not exit meanwhile (that panics)
}
trap 'echo "agentbox-vm: guest init failed at line $LINENO"; echo "agentbox-vm: exit 1"; power_off' ERR

mount_host_like() {
  mount -t proc proc /proc
  mount -t sysfs sysfs /sys
  mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
  mkdir -p /dev/pts /dev/shm
  mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
  mount -t tmpfs -o mode=1777 tmpfs /dev/shm
  mount -t tmpfs -o mode=755 tmpfs /run
  ln -sf /proc/self/fd /dev/fd
  ln -sf /proc/self/fd/0 /dev/stdin
  ln -sf /proc/self/fd/1 /dev/stdout
  ln -sf /proc/self/fd/2 /dev/stderr
  mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
  mount -o remount,rw /
  hostname agentbox-vm
  ip link set lo up
}

load_modules() {
  local m
  # The list is tests/vm/images.sh's VM_BOOT_MODULES, written into the image.
  for m in $(cat /etc/agentbox-vm-modules); do
    modprobe "$m" || echo "agentbox-vm: modprobe $m failed"
  done
}

# A host's view of itself, on the console, before anything runs.
describe() {
  echo "agentbox-vm: kernel $(uname -r), $(nproc) CPU(s), $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
  echo "agentbox-vm: cmdline $(cat /proc/cmdline)"
  echo "agentbox-vm: cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
  echo "agentbox-vm: user.max_user_namespaces=$(cat /proc/sys/user/max_user_namespaces)"
  echo "agentbox-vm: modules: $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
  echo "agentbox-vm: root: $(findmnt -no FSTYPE,OPTIONS /)"
  [[ -b /dev/vdc ]] && echo "agentbox-vm: scratch disk /dev/vdc ($(($(blockdev --getsize64 /dev/vdc) >> 20)) MiB, unformatted)"
  return 0
}

# step_summary NAME LOG: reads the suite's last "N passed, N failed" line from LOG.
step_summary() {
  local line
  line=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -1)
  [[ $line == "0 passed, 0 failed"* ]] && line="no case ran (0 passed, 1 failed)"
  echo "agentbox-vm: $1: ${line:-no summary line (0 passed, 1 failed)}"
  [[ $line =~ ^[0-9]+\ passed,\ 0\ failed ]] || VM_RC=1
}

run_suite() {
  local suite=$1 regex=${2:-} log=/run/suite.log rc=0
  local start=$SECONDS
  echo "agentbox-vm: ---- suite $suite${regex:+ (cases matching $regex)}"
  AGENTBOX=/opt/agentbox/bin/agentbox ABPROBE=/opt/agentbox/bin/abprobe AGENTBOX_SRC=/opt/agentbox/src \
    bash "/opt/agentbox/src/tests/$suite/run.sh" ${regex:+"$regex"} </dev/null 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  echo "agentbox-vm: suite $suite took $((SECONDS - start)) s, exit $rc"
  step_summary "suite $suite" "$log"
  ((rc == 0)) || VM_RC=1
}

# failclosed WHAT: the host cannot give the isolation, so `run` and `create` exit 125 with one
# line naming what is missing, and the command never runs, sandboxed or not.
failclosed() {
  local what=$1 want pass=0 failed=0 ws=/tmp/failclosed-ws out err rc
  case $what in
    # The kernel's word for it: CLONE_NEWUSER refused (ENOSPC at max_user_namespaces=0).
    userns) want="user namespace|clone_newuser"; echo 0 >/proc/sys/user/max_user_namespaces ;;
    memory) want="memory" ;;
    *) echo "agentbox-vm: unknown failclosed $what"; VM_RC=1; return ;;
  esac
  echo "agentbox-vm: ---- fail-closed without $want"
  check() {
    if eval "$2"; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1 (rc=$rc stdout=$out stderr=$err)"; failed=$((failed + 1)); fi
  }
  local state=/tmp/failclosed-state
  mkdir -p "$ws" "$state"
  for sub in run create; do
    local argv=(/opt/agentbox/bin/agentbox run --workspace "$ws" -- sh -c "echo RAN; touch /workspace/ran.$sub")
    [[ $sub == create ]] && argv=(/opt/agentbox/bin/agentbox create --workspace "$ws")
    out=$(AGENTBOX_STATE_DIR=$state timeout 60 "${argv[@]}" 2>/run/fc.err </dev/null)
    rc=$?
    err=$(cat /run/fc.err)
    check "${sub}_exits_125_without_$what" '[[ $rc == 125 ]]'
    check "${sub}_names_$what" '[[ ${err,,} =~ $want ]]'
    check "${sub}_one_line_reason_without_$what" '[[ $(printf "%s\n" "$err" | wc -l) == 1 ]]'
    check "${sub}_ran_nothing_without_$what" '[[ $out != *RAN* && ! -e $ws/ran.$sub ]]'
    check "${sub}_left_no_sandbox_without_$what" '[[ -z $(ls "$state/sandboxes" 2>/dev/null) ]]'
  done
  out=$(timeout 60 /opt/agentbox/bin/agentbox doctor 2>&1)
  rc=$?
  err=$out
  check "doctor_fails_naming_$what" '[[ $rc != 0 && ${out,,} =~ $want ]]'
  echo "$pass passed, $failed failed"
  echo "agentbox-vm: failclosed $what: $pass passed, $failed failed"
  ((failed == 0)) || VM_RC=1
  [[ $what == userns ]] && echo 15000 >/proc/sys/user/max_user_namespaces
  return 0
}

main() {
  mount_host_like
  load_modules
  mkdir -p /opt/agentbox
  mount -o ro /dev/vdb /opt/agentbox
  describe
  VM_STEPS=()
  # shellcheck source=/dev/null
  source /opt/agentbox/job
  trap - ERR
  local step
  for step in "${VM_STEPS[@]}"; do
    read -r -a words <<<"$step"
    case ${words[0]} in
      suite) run_suite "${words[1]}" "${words[*]:2}" ;;
      failclosed) failclosed "${words[1]}" ;;
      shell) setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1 ;;
      *) echo "agentbox-vm: unknown step: $step"; VM_RC=1 ;;
    esac
  done
  echo "agentbox-vm: exit $VM_RC"
  power_off
}

main "$@"
