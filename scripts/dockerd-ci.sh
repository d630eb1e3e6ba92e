#!/usr/bin/env bash
# dockerd-ci.sh: the Docker daemon the docker-backend tests need, for CI and local runs, without
# ever touching a daemon this script did not start in the same run.
#
#   start [--state FILE]   installs docker.io (and runsc, socat) if missing, registers runsc as a
#                          runtime, and starts dockerd unless one already answers on
#                          /var/run/docker.sock; waits until it answers. Only a daemon started
#                          here is recorded, as "PID STARTTIME", in FILE (default: a new
#                          /run/agentbox-dockerd.XXXXXX, printed); a daemon that already answered
#                          is left out of it, so `stop` can never stop somebody else's daemon.
#   stop --state FILE      stops the daemon FILE records, only if that very process (same pid,
#                          same start time, a dockerd) still runs, and removes FILE. Without a
#                          FILE it stops nothing: which daemon is ours is only known from it.
#   status [--state FILE]  whether a daemon answers, and whether it is the one FILE records.
#
# `make test` (scripts/run-tests.sh) and .ci/run call start and stop with a private FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
sock=/var/run/docker.sock
log=/var/log/agentbox-dockerd.log

answers() { curl -fsS --max-time 2 --unix-socket "$sock" http://docker/_ping >/dev/null 2>&1; }

# starttime PID: field 22 of /proc/PID/stat (the process's start, in clock ticks since boot).
starttime() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }
  # shellcheck disable=SC2086
  set -- $s
  echo "${20}"
}

# recorded_pid FILE: the pid FILE records if that process still runs and is a dockerd.
recorded_pid() {
  local pid start
  [[ -f $1 ]] || return 1
  read -r pid start <"$1" || return 1
  [[ -n $pid && $(starttime "$pid") == "$start" ]] || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]] || return 1
  echo "$pid"
}

# mount_v1_controllers: on a cgroup v1 host without systemd, each controller the kernel has that
# no hierarchy holds is mounted at /sys/fs/cgroup/NAME, as Debian's cgroupfs-mount does for a
# daemon started by its init script. Without it (seen: a boot that left hugetlb out) runsc's
# cgroup setup is partial and the container's OOM kill is not recorded: a memory limit hit under
# gVisor reads as a lost agent instead of OOM (security_runsc's limits_memory_bomb_oom).
mount_v1_controllers() {
  [[ $(stat -f -c %T /sys/fs/cgroup 2>/dev/null) == tmpfs ]] || return 0
  [[ -d /run/systemd/system ]] && return 0
  local name enabled mounted
  mounted=$(awk '$3 == "cgroup" {print $4}' /proc/self/mounts | tr ',' '\n')
  while read -r name _ _ enabled; do
    [[ $name != \#* && $enabled == 1 ]] || continue
    grep -qx "$name" <<<"$mounted" && continue
    grep -qw "$name" /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null && continue
    mkdir -p "/sys/fs/cgroup/$name"
    if mount -t cgroup -o "$name" cgroup "/sys/fs/cgroup/$name" 2>/dev/null; then
      echo "dockerd-ci: mounted the cgroup v1 controller $name at /sys/fs/cgroup/$name (none held it)"
    fi
  done </proc/cgroups
}

cmd=${1:-}
shift || true
state=""
if [[ ${1:-} == --state ]]; then state=${2:?--state needs a FILE}; fi

case "$cmd" in
  start)
    scripts/install-deps.sh docker
    if answers; then
      echo "dockerd-ci: a docker daemon already answers on $sock (not ours: it will not be stopped)"
      [[ -z $state ]] || : >"$state"
      exit 0
    fi
    # gVisor as the runtime "runsc": its own network stack off (the container has none anyway;
    # Debian's runsc refuses to start otherwise here), and unix sockets created inside visible on
    # the host, which the agent's socket needs.
    if command -v runsc >/dev/null && [[ ! -e /etc/docker/daemon.json ]]; then
      mkdir -p /etc/docker
      printf '{"runtimes": {"runsc": {"path": "%s", "runtimeArgs": ["--network=none", "--host-uds=create"]}}}\n' \
        "$(command -v runsc)" >/etc/docker/daemon.json
    fi
    mount_v1_controllers
    [[ -n $state ]] || state=$(mktemp /run/agentbox-dockerd.XXXXXX)
    # No systemd in CI: dockerd runs in the background, in its own session, and starts its own
    # containerd.
    setsid dockerd </dev/null >>"$log" 2>&1 &
    pid=$!
    echo "$pid $(starttime "$pid")" >"$state"
    for _ in $(seq 1 120); do
      if answers; then
        echo "dockerd-ci: dockerd started (pid $pid); stop it with: $0 stop --state $state"
        exit 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    echo "dockerd-ci: dockerd did not come up; last log lines:" >&2
    tail -n 20 "$log" >&2 || true
    kill "$pid" 2>/dev/null || true
    rm -f "$state"
    exit 1
    ;;
  stop)
    if [[ -z $state ]]; then
      echo "dockerd-ci: stop needs --state FILE (the one start wrote); no daemon stopped" >&2
      exit 2
    fi
    if pid=$(recorded_pid "$state"); then
      kill "$pid"
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      echo "dockerd-ci: dockerd $pid stopped"
    elif [[ -s $state ]]; then
      echo "dockerd-ci: the daemon $state records is gone; nothing stopped"
    fi
    rm -f "$state"
    ;;
  status)
    if answers; then echo "dockerd-ci: a docker daemon answers on $sock"; else echo "dockerd-ci: no docker daemon answers on $sock"; fi
    if [[ -n $state ]] && pid=$(recorded_pid "$state"); then echo "dockerd-ci: $state records dockerd $pid, running"; fi
    answers
    ;;
  *) echo "usage: dockerd-ci.sh start [--state FILE] | stop --state FILE | status [--state FILE]" >&2; exit 2 ;;
esac
