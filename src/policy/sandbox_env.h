// The command's environment: clean (docs/contract.md §2), nothing inherited from the host.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace agentbox {

// PATH, HOME=/workspace, LANG=C.UTF-8, then `extra` in order; a later key replaces an earlier
// one (so -e PATH=... works). Returns "KEY=VALUE" strings.
std::vector<std::string> BuildSandboxEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra);

// What tells a command where agentbox's egress proxy is (allow_hosts): HTTP_PROXY and
// HTTPS_PROXY (http://127.0.0.1:PORT), ALL_PROXY (socks5h://, names resolved by the proxy), their
// lowercase twins (curl reads only http_proxy), and NO_PROXY for the sandbox's own loopback.
std::vector<std::pair<std::string, std::string>> EgressProxyEnvironment(uint16_t port);

}  // namespace agentbox
