// Garbage of the native backend: see Backend::CollectGarbage.
#pragma once

#include <string>
#include <vector>

namespace agentbox {

// state_root: its workspace pool and quota holds are swept too (they serve every backend).
std::vector<std::string> CollectNativeGarbage(const std::string& state_root,
                                              const std::vector<std::string>& live_ids);

}  // namespace agentbox
