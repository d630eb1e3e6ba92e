// The command's environment: clean (CONTRACT §2), nothing inherited from the host.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace agentbox {

// PATH, HOME=/workspace, LANG=C.UTF-8, then `extra` in order; a later key replaces an earlier
// one (so -e PATH=... works). Returns "KEY=VALUE" strings.
std::vector<std::string> BuildSandboxEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra);

}  // namespace agentbox
