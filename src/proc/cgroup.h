// Cgroup: one sandbox's cgroup, the same interface on cgroup v1 and v2.
//
// Runs in the parent (host side) only. The v1 and v2 implementations live in cgroup_v1.cc and
// cgroup_v2.cc; which one is used is decided once by DetectCgroupHost(). Tests point `root` at a
// fake cgroupfs (plain directories and files) to check what gets written without root.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

enum class CgroupVersion { kV1, kV2 };

// Where cgroups live on this host and which version they speak.
struct CgroupHost {
  CgroupVersion version = CgroupVersion::kV2;
  // v2: the directory under which agentbox creates sandbox cgroups (e.g. /sys/fs/cgroup/agentbox).
  // v1: the parent dir inside each controller hierarchy, keyed by controller name below.
  std::string v2_parent;
  std::string v2_root;  // v2: where cgroup2 is mounted, e.g. /sys/fs/cgroup
  struct V1Controller {
    std::string name;         // "memory", "pids", "cpu", "cpuacct", "freezer"
    std::string parent;       // e.g. /sys/fs/cgroup/memory/agentbox
    std::string mount_point;  // e.g. /sys/fs/cgroup/memory
  };
  std::vector<V1Controller> v1_controllers;
};

// Where one cgroup's files are: controller name -> directory on v1 (co-mounted controllers share
// a directory), kUnifiedHierarchy -> directory on v2. A sandbox's is resolved when it is created
// and kept in its record: reading its counters (twice per exec) then needs no detection of the
// host's layout, and finds the same directories whichever cgroup the reading process lives in.
using CgroupLocation = std::map<std::string, std::string>;
inline constexpr const char* kUnifiedHierarchy = "unified";

// What a cgroup saw, read after (or during) the command.
struct CgroupStats {
  uint64_t peak_memory_bytes = 0;
  double cpu_ms = 0;
  bool oom_killed = false;        // the kernel OOM-killed a process of this cgroup
  bool memory_limit_hit = false;  // the memory limit refused a charge (or OOM)
  bool pids_limit_hit = false;    // a fork/clone was refused by pids.max
  bool cpu_throttled = false;     // the CPU quota throttled the cgroup at least once
  // The counters behind the flags, so a long-lived sandbox can tell what one exec ran into.
  uint64_t oom_kills = 0;
  uint64_t memory_events = 0;  // refused charges (v1 failcnt, v2 max + oom events)
  uint64_t pids_events = 0;
  uint64_t throttled_periods = 0;
  // The limits in force, read back from the kernel (`inspect --verify` compares them with the
  // policy). UINT64_MAX for "max" (no limit); 0 when unreadable.
  uint64_t memory_limit_bytes = 0;
  uint64_t pids_limit = 0;
};

// What happened between two readings of the same cgroup: counters and flags of the difference.
CgroupStats StatsSince(const CgroupStats& now, const CgroupStats& before);

class Cgroup {
 public:
  virtual ~Cgroup() = default;
  // Writes memory (no swap), pids and CPU quota.
  virtual Status ApplyLimits(const Limits& limits) = 0;
  // Moves a process (and later its children) into the cgroup.
  virtual Status AddProcess(pid_t pid) = 0;
  virtual StatusOr<CgroupStats> ReadStats() const = 0;
  // SIGKILLs every process in the cgroup, including stopped ones.
  virtual Status KillAll() = 0;
  // Removes the cgroup directories; the cgroup must be empty (call KillAll and reap first).
  virtual Status Remove() = 0;
  // Leaves the cgroup in place when this object goes away: a persistent sandbox's cgroup outlives
  // the CLI process that created it, and is removed by `rm` or `gc`.
  virtual void Keep() = 0;
  // v2: an O_DIRECTORY fd of the cgroup for clone3(CLONE_INTO_CGROUP); -1 on v1.
  virtual int DirFd() const { return -1; }
  virtual CgroupLocation Location() const = 0;
};

// Detects the host's cgroup layout under sysfs_root (default "/sys/fs/cgroup"), using
// /proc/self/cgroup-style text `self_cgroup` to find where this process lives. Fails with
// kUnavailable, saying what is missing, when memory, pids or cpu control cannot be had.
StatusOr<CgroupHost> DetectCgroupHost(const std::string& sysfs_root = "/sys/fs/cgroup");

// Creates the cgroup `name` (a sandbox id) under the host's agentbox parent(s).
StatusOr<std::unique_ptr<Cgroup>> CreateCgroup(const CgroupHost& host, const std::string& name);

// The existing cgroup `name`, kept (see Keep()) unless Remove() is called. kNotFound if absent
// (on v1: if absent from any hierarchy).
StatusOr<std::unique_ptr<Cgroup>> OpenCgroup(const CgroupHost& host, const std::string& name);

// The cgroup that process `pid` lives in (e.g. a docker container's init), opened like
// OpenCgroup for reading its counters; `proc_cgroup` is that process's /proc/PID/cgroup text.
StatusOr<std::unique_ptr<Cgroup>> OpenCgroupOf(const CgroupHost& host,
                                               const std::string& proc_cgroup);

// The cgroup at `location` (see Location()), opened for reading its counters and kept like
// OpenCgroup's. Reads fail later, not here, if the directories are gone.
StatusOr<std::unique_ptr<Cgroup>> OpenCgroupAt(const CgroupLocation& location);

// The directories cgroup `name` has or would have: one on v2; on v1 one per hierarchy
// (co-mounted controllers share one), whether or not each exists.
std::vector<std::string> CgroupDirs(const CgroupHost& host, const std::string& name);

// True when no directory of cgroup `name` holds a process (a missing one holds none; one that
// cannot be read might).
bool CgroupIsEmpty(const CgroupHost& host, const std::string& name);

// Removes what is left of cgroup `name` after a removal cut short (a kill -9 between the
// hierarchies of v1), which OpenCgroup no longer finds whole. The kernel refuses to remove a
// cgroup that holds processes, so this never takes a live one: it then fails.
Status RemoveCgroupRemains(const CgroupHost& host, const std::string& name);

}  // namespace agentbox
