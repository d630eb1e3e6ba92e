// What crashed native runs and sandboxes leave behind: cgroups, private workspaces (volumes of
// the workspace pool, or temp dirs where there is no pool) and holds on project quotas.
#include "native/native_gc.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <set>

#include "native/run_name.h"
#include "proc/cgroup.h"
#include "proc/disk_quota.h"
#include "proc/workspace.h"
#include "proc/workspace_pool.h"
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

// A cgroup is made empty and its first process moved in later: one made this last minute may
// be another state dir's create, or another PID namespace's run, under way (a gc here would
// fail it with "cgroup.procs: No such file"). No create or run takes a minute between the two.
bool CgroupIsNew(const CgroupHost& host, const std::string& name) {
  const time_t now = ::time(nullptr);
  for (const std::string& dir : CgroupDirs(host, name)) {
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0 && now - st.st_ctime < 60) return true;
  }
  return false;
}

// A sandbox cgroup still holding processes may belong to another state dir's live sandbox
// (AGENTBOX_STATE_DIR differs, the cgroup parent is shared): never touch it, nor a new one. A
// dead sandbox's cgroup is empty, since its PID namespace died with its agent.
bool IsOrphanCgroup(const CgroupHost& host, const std::string& name,
                    const std::vector<std::string>& live_ids) {
  if (name.rfind("sb-", 0) == 0) {
    return std::find(live_ids.begin(), live_ids.end(), name.substr(3)) == live_ids.end() &&
           CgroupIsEmpty(host, name) && !CgroupIsNew(host, name);
  }
  const auto run = RunCreatorOf(name);
  if (!run) return false;
  if (run->pid_is_ours) return !ProcessExists(run->pid);
  // Another PID namespace's run (run_name.h): its pid means nothing here, so only what no
  // process holds, and no run is still setting up, is removed.
  return CgroupIsEmpty(host, name) && !CgroupIsNew(host, name);
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
    RemoveTree(dir + "/" + name);
    removed.push_back("workspace " + dir + "/" + name);
  }
}

// A volume or quota hold is named after its sandbox ("sb-<id>", a snapshot of it
// "snap-<id>-<snap>") or run ("run-<pid>-<hex>"): kept while that one lives. The pool is
// shared by every backend of the state dir, and live_ids are all of them.
bool StorageOwnerLives(const std::string& name, const std::vector<std::string>& live_ids) {
  auto lives = [&live_ids](const std::string& id) {
    return std::find(live_ids.begin(), live_ids.end(), id) != live_ids.end();
  };
  if (name.rfind("sb-", 0) == 0) return lives(name.substr(3));
  if (name.rfind("snap-", 0) == 0) return lives(name.substr(5, name.find('-', 5) - 5));
  const auto run = RunCreatorOf(name);
  // A name of nobody's making, or another PID namespace's run: not ours to judge.
  return !run || !run->pid_is_ours || ProcessExists(run->pid);
}

}  // namespace

std::vector<std::string> CollectNativeGarbage(const std::string& state_root,
                                              const std::vector<std::string>& live_ids) {
  std::vector<std::string> removed;
  CollectCgroups(live_ids, removed);
  CollectRunWorkspaces(removed);
  auto keep = [&live_ids](const std::string& name) { return StorageOwnerLives(name, live_ids); };
  for (std::string& line : SweepDirectoryQuotas(QuotaHoldersDir(state_root), keep)) {
    removed.push_back(std::move(line));
  }
  for (std::string& line : WorkspacePool::Sweep(WorkspaceStorageDir(state_root), keep)) {
    removed.push_back(std::move(line));
  }
  return removed;
}

}  // namespace agentbox
