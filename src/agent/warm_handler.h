// A connection handler forked before its connection arrives.
//
// Forking the agent and the first copy-on-write faults of the child cost a millisecond or two
// on a paravirtualized host; a warm handler pays them while the box is idle, so an accepted
// connection only has to be handed over (its fd, by SCM_RIGHTS). The agent keeps one ready.
#pragma once

#include <sys/types.h>

#include <vector>

#include "agent/connection.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct WarmHandler {
  pid_t pid = -1;
  UniqueFd control;       // the agent's end of the hand-over socket
  bool prepared = false;  // it said so: warmed up, the next exec's init started
  bool alive() const { return pid > 0 && control.valid(); }
};

// Forks a handler that waits for one connection on its control socket, then serves it as a
// freshly forked one would (ServeConnection). {} when the fork fails.
WarmHandler ForkWarmHandler(const AgentContext& context, const std::vector<int>& agent_fds);

// Reads the handler's "ready" once its control socket is readable; a hang-up instead means it
// died, and leaves it spent (its reap is the caller's).
void AwaitWarmReady(WarmHandler& handler);

// Gives `conn_fd` to the waiting handler with the pids of the other handlers alive now (for
// ping's active_execs). False if the handler is gone: then the caller serves the connection
// another way. Either way `handler` is spent and must be replaced; on success its control
// socket stays open, the handler's channel to PID 1 (agent/control_channel.h), for the caller
// to take.
bool HandOver(WarmHandler& handler, int conn_fd, const std::vector<pid_t>& other_handlers);

}  // namespace agentbox
