// agentbox: a sandbox for AI agents' shell commands. Dispatches to one subcommand.
#include <string_view>

#include "app/cli.h"
#include "egress/proxy_main.h"

namespace agentbox {
namespace {

struct Subcommand {
  std::string_view name;
  int (*run)(const Args& args);
  std::string_view summary;
};

// To add a subcommand: one cli_NAME.cc with NameSubcommand(), declared in cli.h, one line here.
constexpr Subcommand kSubcommands[] = {
    {"run", &RunSubcommand, "run one command in a fresh sandbox"},
    {"create", &CreateSubcommand, "create a sandbox that outlives this command"},
    {"exec", &ExecSubcommand, "run one command in a running sandbox"},
    {"ps", &PsSubcommand, "list a sandbox's background processes (exec -d)"},
    {"logs", &LogsSubcommand, "print a background process's output"},
    {"wait", &WaitSubcommand, "wait for a background process to exit"},
    {"kill", &KillSubcommand, "signal a background process"},
    {"send", &SendSubcommand, "write to a background process's stdin"},
    {"snapshot", &SnapshotSubcommand, "snapshot a sandbox's workspace; snapshot ls, snapshot rm"},
    {"restore", &RestoreSubcommand, "put a sandbox's workspace back as a snapshot holds it"},
    {"diff", &DiffSubcommand, "what changed in a sandbox's workspace since a snapshot"},
    {"fork", &ForkSubcommand, "a new sandbox whose workspace starts as a snapshot"},
    {"log", &LogSubcommand, "print a sandbox's session log (JSON lines)"},
    {"replay", &ReplaySubcommand, "re-run a session log in a fresh sandbox, report divergences"},
    {"ls", &LsSubcommand, "list sandboxes"},
    {"inspect", &InspectSubcommand, "show one sandbox as JSON"},
    {"cp", &CpSubcommand, "copy files between the host and a sandbox's /workspace"},
    {"rm", &RmSubcommand, "remove sandboxes"},
    {"gc", &GcSubcommand, "remove what dead sandboxes and crashes left behind"},
    {"mcp", &McpSubcommand, "serve MCP (Model Context Protocol) on stdin/stdout"},
    {"serve", &ServeSubcommand, "serve the HTTP JSON API (and MCP at /mcp)"},
    {"image", &ImageSubcommand,
     "the image store: pull, load, ls, inspect, rm, prune; import (docker)"},
    {"pool", &PoolSubcommand, "keep started docker sandboxes warm for fast create"},
    {"doctor", &DoctorSubcommand, "check that this host can give every isolation layer"},
    {"version", &VersionSubcommand, "print the version"},
};

std::string Usage() {
  std::string text =
      "Usage: agentbox COMMAND [ARG...]\n"
      "\n"
      "A sandbox for AI agents' shell commands.\n"
      "\n"
      "Commands:\n";
  for (const Subcommand& sub : kSubcommands) {
    text += "  " + std::string(sub.name) + std::string(10 - sub.name.size(), ' ') +
            std::string(sub.summary) + "\n";
  }
  text += "  help      show this help, or `agentbox help COMMAND` for one command\n";
  text += "\nRun `agentbox COMMAND --help` for the options of a command.\n";
  return text;
}

const Subcommand* Find(std::string_view name) {
  for (const Subcommand& sub : kSubcommands) {
    if (sub.name == name) return &sub;
  }
  return nullptr;
}

int Dispatch(const Args& args) {
  if (args.empty()) {
    WriteStderr(Usage());
    return kExitAgentboxFailed;
  }
  const std::string& name = args[0];
  if (name == "-h" || name == "--help" || (name == "help" && args.size() == 1)) {
    WriteStdout(Usage());
    return 0;
  }
  if (name == "--version") return VersionSubcommand({});
  // Not a user's command: the egress proxy agentbox starts for a sandbox (egress/proxy_main.h).
  if (name == egress::kEgressProxyCommand) return egress::EgressProxyMain(args);
  if (name == "help") {
    const Subcommand* sub = Find(args[1]);
    if (sub == nullptr) return FailWith(InvalidArgument("unknown command \"" + args[1] + "\""));
    return sub->run({"--help"});
  }
  const Subcommand* sub = Find(name);
  if (sub == nullptr) {
    return FailWith(InvalidArgument("unknown command \"" + name + "\" (see agentbox --help)"));
  }
  return sub->run(Args(args.begin() + 1, args.end()));
}

}  // namespace
}  // namespace agentbox

int main(int argc, char** argv) {
  agentbox::AdoptStatusFd();
  return agentbox::Dispatch(agentbox::Args(argv + 1, argv + argc));
}
