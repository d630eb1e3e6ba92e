#include "agent/agent_options.h"

namespace agentbox {

StatusOr<AgentOptions> ParseAgentArgs(const std::vector<std::string>& args) {
  AgentOptions options;
  size_t i = 0;
  if (i < args.size() && args[i] == kAgentDiskWatchFlag) {
    options.disk_watch = true;
    ++i;
  }
  if (i == args.size()) return options;
  if (args[i] != "--listen") return InvalidArgument("unknown argument \"" + args[i] + "\"");
  if (i + 1 == args.size() || args[i + 1].empty()) {
    return InvalidArgument("--listen needs a socket path");
  }
  options.mode = AgentMode::kContainer;
  options.listen_path = args[i + 1];
  i += 2;
  if (i < args.size() && args[i] == kAgentEgressRelayFlag) {
    if (i + 1 == args.size() || args[i + 1].empty()) {
      return InvalidArgument(std::string(kAgentEgressRelayFlag) + " needs a socket path");
    }
    options.egress_relay_path = args[i + 1];
    i += 2;
  }
  if (i < args.size()) return InvalidArgument("unexpected argument \"" + args[i] + "\"");
  return options;
}

}  // namespace agentbox
