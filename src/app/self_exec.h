// agentbox running itself: the one way this binary starts another agentbox (posix_spawn of
// /proc/self/exe with /dev/null as stdin, default signal dispositions and an empty mask).
//
// Creating a sandbox from a multithreaded process (serve, mcp) without cloning it: the native
// backend clones; clone in a process with other threads inherits locks those threads hold
// (malloc's, stdio's) and can deadlock the child. So servers run their own binary as a
// single-threaded helper, `agentbox create ARGS...`, and read the new id from its stdout.
// Topping up a warm pool after a create claimed from it: a detached `agentbox pool fill`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox {

inline constexpr int kStatusCodeFd = 3;
inline constexpr std::string_view kStatusFdEnv = "AGENTBOX_STATUS_FD";

// Runs `self_exe create create_args...` with /dev/null as stdin, default signal dispositions and
// an empty signal mask (servers block and ignore some; the sandbox must start with neither).
// Returns the new id, or the helper's one-line reason with the helper's own status code
// (kInvalidArgument for a bad name or policy, kAlreadyExists for a taken name, ...), which it
// writes to fd kStatusCodeFd (named by $AGENTBOX_STATUS_FD, see ReportStatusCode in cli.h).
StatusOr<std::string> RunCreateHelper(const std::string& self_exe,
                                      const std::vector<std::string>& create_args);

// The same for any subcommand that makes a sandbox and prints its id: `self_exe helper_args...`
// (`fork SANDBOX:SNAP`).
StatusOr<std::string> RunSandboxHelper(const std::string& self_exe,
                                       const std::vector<std::string>& helper_args);

// Starts `agentbox args...` (this binary) in a session of its own, its output to /dev/null, and
// returns at once; a thread of this process reaps it. Best effort: a failure is dropped.
void SpawnSelfDetached(const std::vector<std::string>& args);

}  // namespace agentbox
