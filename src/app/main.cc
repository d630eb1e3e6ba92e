// agentbox: a sandbox for AI agents' shell commands. Dispatches to one subcommand.
#include <string_view>

#include "app/cli.h"
#include "egress/proxy_main.h"
#include "spec/exec_args.h"
#include "spec/run_args.h"

namespace agentbox {
namespace {

struct Subcommand {
  int (*run)(const Args& args);
  const CommandHelp& (*help)();  // its name, summary, flags: --help, man page, completions
};

// To add a subcommand: one cli_NAME.cc with NameSubcommand() and NameHelp(), declared in cli.h,
// one line here.
constexpr Subcommand kSubcommands[] = {
    {&RunSubcommand, &RunHelp},
    {&CreateSubcommand, &CreateHelp},
    {&ExecSubcommand, &ExecHelp},
    {&PsSubcommand, &PsHelp},
    {&LogsSubcommand, &LogsHelp},
    {&WaitSubcommand, &WaitHelp},
    {&KillSubcommand, &KillHelp},
    {&SendSubcommand, &SendHelp},
    {&SnapshotSubcommand, &SnapshotHelp},
    {&RestoreSubcommand, &RestoreHelp},
    {&DiffSubcommand, &DiffHelp},
    {&ForkSubcommand, &ForkHelp},
    {&LogSubcommand, &LogHelp},
    {&ReplaySubcommand, &ReplayHelp},
    {&LsSubcommand, &LsHelp},
    {&InspectSubcommand, &InspectHelp},
    {&CpSubcommand, &CpHelp},
    {&RmSubcommand, &RmHelp},
    {&GcSubcommand, &GcHelp},
    {&McpSubcommand, &McpHelp},
    {&ServeSubcommand, &ServeHelp},
    {&ImageSubcommand, &ImageHelp},
    {&PoolSubcommand, &PoolHelp},
    {&DoctorSubcommand, &DoctorHelp},
    {&VersionSubcommand, &VersionHelp},
};

// Not listed anywhere: what the build runs to make the man pages, the completion scripts and
// the OpenAPI document the SDKs are generated from.
struct Hidden {
  std::string_view name;
  int (*run)(const Args& args);
};
constexpr Hidden kHidden[] = {
    {"__man", &ManSubcommand},
    {"__completion", &CompletionSubcommand},
    {"__openapi", &OpenApiSubcommand},
};

std::string Usage() {
  std::string text = FormatHelpText(ProgramHelp().description, 80) + "\nCommands:\n";
  for (const CommandHelp* help : AllCommandHelps()) {
    const size_t pad = help->name.size() < 10 ? 10 - help->name.size() : 1;
    text +=
        "  " + std::string(help->name) + std::string(pad, ' ') + std::string(help->summary) + "\n";
  }
  text += "  help      show this help, or `agentbox help COMMAND` for one command\n";
  text += "\nRun `agentbox COMMAND --help` for the options of a command.\n";
  return "Usage: agentbox COMMAND [ARG...]\n\n" + text;
}

const Subcommand* Find(std::string_view name) {
  for (const Subcommand& sub : kSubcommands) {
    if (sub.help().name == name) return &sub;
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
    WriteStdout(FormatHelp(sub->help()));
    return 0;
  }
  const Args rest(args.begin() + 1, args.end());
  for (const Hidden& hidden : kHidden) {
    if (hidden.name == name) return hidden.run(rest);
  }
  const Subcommand* sub = Find(name);
  if (sub == nullptr) {
    return FailWith(InvalidArgument("unknown command \"" + name + "\" (see agentbox --help)"));
  }
  return sub->run(rest);
}

}  // namespace

std::span<const CommandHelp* const> AllCommandHelps() {
  static const std::vector<const CommandHelp*> helps = [] {
    std::vector<const CommandHelp*> v;
    for (const Subcommand& sub : kSubcommands) v.push_back(&sub.help());
    return v;
  }();
  return helps;
}

const CommandHelp& ProgramHelp() {
  static const CommandHelp help = {
      .name = "agentbox",
      .summary = "a sandbox for AI agents' shell commands",
      .usage = "COMMAND [ARG...]",
      .description =
          "A sandbox for AI agents' shell commands: each command runs with no network, a "
          "read-only root, /workspace as the only writable host directory, its own namespaces, "
          "no privileges, a seccomp filter and hard limits on time, memory, processes, output "
          "and disk. `agentbox run` runs one command in a fresh sandbox; `agentbox create` makes "
          "one that outlives it, for `agentbox exec`; `agentbox serve` offers the same over an "
          "HTTP API, `agentbox mcp` as an MCP server.",
      .notes =
          "Exit status: the command's own; 124 timeout; 125 agentbox failed (the command "
          "was not run); 126 not executable; 127 not found; 128+N killed by signal N.\n"
          "\n"
          "Environment: AGENTBOX_STATE_DIR (where sandboxes are remembered; default "
          "/var/lib/agentbox as root, else ~/.local/state/agentbox), AGENTBOX_CGROUP_PARENT, "
          "AGENTBOX_AGENT (the in-sandbox agent binary), DOCKER_HOST (the docker backend); for "
          "the kubernetes backend KUBECONFIG, AGENTBOX_KUBE_CONTEXT, AGENTBOX_KUBE_NAMESPACE, "
          "AGENTBOX_KUBE_OWNER (shared by serve's replicas), AGENTBOX_KUBE_AGENT_IMAGE and "
          "AGENTBOX_KUBE_SANDBOX_CLAIMS=1 (sandboxes through agent-sandbox's SandboxClaim; "
          "docs/kubernetes.md).",
  };
  return help;
}

}  // namespace agentbox

int main(int argc, char** argv) {
  agentbox::AdoptStatusFd();
  return agentbox::Dispatch(agentbox::Args(argv + 1, argv + argc));
}
