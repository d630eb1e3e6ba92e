// Creating a sandbox from a multithreaded process (serve, mcp) without cloning it.
//
// The native backend clones; clone in a process with other threads inherits locks those threads
// hold (malloc's, stdio's) and can deadlock the child. So servers run their own binary as a
// single-threaded helper, `agentbox create ARGS...`, and read the new id from its stdout.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace agentbox {

// Runs `self_exe create create_args...` with /dev/null as stdin, default signal dispositions and
// an empty signal mask (servers block and ignore some; the sandbox must start with neither).
// Returns the new id, or the helper's one-line reason: kAlreadyExists when the name was taken,
// kInvalidArgument for a bad policy, else kUnavailable.
StatusOr<std::string> RunCreateHelper(const std::string& self_exe,
                                      const std::vector<std::string>& create_args);

}  // namespace agentbox
