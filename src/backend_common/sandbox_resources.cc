#include "backend_common/sandbox_resources.h"

#include "core/snapshot_store.h"
#include "proc/disk_quota.h"

namespace agentbox {

ResourceSnapshot ToResourceSnapshot(const CgroupStats& stats) {
  ResourceSnapshot s;
  s.memory_bytes = stats.peak_memory_bytes;
  s.cpu_ms = stats.cpu_ms;
  s.oom_kills = stats.oom_kills;
  s.memory_events = stats.memory_events;
  s.pids_events = stats.pids_events;
  s.throttled_periods = stats.throttled_periods;
  s.memory_limit_bytes = stats.memory_limit_bytes;
  s.pids_limit = stats.pids_limit;
  return s;
}

WorkspaceRequest SandboxWorkspaceRequest(const SandboxRecord& record,
                                         const std::string& state_root) {
  WorkspaceRequest request = WorkspaceRequestFor(record.spec, state_root, "sb-" + record.id);
  request.fallback_dir = record.state_dir + "/workspace";
  request.source_volume = record.workspace_source;
  return request;
}

void KeepWorkspace(const Workspace& ws, SandboxRecord& record) {
  record.workspace = ws.host_path;
  record.workspace_temporary = ws.temporary;
  record.disk_quota = ws.quota;
}

void ReleaseSandboxWorkspace(const SandboxRecord& record, const std::string& state_root) {
  // Its snapshots go with it (a fork made from one is a volume of its own and stays).
  ReleaseVolumes(state_root, SnapshotVolumePrefix(record.id));
  if (record.workspace.empty()) return;  // none was made
  ReleaseWorkspace(state_root, "sb-" + record.id, record.workspace, record.workspace_temporary,
                   record.disk_quota);
}

void AddWorkspaceUsage(const SandboxRecord& record, ResourceSnapshot& snapshot) {
  auto reading = ReadWorkspaceQuota(record.workspace, record.disk_quota);
  if (!reading.ok()) return;
  snapshot.disk_added_bytes = reading->added_bytes;
  snapshot.disk_at_limit = reading->at_limit;
}

}  // namespace agentbox
