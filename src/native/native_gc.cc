// What crashed native runs and sandboxes leave behind: cgroups and private temp workspaces.
#include "native/native_gc.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

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

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The cgroups under the agentbox parent, in any hierarchy: a removal cut short (v1) may have
// left a cgroup in some hierarchies only.
std::set<std::string> CgroupNames(const CgroupHost& host) {
  std::set<std::string> names;
  for (const std::string& parent : CgroupDirs(host, "")) {
    auto listed = ListDir(parent);
    for (const std::string& name : listed.ok() ? *listed : std::vector<std::string>{}) {
      if (IsDirectory(parent + name)) names.insert(name);
    }
  }
  return names;
}

// A sandbox cgroup still holding processes may belong to another state dir's live sandbox
// (AGENTBOX_STATE_DIR differs, the cgroup parent is shared): never touch it. A dead sandbox's
// cgroup is empty, since its PID namespace died with its agent.
bool IsOrphanCgroup(const CgroupHost& host, const std::string& name,
                    const std::vector<std::string>& live_ids) {
  if (name.rfind("sb-", 0) == 0) {
    return std::find(live_ids.begin(), live_ids.end(), name.substr(3)) == live_ids.end() &&
           CgroupIsEmpty(host, name);
  }
  pid_t creator = CreatorPid(name, "run-");
  return creator > 0 && !ProcessExists(creator);
}

void CollectCgroups(const std::vector<std::string>& live_ids, std::vector<std::string>& removed) {
  auto host = DetectCgroupHost();
  if (!host.ok()) return;
  for (const std::string& name : CgroupNames(*host)) {
    if (!IsOrphanCgroup(*host, name, live_ids)) continue;
    auto cgroup = OpenCgroup(*host, name);
    bool gone = cgroup.ok() ? (*cgroup)->KillAll().ok() && (*cgroup)->Remove().ok()
                            : RemoveCgroupRemains(*host, name).ok();
    if (gone) removed.push_back("cgroup " + name);
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
