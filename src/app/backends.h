// The backends this build has, handed to SandboxManager (core names no backend), and the
// SandboxManager as app makes it.
#pragma once

#include "core/backend.h"
#include "core/sandbox_manager.h"

namespace agentbox {

// "native", "docker" and "kubernetes", in that order (gc collects their leftovers in it).
BackendList BuiltInBackends();

// A SandboxManager of these backends over `store` (or the state dir of this process), whose
// claimed warm sandboxes are replaced by a detached `agentbox pool fill --key KEY`.
SandboxManager MakeSandboxManager(StateStore store);
StatusOr<SandboxManager> OpenSandboxManager();

}  // namespace agentbox
