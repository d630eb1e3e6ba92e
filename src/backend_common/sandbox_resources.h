// What every backend's persistent sandbox shares: core's Backend types filled from proc's cgroups
// and workspaces. Its own layer (above core and proc, below the backends) because core names
// nothing of proc/ and backends never include each other (src/LAYERS).
#pragma once

#include <string>

#include "core/backend.h"
#include "core/sandbox_record.h"
#include "proc/cgroup.h"
#include "proc/workspace.h"

namespace agentbox {

// A cgroup's counters as the Backend interface reports them (native and docker cgroups alike).
ResourceSnapshot ToResourceSnapshot(const CgroupStats& stats);

// What the persistent sandbox of `record` needs of the workspace layer, for every backend: the
// request at create, the release at destroy, the quota's reading for each exec.
WorkspaceRequest SandboxWorkspaceRequest(const SandboxRecord& record,
                                         const std::string& state_root);
void KeepWorkspace(const Workspace& ws, SandboxRecord& record);
void ReleaseSandboxWorkspace(const SandboxRecord& record, const std::string& state_root);
void AddWorkspaceUsage(const SandboxRecord& record, ResourceSnapshot& snapshot);

}  // namespace agentbox
