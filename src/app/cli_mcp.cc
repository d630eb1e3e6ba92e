// `agentbox mcp [--sandbox ID|NAME] [--policy FILE]`: an MCP server on stdin/stdout.
#include "app/backends.h"
#include "app/cli.h"
#include "app/mcp/mcp_stdio.h"
#include "core/sandbox_manager.h"
#include "spec/policy_file.h"
#include "spec/units.h"

namespace agentbox {
namespace {

constexpr const char* kMcpUsage =
    "Usage: agentbox mcp [--sandbox ID|NAME] [--policy FILE] [--bash-output-chars N]\n"
    "\n"
    "Serves the Model Context Protocol on stdin/stdout (one JSON-RPC message per line), for MCP\n"
    "clients such as Claude Code: `claude mcp add agentbox -- agentbox mcp`. Tools: bash, exec,\n"
    "str_replace_based_edit_tool, read_file, write_file, list_files (see docs/mcp.md).\n"
    "\n"
    "The session's sandbox is created on the first tool call and removed when stdin closes.\n"
    "\n"
    "Options:\n"
    "  --sandbox ID|NAME   work in this existing sandbox instead (it is never removed)\n"
    "  --policy FILE       policy file for the session's own sandbox\n"
    "  --bash-output-chars N\n"
    "                      characters of output one bash call returns before its middle is cut\n"
    "                      and the whole saved under /workspace/.agentbox/bash-output\n"
    "                      (default 30000; 0: never cut)\n";

StatusOr<McpOptions> ParseMcpArgs(const Args& args, bool* help) {
  McpOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return options;
    }
    std::string bash_chars;
    std::string* target = arg == "--sandbox"             ? &options.sandbox
                          : arg == "--policy"            ? &options.policy_path
                          : arg == "--bash-output-chars" ? &bash_chars
                                                         : nullptr;
    if (target == nullptr) return InvalidArgument("mcp: unknown option \"" + arg + "\"");
    if (i + 1 >= args.size() || args[i + 1].empty()) {
      return InvalidArgument("mcp: " + arg + " needs a value");
    }
    *target = args[++i];
    if (target == &bash_chars) {
      auto chars = ParseCount(bash_chars);
      if (!chars.ok())
        return InvalidArgument("mcp: --bash-output-chars: " + chars.status().message());
      options.bash_output_chars = static_cast<size_t>(*chars);
    }
  }
  if (!options.sandbox.empty() && !options.policy_path.empty()) {
    return InvalidArgument("mcp: --policy applies to a new sandbox, not with --sandbox");
  }
  return options;
}

// A --sandbox that does not exist (or is not running) is said once, at start, before a client
// believes it has a working server: every tool call would fail with the same reason.
// And whether it has egress (allow_hosts), for the tools' openWorldHint.
Status CheckNamedSandbox(const std::string& ref, bool* open_world) {
  AB_ASSIGN_OR_RETURN(SandboxManager manager, OpenSandboxManager());
  StatusOr<SandboxStatus> found = manager.Find(ref);
  if (!found.ok()) {
    return Status(found.status().code(), "mcp: --sandbox: " + found.status().message());
  }
  if (found->state != SandboxState::kRunning) {
    return Unavailable("mcp: --sandbox " + ref +
                       ": the sandbox is not running (remove it with "
                       "`agentbox rm`)");
  }
  *open_world = !found->record.spec.allow_hosts.empty();
  return OkStatus();
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
  if (!options->sandbox.empty()) {
    Status found = CheckNamedSandbox(options->sandbox, &options->open_world);
    if (!found.ok()) return FailWith(found);
  } else if (!options->policy_path.empty()) {
    // Read again when the sandbox is made; an error is said then, with the sandbox's.
    auto policy = LoadPolicyFile(options->policy_path);
    options->open_world = policy.ok() && !policy->allow_hosts.empty();
  }
  // Sandboxes are made by a single-threaded helper: this binary, re-run as `agentbox create`.
  options->agentbox_binary = "/proc/self/exe";
  return ServeMcpOverStdio(*options);
}

}  // namespace agentbox
