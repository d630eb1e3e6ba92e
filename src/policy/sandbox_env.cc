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

std::vector<std::pair<std::string, std::string>> EgressProxyEnvironment(uint16_t port) {
  const std::string http = "http://127.0.0.1:" + std::to_string(port);
  const std::string socks = "socks5h://127.0.0.1:" + std::to_string(port);
  const std::string local = "localhost,127.0.0.1,::1";
  return {{"HTTP_PROXY", http},  {"HTTPS_PROXY", http}, {"ALL_PROXY", socks}, {"http_proxy", http},
          {"https_proxy", http}, {"all_proxy", socks},  {"NO_PROXY", local},  {"no_proxy", local}};
}

}  // namespace agentbox
