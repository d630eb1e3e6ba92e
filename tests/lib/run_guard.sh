# shellcheck shell=bash
# run_guard.sh: a test run owns what it starts, and a killed run leaves nothing running.
#
#   guard_start NAME   makes the run dir GUARD_DIR=/tmp/abt/NAME.PID (a suite puts every case's
#                      scratch and state dirs beneath it), sweeps what earlier runs that died left
#                      under /tmp/abt (only dirs made here, only when their runner and reaper are
#                      both gone), and starts this run's reaper.
#   guard_track PID    records a process this run started: PID, or -PGID for a process group
#                      (a case's `timeout`, whose group holds the case and all it started).
#   guard_cgroup NAME  records a cgroup parent this run made (rmdir'd when swept, once empty).
#   guard_procs_in NAME [EXCEPT]  lists the processes in cgroups below that parent (but not
#                      in a cgroup named EXCEPT, e.g. a sandbox's sb-ID, when given).
#   guard_bg CMD...    starts CMD in the background; its pid goes to GUARD_BG_PID.
#   guard_end          the run ended: sweeps its dir (nothing should be left) and removes it.
#
# The reaper is a process in its own session, not a child of the runner (so a kill of the
# runner's process tree misses it), watching the runner's pid and start time (five times a
# second: a watchdog, not a test's timing). However the runner goes — exit, SIGKILL, a CI
# timeout — the reaper then kills the processes recorded with guard_track (each checked by its start time,
# so a recycled pid is never hit), `agentbox rm -f`s every sandbox recorded in a state dir under
# GUARD_DIR (its processes, containers, cgroups and mounts go with it), and removes GUARD_DIR.
# Nothing is found by name: only what this run recorded, and only beneath its own dir.

GUARD_ROOT=${GUARD_ROOT:-/tmp/abt}
GUARD_SELF=${BASH_SOURCE[0]}

# guard_starttime PID: the process's start time (field 22 of /proc/PID/stat); fails if none.
guard_starttime() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }
  # shellcheck disable=SC2086
  set -- $s
  echo "${20}"
}

# guard_alive FILE: true if the process named in FILE ("PID STARTTIME") still runs.
guard_alive() {
  local pid start
  read -r pid start <"$1" 2>/dev/null || return 1
  [[ -n $pid && $(guard_starttime "$pid") == "$start" ]]
}

guard_track() {
  local id=$1 start
  start=$(guard_starttime "${id#-}") || return 0
  echo "$id $start" >>"$GUARD_DIR/tracked"
}

guard_cgroup() { echo "$1" >>"$GUARD_DIR/cgroups"; }

# guard_procs_in PARENT: the processes in a cgroup below PARENT (one this run made with
# guard_cgroup), "PID ARGV..." one a line; nobody else's, whatever their command line. Builtins
# only, so a case polling it does not fork a grep for every process on the host.
guard_procs_in() {
  local p cg argv
  for p in /proc/[0-9]*; do
    cg=  # a process gone between the glob and the read must not keep the last one's cgroup
    read -r -d '' cg <"$p/cgroup" 2>/dev/null
    [[ $cg == *"/$1/"* ]] || continue
    [[ -n ${2:-} && $cg == *"/$2"* ]] && continue
    mapfile -d '' -t argv <"$p/cmdline" 2>/dev/null || continue
    echo "${p#/proc/} ${argv[*]}"
  done
}

guard_bg() {
  "$@" &
  GUARD_BG_PID=$!
}

# guard_sweep DIR: what the reaper does, and what a later run does for a dead run's dir.
guard_sweep() {
  local dir=$1 id start sd agentbox mp
  [[ -d $dir ]] || return 0
  if [[ -f $dir/tracked ]]; then
    while read -r id start; do
      # A group whose leader is gone still owns its number (the kernel does not reuse a pid
      # while a group bears it); a leader with another start time is somebody else's.
      if [[ $(guard_starttime "${id#-}") == "$start" ]] ||
        { [[ $id == -* ]] && ! [[ -e /proc/${id#-} ]]; }; then
        kill -KILL -- "$id" 2>/dev/null
      fi
    done <"$dir/tracked"
  fi
  agentbox=$(cat "$dir/agentbox" 2>/dev/null)
  if [[ -x $agentbox ]]; then
    while read -r sd; do
      sd=${sd%/sandboxes}
      for id in $(ls "$sd/sandboxes" 2>/dev/null); do
        echo "run_guard: $(basename "$dir") left sandbox $id behind; removing it" >&2
        AGENTBOX_STATE_DIR=$sd timeout -s KILL 60 "$agentbox" rm -f "$id" >/dev/null 2>&1
      done
    done < <(find "$dir" -xdev -type d -name sandboxes 2>/dev/null)
  fi
  # Mounts a case left beneath its dir (a loop filesystem, a bind): detached before the removal,
  # which then never crosses into another filesystem.
  while read -r mp; do umount -l "$mp" 2>/dev/null; done < <(awk -v d="$dir/" \
    'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r)
  if [[ -f $dir/cgroups ]]; then
    while read -r id; do
      for sd in /sys/fs/cgroup/"$id" /sys/fs/cgroup/*/"$id"; do
        [[ -d $sd ]] && find "$sd" -depth -type d -exec rmdir {} + 2>/dev/null
      done
    done <"$dir/cgroups"
  fi
  rm -rf --one-file-system "$dir"
}

# The reaper's body: `bash run_guard.sh --reap DIR`, started by guard_start.
guard_reap() {
  local dir=$1
  echo "$BASHPID $(guard_starttime $BASHPID)" >"$dir/reaper"
  while guard_alive "$dir/owner" && [[ ! -f $dir/ended ]]; do sleep 0.2; done
  [[ -f $dir/ended || ! -d $dir ]] && return 0
  echo "run_guard: the runner of $(basename "$dir") died; cleaning up after it" >&2
  guard_sweep "$dir"
}

# Dirs of earlier runs whose runner and reaper are both gone (killed together, a reboot).
guard_sweep_dead() {
  local d
  for d in "$GUARD_ROOT"/*/; do
    d=${d%/}
    [[ -f $d/owner ]] || continue
    guard_alive "$d/owner" && continue
    guard_alive "$d/reaper" && continue
    echo "run_guard: sweeping $d, left by a run that died" >&2
    guard_sweep "$d"
  done
}

guard_start() {
  local name=$1
  mkdir -p "$GUARD_ROOT" && chmod 0755 "$GUARD_ROOT"
  guard_sweep_dead
  GUARD_DIR=$GUARD_ROOT/$name.$$
  rm -rf "$GUARD_DIR"
  mkdir -m 0755 "$GUARD_DIR"
  echo "$$ $(guard_starttime $$)" >"$GUARD_DIR/owner"
  [[ -n ${AGENTBOX:-} ]] && echo "$AGENTBOX" >"$GUARD_DIR/agentbox"
  # Double fork and setsid: the reaper is nobody's child here, in no group of ours.
  (setsid bash "$GUARD_SELF" --reap "$GUARD_DIR" </dev/null >/dev/null 2>>"$GUARD_DIR/reaper.log" &)
  export GUARD_DIR
}

guard_end() {
  [[ -n ${GUARD_DIR:-} && -d $GUARD_DIR ]] || return 0
  touch "$GUARD_DIR/ended"
  guard_sweep "$GUARD_DIR"
}

if [[ ${1:-} == --reap ]]; then
  guard_reap "$2"
  exit 0
fi
