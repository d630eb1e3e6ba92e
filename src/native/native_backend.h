// NativeBackend: persistent sandboxes made by our own namespaces, cgroups and seccomp code.
#pragma once

#include <memory>

#include "core/backend.h"
#include "native/cgroup.h"
#include "native/workspace.h"

namespace agentbox {

// state_root: agentbox's state directory (its workspace pool gives private workspaces).
std::unique_ptr<Backend> MakeNativeBackend(const std::string& state_root);

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
