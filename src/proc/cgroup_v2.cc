// Cgroup on cgroup v2: one directory in the unified hierarchy. Host side only.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <sstream>
#include <thread>

#include "proc/cgroup_internal.h"
#include "sys/file_util.h"
#include "sys/unique_fd.h"

namespace agentbox::cgroup_internal {
namespace {

constexpr const char* kControllers[] = {"memory", "pids", "cpu"};

std::string Dirname(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

// Writes "+memory +pids +cpu" (only the ones not yet there) into dir/cgroup.subtree_control, so
// children of `dir` get those controllers. Skipping enabled ones keeps a delegated, non-root
// setup working: the ancestors we cannot write already have them enabled.
Status EnableControllers(CgroupFiles& files, const std::string& dir) {
  const std::string path = dir + "/cgroup.subtree_control";
  AB_ASSIGN_OR_RETURN(std::string enabled, files.Read(path));
  std::string add;
  for (const char* c : kControllers) {
    std::istringstream in(enabled);
    bool found = false;
    for (std::string w; in >> w;) found |= w == c;
    if (!found) add += std::string(add.empty() ? "" : " ") + "+" + c;
  }
  if (add.empty()) return OkStatus();
  return files.Write(path, add).WithContext(
      "enabling controllers below " + dir +
      " (a non-root cgroup with processes of its own cannot enable them)");
}

// Makes the agentbox parent (and its ancestors up to the hierarchy root) able to hand memory,
// pids and cpu to sandbox cgroups.
Status PrepareParent(CgroupFiles& files, const std::string& parent) {
  std::vector<std::string> ancestors;  // top-down, including ones still to be made
  for (std::string dir = Dirname(parent);; dir = Dirname(dir)) {
    if (PathExists(dir) && !PathExists(dir + "/cgroup.controllers")) break;  // left cgroupfs
    ancestors.insert(ancestors.begin(), dir);
    if (dir == "/") break;
  }
  for (const auto& dir : ancestors) {
    AB_RETURN_IF_ERROR(MakeDir(dir));
    AB_RETURN_IF_ERROR(EnableControllers(files, dir));
  }
  AB_RETURN_IF_ERROR(MakeDir(parent));
  return EnableControllers(files, parent);
}

class CgroupV2 final : public Cgroup {
 public:
  CgroupV2(std::string dir, UniqueFd fd, CgroupFiles& files)
      : dir_(std::move(dir)), fd_(std::move(fd)), files_(files) {}
  ~CgroupV2() override {
    if (!removed_) ::rmdir(dir_.c_str());  // early-return owners must not leak empty cgroups
  }

  Status ApplyLimits(const Limits& limits) override {
    if (limits.cpus <= 0) return InvalidArgument("cpus must be positive");
    AB_RETURN_IF_ERROR(Write("memory.max", std::to_string(limits.memory_bytes)));
    AB_RETURN_IF_ERROR(WriteNoSwap());
    AB_RETURN_IF_ERROR(Write("pids.max", std::to_string(limits.pids)));
    return Write("cpu.max", std::to_string(CpuQuotaMicros(limits.cpus)) + " " +
                                std::to_string(kCpuPeriodMicros));
  }

  Status AddProcess(pid_t pid) override { return Write("cgroup.procs", std::to_string(pid)); }

  StatusOr<CgroupStats> ReadStats() const override {
    CgroupStats stats;
    auto peak = files_.Read(dir_ + "/memory.peak");  // Linux 5.19+
    if (!peak.ok()) peak = files_.Read(dir_ + "/memory.current");
    if (!peak.ok()) return peak.status();
    stats.peak_memory_bytes = KeyedValue("v " + *peak, "v").value_or(0);
    stats.cpu_ms = static_cast<double>(Keyed("cpu.stat", "usage_usec")) / 1000.0;
    stats.oom_kills = Keyed("memory.events", "oom_kill");
    stats.memory_events = Keyed("memory.events", "max") + Keyed("memory.events", "oom");
    stats.pids_events = Keyed("pids.events", "max");
    stats.throttled_periods = Keyed("cpu.stat", "nr_throttled");
    stats.memory_limit_bytes = LimitOf("memory.max");
    stats.pids_limit = LimitOf("pids.max");
    return StatsSince(stats, CgroupStats{});
  }

  Status KillAll() override {
    KillOps ops;
    ops.list = [&] { return ListPidsRecursive(files_, dir_); };
    if (PathExists(dir_ + "/cgroup.kill")) {  // Linux 5.14+: atomic, recursive, race-free
      ops.kill_all = [&] { return Write("cgroup.kill", "1"); };
    } else {
      ops.freeze = [&] { return Write("cgroup.freeze", "1"); };
      ops.thaw = [&] { return Write("cgroup.freeze", "0"); };
    }
    return KillUntilEmpty(ops, "killing cgroup " + dir_);
  }

  void Keep() override { removed_ = true; }

  Status Remove() override {
    fd_.reset();
    AB_RETURN_IF_ERROR(RemoveCgroupTree(dir_));
    removed_ = true;
    return OkStatus();
  }

  int DirFd() const override { return fd_.get(); }

  CgroupLocation Location() const override { return {{kUnifiedHierarchy, dir_}}; }

 private:
  Status Write(const std::string& file, const std::string& value) {
    return files_.Write(dir_ + "/" + file, value);
  }
  uint64_t LimitOf(const std::string& file) const {
    auto text = files_.Read(dir_ + "/" + file);
    return text.ok() ? LimitValue(*text).value_or(0) : 0;
  }

  uint64_t Keyed(const std::string& file, const std::string& key) const {
    auto text = files_.Read(dir_ + "/" + file);
    return text.ok() ? KeyedValue(*text, key).value_or(0) : 0;
  }

  // memory.swap.max is absent without swap accounting; harmless only when there is no swap.
  Status WriteNoSwap() {
    if (PathExists(dir_ + "/memory.swap.max")) return Write("memory.swap.max", "0");
    auto swaps = ReadFile("/proc/swaps");
    if (swaps.ok() && SwapEnabled(*swaps)) {
      return Unavailable(
          "cgroup v2 has no memory.swap.max (swap accounting off): boot with "
          "swapaccount=1 (or turn swap off) to enforce a memory limit without swap");
    }
    return OkStatus();
  }

  std::string dir_;
  UniqueFd fd_;  // for clone3(CLONE_INTO_CGROUP)
  CgroupFiles& files_;
  bool removed_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Cgroup>> CreateCgroupV2(const CgroupHost& host, const std::string& name,
                                                 CgroupFiles& files) {
  AB_RETURN_IF_ERROR(ValidateCgroupName(name));
  if (host.v2_parent.empty()) return Unavailable("no cgroup v2 parent directory");
  AB_RETURN_IF_ERROR(PrepareParent(files, host.v2_parent));
  const std::string dir = host.v2_parent + "/" + name;
  if (::mkdir(dir.c_str(), 0755) != 0) {
    int err = errno;
    if (err == EEXIST) return AlreadyExists("cgroup " + dir + " already exists");
    return ErrnoStatus("mkdir " + dir, err);
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    Status st = ErrnoStatus("open " + dir, errno);
    ::rmdir(dir.c_str());
    return st;
  }
  return std::unique_ptr<Cgroup>(std::make_unique<CgroupV2>(dir, UniqueFd(fd), files));
}

StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV2(const CgroupHost& host, const std::string& name,
                                               CgroupFiles& files) {
  AB_RETURN_IF_ERROR(ValidateCgroupName(name));
  return OpenCgroupV2At(host.v2_parent + "/" + name, files);
}

StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV2At(const std::string& dir, CgroupFiles& files) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cgroup " + dir, errno);
  auto cgroup = std::make_unique<CgroupV2>(dir, UniqueFd(fd), files);
  cgroup->Keep();
  return std::unique_ptr<Cgroup>(std::move(cgroup));
}

}  // namespace agentbox::cgroup_internal

namespace agentbox {

StatusOr<std::unique_ptr<Cgroup>> OpenCgroup(const CgroupHost& host, const std::string& name) {
  auto& files = cgroup_internal::RealCgroupFiles();
  return host.version == CgroupVersion::kV2 ? cgroup_internal::OpenCgroupV2(host, name, files)
                                            : cgroup_internal::OpenCgroupV1(host, name, files);
}

StatusOr<std::unique_ptr<Cgroup>> OpenCgroupAt(const CgroupLocation& location) {
  auto& files = cgroup_internal::RealCgroupFiles();
  if (location.empty()) return InvalidArgument("no cgroup location");
  auto unified = location.find(kUnifiedHierarchy);
  if (unified != location.end()) return cgroup_internal::OpenCgroupV2At(unified->second, files);
  return cgroup_internal::OpenCgroupV1At(location, files);
}

StatusOr<std::unique_ptr<Cgroup>> CreateCgroup(const CgroupHost& host, const std::string& name) {
  auto& files = cgroup_internal::RealCgroupFiles();
  return host.version == CgroupVersion::kV2 ? cgroup_internal::CreateCgroupV2(host, name, files)
                                            : cgroup_internal::CreateCgroupV1(host, name, files);
}

}  // namespace agentbox
