// `agentbox mcp [--sandbox ID|NAME] [--policy FILE]`: an MCP server on stdin/stdout.
#include "app/cli.h"
#include "app/mcp/mcp_stdio.h"

namespace agentbox {
namespace {

constexpr const char* kMcpUsage =
    "Usage: agentbox mcp [--sandbox ID|NAME] [--policy FILE]\n"
    "\n"
    "Serves the Model Context Protocol on stdin/stdout (one JSON-RPC message per line), for MCP\n"
    "clients such as Claude Code: `claude mcp add agentbox -- agentbox mcp`. Tools: bash, exec,\n"
    "str_replace_based_edit_tool, read_file, write_file, list_files (see docs/mcp.md).\n"
    "\n"
    "The session's sandbox is created on the first tool call and removed when stdin closes.\n"
    "\n"
    "Options:\n"
    "  --sandbox ID|NAME   work in this existing sandbox instead (it is never removed)\n"
    "  --policy FILE       policy file for the session's own sandbox\n";

StatusOr<McpOptions> ParseMcpArgs(const Args& args, bool* help) {
  McpOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return options;
    }
    std::string* target = arg == "--sandbox"  ? &options.sandbox
                          : arg == "--policy" ? &options.policy_path
                                              : nullptr;
    if (target == nullptr) return InvalidArgument("mcp: unknown option \"" + arg + "\"");
    if (i + 1 >= args.size() || args[i + 1].empty()) {
      return InvalidArgument("mcp: " + arg + " needs a value");
    }
    *target = args[++i];
  }
  if (!options.sandbox.empty() && !options.policy_path.empty()) {
    return InvalidArgument("mcp: --policy applies to a new sandbox, not with --sandbox");
  }
  return options;
}

}  // namespace

int McpSubcommand(const Args& args) {
  bool help = false;
  auto options = ParseMcpArgs(args, &help);
  if (!options.ok()) return FailWith(options.status());
  if (help) {
    WriteStdout(kMcpUsage);
    return 0;
  }
  // Sandboxes are made by a single-threaded helper: this binary, re-run as `agentbox create`.
  options->agentbox_binary = "/proc/self/exe";
  return ServeMcpOverStdio(*options);
}

}  // namespace agentbox
