// DetectCgroupHost: which cgroup version this host speaks and where sandbox cgroups go.
//
// Host side, read-only: detection creates nothing (the doctor calls it and must leave nothing
// behind); CreateCgroup makes the parent directories on first use.
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "proc/cgroup_internal.h"
#include "sys/file_util.h"
#include "sys/mountinfo.h"

namespace agentbox {
namespace cgroup_internal {
namespace {

constexpr const char* kV2Needed[] = {"memory", "pids", "cpu"};
constexpr const char* kV1Needed[] = {"memory", "pids", "cpu", "cpuacct", "freezer"};
constexpr const char* kDefaultParent = "agentbox";
constexpr const char* kMemswFile = "memory.memsw.limit_in_bytes";

bool HasWord(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    if (w == word) return true;
  }
  return false;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

bool IsUnder(const std::string& path, const std::string& root) {
  return path == root || path.rfind(root + "/", 0) == 0;
}

// $AGENTBOX_CGROUP_PARENT, relative to the hierarchy root; never allowed to climb out of it.
StatusOr<std::string> ParentRelative(const DetectInput& in) {
  if (!in.parent_override) return std::string(kDefaultParent);
  std::string rel = *in.parent_override;
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  if (rel.empty() || ("/" + rel + "/").find("/../") != std::string::npos) {
    return InvalidArgument("AGENTBOX_CGROUP_PARENT='" + *in.parent_override +
                           "' must be a path below the cgroup hierarchy root, without '..'");
  }
  return rel;
}

// "0::/user.slice/..." -> "/user.slice/...": where this process sits in the v2 hierarchy.
std::string SelfV2Path(const std::string& self_cgroup) {
  std::istringstream in(self_cgroup);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "/";
}

std::vector<std::string> MissingControllers(const std::string& controllers_text) {
  std::vector<std::string> missing;
  for (const char* c : kV2Needed) {
    if (!HasWord(controllers_text, c)) missing.push_back(c);
  }
  return missing;
}

// Not root: only a subtree delegated to us (writable, controllers available) can be used.
StatusOr<std::string> DelegatedParent(const std::string& dir) {
  auto controllers = RealCgroupFiles().Read(dir + "/cgroup.controllers");
  std::vector<std::string> missing = MissingControllers(controllers.ok() ? *controllers : "");
  bool writable = ::access(dir.c_str(), W_OK) == 0 &&
                  ::access((dir + "/cgroup.subtree_control").c_str(), W_OK) == 0;
  if (writable && missing.empty()) return dir;
  std::string what = !writable ? "is not writable by this user (not delegated)"
                               : "does not offer the " + Join(missing) + " controller(s)";
  return Unavailable("not root, and the cgroup v2 subtree " + dir + " " + what +
                     ": run as root, or inside a delegated cgroup (e.g. systemd-run --user "
                     "--scope -p Delegate=yes), or set AGENTBOX_CGROUP_PARENT to one");
}

StatusOr<CgroupHost> DetectV2(const DetectInput& in) {
  auto controllers = RealCgroupFiles().Read(in.sysfs_root + "/cgroup.controllers");
  if (!controllers.ok()) return Unavailable(controllers.status().message());
  std::vector<std::string> missing = MissingControllers(*controllers);
  if (!missing.empty()) {
    return Unavailable("cgroup v2 at " + in.sysfs_root + " lacks the " + Join(missing) +
                       " controller(s) (they may be bound to cgroup v1 hierarchies; boot with "
                       "systemd.unified_cgroup_hierarchy=1 or enable them)");
  }
  CgroupHost host;
  host.version = CgroupVersion::kV2;
  if (in.is_root || in.parent_override) {
    AB_ASSIGN_OR_RETURN(std::string rel, ParentRelative(in));
    host.v2_parent = in.sysfs_root + "/" + rel;
    if (in.is_root) return host;
  } else {
    std::string self = SelfV2Path(in.self_cgroup);
    host.v2_parent = in.sysfs_root + (self == "/" ? "" : self);
  }
  AB_ASSIGN_OR_RETURN(host.v2_parent, DelegatedParent(host.v2_parent));
  host.v2_root = in.sysfs_root;
  return host;
}

const MountInfoEntry* FindV1Mount(const std::vector<MountInfoEntry>& mounts,
                                  const std::string& root, const std::string& controller) {
  for (const auto& m : mounts) {
    if (m.fs_type != "cgroup" || !IsUnder(m.mount_point, root)) continue;
    for (const auto& opt : m.super_options) {
      if (opt == controller) return &m;
    }
  }
  return nullptr;
}

Status CheckV1Memory(const DetectInput& in, const std::string& memory_mount) {
  if (!PathExists(memory_mount + "/memory.limit_in_bytes")) {
    return Unavailable("cgroup v1 memory hierarchy at " + memory_mount +
                       " has no memory.limit_in_bytes");
  }
  // Without memsw the limit covers RAM only and the sandbox could spill into swap; with no swap
  // on the host there is nothing to spill into, so the plain limit is the whole guarantee.
  if (in.swap_enabled && !PathExists(memory_mount + "/" + kMemswFile)) {
    return Unavailable(std::string("cgroup v1 memory controller has no ") + kMemswFile +
                       ": boot with swapaccount=1 to enforce a memory limit without swap (or "
                       "turn swap off)");
  }
  return OkStatus();
}

StatusOr<CgroupHost> DetectV1(const DetectInput& in, const std::vector<MountInfoEntry>& mounts) {
  CgroupHost host;
  host.version = CgroupVersion::kV1;
  std::vector<std::string> missing;
  AB_ASSIGN_OR_RETURN(std::string rel, ParentRelative(in));
  for (const char* c : kV1Needed) {
    const MountInfoEntry* m = FindV1Mount(mounts, in.sysfs_root, c);
    if (m == nullptr) {
      missing.push_back(c);
      continue;
    }
    if (std::string(c) == "memory") AB_RETURN_IF_ERROR(CheckV1Memory(in, m->mount_point));
    host.v1_controllers.push_back({c, m->mount_point + "/" + rel, m->mount_point});
  }
  if (!missing.empty()) {
    return Unavailable("cgroup v1 has no " + Join(missing) + " hierarchy mounted under " +
                       in.sysfs_root + " (mount them, or boot with cgroup v2)");
  }
  if (!in.is_root) {
    return Unavailable(
        "cgroup v1 cannot be delegated safely to a non-root user: run agentbox "
        "as root, or boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1)");
  }
  return host;
}

}  // namespace

StatusOr<CgroupHost> DetectCgroupHostFrom(const DetectInput& in) {
  std::vector<MountInfoEntry> mounts = ParseMountInfo(in.mountinfo);
  Status v2_error = Unavailable("no cgroup2 filesystem mounted at " + in.sysfs_root);
  for (const auto& m : mounts) {
    if (m.fs_type != "cgroup2" || m.mount_point != in.sysfs_root) continue;
    auto v2 = DetectV2(in);
    if (v2.ok() || v2.status().code() != StatusCode::kUnavailable) return v2;
    v2_error = v2.status();
  }
  bool any_v1 = false;
  for (const auto& m : mounts)
    any_v1 |= m.fs_type == "cgroup" && IsUnder(m.mount_point, in.sysfs_root);
  if (!any_v1) return v2_error;
  return DetectV1(in, mounts);
}

}  // namespace cgroup_internal

StatusOr<CgroupHost> DetectCgroupHost(const std::string& sysfs_root) {
  using cgroup_internal::DetectInput;
  DetectInput in;
  in.sysfs_root = sysfs_root;
  AB_ASSIGN_OR_RETURN(in.mountinfo, ReadFile("/proc/self/mountinfo"));
  AB_ASSIGN_OR_RETURN(in.self_cgroup, ReadFile("/proc/self/cgroup"));
  auto swaps = ReadFile("/proc/swaps");  // absent when the kernel has no swap support
  in.swap_enabled = swaps.ok() && cgroup_internal::SwapEnabled(*swaps);
  in.is_root = ::geteuid() == 0;
  if (const char* parent = std::getenv("AGENTBOX_CGROUP_PARENT")) in.parent_override = parent;
  return cgroup_internal::DetectCgroupHostFrom(in);
}

}  // namespace agentbox
