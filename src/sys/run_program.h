// Runs a host program (mkfs) to completion: posix_spawn, so a multithreaded caller (serve)
// never forks itself; a clean environment; stdin /dev/null; its stderr kept for the error.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/status.h"

namespace agentbox {

// The first of dirs/name that is executable, or "" (agentbox is static: no PATH lookup of libc's
// we would trust with the host's environment).
std::string FindHostProgram(const std::string& name);

// Starts `exe` with argv and exactly `env` ("KEY=VALUE"): stdin /dev/null, stdout `stdout_fd`
// (-1: /dev/null), stderr `stderr_fd` (-1: ours), every signal default and unblocked. The pid, to
// be waited for by the caller; the errno of posix_spawn naming argv[0] when it cannot start.
StatusOr<pid_t> SpawnProgram(const std::string& exe, const std::vector<std::string>& argv,
                             const std::vector<std::string>& env, int stdout_fd, int stderr_fd);

// "exited N" or "was killed by signal N", of a waitpid status.
std::string DescribeExit(int wait_status);

// Runs argv[0] (an absolute path) with argv; OK when it exits 0, else kUnavailable naming the
// program, its exit status and the last line it wrote to stderr.
Status RunHostProgram(const std::vector<std::string>& argv);

}  // namespace agentbox
