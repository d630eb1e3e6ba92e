// `agentbox exec [--json] [-d] [-t] [--timeout S] [-e K=V] [-w DIR] [-i] [--output-limit SIZE]
// ID|NAME -- COMMAND [ARG...]`: parsed by a pure function.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "spec/cli_flags.h"
#include "spec/command_help.h"
#include "spec/run_args.h"

namespace agentbox {

struct ExecInvocation {
  std::string sandbox;  // ID or NAME
  std::vector<std::string> argv;
  std::optional<double> timeout_seconds;
  std::optional<uint64_t> output_limit;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::string> cwd;
  bool pass_stdin = false;  // with detach: its stdin stays open, for `agentbox send`
  bool detach = false;      // a background process: its id printed, the command left running
  bool tty = false;         // a PTY (with pass_stdin: this terminal's keys typed into it)
  bool rollback_on_failure = false;  // a failing command's workspace changes are undone
  bool json = false;
  bool help = false;
};

StatusOr<ExecInvocation> ParseExecArgs(const std::vector<std::string>& args,
                                       const EnvLookup& caller_env = CallerEnvironment);
const CommandHelp& ExecHelp();

}  // namespace agentbox
