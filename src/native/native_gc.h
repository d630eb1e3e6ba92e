// Garbage of the native backend: see Backend::CollectGarbage.
#pragma once

#include <string>
#include <vector>

namespace agentbox {

std::vector<std::string> CollectNativeGarbage(const std::vector<std::string>& live_ids);

}  // namespace agentbox
