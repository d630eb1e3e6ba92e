// Cgroup on cgroup v1: one directory per controller hierarchy (memory, pids, cpu, cpuacct,
// freezer), possibly co-mounted (cpu,cpuacct share a directory). Host side only.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "proc/cgroup_internal.h"
#include "sys/file_util.h"

namespace agentbox::cgroup_internal {
namespace {

std::optional<uint64_t> ParseUint(const StatusOr<std::string>& text) {
  if (!text.ok()) return std::nullopt;
  return KeyedValue("v " + *text, "v");
}

class CgroupV1 final : public Cgroup {
 public:
  CgroupV1(std::map<std::string, std::string> dirs, CgroupFiles& files)
      : dirs_(std::move(dirs)), files_(files) {}
  ~CgroupV1() override {
    // An owner that never got to Remove() (early return) still must not leak empty cgroups.
    if (!removed_) {
      for (const auto& dir : UniqueDirs()) ::rmdir(dir.c_str());
    }
  }

  Status ApplyLimits(const Limits& limits) override {
    if (limits.cpus <= 0) return InvalidArgument("cpus must be positive");
    AB_RETURN_IF_ERROR(WriteMemoryLimit(limits.memory_bytes));
    AB_RETURN_IF_ERROR(Write("pids", "pids.max", std::to_string(limits.pids)));
    AB_RETURN_IF_ERROR(Write("cpu", "cpu.cfs_period_us", std::to_string(kCpuPeriodMicros)));
    return Write("cpu", "cpu.cfs_quota_us", std::to_string(CpuQuotaMicros(limits.cpus)));
  }

  Status AddProcess(pid_t pid) override {
    for (const auto& dir : UniqueDirs()) {
      AB_RETURN_IF_ERROR(files_.Write(dir + "/cgroup.procs", std::to_string(pid)));
    }
    return OkStatus();
  }

  StatusOr<CgroupStats> ReadStats() const override {
    CgroupStats stats;
    AB_ASSIGN_OR_RETURN(std::string peak, files_.Read(Path("memory", "memory.max_usage_in_bytes")));
    stats.peak_memory_bytes = ParseUint(peak).value_or(0);
    uint64_t cpu_ns = ParseUint(files_.Read(Path("cpuacct", "cpuacct.usage"))).value_or(0);
    stats.cpu_ms = static_cast<double>(cpu_ns) / 1e6;
    stats.oom_kills = KeyedFile("memory", "memory.oom_control", "oom_kill");
    stats.memory_events = ParseUint(files_.Read(Path("memory", "memory.failcnt"))).value_or(0);
    stats.pids_events = KeyedFile("pids", "pids.events", "max");
    stats.throttled_periods = KeyedFile("cpu", "cpu.stat", "nr_throttled");
    stats.memory_limit_bytes = LimitOf("memory", "memory.limit_in_bytes");
    stats.pids_limit = LimitOf("pids", "pids.max");
    return StatsSince(stats, CgroupStats{});
  }

  Status KillAll() override {
    const std::string freezer = dirs_.at("freezer");
    KillOps ops;
    ops.list = [&] { return ListPidsRecursive(files_, freezer); };
    ops.freeze = [&] { return Freeze(freezer); };
    ops.thaw = [&] { return files_.Write(freezer + "/freezer.state", "THAWED"); };
    return KillUntilEmpty(ops, "killing cgroup " + freezer);
  }

  void Keep() override { removed_ = true; }

  CgroupLocation Location() const override { return dirs_; }

  Status Remove() override {
    for (const auto& dir : UniqueDirs()) AB_RETURN_IF_ERROR(RemoveCgroupTree(dir));
    removed_ = true;
    return OkStatus();
  }

 private:
  std::string Path(const std::string& controller, const std::string& file) const {
    return dirs_.at(controller) + "/" + file;
  }
  Status Write(const std::string& controller, const std::string& file, const std::string& v) {
    return files_.Write(Path(controller, file), v);
  }
  uint64_t KeyedFile(const std::string& controller, const std::string& file,
                     const std::string& key) const {
    auto text = files_.Read(Path(controller, file));
    return text.ok() ? KeyedValue(*text, key).value_or(0) : 0;
  }

  uint64_t LimitOf(const std::string& controller, const std::string& file) const {
    auto text = files_.Read(Path(controller, file));
    return text.ok() ? LimitValue(*text).value_or(0) : 0;
  }

