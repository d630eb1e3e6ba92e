// `agentbox run` arguments: parsed by a pure function, so every flag is unit-tested without
// running anything.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "spec/cli_flags.h"
#include "spec/sandbox_spec.h"
#include "spec/spec_overlay.h"

namespace agentbox {

struct RunInvocation {
  SpecOverlay flags;                       // what the flags set, already validated
  std::optional<std::string> policy_path;  // --policy FILE
  bool json = false;                       // --json
  bool pull = false;  // --pull: the image store lacks --image? pull it first (never implied)
  bool help = false;  // -h/--help: print RunUsage(), run nothing
  std::vector<std::string> argv;  // COMMAND [ARG...]; non-empty unless help
};

// The flags of `run` (docs/contract.md §1), in documented order. `create` reuses them.
std::span<const FlagDef> RunFlagDefs();

// Parses the arguments after "run". Fails with kInvalidArgument (message names the flag) on an
// unknown flag, a missing or invalid value, or a missing command. -h/--help stops parsing.
StatusOr<RunInvocation> ParseRunArgs(const std::vector<std::string>& args);

// `agentbox create [OPTIONS of run] [--name NAME]`: run's flags, no command.
struct CreateInvocation {
  RunInvocation run;  // argv stays empty
  std::string name;   // "" for none
};
StatusOr<CreateInvocation> ParseCreateArgs(const std::vector<std::string>& args);

// The spec to run with: defaults, then the --policy file if any, then the flags. Reads the policy
// file; fails when it cannot be read or is invalid.
StatusOr<SandboxSpec> ResolveRunSpec(const RunInvocation& invocation);

// The text of `agentbox run --help`, defaults taken from SandboxSpec itself.
std::string RunUsage();

}  // namespace agentbox
