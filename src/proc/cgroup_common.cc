// Helpers shared by the v1 and v2 cgroup implementations. Host side only.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "proc/cgroup_internal.h"
#include "sys/file_util.h"

namespace agentbox::cgroup_internal {

Status CgroupFiles::Write(const std::string& path, std::string_view data) {
  return WriteExistingFile(path, data);
}

StatusOr<std::string> CgroupFiles::Read(const std::string& path) const { return ReadFile(path); }

CgroupFiles& RealCgroupFiles() {
  static CgroupFiles files;  // stateless
  return files;
}

bool SwapEnabled(std::string_view proc_swaps) {
  std::istringstream in{std::string(proc_swaps)};
  std::string line;
  std::getline(in, line);  // "Filename Type Size Used Priority"
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t") != std::string::npos) return true;
  }
  return false;
}

// Plain string_view scanning, no streams: an exec reads these counters twice, and a stream's
// locale machinery costs more than the reading.
std::optional<uint64_t> KeyedValue(std::string_view text, std::string_view key) {
  constexpr std::string_view kBlank = " \t";
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    size_t k_begin = line.find_first_not_of(kBlank);
    if (k_begin == std::string_view::npos) continue;
    size_t k_end = std::min(line.find_first_of(kBlank, k_begin), line.size());
    if (line.substr(k_begin, k_end - k_begin) != key) continue;
    size_t v_begin = line.find_first_not_of(kBlank, k_end);
    if (v_begin == std::string_view::npos) continue;
    size_t v_end = std::min(line.find_first_of(kBlank, v_begin), line.size());
    std::string_view v = line.substr(v_begin, v_end - v_begin);
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

uint64_t CpuQuotaMicros(double cpus) {
  constexpr uint64_t kMinQuota = 1000;  // the kernel refuses cfs quotas below 1 ms
  long long quota = std::llround(cpus * static_cast<double>(kCpuPeriodMicros));
  return quota < static_cast<long long>(kMinQuota) ? kMinQuota : static_cast<uint64_t>(quota);
}

Status ValidateCgroupName(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return InvalidArgument("invalid cgroup name '" + name + "'");
  }
  return OkStatus();
}

std::vector<pid_t> ParsePids(std::string_view text) {
  std::vector<pid_t> pids;
  std::istringstream in{std::string(text)};
  for (long pid; in >> pid;) {
    if (pid > 0) pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

namespace {

// One round: stop the cgroup from forking (freeze), queue SIGKILL for everyone, then thaw so
// frozen and stopped processes can act on it (SIGKILL wakes stopped tasks, not frozen ones).
Status KillRound(const KillOps& ops, const std::vector<pid_t>& pids) {
  if (ops.kill_all) return ops.kill_all();
  if (ops.freeze) AB_RETURN_IF_ERROR(ops.freeze());
  for (pid_t pid : pids) {
    if (::kill(pid, SIGKILL) != 0 && errno != ESRCH) {
      Status st = ErrnoStatus("kill " + std::to_string(pid));
      if (ops.thaw) (void)ops.thaw();
      return st;
    }
  }
  return ops.thaw ? ops.thaw() : OkStatus();
}

}  // namespace

Status KillUntilEmpty(const KillOps& ops, const std::string& what) {
  constexpr int kMaxRounds = 500;  // ~1 s: dying processes may be in uninterruptible sleep
  size_t left = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    AB_ASSIGN_OR_RETURN(std::vector<pid_t> pids, ops.list());
    if (pids.empty()) return OkStatus();
    left = pids.size();
    // Re-kill only every few rounds: a round is cheap but dying processes need time to go.
    if (round % 10 == 0) AB_RETURN_IF_ERROR(KillRound(ops, pids).WithContext(what));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return Internal(what + ": " + std::to_string(left) + " process(es) still alive after SIGKILL");
}

Status RemoveCgroupDir(const std::string& path) {
  constexpr int kMaxTries = 100;
  for (int i = 0;; ++i) {
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return OkStatus();
    if (errno != EBUSY || i == kMaxTries) return ErrnoStatus("rmdir " + path);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

namespace {

// Subdirectories of a cgroup directory are its child cgroups; files are interface files.
StatusOr<std::vector<std::string>> ChildCgroups(const std::string& dir) {
  AB_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDir(dir));
  std::vector<std::string> children;
  for (const auto& name : names) {
    struct stat st;
    std::string path = dir + "/" + name;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) children.push_back(path);
  }
  return children;
}

}  // namespace

StatusOr<std::vector<pid_t>> ListPidsRecursive(const CgroupFiles& files, const std::string& dir) {
  AB_ASSIGN_OR_RETURN(std::string procs, files.Read(dir + "/cgroup.procs"));
  std::vector<pid_t> pids = ParsePids(procs);
  AB_ASSIGN_OR_RETURN(std::vector<std::string> children, ChildCgroups(dir));
  for (const auto& child : children) {
    AB_ASSIGN_OR_RETURN(std::vector<pid_t> more, ListPidsRecursive(files, child));
    pids.insert(pids.end(), more.begin(), more.end());
  }
  return pids;
}

Status RemoveCgroupTree(const std::string& dir) {
  auto children = ChildCgroups(dir);
  if (!children.ok()) {
    return children.status().code() == StatusCode::kNotFound ? OkStatus() : children.status();
  }
  for (const auto& child : *children) AB_RETURN_IF_ERROR(RemoveCgroupTree(child));
  return RemoveCgroupDir(dir);
}

std::optional<uint64_t> LimitValue(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text == "max") return UINT64_MAX;
  return KeyedValue("v " + std::string(text), "v");
}

}  // namespace agentbox::cgroup_internal

namespace agentbox {

std::vector<std::string> CgroupDirs(const CgroupHost& host, const std::string& name) {
  if (host.version == CgroupVersion::kV2) return {host.v2_parent + "/" + name};
  std::vector<std::string> dirs;
  for (const auto& c : host.v1_controllers) {
    std::string dir = c.parent + "/" + name;
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  return dirs;
}

bool CgroupIsEmpty(const CgroupHost& host, const std::string& name) {
  for (const std::string& dir : CgroupDirs(host, name)) {
    if (!PathExists(dir)) continue;
    auto procs = ReadFile(dir + "/cgroup.procs");
    if (!procs.ok() || procs->find_first_not_of(" \n") != std::string::npos) return false;
  }
  return true;
}

Status RemoveCgroupRemains(const CgroupHost& host, const std::string& name) {
  AB_RETURN_IF_ERROR(cgroup_internal::ValidateCgroupName(name));
  Status result = OkStatus();
  for (const std::string& dir : CgroupDirs(host, name)) {
    Status st = cgroup_internal::RemoveCgroupTree(dir);
    if (result.ok()) result = st;
  }
  return result;
}

CgroupStats StatsSince(const CgroupStats& now, const CgroupStats& before) {
  auto delta = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
  CgroupStats d = now;
  d.cpu_ms = now.cpu_ms > before.cpu_ms ? now.cpu_ms - before.cpu_ms : 0;
  d.oom_kills = delta(now.oom_kills, before.oom_kills);
  d.memory_events = delta(now.memory_events, before.memory_events);
  d.pids_events = delta(now.pids_events, before.pids_events);
  d.throttled_periods = delta(now.throttled_periods, before.throttled_periods);
  d.oom_killed = d.oom_kills > 0;
  d.memory_limit_hit = d.memory_events > 0 || d.oom_killed;
  d.pids_limit_hit = d.pids_events > 0;
  d.cpu_throttled = d.throttled_periods > 0;
  return d;
}

}  // namespace agentbox
