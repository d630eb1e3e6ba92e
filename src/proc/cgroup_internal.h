// Internals shared by cgroup_detect.cc, cgroup_v1.cc, cgroup_v2.cc, cgroup_common.cc and their
// unit tests. Not part of the public interface (that is cgroup.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proc/cgroup.h"

namespace agentbox::cgroup_internal {

// Every read and write of a cgroup interface file goes through here, so a test can record the
// exact sequence of writes (order matters, e.g. v1 memory before memsw). Directories are made
// and removed directly.
class CgroupFiles {
 public:
  virtual ~CgroupFiles() = default;
  virtual Status Write(const std::string& path, std::string_view data);
  virtual StatusOr<std::string> Read(const std::string& path) const;
};
// The real one: single write(2) per value on existing files.
CgroupFiles& RealCgroupFiles();

// Everything detection looks at, so tests can describe a whole fake host.
struct DetectInput {
  std::string sysfs_root;                      // "/sys/fs/cgroup" or a temp dir
  std::string mountinfo;                       // /proc/self/mountinfo text
  std::string self_cgroup;                     // /proc/self/cgroup text
  bool is_root = false;                        // geteuid() == 0
  bool swap_enabled = false;                   // /proc/swaps lists at least one area
  std::optional<std::string> parent_override;  // $AGENTBOX_CGROUP_PARENT, relative
};
StatusOr<CgroupHost> DetectCgroupHostFrom(const DetectInput& in);

// True when /proc/swaps text lists a swap area below its header line.
bool SwapEnabled(std::string_view proc_swaps);

// The value of `key` in "key value" lines (cpu.stat, memory.events, pids.events,
// memory.oom_control); nullopt when absent or not a number.
std::optional<uint64_t> KeyedValue(std::string_view text, std::string_view key);

// A limit file's value: a number, or "max" (UINT64_MAX); nullopt when neither.
std::optional<uint64_t> LimitValue(std::string_view text);

// CFS bandwidth: quota for `cpus` CPUs per kCpuPeriodMicros, at least the kernel's 1 ms minimum.
inline constexpr uint64_t kCpuPeriodMicros = 100000;
uint64_t CpuQuotaMicros(double cpus);

// Sandbox ids become directory names: refuse anything that could walk out of the parent.
Status ValidateCgroupName(const std::string& name);

// Parses cgroup.procs text.
std::vector<pid_t> ParsePids(std::string_view text);

// The kill loop both versions share: until `list` is empty, freeze, SIGKILL every listed pid,
// thaw; bounded, with a short sleep between rounds. `freeze`/`thaw` may be empty functions.
struct KillOps {
  std::function<StatusOr<std::vector<pid_t>>()> list;
  std::function<Status()> kill_all;  // optional: one-shot kill (v2 cgroup.kill)
  std::function<Status()> freeze;
  std::function<Status()> thaw;
};
Status KillUntilEmpty(const KillOps& ops, const std::string& what);

// Pids in cgroup.procs of `dir` and of every cgroup below it (the sandbox may nest cgroups).
StatusOr<std::vector<pid_t>> ListPidsRecursive(const CgroupFiles& files, const std::string& dir);

// Removes `dir` and every cgroup below it, deepest first, via RemoveCgroupDir.
Status RemoveCgroupTree(const std::string& dir);

// rmdir, retrying briefly on EBUSY (the kernel frees a dead cgroup's tasks asynchronously);
// a missing directory counts as removed.
Status RemoveCgroupDir(const std::string& path);

StatusOr<std::unique_ptr<Cgroup>> CreateCgroupV1(const CgroupHost& host, const std::string& name,
                                                 CgroupFiles& files);
StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV1(const CgroupHost& host, const std::string& name,
                                               CgroupFiles& files);
StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV2(const CgroupHost& host, const std::string& name,
                                               CgroupFiles& files);
// The cgroups at known directories (Cgroup::Location()), kept: for reading their counters.
std::unique_ptr<Cgroup> OpenCgroupV1At(CgroupLocation dirs, CgroupFiles& files);
StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV2At(const std::string& dir, CgroupFiles& files);
StatusOr<std::unique_ptr<Cgroup>> CreateCgroupV2(const CgroupHost& host, const std::string& name,
                                                 CgroupFiles& files);

}  // namespace agentbox::cgroup_internal
