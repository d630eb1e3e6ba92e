// `agentbox mcp [--sandbox ID|NAME] [--policy FILE]`: an MCP server on stdin/stdout.
#include "app/backends.h"
#include "app/cli.h"
#include "app/mcp/mcp_stdio.h"
#include "core/sandbox_manager.h"
#include "spec/policy_file.h"
#include "spec/units.h"

namespace agentbox {
namespace {

constexpr FlagDef kMcpFlags[] = {
    {"sandbox", 0, "ID|NAME", "work in this existing sandbox instead (it is never removed)"},
    {"policy", 0, "FILE", "policy file for the session's own sandbox"},
    {"bash-output-chars", 0, "N",
     "characters of output one bash call returns before its middle is cut and the whole saved "
     "under /workspace/.agentbox/bash-output (0: never cut)",
     "30000"},
    {"help", 'h', "", "show this help"},
};

StatusOr<McpOptions> ParseMcpArgs(const ParsedArgs& parsed) {
  if (!parsed.rest.empty())
    return InvalidArgument("mcp: unknown option \"" + parsed.rest[0] + "\"");
  McpOptions options;
  for (const ParsedFlag& flag : parsed.flags) {
    const std::string_view name = flag.def->long_name;
    if (!flag.def->value_name.empty() && flag.value.empty()) {
      return InvalidArgument("mcp: --" + std::string(name) + " needs a value");
    }
    if (name == "sandbox") options.sandbox = flag.value;
    if (name == "policy") options.policy_path = flag.value;
    if (name == "bash-output-chars") {
      auto chars = ParseCount(flag.value);
      if (!chars.ok()) {
        return InvalidArgument("mcp: --bash-output-chars: " + chars.status().message());
      }
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

const CommandHelp& McpHelp() {
  static const CommandHelp help = {
      .name = "mcp",
      .summary = "serve MCP (Model Context Protocol) on stdin/stdout",
      .usage = "mcp [--sandbox ID|NAME] [--policy FILE] [--bash-output-chars N]",
      .description =
          "Serves the Model Context Protocol on stdin/stdout (one JSON-RPC message per line), for "
          "MCP clients such as Claude Code: `claude mcp add agentbox -- agentbox mcp`. Tools: "
          "bash, exec, process_list, process_output, process_kill, process_stdin, "
          "str_replace_based_edit_tool, read_file, write_file, list_files (see docs/mcp.md).\n"
          "\n"
          "The session's sandbox is created on the first tool call and removed when stdin "
          "closes.",
      .flags = kMcpFlags,
  };
  return help;
}

int McpSubcommand(const Args& args) {
  int exit = 0;
  auto flags = ParseOrHelp(McpHelp(), args, &exit);
  if (!flags) return exit;
  auto options = ParseMcpArgs(*flags);
  if (!options.ok()) return FailWith(options.status());
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
