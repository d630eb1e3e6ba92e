// core's WorkspaceStorage on the workspace pool (proc/workspace_pool.h): the one implementation,
// for every backend, since native and docker sandboxes both take their private workspace from
// the pool of the state dir. app hands it to SandboxManager.
#pragma once

#include <memory>
#include <string>

#include "core/workspace_storage.h"

namespace agentbox {

std::shared_ptr<WorkspaceStorage> MakePoolWorkspaceStorage(const std::string& state_root);

}  // namespace agentbox
