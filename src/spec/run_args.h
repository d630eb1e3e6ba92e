// `agentbox run` arguments: parsed by a pure function, so every flag is unit-tested without
// running anything.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "spec/cli_flags.h"
#include "spec/command_help.h"
#include "spec/sandbox_spec.h"
#include "spec/spec_overlay.h"

namespace agentbox {

struct RunInvocation {
  SpecOverlay flags;                       // what the flags set, already validated
  std::optional<std::string> policy_path;  // --policy FILE
  bool json = false;                       // --json
  bool pull = false;  // --pull: the image store lacks --image? pull it first (never implied)
  bool help = false;  // -h/--help: print RunHelp(), run nothing
  std::vector<std::string> argv;  // COMMAND [ARG...]; non-empty unless help
};

// The flags of `run` (docs/contract.md §1), in documented order, with the defaults --help shows.
// `create` reuses them.
std::span<const FlagDef> RunFlagDefs();

// The value of a variable of agentbox's own environment, for `-e KEY` (as docker: KEY alone
// takes the caller's value; a KEY the caller lacks is left out). Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string& key)>;
std::optional<std::string> CallerEnvironment(const std::string& key);  // getenv(3)

// Parses the arguments after "run". Fails with kInvalidArgument (message names the flag) on an
// unknown flag, a missing or invalid value, or a missing command. -h/--help stops parsing.
StatusOr<RunInvocation> ParseRunArgs(const std::vector<std::string>& args,
                                     const EnvLookup& caller_env = CallerEnvironment);

// `agentbox create [OPTIONS of run] [--name NAME]`: run's flags, no command.
struct CreateInvocation {
  RunInvocation run;  // argv stays empty
  std::string name;   // "" for none
  // serve's create helper only (not in the help): the tenant the sandbox is made for and the
  // tenant's name for it, which a backend whose sandboxes outlive the state dir writes on them
  // (kubernetes: labels of its objects, so every serve replica knows whose it is).
  std::string tenant;
  std::string tenant_name;
  // ... and, for an MCP session's sandbox where serve's replicas share sessions, the session's
  // key (a digest of its id, never the id), so any replica finds the session's sandbox.
  std::string mcp_session;
};
StatusOr<CreateInvocation> ParseCreateArgs(const std::vector<std::string>& args,
                                           const EnvLookup& caller_env = CallerEnvironment);

// The spec to run with: defaults, then the --policy file if any, then the flags. Reads the policy
// file; fails when it cannot be read or is invalid.
StatusOr<SandboxSpec> ResolveRunSpec(const RunInvocation& invocation);

// `agentbox run`'s help: its --help, man page and completions (command_help.h).
const CommandHelp& RunHelp();
// `agentbox create`'s: run's flags (what they mean for a sandbox) and --name, --ttl,
// --idle-timeout.
const CommandHelp& CreateHelp();

}  // namespace agentbox
