// Where the in-sandbox agent binary is, for every backend.
#pragma once

#include <string>

namespace agentbox {

// The agent binary: $AGENTBOX_AGENT, else agentbox-agent next to the running agentbox (a build
// tree), else ../libexec/agentbox/agentbox-agent from it (an install: cmake --install, the .deb).
std::string AgentBinaryPath();

}  // namespace agentbox
