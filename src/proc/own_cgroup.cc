// OwnCgroupLocation: this process's cgroup from inside a container (see proc/own_cgroup.h).
#include "proc/own_cgroup.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "sys/file_util.h"
#include "sys/mountinfo.h"

namespace agentbox {
namespace {

// What ReadStats reads on v1 (proc/cgroup_v1.cc); freezer is only for killing.
constexpr const char* kV1Controllers[] = {"memory", "pids", "cpu", "cpuacct"};

// "4:memory:/a/b" lines: the path of the line naming `controller` ("" for v2's "0::" line).
std::string PathOf(std::string_view self_cgroup, const std::string& controller) {
  std::istringstream lines{std::string(self_cgroup)};
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find(':');
    size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::istringstream names(line.substr(first + 1, second - first - 1));
    bool named = controller.empty() && second == first + 1;
    for (std::string c; !named && std::getline(names, c, ',');) named = c == controller;
    if (named) return line.substr(second + 1);
  }
  return "/";
}

// The process's path below the mount's root: "" when it is the root itself, or when the path is
// not below it (a cgroup namespace shows "/" or "/../x" for paths outside its own root).
std::string Below(const std::string& path, const std::string& mount_root) {
  if (path.find("/..") != std::string::npos) return "";
  if (mount_root == "/") return path == "/" ? "" : path;
  if (path == mount_root) return "";
  if (path.rfind(mount_root + "/", 0) == 0) return path.substr(mount_root.size());
  return "";
}

bool Under(const std::string& path, const std::string& root) {
  return path.rfind(root + "/", 0) == 0;
}

const MountInfoEntry* V1Mount(const std::vector<MountInfoEntry>& mounts, const std::string& root,
                              const std::string& controller) {
  for (const auto& m : mounts) {
    if (m.fs_type != "cgroup" || !Under(m.mount_point, root)) continue;
    const auto& opts = m.super_options;
    if (std::find(opts.begin(), opts.end(), controller) != opts.end()) return &m;
  }
  return nullptr;
}

}  // namespace

StatusOr<CgroupLocation> OwnCgroupLocation(std::string_view mountinfo, std::string_view self_cgroup,
                                           const std::string& sysfs_root) {
  std::vector<MountInfoEntry> mounts = ParseMountInfo(mountinfo);
  // The last mount at a point is the one on top.
  for (auto m = mounts.rbegin(); m != mounts.rend(); ++m) {
    if (m->mount_point != sysfs_root) continue;
    if (m->fs_type != "cgroup2") break;
    return CgroupLocation{
        {kUnifiedHierarchy, sysfs_root + Below(PathOf(self_cgroup, ""), m->root)}};
  }
  CgroupLocation location;
  for (const char* controller : kV1Controllers) {
    const MountInfoEntry* m = V1Mount(mounts, sysfs_root, controller);
    // A hierarchy not mounted: where it would be, so its counters read as missing (0).
    location[controller] = m == nullptr
                               ? sysfs_root + "/" + controller
                               : m->mount_point + Below(PathOf(self_cgroup, controller), m->root);
    if (m == nullptr && std::string(controller) == "memory") {
      return NotFound("no cgroup2 at " + sysfs_root +
                      " and no cgroup v1 memory hierarchy under it");
    }
  }
  return location;
}

StatusOr<CgroupStats> ReadOwnCgroupStats() {
  AB_ASSIGN_OR_RETURN(std::string mountinfo, ReadFile("/proc/self/mountinfo"));
  AB_ASSIGN_OR_RETURN(std::string self_cgroup, ReadFile("/proc/self/cgroup"));
  AB_ASSIGN_OR_RETURN(CgroupLocation location, OwnCgroupLocation(mountinfo, self_cgroup));
  AB_ASSIGN_OR_RETURN(auto cgroup, OpenCgroupAt(location));
  return cgroup->ReadStats();
}

}  // namespace agentbox
