// RunForOutput(): runs a program to completion and returns what it wrote to stdout, for
// helpers whose answer is their output (a kubectl exec credential plugin). posix_spawn, so a
// multithreaded caller never forks itself; stdin /dev/null; stderr shared with ours (a
// plugin's own messages reach the user, as kubectl lets them).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace agentbox {

struct ProgramRun {
  std::vector<std::string> argv;  // argv[0]: an absolute path, or a bare name found on `path`
  std::vector<std::string> env;   // "KEY=VALUE", the whole environment it gets
  std::string path;               // the PATH a bare argv[0] is looked up on
  int timeout_ms = 60000;         // killed (SIGKILL) past it
  size_t max_output = size_t{1} << 20;
};

// The first dir of `path` (':'-separated) holding an executable `name`, or "".
std::string FindOnPath(const std::string& name, const std::string& path);

// Its stdout when it exits 0; kUnavailable naming argv[0] when it cannot start, exits non-zero,
// is killed, runs past the timeout or writes more than max_output.
StatusOr<std::string> RunForOutput(const ProgramRun& run);

}  // namespace agentbox
