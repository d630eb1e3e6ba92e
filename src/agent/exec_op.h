// The agent's exec: one command of the sandbox, its whole process tree killed when it ends.
#pragma once

#include "agent/agent_options.h"
#include "core/exec_wire.h"

namespace agentbox {

// Runs request (stdin_fd: the client's stdin, or -1 for /dev/null), streaming kStdout/kStderr
// frames on conn_fd and ending with the kResponse frame. The command's whole process tree is
// killed at its timeout, when it exits, and when the client hangs up; how depends on the mode
// (agent/exec_launcher.h).
void HandleExec(int conn_fd, const ExecRequest& request, int stdin_fd, AgentMode mode);

}  // namespace agentbox
