// Where the in-sandbox agent binary, and agentbox's other helper binaries, are.
#pragma once

#include <string>

namespace agentbox {

// A helper binary of agentbox: $env_var, else `name` beside the running agentbox (a build tree),
// else ../libexec/agentbox/`name` from it (an install: cmake --install, the .deb, which keep
// helpers nobody types off PATH).
std::string HelperBinaryPath(const char* env_var, const std::string& name);

// The agent binary: HelperBinaryPath("AGENTBOX_AGENT", "agentbox-agent").
std::string AgentBinaryPath();

}  // namespace agentbox
