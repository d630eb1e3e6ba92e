// A SandboxSpec as a policy file (JSON): how the effective policy is stored and shown.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

// Every key of the policy format, sizes in bytes, so ParsePolicyJson reads it back unchanged.
nlohmann::json SpecToPolicyJson(const SandboxSpec& spec);
// Defaults overlaid with a policy object (strict, like a policy file).
StatusOr<SandboxSpec> SpecFromPolicyJson(const nlohmann::json& policy);

}  // namespace agentbox
