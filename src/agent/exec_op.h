// The agent's exec: one command in a fresh PID + mount namespace inside the sandbox.
#pragma once

#include "core/exec_wire.h"

namespace agentbox {

// Runs request (stdin_fd: the client's stdin, or -1 for /dev/null), streaming kStdout/kStderr
// frames on conn_fd and ending with the kResponse frame. The command's whole process tree is
// killed at its timeout, when it exits, and when the client hangs up.
void HandleExec(int conn_fd, const ExecRequest& request, int stdin_fd);

}  // namespace agentbox
