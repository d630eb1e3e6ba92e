// `agentbox version`
#include "app/cli.h"

namespace agentbox {

int VersionSubcommand(const Args& args) {
  if (IsHelpRequest(args)) {
    WriteStdout("Usage: agentbox version\n\nPrints the version of agentbox.\n");
    return 0;
  }
  if (!args.empty()) return FailWith(InvalidArgument("version: takes no arguments"));
  WriteStdout(std::string("agentbox ") + kAgentboxVersion + "\n");
  return 0;
}

}  // namespace agentbox
