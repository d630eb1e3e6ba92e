// The backends this build has, handed to SandboxManager (core names no backend).
#pragma once

#include "core/backend.h"

namespace agentbox {

// "native" and "docker", in that order (gc collects their leftovers in it).
BackendList BuiltInBackends();

}  // namespace agentbox
