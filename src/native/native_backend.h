// NativeBackend: persistent sandboxes made by our own namespaces, cgroups and seccomp code.
#pragma once

#include <memory>

#include "core/backend.h"

namespace agentbox {

// state_root: agentbox's state directory (its workspace pool gives private workspaces).
std::unique_ptr<Backend> MakeNativeBackend(const std::string& state_root);

}  // namespace agentbox
