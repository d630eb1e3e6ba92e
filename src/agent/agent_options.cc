#include "agent/agent_options.h"

#include <cstdlib>

#include "policy/image_user.h"
#include "spec/units.h"

namespace agentbox {

StatusOr<AgentOptions> ParseAgentArgs(const std::vector<std::string>& args) {
  AgentOptions options;
  size_t i = 0;
  bool user_given = false;
  while (i < args.size() && (args[i] == kAgentDiskWatchFlag || args[i] == kAgentUserFlag ||
                             args[i] == kAgentRandomSeedFlag)) {
    const bool repeated = args[i] == kAgentDiskWatchFlag ? options.disk_watch
                          : args[i] == kAgentUserFlag    ? user_given
                                                         : options.random_seed.has_value();
    if (repeated) return InvalidArgument("\"" + args[i] + "\" given twice");
    if (args[i] == kAgentDiskWatchFlag) {
      options.disk_watch = true;
      ++i;
      continue;
    }
    if (i + 1 == args.size()) return InvalidArgument(args[i] + " needs a value");
    if (args[i] == kAgentUserFlag) {
      AB_ASSIGN_OR_RETURN(options.user, ParseSandboxUser(args[i + 1]));
      user_given = true;
    } else {
      AB_ASSIGN_OR_RETURN(options.random_seed, ParseCount(args[i + 1]));
    }
    i += 2;
  }
  if (i + 1 < args.size() && args[i] == kAgentClockStartFlag) {
    char* end = nullptr;
    const double seconds = std::strtod(args[i + 1].c_str(), &end);
    if (args[i + 1].empty() || *end != '\0' || !(seconds >= 0)) {
      return InvalidArgument("--clock-start needs a number of seconds, got \"" + args[i + 1] +
                             "\"");
    }
    options.clock_start = seconds;
    i += 2;
    if (i == args.size()) return InvalidArgument("--clock-start is for --listen (container mode)");
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
