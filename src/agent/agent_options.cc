#include "agent/agent_options.h"

namespace agentbox {

StatusOr<AgentOptions> ParseAgentArgs(const std::vector<std::string>& args) {
  AgentOptions options;
  if (args.empty()) return options;
  if (args[0] != "--listen") return InvalidArgument("unknown argument \"" + args[0] + "\"");
  if (args.size() < 2 || args[1].empty()) return InvalidArgument("--listen needs a socket path");
  if (args.size() > 2) return InvalidArgument("unexpected argument \"" + args[2] + "\"");
  options.mode = AgentMode::kContainer;
  options.listen_path = args[1];
  return options;
}

}  // namespace agentbox
