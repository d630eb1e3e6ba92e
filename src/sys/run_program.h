// Runs a host program (mkfs) to completion: posix_spawn, so a multithreaded caller (serve)
// never forks itself; a clean environment; stdin /dev/null; its stderr kept for the error.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace agentbox {

// The first of dirs/name that is executable, or "" (agentbox is static: no PATH lookup of libc's
// we would trust with the host's environment).
std::string FindHostProgram(const std::string& name);

// Runs argv[0] (an absolute path) with argv; OK when it exits 0, else kUnavailable naming the
// program, its exit status and the last line it wrote to stderr.
Status RunHostProgram(const std::vector<std::string>& argv);

}  // namespace agentbox
