#include "policy/sandbox_env.h"

#include "spec/sandbox_spec.h"

namespace agentbox {

std::vector<std::string> BuildSandboxEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> vars = {
      {"PATH", kSandboxPath}, {"HOME", kWorkspaceDir}, {"LANG", "C.UTF-8"}};
  for (const auto& [key, value] : extra) {
    bool replaced = false;
    for (auto& var : vars) {
      if (var.first == key) {
        var.second = value;
        replaced = true;
      }
    }
    if (!replaced) vars.emplace_back(key, value);
  }
  std::vector<std::string> env;
  env.reserve(vars.size());
  for (const auto& [key, value] : vars) env.push_back(key + "=" + value);
  return env;
}

}  // namespace agentbox
