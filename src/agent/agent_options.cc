#include "agent/agent_options.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

#include "policy/image_user.h"
#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"
#include "spec/units.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// `--listen-tcp HOST:PORT (--token-file PATH | --token-by-claim)` from args[i] on, the last
// arguments.
StatusOr<AgentOptions> ParseTcpMode(const std::vector<std::string>& args, size_t i,
                                    AgentOptions options) {
  if (i + 1 == args.size()) return InvalidArgument("--listen-tcp needs HOST:PORT");
  AB_RETURN_IF_ERROR(ParseTcpAddress(args[i + 1]).status().WithContext("--listen-tcp"));
  options.mode = AgentMode::kContainer;
  options.listen_tcp = args[i + 1];
  i += 2;
  if (i < args.size() && args[i] == kAgentTokenByClaimFlag) {
    options.token_by_claim = true;
    ++i;
  } else {
    if (i == args.size() || args[i] != kAgentTokenFileFlag) {
      return InvalidArgument("--listen-tcp needs --token-file PATH or --token-by-claim after it");
    }
    if (i + 1 == args.size() || args[i + 1].empty()) {
      return InvalidArgument("--token-file needs a path");
    }
    options.token_file = args[i + 1];
    i += 2;
  }
  if (i < args.size() && args[i] == kAgentEgressRelayTcpFlag) {
    options.egress_relay_tcp = true;
    ++i;
  }
  if (i < args.size()) return InvalidArgument("unexpected argument \"" + args[i] + "\"");
  return options;
}

}  // namespace

StatusOr<AgentOptions> ParseAgentArgs(const std::vector<std::string>& args) {
  AgentOptions options;
  size_t i = 0;
  std::set<std::string> seen;
  const std::set<std::string> leading = {kAgentDiskWatchFlag, kAgentUserFlag, kAgentRandomSeedFlag,
                                         kAgentOpenFilesFlag};
  while (i < args.size() && leading.count(args[i]) != 0) {
    const std::string& flag = args[i];
    if (!seen.insert(flag).second) return InvalidArgument("\"" + flag + "\" given twice");
    if (flag == kAgentDiskWatchFlag) {
      options.disk_watch = true;
      ++i;
      continue;
    }
    if (i + 1 == args.size()) return InvalidArgument(flag + " needs a value");
    const std::string& value = args[i + 1];
    if (flag == kAgentUserFlag) {
      AB_ASSIGN_OR_RETURN(options.user, ParseSandboxUser(value));
    } else if (flag == kAgentRandomSeedFlag) {
      AB_ASSIGN_OR_RETURN(options.random_seed, ParseCount(value));
    } else {
      AB_ASSIGN_OR_RETURN(options.open_files, ParseCount(value));
      if (options.open_files == 0) return InvalidArgument(flag + " needs a positive count");
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
  if (args[i] == kAgentListenTcpFlag) return ParseTcpMode(args, i, std::move(options));
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

Status ReadAgentToken(AgentOptions* options) {
  if (options->token_file.empty()) return OkStatus();
  const std::string& path = options->token_file;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid())
    return InvalidArgument("cannot open the token file " + path + ": " + std::strerror(errno));
  std::string text;
  char buffer[1024];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return InvalidArgument("cannot read the token file " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kAgentTokenMaxBytes + 2) break;  // CheckAgentToken refuses it
  }
  auto token = CheckAgentToken(text);
  if (!token.ok()) return token.status().WithContext(path);
  options->token = std::move(*token);
  return OkStatus();
}

}  // namespace agentbox
