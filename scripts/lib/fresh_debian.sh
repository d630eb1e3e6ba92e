# shellcheck shell=bash
# A fresh Debian 12 for tests that must see what a newcomer's machine has, nothing of this host:
# scripts/fresh-debian-test.sh (make test in it) and tests/packaging (the .deb installed in it).

# fresh_debian_root OUT_TAR LOG [PACKAGE,...]: a minimal bookworm root (mmdebstrap's apt
# variant, plus the packages named) as a tarball, made with this host's apt sources and Acquire
# options, so it reaches the mirrors as the host does.
fresh_debian_root() {
  local out=$1 log=$2 include=${3:-}
  command -v mmdebstrap >/dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap
  } >>"$log" 2>&1
  local aptopts=() opt sources
  # A snapshot mirror needs Check-Valid-Until off: the host's Acquire options say so.
  while read -r opt; do aptopts+=(--aptopt="$opt"); done < <(grep -h '^Acquire::Check' /etc/apt/apt.conf.d/* 2>/dev/null || true)
  sources=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v '^#' || true)
  mmdebstrap --variant=apt ${include:+--include="$include"} "${aptopts[@]}" \
    bookworm "$out" - <<<"$sources" >>"$log" 2>&1
}

# fresh_debian_privilege: FRESH_PRIVILEGE, the `docker run` flags that make a container as
# privileged as this host allows (--privileged, or on a host that is itself a container with a
# smaller bounding set, each capability it has plus no seccomp/AppArmor/masked paths), with the
# cgroup tree writable: the native backend makes cgroups.
fresh_debian_privilege() {
  local caps=() bnd i
  bnd=$((16#$(awk '/^CapBnd:/ {print $2}' /proc/self/status)))
  local capnames=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE
    NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT
    SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE
    AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ)
  # (PERFMON, BPF and CHECKPOINT_RESTORE are newer than Debian 12's docker.io knows.)
  for i in "${!capnames[@]}"; do (((bnd >> i) & 1)) && caps+=(--cap-add "${capnames[$i]}"); done
  FRESH_PRIVILEGE=(--privileged)
  if (((bnd & ((1 << ${#capnames[@]}) - 1)) != (1 << ${#capnames[@]}) - 1)); then
    FRESH_PRIVILEGE=("${caps[@]}" --security-opt seccomp=unconfined --security-opt apparmor=unconfined
      --security-opt systempaths=unconfined --device-cgroup-rule 'a *:* rwm' -v /dev:/dev
      -v /sys/fs/cgroup:/sys/fs/cgroup)
  fi
}
