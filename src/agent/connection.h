// One connection to the agent: read the request, dispatch, answer. Runs in a handler process.
#pragma once

#include <sys/types.h>

#include <memory>
#include <vector>

#include "agent/agent_options.h"
#include "agent/exec_op.h"

namespace agentbox {

struct AgentContext {
  ExecSetup exec;
  int workspace_fd = -1;        // O_PATH of /workspace
  std::vector<pid_t> handlers;  // other handlers alive when this one was forked
  int control_fd = -1;          // this handler's channel to PID 1 (agent/control_channel.h)
};

// Exec handlers name themselves so a ping can tell commands from file operations.
inline constexpr const char* kExecHandlerName = "agentbox-exec";
// ...and rename themselves once their command is over, before the result goes out: a client
// that removes the sandbox right after the result must not be told it is still busy.
inline constexpr const char* kExecDoneName = "agentbox-done";

// First thing in a newly forked handler: SIGCHLD back to normal (the agent blocks it for its
// signalfd) and PID 1's own fds closed (listening socket, signalfd, and its ends of the other
// handlers' connections and control sockets: a keeper must see PID 1 let it go).
void EnterHandlerProcess(const std::vector<int>& agent_fds);

// `prepared`: the next exec's init, started ahead by a warm handler (null: none). Used if the
// request is an exec; otherwise dropped, which ends it.
void ServeConnection(int conn_fd, const AgentContext& context,
                     std::unique_ptr<PreparedExec> prepared = nullptr);

}  // namespace agentbox
