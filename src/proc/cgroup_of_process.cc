// OpenCgroupOf: the cgroup some other manager made (a docker container's), found from the
// /proc/PID/cgroup text of a process inside it, so its counters read like our own cgroups'.
#include <sstream>

#include "proc/cgroup.h"

namespace agentbox {
namespace {

// "/docker/abc" -> {"/docker", "abc"}.
std::pair<std::string, std::string> SplitCgroupPath(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace

StatusOr<std::unique_ptr<Cgroup>> OpenCgroupOf(const CgroupHost& host,
                                               const std::string& proc_cgroup) {
  CgroupHost theirs = host;
  std::string name;
  std::istringstream lines(proc_cgroup);
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find(':');
    size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    auto [dir, base] = SplitCgroupPath(line.substr(second + 1));
    if (host.version == CgroupVersion::kV2 && controllers.empty()) {
      theirs.v2_parent = host.v2_root + dir;
      name = base;
    }
    if (host.version != CgroupVersion::kV1) continue;
    std::istringstream names(controllers);
    for (std::string c; std::getline(names, c, ',');) {
      for (auto& ctl : theirs.v1_controllers) {
        if (ctl.name != c) continue;
        ctl.parent = ctl.mount_point + dir;
        name = base;
      }
    }
  }
  if (name.empty()) return NotFound("no cgroup found for the process");
  return OpenCgroup(theirs, name);
}

}  // namespace agentbox