  // Co-mounted controllers share a directory: each is created, joined and removed once.
  std::vector<std::string> UniqueDirs() const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& [controller, dir] : dirs_) {
      if (seen.insert(dir).second) out.push_back(dir);
    }
    return out;
  }

  // The kernel keeps memory.limit_in_bytes <= memory.memsw.limit_in_bytes at every step, so
  // lowering writes the RAM limit first and raising writes the memsw limit first.
  Status WriteMemoryLimit(uint64_t bytes) {
    const std::string value = std::to_string(bytes);
    const std::string memsw = Path("memory", "memory.memsw.limit_in_bytes");
    if (!PathExists(memsw)) {
      auto swaps = ReadFile("/proc/swaps");
      if (swaps.ok() && SwapEnabled(*swaps)) {
        return Unavailable(
            "cgroup v1 memory controller has no memory.memsw.limit_in_bytes: boot with "
            "swapaccount=1 to enforce a memory limit without swap");
      }
      return Write("memory", "memory.limit_in_bytes", value);  // no swap to spill into
    }
    uint64_t current_memsw = ParseUint(files_.Read(memsw)).value_or(UINT64_MAX);
    if (bytes > current_memsw) AB_RETURN_IF_ERROR(files_.Write(memsw, value));
    AB_RETURN_IF_ERROR(Write("memory", "memory.limit_in_bytes", value));
    return bytes > current_memsw ? OkStatus() : files_.Write(memsw, value);
  }

  // FROZEN may first read back as FREEZING while tasks are being stopped; wait briefly, then
  // go on regardless: SIGKILL is queued either way and delivered on thaw.
  Status Freeze(const std::string& freezer) {
    AB_RETURN_IF_ERROR(files_.Write(freezer + "/freezer.state", "FROZEN"));
    for (int i = 0; i < 50; ++i) {
      auto state = files_.Read(freezer + "/freezer.state");
      if (!state.ok() || state->rfind("FROZEN", 0) == 0) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return OkStatus();
  }

  std::map<std::string, std::string> dirs_;  // controller -> this cgroup's directory
  CgroupFiles& files_;
  bool removed_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Cgroup>> CreateCgroupV1(const CgroupHost& host, const std::string& name,
                                                 CgroupFiles& files) {
  AB_RETURN_IF_ERROR(ValidateCgroupName(name));
  std::map<std::string, std::string> dirs;
  for (const auto& c : host.v1_controllers) dirs[c.name] = c.parent + "/" + name;
  for (const char* needed : {"memory", "pids", "cpu", "cpuacct", "freezer"}) {
    if (!dirs.count(needed)) return Unavailable(std::string("no cgroup v1 ") + needed + " parent");
  }
  std::vector<std::string> made;
  auto undo = [&made] {
    for (auto it = made.rbegin(); it != made.rend(); ++it) ::rmdir(it->c_str());
  };
  for (const auto& c : host.v1_controllers) {
    const std::string dir = c.parent + "/" + name;
    if (std::find(made.begin(), made.end(), dir) != made.end()) continue;  // co-mounted
    Status st = MakeDirs(c.parent);
    if (st.ok() && ::mkdir(dir.c_str(), 0755) != 0) {
      int err = errno;
      st = err == EEXIST ? AlreadyExists("cgroup " + dir + " already exists")
                         : ErrnoStatus("mkdir " + dir, err);
    }
    if (!st.ok()) {
      undo();  // never someone else's directory: only the ones made here
      return st;
    }
    made.push_back(dir);
  }
  return std::unique_ptr<Cgroup>(std::make_unique<CgroupV1>(std::move(dirs), files));
}

StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV1(const CgroupHost& host, const std::string& name,
                                               CgroupFiles& files) {
  AB_RETURN_IF_ERROR(ValidateCgroupName(name));
  CgroupLocation dirs;
  for (const auto& c : host.v1_controllers) {
    dirs[c.name] = c.parent + "/" + name;
    if (::access(dirs[c.name].c_str(), F_OK) != 0) return ErrnoStatus("cgroup " + dirs[c.name]);
  }
  return OpenCgroupV1At(std::move(dirs), files);
}

std::unique_ptr<Cgroup> OpenCgroupV1At(CgroupLocation dirs, CgroupFiles& files) {
  auto cgroup = std::make_unique<CgroupV1>(std::move(dirs), files);
  cgroup->Keep();
  return cgroup;
}

}  // namespace agentbox::cgroup_internal
