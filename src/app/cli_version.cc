// `agentbox version [--json]`: the version, the commit it was built from and the build type.
#include <nlohmann/json.hpp>

#include "app/cli.h"
#include "base/build_info.h"

namespace agentbox {

const CommandHelp& VersionHelp() {
  static constexpr FlagDef kFlags[] = {
      {"json", 0, "", "print {\"version\", \"commit\", \"build_type\"}"},
      {"help", 'h', "", "show this help"},
  };
  static const CommandHelp help = {
      .name = "version",
      .summary = "print the version, commit and build type",
      .usage = "version [--json]",
      .description =
          "Prints the version of agentbox, the commit it was built from (\"-dirty\" "
          "when the tree had changes, \"unknown\" when built outside git) and the "
          "build type: `agentbox 0.1.0 (commit f785f78c1a2b, RelWithDebInfo)`.",
      .flags = kFlags,
  };
  return help;
}

int VersionSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(VersionHelp(), args, &exit);
  if (!parsed) return exit;
  if (!parsed->rest.empty()) return FailWith(InvalidArgument("version: takes no arguments"));
  if (HasFlag(*parsed, "json")) {
    WriteStdout(nlohmann::json{{"version", kAgentboxVersion},
                               {"commit", kAgentboxCommit},
                               {"build_type", kAgentboxBuildType}}
                    .dump() +
                "\n");
    return 0;
  }
  WriteStdout(std::string("agentbox ") + kAgentboxVersion + " (commit " + kAgentboxCommit + ", " +
              kAgentboxBuildType + ")\n");
  return 0;
}

}  // namespace agentbox
