// One connection to the agent: read the request, dispatch, answer. Runs in a handler process.
#pragma once

#include <sys/types.h>

#include <initializer_list>
#include <memory>
#include <vector>

#include "agent/agent_options.h"
#include "agent/exec_op.h"

namespace agentbox {

struct AgentContext {
  ExecSetup exec;
  int workspace_fd = -1;        // O_PATH of /workspace
  std::vector<pid_t> handlers;  // other handlers alive when this one was forked
};

// Exec handlers name themselves so a ping can tell commands from file operations.
inline constexpr const char* kExecHandlerName = "agentbox-exec";
// ...and rename themselves once their command is over, before the result goes out: a client
// that removes the sandbox right after the result must not be told it is still busy.
inline constexpr const char* kExecDoneName = "agentbox-done";

// First thing in a newly forked handler: SIGCHLD back to normal (the agent blocks it for its
// signalfd) and the agent's own fds (listening socket, signalfd) closed.
void EnterHandlerProcess(std::initializer_list<int> agent_fds);

// `prepared`: the next exec's init, started ahead by a warm handler (null: none). Used if the
// request is an exec; otherwise dropped, which ends it.
void ServeConnection(int conn_fd, const AgentContext& context,
                     std::unique_ptr<PreparedExec> prepared = nullptr);

}  // namespace agentbox
