// The cgroup this process lives in, found from inside a container (issue 20: a pod's agent
// reports its pod's counters, which the host cannot read on a cluster's node).
//
// A runtime shows a container its own cgroup as the root of what is mounted at /sys/fs/cgroup:
// cgroup v2 with a cgroup namespace (containerd, CRI-O, docker on v2), or on cgroup v1 each
// hierarchy's /sys/fs/cgroup/CONTROLLER bind-mounted from the container's directory (runc, crun,
// podman on v1, with or without a cgroup namespace). Either way /proc/self/mountinfo gives each
// mount's root inside its hierarchy and /proc/self/cgroup this process's path there: the
// directory is the mount point plus the path below that root. Reading only, never writing: the
// mounts are read-only in a container anyway.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "proc/cgroup.h"

namespace agentbox {

// Pure: the directories of this process's cgroup under `sysfs_root` (normally /sys/fs/cgroup),
// from /proc/self/mountinfo and /proc/self/cgroup texts. cgroup2 mounted at sysfs_root:
// {kUnifiedHierarchy: dir}. Else cgroup v1: memory, pids, cpu and cpuacct, each its
// hierarchy's dir, or "" for one that is not mounted there (its counters then read as 0).
// kNotFound when neither a cgroup2 at sysfs_root nor a v1 memory hierarchy under it is mounted.
StatusOr<CgroupLocation> OwnCgroupLocation(std::string_view mountinfo, std::string_view self_cgroup,
                                           const std::string& sysfs_root = "/sys/fs/cgroup");

// The counters and limits of the calling process's own cgroup (OwnCgroupLocation of the live
// /proc/self texts). A counter whose file is missing reads 0, a limit 0 (unknown); fails only
// when no cgroup is found or its memory usage cannot be read.
StatusOr<CgroupStats> ReadOwnCgroupStats();

}  // namespace agentbox
