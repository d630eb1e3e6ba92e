// What crashed native runs and sandboxes leave behind: cgroups and private temp workspaces.
#include "native/native_gc.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "native/cgroup.h"
#include "native/workspace.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

bool ProcessExists(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// "run-<pid>-<hex>" (a run's cgroup) or "agentbox-ws-<pid>-XXXXXX": the pid that made it.
pid_t CreatorPid(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return 0;
  return static_cast<pid_t>(std::atoi(name.c_str() + prefix.size()));
}

std::string CgroupListingDir(const CgroupHost& host) {
  if (host.version == CgroupVersion::kV2) return host.v2_parent;
  for (const auto& c : host.v1_controllers) {
    if (c.name == "memory") return c.parent;
  }
  return "";
}

bool HasProcesses(const std::string& cgroup_dir) {
  auto procs = ReadFile(cgroup_dir + "/cgroup.procs");
  return !procs.ok() || procs->find_first_not_of(" \n") != std::string::npos;
}

// A sandbox cgroup still holding processes may belong to another state dir's live sandbox
// (AGENTBOX_STATE_DIR differs, the cgroup parent is shared): never touch it. A dead sandbox's
// cgroup is empty, since its PID namespace died with its agent.
bool IsOrphanCgroup(const std::string& dir, const std::string& name,
                    const std::vector<std::string>& live_ids) {
  if (name.rfind("sb-", 0) == 0) {
    return std::find(live_ids.begin(), live_ids.end(), name.substr(3)) == live_ids.end() &&
           !HasProcesses(dir + "/" + name);
  }
  pid_t creator = CreatorPid(name, "run-");
  return creator > 0 && !ProcessExists(creator);
}

void CollectCgroups(const std::vector<std::string>& live_ids, std::vector<std::string>& removed) {
  auto host = DetectCgroupHost();
  if (!host.ok()) return;
  const std::string dir = CgroupListingDir(*host);
  auto names = ListDir(dir);
  if (!names.ok()) return;
  for (const std::string& name : *names) {
    if (!IsOrphanCgroup(dir, name, live_ids)) continue;
    auto cgroup = OpenCgroup(*host, name);
    if (!cgroup.ok()) continue;
    if ((*cgroup)->KillAll().ok() && (*cgroup)->Remove().ok()) removed.push_back("cgroup " + name);
  }
}

void CollectRunWorkspaces(std::vector<std::string>& removed) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp && *tmp ? tmp : "/tmp";
  auto names = ListDir(dir);
  if (!names.ok()) return;
  for (const std::string& name : *names) {
    pid_t creator = CreatorPid(name, kRunWorkspacePrefix);
    if (creator <= 0 || ProcessExists(creator)) continue;
    Workspace ws;
    ws.host_path = dir + "/" + name;
    ws.temporary = true;
    RemoveTemporaryWorkspace(ws);
    removed.push_back("workspace " + ws.host_path);
  }
}

}  // namespace

std::vector<std::string> CollectNativeGarbage(const std::vector<std::string>& live_ids) {
  std::vector<std::string> removed;
  CollectCgroups(live_ids, removed);
  CollectRunWorkspaces(removed);
  return removed;
}

}  // namespace agentbox
