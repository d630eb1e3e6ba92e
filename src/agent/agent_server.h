// The agent's PID 1 loop: accept connections, fork one handler each, reap, and keep the box's
// process table to handlers and their execs.
#pragma once

#include "agent/agent_options.h"

namespace agentbox {

// Serves until killed. Returns only on a start-up failure (after printing one line to stderr):
// the exit status for main.
int RunAgent(const AgentOptions& options);

}  // namespace agentbox
